"""A real server and a real browser: `streamlit run app.py` on a free port, driven by Debian's Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
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


@pytest.fixture(scope="session")
def server(chromium_path) -> str:
    port = _free_port()
    log = open(ROOT / "artifacts" / "e2e-server.log", "w") if (ROOT / "artifacts").is_dir() else subprocess.DEVNULL
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(240):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=1).read() == b"ok":
                break
        except OSError:
            time.sleep(0.25)
    else:
        process.kill()
        pytest.fail("streamlit did not answer /_stcore/health within 60 s")
    yield url
    process.terminate()
    process.wait(timeout=20)


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


def settle(page, timeout: float = 60_000) -> None:
    """Wait for the rerun an interaction started to finish, then for every plotly chart to draw its SVG."""
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
