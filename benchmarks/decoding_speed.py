"""Decoding, this working tree against another commit: one run of a 48-character text against one traced pass,
batch greedy evaluation of 2,000 held-out strings, and the lab's table of every head switched off.

    python -m benchmarks.decoding_speed --against f75db04 [--rounds 5]

The other commit is checked out with `git worktree`; each round measures both trees, one after the other in
separate processes (each going first every other round), each process one torch thread. Within a process,
make_run and the traced pass are timed side by side (medians of 15), so their ratio holds whatever the
machine's load. Prints the medians over rounds, and new/old ratios.

Writes docs/records/decoding_speed.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import tempfile
from pathlib import Path

from benchmarks.record import write_record
from drivers.checkout_python import python_for

ROOT = Path(__file__).resolve().parent.parent

MEASURE = r"""
import json, time, statistics, torch
torch.set_num_threads(1)
from analysis.lab import ablation_ranking
from analysis.run import make_run, traced_pass
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import held_out_strings, random_string
from transformer.metrics import exact_match
from transformer.vocab import SOS
import random

ck = load(bundled_checkpoint("reverse"))
model, vocab = ck.model, ck.vocab
text = random_string(random.Random(48), 48)
src = vocab.encode(text, 48)
run = make_run(model, vocab, text)
tgt = torch.tensor([run.decoder_in_ids])

def median(fn, repeats=15):
    times = []
    for _ in range(repeats):
        start = time.perf_counter(); fn(); times.append(time.perf_counter() - start)
    return statistics.median(times)

with torch.inference_mode():
    pairs = [(median(lambda: make_run(model, vocab, text), 1), median(lambda: traced_pass(model, torch.tensor([src]), tgt), 1))
             for _ in range(15)]
words = held_out_strings(2000, 48)
start = time.perf_counter(); found = exact_match(model, vocab, words); evaluation = time.perf_counter() - start
start = time.perf_counter(); ablation_ranking(model, vocab, words[:200]); table = time.perf_counter() - start
print(json.dumps({"make_run": statistics.median(p[0] for p in pairs), "traced": statistics.median(p[1] for p in pairs),
                  "ratio": statistics.median(p[0] / p[1] for p in pairs), "words_per_s": 2000 / evaluation,
                  "exact": found.exact_match, "table_s": table}))
"""


def measure(tree: Path) -> dict:
    out = subprocess.run([python_for(tree), "-c", MEASURE], cwd=tree, capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        old = Path(folder) / "old"
        subprocess.run(["git", "worktree", "add", "--detach", str(old), args.against], cwd=ROOT, check=True,
                       capture_output=True)
        try:
            results = {"old": [], "new": []}
            for round_ in range(args.rounds):
                order = [("old", old), ("new", ROOT)] if round_ % 2 else [("new", ROOT), ("old", old)]
                for name, tree in order:
                    results[name].append(measure(tree))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, check=True)
    print(f"{args.rounds} rounds, medians; make_run and the traced pass on one 48-character text, side by side")
    print(f"{'':34}{args.against:>12}{'new':>12}{'new/old':>10}")
    rows = []
    for key, label in (("make_run", "make_run (greedy), ms"), ("traced", "one traced pass, ms"),
                       ("ratio", "make_run / traced pass"), ("words_per_s", "batch greedy, words/s (2,000)"),
                       ("table_s", "ablation table (every head × 200), s"), ("exact", "exact match (2,000)")):
        scale = 1000 if key in ("make_run", "traced") else 1
        a = statistics.median(r[key] for r in results["old"]) * scale
        b = statistics.median(r[key] for r in results["new"]) * scale
        print(f"{label:34}{a:12.3f}{b:12.3f}{b / a:10.2f}")
        rows.append({"figure": label, "against": args.against, "old": round(a, 3), "new": round(b, 3),
                     "new/old": round(b / a, 2)})
    write_record("decoding_speed", {"rounds": args.rounds, "rows": rows})


if __name__ == "__main__":
    main()
