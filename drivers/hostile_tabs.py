"""One person with many tabs against a real server (issue 63): the heavy buttons pressed from several sessions of
one client, with one browser's cookie shared by the tabs or with none (counted by its address), as the review
drove them. Each attack returns what it saw; drivers.hostile_class.under_attack times another learner around it
and samples the server's memory. Shared by tests/e2e/test_hostile_tabs.py and benchmarks.hostile_class."""

from __future__ import annotations

import asyncio
import functools
import random
import time

from streamlit.proto.WidgetStates_pb2 import WidgetState

from drivers.protocol_session import ProtocolSession, browser_cookie

from .hostile import LARGE, large_valid_zip
from .hostile_class import LENGTH, RELEASED, uploaded

LARGE_READS = LARGE.max_len
ONE_BROWSER, NO_COOKIE = "one browser", "no cookie"
IN_LINE = "line already"   # explorer.heavy's and live_runs' words to a learner with a job in the lane


def _word(rng: random.Random, length: int = LENGTH) -> str:
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(length))


async def _tabs(url: str, page: str, tabs: int, browser: str) -> list[ProtocolSession]:
    cookie = await asyncio.to_thread(browser_cookie, url) if browser == ONE_BROWSER else None
    sessions = [ProtocolSession(url, page, browser=cookie) for _ in range(tabs)]
    for session in sessions:
        await session.open()
    return sessions


async def press_in_tabs(url: str, page: str, button: str, tabs: int, browser: str, seconds: float = 30,
                        seed: int = 0) -> dict:
    """Each tab types a new 48-character word and presses `button` (a heavy job), again and again for `seconds`;
    then every tab leaves, whatever it was doing."""
    sessions = await _tabs(url, page, tabs, browser)
    counts = {"presses": 0, "told in line": 0, "finished": 0, "exceptions": []}

    async def one_tab(i: int, session: ProtocolSession) -> None:
        rng = random.Random(seed * 100 + i)
        while True:
            await session.type(_word(rng))
            if button not in session.widget_ids:
                continue
            counts["presses"] += 1
            answer = await session.press(button)
            counts["exceptions"] += answer.exceptions
            told = any(IN_LINE in m for m in answer.markdown)
            counts["told in line"] += told
            counts["finished"] += not told and not answer.exceptions

    work = [asyncio.create_task(one_tab(i, s)) for i, s in enumerate(sessions)]
    await asyncio.sleep(seconds)
    for task in work:
        task.cancel()
    await asyncio.gather(*work, return_exceptions=True)
    for session in sessions:
        await session.close()
    return {**counts, "tabs": tabs, "browser": browser}


integrated_gradients = functools.partial(press_in_tabs, page="lab-attribution",
                                         button="Compute integrated gradients at every step")
occlusion = functools.partial(press_in_tabs, page="lab-attribution", button="Occlusion with every other letter")
causal_cone = functools.partial(press_in_tabs, page="lab-activation-patching", button="Compute every single patch")

OWN_SIZES = "My own sizes"   # analysis.page_models.training.SIZINGS[1]


async def _largest_settings(session: ProtocolSession) -> list[WidgetState]:
    """The Training form at its largest: 2 layers, 4 heads, d_model 64, 4,000 steps, words of up to 12. The sizes
    are drawn once "My own sizes" is chosen, so that choice is sent first, in a rerun of its own."""
    await session.send([WidgetState(id=session.widget_ids["Size and length of the run"], string_value=OWN_SIZES)])
    states = [WidgetState(id=session.widget_ids["Lengths"], string_value="1-12")]
    for label, value in (("Layers (encoder and decoder each)", "2"), ("Heads", "4"), ("d_model", "64")):
        states.append(WidgetState(id=session.widget_ids[label], string_value=value))
    states.append(WidgetState(id=session.widget_ids["Steps"], double_value=4000))
    states.append(WidgetState(id=session.widget_ids["Start training"], trigger_value=True))
    return states


async def live_training(url: str, tabs: int = 3, browser: str = ONE_BROWSER, seconds: float = 30) -> dict:
    """Each tab starts a run at the largest settings and watches it as a browser does (its chart polled every half
    second); then every tab leaves."""
    sessions = await _tabs(url, "training", tabs, browser)
    started, refused, polls = 0, 0, 0
    for session in sessions:
        answer = await session.send(await _largest_settings(session))
        refused += any(IN_LINE in m for m in answer.markdown)
        started += not any(IN_LINE in m for m in answer.markdown) and not answer.exceptions
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for session in sessions:
            if session.fragments:
                await session.poll()
                polls += 1
        await asyncio.sleep(0.5)
    for session in sessions:
        await session.close()
    return {"tabs": tabs, "browser": browser, "started": started, "told in line": refused, "polls": polls}


async def own_models(url: str, tabs: int = 24, browser: str = ONE_BROWSER, words: int = 14, seed: int = 0) -> dict:
    """Each tab uploads a model near the limits (drivers.hostile.LARGE, which reads up to 24 characters) and types
    `words` distinct words of 24 on Attention, as the review's 24 tabs did."""
    cookie = await asyncio.to_thread(browser_cookie, url) if browser == ONE_BROWSER else None
    data = large_valid_zip(seed)
    sessions = [await uploaded(url, f"near-limit-{i}.zip", data, "attention", browser=cookie) for i in range(tabs)]
    rng, wrong, told = random.Random(seed), [], [0]

    async def one_tab(session: ProtocolSession) -> None:
        for _ in range(words):
            answer = await session.type(_word(rng, LARGE_READS))
            told[0] += any(RELEASED in m for m in answer.markdown)
            wrong.extend(answer.exceptions)
            wrong.extend([] if answer.model_writes else ["the sidebar drew no answer"])

    await asyncio.gather(*(one_tab(s) for s in sessions))
    for session in sessions:
        await session.close()
    return {"tabs": tabs, "browser": browser, "exceptions": wrong, "told a model went": told[0]}
