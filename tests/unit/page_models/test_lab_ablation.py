"""The head-ablation lab's records: the probabilities and attention with heads off, worked out again from the model's
own pass with the same heads zeroed, and the single-head table's wording on every branch.

The page's table switches each of the 24 heads off over 200 held-out words (minutes of decoding even on 10 words),
so the table's tests feed it effects made here: the page model only ranks, names and words them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from analysis.lab import HeadEffect
from analysis.page_models.lab_ablation import presets, single_head_table, switched_off
from analysis.run import Decoding
from transformer.intervention import Head, Intervention, every_head
from transformer.vocab import EOS, SOS

from .conftest import checkpoint, run_of

TEACHER = Decoding(teacher=True)
LAST_CROSS = frozenset(Head("cross", 1, h) for h in range(4))


def forced_pass(ckpt, text, answer, edit):
    """The model reading `answer` after ⟨s⟩, with `edit`: (T, V) probabilities and the trace, made here."""
    src = ckpt.vocab.encode(text, ckpt.model.config.max_len)
    tgt = [SOS, *ckpt.vocab.encode_output(answer, ckpt.model.config.max_len)]
    with torch.inference_mode():
        out = ckpt.model(torch.tensor([src]), torch.tensor([tgt]), trace=True, edit=edit)
    return torch.softmax(out.logits[0], -1).numpy(), out.trace


@pytest.mark.parametrize("task, text, answer", [("reverse", "banana", "ananab"), ("copy", "to be", "to be")])
def test_the_bars_are_the_probability_of_each_correct_character_with_and_without_the_heads(task, text, answer):
    ckpt = checkpoint(task)
    edit = Intervention(ablated=LAST_CROSS)
    view = switched_off(ckpt.vocab, ckpt.model.config, run_of(text, task), run_of(text, task, TEACHER),
                        run_of(text, task, TEACHER, edit), len(LAST_CROSS), "cross", 1, 2)
    correct = [*ckpt.vocab.encode_output(answer, ckpt.model.config.max_len), EOS]
    steps = np.arange(len(correct))
    for shown, intervention in ((view.p_before, Intervention()), (view.p_after, edit)):
        probs, _ = forced_pass(ckpt, text, answer, intervention)
        assert np.allclose(shown, probs[steps, correct], atol=1e-6)
    assert view.steps == [c.replace(" ", "␣") for c in answer] + ["⟨/s⟩"]
    assert view.before_output == answer.replace(" ", "␣") and view.off_label == "4 head(s) off"
    assert f"Mean: {view.p_before.mean():.3f} unchanged, {view.p_after.mean():.3f} changed." in (
        view.probability_caption)
    assert view.p_after.mean() < view.p_before.mean()        # the last layer's cross heads carry the task


def test_the_changed_attention_is_the_chosen_head_with_and_without_the_heads_off(reverser):
    edit = Intervention(ablated=frozenset({Head("encoder_self", 0, 3)}))
    view = switched_off(reverser.vocab, reverser.model.config, run_of("level"), run_of("level", how=TEACHER),
                        run_of("level", how=TEACHER, intervention=edit), 1, "decoder_self", 1, 2)
    _, was = forced_pass(reverser, "level", "level", Intervention())
    _, now = forced_pass(reverser, "level", "level", edit)
    assert np.allclose(view.was, was["decoder_self", 1][0, 2].numpy(), atol=1e-6)
    assert np.allclose(view.now, now["decoder_self", 1][0, 2].numpy(), atol=1e-6)
    assert view.rows == view.cols == ["⟨s⟩", *"level"]
    assert view.changed_title == "Decoder self-attention, layer 1, head 2"
    change = np.abs(view.now - view.was)
    assert change.max() > 0
    assert f"Largest change of any weight: **{change.max():.3f}**; mean change {change.mean():.4f}." in (
        view.change_caption)


def test_nothing_switched_off_changes_nothing(reverser):
    taught = run_of("hello", how=TEACHER)
    view = switched_off(reverser.vocab, reverser.model.config, run_of("hello"), taught, taught, 0, "cross", 0, 0)
    assert np.array_equal(view.p_before, view.p_after) and view.off_label == "0 head(s) off"
    assert "Largest change of any weight: **0.000**" in view.change_caption


def test_the_presets_name_heads_the_picker_offers(reverser):
    config = reverser.model.config
    names = {str(h) for h in every_head(config.layers_per_kind, config.n_heads)}
    chosen = presets(config)
    assert list(chosen) == ["the 4 cross heads of the last layer", "one of them", "every encoder head", "none"]
    assert chosen["the 4 cross heads of the last layer"] == [str(h) for h in sorted(LAST_CROSS)]
    assert chosen["one of them"] == ["cross L1 H0"]
    assert chosen["every encoder head"] == [f"encoder_self L{layer} H{h}" for layer in range(2) for h in range(4)]
    assert all(set(heads) <= names for heads in chosen.values()) and chosen["none"] == []
    one_head = presets(dataclasses.replace(config, n_heads=1, n_decoder_layers=3))
    assert one_head["the cross head of the last layer"] == ["cross L2 H0"]


def effects(drops: dict[Head, float], base: float) -> list[HeadEffect]:
    """As analysis.lab.ablation_ranking returns them: costliest first, ties by head."""
    return sorted((HeadEffect(h, base - d, d) for h, d in drops.items()), key=lambda e: (-e.drop, e.head))


def test_a_perfect_base_bounds_the_heads_that_break_nothing_by_the_rule_of_three(reverser):
    config = reverser.model.config
    heads = every_head(config.layers_per_kind, config.n_heads)
    drops = {h: 0.0 for h in heads} | {Head("cross", 1, 0): 0.4, Head("encoder_self", 0, 1): 0.02}
    table = single_head_table(1.0, effects(drops, 1.0), 200, 3.5355, 1.5)
    assert table.exact_column == "exact match without it (of 200)"
    assert list(table.table.columns) == ["head", table.exact_column, "exact match lost"]
    assert table.table["head"].iloc[0] == "cross L1 H0" and len(table.table) == len(heads)
    assert np.allclose(table.table[table.exact_column] + table.table["exact match lost"], 1.0)
    assert table.caption.startswith("With every head working: 100.0% exact match on the same 200 held-out words. "
                                    "The worst single loss is **cross L1 H0** (40.0% lost). ")
    free = len(heads) - 2
    assert f"{free} head(s) break no word of these, which bounds their cost below about 1.5 points" in table.caption
    assert "±3.5 points of sampling noise" in table.caption


def test_an_imperfect_base_says_losses_may_cancel():
    drops = {Head("cross", 0, 0): 0.1, Head("cross", 0, 1): 0.0, Head("cross", 0, 2): -0.02}
    table = single_head_table(0.9, effects(drops, 0.9), 50, 7.07, 6.0)
    assert table.table["head"].to_list() == ["cross L0 H0", "cross L0 H1", "cross L0 H2"]
    assert "90.0% exact match on the same 50 held-out words" in table.caption
    assert "1 head(s) lose nothing on balance here" in table.caption and "rule of three" not in table.caption
    assert "±7.1 points" in table.caption
