"""Widget callbacks and format functions, kept out of the page scripts on purpose.

A widget keeps its on_click and format_func in the session's state, and Streamlit keeps a disconnected session's
state for two minutes (server.disconnectedSessionTTL) so that a browser can reconnect. A function defined in a
page script carries that page's globals (its checkpoint, its runs) with it, so an uploaded model would outlive
the shelf that released it (tests/app/test_released_models.py). Functions defined here carry only this module.
"""

from __future__ import annotations

import streamlit as st

from analysis.tasks import words


def set_state(key: str, value) -> None:
    st.session_state[key] = value


def turn_lesson_step(key: str, last: int, by: int) -> None:
    """The lesson's Previous (-1) and Next (+1). Neither is ever disabled, since a disabled button drops the
    keyboard's focus to the page body: Next on the last step starts again at step 1, and Previous on the first
    stays there and says so."""
    at = int(st.session_state.get(key, 1))
    if by < 0 and at <= 1:
        st.toast("Step 1 is the first step.", icon="ℹ️")
    else:
        st.session_state[key] = 1 if by > 0 and at >= last else at + by


def task_label(task: str) -> str:
    return words(task).label


def key_position(key: int | str) -> str:
    """A key position, or the name of the choice that follows the largest weight."""
    return key if isinstance(key, str) else f"position {key}"


def head_choice(head: int | str) -> str:
    """A head by its number, or the name of the choice that lets each model pick its own (Compare tasks)."""
    return head if isinstance(head, str) else f"head {head}"


def forced_step(step: int | None) -> str:
    return "no forcing" if step is None else f"step {step}"


def batch_row(row: int) -> str:
    return f"row {row}" + (" (yours)" if row == 0 else "")
