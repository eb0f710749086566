"""What hostile uploads cost the other learners: one server, a second session typing a word every second.

    python -m benchmarks.hostile_uploads [--quiet-seconds 30] [--sessions 20]

1. The typist alone for --quiet-seconds: its answer times with nobody uploading.
2. The typist while one browser session uploads every hostile zip of drivers/payloads.py in turn: its answer
   times, and the server's resident memory before and at peak.
3. --sessions browser sessions each upload a valid model near the parameter limit, hold it, then all leave:
   the server's memory before, with all held, at peak, and after they have gone.
Prints medians, p95 and worst answers of both phases side by side, and their ratio.

Writes docs/records/hostile_uploads.json.
"""

from __future__ import annotations

import argparse
import statistics
import time

from playwright.sync_api import sync_playwright

from benchmarks.record import write_record
from drivers.harness import CHROMIUM, CHROMIUM_ARGS, load, resident_mb, start_server, stop_server
from drivers.hostile import (
    LARGE, MemoryWatch, Typist, large_valid_zip, sessions_holding_uploads, temporary_folders, upload,
)
from drivers.payloads import HOSTILE


def summary(seconds: list[float]) -> tuple[float, float, float]:
    ordered = sorted(seconds)
    return statistics.median(ordered), ordered[int(0.95 * (len(ordered) - 1))], ordered[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quiet-seconds", type=float, default=30)
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    zips = [large_valid_zip(seed) for seed in range(args.sessions)]
    folders = temporary_folders()
    process, url = start_server("bench-hostile-server.log")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            load(page, f"{url}/training?text=level", timeout=120_000)
            with Typist(url, seed=1) as quiet:
                time.sleep(args.quiet_seconds)
            refused = 0
            with Typist(url, seed=2) as typist, MemoryWatch(process.pid) as hostile_memory:
                for i, (name, (data, reason)) in enumerate(HOSTILE.items()):
                    refused += reason in upload(page, f"hostile-{i:02d}.zip", data).replace("\\", "")
            page.context.close()
            time.sleep(2)
            with MemoryWatch(process.pid) as memory:
                tabs = browser.new_context(viewport={"width": 1400, "height": 1000})
                sessions = sessions_holding_uploads(tabs, url, zips)
                held = memory.now()
                for tab, _ in sessions:
                    tab.close()
                time.sleep(10)
                after = memory.now()
            browser.close()
    finally:
        stop_server(process)
    print(f"{len(HOSTILE)} hostile uploads, {refused} refused with the expected message; "
          f"{len(typist.wrong) + len(quiet.wrong)} wrong or failed answers to the typist")
    print("| typist's answers | n | median | p95 | worst |")
    print("|---|---|---|---|---|")
    rows = []
    for label, answers in (("alone", quiet.answers), ("during the hostile uploads", typist.answers)):
        median, p95, worst = summary(answers)
        print(f"| {label} | {len(answers)} | {median:.3f} s | {p95:.3f} s | {worst:.3f} s |")
        rows.append({"typist's answers": label, "n": len(answers), "median s": round(median, 3),
                     "p95 s": round(p95, 3), "worst s": round(worst, 3)})
    ratio = summary(typist.answers)[0] / summary(quiet.answers)[0]
    print(f"median during / alone: {ratio:.2f}")
    print(f"server memory during the hostile uploads: {hostile_memory.before:.0f} MB before, "
          f"peak {hostile_memory.peak:.0f} MB")
    print(f"{args.sessions} sessions uploading a {LARGE.implied_parameters():,}-parameter model: "
          f"{memory.before:.0f} MB before, {held:.0f} MB with all held, peak {memory.peak:.0f} MB, "
          f"{after:.0f} MB 10 s after they left ({after - memory.before:+.0f} MB)")
    left_behind = len(temporary_folders() - folders)
    print(f"temporary folders left behind: {left_behind}")
    write_record("hostile_uploads", {
        "hostile uploads": len(HOSTILE), "refused with the expected message": refused,
        "wrong or failed answers to the typist": len(typist.wrong) + len(quiet.wrong), "rows": rows,
        "median during / alone": round(ratio, 2),
        "server memory during the hostile uploads": {"before MB": round(hostile_memory.before),
                                                     "peak MB": round(hostile_memory.peak)},
        "sessions uploading a large model": {
            "sessions": args.sessions, "parameters": LARGE.implied_parameters(), "before MB": round(memory.before),
            "with all held MB": round(held), "peak MB": round(memory.peak), "10 s after they left MB": round(after),
            "after - before MB": round(after - memory.before)},
        "temporary folders left behind": left_behind})


if __name__ == "__main__":
    main()
