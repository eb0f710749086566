"""Lesson steps 1, 3, 6 to 9 as issue 25 rewrote them, on a short text, a long one and one of repeated letters:
the evidence is on screen before the question, the answer the page accepts is what the model does (worked out
here from the model, not from the page), a wrong answer gets the hint, and the teacher's sheet expects the same."""

import functools
import json

import numpy as np
import pytest

from analysis.labels import token_label
from analysis.lesson import forced_outcome, forced_outcomes
from analysis.offsets import run_offsets
from analysis.run import Decoding, make_run
from explorer.lab_runs import held_out_sample
from explorer.cache import shared_checkpoint
from teaching.questions import FORCED_OPTIONS, forced_options
from transformer.checkpoint import load_snapshot, snapshot_index

from .helpers import next_token_bars, no_exception, open_page, sample_tables
from .test_lesson import answer_widget, expected_in_sheet, page_tables, prepared_sheets  # noqa: F401 (autouse)
from ..conftest import BUNDLED

TEXTS = ("hello", "the quick brown fox jumps over the lazy dog", "aaab")


@functools.cache
def forced_counts(token: str):
    ckpt = shared_checkpoint()
    return forced_outcomes(ckpt.model, ckpt.vocab, held_out_sample(ckpt.model.config.max_len), token)


@functools.cache
def snapshot_outputs(text: str) -> list[tuple[int, str]]:
    vocab = shared_checkpoint().vocab
    return [(e["step"], make_run(load_snapshot(BUNDLED, e["step"]), vocab, text).output)
            for e in snapshot_index(BUNDLED)]


def expected(ckpt, text: str, step: int) -> str:
    """The answer worked out here from the model, independently of the page."""
    model, vocab = ckpt.model, ckpt.vocab
    run = make_run(model, vocab, text)
    if step == 6:
        head = max(run_offsets(run, "cross", 0), key=lambda f: (f.best_share, f.mean_top_weight)).head
        t = min(3, len(text) - 1)
        i = int(run.trace["cross", 0][head, t].argmax())
        return f"{i}: {run.source[i]}"
    if step == 7:
        first = next((s for s, out in snapshot_outputs(text) if out == text[::-1]), None)
        return f"step {first:,}" if first is not None else "never"
    if step == 8:
        token = "q" if text[::-1].startswith("z") else "z"
        forced = make_run(model, vocab, text, Decoding(forced=((0, vocab.encode(token, 1)[0]),)))
        return forced_options(token, "reverse")[forced_outcome(forced.output, text[::-1], token)]
    if step == 9:
        effects, fits = sample_tables()
        cross = {f.id for f in fits}
        worst = max((e for e in effects if e.head in cross), key=lambda e: e.drop)
        return f"Cross L{worst.head.layer} H{worst.head.head}"
    raise AssertionError(step)


def check(at, step: int, option: str):
    widget = answer_widget(at, step)
    widget.set_value(option).run()
    at.button(key=f"{widget.key}_check").click().run()
    no_exception(at)


@pytest.mark.parametrize("text", TEXTS, ids=["hello", "long", "aaab"])
@pytest.mark.parametrize("step", [6, 7, 8, 9])
def test_the_right_answer_is_what_the_model_does_and_a_wrong_one_gets_the_hint(ckpt, text, step):
    at = open_page("lesson", text, state={"lesson_step": step})
    no_exception(at)
    right = expected(ckpt, text, step)
    wrong = next(o for o in answer_widget(at, step).options if o != right)
    check(at, step, wrong)
    assert any(w.value.startswith("Not quite") for w in at.warning) and not at.success
    check(at, step, right)
    assert any(s.value.replace("\\", "").startswith(f"Right: {right}") for s in at.success)   # unescaped


@pytest.mark.parametrize("text", TEXTS, ids=["hello", "long", "aaab"])
def test_the_evidence_is_on_screen_before_the_question(ckpt, text):
    run = make_run(ckpt.model, ckpt.vocab, text)
    at = open_page("lesson", text, state={"lesson_step": 1})
    lengths = at.dataframe[0].value.loc["‖e‖, its embedding's length"]
    assert list(lengths) == [f"{x:.2f}" for x in np.linalg.norm(run.trace["src_embed.output"], axis=1)
                             / np.sqrt(ckpt.model.config.d_model)]
    at = open_page("lesson", text, state={"lesson_step": 6})
    assert list(at.dataframe[0].value.loc["character"]) == [c.replace(" ", "␣") for c in text]   # every position
    at = open_page("lesson", text, state={"lesson_step": 8})
    token = "q" if text[::-1].startswith("z") else "z"
    outcomes = forced_counts(token)
    assert list(at.dataframe[0].value["held-out words"]) == [outcomes.counts[o] for o in FORCED_OPTIONS]
    assert any(c.value == run.output.replace(" ", "␣") for c in at.code)   # written whole, not cut off
    at = open_page("lesson", text, state={"lesson_step": 9})
    table = at.dataframe[0].value
    fits = sample_tables()[1]
    assert list(table["share of steps"]) == pytest.approx([100 * f.best_share for f in fits])   # in percent,
    shown = json.loads(at.dataframe[0].proto.columns)["share of steps"]                     # each with 1 decimal
    assert shown["type_config"]["format"] == "%.1f%%"


@pytest.mark.parametrize("text", TEXTS, ids=["hello", "long", "aaab"])
def test_the_teachers_sheet_expects_what_the_page_accepts(ckpt, text, monkeypatch):
    at = open_page("lesson", text)
    sheet = prepared_sheets(at, monkeypatch)["md"]
    for step in (6, 7, 8, 9):
        assert expected_in_sheet(sheet, step) == [expected(ckpt, text, step)], step


@pytest.mark.parametrize("text", TEXTS, ids=["hello", "long", "aaab"])
def test_step_5_shows_the_next_token_probabilities_of_its_step(ckpt, text):
    run = make_run(ckpt.model, ckpt.vocab, text)
    t = min(2, len(run.decoder_out) - 1)
    at = open_page("lesson", text, state={"lesson_step": 5})
    no_exception(at)
    assert not at.get("html") and not next_token_bars(at)          # predict first: the bars wait
    widget = answer_widget(at, 5)
    check(at, 5, next(o for o in widget.options if o != token_label(ckpt.vocab, run.chosen_ids[t])))
    at.button(key=f"{widget.key}_show").click().run()
    bars = next_token_bars(at)["lesson_probs"]
    top = np.argsort(-run.probs[t], kind="stable")[:8]
    assert [token for token, _, _ in bars] == [token_label(ckpt.vocab, i) for i in top]
    assert np.allclose([p for _, _, p in bars], run.probs[t][top], atol=1e-6)
    assert [token for token, series, _ in bars if series == "chosen"] == [
        token_label(ckpt.vocab, run.chosen_ids[t])]
