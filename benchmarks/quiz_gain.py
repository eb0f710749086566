"""Scripted classes on the real quizzes: can the gain be had by chance, and how wide is a class's interval?

    python -m benchmarks.quiz_gain [--classes 200] [--quizzes 60]

On pairs of quizzes built on the bundled reverser (a seed per class), prints:
- classes answering at random on both quizzes (30 students): the mean gain, and the share of classes whose
  bootstrap 95 % interval contains 0;
- a class right on every "after" item: its gain and interval;
- the half-width of the interval for a class of 5, 10, 30 and 100 students whose "after" answers are right half
  the time and random otherwise (the median over the classes);
- every text-only answering rule of tests/unit/test_quiz.py on `--quizzes` seeds × 2 forms: the best rule's
  share right per item kind, beside that kind's chance.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import defaultdict

import numpy as np

from drivers.text_only import TEXT_ONLY_RULES, odd_one_out
from teaching.quiz import FORMS, Quiz, build_quiz, lab_head_costs
from teaching.quiz_results import class_gain
from transformer.checkpoint import bundled_checkpoint, load


def random_score(quiz: Quiz, rng: random.Random) -> float:
    return quiz.score([rng.choice(i.question.options) for i in quiz.items])


def half_right_score(quiz: Quiz, rng: random.Random) -> float:
    return quiz.score([i.question.answer if rng.random() < 0.5 else rng.choice(i.question.options)
                       for i in quiz.items])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--classes", type=int, default=200)
    parser.add_argument("--quizzes", type=int, default=60)
    args = parser.parse_args()
    ck = load(bundled_checkpoint("reverse"))
    costs = lab_head_costs(bundled_checkpoint("reverse"), ck.model, ck.vocab, "reverse")
    pairs = [{f: build_quiz(ck.model, ck.vocab, "reverse", seed, f, costs) for f in FORMS}
             for seed in range(args.quizzes)]
    rng = random.Random(0)

    gains, covered = [], 0
    for c in range(args.classes):
        pair = pairs[c % len(pairs)]
        result = class_gain([random_score(pair["before"], rng) for _ in range(30)],
                            [random_score(pair["after"], rng) for _ in range(30)], seed=c)
        gains.append(result.gain)
        covered += result.low <= 0 <= result.high
    print(f"random classes of 30, {args.classes} classes: mean gain {statistics.mean(gains):+.3f} "
          f"(sd {statistics.stdev(gains):.3f}); interval contains 0 in {covered / args.classes:.1%}")

    pair = pairs[0]
    perfect = class_gain([random_score(pair["before"], rng) for _ in range(30)], [1.0] * 30)
    print(f"a class right on every after item: gain {perfect.gain:.3f}, interval {perfect.low:.3f} to "
          f"{perfect.high:.3f}")

    for size in (5, 10, 30, 100):
        widths = []
        for c in range(args.classes // 4):
            pair = pairs[c % len(pairs)]
            result = class_gain([random_score(pair["before"], rng) for _ in range(size)],
                                [half_right_score(pair["after"], rng) for _ in range(size)], seed=c)
            widths.append(result.interval_width / 2)
        print(f"class of {size:3d} (after: half the answers known): median interval half-width "
              f"±{statistics.median(widths):.2f}")

    by_kind = defaultdict(list)
    for pair in pairs:
        for quiz in pair.values():
            for item in quiz.items:
                by_kind[item.kind].append(item.question)
    for kind, questions in by_kind.items():
        rates = {}
        for name, rule in TEXT_ONLY_RULES.items():
            chosen = [odd_one_out(q.options) if name.startswith("the odd") else rule(q.prompt, q.options)
                      for q in questions]
            rates[name] = float(np.mean([q.grade(q.options[i]) for q, i in zip(questions, chosen)]))
        best = max(rates, key=rates.get)
        chance = float(np.mean([1 / len(q.options) for q in questions]))
        print(f"text alone, {kind:13s} ({len(questions)} items): chance {chance:.2f}, best of "
              f"{len(rates)} rules {rates[best]:.2f} ('{best}')")


if __name__ == "__main__":
    main()
