"""A real server and a real browser: `streamlit run app.py` on a free port, driven by Debian's Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "artifacts" / "screenshots"
SETTLED = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUNNING = "[data-testid='stApp'][data-test-script-state='running']"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def chromium_path() -> str:
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing in CI: scripts/test.sh should have installed Debian's chromium")
        pytest.skip(f"browser tests skipped: {CHROMIUM} not found (install Debian's chromium, or run scripts/test.sh)")
    return CHROMIUM


@dataclass(frozen=True)
class Server:
    url: str
    pid: int


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
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                return process, url
        except OSError:
            time.sleep(0.25)
    process.kill()
    raise RuntimeError("streamlit did not answer /_stcore/health within 90 s")


def stop_server(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(scope="session")
def running_server(chromium_path):
    process, url = start_server("e2e-server.log")
    yield Server(url, process.pid)
    stop_server(process)


@pytest.fixture(scope="session")
def server(running_server) -> str:
    return running_server.url


def resident_mb(pid: int) -> float:
    """The process's resident memory (VmRSS) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    yield context.new_page()
    context.close()


def settle(page, timeout: float = 60_000, started: bool = False) -> None:
    """Wait for the rerun an interaction started to finish, then for every plotly chart to draw its SVG.
    Pass started=True when the caller already saw the run begin."""
    if not started:
        try:  # a quick rerun can start and end between two polls; then there is nothing to wait for here
            page.wait_for_selector(RUNNING, timeout=1_500)
        except PlaywrightTimeout:
            pass
    page.wait_for_selector(SETTLED, timeout=timeout)
    page.wait_for_function(
        """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                 .every(c => c.querySelector('.main-svg'))""", timeout=timeout)


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
    """Wait until exactly `count` charts have drawn (a chart that failed to draw never counts)."""
    page.wait_for_function(
        """n => document.querySelectorAll("[data-testid='stPlotlyChart'] .main-svg").length >= n
               && document.querySelectorAll("[data-testid='stPlotlyChart']").length === n""",
        arg=count, timeout=timeout)


def screenshot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1400, "height": 3400})
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size({"width": 1400, "height": 1000})


CHART_DATA = """([index, trace, field]) => {
    const value = document.querySelectorAll("[data-testid='stPlotlyChart'] .js-plotly-plot")[index]
        .data[trace][field];
    return value && value.bdata ? {dtype: value.dtype, bdata: value.bdata, shape: value.shape} : value;
}"""

