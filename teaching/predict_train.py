"""Predict, then train, as a class: the page model of class mode's step after the lesson. The teacher sets a
task; the class votes on which positions the last layer's cross-attention will read once a model has learnt it
(analysis.prediction's options); the teacher's session trains that model while every screen follows its run;
the reveal is the pattern the trained model follows, measured, beside the vote.

The class's row keeps the task and the run as JSON text (classroom.store: task, training), so every replica
draws the same run; this module writes and reads that text, and reads a malformed one as none."""

from __future__ import annotations

import json
from dataclasses import dataclass

from analysis.prediction import TIE, Followed, PatternOption, pattern_options
from analysis.tasks import words
from transformer.task_rules import LATIN, TaskSpec, task_spec

from .questions import Question

DEFAULT_LENGTHS = "2-6"
CURVE_POINTS = 60   # of the training loss, as the screens draw it


@dataclass(frozen=True)
class ClassTask:
    """The task a class is asked about, as its row keeps it."""
    rule: str
    alphabet: str = LATIN
    lengths: str = DEFAULT_LENGTHS

    @property
    def spec(self) -> TaskSpec:
        return task_spec(self.rule, self.alphabet, self.lengths)

    def to_text(self) -> str:
        return json.dumps({"rule": self.rule, "alphabet": self.alphabet, "lengths": self.lengths},
                          ensure_ascii=False)

    @classmethod
    def of(cls, spec: TaskSpec) -> ClassTask:
        return cls(spec.spec, spec.alphabet, f"{spec.min_len}-{spec.max_len}")

    @classmethod
    def from_text(cls, text: str | None) -> ClassTask | None:
        try:
            data = json.loads(text or "")
            return cls(str(data["rule"]), str(data["alphabet"]), str(data["lengths"]))
        except (ValueError, KeyError, TypeError):
            return None


@dataclass(frozen=True)
class Run:
    """The class's model's run, as every screen draws it."""
    status: str                                  # training, finished (all steps, or its target), stopped, failed
    step: int
    steps: int
    seconds: float
    loss: tuple[tuple[int, float], ...]          # (step, training loss), thinned to CURVE_POINTS
    exact: tuple[tuple[int, float], ...]         # (step, held-out exact match) at each check during the run
    message: str = ""
    followed: dict | None = None                 # once trained: Followed's numbers (shares, heads, steps, ...)
    time_limit: float = 60.0                     # seconds the run may take (the quick recipe's)
    final: float | None = None                   # exact match on final_n held-out texts, at its last step
    final_n: int = 0

    @property
    def done(self) -> bool:
        return self.status != "training"

    @property
    def fraction(self) -> float:
        """How far it is, by steps or by time, whichever ends it first."""
        return 1.0 if self.done else min(1.0, max(self.step / max(self.steps, 1), self.seconds / self.time_limit))

    @property
    def ended(self) -> str:
        """How it ended, in words: 'Trained' only when it reached its target or its last step."""
        head = "Trained" if self.status == "finished" else "Stopped at the time limit"
        said = f"**{head}**: step {self.step:,} of {self.steps:,}, {self.seconds:.0f} s"
        if self.final is not None:
            said += f"; exact match on {self.final_n} held-out texts at the end: **{self.final:.0%}**"
        return said + "."

    @property
    def ended_short(self) -> str:
        """The same for the room's screen, where it shares a half-width column at 28-px type with the curve."""
        head = "Trained" if self.status == "finished" else "Stopped at the time limit"
        right = "" if self.final is None else f", {self.final:.0%} of {self.final_n} texts right"
        return f"**{head}**: step {self.step:,} of {self.steps:,}{right}."

    def to_text(self) -> str:
        return json.dumps({"status": self.status, "step": self.step, "steps": self.steps,
                           "seconds": round(self.seconds, 1), "loss": self.loss, "exact": self.exact,
                           "message": self.message, "followed": self.followed, "time_limit": self.time_limit,
                           "final": self.final, "final_n": self.final_n}, ensure_ascii=False)

    @classmethod
    def from_text(cls, text: str | None) -> Run | None:
        try:
            d = json.loads(text or "")
            final = d.get("final")
            return cls(str(d["status"]), int(d["step"]), int(d["steps"]), float(d["seconds"]),
                       tuple((int(s), float(v)) for s, v in d["loss"]), tuple((int(s), float(v)) for s, v in d["exact"]),
                       str(d.get("message", "")), d.get("followed"), float(d.get("time_limit", 60.0)),
                       None if final is None else float(final), int(d.get("final_n", 0)))
        except (ValueError, KeyError, TypeError, AttributeError):   # AttributeError: JSON that is not an object
            return None


def run_status(training: str | None) -> str:
    """What a screen's full redraw depends on, of the class's run: whether there is one, its end, its measure."""
    run = Run.from_text(training)
    return "" if run is None else f"{run.status}:{bool(run.followed)}"


def thinned(points: tuple[tuple[int, float], ...], most: int = CURVE_POINTS) -> tuple[tuple[int, float], ...]:
    """At most `most` of the points, evenly spread, the last one kept."""
    if len(points) <= most:
        return tuple(points)
    picked = [points[round(i * (len(points) - 1) / (most - 1))] for i in range(most)]
    return tuple(picked)


def followed_numbers(found: Followed) -> dict:
    """What the class's row keeps of the measurement: enough to grade, explain and draw it on any replica."""
    return {"shares": found.shares, "heads": found.heads, "steps": found.steps, "texts": found.texts,
            "interval": list(found.interval),
            "weights": [[round(float(w), 3) for w in row] for row in found.weights], "rows": found.rows,
            "cols": found.cols}


def example_matches(weights: list[list[float]], positions: tuple[int, ...]) -> tuple[int, int]:
    """(steps whose largest weight on the example text is on the option's position, steps with a position):
    the heatmap's own count, so its caption says what the picture shows."""
    rows = min(len(weights), len(positions))
    hits = sum(max(range(len(weights[i])), key=weights[i].__getitem__) == positions[i] for i in range(rows))
    return hits, rows


@dataclass(frozen=True)
class Prediction:
    """The question before the run: the options, each a list of source positions on the example text."""
    task: ClassTask
    text: str
    patterns: tuple[PatternOption, ...]
    prompt: str

    @property
    def options(self) -> tuple[str, ...]:
        """What the class votes among (as a Question's options): each pattern's positions."""
        return tuple(o.label for o in self.patterns)

    def measured(self, run: Run, label: str) -> tuple[float, int]:
        """An option's measured share of the steps, and the head that follows it best."""
        rule = next(o.rule for o in self.patterns if o.label == label)
        return run.followed["shares"].get(rule, 0.0), run.followed["heads"].get(rule, 0)

    def share_of(self, run: Run, label: str) -> str:
        """The same in words ("88%, head 1")."""
        share, head = self.measured(run, label)
        return f"{share:.0%}, head {head}"

    def question(self, run: Run | None) -> Question | None:
        """The question graded by the trained model (None until its run has measured what it follows)."""
        if run is None or not run.followed:
            return None
        shares = run.followed["shares"]
        best = max(shares.values())
        right = frozenset(o.label for o in self.patterns if shares.get(o.rule, 0.0) >= best - TIE)
        low, high = run.followed["interval"]
        listed = "; ".join(f"{o.label}: {self.share_of(run, o.label)}" for o in self.patterns)
        own = next(o for o in self.patterns if o.rule == self.task.rule)
        said = (f"On {run.followed['texts']} held-out texts of the task, the share of output steps whose largest "
                f"weight, in the last layer's head that follows it best, is on each option's positions: {listed}. "
                "Options agree at some steps, so the shares need not add to 100 %. " + (
                    f"Drawing the texts again 2,000 times, the best share's 95 % interval is {low:.0%} to {high:.0%}."
                    if high - low >= 0.005 else
                    f"The best share is the same on every text, so drawing the texts again gives {low:.0%} each "
                    "time."))
        if own.label in right:
            said += (f" So a head of its last layer puts its largest weight where the task says each character "
                     f"comes from ({own.label}: {self.share_of(run, own.label)}).")
        else:
            said += (f" The task's own map, {own.label}, is not the one a head of its last layer follows most "
                     f"({self.share_of(run, own.label)}): where a head looks need not be where the character it "
                     "writes comes from.")
        if run.final is not None:
            said += (f" At the end of its run ({run.step:,} steps, {run.seconds:.0f} s"
                     f"{'' if run.status == 'finished' else ', stopped at the time limit'}) it wrote "
                     f"{run.final:.0%} of {run.final_n} held-out texts exactly right.")
        return Question("choice", self.prompt, self.options, right,
                        "Look at where each output character of the task comes from, step by step.", said)


def prediction(task: ClassTask) -> Prediction:
    """TaskSpecError (NoQuestionError among them) when the task cannot be asked about."""
    spec = task.spec
    text, options = pattern_options(spec)
    w = words(spec.spec)
    numbered = " ".join(f"{c}{i}" for i, c in enumerate(text.replace(" ", "␣")))
    prompt = (f"The task: {w.verb} ({spec.spec}), on texts of {spec.min_len} to {spec.max_len} characters. A small "
              f"model learns it in a minute, once you have voted. Then, reading “{text}” ({numbered}), which source "
              "position will a head of its last layer's cross-attention look at most, at each output step? Each "
              "answer lists the positions, step by step.")
    return Prediction(task, text, options, prompt)
