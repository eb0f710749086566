"""Streamlit glue shared by the pages: the cached model, the shared input, the view in the URL."""
