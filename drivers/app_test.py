"""One page of the app under Streamlit's AppTest, as a learner's session opens it: the tests' door to a page, and
scripts.store_tables' (which opens every page to store the tables their default views ask for)."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ROOT / "app_pages"


def open_page(name: str, text: str | None = "hello", query: dict | None = None, state: dict | None = None,
              timeout: float = 120) -> AppTest:
    """The page `name` (its id in explorer/pages.py) run once with this text, session state and URL."""
    at = AppTest.from_file(str(PAGES / f"{name}.py"), default_timeout=timeout)
    if text is not None:
        at.session_state["text"] = text
    for key, value in (state or {}).items():
        at.session_state[key] = value
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at.run()
