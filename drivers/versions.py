"""Two versions of the app served side by side: one checked out with `git worktree` into a temporary folder and
served with its own pinned packages (drivers/checkout_python.py), the working tree beside it. Shared by the A/B
benchmarks (benchmarks.browser_ab, server_cpu, view_change, classroom, hostile_class) and scripts.screens_ab."""

from __future__ import annotations

import contextlib
import json
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from .checkout_python import python_for
from .harness import ROOT, _free_port, stop_server, wait_until_healthy


def start(root: Path, python: str | None = None) -> tuple[subprocess.Popen, int]:
    """The app at `root` served on a free port by `python` (default: its own pinned packages,
    drivers/checkout_python.py)."""
    port = _free_port()
    process = subprocess.Popen(
        [python or python_for(root), "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return process, port


@contextlib.contextmanager
def checked_out(ref: str) -> Iterator[Path]:
    """`ref` checked out in a temporary git worktree, removed afterwards."""
    with tempfile.TemporaryDirectory() as tmp:
        other = Path(tmp) / "other"
        subprocess.run(["git", "worktree", "add", "--detach", str(other), ref], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            yield other
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(other)], cwd=ROOT, capture_output=True)


def ready(servers: list[tuple[subprocess.Popen, int]]) -> None:
    """Wait until each server answers and has done its warm-up (explorer/warmup.py), if its version has one: its
    imports (7 s of CPU) would otherwise run beside the first pages measured."""
    for process, port in servers:
        if not wait_until_healthy(f"http://127.0.0.1:{port}", process, 120):
            raise RuntimeError(f"the server on port {port} did not answer /_stcore/health within 120 s")
    for _, port in servers:
        warm_up_seconds(f"http://127.0.0.1:{port}")
    time.sleep(1)


@contextlib.contextmanager
def served_pair(against: str) -> Iterator[dict[str, tuple[subprocess.Popen, int]]]:
    """`against` checked out in a temporary worktree and the working tree, each served: name -> (process, port)."""
    with checked_out(against) as other:
        servers = {}
        try:
            servers = {against: start(other), "working tree": start(ROOT)}
            ready(list(servers.values()))
            yield servers
        finally:
            for process, _ in servers.values():
                stop_server(process)


def warm_up_seconds(url: str, most: float = 300) -> float:
    """Seconds until the server says its warm-up is done (0 for a version without /api/warm-up, which answers
    with the app's HTML page)."""
    began = time.perf_counter()
    while time.perf_counter() - began < most:
        try:
            if json.load(urllib.request.urlopen(f"{url}/api/warm-up", timeout=5))["done"]:
                return time.perf_counter() - began
        except (urllib.error.HTTPError, ValueError):
            return 0.0
        except (urllib.error.URLError, TimeoutError):   # a server busy warming up answered late: ask again
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the server's warm-up did not finish within {most:.0f} s (see its log)")
