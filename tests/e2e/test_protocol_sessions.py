"""Thirty sessions at once on a real server, spoken to through Streamlit's own websocket protocol
(drivers.protocol_session, the classroom benchmark's client): every one, on every page, gets its own
word's answer, and no page fails. Needs no browser."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from drivers.words import new_word
from explorer.pages import PAGES as REGISTRY
from drivers.protocol_session import ProtocolSession

from drivers.harness import start_server, stop_server

pytestmark = pytest.mark.load   # the slowest tier: `python -m pytest -m "not load"` leaves it out

SESSIONS = 30
PAGES = [p.url_path for p in REGISTRY]   # "" for Home


async def one_student(url: str, page: str, words: list[str]) -> list[tuple[str, object]]:
    session = ProtocolSession(url, page)
    await session.open()
    answers = [(word, await session.type(word)) for word in words]
    await session.close()
    return answers


async def a_class(url: str) -> dict[str, list]:
    rng = random.Random(0)
    plan = {i: (PAGES[i % len(PAGES)], [new_word(rng) for _ in range(2)]) for i in range(SESSIONS)}
    results = await asyncio.gather(*(one_student(url, page, words) for page, words in plan.values()))
    return {f"{i}:{plan[i][0]}": result for i, result in enumerate(results)}


def test_thirty_sessions_at_once_each_get_their_own_word_on_every_page():
    process, url = start_server("protocol-sessions-server.log")
    try:  # a loop of its own, in a thread: the sync Playwright of other browser tests may hold this one's
        with ThreadPoolExecutor(1) as pool:
            by_session = pool.submit(asyncio.run, a_class(url)).result()
    finally:
        stop_server(process)
    seen = set()
    for name, answers in by_session.items():
        page = name.split(":", 1)[1]
        for word, answer in answers:
            assert answer.page == page, name
            assert not answer.exceptions, (name, answer.exceptions)
            assert answer.model_writes == word[::-1], (name, word)   # its own word, no one else's
            seen.add(page)
    assert seen == set(PAGES)
