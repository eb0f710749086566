"""Why this character?'s lenses on a new text: what its first view computes, the ways before and now side by side.

    python -m benchmarks.lenses [--length 48] [--texts 8] [--repeats 3]

On the bundled reverser, over random texts of one length, medians of interleaved runs (one torch thread, as the
server sets it) of:
- gradient × input: Captum's InputXGradient over T copies of the text (before) against one forward pass and T
  backward passes batched by autograd (`analysis.attribution.gradient_x_input`, now), and the largest difference
  between the two;
- every lens of the first view (`analysis.attribution.lenses`: occlusion over five letters on both cores, the
  gradients beside it) with each way of computing gradient × input;
- each lens's agreement with occlusion (`analysis.attribution.agreement`), step by step in a Python loop (before)
  against every step at once (now), for five (T, S) lens rows of the shapes the page asks about (not exactly its
  five), and whether the two give the same figures.

Writes docs/records/lenses.json.
"""

from __future__ import annotations

import argparse
import random
from unittest import mock

import numpy as np
import torch

from analysis import attribution
from benchmarks.record import write_record
from analysis.run import make_run
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import random_string

from .common import interleaved_medians


def captum_gradient_x_input(model, run) -> np.ndarray:
    """(T, S) the way before: Captum's InputXGradient on T copies of the embeddings, one target step each."""
    from captum.attr import InputXGradient
    embeddings, forward = attribution._pieces(model, run)
    steps = len(run.chosen_ids)
    with torch.enable_grad():
        found = InputXGradient(forward).attribute(embeddings.expand(steps, -1, -1).clone().requires_grad_(),
                                                  target=list(range(steps)))
    return found.sum(-1).detach().numpy()


def agreement_step_by_step(lens: np.ndarray, occluded: np.ndarray) -> attribution.Agreement:
    """The way before: each step's row tested and cleaned on its own."""
    counted = [(a, b, attribution.without_noise(a), attribution.without_noise(b))
               for a, b in zip(lens, occluded) if attribution.varies(a) and attribution.varies(b)]
    counted = [c for c in counted if np.ptp(c[2]) > 0 and np.ptp(c[3]) > 0]
    if not counted:
        return attribution.Agreement(None, 0, None)
    rhos = attribution.spearman_rows(np.stack([c[2] for c in counted]), np.stack([c[3] for c in counted]))
    same = float(np.mean([int(a.argmax()) in attribution.tops(b) for a, b, _, _ in counted]))
    return attribution.Agreement(float(np.mean(rhos)), len(counted), same)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--length", type=int, default=48)
    parser.add_argument("--texts", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    torch.set_num_threads(1)
    ckpt = load(bundled_checkpoint("reverse"))
    model, vocab = ckpt.model, ckpt.vocab
    rng = random.Random(0)
    runs = [make_run(model, vocab, random_string(rng, args.length)) for _ in range(args.texts)]
    found = [attribution.lenses(model, vocab, run) for run in runs]
    difference = max(float(np.abs(captum_gradient_x_input(model, run) - attribution.gradient_x_input(model, run))
                           .max()) for run in runs)
    views = [[lens.attention[-1].mean(0), lens.influence[-1, 0], lens.grad_input, lens.rollout, lens.attention[0, 0]]
             for lens in found]
    same = all(agreement_step_by_step(row, lens.occlusion) == attribution.agreement(row, lens.occlusion)
               for rows, lens in zip(views, found) for row in rows)

    def each_text(work):
        return lambda: [work(run, lens, rows) for run, lens, rows in zip(runs, found, views)]

    def lenses_with(gradients):
        def work(run, lens, rows):
            with mock.patch.object(attribution, "gradient_x_input", gradients):
                attribution.lenses(model, vocab, run)
        return work

    medians = interleaved_medians({
        "grad before": each_text(lambda run, lens, rows: captum_gradient_x_input(model, run)),
        "grad now": each_text(lambda run, lens, rows: attribution.gradient_x_input(model, run)),
        "lenses before": each_text(lenses_with(captum_gradient_x_input)),
        "lenses now": each_text(lenses_with(attribution.gradient_x_input)),
        "agree before": each_text(lambda run, lens, rows: [agreement_step_by_step(r, lens.occlusion) for r in rows]),
        "agree now": each_text(lambda run, lens, rows: [attribution.agreement(r, lens.occlusion) for r in rows]),
    }, args.repeats, warmup=1)
    per_text = {name: seconds / args.texts * 1000 for name, seconds in medians.items()}
    print(f"{args.texts} random texts of {args.length} characters, bundled reverser, medians of {args.repeats} "
          "interleaved rounds, ms a text")
    rows = []
    for what, label in (("grad", "gradient × input"), ("lenses", "every lens of the first view"),
                        ("agree", "five agreements with occlusion")):
        before, now = per_text[f"{what} before"], per_text[f"{what} now"]
        print(f"  {label:<30} before {before:7.1f}   now {now:7.1f}   now/before {now / before:.2f}")
        rows.append({"what": label, "before ms a text": round(before, 1), "now ms a text": round(now, 1),
                     "now/before": round(now / before, 2)})
    print(f"  gradient × input, largest difference between the two ways: {difference:.1e}")
    print(f"  agreements the same both ways: {same}")
    write_record("lenses", {"texts": args.texts, "characters": args.length, "interleaved rounds": args.repeats,
                            "rows": rows,
                            "gradient × input, largest difference between the two ways": float(f"{difference:.1e}"),
                            "agreements the same both ways": same})


if __name__ == "__main__":
    main()
