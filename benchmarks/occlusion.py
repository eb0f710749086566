"""Occlusion on the bundled reverser: does occluding the character a step copies move that step more than
occluding any other? Over the lab's 200 held-out words, with both ways Why this character? swaps: five letters
spread over the alphabet (its first view) and every other letter (on request).

    python -m benchmarks.occlusion

Prints, for each, over all steps and over the steps whose copied character (n − 1 − i) is the only one of its
letter in its word, how often the copied character's occlusion is the largest, the words where that holds at
every such step, and the seconds it took; then how often the two put their largest value on the same position;
and, as lesson step 11 asks, how often the last cross layer's largest weight (heads averaged) is not among the
five-letter occlusion's largest (within 0.001), by length of word.

Writes docs/records/occlusion.json.
"""

from __future__ import annotations

import time

import numpy as np

from analysis.attribution import QUICK_COUNT, QUICK_LETTERS, occlusion, tops, varies
from analysis.run import make_run
from benchmarks.record import write_record
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import held_out_strings


def copied_moves_most(ck, runs, swaps: dict) -> tuple[list[np.ndarray], dict]:
    """Prints the figures for one way of swapping; returns each word's (T, S) occlusion, and the figures."""
    start = time.perf_counter()
    steps = most = unique_steps = unique_most = whole_words = 0
    found = []
    for run in runs:
        word = run.text
        occluded = occlusion(ck.model, ck.vocab, run, **swaps)
        found.append(occluded)
        n, every = len(word), True
        for t in range(n):
            copied = n - 1 - t
            largest = n == 1 or bool(occluded[t, copied] > np.delete(occluded[t], copied).max())
            steps, most = steps + 1, most + largest
            if word.count(word[copied]) == 1:
                unique_steps, unique_most = unique_steps + 1, unique_most + largest
                every &= largest
        whole_words += every
    seconds = time.perf_counter() - start
    print(f"  all steps: copied character's occlusion the largest at {most} of {steps} ({most / steps:.1%})")
    print(f"  steps whose copied letter is unique in its word: {unique_most} of {unique_steps} "
          f"({unique_most / unique_steps:.1%}); words where it holds at every such step: {whole_words} of "
          f"{len(runs)}; {seconds:.0f} s")
    return found, {"steps": steps, "copied character's occlusion the largest": most, "share": round(most / steps, 3),
                   "steps whose copied letter is unique": unique_steps, "of those, the largest": unique_most,
                   "share of those": round(unique_most / unique_steps, 3), "words": len(runs),
                   "words where it holds at every such step": whole_words, "s": round(seconds)}


def main() -> None:
    ck = load(bundled_checkpoint("reverse"))
    runs = [make_run(ck.model, ck.vocab, word) for word in held_out_strings(200, ck.model.config.max_len)]
    print(f"{QUICK_COUNT} letters of {QUICK_LETTERS} (the page's first view):")
    quick, quick_figures = copied_moves_most(ck, runs, dict(letters=QUICK_LETTERS, most=QUICK_COUNT))
    print("every other letter:")
    every, every_figures = copied_moves_most(ck, runs, {})
    rows = [{"swaps": f"{QUICK_COUNT} letters of {QUICK_LETTERS} (the page's first view)", **quick_figures},
            {"swaps": "every other letter", **every_figures}]
    same = [a.argmax() == b.argmax() for q, e in zip(quick, every) for a, b in zip(q, e) if varies(a) and varies(b)]
    print(f"the two put their largest value on the same position at {sum(same)} of the {len(same)} steps where "
          "both vary")
    print("the last cross layer's largest weight (heads averaged) off the five-letter occlusion's largest:")
    off = []
    for low, high in ((1, 12), (13, 24), (25, 48)):
        parted = written = 0
        for run, occluded in zip(runs, quick):
            if low <= len(run.text) <= high:
                looked = run.trace["cross", run.trace.n_layers("cross") - 1].mean(0).argmax(-1)     # (T,)
                for t in range(len(run.text)):
                    if varies(occluded[t]):
                        written += 1
                        parted += int(looked[t]) not in tops(occluded[t])
        print(f"  words of {low}–{high} characters: {parted} of {written} steps")
        off.append({"words of": f"{low}–{high} characters", "steps": written, "off": parted})
    write_record("occlusion", {
        "rows": rows,
        "the two's largest value on the same position": {"steps where both vary": len(same),
                                                         "same position": int(sum(same))},
        "the last cross layer's largest weight (heads averaged) off the five-letter occlusion's largest": off})


if __name__ == "__main__":
    main()
