"""The lab's whole-sample tables for a learner's own model: computed when the learner asks, with a progress bar,
within a time budget, and stopped when the learner leaves.

A bundled model's tables are stored beside its weights, or computed once per server in the heavy lane and cached
for everyone, at a cost known in advance. An
own model's cost is whatever its upload makes it (an accepted model near the parameter limit costs about four
times the bundled one per word), and it is paid again by each session; computed on page load it held one of
the server's two places for minutes. So for an own model a page shows a button, and the work reports its
progress: each report is a Streamlit call, where a rerun, a press of Stop or a closed tab ends the work, and
past WORK_SECONDS of work it stops itself. It runs in the server's one heavy lane, outside the places the other
learners' pages run in (server.gate), and rests after each batch as long as the batch took: its Python holds
the GIL that every other learner's run needs.
"""

from __future__ import annotations

import zlib
from typing import Callable, TypeVar

import streamlit as st

from .heavy import NOT_RUN, STOPPED, in_heavy_lane
from .link_guard import stop_page
from .own_models import is_own

WORK_SECONDS = 60          # the longest one table of an own model may compute on the shared server, resting
                           # after each batch as long as it took (explorer.heavy.REST: two tabs' tables made
                           # another learner 1.6x slower working flat out, 1.1x so)
ASKED_KEY = "_tables_asked"  # the tables this session asked for, by (model id, table, arguments)
T = TypeVar("T")


class WorkStopped(Exception):
    """The work ran past its budget."""


def on_request(table: Callable[..., T], what: str, key: str, *args, ask: bool = True) -> T | None:
    """table(key, *args) for the model named by `key`: at once for a server model; for an own model, once the
    learner asks (with ask=False, None until they have asked, and no button: the teacher's sheet leaves that
    step out)."""
    if table.is_ready(key, *args):
        return table(key, *args)
    name = f"{table.__name__}{args!r}"
    if not is_own(key):     # a server model's table not stored fresh: computed once for everyone, in the lane
        return _finished(in_heavy_lane(what, lambda report: table(key, *args, _progress=report), name=name))
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

    def budget(worked: float, share: float) -> None:
        if worked > WORK_SECONDS:
            raise WorkStopped(f"{share:.0%} done after {worked:.0f} s of work")

    try:
        result = in_heavy_lane(what, lambda report: table(key, *args, _progress=report), budget=budget, name=name)
    except WorkStopped as stopped:
        asked.discard((key, name))
        st.warning(f"{what} was stopped ({stopped}): your model needs more than the {WORK_SECONDS} s one table "
                   "may take on a shared server. The rest of the page needs this table, so it ends here.",
                   icon="⏱️")
        stop_page()
    if result is NOT_RUN or result is STOPPED:
        asked.discard((key, name))
    return _finished(result)


def _finished(result: T | object) -> T:
    """The table, or the page ends here: the rest of it needs the table (in_heavy_lane said why)."""
    if result is NOT_RUN or result is STOPPED:
        stop_page()
    return result
