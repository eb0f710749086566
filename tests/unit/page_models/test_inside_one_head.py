"""Inside one head's record: the chosen key, the softmax row rebuilt from its e^(s − max) column, the score's
terms adding up to the model's score, what the sublayer adds, and the logit lens after the last layer read
against the run's own probabilities."""

from __future__ import annotations

import numpy as np
import pytest

from analysis.page_models.inside_one_head import MOST, inside_view
from analysis.run import correct_tokens
from transformer.intervention import NO_INTERVENTION, Head, Intervention

from .conftest import checkpoint, run_of


def view_of(text, kind, layer, head, i, picked=MOST, edit=NO_INTERVENTION, ablated=()):
    ckpt = checkpoint("reverse")
    return inside_view(ckpt.model, ckpt.vocab, run_of(text, intervention=edit), kind, layer, head, i, picked, edit,
                       ablated)


@pytest.mark.parametrize("kind, layer, head, i", [("encoder_self", 0, 1, 2), ("decoder_self", 1, 3, 4),
                                                  ("cross", 1, 2, 3)])
def test_the_row_softmax_is_the_trace_weights_and_the_chosen_key_is_the_largest(kind, layer, head, i):
    view = view_of("banana", kind, layer, head, i)
    weights = run_of("banana").trace[kind, layer][head][i]                    # (Tk,)
    assert view.j == int(weights.argmax()) and view.weight == pytest.approx(weights.max(), abs=1e-5)
    exps = view.softmax_table["e^(s − max s)"].to_numpy()
    assert exps.max() == pytest.approx(1.0)
    assert np.allclose(exps / exps.sum(), weights, atol=1e-5)
    assert np.allclose(view.softmax_table["weight (the model)"], weights)
    assert f"The weights sum to {weights.sum():.6f}" in view.softmax_caption
    assert view.inside.largest_difference <= 1e-4
    assert view.header.endswith(f"query {i} `{view.axes.rows[i]}` → key {view.j} `{view.axes.cols[view.j]}`")


def test_a_masked_key_has_no_score_and_nothing_in_the_softmax():
    view = view_of("level", "decoder_self", 0, 1, 2, picked=4)                 # key 4 is after query 2
    assert view.score_metric == "masked (−∞)" and view.weight == 0
    assert view.softmax_table["e^(s − max s)"][3:].eq(0).all()
    assert "Key 4 is masked" in view.score_sentence and "3 masked keys" in view.softmax_caption


def test_at_layer_0_the_terms_add_up_to_the_model_score():
    view = view_of("banana", "encoder_self", 0, 1, 2)
    score = float(view.inside.attention.scores.traced[1, view.j])
    assert view.terms is not None and view.terms.intro is not None
    assert sum(view.terms.cell.values()) == pytest.approx(score, abs=1e-3)
    later = view_of("banana", "encoder_self", 1, 1, 2)
    assert later.terms.intro is None and later.terms.sentence.startswith("The split is shown for layer 0.")


def test_what_the_sublayer_adds_and_a_switched_off_head_sending_nothing():
    edit = Intervention(frozenset({Head("cross", 1, 2)}))
    view = view_of("banana", "cross", 1, 2, 3, edit=edit, ablated=(("cross", 1, 2),))
    added = view.inside.attention.output.traced                            # (d_model,) what the model added
    assert f"**{np.linalg.norm(view.inside.attention.output.derived):.2f}**" in view.concat_sentence
    assert np.allclose(view.inside.attention.output.derived, added, atol=1e-4)
    assert "(switched off: head 2, all zeros)" in view.concat_sentence
    assert view.softmax_table["sends ‖w·v·W_O‖"].eq(0).all()
    assert view.softmax_caption.endswith("It is all 0 here: this head is switched off.")
    assert view.ablated_note.startswith("1 head(s) switched off: cross L1 H2")
    assert view.letters is not None and f"On **{view.letters.copies} of" in view.letters_sentence


def test_the_logit_lens_after_the_last_layer_is_the_runs_own_probability_of_the_right_character():
    ckpt = checkpoint("reverse")
    run = run_of("banana")
    view = view_of("banana", "cross", 1, 0, 0)
    correct = correct_tokens(ckpt.vocab, "banana", ckpt.model.config.max_len)
    own = np.array([run.probs[t, token] for t, token in enumerate(correct)])   # (T,)
    assert np.allclose(view.lens_correct_p[-1, : len(own)], own, atol=1e-4)
    assert f"after layer {len(view.lens_correct_p) - 1}: **{own[:6].mean():.3f}**" in view.lens_caption
    assert view.lens_steps[:6] == list("ananab")
