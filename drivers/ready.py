"""Waiting for a server of the app to say it is ready: GET /api/ready answers "ok" (server.gate.ready_route). Only
the standard library: scripts/serve.sh waits so for each replica before HAProxy starts (scripts.wait_until_ready),
and drivers.harness for the servers the tests and benchmarks start."""

from __future__ import annotations

import time
import urllib.request
from typing import Callable

READY = "/api/ready"


def wait_until_ready(url: str, seconds: float, alive: Callable[[], bool] = lambda: True) -> bool:
    """True once {url}/api/ready answers ok; False if `alive()` turns false first or the time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and alive():
        try:
            if urllib.request.urlopen(url + READY, timeout=1).read() == b"ok":
                return True
        except OSError:
            time.sleep(0.25)
    return False
