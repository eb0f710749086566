"""How fast a live run of the Training page's default configuration learns to reverse, on this machine.

    python -m benchmarks.live_training [--seeds 3] [--threads 1]

Runs explorer.live_training.LiveTraining with the page's defaults (the form's starting values), several seeds,
one after another, and prints for each the first evaluated step and the seconds at which held-out exact
match reached 90 %, then the medians. One torch thread by default, as in the app's server (explorer.cache).

Writes docs/records/live_training.json.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import torch

from benchmarks.record import write_record
from explorer.live_training import LiveSettings, LiveTraining

TARGET = 0.9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (the app's server uses 1)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    defaults = LiveSettings()
    print(f"default live configuration: {defaults}; {torch.get_num_threads()} torch thread(s)")
    reached_steps, reached_seconds, rows = [], [], []
    for seed in range(args.seeds):
        with tempfile.TemporaryDirectory() as tmp:
            p = LiveTraining(LiveSettings(seed=seed), Path(tmp) / "run").run()
            hit = next(((step, em, s) for (step, em), s in zip(p.exact_match, p.exact_match_seconds)
                        if em >= TARGET), None)
            final = p.exact_match[-1][1]
            if hit is None:
                print(f"seed {seed}: never reached {TARGET:.0%} in {p.step} steps ({p.seconds:.1f} s); final {final:.1%}")
                rows.append({"seed": seed, "reached": "never", "final exact match": round(final, 3), "steps": p.step,
                             "run s": round(p.seconds, 1)})
                continue
            reached_steps.append(hit[0])
            reached_seconds.append(hit[2])
            print(f"seed {seed}: {hit[1]:.0%} at step {hit[0]}, {hit[2]:.1f} s into the run; "
                  f"final exact match {final:.1%} after {p.step} steps, {p.seconds:.1f} s")
            rows.append({"seed": seed, "reached": round(hit[1], 2), "at step": hit[0],
                         "s into the run": round(hit[2], 1), "final exact match": round(final, 3), "steps": p.step,
                         "run s": round(p.seconds, 1)})
    if reached_steps:
        print(f"median over {len(reached_steps)} of {args.seeds} seeds: step {statistics.median(reached_steps):.0f}, "
              f"{statistics.median(reached_seconds):.1f} s to {TARGET:.0%} held-out exact match")
    figures = {"default live configuration": str(defaults), "torch threads": torch.get_num_threads(),
               "held-out exact match to reach": TARGET, "rows": rows}
    if reached_steps:
        figures["median"] = {"seeds reaching it": len(reached_steps), "of seeds": args.seeds,
                             "step": round(statistics.median(reached_steps)),
                             "s": round(statistics.median(reached_seconds), 1)}
    write_record("live_training", figures)


if __name__ == "__main__":
    main()
