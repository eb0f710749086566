"""Inside one head: every number derived again from the weights equals the model's own, for every kind, layer
and head; value-weighted attention and the logit lens follow from the model."""

import copy

import numpy as np
import pytest
import torch
from torch import nn

from analysis.inside import TOLERANCE, inside_head, logit_lens, residual_norms, value_weighted
from analysis.run import correct_tokens, make_run
from transformer.config import ModelConfig
from transformer.intervention import Head, Intervention
from transformer.model import Transformer
from transformer.trace import KINDS

SWITCHED_OFF = Intervention(frozenset({Head("cross", 1, 2), Head("decoder_self", 0, 1), Head("encoder_self", 1, 0)}))


def every_cell_checked(model, vocab, text, edit=Intervention()):
    """The largest difference over every kind, layer, head and query, at key 0 and at each row's top key."""
    run = make_run(model, vocab, text, edit=edit)
    worst = 0.0
    for kind in KINDS:
        for layer in range(run.trace.n_layers(kind)):
            for head in range(model.config.n_heads):
                weights = run.trace[kind, layer][head]                 # (Tq, Tk)
                for query in range(weights.shape[0]):
                    for key in {0, int(weights[query].argmax())}:
                        inside = inside_head(model, run.trace, kind, layer, head, query, key, edit)
                        assert inside.attention.weights.derived[head, key] == pytest.approx(weights[query, key],
                                                                                            abs=TOLERANCE)
                        worst = max(worst, inside.largest_difference)
    return worst


@pytest.mark.parametrize("text", ["banana", "abcabcabcabcabcabcabcabc"], ids=["repeats", "24 characters"])
@pytest.mark.parametrize("edit", [Intervention(), SWITCHED_OFF], ids=["every head", "three heads off"])
def test_every_number_derived_again_matches_the_bundled_models_trace(bundled, text, edit):
    assert every_cell_checked(bundled.model, bundled.vocab, text, edit) <= TOLERANCE


@pytest.mark.parametrize("norm", ["pre", "post"])
@pytest.mark.parametrize("edit", [Intervention(), Intervention(frozenset({Head("cross", 1, 1), Head("encoder_self", 0, 0)}))],
                         ids=["every head", "two heads off"])
def test_the_derivation_holds_for_pre_and_post_norm_models(bundled, norm, edit):
    torch.manual_seed(1)
    model = Transformer(ModelConfig(d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=2, d_ff=24,
                                    max_len=24, norm=norm)).eval()
    for p in model.parameters():  # random LayerNorm gains and biases, so the test sees them used
        nn.init.normal_(p, std=0.5)
    assert every_cell_checked(model, bundled.vocab, "level", edit) <= TOLERANCE


def test_the_difference_is_measured_not_assumed(bundled):
    """Another model's weights against the bundled model's trace: the page's figure would show the mismatch."""
    run = make_run(bundled.model, bundled.vocab, "level")
    other = copy.deepcopy(bundled.model)
    with torch.no_grad():
        other.decoder_layers[1].cross_attention.w_q.weight.mul_(1.1)
    assert inside_head(bundled.model, run.trace, "cross", 1, 0, 2, 2).largest_difference <= TOLERANCE
    assert inside_head(other, run.trace, "cross", 1, 0, 2, 2).largest_difference > 1e-2


def test_a_switched_off_head_computes_its_output_and_passes_none_of_it_on(bundled):
    edit = Intervention(frozenset({Head("cross", 1, 2)}))
    run = make_run(bundled.model, bundled.vocab, "level", edit=edit)
    inside = inside_head(bundled.model, run.trace, "cross", 1, 2, 1, 3, edit)
    d_k = inside.d_k
    assert inside.switched_off
    assert np.abs(inside.attention.heads.derived[2]).max() > 0.1               # it still computes
    assert np.all(inside.attention.concat.derived[2 * d_k:3 * d_k] == 0)        # and sends nothing
    assert np.abs(inside.attention.concat.derived[:2 * d_k]).max() > 0.1
    assert np.all(value_weighted(bundled.model, run.trace, "cross", 1, edit)[2] == 0)


@pytest.mark.parametrize("kind", KINDS)
def test_value_weighted_attention_is_the_length_of_what_each_key_sends_through_the_head(bundled, kind):
    run = make_run(bundled.model, bundled.vocab, "banana")
    module = {"encoder_self": bundled.model.encoder_layers[0].self_attention,
              "decoder_self": bundled.model.decoder_layers[0].self_attention,
              "cross": bundled.model.decoder_layers[0].cross_attention}[kind]
    weights, values = run.trace[kind, 0], run.trace.attention(kind, 0, "values")      # (H,Tq,Tk), (H,Tk,d_k)
    w_o, bias = module.w_o.weight.detach().double().numpy(), module.w_o.bias.detach().double().numpy()
    d_k = values.shape[-1]
    sent = np.einsum("hqk,hkd,ehd->hqke", weights, values,                            # (H,Tq,Tk,d_model)
                     w_o.reshape(-1, weights.shape[0], d_k))
    assert np.allclose(sent.sum(axis=(0, 2)) + bias, run.trace.attention(kind, 0, "output"), atol=1e-4)
    assert np.allclose(value_weighted(bundled.model, run.trace, kind, 0), np.linalg.norm(sent, axis=-1), atol=1e-5)


def test_the_logit_lens_after_layer_0_is_the_model_cut_after_layer_0(bundled):
    model, vocab = bundled.model, bundled.vocab
    run = make_run(model, vocab, "banana")
    lens = logit_lens(model, run.trace, correct_tokens(vocab, "banana", 24))
    cut = copy.deepcopy(model)
    cut.decoder_layers = nn.ModuleList(cut.decoder_layers[:1])
    src, tgt = torch.tensor([run.source_ids]), torch.tensor([run.decoder_in_ids])
    with torch.inference_mode():
        probs = torch.softmax(cut(src, tgt).logits[0], -1).numpy()                     # (T, V)
    assert np.array_equal(lens.top_ids[0], probs.argmax(-1))
    assert np.allclose(lens.top_p[0], probs.max(-1), atol=1e-6)
    correct = correct_tokens(vocab, "banana", 24)
    assert np.allclose(lens.correct_p[0], probs[np.arange(len(correct)), correct], atol=1e-6)
    assert np.array_equal(lens.top_ids[-1], run.logits.argmax(-1))
    assert lens.last_difference <= TOLERANCE


def test_residual_norms_read_each_block_of_the_stack(bundled):
    run = make_run(bundled.model, bundled.vocab, "level")
    rows = residual_norms(run.trace, "decoder", 2)
    assert [r.step for r in rows] == ["embedding + position", *(f"decoder layer {i} {part}" for i in range(2)
                                      for part in ("self-attention", "cross-attention", "feed-forward"))]
    assert rows[-1].stream == pytest.approx(np.linalg.norm(run.trace["decoder_layers.1.feed_forward_residual.output"][2]))
    assert rows[5].added == pytest.approx(np.linalg.norm(run.trace["decoder_layers.1.cross_attention.output"][2]))
    assert len(residual_norms(run.trace, "encoder", 0)) == 1 + 2 * 2
