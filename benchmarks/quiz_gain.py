"""Scripted classes on the real quizzes: can the gain be had by chance, and how wide is a class's interval?

    python -m benchmarks.quiz_gain [--classes 200] [--quizzes 60]

On pairs of quizzes built on the bundled reverser (a seed per class), prints:
- classes answering at random on both quizzes (30 students): the mean gain, and the share of classes whose
  bootstrap 95 % interval contains 0;
- a class right on every "after" item: its gain and interval;
- the half-width of the interval for a class of 5, 10, 30 and 100 students whose "after" answers are right half
  the time and random otherwise (the median over the classes);
- per item kind, the share of seeds whose two forms have the same answer (the right option in the same place,
  and the same option where the options are fixed), and where the before form's √d_k items fall against the one
  rule the two numbers on screen give (about the same iff the weight is within 0.05 of where it can go);
- every text-only answering rule of tests/unit/test_quiz.py on one form of each of `--quizzes` seeds: the best
  rule's share right per item kind, beside that kind's chance.

Writes docs/records/quiz_gain.json with the command, the date and the figures.
"""

from __future__ import annotations

import argparse
import random
import statistics
from collections import defaultdict

import numpy as np

from benchmarks.record import write_record
from drivers.text_only import TEXT_ONLY_RULES, odd_one_out
from teaching.quiz import CLOSE, FORMS, Quiz, build_quiz, lab_head_costs
from teaching.quiz_results import class_gain
from transformer.checkpoint import bundled_checkpoint, load


def random_score(quiz: Quiz, rng: random.Random) -> float:
    return quiz.score([rng.choice(i.question.options) for i in quiz.items])


def half_right_score(quiz: Quiz, rng: random.Random) -> float:
    return quiz.score([i.question.answer if rng.random() < 0.5 else rng.choice(i.question.options)
                       for i in quiz.items])


FIXED_OPTIONS = ("scaling", "head_off", "length")   # kinds whose options are the same on every string


def same_answer(before, after) -> bool:
    place = before.question.options.index(before.question.answer) == after.question.options.index(after.question.answer)
    return place and (before.kind not in FIXED_OPTIONS or before.question.answer == after.question.answer)


def decided_by_the_screen(item) -> bool:
    """The √d_k item's key against the rule its two numbers give: about the same iff the largest weight is within
    CLOSE of where the change can take it (1 when not divided, 1/n when divided by d_k)."""
    now = float(item.question.prompt.split("largest weight is ")[1].split(" ")[0])
    limit = 1.0 if item.setting["factor"] > 1 else 1 / len(item.text)
    said = item.question.options[1] if abs(limit - now) <= CLOSE else item.question.options[
        0 if item.setting["factor"] > 1 else 2]
    return item.question.grade(said)


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

    record = {"random classes of 30": {"mean gain": round(statistics.mean(gains), 3),
                                        "interval contains 0": round(covered / args.classes, 3)}}
    parallel = defaultdict(list)
    for pair in pairs:
        for before, after in zip(pair["before"].items, pair["after"].items):
            parallel[before.kind].append(same_answer(before, after))
    record["same answer on both forms"] = {}
    for kind, same in parallel.items():
        print(f"both forms, {kind:13s}: same answer in {sum(same)} of {len(same)} seeds")
        record["same answer on both forms"][kind] = f"{sum(same)} of {len(same)}"
    scaling = [i for pair in pairs for i in pair["before"].items if i.kind == "scaling"]
    decided = sum(decided_by_the_screen(i) for i in scaling)
    print(f"√d_k items the two numbers on screen decide: {decided} of {len(scaling)}")
    record["√d_k items decided by the screen"] = f"{decided} of {len(scaling)}"

    by_kind = defaultdict(list)
    for seed, pair in enumerate(pairs):     # one form per seed: a seed's two forms share their answers' places
        for item in pair[FORMS[seed % 2]].items:
            by_kind[item.kind].append(item.question)
    record["text alone, best rule"] = {}
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
        record["text alone, best rule"][kind] = {"chance": round(chance, 2), "best": round(rates[best], 2),
                                                 "rule": best}
    write_record("quiz_gain", record)


if __name__ == "__main__":
    main()
