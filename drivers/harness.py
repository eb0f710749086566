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
# How many runs this page has seen end (running -> notRunning), counted by a MutationObserver put on the app the first
# time it is asked, with the page's clock: [runs ended, performance.now()]. Since Streamlit 1.67 a widget bound to the
# URL changes the URL before its run starts, so "the URL shows it, then notRunning" could end the wait before the run
# began (1 wait in 6 on Inside one head returned 0.1 s after Enter, with the run ending 0.6 s later). A run quick
# enough (a cached one, tens of ms) can end before React draws 'running' at all: no change to count.
RUN_MARK = """() => {
    const app = document.querySelector("[data-testid='stApp']");
    if (!app) return [-1, performance.now()];
    if (app.__runsEnded === undefined) {
        app.__runsEnded = 0;
        new MutationObserver(records => records.forEach((r, k) => {
            const now = k + 1 < records.length ? records[k + 1].oldValue : app.getAttribute('data-test-script-state');
            if (r.oldValue === 'running' && now === 'notRunning') app.__runsEnded += 1;
        })).observe(app, {attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state']});
    }
    return [app.__runsEnded, performance.now()];
}"""
# wait_for_function's test, given a RUN_MARK taken before the action and how long a run may take to show (or None)
RUN_ENDED_SINCE = f"""([[n, since], quick]) => ({RUN_MARK})()[0] > n
    || (quick !== null && performance.now() - since > quick && document.querySelector("{SETTLED}") !== null)"""
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


def settle(page, timeout: float = 60_000) -> None:
    """Wait for the rerun an interaction started to finish, then for every plotly chart to draw its SVG. Where the
    caller can read runs_ended before the interaction, wait_for_run is exact; this waits up to 1.5 s to see it start."""
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


def run_mark(page) -> list:
    """What wait_for_run needs to know, read before an action: the runs this page has seen end, and when."""
    return page.evaluate(RUN_MARK)


def wait_for_run(page, mark: list, timeout: float = 60_000, quick: float | None = None) -> None:
    """Wait until a run has ended since run_mark gave `mark`, then for every plotly chart to draw. With `quick`
    (ms), a page that has shown no run by then and is not running counts as done: a cached run can be too short to
    show (RUN_MARK), and a benchmark, whose every word is new, passes None."""
    page.wait_for_function(RUN_ENDED_SINCE, arg=[mark, quick], timeout=timeout)
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=timeout)


def type_text(page, text: str, timeout: float = 60_000, quick: float | None = 1_500) -> None:
    """Type into the shared box and wait for the rerun it causes to end (counted: RUN_MARK; see wait_for_run for
    `quick`). A benchmark passes quick=None: then only a run seen to end will do."""
    mark = run_mark(page)
    box = page.get_by_role("textbox", name="Your text")
    if box.input_value() == text:   # already there (a value kept for the session): Enter starts no run
        return
    box.fill(text)
    box.press("Enter")
    page.wait_for_function("t => new URL(location.href).searchParams.get('text') === t", arg=text)
    wait_for_run(page, mark, timeout, quick)


def wait_for_charts(page, count: int, timeout: float = 60_000) -> None:
    """Wait until exactly `count` SVG charts (explorer.canvas_charts.svg_chart) hold their drawing."""
    expect(page.locator(".svg-chart:has(figure)")).to_have_count(count, timeout=timeout)
