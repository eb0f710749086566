"""Make the browser rerun the page after any reconnect, even to a server process that never saw this session.

Behind scripts/serve.sh, a replica that dies moves its browsers to a live replica, which opens a new, empty
session for each. Streamlit's frontend asks for a script run after a reconnect only in a few cases, one being
that the page has a fragment which reruns on a timer; otherwise it keeps showing the old drawing, connected to
a session that has drawn nothing (a learner would see a stale page that says nothing of the model it lost).
This fragment is that timer: it draws nothing, and its hourly run costs nothing. tests/e2e/test_replicas.py
kills a replica under a browser and checks that the page is drawn again from its URL.
"""

from __future__ import annotations

from server.gate import fragment


@fragment(run_every="1h")
def rerun_after_reconnect() -> None:
    """Called once per run, before anything can stop the script; the frontend keeps its timer registered."""
