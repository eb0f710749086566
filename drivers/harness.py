"""Driving the real app: start `streamlit run app.py`, wait for reruns, read what the browser drew.
Shared by the browser tests and the browser benchmarks."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SETTLED = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUNNING = "[data-testid='stApp'][data-test-script-state='running']"
# every Plotly chart drawn: the app draws none since issue 30, but the benchmarks compare with commits that do
ALL_CHARTS_DRAWN = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                 .every(c => c.querySelector('.main-svg'))"""
# the next frame painted: a canvas heatmap (explorer/components/heatmap.js) draws when its data arrives
PAINTED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(log_name: str) -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on a free localhost port, returned once /_stcore/health answers."""
    port = _free_port()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    log = open(ROOT / "artifacts" / log_name, "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    if wait_until_healthy(url, process, 90):
        return process, url
    process.kill()
    raise RuntimeError("streamlit did not answer /_stcore/health within 90 s")


def wait_until_healthy(url: str, process: subprocess.Popen, seconds: float) -> bool:
    """True once {url}/_stcore/health answers ok; False if `process` ends first or the time runs out."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                return True
        except OSError:
            time.sleep(0.25)
    return False


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


def resident_mb(pid: int) -> float:
    """The process's resident memory (VmRSS) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def settle(page, timeout: float = 60_000, started: bool = False) -> None:
    """Wait for the rerun an interaction started to finish, then for every plotly chart to draw its SVG.
    Pass started=True when the caller already saw the run begin."""
    if not started:
        try:  # a quick rerun can start and end between two polls; then there is nothing to wait for here
            page.wait_for_selector(RUNNING, timeout=1_500)
        except PlaywrightTimeout:
            pass
    page.wait_for_selector(SETTLED, timeout=timeout)
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=timeout)


def load(page, url: str, timeout: float = 60_000) -> None:
    """Open a URL and wait until the app has rendered its sidebar input and finished its first run."""
    page.goto(url)
    page.wait_for_selector("[data-testid='stSidebar'] input", timeout=timeout)
    settle(page, timeout)


def type_text(page, text: str) -> None:
    """Type into the shared box and wait for the rerun it causes: the script puts the text in the URL
    as it starts, so once the URL shows it the run has begun, and SETTLED means it has finished."""
    box = page.get_by_role("textbox", name="Your text")
    box.fill(text)
    box.press("Enter")
    page.wait_for_function("t => new URL(location.href).searchParams.get('text') === t", arg=text)
    settle(page, started=True)


def wait_for_charts(page, count: int, timeout: float = 60_000) -> None:
    """Wait until exactly `count` SVG charts (explorer.canvas_charts.svg_chart) hold their drawing."""
    expect(page.locator(".svg-chart:has(figure)")).to_have_count(count, timeout=timeout)
