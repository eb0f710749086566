"""A classroom of 30 browser sessions on one server, each typing new words for a bounded time.

    python -m benchmarks.classroom [--sessions 30] [--seconds 60]

Every session is a separate browser context (its own Streamlit session) on one of the five pages,
typing a fresh random word, waiting for the page to settle with every chart drawn, and again, until
the time is up. Prints p50 and p95 interaction latency, the number of errors (a Streamlit exception
on screen or a wait that timed out), and the server's peak resident memory (VmHWM).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
from pathlib import Path

from playwright.async_api import async_playwright

from tests.e2e.harness import ALL_CHARTS_DRAWN, CHROMIUM, CHROMIUM_ARGS, SETTLED, start_server, stop_server

PAGES = ["", "decode", "attention", "positional", "masks"]
TIMEOUT_MS = 120_000


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


async def open_session(browser, url: str, path: str):
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.goto(f"{url}/{path}", timeout=TIMEOUT_MS)
    await page.wait_for_selector("[data-testid='stSidebar'] input", timeout=TIMEOUT_MS)
    await page.wait_for_selector(SETTLED, timeout=TIMEOUT_MS)
    return context, page


async def student(page, path: str, seed: int, stop_at: float, latencies: list, errors: list) -> None:
    rng = random.Random(seed)
    while time.monotonic() < stop_at:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 24)))
        start = time.perf_counter()
        try:
            box = page.get_by_role("textbox", name="Your text")
            await box.fill(word, timeout=TIMEOUT_MS)
            await box.press("Enter")
            await page.wait_for_function("t => new URL(location.href).searchParams.get('text') === t",
                                         arg=word, timeout=TIMEOUT_MS)
            await page.wait_for_selector(SETTLED, timeout=TIMEOUT_MS)
            await page.wait_for_function(ALL_CHARTS_DRAWN, timeout=TIMEOUT_MS)
            latencies.append(time.perf_counter() - start)
            if await page.locator("[data-testid='stException']").count():
                errors.append(f"{path}: exception on screen for {word!r}")
            if word[::-1] not in await page.get_by_test_id("stSidebar").inner_text():
                errors.append(f"{path}: sidebar does not show the reversal of {word!r}")
        except Exception as err:  # noqa: BLE001 - counted and reported, the run goes on
            errors.append(f"{path}: {type(err).__name__}: {str(err).splitlines()[0][:120]}")


async def run(url: str, sessions: int, seconds: float) -> tuple[list, list]:
    latencies: list[float] = []
    errors: list[str] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        paths = [PAGES[i % len(PAGES)] for i in range(sessions)]
        opened = []
        for start in range(0, sessions, 5):  # open the class five at a time, then start the clock
            opened += await asyncio.gather(*(open_session(browser, url, path) for path in paths[start:start + 5]))
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(student(page, path, i, stop_at, latencies, errors)
                               for i, ((_, page), path) in enumerate(zip(opened, paths))))
        for context, _ in opened:
            await context.close()
        await browser.close()
    return latencies, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60)
    args = parser.parse_args()
    process, url = start_server("classroom-server.log")
    try:
        latencies, errors = asyncio.run(run(url, args.sessions, args.seconds))
        peak = peak_mb(process.pid)
    finally:
        stop_server(process)
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")
    print(f"{args.sessions} sessions for {args.seconds:.0f} s on one server: {len(latencies)} interactions, "
          f"{len(errors)} errors")
    if latencies:
        print(f"interaction latency: p50 {statistics.median(latencies):.2f} s, p95 {p95:.2f} s")
    print(f"server peak resident memory: {peak:.0f} MB")
    for error in errors[:5] + errors[-5:]:
        print("  error:", error)


if __name__ == "__main__":
    main()
