"""The Training page: the bundled run's snapshots, the learner's word at each, the curves marked."""

import json
import shutil

import numpy as np

from explorer.cache import BUNDLED_CHECKPOINT, CHECKPOINT_ENV
from transformer.checkpoint import load_snapshot, snapshot_index
from analysis.run import make_run
from viz.training import loss_text, share_text

from .helpers import (canvas_charts, chart_numbers, figures, metric_values, no_exception, open_page, plotly_marks,
                      plotly_series)


def test_every_snapshot_shows_its_own_output_scores_and_cross_attention(ckpt):
    index = snapshot_index(BUNDLED_CHECKPOINT)
    at = open_page("training", "banana")
    no_exception(at)
    assert at.select_slider(key="snapshot").value == index[-1]["step"]
    assert metric_values(at)[0] == "ananab"
    for shot in (index[0], index[len(index) // 2], index[-1]):
        at.select_slider(key="snapshot").set_value(shot["step"]).run()
        no_exception(at)
        model = load_snapshot(BUNDLED_CHECKPOINT, shot["step"])
        expected = make_run(model, ckpt.vocab, "banana")
        assert metric_values(at) == [expected.output or "(nothing)", f"{shot['loss']:.3g}", f"{shot['exact_match']:.1%}",
                               f"{shot['alignment']:.1%}"]
        drawn = figures(at)
        assert plotly_marks(drawn["curves"]) == plotly_marks(drawn["shares"]) == [shot["step"]]   # the mark follows
        assert (f"at step {shot['step']}, the marked snapshot, loss {loss_text(shot['loss'])} and exact match "   # the slider
                f"{share_text(shot['exact_match'])}") in chart_numbers(at)["curves"]
        grid = canvas_charts(at)["grid"]["panels"]
        cross = expected.trace.stack_attention("cross")                        # (L, H, T, S)
        assert len(grid) == cross.shape[0] * cross.shape[1]
        assert np.allclose(grid[-1]["z"], cross[-1, -1], atol=5e-5)           # four places
    assert index[0]["exact_match"] < 0.05 < 0.99 < index[-1]["exact_match"]


def test_the_curves_are_the_whole_run_and_the_caption_names_when_the_mirror_appears(ckpt):
    at = open_page("training", "hello")
    curve = ckpt.metrics["curve"]
    drawn = figures(at)
    assert list(plotly_series(drawn["curves"], "x")["held-out loss"].astype(int)) == [c["step"] for c in curve]
    assert np.allclose(plotly_series(drawn["curves"], "customdata")["held-out loss"], [c["loss"] for c in curve])
    assert np.allclose(plotly_series(drawn["shares"])["exact match"], [c["exact_match"] for c in curve])
    first = next((s for s in snapshot_index(BUNDLED_CHECKPOINT) if s["alignment"] >= 0.9), None)
    mirror = next(c.value for c in at.caption if "anti-diagonal" in c.value)   # the curves' own caption
    if first is not None:
        assert f"by step {first['step']:,}" in mirror
    else:   # the 48-character reverser splits the anti-diagonal over its heads (each about 2/3 of the steps)
        assert "No snapshot reached 90 % of output steps on the anti-diagonal" in mirror


def test_a_link_opens_the_same_snapshot():
    step = snapshot_index(BUNDLED_CHECKPOINT)[1]["step"]
    at = open_page("training", None, query={"text": "level", "snapshot": str(step)})
    no_exception(at)
    assert at.select_slider(key="snapshot").value == step
    assert at.query_params["snapshot"] in (str(step), [str(step)])


def test_a_checkpoint_without_snapshots_says_so_and_a_corrupt_index_is_named(tmp_path, monkeypatch):
    plain = tmp_path / "plain"
    shutil.copytree(BUNDLED_CHECKPOINT, plain, ignore=shutil.ignore_patterns("snapshots"))
    monkeypatch.setenv(CHECKPOINT_ENV, str(plain))
    at = open_page("training", "hello")
    no_exception(at)
    assert "no snapshots" in at.info[0].value and "curves" not in figures(at)
    broken = tmp_path / "broken"
    shutil.copytree(BUNDLED_CHECKPOINT, broken)
    (broken / "snapshots" / "index.json").write_text(json.dumps({"snapshots": "soon"}))
    monkeypatch.setenv(CHECKPOINT_ENV, str(broken))
    at = open_page("training", "hello")
    no_exception(at)
    assert "index.json" in at.error[0].value.replace("\\", "") and "curves" not in figures(at)


def test_each_snapshots_word_is_what_plain_greedy_decoding_writes():
    """The nine snapshots' outputs check the task's answer as a draft (explorer.cache.snapshot_output): still
    greedy decoding's own words, on every bundled model, where early snapshots refuse the draft at once; and
    whether each writes the answer (the Training page's question, one pass each) agrees with those words."""
    from explorer.cache import snapshot_output, snapshot_writes_answer
    from transformer.checkpoint import bundled_checkpoint, load
    from transformer.decoding import generate
    from transformer.data import random_string, target
    import random

    rng = random.Random(7)
    for task in ("reverse", "copy", "sort"):
        folder, vocab = bundled_checkpoint(task), load(bundled_checkpoint(task)).vocab
        for text in ("banana", random_string(rng, 48)):
            written = {shot["step"]: snapshot_output(str(folder), text, shot["step"]) for shot in snapshot_index(folder)}
            expected = {step: vocab.decode(generate(load_snapshot(folder, step), vocab.encode(text, 48)))
                        for step in written}
            assert written == expected, task
            assert len(set(written.values())) > 1, task       # the snapshots differ: early ones write other words
            answer = target(text, task)                       # and the page's one-pass question agrees with them
            assert {step: snapshot_writes_answer(str(folder), text, step) for step in written} == {
                step: out == answer for step, out in written.items()}, task
