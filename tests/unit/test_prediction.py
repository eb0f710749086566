"""Predict, then train: the options a class votes among (analysis.prediction), which one a trained model
follows, and the question graded by it (teaching.predict_train), with the class row's JSON read back."""

from __future__ import annotations

import pytest

from analysis.prediction import NoQuestionError, example_text, followed, pattern_options
from teaching.predict_train import ClassTask, Run, example_matches, followed_numbers, prediction, run_status, thinned
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import held_out_strings
from transformer.metrics import cross_attention_alignment
from transformer.task_rules import parse_rule, task_spec

GREEK = "αβγδεζηθικλμνξοπρστυφχψω"


@pytest.mark.parametrize(("rule", "alphabet", "lengths"), [
    ("rotate:2", "abcdefghijklmnopqrstuvwxyz", "1-6"), ("swap-pairs", "abcdefghijklmnopqrstuvwxyz", "2-8"),
    ("shift:1", "abcdefghijklmnopqrstuvwxyz", "1-6"), ("dedupe", "abcdefghijklmnopqrstuvwxyz", "1-6"),
    ("sort", "abcdefghijklmnopqrstuvwxyz", "1-6"), ("double", "abcdefghijklmnopqrstuvwxyz", "1-6"),
    ("reverse|shift:1", GREEK, "1-8"), ("interleave", "0123456789", "2-10")])
def test_the_options_are_the_tasks_own_map_and_its_neighbours_each_distinct_and_of_its_length(rule, alphabet,
                                                                                              lengths):
    spec = task_spec(rule, alphabet, lengths)
    text, options = pattern_options(spec)
    assert set(text) <= set(spec.alphabet) and spec.min_len <= len(text) <= spec.max_len
    own = [o for o in options if o.rule == spec.spec]
    assert own and list(own[0].positions) == parse_rule(rule).source_positions(text, alphabet)
    assert 2 <= len(options) <= 4 and len({o.positions for o in options}) == len(options)
    if not parse_rule(rule).length_varies:   # dedupe's output is as long as the text's distinct letters
        assert {len(o.positions) for o in options} == {len(own[0].positions)}
    assert [o.positions for o in options] == sorted(o.positions for o in options)   # the order says nothing
    for option in options:
        assert list(option.positions) == parse_rule(option.rule).source_positions(text, alphabet)
        assert option.label == "reads " + " ".join(map(str, option.positions))


def test_the_example_text_parts_copy_from_sort_and_from_dedupe():
    text = example_text(task_spec("sort"))
    assert parse_rule("sort").source_positions(text) != list(range(len(text)))        # letters out of order
    text = example_text(task_spec("dedupe"))
    assert len(parse_rule("dedupe").source_positions(text)) < len(text)                # and one of them again
    copied = example_text(task_spec("copy"))
    assert len(set(copied)) == len(copied)


def test_a_task_whose_texts_are_too_short_to_tell_rules_apart_is_refused_with_a_reason():
    with pytest.raises(NoQuestionError, match="lengthen the texts"):
        pattern_options(task_spec("reverse", lengths="1-1"))


def test_the_bundled_reverser_follows_the_anti_diagonal_as_its_own_alignment_says():
    ckpt = load(bundled_checkpoint("reverse"))
    spec = task_spec("reverse", lengths="1-12")
    text, options = pattern_options(spec)
    found = followed(ckpt, spec, options, text)
    texts = held_out_strings(200, spec.max_len, min_len=1)
    last = f"layer_{ckpt.model.config.n_decoder_layers - 1}"
    for option in options:   # the same shares, through transformer.metrics' own decodings
        again = cross_attention_alignment(ckpt.model, ckpt.vocab, texts, task=option.rule)[last]
        assert found.shares[option.rule] == pytest.approx(max(again), abs=1e-3)
        assert found.heads[option.rule] == max(range(len(again)), key=again.__getitem__)
    assert max(found.shares, key=found.shares.get) == "reverse" and found.shares["reverse"] > 0.9
    assert found.weights.shape == (len(found.rows), len(text)) and found.rows[-1] == "end"
    assert found.rows[:-1] == list(text[::-1])        # the reverser writes the example's reversal

    ask = prediction(ClassTask("reverse", lengths="1-12"))
    low, high = found.interval                        # resampled over texts: it holds the share, and is not 0 wide
    assert low <= found.shares["reverse"] <= high and high - low > 0.005
    run = Run("finished", 900, 900, 30.0, ((1, 3.1), (900, 0.01)), ((900, 0.99),), "", followed_numbers(found),
              final=0.98, final_n=100)
    question = ask.question(Run.from_text(run.to_text()))
    assert question.answers == {"reads 5 4 3 2 1 0"} and question.answer_line == "The model's answer: reads 5 4 3 2 1 0."
    assert f"reads 5 4 3 2 1 0: {found.shares['reverse']:.0%}, head {found.heads['reverse']}" in question.why
    assert "a head of its last layer puts its largest weight where the task says each character" in question.why
    assert f"the best share's 95 % interval is {low:.0%} to {high:.0%}" in question.why
    assert "it wrote 98% of 100 held-out texts exactly right" in question.why and "time limit" not in question.why
    hits, steps = example_matches(followed_numbers(found)["weights"], (5, 4, 3, 2, 1, 0))
    argmax = found.weights.argmax(-1)[:6].tolist()    # the heatmap's own rows, read another way
    assert (hits, steps) == (sum(a == p for a, p in zip(argmax, (5, 4, 3, 2, 1, 0))), 6)


def test_an_option_within_two_points_of_the_best_is_right_too_and_a_model_off_its_map_is_said_to_be():
    ask = prediction(ClassTask("rotate:2"))
    rules = [o.rule for o in ask.patterns]
    shares = {r: 0.1 for r in rules}
    shares["rotate:1"], shares["rotate:3"], shares["rotate:2"] = 0.80, 0.79, 0.5
    numbers = {"shares": shares, "heads": {r: 0 for r in rules}, "steps": 1000, "texts": 200, "interval": [0.7, 0.9]}
    question = ask.question(Run("stopped", 10, 900, 60.0, (), ((10, 0.5),), "", numbers, final=0.4, final_n=100))
    label = {o.rule: o.label for o in ask.patterns}
    assert question.answers == {label["rotate:1"], label["rotate:3"]}
    assert (f"The task's own map, {label['rotate:2']}, is not the one a head of its last layer follows most "
            "(50%, head 0)") in question.why
    assert "(10 steps, 60 s, stopped at the time limit) it wrote 40% of 100 held-out texts" in question.why
    assert Run("stopped", 10, 900, 60.0, (), (), final=0.4, final_n=100).ended == (
        "**Stopped at the time limit**: step 10 of 900, 60 s; exact match on 100 held-out texts at the end: **40%**.")
    assert Run("finished", 825, 2500, 41.0, (), (), final=0.99, final_n=100).ended_short == (   # the room's
        "**Trained**: step 825 of 2,500, 99% of 100 texts right.")
    assert ask.question(None) is None and ask.question(Run("training", 1, 10, 1.0, (), ())) is None


def test_the_class_rows_json_reads_back_and_anything_else_reads_as_none():
    task = ClassTask("rotate:2|shift:1", GREEK, "1-8")
    assert ClassTask.from_text(task.to_text()) == task and len(task.to_text()) < 400
    run = Run("training", 5, 100, 2.5, ((1, 3.0), (5, 2.0)), ((5, 0.0),), "")
    assert Run.from_text(run.to_text()) == run
    for bad in (None, "", "{", "[]", '{"status": "x"}', '{"rule": 3}'):
        assert ClassTask.from_text(bad) is None and Run.from_text(bad) is None
    assert run_status(run.to_text()) == "training:False" and run_status(None) == ""
    assert run.fraction == 0.05 and Run("training", 100, 2500, 30.0, (), (), time_limit=60.0).fraction == 0.5
    assert Run("stopped", 100, 2500, 60.0, (), ()).fraction == 1.0             # by time, or by its end
    points = tuple((i, float(i)) for i in range(500))
    kept = thinned(points, 60)
    assert len(kept) == 60 and kept[0] == points[0] and kept[-1] == points[-1]
    assert thinned(points[:10], 60) == points[:10]


def test_a_share_the_same_on_every_text_is_said_so_rather_than_given_an_interval_of_no_width():
    ask = prediction(ClassTask("swap-pairs"))
    rules = [o.rule for o in ask.patterns]
    numbers = {"shares": {r: float(r == "swap-pairs") for r in rules}, "heads": {r: 1 for r in rules},
               "steps": 815, "texts": 200, "interval": [1.0, 1.0]}
    why = ask.question(Run("finished", 825, 2500, 30.0, (), (), "", numbers, final=1.0, final_n=100)).why
    assert "drawing the texts again gives 100% each time" in why and "interval" not in why
