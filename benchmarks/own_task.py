"""How fast a task no one has trained before is learned with the quick recipe (transformer.recipe).

    python -m benchmarks.own_task [--seeds 3] [--budget 90] [--alphabets latin,greek] [--tasks a,b,... [--merge]]

Trains every single operation and ten compositions of two, on lengths 1-12, for each seed and alphabet, two
runs side by side, one torch thread each (as the Training page's runs are). Every 100 steps a run measures exact
match on 1,000 held-out strings with its clock paused, so the times are training seconds. Prints, per task and
alphabet, the model size chosen and the median over the seeds of the seconds to 99 % and to 99.9 % (a run that
never reaches one within the budget counts as the budget, and is marked). Writes docs/records/own_task.json;
with --merge, the rows of the tasks not run stay as the record had them, each row dated.
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import torch

from benchmarks.record import read_record, write_record
from transformer import train
from transformer.data import held_out_strings, training_stream
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.recipe import recipe_for
from transformer.task_rules import LATIN, OPERATIONS, task_spec
from transformer.vocab import Vocab

ALPHABETS = {"latin": LATIN, "greek": "αβγδεζηθικλμνξοπρστυφχψω"}   # 24 letters
SINGLES = [name if OPERATIONS[name].parameter is None else f"{name}:{k}"
           for name, k in (("reverse", 0), ("copy", 0), ("sort", 0), ("rotate", 2), ("swap-pairs", 0),
                           ("shift", 1), ("double", 0), ("dedupe", 0), ("mirror", 0), ("interleave", 0))]
PAIRS = ["reverse|shift:1", "rotate:2|reverse", "swap-pairs|shift:3", "sort|reverse", "double|reverse",
         "dedupe|rotate:1", "interleave|shift:1", "mirror|shift:2", "reverse|swap-pairs", "rotate:3|dedupe"]
THRESHOLDS = (0.99, 0.999)
LENGTHS = "1-12"
HELD_OUT = 1000
EVERY = 100


def run(task: str, alphabet: str, seed: int, budget: float) -> dict:
    """One run in this process: the seconds at which exact match first reached each threshold."""
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    spec = task_spec(task, ALPHABETS[alphabet], LENGTHS)
    args = train.parse_args(["--out", "unused", "--task", task, "--alphabet", spec.alphabet, "--lengths", LENGTHS,
                             "--seconds", str(budget), "--seed", str(seed)])
    vocab = Vocab(spec.characters)
    model = Transformer(train.model_config(args, vocab))
    held_out = held_out_strings(HELD_OUT, spec.max_len, seed=99, min_len=spec.min_len, letters=vocab.letters)
    clock = {"spent": 0.0, "since": time.perf_counter()}
    firsts: dict[float, float] = {}
    last = [0.0]

    def on_step(step: int, *_) -> None:
        if step % EVERY:
            return
        clock["spent"] += time.perf_counter() - clock["since"]
        model.eval()
        score = exact_match(model, vocab, held_out, task=spec.spec).exact_match
        model.train()
        last[0] = score
        for t in THRESHOLDS:
            if score >= t and t not in firsts:
                firsts[t] = round(clock["spent"], 1)
        clock["since"] = time.perf_counter()

    def keep_going() -> bool:
        spent = clock["spent"] + time.perf_counter() - clock["since"]
        return len(firsts) < len(THRESHOLDS) and spent < budget

    stream = training_stream(seed, spec.max_len, spec.spec, vocab.letters, spec.min_len)
    train.fit(model, vocab, stream, steps=args.steps, lr=args.lr, warmup=args.warmup, batch_size=args.batch_size,
              on_step=on_step, keep_going=keep_going, task=spec.spec)
    recipe = recipe_for(spec)
    return {"task": spec.spec, "alphabet": alphabet, "seed": seed, "last": last[0],
            "size": f"{recipe.encoder_layers}+{recipe.decoder_layers} layers, d_model {recipe.d_model}, "
                    f"{recipe.heads} heads, {model.n_parameters():,} parameters",
            **{str(t): firsts.get(t) for t in THRESHOLDS}}


def child(task: str, alphabet: str, seed: int, budget: float) -> dict:
    out = subprocess.run([sys.executable, "-m", "benchmarks.own_task", "--one", json.dumps([task, alphabet, seed]),
                          "--budget", str(budget)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_seconds(runs: list[dict], threshold: float, budget: float) -> tuple[float, int]:
    """The median over seeds (a run that never got there counts as the budget) and how many never did."""
    times = [r[str(threshold)] if r[str(threshold)] is not None else budget for r in runs]
    return round(statistics.median(times), 1), sum(r[str(threshold)] is None for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=90, help="training seconds per run at most")
    parser.add_argument("--alphabets", default="latin,greek")
    parser.add_argument("--tasks", help="comma-separated rules (default: every single operation and ten pairs)")
    parser.add_argument("--merge", action="store_true",
                        help="keep the record's rows of the tasks not run (each row says when it was measured)")
    parser.add_argument("--one", help=argparse.SUPPRESS)   # one run, in a child process
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run(*json.loads(args.one), budget=args.budget)))
        return
    tasks = args.tasks.split(",") if args.tasks else SINGLES + PAIRS
    jobs = [(t, a, s) for t in tasks for a in args.alphabets.split(",") for s in range(args.seeds)]
    with ThreadPoolExecutor(max_workers=2) as pool:     # two runs side by side, one thread each
        results = list(pool.map(lambda job: child(*job, args.budget), jobs))
    rows, today = [], datetime.date.today().isoformat()
    print(f"lengths {LENGTHS}, exact match on {HELD_OUT} held-out strings every {EVERY} steps; training seconds, "
          f"median of {args.seeds} seeds (two runs side by side, one thread each; * = some seed never got there "
          f"within {args.budget:.0f} s)")
    print(f"{'task':<22} {'alphabet':<8} {'99 %':>8} {'99.9 %':>8}  size")
    for task in tasks:
        for alphabet in args.alphabets.split(","):
            runs = [r for r in results if r["task"] == task_spec(task, ALPHABETS[alphabet], LENGTHS).spec
                    and r["alphabet"] == alphabet]
            row = {"task": runs[0]["task"], "alphabet": alphabet, "size": runs[0]["size"], "measured": today}
            marks = []
            for t in THRESHOLDS:
                seconds, missed = median_seconds(runs, t, args.budget)
                row[f"{t:.1%} s"], row[f"{t:.1%} missed"] = seconds, missed
                marks.append(f"{seconds:>7.1f}{'*' if missed else ' '}")
            row["seeds"] = [{"seed": r["seed"], "99.0%": r["0.99"], "99.9%": r["0.999"], "last": r["last"]}
                            for r in runs]
            rows.append(row)
            print(f"{row['task']:<22} {alphabet:<8} {marks[0]} {marks[1]}  {row['size']}")
    if args.merge:      # the rows of the tasks not run this time, as the record had them
        ran = {(r["task"], r["alphabet"]) for r in rows}
        earlier = read_record("own_task")
        kept = [{**r, "measured": r.get("measured", earlier["date"][:10])} for r in earlier["figures"]["rows"]
                if (r["task"], r["alphabet"]) not in ran]
        merged_from = f"{earlier['command']} ({earlier['date'][:10]})"
        order = [task_spec(t, LATIN, LENGTHS).spec for t in SINGLES + PAIRS]
        rows = sorted(kept + rows, key=lambda r: (order.index(r["task"]) if r["task"] in order else len(order),
                                                  list(ALPHABETS).index(r["alphabet"])))
    within = sum(r["99.0% s"] <= 60 and not r["99.0% missed"] for r in rows)
    print(f"{within} of {len(rows)} tasks reach 99 % within 60 s (median of the seeds)")
    merged = {"rows kept from": merged_from} if args.merge and kept else {}
    write_record("own_task", {**merged, "lengths": LENGTHS, "held-out strings": HELD_OUT,
                              "evaluated every steps": EVERY, "seeds": args.seeds, "budget s": args.budget,
                              "within 60 s at 99 %": f"{within} of {len(rows)}", "rows": rows})


if __name__ == "__main__":
    main()
