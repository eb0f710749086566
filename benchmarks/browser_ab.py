"""One page, two versions of the app, interactions interleaved in one headless Chromium: is a change faster?

    python -m benchmarks.browser_ab --against HEAD~1 --page attention --length 24 [--repeats 12]
    python -m benchmarks.browser_ab --against HEAD~1 --page all      # every page, the same two servers

The other version is checked out with `git worktree` into a temporary folder and served with its own pinned
packages (drivers/versions.py). Both servers run at once and
the same new word is typed into each in turn, each going first every other time, so the machine's noise
falls on both alike. Prints medians of the wall time (from Enter, once the word is in the box, to the page
settled with every chart drawn and the frame after it painted; before 2026-11-27 evening it counted the typing
too) and of Chromium's main-thread busy time (the Performance domain's TaskDuration, the typing included), and
their ratios.

Writes docs/records/browser_ab.json (or --record NAME: docs/records/NAME.json).
"""

from __future__ import annotations

import argparse
import contextlib
import random
import statistics
import subprocess
import time
from collections.abc import Iterator

from playwright.sync_api import Browser, sync_playwright

from benchmarks.record import write_record
from drivers.harness import CHROMIUM, CHROMIUM_ARGS, open_page, type_text
from drivers.versions import served_pair
from drivers.words import random_word

from .browser_latency import PAGES


@contextlib.contextmanager
def two_servers(against: str) -> Iterator[tuple[Browser, dict[str, tuple[subprocess.Popen, int]]]]:
    """The two servers of served_pair, and one Chromium."""
    with served_pair(against) as servers, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser, servers
        browser.close()


def main_thread_seconds(cdp) -> float:
    return next(m["value"] for m in cdp.send("Performance.getMetrics")["metrics"] if m["name"] == "TaskDuration")


def measure(browser, servers: dict, path: str, length: int, repeats: int) -> tuple[dict, dict]:
    """Wall and main-thread seconds of `repeats` new words typed into the page of each server in turn."""
    pages, cdps = {}, {}
    for name, (_, port) in servers.items():
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        open_page(page, f"http://127.0.0.1:{port}/{path}")
        type_text(page, "warmup")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")
        pages[name], cdps[name] = page, cdp
    wall = {name: [] for name in servers}
    busy = {name: [] for name in servers}
    rng = random.Random(0)
    for repeat in range(repeats):
        word = random_word(rng, length)
        # in turn, first one then the other first: the same code measured against itself came out 10 % slower
        # second (inside-one-head at 48 characters, medians of 8) when the order was fixed
        for name, page in (list(pages.items()) if repeat % 2 == 0 else list(pages.items())[::-1]):
            page.bring_to_front()
            before = main_thread_seconds(cdps[name])
            wall[name].append(type_text(page, word))   # from Enter to the run's end, drawn and painted
            page.wait_for_timeout(300)  # let the last paint land in the counter
            busy[name].append(main_thread_seconds(cdps[name]) - before)
    for page in pages.values():
        page.context.close()
    return wall, busy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", required=True, help="a git ref to compare the working tree with")
    parser.add_argument("--page", default="attention",
                        help="url path of the page, '' for home, several separated by commas, 'all' for every page")
    parser.add_argument("--length", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=12)
    parser.add_argument("--record", default="browser_ab",
                        help="the record's name in docs/records/ (another keeps the last run of every page)")
    args = parser.parse_args()
    paths = list(PAGES.values()) if args.page == "all" else args.page.split(",")
    results = {}
    with two_servers(args.against) as (browser, servers):
        for path in paths:
            results[path] = measure(browser, servers, path, args.length, args.repeats)
    old, new = args.against, "working tree"
    print(f"{args.length} characters, medians of {args.repeats} interleaved interactions (wall s; main thread s)")
    print("noise: the middle half (quartiles) of the per-word ratios new/old of the wall time; a page is slower "
          "beyond its noise when even the lower quartile is above 1")
    print(f"{'page':<16} {old[:10]:>10} {'new':>8} {'new/old':>8} {'quartiles':>11}   {'main old':>9} {'main new':>9} "
          f"{'new/old':>8}")
    rows = []
    for path, (wall, busy) in results.items():
        w_old, w_new = statistics.median(wall[old]), statistics.median(wall[new])
        b_old, b_new = statistics.median(busy[old]), statistics.median(busy[new])
        low, _, high = statistics.quantiles([n / o for n, o in zip(wall[new], wall[old])], n=4)
        print(f"/{path:<15} {w_old:>10.3f} {w_new:>8.3f} {w_new / w_old:>8.2f} {low:>5.2f}–{high:<5.2f}   "
              f"{b_old:>9.3f} {b_new:>9.3f} {b_new / b_old:>8.2f}")
        rows.append({"page": f"/{path}", "against": old, "old s": round(w_old, 3), "new s": round(w_new, 3),
                     "new/old": round(w_new / w_old, 2), "quartiles": [round(low, 2), round(high, 2)],
                     "main old s": round(b_old, 3), "main new s": round(b_new, 3),
                     "main new/old": round(b_new / b_old, 2)})
    write_record(args.record, {"characters": args.length, "interleaved interactions a median": args.repeats,
                                "rows": rows}, module="browser_ab")


if __name__ == "__main__":
    main()
