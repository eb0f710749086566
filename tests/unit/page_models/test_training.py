"""Training's record against the bundled snapshots loaded and run here, and the page's sentences against the numbers
recounted from their traces and indexes; the live run's record against a progress made up for each state."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

from analysis.page_models.training import live_view, snapshot_steps, training_view
from analysis.run import make_run
from explorer.live_training import Progress
from transformer import train
from transformer.checkpoint import bundled_checkpoint, load_snapshot, snapshot_index
from transformer.data import sample_strings, target
from transformer.decoding import generate

from .conftest import checkpoint


@functools.cache
def snapshot(task: str, step: int):
    return load_snapshot(bundled_checkpoint(task), step)


@functools.cache
def snapshot_parts(task: str, text: str) -> tuple[list[dict], dict[int, str]]:
    """The index the page reads, and what each snapshot writes for the text, decoded here without a trace."""
    saved, vocab = snapshot_index(bundled_checkpoint(task)), checkpoint(task).vocab
    return saved, {s["step"]: vocab.decode(generate(snapshot(task, s["step"]), vocab.encode(text, 48)))
                   for s in saved}


def runs_of(task: str, text: str, asked: list[int] | None = None):
    """A snapshot's run on the text, as the page's cache makes it; `asked` records the steps asked for."""
    def run_at(step: int):
        if asked is not None:
            asked.append(step)
        return make_run(snapshot(task, step), checkpoint(task).vocab, text, task=task)
    return run_at


def view_of(task: str, text: str, step: int | None = None, outputs: dict[int, str] | None = None,
            saved: list[dict] | None = None, asked: list[int] | None = None):
    real_saved, real_outputs = snapshot_parts(task, text)
    saved = saved or real_saved
    written = outputs or real_outputs
    return training_view(checkpoint(task), text, saved, saved[-1]["step"] if step is None else step,
                         {s: out == target(text, task) for s, out in written.items()}, runs_of(task, text, asked))


def shares_on_pattern(cross: np.ndarray, positions: list[set[int]]) -> np.ndarray:
    """(H,) of one layer's (H, T, S) weights: the share of the text's output steps whose largest weight is on an
    allowed position, counted here step by step."""
    steps = min(len(positions), cross.shape[1])
    return np.array([np.mean([int(cross[h, i].argmax()) in positions[i] for i in range(steps)])
                     for h in range(cross.shape[0])])


def test_banana_comes_out_right_before_the_anti_diagonal_holds_and_the_story_says_so_with_its_numbers():
    asked: list[int] = []
    view = view_of("reverse", "banana", asked=asked)
    saved, outputs = snapshot_parts("reverse", "banana")
    right = next(s for s in saved if outputs[s["step"]] == "ananab")
    most = next(s for s in saved if s["alignment"] >= 0.5)
    assert right["step"] < most["step"]                  # the case this test is about
    assert sorted(asked) == [right["step"], saved[-1]["step"]]   # the first right snapshot and the chosen one alone
    cross = runs_of("reverse", "banana")(right["step"]).trace["cross", 1]                 # last layer, (H, T, S)
    on_text = shares_on_pattern(cross, [{5 - i} for i in range(6)])
    assert (f"Your text first comes out right at step **{right['step']:,}** ({right['fraction']:.0%} of the run). "
            f"There, **{right['alignment']:.1%}** of held-out output steps") in view.story
    assert "put their largest weight on it in " + ", ".join(f"{x:.0%}" for x in on_text) + " of its steps" in (
        view.story)
    assert f"first at step **{most['step']:,}** ({most['alignment']:.1%})" in view.story
    assert "So the output is right before most steps are on the anti-diagonal." in view.story
    assert ("No last-layer head is on the anti-diagonal at every step" in view.story) == (on_text.max() < 1)
    last = saved[-1]
    assert view.story.endswith(f"At the end (step {last['step']:,}): exact match {last['exact_match']:.1%}, "
                               f"{last['alignment']:.1%} of output steps on the anti-diagonal.")


@pytest.mark.parametrize("task, text, written", [("reverse", "aaab", "baaa"), ("copy", "hello", "hello")])
def test_a_tie_between_the_right_output_and_the_pattern_is_told_as_one(task, text, written):
    saved, outputs = snapshot_parts(task, text)
    view = view_of(task, text)
    right = next(s["step"] for s in saved if outputs[s["step"]] == written)
    assert right == next(s["step"] for s in saved if s["alignment"] >= 0.5)   # the tie this test is about
    assert "cannot say which comes first" in view.story and "right before" not in view.story


def test_the_story_follows_made_up_outputs_and_alignments_into_its_other_branches():
    """The outputs and alignments are inputs of the record: changing them reaches the sentences no bundled model
    tells for a short word (the pattern first; no right snapshot; no snapshot with most steps on it)."""
    saved, _ = snapshot_parts("reverse", "banana")
    steps = snapshot_steps(saved)
    only_last = {s: "ananab" if s == steps[-1] else "nope" for s in steps}
    view = view_of("reverse", "banana", outputs=only_last)
    assert f"first comes out right at step **{steps[-1]:,}**" in view.story
    assert "Here the anti-diagonal comes first, and your text comes out right after it." in view.story

    never = view_of("reverse", "banana", outputs={s: "" for s in steps})
    assert never.story.startswith("No snapshot writes your text exactly right. Most held-out steps")

    flat = [{**s, "alignment": s["alignment"] / 10} for s in saved]
    view = view_of("reverse", "banana", saved=flat)
    assert " No snapshot has most output steps (more than half) on the anti-diagonal." in view.story
    assert "So the output is right before" in view.story
    assert view.grid_caption.endswith("No snapshot reached 90 % of output steps on the anti-diagonal.")
    assert f"The untrained snapshot scores {flat[0]['alignment']:.1%}." in view.pattern_help


@pytest.mark.parametrize("task, text", [("reverse", "banana"), ("copy", "hello"), ("sort", "hello world")])
def test_each_snapshot_shows_its_own_scores_output_and_cross_attention(task, text):
    saved, outputs = snapshot_parts(task, text)
    for shot in (saved[0], saved[len(saved) // 2], saved[-1]):
        view = view_of(task, text, shot["step"])
        assert (view.loss, view.exact_match, view.alignment) == (shot["loss"], shot["exact_match"], shot["alignment"])
        assert view.step_caption == f"Step {shot['step']:,}: {shot['fraction']:.0%} of the run."
        assert view.run.output == outputs[shot["step"]]
        assert view.wrong == ("not exactly {output}" if shot is saved[-1] else "not yet")
        run = runs_of(task, text)(shot["step"])
        for layer in range(2):
            assert np.array_equal(view.cross[layer], run.trace["cross", layer])
        assert view.cross.shape[2:] == (len(view.rows), len(view.source)) == (len(run.decoder_in), len(text))
        assert view.rows[0].startswith("⟨s⟩→") and view.grid_title.endswith(f"after {shot['step']:,} steps")
    assert view.steps == [s["step"] for s in saved]


@pytest.mark.parametrize("task", ["reverse", "sort"])
def test_the_loss_caption_puts_step_0_on_its_side_of_the_uniform_guess(task):
    """The reverser starts above ln 30 (worse than guessing evenly), the sorter below it: both branches."""
    view = view_of(task, "hello")
    start, uniform = checkpoint(task).metrics["curve"][0], math.log(30)
    assert view.curve == checkpoint(task).metrics["curve"] and view.vocab_size == 30
    assert f"ln 30 = {uniform:.2f}. At step {start['step']:,} the held-out loss is {start['loss']:.2f}, " in (
        view.loss_caption)
    assert ("above it" in view.loss_caption) == (start["loss"] > uniform)
    assert ("below it" in view.loss_caption) == (start["loss"] < uniform)
    assert f"ln 30 = {uniform:.2f}; a perfect one 0." in view.loss_help


def test_the_pattern_metric_names_its_pooled_chance_level():
    """For reversal a random top position is on the pattern with p = 1/n at each of a word's n steps, so pooled
    over the held-out words the chance is words / steps."""
    texts = sample_strings(train.parse_args(["--out", "unused"]).eval_n, train.VALIDATION_SEED, 48, held_out=True)
    steps = sum(map(len, texts))
    view = view_of("reverse", "hello")
    assert view.pattern_label == "Output steps on the anti-diagonal"
    assert f"about {len(texts) / steps:.1%} here: the figure pools {steps:,} output steps of {len(texts):,}" in (
        view.pattern_help)
    assert "falls on source position n−1−i" in view.pattern_help


@pytest.mark.parametrize("task", ["reverse", "copy"])
def test_the_grid_caption_and_every_head_follow_the_checkpoints_report(task):
    """The copier's final snapshot passes 90 % on the diagonal and its best head sits in layer 0; the reverser
    does neither: each sentence takes its own branch."""
    saved, _ = snapshot_parts(task, "hello")
    view = view_of(task, "hello")
    first = next((s for s in saved if s["alignment"] >= 0.9), None)
    pattern = {"reverse": "the anti-diagonal", "copy": "the diagonal"}[task]
    if first is None:
        assert view.grid_caption.endswith(f"No snapshot reached 90 % of output steps on {pattern}.")
    else:
        assert f"{pattern.capitalize()} is there by step {first['step']:,}" in view.grid_caption
    by_layer = checkpoint(task).metrics["cross_attention_alignment"]
    for layer in range(2):
        assert list(view.head_table.loc[f"cross layer {layer}"]) == by_layer[f"layer_{layer}"]
    layer, head = max(((int(k[-1]), h) for k, v in by_layer.items() for h in range(len(v))),
                      key=lambda lh: by_layer[f"layer_{lh[0]}"][lh[1]])
    best = by_layer[f"layer_{layer}"][head]
    assert "on the 10,000 held-out words of its final report" in view.every_head
    if layer != 1:
        assert f"a head of layer {layer} is on it more: head {head}, **{best:.1%}**, against " \
               f"{max(by_layer['layer_1']):.1%}" in view.every_head
    else:
        assert f"The last layer holds the best head: head {head}, **{best:.1%}**." in view.every_head
    assert (layer == 0) == (task == "copy")


def test_a_live_run_reads_as_it_goes_and_when_it_ends():
    waiting = live_view(Progress(steps=200))
    assert (waiting.fraction, waiting.loss_text, waiting.per_second, waiting.exact_match) == (0, "–", "–", 0.0)
    assert waiting.progress_text == "waiting for its turn" and not waiting.done
    behind = live_view(Progress(steps=200, ahead=2)).progress_text
    assert behind.startswith("waiting for its turn: 2 jobs ahead of it in the server's line"), behind
    assert "1 job ahead" in live_view(Progress(steps=200, ahead=1)).progress_text

    losses, matches = tuple((s, 3.4 / s) for s in range(1, 51)), ((25, 0.1), (50, 0.25))
    running = live_view(Progress(steps=200, step=50, status="running", loss=losses, exact_match=matches,
                                 seconds=4.0))
    assert running.fraction == 50 / 200 and running.progress_text == "running: step 50 of 200, 4 s of at most 300"
    assert running.loss_text == f"{3.4 / 50:.3f}" and running.exact_match == 0.25
    assert running.per_second == "12" and (running.loss, running.matches) == (losses, matches)
    assert running.vocab_size == 30 and not running.done

    done = live_view(Progress(steps=200, step=200, status="finished", loss=losses, exact_match=matches + ((200, 0.97),),
                              seconds=16.0))
    assert done.done and not done.failed
    assert done.success == "Training finished after 200 steps: 97% exact match on held-out words."
    assert done.label == "Your model (reverse, 200 steps, 97%)"
    reached = live_view(Progress(steps=200, step=120, status="finished", exact_match=((100, 0.99), (120, 0.995)),
                                 seconds=9.0, target=0.99, reached=True, task="rotate:2"))
    assert reached.success.startswith("Reached 99% held-out exact match on two checks in a row after 120 steps")
    assert reached.label == "Your model (rotate:2, 120 steps, 100%)" and reached.fraction == 1.0
    timed = live_view(Progress(steps=200, step=80, status="stopped", seconds=300.0, exact_match=((75, 0.4),)))
    assert timed.success.startswith("Stopped after the 300 s a run may take here, at step 80")
    failed = live_view(Progress(steps=200, step=3, status="failed", message="out of memory", seconds=1.0))
    assert failed.done and failed.failed and failed.failure == "The run failed: out of memory"


def test_a_head_that_follows_the_pattern_shifted_is_named_with_its_offset():
    """The review's N6: the final model's table scored cross L0 H3 at 4.1 % with no word of its offset, the one
    page where the sharpest head of the model read as near chance. Its share on n−i is recounted here from
    teacher-forced traces of the 200 held-out words: each character step's largest weight, on position n − i."""
    from analysis.lab import teacher_forced_trace
    from analysis.offsets import head_offsets
    from analysis.training import head_shares
    from explorer.lab_runs import held_out_sample
    ckpt = checkpoint("reverse")
    texts = held_out_sample(48)
    on, steps = 0, 0
    for text in texts:
        weights = teacher_forced_trace(ckpt.model, ckpt.vocab, text, "reverse")["cross", 0][0, 3].numpy()  # (T, S)
        n = len(text)
        steps += n                                   # the character steps (the end's step names no key)
        on += sum(int(weights[i].argmax()) == n - i for i in range(n))
    saved = snapshot_index(bundled_checkpoint("reverse"))
    right = {s["step"]: True for s in saved}
    fits = head_offsets(ckpt.model, ckpt.vocab, texts, "reverse", "cross")
    view = training_view(ckpt, "hello", saved, saved[-1]["step"], right, runs_of("reverse", "hello"), fits)
    share = next(h.share for h in head_shares(ckpt.metrics) if (h.layer, h.head) == (0, 3))
    assert f"layer 0, head 3: {share:.1%} (on n−i: {on / steps:.0%})" in view.every_head, (view.every_head, on, steps)
    assert on / steps > 0.9
    plain = training_view(ckpt, "hello", saved, saved[-1]["step"], right, runs_of("reverse", "hello"))
    assert "shifted" not in plain.every_head                   # without the offsets' table, nothing is claimed
