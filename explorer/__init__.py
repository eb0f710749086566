"""Page glue shared by the pages: the cached model, the shared input, the views in the URL, the frame and the page
registry. Importing it changes nothing in Streamlit: the server's guards are server/'s, installed by app.py."""
