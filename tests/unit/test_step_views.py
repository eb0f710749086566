"""Each lesson step's record (teaching.step_views), read without a page: every chart's arguments build its viz
figure, and the numbers each step shows are the model's own, worked out here again from the model."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

import numpy as np
import pytest

import viz
from analysis import attribution, patching
from analysis.lab import ablation_ranking
from analysis.lesson import forced_outcomes, last_layer_split
from analysis.offsets import head_offsets
from analysis.run import Decoding, make_run
from teaching import step_views
from teaching.step_views import Chart, Metric, Side, StepView, Strip, Table, Written
from teaching.steps import STEPS
from transformer.checkpoint import load, load_snapshot, snapshot_index
from transformer.data import held_out_strings
from transformer.intervention import Head, Intervention

from ..conftest import BUNDLED

SAMPLE = 40   # held-out words behind the tables here (the page uses 200): the records, not the figures, are tested


@functools.cache
def bundled():
    return load(BUNDLED)


@dataclass(frozen=True)
class DirectSource:
    """The lesson's runs and tables computed straight from the model, as the page's caches would give them."""
    text: str
    snapshotted: bool = True
    task: str = "reverse"
    sample_size: int = SAMPLE
    vocab: object = field(default_factory=lambda: bundled().vocab)
    config: object = field(default_factory=lambda: bundled().model.config)

    def run(self, forced=(), teacher=False, ablated=(), positions="normal", sides=("source", "target")):
        edit = Intervention(frozenset(Head(*h) for h in ablated), positions, frozenset(sides))
        return make_run(bundled().model, self.vocab, self.text, Decoding(forced=forced, teacher=teacher), edit)

    def snapshots(self):
        return snapshot_index(BUNDLED)[:3] if self.snapshotted else []

    def snapshot_output(self, step: int) -> str:
        return make_run(load_snapshot(BUNDLED, step), self.vocab, self.text).output

    def forced_table(self, token, ask):
        return _forced(token)

    def cross_offsets(self, ask):
        return _offsets()

    def ablation_table(self, ask):
        return _ablation() if ask else None

    def lenses(self):
        return _lenses(self.text)

    def patch_score(self, pattern, layer, head, ask):
        return _patch(pattern, layer, head)

    def cross_offsets_without(self, head, ask):
        return _offsets_without(head)

    def other_run(self, text):
        return make_run(bundled().model, self.vocab, text, Decoding(teacher=True))

    def split_table(self, ask):
        return _split() if ask else None


@functools.cache
def _split():
    return last_layer_split(bundled().model, bundled().vocab, _sample())


@functools.cache
def _patch(pattern, layer, head):
    model = bundled().model
    edit = (Intervention() if pattern is None else
            patching.patched(pattern, "reverse", patching.Placement(layer, head), model))
    return patching.patch_score(model, bundled().vocab, _sample(), [], "reverse", edit)


@functools.cache
def _offsets_without(head):
    return head_offsets(bundled().model, bundled().vocab, _sample(), kind="cross",
                        layer=bundled().model.config.n_decoder_layers - 1,
                        edit=Intervention(ablated=frozenset({head})))


@functools.cache
def _lenses(text):
    return attribution.lenses(bundled().model, bundled().vocab, make_run(bundled().model, bundled().vocab, text))


@functools.cache
def _sample():
    return held_out_strings(SAMPLE, bundled().model.config.max_len)


@functools.cache
def _forced(token):
    return forced_outcomes(bundled().model, bundled().vocab, _sample(), token)


@functools.cache
def _offsets():
    return head_offsets(bundled().model, bundled().vocab, _sample(), kind="cross")


@functools.cache
def _ablation():
    return ablation_ranking(bundled().model, bundled().vocab, _sample())


@functools.cache
def view(number: int, text: str = "banana") -> StepView:
    return step_views.step_view(number, DirectSource(text))


def charts(displays) -> list[Chart]:
    return [d for d in displays if isinstance(d, Chart)]


@pytest.mark.parametrize("number", [s.number for s in STEPS])
def test_every_step_has_its_question_and_every_chart_builds_its_figure(number):
    record = view(number)
    assert record.step is STEPS[number - 1] and record.question is not None
    assert record.before or record.after
    for chart in charts(record.before + record.after):
        figure = getattr(viz, chart.figure)(**chart.arguments)
        if isinstance(figure, dict) and "view" in figure:    # next-token bars' spec: their values, and their name
            assert len(figure["view"]["bar_order"]) and figure["view"]["bar_summary"], chart.key
        elif isinstance(figure, dict):                       # a canvas heatmap's spec: its cells, and their name
            assert figure["panels"][0]["z"] and figure["summary"], chart.key
        else:                                                # Plotly: its values, and its name
            assert all(len(trace.y) for trace in figure.figure.data) and figure.summary, chart.key


def test_step_1_shows_each_characters_token_id_and_the_length_of_its_embedding():
    record, run = view(1), DirectSource("banana").run()
    (table,) = record.before
    assert [table.columns[str(i)][1] for i in range(6)] == [str(t) for t in run.source_ids]
    raw = np.linalg.norm(run.trace["src_embed.output"] / math.sqrt(run.trace["src_embed.output"].shape[-1]), axis=1)
    assert [table.columns[str(i)][2] for i in range(6)] == [f"{x:.2f}" for x in raw]


def test_step_3_compares_the_trained_row_with_a_softmax_of_the_unscaled_scores():
    record, run = view(3), DirectSource("banana").run()
    (comparison,) = charts(record.after)
    queries = run.trace.attention("encoder_self", 0, "queries")[0]     # (S, d_k) head 0
    keys = run.trace.attention("encoder_self", 0, "keys")[0]
    raw = queries[0] @ keys.T                                              # row 0, not divided by √d_k
    unscaled = np.exp(raw - raw.max()) / np.exp(raw - raw.max()).sum()
    np.testing.assert_allclose(comparison.arguments["unscaled"], unscaled, atol=1e-5)
    np.testing.assert_allclose(comparison.arguments["scaled"], run.trace["encoder_self", 0][0, 0])
    (strip,) = [d for d in record.before if isinstance(d, Strip)]
    np.testing.assert_array_equal(strip.rows[0], run.trace["encoder_self", 0][0, 0])


def test_step_6_reveals_the_head_it_asks_about_and_its_largest_weight_is_the_answer():
    record = view(6)
    (head,) = charts(record.after)
    step = head.arguments["highlight_row"]
    top = int(np.argmax(head.arguments["weights"][step]))
    assert record.question.answer == f"{top}: {'banana'[top]}"


def test_step_8_and_10_show_what_the_model_writes_changed_and_not():
    source = DirectSource("banana")
    forced = source.run(forced=((0, source.vocab.encode("z", 1)[0]),))
    (side,) = view(8).after
    assert side.left == Written("On its own", "ananab") and side.right.text == forced.output
    off = source.run(ablated=step_views.encoder_heads(source.config))
    (side,) = view(10).after
    assert side.left == Metric("Every head working", "ananab")
    assert side.right.value == (off.output.replace(" ", "␣") or "(nothing)")


def test_step_9_puts_the_costliest_head_first_and_names_it():
    record = view(9)
    (lost,) = record.after
    column = lost.columns["exact match lost"]
    assert column == sorted(column, reverse=True) and len(column) == len(lost.columns["head"])
    base, effects = _ablation()
    assert f"{base:.1%} on the same {SAMPLE} held-out words" in lost.caption
    assert max(column) == pytest.approx(effects[0].drop)


def test_a_step_a_model_cannot_ask_has_no_question_and_an_unknown_step_is_refused():
    assert step_views.step_view(7, DirectSource("banana", snapshotted=False)).question is None
    assert step_views.step_view(9, DirectSource("banana"), ask=False).question is None   # its tables not asked for
    assert step_views.step_view(12, DirectSource("banana"), ask=False).question is None
    assert step_views.step_view(13, DirectSource("banana"), ask=False).question is None
    assert step_views.step_view(13, DirectSource("ab")).question is None        # no key beside n − i
    with pytest.raises(ValueError, match="steps 1 to 13"):
        step_views.step_view(14, DirectSource("banana"))


def test_step_11_asks_where_attention_and_the_swaps_part_and_the_swaps_answer_it():
    """On this text the last layer's averaged attention and occlusion part at some steps: the step asks about the
    first, and its answer is the position whose swaps (recomputed here as forced runs) lower the probability
    most, not the one attention weighs most."""
    text = "attention is all you need"
    record, run = step_views.step_view(11, DirectSource(text)), make_run(bundled().model, bundled().vocab, text)
    (where,) = charts(record.before)
    attention = run.trace["cross", 1].mean(0)                                      # (T, S) the last layer
    t = int(record.question.prompt.split()[1])
    np.testing.assert_allclose(where.arguments["values"][0], attention[t])
    chosen = list(run.chosen_ids)

    def drop(j):   # the mean drop in p(what step t writes) over the page's swaps of position j
        letters = [c for c in attribution.QUICK_LETTERS if c != text[j]][:attribution.QUICK_COUNT]
        forced = Decoding(forced=tuple(enumerate(run.fed_ids)))
        return np.mean([run.probs[t][chosen[t]] - make_run(bundled().model, bundled().vocab,
                                                           text[:j] + c + text[j + 1:], forced).probs[t][chosen[t]]
                        for c in letters])

    answer, looked = int(record.question.answer.split(":")[0]), int(attention[t].argmax())
    assert answer != looked and drop(answer) > drop(looked) + attribution.VARIES
    assert record.question.hint_for(f"{looked}: {run.source[looked]}") != record.question.hint
    earlier = [s for s in range(t) if attention[s].argmax() != run.source.__len__() - 1 - s]
    assert all(_lenses(text).occlusion[s, attention[s].argmax()] >= _lenses(text).occlusion[s].max() - 1e-3
               for s in earlier)                                                 # no earlier step parts
    (both,) = charts(record.after)
    np.testing.assert_allclose(both.arguments["values"][1], _lenses(text).occlusion[t])


def test_a_learners_text_with_spaces_is_shown_with_visible_spaces():
    record = view(1, "a b")
    (table,) = record.before
    assert table.columns["1"][0] == "␣"


def test_step_12_tests_the_costliest_cross_head_for_need_sufficiency_and_what_the_last_layer_builds_on_it():
    """The head is step 9's costliest cross head; each pattern's exact match is recomputed here from greedy
    decodings with the pattern written into the head's weights by hand (not through analysis.patching), and the
    right answer is the pattern that keeps the most."""
    record = view(12)
    model, vocab = bundled().model, bundled().vocab
    _, effects = _ablation()
    worst = max((e for e in effects if e.head.kind == "cross"), key=lambda e: e.drop)
    assert worst.head == Head("cross", 0, 3)
    (side, note), (table,) = record.before, record.after
    assert side.left.value == f"{worst.drop:.1%}" and "Cross L0 H3 off" in side.left.label
    words = _sample()

    def exact(keys):   # keys(n, i): the source position step i reads; None: uniform
        import torch
        from transformer.intervention import Replacement

        def weights(source, n_queries):
            n = int((source != 0).sum())
            rows = torch.zeros(1, n_queries, source.size(1))
            for i in range(n_queries):
                if keys is None:
                    rows[0, i, :n] = 1 / n
                else:
                    rows[0, i, min(max(keys(n, i), 0), n - 1)] = 1
            return rows
        edit = Intervention(replaced=(Replacement(0, weights, frozenset({3})),))
        return np.mean([make_run(model, vocab, w, edit=edit).output == w[::-1] for w in words])

    recomputed = [exact(lambda n, i: n - i), exact(lambda n, i: n - 1 - i), exact(None)]
    assert table.columns["exact match"][:3] == pytest.approx(recomputed)
    best = int(np.argmax(recomputed))
    assert record.question.answers == {record.question.options[best]} and best == 0      # n − i is enough
    assert f"{recomputed[0]:.1%}" in record.question.why and "enough" in record.question.why
    last = [f.shares.get(0, 0.0) for f in _offsets() if f.layer == model.config.n_decoder_layers - 1]
    assert f"{np.mean(last):.0%} of steps with Cross L0 H3 working" in record.question.why


def test_step_13_sets_a_repeat_beside_n_minus_i_against_its_twin_and_tests_the_weight_on_it_by_hand():
    """On "hello" (the repeat, 'l' at 2 and 3) against its twin with no repeat there: the table's weights are the
    model's own, read here from greedy runs, and the held-out figures are recomputed with the last layer's weights
    written by hand (not through analysis.lesson); the answer is the reading those numbers back."""
    import torch
    from transformer.intervention import Replacement
    record = view(13, "hello")
    model, vocab = bundled().model, bundled().vocab
    note, table = record.before
    (kept,) = record.after
    assert table.index[0] == "hello" and table.index[1] != "hello" and len(table.index[1]) == 5
    twin = table.index[1]
    assert twin[:3] + twin[4] == "helo" and twin[3] not in "hello"          # the one letter beside n − i changed
    for row, text in enumerate(table.index):
        run = make_run(model, vocab, text)
        last = np.asarray(run.trace["cross", 1][:, 3], dtype=float)              # (H, S) step 3; n − i = 2
        assert table.columns["last layer on n − 1 − i"][row] == pytest.approx(last.mean(0)[1], abs=0.005)
        assert table.columns["last layer on n − i"][row] == pytest.approx(last.mean(0)[2], abs=0.005)
        assert table.columns["heads' largest on n − i"][row] == f"{int((last.argmax(-1) == 2).sum())} of 4"
        assert table.columns["read head on n − i"][row] == pytest.approx(float(run.trace["cross", 0][3, 3, 2]), abs=0.005)
        assert table.columns["writes"][row] == run.output[3] == "e"
    assert table.columns["heads' largest on n − i"][0] == "3 of 4"           # the exception: the largest is on 'l'

    words = _sample()

    def exact(other):   # every last-layer head half on n − 1 − i, half on n − 1 − i + other
        def weights(source, n_queries):
            n = int((source != 0).sum())
            rows = torch.zeros(1, n_queries, source.size(1))
            for i in range(n_queries):
                for key in (n - 1 - i, n - 1 - i + other):
                    rows[0, i, min(max(key, 0), n - 1)] += 0.5
            return rows
        edit = Intervention(replaced=(Replacement(1, weights),))
        return np.mean([make_run(model, vocab, w, edit=edit).output == w[::-1] for w in words])

    read, neighbour = exact(+1), exact(-1)
    assert kept.columns["exact match"][1:] == pytest.approx([read, neighbour])
    assert read >= 0.9 and neighbour <= 0.3                       # the weight on the letter just read hardly counts
    assert record.question.answers == {record.question.options[1]}
    assert f"{read:.0%} exact match" in record.question.why and f"other neighbour, {neighbour:.0%}" in record.question.why


@pytest.mark.parametrize("text", ["level up", "abc de", "aaaa", "the quick brown fox"])
def test_step_13_twins_are_texts_the_model_reads_and_differ_in_one_letter_beside_n_minus_i(text):
    """"level up" at step 3 has just read a space, which cannot stand twice: the step moves to the nearest one
    whose twin is a text the learner could have typed (the full suite once failed the teacher's sheet here)."""
    record = view(13, text)
    assert record.question is not None
    repeated, single = record.before[1].index
    repeated, single = repeated.replace("␣", " "), single.replace("␣", " ")
    for twin in (repeated, single):
        bundled().vocab.check(twin, bundled().model.config.max_len)
    assert text in (repeated, single) and sum(a != b for a, b in zip(repeated, single)) == 1
    step = int(record.question.prompt.split()[2])
    k = len(text) - step
    assert repeated[k] == repeated[k + 1] != single[k + 1]
