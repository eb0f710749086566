"""What the page glue may ask of Streamlit's runtime about the session whose script runs, through one door: its id,
whether a script runs at all, whether a session is still connected, and dropping an upload it has read."""

from __future__ import annotations

from streamlit.runtime import Runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

NO_SESSION = "no-session"


def in_script_run() -> bool:
    """Whether a session's script runs on this thread (not the server's warm-up, a test or a worker thread)."""
    return get_script_run_ctx(suppress_warning=True) is not None


def session_id() -> str:
    """The server's id of the session whose script runs (what the runtime knows as alive or gone)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    return ctx.session_id if ctx is not None else NO_SESSION


def session_alive(session_id: str) -> bool:
    """False once the browser tab of `session_id` has gone. True under AppTest, which runs no server: the test
    itself is the session."""
    if not Runtime.exists():
        return True
    return Runtime.instance().is_active_session(session_id)


def forget_upload(file_id: str) -> None:
    """Drop an uploaded file of this session from Streamlit's upload store, which keeps it until the session is
    shut down (and a session that merely expires is never shut down)."""
    ctx = get_script_run_ctx(suppress_warning=True)
    if Runtime.exists() and ctx is not None:
        Runtime.instance().uploaded_file_mgr.remove_file(ctx.session_id, file_id)
