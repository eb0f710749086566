"""Attention explorer: the entrypoint.

    streamlit run app.py

`streamlit run` imports this file once to serve it and finds `app`, an st.App given server.app_options: its
lifespan warms the server up in a thread (explorer/warmup.py: torch, the shown model and a first run of it, then
the other models and every page's modules), GET /api/warm-up says how far it got, and GET /api/ready is what a
load balancer checks. Every run of a session then runs this file as its script: the frame and the page
(explorer/frame.py), then a word to the warm-up that a page has run. server.install puts the server's guards on
Streamlit, once per process, in both cases; importing anything else patches nothing.
"""

import streamlit as st

import server

server.install()


def warm_up() -> None:
    """The server's warm-up, with Python's cyclic collector off from its first import (torch's among them)."""
    with server.collector_off():
        from explorer.warmup import warm_up_server   # importing explorer imports torch
        warm_up_server()


def warm_up_status() -> dict:
    """What the warm-up has done so far (explorer.warmup.STATUS), read without importing it."""
    return server.status_of("explorer.warmup", {"models": [], "pages_imported": False, "done": False})


if server.serving():          # imported by `streamlit run app.py` to serve the app
    app = st.App("app.py", **server.app_options(warm_up=warm_up, warm_up_status=warm_up_status))
else:                         # a session's run
    from explorer.frame import main
    from explorer.warmup import warm_up_once
    main()
    warm_up_once()            # where no lifespan warmed up (AppTest), the warm-up starts here
