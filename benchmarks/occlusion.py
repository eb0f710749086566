"""Occlusion on the bundled reverser: does occluding the character a step copies move that step more than
occluding any other? Over the lab's 200 held-out words, every replacement letter, as Why this character? does.

    python -m benchmarks.occlusion

Prints, over all steps and over the steps whose copied character (n − 1 − i) is the only one of its letter in
its word, how often the copied character's occlusion is the largest, the words where that holds at every such
step, and the seconds it took.
"""

from __future__ import annotations

import time

import numpy as np

from analysis.attribution import occlusion
from analysis.run import make_run
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import held_out_strings


def main() -> None:
    ck = load(bundled_checkpoint("reverse"))
    start = time.perf_counter()
    steps = most = unique_steps = unique_most = whole_words = 0
    words = held_out_strings(200, ck.model.config.max_len)
    for word in words:
        occluded = occlusion(ck.model, ck.vocab, make_run(ck.model, ck.vocab, word))
        n, every = len(word), True
        for t in range(n):
            copied = n - 1 - t
            largest = n == 1 or bool(occluded[t, copied] > np.delete(occluded[t], copied).max())
            steps, most = steps + 1, most + largest
            if word.count(word[copied]) == 1:
                unique_steps, unique_most = unique_steps + 1, unique_most + largest
                every &= largest
        whole_words += every
    print(f"all steps: copied character's occlusion the largest at {most} of {steps} ({most / steps:.1%})")
    print(f"steps whose copied letter is unique in its word: {unique_most} of {unique_steps} "
          f"({unique_most / unique_steps:.1%}); words where it holds at every such step: {whole_words} of "
          f"{len(words)}; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
