"""Train a model of a task and write a checkpoint directory.

    python -m transformer.train --task reverse --out checkpoints/reverse --max-len 48
    python -m transformer.train --task "rotate:2|shift:1" --alphabet αβγδεζηθικλμνξοπρστυφχω --lengths 1-12 \
        --seconds 60 --out my-task

A task is any rule of transformer.task_rules. Fixed seeds, linear warm-up then cosine decay, gradient clipping, a
progress bar with loss and token accuracy (padding excluded), and exact match on held-out strings every
--eval-every steps. With --seconds the run stops when held-out exact match reaches --target or the time is up,
and the model's sizes not given are chosen for the task (transformer.recipe).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import platform
import random
import shutil
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import torch
import torch.nn.functional as F
from tqdm import tqdm

from . import checkpoint
from .config import ModelConfig
from .data import Batch, held_out_strings, make_batch, sample_strings, similar_lengths, training_stream
from .recipe import Recipe, recipe_for
from .task_rules import LATIN, TaskSpec, TaskSpecError, task_spec
from .metrics import cross_attention_alignment, exact_match
from .model import Transformer
from .vocab import PAD, Vocab

VALIDATION_SEED = 7  # held-out strings watched during training (the final report uses data.TEST_SEED)
QUICK_CHECK = 200    # held-out strings a --seconds run checks before it checks them all
TARGET_CHECKS = 2    # checks in a row at the target that end a --seconds run: one can be a lucky swing


def learning_rate_factor(step: int, warmup: int, total: int) -> float:
    """Linear warm-up to 1, then cosine decay to 0.05."""
    if step < warmup:
        return (step + 1) / warmup
    progress = (step - warmup) / max(total - warmup, 1)
    return 0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * min(progress, 1.0)))


def training_step(model: Transformer, optimizer: torch.optim.Optimizer, schedule, batch: Batch,
                  clip: float) -> tuple[torch.Tensor, torch.Tensor]:
    """One update on one batch: cross-entropy over real target tokens (padding ignored), clipped gradients.
    Returns the loss and the logits (B, T, vocab) it came from."""
    model.train()
    logits = model(batch.src, batch.tgt_in).logits                            # (B, T, vocab)
    loss = F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    schedule.step()
    return loss, logits


def fit(model: Transformer, vocab: Vocab, stream: Iterator[str], *, steps: int, lr: float, warmup: int,
        batch_size: int, clip: float = 1.0, on_step: Callable[[int, torch.Tensor, torch.Tensor, Batch], None],
        keep_going: Callable[[], bool] = lambda: True, task: str = "reverse") -> int:
    """The one training loop, for the command line and the app's live runs: batches of similar lengths, AdamW,
    linear warm-up then cosine decay, cross-entropy on real tokens, clipped gradients. After each step, on_step(step, loss,
    logits, batch) records what its caller wants; keep_going() is asked before each step. Returns the
    number of steps done."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.98), weight_decay=0.01)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: learning_rate_factor(s, warmup, steps))
    done = 0
    batches = similar_lengths(stream, batch_size)
    for step in range(1, steps + 1):
        if not keep_going():
            break
        batch = make_batch(next(batches), vocab, model.config.max_len, task)
        loss, logits = training_step(model, optimizer, schedule, batch, clip)
        done = step
        on_step(step, loss, logits, batch)
    return done


class Watch:
    """What the learning curves and snapshots record: held-out loss, exact match, and how many output
    steps of the last decoder layer's best head put their largest cross-attention weight on the task's pattern."""

    def __init__(self, vocab: Vocab, validation: list[str], loss_n: int, task: str = "reverse") -> None:
        self.vocab, self.validation, self.task = vocab, validation, task
        self.loss_batch = validation[:loss_n]

    @torch.inference_mode()
    def measure(self, model: Transformer, n: int | None = None) -> dict:
        texts = self.validation[:n]
        batch = make_batch(self.loss_batch, self.vocab, model.config.max_len, self.task)
        logits = model(batch.src, batch.tgt_in).logits                        # (B, T, vocab)
        loss = F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten(), ignore_index=PAD)
        alignment = cross_attention_alignment(model, self.vocab, texts, task=self.task)[
            f"layer_{model.config.n_decoder_layers - 1}"]
        return {"loss": round(loss.item(), 5), "exact_match": exact_match(model, self.vocab, texts, task=self.task).exact_match,
                "alignment": max(alignment)}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    d = ModelConfig()
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", type=Path, required=True, help="checkpoint directory to write")
    p.add_argument("--task", default="reverse",
                   help="the rule the model learns, e.g. reverse, rotate:2, reverse|shift:1 (transformer.task_rules)")
    p.add_argument("--alphabet", default=LATIN, help="the characters its texts are drawn from, besides the space")
    p.add_argument("--lengths", help="the text lengths, e.g. 1-12 (default: 1 to --max-len)")
    p.add_argument("--seconds", type=float,
                   help="stop when held-out exact match reaches --target or after this many seconds; sizes and "
                        "recipe not given are chosen for the task")
    p.add_argument("--target", type=float, default=0.99, help="held-out exact match that ends a --seconds run")
    p.add_argument("--steps", type=int, default=None, help="steps of the schedule (default 8000; with --seconds, "
                                                            "the recipe's)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=None)
    p.add_argument("--lr", type=float, default=None)
    p.add_argument("--warmup", type=int, default=None)
    p.add_argument("--clip", type=float, default=1.0, help="gradient norm clip")
    p.add_argument("--d-model", type=int, default=None)
    p.add_argument("--heads", type=int, default=None)
    p.add_argument("--encoder-layers", type=int, default=None)
    p.add_argument("--decoder-layers", type=int, default=None)
    p.add_argument("--d-ff", type=int, default=None)
    p.add_argument("--dropout", type=float, default=d.dropout)
    p.add_argument("--max-len", type=int, default=d.max_len)
    p.add_argument("--eval-every", type=int, default=None, help="steps between held-out checks (default 500)")
    p.add_argument("--eval-n", type=int, default=1000, help="held-out strings for the periodic check")
    p.add_argument("--final-n", type=int, default=None, help="held-out strings for the final report (default "
                                                             "10000; with --seconds, 1000)")
    p.add_argument("--snapshots", default="0,0.01,0.02,0.05,0.1,0.2,0.35,0.5,1",
                   help="fractions of the run at which to save the weights, for the Training page ('' for none)")
    p.add_argument("--curve-every", type=int, default=100, help="steps between points of the learning curves")
    p.add_argument("--curve-n", type=int, default=200, help="held-out strings behind each curve point")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (1: two runs side by side on two cores do not fight over them)")
    args = p.parse_args(argv)
    try:
        args.spec = task_spec(args.task, args.alphabet, args.lengths or f"1-{args.max_len}")
    except TaskSpecError as err:
        p.error(str(err))
    args.task, args.max_len = args.spec.spec, args.spec.max_len
    chosen = recipe_for(args.spec) if args.seconds else Recipe.command_line()
    for name, value in chosen.as_args().items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    return args


def model_config(args: argparse.Namespace, vocab: Vocab) -> ModelConfig:
    spec: TaskSpec = args.spec
    factor = spec.rule.length_factor
    return ModelConfig(
        vocab_size=vocab.size, d_model=args.d_model, n_heads=args.heads, n_encoder_layers=args.encoder_layers,
        n_decoder_layers=args.decoder_layers, d_ff=args.d_ff, dropout=args.dropout, max_len=spec.max_len,
        max_positions=max(ModelConfig().max_positions, factor * spec.max_len + 1), output_factor=factor,
    )


def train(args: argparse.Namespace) -> dict:
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    spec: TaskSpec = args.spec
    vocab = Vocab(spec.characters)
    config = model_config(args, vocab)
    model = Transformer(config)
    stream = training_stream(args.seed, config.max_len, args.task, vocab.letters, spec.min_len)
    validation = sample_strings(args.eval_n, VALIDATION_SEED, config.max_len, held_out=True, min_len=spec.min_len,
                                letters=vocab.letters)
    history = []
    watch = Watch(vocab, validation, args.curve_n, args.task)
    snapshot_steps = sorted({round(float(f) * args.steps) for f in args.snapshots.split(",") if f.strip()})
    snapshots, curve = [], []
    recording = [0.0]  # seconds spent recording, kept out of the training time

    def record(step: int) -> None:
        """Points of the learning curves, and the weights at the snapshot steps. No random numbers are
        drawn here, so recording never changes the weights training produces."""
        began = time.perf_counter()
        model.eval()
        if step % args.curve_every == 0 or step == args.steps:
            curve.append({"step": step, **watch.measure(model, args.curve_n)})
        if step in snapshot_steps:
            checkpoint.save_snapshot(model, args.out, step)
            snapshots.append({"step": step, "fraction": round(step / args.steps, 4), **watch.measure(model)})
        model.train()
        recording[0] += time.perf_counter() - began

    shutil.rmtree(Path(args.out) / checkpoint.SNAPSHOTS, ignore_errors=True)  # none left from an older run
    start = time.perf_counter()
    record(0)
    bar = tqdm(total=args.steps, disable=args.quiet, file=sys.stderr, desc="training")

    reached: dict = {}   # the step where a --seconds run met its target twice in a row, and when
    met = [0]            # checks in a row at or above the target

    def check(step: int) -> float:
        """Held-out exact match. A --seconds run checks a fifth of the strings first and the rest only when that
        fifth meets the target, so checking often costs little."""
        if args.seconds:
            quick = exact_match(model, vocab, validation[:QUICK_CHECK], task=args.task).exact_match
            if quick < args.target:
                return quick
        return exact_match(model, vocab, validation, task=args.task).exact_match

    def after_step(step: int, loss: torch.Tensor, logits: torch.Tensor, batch: Batch) -> None:
        real = batch.tgt_out != PAD
        token_accuracy = ((logits.argmax(-1) == batch.tgt_out) & real).sum() / real.sum()
        bar.update(1)
        bar.set_postfix(loss=f"{loss.item():.4f}", tok_acc=f"{token_accuracy.item():.4f}")
        if step == 1 or step % args.eval_every == 0 or step == args.steps:
            model.eval()
            em = check(step)
            seconds = time.perf_counter() - start
            history.append({"step": step, "loss": round(loss.item(), 5), "exact_match": em,
                            "seconds": round(seconds, 1)})
            bar.write(f"step {step}: loss {loss.item():.4f}, held-out exact match {em:.4f}")
            met[0] = met[0] + 1 if em >= args.target else 0
            if args.seconds and met[0] >= TARGET_CHECKS and not reached:
                reached.update(step=step, seconds=round(seconds, 1), exact_match=em)
        record(step)

    def keep_going() -> bool:
        return not reached and (not args.seconds or time.perf_counter() - start < args.seconds)

    done = fit(model, vocab, stream, steps=args.steps, lr=args.lr, warmup=args.warmup, batch_size=args.batch_size,
               clip=args.clip, on_step=after_step, keep_going=keep_going, task=args.task)
    bar.close()
    if done and done not in snapshot_steps and snapshot_steps:   # a run stopped early keeps its last weights
        snapshot_steps.append(done)
        began = time.perf_counter()
        checkpoint.save_snapshot(model.eval(), args.out, done)
        snapshots.append({"step": done, "fraction": round(done / args.steps, 4), **watch.measure(model)})
        recording[0] += time.perf_counter() - began
    train_seconds = time.perf_counter() - start - recording[0]
    model.eval()
    test = held_out_strings(args.final_n, config.max_len, min_len=spec.min_len, letters=vocab.letters)
    report = exact_match(model, vocab, test, task=args.task)
    metrics = {
        "task": f"{args.task}: random strings of {vocab.letters} and single spaces, lengths {spec.min_len} to "
                f"{spec.max_len}",
        "steps": args.steps,
        "steps_done": done,
        "batch_size": args.batch_size,
        "seed": args.seed,
        "train_seconds": round(train_seconds, 1),
        "recording_seconds": round(recording[0], 1),  # curves and snapshots, measured apart from training
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "torch": torch.__version__,
                    "threads": torch.get_num_threads()},
        "parameters": model.n_parameters(),
        "held_out": {"n": report.n, "seed": "data.TEST_SEED",
                     "exact_match": report.exact_match, "per_length": report.per_length},
        "cross_attention_alignment": cross_attention_alignment(model, vocab, test, task=args.task),
        "history": history,
        "curve": curve,
        "command": "python -m transformer.train " + " ".join(sys.argv[1:]),
    }
    if args.seconds:
        metrics["settings"] = {"seconds": args.seconds, "target": args.target, "reached_step": reached.get("step"),
                               "reached_seconds": reached.get("seconds")}
    checkpoint.save(model, vocab, args.out, metrics, task=args.task, min_len=spec.min_len)
    if snapshots:
        checkpoint.write_snapshot_index(args.out, snapshots)
    return metrics


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    metrics = train(args)
    held = metrics["held_out"]
    print(f"wrote {args.out}: {metrics['train_seconds']} s of training, "
          f"held-out exact match {held['exact_match']:.4%} on {held['n']} strings, "
          f"worst length {min(held['per_length'].values()):.4%}")
    print(f"cross-attention alignment (share of steps on the {args.task} pattern):")
    for layer, shares in metrics["cross_attention_alignment"].items():
        print(f"  {layer}: {shares}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
