"""Streamlit glue shared by the pages: the cached model, the shared input, the view in the URL.

Importing it also refuses malformed widget values from crafted clients (explorer.widget_guard)."""

from . import widget_guard

widget_guard.install()
