"""Latency as a learner feels it, in headless Chromium against a real `streamlit run app.py`.

    python -m benchmarks.browser_latency [--repeats 10] [--cold-starts 5] [--pages home,lesson-3,...]
    python -m benchmarks.browser_latency --first-visits [--length 48]
    python -m benchmarks.browser_latency --cold-start-against REF [--cold-starts 5]

- cold start: from launching `streamlit run app.py` to the home page drawn with the reversal on screen;
- first visits (alone, with --first-visits): a fresh server, once its start-up warm-up is done (its time is
  printed first), then every page opened once, in the sidebar's order, each with a new word of --length
  characters in its link: from the link opened to the page settled with every chart drawn. The first learner to
  open a lab page waits for whatever its tables need;
- interaction: from Enter on a new word (typed into the box before the clock starts; before 2026-11-27
  evening the typing was counted too) to the page settled with every chart drawn, per page,
  for words of 5, 24 and 48 characters (48: the trained length). Every word is new, so the model runs each
  time (no cached result). Since 2026-11-28 afternoon the server's start-up warm-up is done before the first
  word (GET /api/warm-up, as browser_ab waits for it), and each word is typed READING seconds after the last was
  drawn, as the lesson's → key already was: before, the first page measured shared the cores with the warm-up,
  and each word started while the browser still finished the last (Inside one head at 5 characters: 0.57-0.65 s
  back to back, 0.42-0.49 s so).
- the lesson's steps (lesson-1 … lesson-11): the same, and the → key from the step before (on a new word
  of 24 characters, so the step's numbers are computed, not cached).

Writes docs/records/browser_latency.json.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from benchmarks.record import write_record
from drivers.words import random_word
from explorer.pages import PAGES as REGISTRY
from teaching.steps import STEPS
from drivers.harness import (
    CHROMIUM, CHROMIUM_ARGS, ROOT, open_page, run_mark, start_server, stop_server, type_text, wait_for_run,
)
from drivers.checkout_python import python_for
from drivers.versions import checked_out, start as serve_tree, warm_up_seconds

PAGES = {p.url_path or "home": p.url_path for p in REGISTRY}   # name -> url path
READING = 0.5   # seconds a learner reads the page before the next word (or key): what the page still does after
                # it is drawn (a chart's last layout, a collection) is not counted in the next word's time
TOUR = {f"lesson-{s.number}": f"lesson?lesson_step={s.number}" for s in STEPS}


def cold_start(browser, root: Path = ROOT, python: str = sys.executable) -> float:
    """Seconds from `streamlit run` (of the tree at `root`, by `python`) to the first page drawn in the browser."""
    began = time.perf_counter()
    process, port = serve_tree(root, python)
    context = browser.new_context()
    page = context.new_page()
    try:
        while True:
            try:
                page.goto(f"http://127.0.0.1:{port}/", timeout=2_000)
                break
            except Exception:  # noqa: BLE001 - the server is not listening yet
                time.sleep(0.05)
        page.get_by_test_id("stMetricValue").nth(1).wait_for(timeout=60_000)
        return time.perf_counter() - began
    finally:
        context.close()
        stop_server(process)


def cold_starts_against(browser, against: str, starts: int) -> dict[str, list[float]]:
    """Cold starts of `against` (a commit, in a temporary worktree, served with its own pinned packages:
    drivers/checkout_python.py) and of the working tree, taking turns."""
    times: dict[str, list[float]] = {against: [], "working tree": []}
    with checked_out(against) as other:
        order = [(against, other, python_for(other)), ("working tree", ROOT, python_for(ROOT))]
        for turn in range(starts):
            for name, root, python in order if turn % 2 == 0 else order[::-1]:
                times[name].append(cold_start(browser, root, python))
    return times


def first_visits(browser, length: int, rng: random.Random) -> dict[str, float]:
    """Seconds from opening each page's link (a new word in it) to the page settled, on one fresh server whose
    start-up warm-up has finished (GET /api/warm-up, explorer/warmup.py; its own time is the first entry)."""
    process, url = start_server("browser-latency-first-visits.log")
    times = {"(the server's warm-up, after its health check)": warm_up_seconds(url)}
    try:
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        for name, path in PAGES.items():
            start = time.perf_counter()
            open_page(page, f"{url}/{path}?text={random_word(rng, length).replace(' ', '+')}", 300_000)
            times[name] = time.perf_counter() - start
    finally:
        stop_server(process)
    return times


def interaction_times(page, url: str, length: int, repeats: int, rng: random.Random) -> list[float]:
    open_page(page, url)      # up to 120 s: a lab page's first visit loads its server-wide tables
    times = []
    for _ in range(repeats):
        word = random_word(rng, length)
        time.sleep(READING)
        times.append(type_text(page, word))  # from Enter to the rerun's end, drawn and painted
    return times


def step_key_times(page, base: str, step: int, repeats: int, rng: random.Random) -> list[float]:
    """Seconds from pressing → on step − 1 to step `step` settled with its charts drawn, each on a new word."""
    times = []
    for _ in range(repeats):
        open_page(page, f"{base}/lesson?lesson_step={step - 1}&text={random_word(rng, 24)}")
        page.get_by_role("button", name="Next").wait_for()          # the key's button is on the page
        time.sleep(READING)                                         # a learner reads before pressing
        mark = run_mark(page)
        start = time.perf_counter()
        page.keyboard.press("ArrowRight")
        # location.href, not page.url: Playwright learns of a history.replaceState only at the next navigation
        page.wait_for_function("n => new URL(location.href).searchParams.get('lesson_step') === String(n)", arg=step)
        wait_for_run(page, mark, 120_000)   # the URL changes before the run starts: wait for the run's end
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--cold-starts", type=int, default=5)
    parser.add_argument("--pages", default=",".join([*PAGES, *TOUR]), help="comma-separated subset of the pages")
    parser.add_argument("--first-visits", action="store_true", help="only each page's first visit on a fresh server")
    parser.add_argument("--length", type=int, default=48, help="characters of the words in --first-visits")
    parser.add_argument("--cold-start-against", metavar="REF",
                        help="only cold starts: --cold-starts of REF and of the working tree, taking turns")
    args = parser.parse_args()
    rng = random.Random(0)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        if args.first_visits:
            times = first_visits(browser, args.length, rng)
            print(f"first visit of every page on a fresh server, a new word of {args.length} characters (s):")
            for name, seconds in times.items():
                print(f"{name:<26} {seconds:>7.3f}")
            pages = {name: seconds for name, seconds in times.items() if not name.startswith("(")}
            print(f"{'slowest page':<26} {max(pages.values()):>7.3f}  ({max(pages, key=pages.get)})")
            figures = {"run": "first visits", "characters": args.length,
                       "rows": [{"page": name, "first visit s": round(seconds, 3)} for name, seconds in times.items()],
                       "slowest page": max(pages, key=pages.get), "slowest page s": round(max(pages.values()), 3)}
        elif args.cold_start_against:
            times = cold_starts_against(browser, args.cold_start_against, args.cold_starts)
            old, new = (statistics.median(t) for t in times.values())
            print(f"cold start, `streamlit run app.py` to the first page drawn, {args.cold_starts} starts each, "
                  "taking turns (s):")
            for name, t in times.items():
                print(f"{name:<14} median {statistics.median(t):6.2f}   " + " ".join(f"{x:.2f}" for x in t))
            print(f"new / old {new / old:.2f}")
            figures = {"run": "cold starts against", "starts each": args.cold_starts,
                       "rows": [{"tree": name, "median s": round(statistics.median(t), 2),
                                 "starts s": [round(x, 2) for x in t]} for name, t in times.items()],
                       "new / old": round(new / old, 2)}
        else:
            colds = [cold_start(browser) for _ in range(args.cold_starts)]
            print(f"cold start, `streamlit run app.py` to the first page drawn: median "
                  f"{statistics.median(colds):.2f} s (min {min(colds):.2f}, max {max(colds):.2f}, {len(colds)} starts)")
            rows = []
            process, port = serve_tree(ROOT, sys.executable)
            try:
                base = f"http://127.0.0.1:{port}"
                warm_up_seconds(base)        # the server's warm-up (7 s of CPU) is done: it is not what is measured
                page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                print(f"typing a new word to the page settled with all charts drawn; medians of {args.repeats} (s)")
                print(f"{'page':<14} {'5 chars':>8} {'24 chars':>9} {'48 chars':>9} {'48/5':>6}")
                for name, path in {**PAGES, **TOUR}.items():
                    if name not in args.pages.split(","):
                        continue
                    short = statistics.median(interaction_times(page, f"{base}/{path}", 5, args.repeats, rng))
                    middle = statistics.median(interaction_times(page, f"{base}/{path}", 24, args.repeats, rng))
                    long = statistics.median(interaction_times(page, f"{base}/{path}", 48, args.repeats, rng))
                    step = int(name.split("-")[1]) if name in TOUR else 1
                    key_s = statistics.median(step_key_times(page, base, step, args.repeats, rng)) if step > 1 else None
                    key = f"   → key {key_s:>7.3f}" if step > 1 else ""
                    print(f"{name:<14} {short:>8.3f} {middle:>9.3f} {long:>9.3f} {long / short:>6.2f}{key}")
                    rows.append({"page": name, "5 chars s": round(short, 3), "24 chars s": round(middle, 3),
                                 "48 chars s": round(long, 3), "48/5": round(long / short, 2),
                                 **({"→ key s": round(key_s, 3)} if step > 1 else {})})
            finally:
                stop_server(process)
            browser.close()
            figures = {"run": "cold starts and interactions",
                       "cold start": {"median s": round(statistics.median(colds), 2), "min s": round(min(colds), 2),
                                      "max s": round(max(colds), 2), "starts": len(colds)},
                       "medians of": args.repeats, "rows": rows}
    mode = {"first visits": "first_visits", "cold starts against": "cold_starts"}.get(figures["run"])
    write_record(f"browser_latency_{mode}" if mode else "browser_latency", figures, module="browser_latency")


if __name__ == "__main__":
    main()
