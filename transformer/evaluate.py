"""Exact match per whole word (padding never counted) and how well cross-attention reads backwards.

    python -m transformer.evaluate checkpoints/word_reversal [--n 10000] [--words FILE] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import torch

from .checkpoint import CheckpointError, load
from .data import pad, sample_strings
from .decoding import greedy_batch
from .model import Transformer
from .vocab import PAD, SOS, InputError, Vocab

TEST_SEED = 20261121  # the held-out strings every report uses; training never draws them


def held_out_strings(n: int, max_len: int, seed: int = TEST_SEED) -> list[str]:
    return sample_strings(n, seed, max_len, held_out=True)


def exact_match(model: Transformer, vocab: Vocab, texts: list[str]) -> dict:
    """{'exact_match': fraction of whole words reversed exactly, 'n', 'per_length': {len: fraction}}."""
    sources = [vocab.encode(t, model.config.max_len) for t in texts]
    outputs = [vocab.decode(ids) for ids in greedy_batch(model, sources)]
    right, total = Counter(), Counter()
    for text, out in zip(texts, outputs):
        total[len(text)] += 1
        right[len(text)] += out == text[::-1]
    return {
        "exact_match": sum(right.values()) / max(len(texts), 1),
        "n": len(texts),
        "per_length": {str(n): right[n] / total[n] for n in sorted(total)},
    }


@torch.inference_mode()
def cross_attention_alignment(model: Transformer, vocab: Vocab, texts: list[str], batch_size: int = 1000) -> dict:
    """Per decoder layer and head: the share of output steps i whose largest cross-attention weight
    falls on source position n-1-i (the anti-diagonal). Runs on the model's own decoded tokens."""
    layers, heads = model.config.n_decoder_layers, model.config.n_heads
    hits = torch.zeros(layers, heads)
    steps = 0
    for start in range(0, len(texts), batch_size):
        chunk = texts[start:start + batch_size]
        sources = [vocab.encode(t, model.config.max_len) for t in chunk]
        src = pad(sources)                                                         # (B, S)
        decoded = greedy_batch(model, sources)
        width = max(len(d) for d in decoded) + 1
        tgt = torch.full((len(chunk), width), PAD, dtype=torch.long)  # (B, T) SOS + the model's own output
        tgt[:, 0] = SOS
        for i, d in enumerate(decoded):
            tgt[i, 1:len(d) + 1] = torch.tensor(d, dtype=torch.long)
        _, trace = model(src, tgt, trace=True)
        lengths = torch.tensor([len(t) for t in chunk])                           # (B,)
        s = src.size(1)
        t_steps = min(width, s)
        want = (lengths[:, None] - 1 - torch.arange(t_steps)[None, :])           # (B, T') source n-1-i
        valid = want >= 0                                                          # only real characters
        steps += int(valid.sum())
        for layer in range(layers):
            best = trace.cross[layer][:, :, :t_steps, :].argmax(-1)               # (B, H, T')
            hits[layer] += ((best == want[:, None, :]) & valid[:, None, :]).sum(dim=(0, 2)).float()
    share = hits / max(steps, 1)
    return {f"layer_{layer}": [round(float(x), 4) for x in share[layer]] for layer in range(layers)}


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
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--n", type=int, default=10_000, help="held-out strings to score (default 10000)")
    parser.add_argument("--words", type=Path, help="score the words of this file instead (one per line)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    try:
        ckpt = load(args.checkpoint)
    except CheckpointError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    model, vocab = ckpt.model, ckpt.vocab
    skipped: list[str] = []
    if args.words:
        if not args.words.is_file():
            print(f"error: {args.words}: file not found", file=sys.stderr)
            return 2
        texts, skipped = read_words(args.words, vocab, model.config.max_len)
    else:
        texts = held_out_strings(args.n, model.config.max_len)
    report = exact_match(model, vocab, texts) if texts else {"exact_match": 0.0, "n": 0, "per_length": {}}
    report["skipped"] = len(skipped)
    if args.json:
        print(json.dumps(report))
        return 0
    print(f"exact match {report['exact_match']:.4%} on {report['n']} words ({len(skipped)} skipped)")
    for length, value in report["per_length"].items():
        print(f"  length {length:>3}: {value:.4%}")
    if skipped:
        print("skipped (outside a-z and single spaces, or too long): " + ", ".join(skipped[:20]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
