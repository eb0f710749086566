"""No positions: the maps are the model's own cross-attention with the codes taken away, worked out again from a
pass of the model made here; the caption's reading of the copies of a letter follows the gap measured on that map.

The page's exact matches come from 200 held-out words each (explorer.lab_runs.sample_exact_match); the record
only words them, so the tests hand it numbers.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.labels import weight_text
from analysis.page_models.lab_positions import no_positions, positions_text, taken_away, target_codes_caption
from analysis.run import Decoding
from transformer.data import target
from transformer.intervention import Intervention
from transformer.vocab import SOS

from .conftest import checkpoint, run_of

TEACHER = Decoding(teacher=True)


def cross_map(task: str, text: str, edit: Intervention, layer: int) -> np.ndarray:
    """(T, S) the head average of one cross layer, the task's correct output fed in, made here."""
    ckpt = checkpoint(task)
    limit = ckpt.model.config.max_len
    src = torch.tensor([ckpt.vocab.encode(text, limit)])
    tgt = torch.tensor([[SOS, *ckpt.vocab.encode_output(target(text, task), limit)]])
    with torch.inference_mode():
        trace = ckpt.model(src, tgt, trace=True, edit=edit).trace
    return trace["cross", layer][0].mean(0).numpy()


def largest_gap(weights: np.ndarray, text: str) -> float | None:
    """The largest difference between the weights two copies of one letter get from one query."""
    groups = [[j for j, c in enumerate(text) if c == ch] for ch in set(text) if text.count(ch) > 1]
    return max((float((weights[:, g].max(1) - weights[:, g].min(1)).max()) for g in groups), default=None)


def view_of(task, text, mode, sides, layer, kept=1.0, lost=0.25, seed=0):
    ckpt = checkpoint(task)
    edit = Intervention(positions=mode, sides=frozenset(sides), shuffle_seed=seed)
    return no_positions(ckpt.model.config, run_of(text, task, TEACHER), run_of(text, task, TEACHER, edit), mode,
                        sides, kept, lost, layer), edit


@pytest.mark.parametrize("task, text, mode, sides, layer", [
    ("reverse", "banana", "zero", ("source", "target"), 1),
    ("reverse", "hello world", "shuffle", ("source",), 0),
    ("copy", "level", "zero", ("target",), 1),
    ("sort", "banana", "shuffle", ("source", "target"), 1)])
def test_the_maps_are_the_layers_head_average_with_and_without_the_codes(task, text, mode, sides, layer):
    view, edit = view_of(task, text, mode, sides, layer, seed=3)
    assert np.allclose(view.maps[0], cross_map(task, text, Intervention(), layer), atol=1e-6)
    assert np.allclose(view.maps[1], cross_map(task, text, edit, layer), atol=1e-6)
    assert view.rows == ["⟨s⟩", *(c.replace(" ", "␣") for c in target(text, task))]
    assert view.cols == [c.replace(" ", "␣") for c in text]
    assert view.map_names == ["with positions", f"positions {'removed (zeroed)' if mode == 'zero' else 'shuffled'}"]
    assert view.title == f"Cross-attention, layer {layer}, average of the 4 heads (a summary)"
    pattern = {"reverse": "the anti-diagonal", "copy": "the diagonal", "sort": "the sorted order"}[task]
    assert view.caption.startswith(f"The task's pattern is {pattern}: output step i copies ")


def test_zeroed_source_codes_leave_the_copies_of_a_letter_alike_and_the_caption_says_so():
    view, edit = view_of("reverse", "banana", "zero", ("source", "target"), 1)
    gap = largest_gap(cross_map("reverse", "banana", edit, 1), "banana")
    assert gap < 1e-6                         # the same vector into a permutation-equivariant encoder
    assert "a query can only follow *which* letter, not *where*" in view.caption
    assert ("exactly the same weight from every query." if gap == 0 else
            f"the same weight from every query (they differ by at most {weight_text(gap)}).") in view.caption


@pytest.mark.parametrize("mode, sides", [("zero", ("target",)), ("shuffle", ("source",)),
                                         ("shuffle", ("source", "target"))])
def test_with_source_codes_of_some_kind_the_copies_differ_by_the_measured_gap(mode, sides):
    view, edit = view_of("reverse", "hello", mode, sides, 1)
    gap = largest_gap(cross_map("reverse", "hello", edit, 1), "hello")
    assert gap > 1e-6 and view.caption.endswith(f"weights that differ by up to {weight_text(gap)} from one query.")
    assert "still carry different codes" in view.caption
    config = checkpoint("reverse").model.config
    drawn = (f"drawn from all {config.max_positions} rows of the code table, most of them past the "
             f"{config.max_len + 1} positions the decoder met in training")
    assert (drawn in view.caption) == (mode == "shuffle" and "target" in sides)
    assert ("each step no longer knows which step it is" in view.caption) == (mode == "zero")


def test_a_text_without_a_repeated_letter_says_the_map_cannot_show_it():
    view, _ = view_of("reverse", "abc", "zero", ("source",), 0)
    assert view.caption.endswith("Your text repeats no character, so this map cannot show it: try one that does, "
                                 "like hello.")


def test_a_small_code_table_has_only_some_rows_past_the_trained_positions():
    said = positions_text("shuffle", ("target",), None, table_rows=40, trained=25)
    assert "drawn from all 40 rows of the code table, some of them past the 25 positions" in said
    assert "the source keeps its own codes" in said


def test_the_exact_matches_are_shown_with_their_change():
    view, _ = view_of("reverse", "level", "zero", ("target",), 0, kept=0.98, lost=0.031)
    assert (view.kept, view.lost, view.change) == ("98.0%", "3.1%", "-94.9%")
    view, _ = view_of("reverse", "level", "shuffle", ("source",), 0, kept=0.5, lost=0.75)
    assert view.change == "+25.0%"


def test_the_caption_above_the_controls_follows_the_share():
    low, high = target_codes_caption(0.125, 200), target_codes_caption(0.5, 50)
    assert low.startswith("With the codes zeroed in the decoder alone, this model gets 12.5% of 200 held-out words")
    assert low.endswith("it cannot do without its target codes; it learnt to rely on them too.")
    assert "gets 50.0% of 50 held-out words" in high and high.endswith("it copes without its target codes.")


def test_the_output_metrics_name_the_set_up():
    outputs = taken_away(run_of("to be"), "shuffle", ("source", "target"))
    assert outputs.before_output == target("to be", "reverse").replace(" ", "␣")
    assert outputs.after_label == "Positions shuffled in the source and target"
    assert taken_away(run_of("to be"), "zero", ("target",)).after_label == "Positions removed (zeroed) in the target"
