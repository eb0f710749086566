"""The lab's whole-sample tables for a learner's own model: computed when the learner asks, with a progress bar,
within a time budget, and stopped when the learner leaves.

A bundled model's tables are computed once per server and cached for everyone, at a cost known in advance. An
own model's cost is whatever its upload makes it (an accepted model near the parameter limit costs about four
times the bundled one per word), and it is paid again by each session; computed on page load it held one of
the server's two places for minutes. So for an own model a page shows a button, and the work reports its
progress: each report is a Streamlit call, where a rerun, a press of Stop or a closed tab ends the work, and
past WORK_SECONDS of work it stops itself. It runs in the server's one heavy lane, outside the places the other
learners' pages run in (explorer.gate), and rests after each batch as long as the batch took: its Python holds
the GIL that every other learner's run needs.
"""

from __future__ import annotations

import time
import zlib
from typing import Callable, TypeVar

import streamlit as st

from .link_guard import stop_page
from .gate import server_gate
from .own_models import is_own

WORK_SECONDS = 60          # the longest one table of an own model may compute on the shared server...
HEAVY_SHARE = 0.5          # ...working at most this share of the time: after each batch it rests as long
                           # (two tabs' tables made another learner 1.6x slower working flat out, 1.1x so)
ASKED_KEY = "_tables_asked"  # the tables this session asked for, by (model id, table, arguments)
T = TypeVar("T")


class WorkStopped(Exception):
    """The work ran past its budget."""


def on_request(table: Callable[..., T], what: str, key: str, *args, ask: bool = True) -> T | None:
    """table(key, *args) for the model named by `key`: at once for a server model; for an own model, once the
    learner asks (with ask=False, None until they have asked, and no button: the teacher's sheet leaves that
    step out)."""
    if not is_own(key) or table.is_cached(key, *args):
        return table(key, *args)
    name = f"{table.__name__}{args!r}"
    asked = st.session_state.setdefault(ASKED_KEY, set())
    if (key, name) not in asked:
        if not ask:
            return None
        ask_box = st.empty()   # the question goes once the learner has answered it
        with ask_box.container():
            st.info(f"{what}: for your own model this is computed when you ask, since its cost depends on the "
                    f"model (one such table at a time on this server, each for at most {WORK_SECONDS} s of work at "
                    "half speed, so that the class keeps its pace; with a progress bar; leaving the page stops it).",
                    icon="⏳")
            pressed = st.button("Compute it for my model", key=f"compute_{zlib.crc32(name.encode()):08x}",
                                type="primary")
        if not pressed:
            stop_page()
        ask_box.empty()
    asked.add((key, name))   # kept until the work stops: a rerun meanwhile goes on asking
    bar = st.progress(0.0, text=f"{what}…")
    worked, since = [0.0], [time.monotonic()]   # seconds of work so far; when the batch under way began

    def waiting() -> None:
        bar.progress(0.0, text=f"{what}: waiting for another learner's model (one such table at a time here)…")

    def report(share: float) -> None:
        batch = time.monotonic() - since[0]
        worked[0] += batch
        if worked[0] > WORK_SECONDS:
            raise WorkStopped(f"{share:.0%} done after {worked[0]:.0f} s of work")
        bar.progress(min(max(share, 0.0), 1.0), text=f"{what}… {share:.0%} ({worked[0]:.0f} s of work)")
        time.sleep(batch * (1 / HEAVY_SHARE - 1))
        since[0] = time.monotonic()

    try:
        with server_gate().heavy_lane(waiting):
            since[0] = time.monotonic()
            result = table(key, *args, _progress=report)
    except WorkStopped as stopped:
        asked.discard((key, name))
        bar.empty()
        st.warning(f"{what} was stopped ({stopped}): your model needs more than the {WORK_SECONDS} s one table "
                   "may take on a shared server. The rest of the page needs this table, so it ends here.",
                   icon="⏱️")
        stop_page()
    bar.empty()
    return result
