"""Attention explorer: the entrypoint.

    streamlit run app.py

`streamlit run` imports this file once to serve it and finds `app`, an st.App whose lifespan starts the server's
warm-up in a thread as the server starts (explorer/warmup.py: torch, the shown model and a first run of it, then,
after a first page, the other models and every page's modules), so the first learner's page waits for little of it;
GET /api/warm-up says how far it got. Every run of a session then runs
this file as its script, which draws the frame and the page (explorer/frame.py).
"""

import contextlib
import sys
import threading

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx


@contextlib.asynccontextmanager
async def warm_up_beside_the_server(_app):
    """st.App's lifespan. Importing explorer imports torch (about 1.5 s), so that too happens in the thread, and
    the server listens at once."""
    def warm_up() -> None:
        from explorer.warmup import warm_up_server
        warm_up_server()
    threading.Thread(target=warm_up, daemon=True, name="server warm-up").start()
    yield


async def warm_up_status(_request):
    """What the warm-up has done so far (explorer.warmup.STATUS), read without importing it."""
    from starlette.responses import JSONResponse
    warmup = sys.modules.get("explorer.warmup")
    return JSONResponse(warmup.STATUS if warmup else {"models": [], "pages_imported": False, "done": False})


if get_script_run_ctx(suppress_warning=True) is None:   # imported by `streamlit run app.py` to serve the app
    from starlette.routing import Route
    app = st.App("app.py", lifespan=warm_up_beside_the_server, routes=[Route("/api/warm-up", warm_up_status)])
else:                                                   # a session's run
    from explorer.frame import main
    main()
