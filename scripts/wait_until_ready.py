"""Wait for a server of the app to say it is ready: GET /api/ready answers "ok" (server.gate.ready_route).
scripts/serve.sh waits so for each replica before HAProxy starts, and drivers/harness for the servers the tests
and benchmarks start.

    python -m scripts.wait_until_ready http://127.0.0.1:8502 [seconds]
"""

from __future__ import annotations

import sys
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


if __name__ == "__main__":
    url, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 120.0
    if not wait_until_ready(url, seconds):
        sys.exit(f"{url} did not answer {READY} within {seconds:.0f} s")
