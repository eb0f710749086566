"""The server's room: everything that changes how Streamlit serves this app, and the only code that touches
Streamlit's internals (its runtime, its elements' classes, its protocol, its private attributes).

- who a client is (identity: one browser across its tabs, or an address) and how often it may do a thing (limits);
- who may compute, and when (gate, heavy_lane), and the readiness route a load balancer checks (gate.ready_route);
- what one browser may not ask on behalf of everyone (guards, widget_guard, url_seeding), installed by install();
- the byte-bounded caches (run_cache) and returning freed memory (memory);
- the HTTP side: slow headers closed (header_timeout), two middlewares around Streamlit's files (middleware);
- a session's runtime facts for the page glue (session), the warm-up's thread (warm), a reconnect's rerun
  (reconnect).

Nothing is patched by importing this package or any module in it: app.py calls install() once per process, and
each patch it makes is listed in PATCHES, whose contract test (tests/unit/test_server_contracts.py) fails, naming
the symbol, when a Streamlit upgrade moves it.
"""

from __future__ import annotations

from typing import Callable

from server.session import in_script_run
from server.warm import collector_off, status_of

# Each Streamlit symbol install() replaces or sets: (module, attribute path, the server module that patches it)
PATCHES = (
    ("streamlit.runtime.state.session_state", "SessionState.on_script_will_rerun", "server.widget_guard"),
    ("streamlit.runtime.state.session_state", "SessionState._seed_widget_from_url", "server.url_seeding"),
    ("streamlit.elements.widgets.button_group", "ButtonGroupMixin._button_group", "server.url_seeding"),
    ("streamlit.runtime.app_session", "AppSession._handle_clear_cache_request", "server.guards"),
    ("streamlit.runtime.runtime_util", "_max_widget_state_size_bytes", "server.guards"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager.get_upload_urls", "server.guards"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager.add_file", "server.guards"),
    ("streamlit.runtime.memory_uploaded_file_manager", "MemoryUploadedFileManager.remove_session_files",
     "server.guards"),
)


def install() -> None:
    """The guards on Streamlit, once per process: app.py calls it as it is imported to serve and at the top of
    every session's run (each patch is put on once, so a later call changes nothing)."""
    from server import guards, url_seeding, widget_guard
    widget_guard.install()
    url_seeding.install()
    guards.install()


def serving() -> bool:
    """Whether app.py is being imported by `streamlit run` to serve the app (no session's script runs)."""
    return not in_script_run()


def app_options(warm_up: Callable[[], None], warm_up_status: Callable[[], dict]) -> dict:
    """What st.App is given to serve the app (app.py writes `app = st.App(...)` itself: `streamlit run` finds an
    app by reading the script's source): `warm_up` in a thread as the server starts, GET /api/warm-up answering
    `warm_up_status()`, GET /api/ready for a load balancer, the browser cookie and the two file middlewares. It
    also closes slow headers and bounds glibc's heaps, once, for the server it is called for."""
    from starlette.middleware import Middleware
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from server import header_timeout
    from server.gate import ready_route
    from server.identity import BrowserCookie
    from server.memory import limit_arenas
    from server.middleware import ElementCodeFirst, HashedFilesFromMemory
    from server.warm import lifespan

    async def status(_request):
        return JSONResponse(warm_up_status())

    header_timeout.install()
    limit_arenas()
    return {"lifespan": lifespan(warm_up),
            "routes": [Route("/api/warm-up", status), Route("/api/ready", ready_route)],
            "middleware": [Middleware(HashedFilesFromMemory), Middleware(BrowserCookie), Middleware(ElementCodeFirst)]}
