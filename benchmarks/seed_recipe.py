"""Our training recipe beside the seed's (shared/seeds/002…), on our reversal task, side by side.

    python -m benchmarks.seed_recipe [--task reverse] [--max-len 24] [--budget 900] [--eval-every 250]

Two processes start together, one torch thread each, and train our own Transformer on the same stream of
random strings:
- seed: the recipe of the seed article on our code: 1 encoder + 1 decoder layer, d_model 128, 4 heads,
  feed-forward 128, Adam at a constant 1e-3, batch 256 (no warm-up, no decay; the article clips nothing and
  its dropout is not given: 0 here, as in ours);
- ours: 2 + 2 layers, d_model 64, 4 heads, feed-forward 256, `transformer.train.fit` as the bundled
  checkpoints are trained: batches of 128 strings of similar length, AdamW 3e-3 with 150 warm-up steps and a
  cosine decay (over 5,000 steps here), gradients clipped at 1. --lr, --warmup, --steps, --batch-size change it.
Every `--eval-every` steps each measures exact match on the same 1,000 held-out strings, with its clock
paused, so the times are training time. Prints, per recipe, the training seconds to first reach 0.99, 0.999
and 1.000, the lowest exact match after first reaching 0.99 (how much it swings), and the last.

Writes docs/records/seed_recipe.json.
"""

from __future__ import annotations

import argparse
import itertools
import json
import subprocess
import sys
import time

import torch

from benchmarks.record import write_record
from transformer.config import ModelConfig
from transformer.data import TASKS, make_batch, sample_strings, training_stream
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.train import fit, training_step
from transformer.vocab import Vocab

THRESHOLDS = (0.99, 0.999, 1.0)


def seed_model(vocab: Vocab, max_len: int) -> Transformer:
    return Transformer(ModelConfig(vocab_size=vocab.size, d_model=128, n_heads=4, n_encoder_layers=1,
                                   n_decoder_layers=1, d_ff=128, max_len=max_len))


def run(recipe: str, args: argparse.Namespace) -> None:
    """One recipe in this process: prints a JSON line per evaluation."""
    max_len, budget, eval_every, task = args.max_len, args.budget, args.eval_every, args.task
    torch.set_num_threads(1)
    torch.manual_seed(0)
    vocab = Vocab()
    held_out = sample_strings(1000, seed=99, max_len=max_len, held_out=True)
    stream = training_stream(0, max_len, task)  # both recipes alike
    clock = {"spent": 0.0, "since": time.perf_counter()}

    def evaluate(model: Transformer, step: int) -> None:
        clock["spent"] += time.perf_counter() - clock["since"]
        model.eval()
        score = exact_match(model, vocab, held_out, task=task).exact_match
        print(json.dumps({"recipe": recipe, "seconds": round(clock["spent"], 1), "step": step, "exact": score}),
              flush=True)
        clock["since"] = time.perf_counter()

    def within_budget() -> bool:
        return clock["spent"] + time.perf_counter() - clock["since"] < budget

    if recipe == "seed":
        model = seed_model(vocab, max_len)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        constant = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
        step = 0
        while within_budget():
            step += 1
            batch = make_batch(list(itertools.islice(stream, 256)), vocab, max_len, task)
            training_step(model, optimizer, constant, batch, clip=float("inf"))
            if step % eval_every == 0:
                evaluate(model, step)
    else:
        model = Transformer(ModelConfig(vocab_size=vocab.size, max_len=max_len))
        fit(model, vocab, stream, steps=args.steps, lr=args.lr, warmup=args.warmup, batch_size=args.batch_size,
            on_step=lambda step, *_: evaluate(model, step) if step % eval_every == 0 else None,
            keep_going=within_budget, task=task)


def milestones(points: list[dict]) -> tuple[list[dict | None], float, dict]:
    """The first evaluation at each of THRESHOLDS (None: never), the lowest exact match after first reaching 0.99,
    and the last evaluation."""
    firsts = [next((p for p in points if p["exact"] >= threshold), None) for threshold in THRESHOLDS]
    reached = next((i for i, p in enumerate(points) if p["exact"] >= 0.99), None)
    lowest = min((p["exact"] for p in points[reached:]), default=float("nan")) if reached is not None else float("nan")
    last = points[-1] if points else {"exact": float("nan"), "seconds": 0, "step": 0}
    return firsts, lowest, last


def summary(points: list[dict]) -> str:
    firsts, lowest, last = milestones(points)
    cells = [f"{first['seconds']:>8.0f} s" if first else f"{'never':>10}" for first in firsts]
    return (" ".join(cells) + f" {lowest:>10.3f} {last['exact']:>7.3f} at {last['seconds']:.0f} s "
            f"(step {last['step']})")


def summary_row(name: str, points: list[dict]) -> dict:
    """summary's figures, as numbers rounded as it prints them."""
    firsts, lowest, last = milestones(points)
    return {"recipe": name, **{f"{label} s": round(first["seconds"]) if first else "never"
                               for label, first in zip(("0.99", "0.999", "1.000"), firsts)},
            "lowest after 0.99": round(lowest, 3), "last": round(last["exact"], 3),
            "last at s": round(last["seconds"]), "last at step": last["step"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--max-len", type=int, default=24)
    parser.add_argument("--budget", type=float, default=900, help="training seconds per recipe")
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--task", choices=list(TASKS), default="reverse")
    parser.add_argument("--recipes", default="seed,ours", help="which to run side by side (e.g. ours,ours-b)")
    parser.add_argument("--lr", type=float, default=3e-3, help="ours: peak learning rate")
    parser.add_argument("--warmup", type=int, default=150, help="ours: warm-up steps")
    parser.add_argument("--steps", type=int, default=5000, help="ours: steps of the cosine schedule")
    parser.add_argument("--batch-size", type=int, default=128, help="ours: strings per step")
    parser.add_argument("--recipe", help=argparse.SUPPRESS)   # one child process
    args, rest = parser.parse_known_args()
    if args.recipe:
        run(args.recipe, args)
        return
    names = args.recipes.split(",")
    children = {name: subprocess.Popen(
        [sys.executable, "-m", "benchmarks.seed_recipe", "--recipe", name] + sys.argv[1:],
        stdout=subprocess.PIPE, text=True) for name in names}    # started together, one thread each
    points = {name: [json.loads(line) for line in child.stdout] for name, child in children.items()}
    for child in children.values():
        child.wait()
    print(f"{args.task}, lengths 1-{args.max_len}, ours: lr {args.lr}, warm-up {args.warmup}, cosine over "
          f"{args.steps} steps, batch {args.batch_size}; exact match on 1,000 held-out strings every {args.eval_every} "
          f"steps, training seconds (one thread each, run side by side)")
    print(f"{'recipe':<6} {'0.99':>10} {'0.999':>10} {'1.000':>10} {'lowest after 0.99':>18} last")
    for name, series in points.items():
        print(f"{name:<6} {summary(series)}")
    for name, series in points.items():
        print(name, " ".join(f"{p['seconds']:.0f}s:{p['exact']:.3f}" for p in series))
    write_record("seed_recipe", {
        "task": args.task, "lengths": f"1-{args.max_len}",
        "ours": {"lr": args.lr, "warm-up": args.warmup, "cosine over steps": args.steps, "batch": args.batch_size},
        "held-out strings": 1000, "evaluated every steps": args.eval_every,
        "rows": [summary_row(name, series) for name, series in points.items()],
        "evaluations": [{"recipe": name, "s": [round(p["seconds"]) for p in series],
                         "exact": [round(p["exact"], 3) for p in series]} for name, series in points.items()]})


if __name__ == "__main__":
    main()
