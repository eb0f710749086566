"""A small encoder-decoder Transformer, written out by hand as a lesson.

Nothing here imports streamlit or plotly: the app and the figures build on this package,
never the other way round.
"""
