"""A page's heavy job, in the server's one heavy lane: its place in line while it waits, a progress bar and a Stop
button while it works, and a clear word when this browser has a job in line already.

Each progress report is a Streamlit call, where a rerun (a press of Stop, another widget, a closed tab) ends the
work: Streamlit raises in the script's thread at its next call, and the ticket is given back on the way out.
"""

from __future__ import annotations

import time
import zlib
from typing import Callable, TypeVar

import streamlit as st

from analysis.lab import Progress

from server.gate import learner, server_gate
from server.heavy_lane import AlreadyInLine

T = TypeVar("T")
REST = 1.0           # after each step of a job, rest as long as it took: the lane works half the time (a job
                     # working flat out on one core made another learner 2.05x slower in one run of four tabs)
NOT_RUN = object()   # what in_heavy_lane returns when this browser had a job in line already...
STOPPED = object()   # ...and when the learner pressed Stop (the run after the press draws the button pressed)


def in_heavy_lane(what: str, work: Callable[[Progress], T], rest: float = REST,
                  budget: Callable[[float, float], None] | None = None, name: str | None = None) -> T | object:
    """work(report) in the heavy lane. `rest`: after each report, sleep this share of the time the batch before it
    took (its Python holds the GIL every other page needs). `budget(seconds of work, share done)` may raise to
    stop the work. `name` tells the job from others of the same `what` on the page (a table's arguments). NOT_RUN,
    after a warning, if this browser holds a ticket already; STOPPED in the run after a
    press of Stop (a job started by a button is not asked for again in that run, so only a job the page itself
    goes on asking for, an own model's table, sees it)."""
    box = st.empty()
    with box.container():
        bar = st.progress(0.0, text=f"{what}: waiting for its turn…")
        stop = st.button("Stop", key=f"stop_{zlib.crc32((name or what).encode()):08x}", icon=":material/stop_circle:",
                         help="Ends the work at its next step; nothing is kept.")
    if stop:
        box.empty()
        st.info(f"{what}: stopped. Nothing was kept.", icon="⏹️")
        return STOPPED
    worked, since = [0.0], [time.monotonic()]

    def waiting(ahead: int) -> None:
        jobs = "job" if ahead == 1 else "jobs"
        bar.progress(0.0, text=f"{what}: {ahead} {jobs} ahead of yours in the server's line (one such job at a "
                               "time here, so that every page stays quick)…")

    def report(share: float) -> None:
        batch = time.monotonic() - since[0]
        worked[0] += batch
        if budget is not None:
            budget(worked[0], share)
        bar.progress(min(max(share, 0.0), 1.0), text=f"{what}… {share:.0%} ({worked[0]:.0f} s of work)")
        if rest:
            time.sleep(batch * rest)
        since[0] = time.monotonic()

    try:
        with server_gate().heavy_lane(learner(), what, waiting):
            since[0] = time.monotonic()
            result = work(report)
    except AlreadyInLine as other:
        box.empty()
        st.warning(f"Your browser has a job in the server's line already ({other}), in this tab or another: "
                   "one at a time for each learner. Ask again once it has ended.", icon="⏳")
        return NOT_RUN
    box.empty()
    return result
