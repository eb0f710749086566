"""Driving the real app: start `streamlit run app.py`, wait for reruns, read what the browser drew.
Shared by the browser tests and the browser benchmarks."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

from .ready import wait_until_ready

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SETTLED = "[data-testid='stApp'][data-test-script-state='notRunning']"
RUNNING = "[data-testid='stApp'][data-test-script-state='running']"
# How many runs the page's Streamlit code has been told have ended, [whole runs, fragment runs, either]: each message
# it reads from the server's websocket passes through a getter put on MessageEvent.data the first time this is asked,
# which reads the message's script_finished status (a ForwardMsg, field 6: 0 finished, 1 compile error, 3 a fragment's
# run; 2, stopped for a rerun, is no end). Since Streamlit 1.67 a widget bound to the URL changes the URL before its
# run starts, so "the URL shows it, then notRunning" could end a wait before the run began (1 wait in 6 on Inside one
# head returned 0.1 s after Enter, the run ending 0.6 s later); and a quick run can end before React ever draws
# 'running', so the app's data-test-script-state cannot be counted either.
RUN_MARK = """() => {
    if (!window.__runsEnded) {
        window.__runsEnded = [0, 0, 0];
        const status = bytes => {               // the top-level varint field 6 of a ForwardMsg, or -1
            let i = 0;
            const varint = () => { let v = 0, scale = 1, x; do { x = bytes[i++]; v += (x & 127) * scale; scale *= 128; }
                                   while (x & 128); return v; };
            while (i < bytes.length) {
                const tag = varint(), field = Math.floor(tag / 8), wire = tag % 8;
                if (wire === 0) { const v = varint(); if (field === 6) return v; }
                else if (wire === 2) { const length = varint(); i += length; }   // not i += varint(): i read first
                else if (wire === 1) i += 8;
                else if (wire === 5) i += 4;
                else return -1;
            }
            return -1;
        };
        const data = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data');
        const read = new WeakSet();
        Object.defineProperty(MessageEvent.prototype, 'data', {configurable: true, enumerable: data.enumerable, get() {
            const value = data.get.call(this);
            if (!read.has(this) && this.target instanceof WebSocket && value instanceof ArrayBuffer) {
                read.add(this);
                const s = status(new Uint8Array(value));
                if (s === 0 || s === 1) window.__runsEnded[0] += 1;
                if (s === 3) window.__runsEnded[1] += 1;
                if (s === 0 || s === 1 || s === 3) window.__runsEnded[2] += 1;
            }
            return value;
        }});
    }
    return [...window.__runsEnded];
}"""
RUN_ENDED_SINCE = f"([mark, kind]) => ({RUN_MARK})()[kind] > mark[kind]"   # given a RUN_MARK before the action
# every Plotly chart drawn (the line, bar and scatter charts of viz.plotly_charts), and every component that writes markup (data-markup: SVG diagrams, tables of cells, next-token bars) filled: its
# module loads after the run has ended, so a table of cells could still be empty when the run's end was read.
# Components sit in shadow roots.
ALL_CHARTS_DRAWN = """() => [...document.querySelectorAll("[data-testid='stPlotlyChart']")]
                 .every(c => c.querySelector('.main-svg'))
  && [...document.querySelectorAll('*')].filter(e => e.shadowRoot).map(e => e.shadowRoot)
       .every(r => [...r.querySelectorAll('[data-markup]')].every(m => m.hasAttribute('data-drawn')))"""
# the next frame painted: a canvas heatmap (explorer/components/front_end.js) draws when its data arrives
PAINTED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(log_name: str, address: str = "127.0.0.1") -> tuple[subprocess.Popen, str]:
    """`streamlit run app.py` on a free port, listening on `address` (0.0.0.0: every interface, as a class on a
    network needs), returned as its localhost URL once it says it is ready (drivers.ready)."""
    port = _free_port()
    (ROOT / "artifacts").mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER")   # two browser-test workers each start servers of their own
    log = open(ROOT / "artifacts" / (f"{worker}-{log_name}" if worker else log_name), "w")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", address, "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    if wait_until_healthy(url, process, 90):
        return process, url
    process.kill()
    raise RuntimeError("streamlit did not answer /api/ready within 90 s")


def wait_until_healthy(url: str, process: subprocess.Popen, seconds: float) -> bool:
    """True once {url} says it is ready; False if `process` ends first or the time runs out."""
    return wait_until_ready(url, seconds, alive=lambda: process.poll() is None)


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
    caller can take run_mark before the interaction, wait_for_run is exact; this waits up to 1.5 s to see it start."""
    try:  # a quick rerun can start and end between two polls; then there is nothing to wait for here
        page.wait_for_selector(RUNNING, timeout=1_500)
    except PlaywrightTimeout:
        pass
    page.wait_for_selector(SETTLED, timeout=timeout)
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=timeout)


def load(page, url: str, timeout: float = 60_000) -> None:
    """Open a URL and wait until the app has rendered its sidebar input and finished its first run (counted, as
    open_page counts it: settle() here waited 1.5 s for a 'running' that a quick first run had already passed)."""
    open_page(page, url, timeout)
    page.wait_for_selector("[data-testid='stSidebar'] input", timeout=timeout)


def run_mark(page) -> list:
    """The runs this page has been told have ended (RUN_MARK), read before an action: then wait_for_run."""
    return page.evaluate(RUN_MARK)


RUN_KINDS = {"whole": 0, "fragment": 1, "either": 2}   # which count of RUN_MARK a wait looks at


def wait_for_run(page, mark: list, timeout: float = 60_000, kind: str = "whole") -> None:
    """Wait until a run of `kind` (RUN_KINDS: a page with a polling fragment ends fragment runs of its own, which a
    whole run's wait must not take for its end) has ended since run_mark gave `mark` and the page is settled, for
    every plotly chart to draw, and for the next frame painted: the count rises as Streamlit reads the run's end,
    and React draws what came before it a moment later."""
    page.wait_for_function(RUN_ENDED_SINCE, arg=[mark, RUN_KINDS[kind]], timeout=timeout)
    page.wait_for_selector(SETTLED, timeout=timeout)
    page.wait_for_function(ALL_CHARTS_DRAWN, timeout=timeout)
    page.evaluate(PAINTED)


@contextmanager
def run_ends(page, kind: str = "either", timeout: float = 60_000):
    """`with run_ends(page): <an action that starts a run>`: after the block, wait for that run to end, counted from
    before the action (wait_for_run), where settle() waits up to 1.5 s for a 'running' a quick run has passed."""
    mark = run_mark(page)
    yield
    wait_for_run(page, mark, timeout, kind)


async def wait_for_run_async(page, mark: list, timeout: float = 60_000, kind: str = "whole") -> None:
    """wait_for_run for Playwright's async API (benchmarks.classroom's browsers)."""
    await page.wait_for_function(RUN_ENDED_SINCE, arg=[mark, RUN_KINDS[kind]], timeout=timeout)
    await page.wait_for_selector(SETTLED, timeout=timeout)
    await page.wait_for_function(ALL_CHARTS_DRAWN, timeout=timeout)
    await page.evaluate(PAINTED)


def open_page(page, url: str, timeout: float = 120_000) -> None:
    """Open a URL with the run counter (RUN_MARK) in place from the document's start, and wait for the first whole
    run to end and draw. After a plain goto the app shows 'notRunning' before it has even connected, and a counter
    put in place later could take that first run's end for the end of the run an action starts."""
    if not getattr(page, "_run_counter", False):
        page.add_init_script(f"({RUN_MARK})()")
        page._run_counter = True
    page.goto(url)
    wait_for_run(page, [0, 0, 0], timeout)


def type_text(page, text: str, timeout: float = 60_000) -> float | None:
    """Type into the shared box, press Enter and wait for the rerun it causes to end (counted: RUN_MARK). Returns
    the seconds from Enter to that run drawn and painted: a learner's wait. The typing before it is not counted:
    finding the box by its role and filling in 48 characters took the harness 67-112 ms on Inside one head.
    None when the box held the text already: no run, nothing to time."""
    mark = run_mark(page)
    box = page.get_by_role("textbox", name="Your text")
    if box.input_value() == text:   # already there (a value kept for the session): Enter starts no run
        return None
    box.fill(text)                  # which leaves the box focused
    started = time.perf_counter()
    page.keyboard.press("Enter")    # to the focused box: no locator to resolve inside the time
    page.wait_for_function("t => new URL(location.href).searchParams.get('text') === t", arg=text, timeout=timeout)
    wait_for_run(page, mark, timeout)
    return time.perf_counter() - started


def wait_for_charts(page, count: int, timeout: float = 60_000) -> None:
    """Wait until exactly `count` SVG diagrams (explorer.components.svg_chart) hold their drawing."""
    expect(page.locator(".svg-chart:has(figure)")).to_have_count(count, timeout=timeout)
