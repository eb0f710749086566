"""Training: the model at the snapshots of its own training run, and a small model trained live.

The snapshot part is one record (training_view). A live run's progress has its own (live_view), because the
page draws it in a fragment that reruns alone twice a second while the run trains."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping, Protocol

import numpy as np
import pandas as pd

from transformer.checkpoint import MAX_UPLOAD_BYTES, Checkpoint

from ..labels import reads_writes
from ..lesson import pattern_shares
from ..offsets import OffsetFit, offset_label
from ..run import Run
from ..tasks import words
from ..training import HeadShare, TrainingStory, head_shares, snapshot_chance, training_story

__all__ = ["MAX_UPLOAD_MB", "QUICK_CAPTION", "QUICK_SECONDS", "SIZINGS", "LiveView", "TrainingView", "live_download_name",
           "live_view", "snapshot_steps", "training_view"]

MAX_UPLOAD_MB = MAX_UPLOAD_BYTES // 2**20   # the uploader's limit, as its label states it
SHARP = 0.9                                  # "the pattern is there": this share of output steps on it


def snapshot_steps(saved: list[dict]) -> list[int]:
    """The training steps the snapshots were saved at: the slider's options, in order."""
    return [s["step"] for s in saved]


@dataclass(frozen=True)
class TrainingView:
    """The learner's text at one snapshot, and what the run's snapshots say. L decoder layers, H heads,
    T decoder positions, S source positions."""

    story: str                      # when the text first comes out right against when the pattern takes over
    steps: list[int]                # the snapshots' steps
    step: int                       # the chosen one
    step_caption: str
    run: Run                        # the snapshot's run on the text
    wrong: str                      # what the answer metric says when the output is not the target
    loss: float                     # held-out, at the chosen snapshot
    loss_help: str
    exact_match: float
    pattern_label: str
    alignment: float                # of the last layer's best head, on held-out words
    pattern_help: str
    curve: list[dict]               # the whole run's learning curve (the snapshots when the report has none)
    pattern: str
    rule: str
    vocab_size: int
    loss_caption: str
    cross: np.ndarray               # (L, H, T, S) the snapshot's cross-attention on the text
    rows: list[str]                 # (T,) what each decoder position reads → writes
    source: list[str]               # (S,)
    grid_title: str
    grid_caption: str
    every_head: str | None          # the final model's every cross head, in words (None: its report has none)
    head_table: pd.DataFrame | None # (layers, heads) the same shares


def training_view(ckpt: Checkpoint, text: str, saved: list[dict], step: int, right: Mapping[int, bool],
                  run_at: Callable[[int], Run], fits: list[OffsetFit] | None = None) -> TrainingView:
    """`saved` is the checkpoint's snapshot index (not empty), `right` whether each snapshot writes the task's
    answer for the text, `run_at` a snapshot's traced run on the text: it is asked for the chosen step and for
    the first one that writes the text right, and no other (the page gets them from the cache). `fits`: the
    final model's cross heads against their pattern's offsets, where the page has them (None: not named)."""
    config, task = ckpt.model.config, words(ckpt.task)
    steps = snapshot_steps(saved)
    shot = next(s for s in saved if s["step"] == step)
    last_layer = config.n_decoder_layers - 1
    vocab_size = config.vocab_size

    story = training_story(saved, {s: right[s] for s in steps})
    right_at = story.first_right
    on_text = None if right_at is None else pattern_shares(run_at(right_at["step"]), last_layer)   # (H,)

    run = run_at(step)
    chance = snapshot_chance(config.max_len, ckpt.task, ckpt.vocab.letters, ckpt.min_len)
    curve = ckpt.metrics.get("curve") or saved
    every_head = head_shares(ckpt.metrics)
    return TrainingView(
        story=story_text(story, task.pattern, on_text), steps=steps, step=step,
        step_caption=f"Step {step:,}: {shot.get('fraction', 0):.0%} of the run.",
        run=run, wrong="not yet" if step < steps[-1] else "not exactly {output}",
        loss=shot["loss"],
        loss_help=f"Cross-entropy: the mean of −log p(the correct next token) over the output steps of held-out "
                  f"words. A model guessing uniformly over the {vocab_size} tokens scores ln {vocab_size} = "
                  f"{math.log(vocab_size):.2f}; a perfect one 0.",
        exact_match=shot["exact_match"], pattern_label=f"Output steps on {task.pattern}", alignment=shot["alignment"],
        pattern_help="Of the last decoder layer's best head (the other layers are not counted), on held-out words: "
                     f"the share of output steps i whose largest cross-attention weight falls on {task.reads}. "
                     "A head whose largest weight fell on a random source position would score about "
                     f"{chance.share:.1%} here: the figure pools {chance.steps:,} output steps of {chance.words:,} "
                     "held-out words, so it is not 1/n of one word. "
                     f"The untrained snapshot scores {saved[0]['alignment']:.1%}.",
        curve=curve, pattern=task.pattern, rule=task.short_rule, vocab_size=vocab_size,
        loss_caption=loss_caption(curve[0], vocab_size),
        cross=run.trace.stack_attention("cross"), rows=reads_writes(run.decoder_in, run.decoder_out),
        source=run.source, grid_title=f"Cross-attention of every layer and head after {step:,} steps",
        grid_caption=grid_caption(saved, task.pattern),
        every_head=every_head_text(every_head, task.pattern, last_layer, ckpt.metrics.get("held_out", {}).get("n"),
                                   fits, ckpt.task) if every_head else None,
        head_table=head_table(every_head) if every_head else None)


def story_text(story: TrainingStory, pattern: str, on_text: np.ndarray | None) -> str:
    """When the learner's text first comes out right against when most held-out steps are on the pattern, in
    words that follow the numbers. on_text: (H,) the last layer's shares on the text at that first right step."""
    right, most, last = story.first_right, story.first_most, story.last
    if right is None:
        said = "No snapshot writes your text exactly right."
    else:
        said = (f"Your text first comes out right at step **{right['step']:,}** ({right['fraction']:.0%} of the run). "
                f"There, **{right['alignment']:.1%}** of held-out output steps have the last layer's best head on "
                f"{pattern} (held-out exact match {right['exact_match']:.1%}), and on your text the last layer's "
                "heads put their largest weight on it in " + ", ".join(f"{x:.0%}" for x in on_text)
                + " of its steps.")
    said += (f" No snapshot has most output steps (more than half) on {pattern}." if most is None else
             f" Most held-out steps are on {pattern} first at step **{most['step']:,}** ({most['alignment']:.1%}).")
    if story.output_first:
        said += f" So the output is right before most steps are on {pattern}."
        if on_text.max() < 1:
            said += (f" No last-layer head is on {pattern} at every step of your text, yet the model writes it "
                     "right: the right output does not wait for a sharp pattern in the last layer.")
    elif right is not None and most is not None and most["step"] == right["step"]:
        said += " Both happen at the same saved step, so these snapshots cannot say which comes first."
    elif right is not None:
        said += f" Here {pattern} comes first, and your text comes out right after it."
    return said + (f" At the end (step {last['step']:,}): exact match {last['exact_match']:.1%}, "
                   f"{last['alignment']:.1%} of output steps on {pattern}.")


def loss_caption(start: dict, vocab_size: int) -> str:
    """Step 0's loss against the uniform guess, in the words its side of the line calls for."""
    uniform = math.log(vocab_size)
    said = (f"Dashed line: a uniform guess over the {vocab_size} tokens, ln {vocab_size} = {uniform:.2f}. At step "
            f"{start['step']:,} the held-out loss is {start['loss']:.2f}, ")
    if start["loss"] > uniform:
        return said + ("above it: at first the model does worse than guessing evenly. Its random starting weights "
                       f"do not spread the probability evenly, and the correct tokens get less than 1/{vocab_size} "
                       "on average (a geometric mean: e^−loss).")
    if start["loss"] < uniform:
        return said + (f"below it: even at first the correct tokens get more than 1/{vocab_size} on average (a "
                       "geometric mean: e^−loss).")
    return said + "exactly the uniform guess."


def grid_caption(saved: list[dict], pattern: str) -> str:
    """The grid's axes, and the first snapshot where the last layer's best head is sharply on the pattern."""
    first = next((s for s in saved if s.get("alignment", 0) >= SHARP), None)
    return ("Rows: what each decoder position reads → what it writes; columns: your source characters. "
            + (f"{pattern.capitalize()} is there by step {first['step']:,} ({first['fraction']:.0%} of the "
               f"run): the first snapshot where the last layer's best head puts its largest weight on it for "
               f"{first['alignment']:.0%} of the output steps." if first else
               f"No snapshot reached 90 % of output steps on {pattern}."))


def every_head_text(shares: list[HeadShare], pattern: str, last_layer: int, n_words: int | None,
                    fits: list[OffsetFit] | None = None, task: str = "reverse") -> str:
    """Which layer holds the head most on the pattern in the final model, against the last layer's best; and,
    given the cross heads' offsets (Which head does the work?'s table), the heads that follow the pattern shifted,
    so that a head on n−i does not read as near chance."""
    best = max(shares, key=lambda s: s.share)
    last_best = max((s for s in shares if s.layer == last_layer), key=lambda s: s.share)
    sample = f"the {n_words:,} held-out words of its final report" if n_words else "its final report's words"
    said = (f"**Every cross head of the final model**, on {sample}: the share of output steps whose largest weight "
            f"falls on {pattern}. The snapshot figures above count only the last layer ({last_layer}). ")
    if best.layer != last_layer:
        said += (f"Here a head of layer {best.layer} is on it more: head {best.head}, **{best.share:.1%}**, "
                 f"against {last_best.share:.1%} for the last layer's best (head {last_best.head}).")
    else:
        said += f"The last layer holds the best head: head {best.head}, **{best.share:.1%}**."
    by_head = {(s.layer, s.head): s.share for s in shares}
    shifted = [f for f in fits or () if f.kind == "cross" and f.best_offset != 0 and f.explained
               and (f.layer, f.head) in by_head]
    if shifted:
        said += (" A low share can hide a head that follows the pattern shifted by a position: "
                 + "; ".join(f"layer {f.layer}, head {f.head}: {by_head[(f.layer, f.head)]:.1%} (on "
                             f"{offset_label('cross', task, f.best_offset)}: {f.best_share:.0%})" for f in shifted)
                 + "; each shifted share is counted on 200 held-out words, as *Which head does the work?* counts it.")
    return said


def head_table(shares: list[HeadShare]) -> pd.DataFrame:
    """Layers as rows, heads as columns."""
    layers = sorted({s.layer for s in shares})
    heads = sorted({s.head for s in shares})
    by = {(s.layer, s.head): s.share for s in shares}
    return pd.DataFrame({f"head {h}": [by.get((layer, h)) for layer in layers] for h in heads},
                        index=[f"cross layer {layer}" for layer in layers])


class LiveProgress(Protocol):
    """What a live run reports after every step (explorer.live_training.Progress)."""

    steps: int
    step: int
    status: str                                  # waiting, running, finished, stopped, failed
    ahead: int                                   # jobs ahead of it in the server's line, while waiting
    loss: tuple[tuple[int, float], ...]          # (step, training loss)
    exact_match: tuple[tuple[int, float], ...]   # (step, held-out exact match)
    seconds: float
    message: str
    vocab_size: int                              # the model's, for the chart's uniform guess
    task: str
    target: float | None                         # the held-out exact match that ends the run, if any
    reached: bool                                # whether it did
    time_limit: float                            # seconds the run may train at most

    @property
    def done(self) -> bool: ...


@dataclass(frozen=True)
class LiveView:
    """A live run as its fragment shows it, from one reading of its progress."""

    fraction: float                              # of the steps done: the progress bar
    progress_text: str
    loss_text: str                               # the latest training loss, or "–" before the first step
    exact_match: float                           # the latest held-out exact match (0 before the first)
    per_second: str                              # steps per second, or "–" before any time has passed
    loss: tuple[tuple[int, float], ...]          # (step, training loss) after every step
    matches: tuple[tuple[int, float], ...]       # (step, held-out exact match)
    steps: int
    vocab_size: int                              # a live model's, for the chart's uniform guess
    done: bool
    failed: bool
    failure: str
    success: str
    label: str                                   # the live model's name in the sidebar's Model


def progress_text(p: LiveProgress) -> str:
    if p.status == "waiting":
        jobs = "1 job" if p.ahead == 1 else f"{p.ahead} jobs"
        return (f"waiting for its turn: {jobs} ahead of it in the server's line (one model trains at a time here, "
                "so that every page stays quick)" if p.ahead else "waiting for its turn")
    goal = f", until {p.target:.0%} held-out exact match" if p.target is not None else ""
    return (f"{p.status}: step {p.step:,} of {p.steps:,}, {p.seconds:.0f} s of at most {p.time_limit:.0f}"
            f"{goal}")


def _success(p: LiveProgress, last_match: float) -> str:
    if p.reached:
        return (f"Reached {p.target:.0%} held-out exact match on two checks in a row after {p.step:,} steps "
                f"({p.seconds:.0f} s): {last_match:.1%} at the last check.")
    if p.step < p.steps and p.seconds >= p.time_limit:
        return (f"Stopped after the {p.time_limit:.0f} s a run may take here, at step {p.step:,}: "
                f"{last_match:.0%} exact match on held-out words.")
    return f"Training {p.status} after {p.step:,} steps: {last_match:.0%} exact match on held-out words."


def live_view(progress: LiveProgress) -> LiveView:
    p = progress
    last_match = p.exact_match[-1][1] if p.exact_match else 0.0
    fraction = min(1.0, max(p.step / p.steps, p.seconds / p.time_limit)) if not p.done else 1.0
    return LiveView(
        fraction=fraction, progress_text=progress_text(p),
        loss_text=f"{p.loss[-1][1]:.3f}" if p.loss else "–", exact_match=last_match,
        per_second=f"{p.step / p.seconds:.0f}" if p.seconds else "–",
        loss=p.loss, matches=p.exact_match, steps=p.steps, vocab_size=p.vocab_size,
        done=p.done, failed=p.status == "failed", failure=f"The run failed: {p.message}",
        success=_success(p, last_match),
        label=f"Your model ({p.task}, {p.step:,} steps, {last_match:.0%})")


SIZINGS = ("Chosen for the task", "My own sizes")
QUICK_SECONDS = 60.0
QUICK_CAPTION = (f"The size and schedule are chosen for the task (transformer.recipe: one or two layers each side, "
                 f"d_model 64, 4 heads); the run stops once 99 % of held-out words come out exactly right on two "
                 f"checks in a row, or after {QUICK_SECONDS:.0f} s.")


def live_download_name(task: str) -> str:
    """A file name for the model's zip: the rule with its | and : made safe."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in task)
    return f"my-{safe}-model.zip"
