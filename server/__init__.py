"""What changes how Streamlit serves the app, imported without torch or the pages: who a client is
(identity: one browser across its tabs, or an address), and how often it may do a thing (limits)."""
