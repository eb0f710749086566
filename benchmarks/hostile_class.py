"""What a mischievous learner costs the class: each attack of tests/e2e/test_hostile_class.py on one server while
another learner types on Home, side by side in one run.

    python -m benchmarks.hostile_class [--only NAME ...] [--against REF]

For each attack (driven over Streamlit's protocol, as tests/e2e/test_hostile_class.py drives it): the other
learner's median answer alone and during the attack and their ratio, the server's resident memory at the
start, at peak and SETTLE_SECONDS after the attacker left, and what the attack itself saw. The bundled lab
tables are computed before anything is timed. Goals: ratio at most 2, peak under 1,536 MB,
after at most start + 100 MB. With --against REF, the same attacks on REF's server first (checked out in a
temporary worktree, served with its own pinned packages), printed side by side. The figures are written to
docs/records/hostile_class.json with the command and the date.
"""

from __future__ import annotations

import argparse
import functools
from pathlib import Path

from benchmarks.record import write_record
from drivers import hostile_class as attacks
from drivers import hostile_seats, hostile_tabs
from drivers.harness import start_server, stop_server

from drivers.versions import checked_out, ready, start as serve_tree

ATTACKS = {
    "endless uploads": attacks.endless_uploads,
    "clear_cache": attacks.clear_caches,
    "made-up widget states": attacks.widget_flood,
    "stray uploads": attacks.stray_uploads,
    "typing flood": attacks.typing_flood,
    "downloads": attacks.downloads,
    "class polls": attacks.poll_flood,
    "seat exhaustion": hostile_seats.seat_exhaustion,
    "code guessing": hostile_seats.code_guessing,
    "answer before the reveal": hostile_seats.answer_before_reveal,
    "integrated gradients, 4 tabs": functools.partial(hostile_tabs.integrated_gradients, tabs=4,
                                                      browser=hostile_tabs.ONE_BROWSER, seconds=40),
    "occlusion, 10 tabs": functools.partial(hostile_tabs.occlusion, tabs=10, browser=hostile_tabs.NO_COOKIE,
                                            seconds=30),
    "causal cone, 4 tabs": functools.partial(hostile_tabs.causal_cone, tabs=4, browser=hostile_tabs.ONE_BROWSER,
                                             seconds=30),
    "live training, 3 tabs": functools.partial(hostile_tabs.live_training, tabs=3),
    "own models, 24 tabs": functools.partial(hostile_tabs.own_models, tabs=24, words=4),
}


def attacked(root: Path | None, names: list[str], label: str) -> list[attacks.Measured]:
    """Every attack in `names` on one fresh server of `root` (the working tree when None), in turn."""
    if root is None:
        process, url = start_server(f"bench-hostile-class-{label}.log")
    else:
        process, port = serve_tree(root)
        ready([(process, port)])
        url = f"http://127.0.0.1:{port}"
    try:
        attacks.run_async(attacks.warm_up(url))
        return [attacks.under_attack(name, url, process.pid, ATTACKS[name], seed=20 + i)
                for i, name in enumerate(names)]
    finally:
        stop_server(process)


def rows(measured: list[attacks.Measured], label: str) -> list[dict]:
    return [{"attack": m.name, "tree": label, "alone s": round(m.alone, 4), "during s": round(m.during_median, 4),
             "ratio": round(m.ratio, 2), "slowest s": round(max(m.during), 2), "start MB": round(m.start_mb),
             "peak MB": round(m.peak_mb), "after MB": round(m.after_mb), "details": repr(m.details)}
            for m in measured]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", choices=list(ATTACKS), default=list(ATTACKS))
    parser.add_argument("--against", metavar="REF", help="run the same attacks on REF's server first (a git ref)")
    args = parser.parse_args()
    attacks.prepare_widget_flood()
    table = []
    if args.against:
        with checked_out(args.against) as other:
            table += rows(attacked(other, args.only, "old"), args.against)
    table += rows(attacked(None, args.only, "new"), "working tree")
    print(f"{'attack':<30}{'tree':<14}{'alone s':>9}{'during s':>10}{'ratio':>7}{'slowest s':>10}{'start MB':>10}"
          f"{'peak MB':>9}{'after MB':>10}")
    for r in sorted(table, key=lambda r: args.only.index(r["attack"])):
        print(f"{r['attack']:<30}{r['tree'][:13]:<14}{r['alone s']:>9.3f}{r['during s']:>10.3f}{r['ratio']:>7.2f}"
              f"{r['slowest s']:>10.2f}{r['start MB']:>10}{r['peak MB']:>9}{r['after MB']:>10}")
    for r in table:
        print(f"  {r['attack']} ({r['tree']}): {r['details']}")
    write_record("hostile_class", {"goals": {"ratio at most": 2, "peak MB under": 1536,
                                            "after MB at most": "start + 100"}, "rows": table})


if __name__ == "__main__":
    main()
