"""`streamlit run app.py` serves the app through st.App (app.py), whose lifespan warms the server up before any learner
arrives (explorer/warmup.py): torch imported, the shown model loaded and run once; with no page opened, the other
two bundled models and every page's modules follow after 3 s. Measured by `python -m benchmarks.browser_latency
--first-visits` (README, Benchmarks)."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from drivers.harness import start_server, stop_server
from drivers.protocol_session import ProtocolSession

READY_WITHIN = 180   # seconds: a wait for the warm-up, not a time limit on it (the machine may be busy)


def warm_up_status(url: str) -> dict:
    with urllib.request.urlopen(f"{url}/api/warm-up", timeout=10) as response:
        return json.load(response)


def test_a_fresh_server_warms_up_before_any_session_and_its_first_page_answers(chromium_path):
    process, url = start_server("e2e-server-start.log")
    try:
        deadline = time.monotonic() + READY_WITHIN
        status = warm_up_status(url)
        while not status["done"] and time.monotonic() < deadline:
            time.sleep(0.25)
            status = warm_up_status(url)
        assert status == {"models": ["reverse", "copy", "sort"], "pages_imported": True, "done": True}
        maps = Path(f"/proc/{process.pid}/maps").read_text()
        assert "libtorch_cpu" in maps          # torch loaded in the server with no session ever opened

        async def first_page():
            session = ProtocolSession(url, "", "text=warm")
            answer = await session.open()
            await session.close()
            return answer

        with ThreadPoolExecutor(1) as pool:   # the sync Playwright of the other tests owns this thread's loop
            answer = pool.submit(asyncio.run, first_page()).result()
        assert not answer.exceptions
        assert answer.model_writes == "mraw"
    finally:
        stop_server(process)
