"""Compare tasks' record against the three bundled models run here: the most task-like head recounted step by step
from the traces, the sharpest layer-0 head found again, and the sentences held to the shares the record holds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.circuits import CONTENT_CONTENT, FOUR, POSITION_POSITION, TERMS
from analysis.page_models.compare_tasks import COMPARED, SHARPEST, compare_tasks_view

from .conftest import checkpoint, run_of

PANGRAM = "the quick brown fox jumps over the lazy dog"


def view_of(text: str, split_head: int | str = SHARPEST):
    return compare_tasks_view({t: checkpoint(t) for t in COMPARED}, {t: run_of(text, t) for t in COMPARED},
                              split_head)


def allowed_keys(text: str, task: str) -> list[set[int]]:
    """For each output step, the source positions its task reads from, written out again here."""
    n = len(text)
    if task == "reverse":
        return [{n - 1 - i} for i in range(n)]
    if task == "copy":
        return [{i} for i in range(n)]
    return [{j for j in range(n) if text[j] == c} for c in sorted(text)]     # sort: any copy of the i-th smallest


def test_each_model_shows_its_most_task_like_cross_head_counted_step_by_step():
    text = "banana split"
    view = view_of(text)
    assert [c.task for c in view.columns] == ["reverse", "copy", "sort"]
    assert view.labels == {"reverse": "Reverse", "copy": "Copy", "sort": "Sort"}
    for column in view.columns:
        run = run_of(text, column.task)
        keys = allowed_keys(text, column.task)
        on_pattern = [[[int(run.trace["cross", layer][h, i].argmax()) in keys[i] for i in range(len(text))]
                       for h in range(4)] for layer in range(2)]                              # (L, H, n)
        shares = np.mean(on_pattern, axis=-1)                                                 # (L, H)
        assert np.allclose(column.shares, shares)
        assert shares[column.layer, column.head] == shares.max()
        assert np.array_equal(column.best, run.trace["cross", column.layer][column.head])
        assert column.best_title == f"cross L{column.layer} H{column.head}"
        assert column.best_caption.startswith(f"Cross L{column.layer} H{column.head}: {shares.max():.0%} of your "
                                              "text's output steps")
        assert ("or an equal letter" in column.best_caption) == (column.task == "sort")
        assert column.run.output == run.output and column.wrong_note is None        # all three get it right
        assert column.rows == [f"{a}→{b}" for a, b in zip(run.decoder_in, run.decoder_out)]
        assert np.array_equal(column.grid, np.stack([run.trace["cross", layer] for layer in range(2)]))
        assert column.grid_title == f"{column.label}: cross-attention, every layer and head"


def test_a_model_wrong_on_the_text_is_shown_beside_its_held_out_score():
    view = view_of(PANGRAM)
    wrong = [c for c in view.columns if c.run.output != c.run.target]
    assert wrong, "some bundled model must get the pangram wrong for this test to mean anything"
    for column in view.columns:
        held_out = checkpoint(column.task).metrics["held_out"]
        if column in wrong:
            assert column.wrong_note.startswith(f"Wrong on your text, though it writes {held_out['exact_match']:.2%} "
                                                f"of {held_out['n']:,} held-out random strings exactly")
        else:
            assert column.wrong_note is None


@pytest.mark.parametrize("text", ["hello", PANGRAM])
def test_the_sharpest_layer_0_head_is_split_and_its_sentence_weighs_position_against_content(text):
    view = view_of(text)
    for column, row in zip(view.columns, view.split_table.to_dict("records")):
        cross = run_of(text, column.task).trace["cross", 0]                        # (H, T, S)
        assert column.split_head == int(cross.max(-1).mean(-1).argmax())           # the largest mean top weight
        assert row["task"] == column.label and row["head"] == f"cross L0 H{column.split_head}"
        assert [row[name] for name in TERMS] == [column.split_shares[name] for name in TERMS]
        assert sum(column.split_shares.values()) == pytest.approx(1.0)
        for name in FOUR:                                                           # (T, S), row mean taken away
            term = column.split_terms[name]
            assert term.shape == column.best.shape and np.allclose(np.nanmean(term, axis=1), 0, atol=1e-9)
        share = column.split_shares
        position, content = share[POSITION_POSITION], share[CONTENT_CONTENT]
        largest = max(share, key=share.get)
        assert column.split_sentence.startswith(f"**{column.label}**, cross L0 H{column.split_head}: the largest "
                                                f"part is *{largest}* (**{share[largest]:.1%}**). Position·position "
                                                f"carries **{position:.1%}** and content·content **{content:.1%}**")
        verdict = "position weighs more" if position > content else "content weighs more"
        assert verdict in column.split_sentence
        assert column.split_title.startswith(f"{column.label}: cross L0 H{column.split_head}, its content")


def test_a_chosen_head_is_split_in_every_model_and_one_character_has_nothing_to_move():
    view = view_of("hello", 2)
    assert [c.split_head for c in view.columns] == [2, 2, 2]
    assert list(view.split_table["head"]) == ["cross L0 H2"] * 3
    single = view_of("a")
    for column in single.columns:
        assert all(math.isnan(x) for x in column.split_shares.values())
        assert column.split_sentence == (f"**{column.label}**: your text has one character, so each row has one key "
                                         "and no term can move a weight.")
