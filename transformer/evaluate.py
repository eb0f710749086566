"""Score a checkpoint: exact match per whole word on held-out strings or on a file of words.

    python -m transformer.evaluate [CHECKPOINT | --task copy] [--n 10000] [--words FILE] [--json]

With no checkpoint, the bundled one of --task (default reverse). A checkpoint is scored on the task its
config.json names, on held-out strings of its own alphabet and lengths; a --task that differs is refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from .checkpoint import CheckpointError, bundled_checkpoint, load
from .data import TASKS, held_out_strings
from .metrics import exact_match
from .task_rules import TaskSpecError, parse_rule
from .vocab import InputError, Vocab

def read_words(path: Path, vocab: Vocab, max_len: int) -> tuple[list[str], list[str]]:
    """Words from a file, one a line, lowercased; those the model cannot take are returned apart."""
    usable, skipped = [], []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        word = line.strip().lower()
        if not word:
            continue
        try:
            vocab.check(word, max_len)
            usable.append(word)
        except InputError:
            skipped.append(word)
    return usable, skipped


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("checkpoint", type=Path, nargs="?", help="default: the bundled checkpoint of --task")
    parser.add_argument("--n", type=int, default=10_000, help="held-out strings to score (default 10000)")
    parser.add_argument("--words", type=Path, help="score the words of this file instead (one per line)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--task", help="the task to score (refused unless it is the one the checkpoint was trained "
                                       "for); with no checkpoint, one of " + ", ".join(TASKS))
    args = parser.parse_args(argv)
    try:
        args.task = args.task and parse_rule(args.task).spec
    except TaskSpecError as err:
        print(f"error: --task: {err}", file=sys.stderr)
        return 2
    if not args.checkpoint and args.task and args.task not in TASKS:
        print(f"error: no checkpoint is bundled for {args.task}; name the checkpoint directory", file=sys.stderr)
        return 2
    args.checkpoint = args.checkpoint or bundled_checkpoint(args.task or "reverse")
    try:
        ckpt = load(args.checkpoint)
    except CheckpointError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.task and args.task != ckpt.task:
        print(f"error: {args.checkpoint} was trained to {ckpt.task} (its config.json says so); it is not scored "
              f"on {args.task}", file=sys.stderr)
        return 2
    model, vocab = ckpt.model, ckpt.vocab
    skipped: list[str] = []
    if args.words:
        if not args.words.is_file():
            print(f"error: {args.words}: file not found", file=sys.stderr)
            return 2
        texts, skipped = read_words(args.words, vocab, model.config.max_len)
    else:
        texts = held_out_strings(args.n, model.config.max_len, min_len=ckpt.min_len, letters=vocab.letters)
    report = (asdict(exact_match(model, vocab, texts, task=ckpt.task)) if texts else
              {"exact_match": 0.0, "n": 0, "per_length": {}})
    report["skipped"], report["task"] = len(skipped), ckpt.task
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"task {ckpt.task}: exact match {report['exact_match']:.4%} on {report['n']} words ({len(skipped)} skipped)")
    for length, value in report["per_length"].items():
        print(f"  length {length:>3}: {value:.4%}")
    if skipped:
        print(f"skipped (outside {vocab.letters} and single spaces, or too long): " + ", ".join(skipped[:20]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
