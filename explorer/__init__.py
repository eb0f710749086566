"""Streamlit glue shared by the pages: the cached model, the shared input, the view in the URL.

Importing it also refuses malformed widget values from crafted clients (explorer.widget_guard), gives a
link's unusable values their widget's default (explorer.link_guard), and refuses what no browser of the app
asks for on behalf of every session: clearing the caches, and uploads no uploader asked for
(explorer.server_guards)."""

from . import link_guard, server_guards, widget_guard

widget_guard.install()
link_guard.install()
server_guards.install()
