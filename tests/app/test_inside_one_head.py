"""Inside one head: every number the page shows is the model's own (read back from the page's charts and
tables, compared with a trace made here), for every kind, on a word with repeated letters."""

import html

import numpy as np
import pytest

from analysis.circuits import FOUR, POSITION_POSITION, TERMS, WITH_WRITTEN, letter_map, score_split
from analysis.functional_split import position_means
from analysis.page_models.inside_one_head import ROLES_NEED_EVERY_HEAD
from analysis.inside import TOLERANCE
from analysis.run import correct_tokens, make_run
from transformer.intervention import Head, Intervention
from transformer.trace import attention_path

from ..unit.own_split import own_terms, share as own_share
from .helpers import array, canvas_charts, cell_rows, cell_tables, figures, no_exception, open_page, own_model_state

TOTAL = "sum = the score"

# kind, layer, head, query, key, the stream it reads, its residual block, its feed-forward
CELLS = [
    ("encoder_self", 0, 3, 4, 1, "src_positions.output", "encoder_layers.0.attention_residual",
     "encoder_layers.0.feed_forward"),
    ("decoder_self", 1, 2, 5, 3, "decoder_layers.0.feed_forward_residual.output", "decoder_layers.1.self_residual",
     "decoder_layers.1.feed_forward"),
    ("cross", 1, 0, 2, 3, "decoder_layers.1.self_residual.output", "decoder_layers.1.cross_residual",
     "decoder_layers.1.feed_forward"),
]


def state(kind, layer, head, query, key, **more):
    return {"inside_kind": kind, "inside_layer": layer, "inside_head": head, "inside_query": query,
            "inside_key": key, **more}


def z(spec):
    """A canvas heatmap's one panel (its values to 4 places: compared within 5e-5)."""
    return np.array(spec["panels"][0]["z"], dtype=float)


@pytest.mark.parametrize("kind,layer,head,query,key,before,residual,ffn", CELLS, ids=[c[0] for c in CELLS])
def test_every_number_on_the_page_is_the_models_own(ckpt, kind, layer, head, query, key, before, residual, ffn):
    at = open_page("inside_one_head", "banana", state=state(kind, layer, head, query, key))
    no_exception(at)
    charts = canvas_charts(at)
    run = make_run(ckpt.model, ckpt.vocab, "banana")
    t, path, close = run.trace, attention_path(kind, layer), dict(atol=1e-5)

    assert np.allclose(z(charts["overview"]), t[kind, layer][head], atol=5e-5)           # the head's weights
    assert charts["overview"]["panels"][0]["outlines"] == [[query, key, key + 1]]       # the chosen cell
    stream, qkv, weighted, concat = (list(cell_rows(m).values()) for m in cell_tables(at))
    assert np.allclose(stream[0], t[before][query], **close)                               # x_i
    assert np.allclose(stream[1], t[f"{residual}.sublayer_input"][query], **close)         # LN(x_i)
    q, k, v, products = qkv
    assert np.allclose(q, t[f"{path}.queries"][head, query], **close)
    assert np.allclose(k, t[f"{path}.keys"][head, key], **close)
    assert np.allclose(v, t[f"{path}.values"][head, key], **close)
    assert np.allclose(products, q * k, **close)
    assert products.sum() / np.sqrt(len(q)) == pytest.approx(t[f"{path}.scores"][head, query, key], abs=1e-4)
    row = t[f"{path}.weights"][head, query]
    table = at.dataframe[0].value                                                          # the softmax row
    assert np.allclose(table["weight (here)"], row, **close)
    assert np.allclose(table["weight (the model)"], row, atol=1e-7)
    scores = [-np.inf if s.startswith("−∞") else float(s) for s in table["score s"]]
    assert np.allclose(scores, t[f"{path}.scores"][head, query], atol=1e-4)
    weighted = np.stack(weighted)
    assert np.allclose(weighted[:-1], row[:, None] * t[f"{path}.values"][head], **close)
    assert np.allclose(weighted[-1], t[f"{path}.heads"][head, query], **close)             # their sum
    concat, out, x, after = concat
    assert np.allclose(concat, t[f"{path}.concat"][query], **close)
    assert np.allclose(out, t[f"{path}.output"][query], **close)
    assert np.allclose(x, t[before][query], **close)
    assert np.allclose(after, t[f"{residual}.output"][query], **close)
    active = int((t[f"{ffn}.hidden"][query] > 0).sum())
    assert any(f"{active} of its 256 hidden units are above 0" in m.value for m in at.markdown)
    assert at.metric[0].value == f"{row[key]:.4f}"

    checks = at.dataframe[1].value
    assert len(checks) >= 14
    shown = float(at.metric[1].value)
    assert shown == pytest.approx(float(f"{checks['difference ÷ size'].max():.1e}"))      # the page's own figure
    assert shown <= TOLERANCE

    stack = "encoder" if kind == "encoder_self" else "decoder"
    final = f"{stack}_layers.1.feed_forward_residual.output"
    norms = at.dataframe[2].value
    assert norms["‖stream after it‖"].iloc[-1] == pytest.approx(np.linalg.norm(t[final][query]), rel=1e-5)
    last_ffn = f"{stack}_layers.1.feed_forward.output"
    assert norms["‖what it added‖"].iloc[-1] == pytest.approx(np.linalg.norm(t[last_ffn][query]), rel=1e-5)
    lens = z(charts["lens"])                                                               # (layers, steps)
    correct = correct_tokens(ckpt.vocab, "banana", 24)
    assert np.allclose(lens[-1], run.probs[np.arange(len(correct)), correct], atol=5e-5)


def test_the_key_defaults_to_the_one_the_query_attends_to_most(ckpt):
    at = open_page("inside_one_head", "banana", state={"inside_kind": "cross", "inside_query": 1})
    no_exception(at)
    assert at.selectbox(key="inside_key").value == "the one it attends to most"
    row = make_run(ckpt.model, ckpt.vocab, "banana").trace["cross", 1][0][1]
    assert at.metric[0].value == f"{row.max():.4f}"
    at.selectbox(key="inside_key").set_value(0).run()
    assert at.metric[0].value == f"{row[0]:.4f}"


def test_a_switched_off_head_is_computed_shown_as_zero_and_said_why(ckpt):
    at = open_page("inside_one_head", "banana", state=state("cross", 1, 0, 2, 3, ablated=["cross L1 H0"]))
    no_exception(at)
    _, _, weighted, concat = (list(cell_rows(m).values()) for m in cell_tables(at))
    edit = Intervention(frozenset({Head("cross", 1, 0)}))
    run = make_run(ckpt.model, ckpt.vocab, "banana", edit=edit)
    d_k = ckpt.model.config.d_k
    assert np.all(concat[0][:d_k] == 0) and np.abs(concat[0][d_k:]).max() > 0.1
    assert np.abs(weighted[-1]).max() > 0.1                                 # the head still computes its output
    assert np.all(at.dataframe[0].value["sends ‖w·v·W_O‖"] == 0)            # and sends nothing
    assert np.allclose(concat[3], run.trace["decoder_layers.1.cross_residual.output"][2], atol=1e-5)
    assert any("switched off" in w.value for w in at.warning)
    assert float(at.metric[1].value) <= TOLERANCE


def test_the_page_runs_on_a_learners_own_small_model():
    from explorer.live_training import LiveSettings, LiveTraining
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    run.run()
    at = open_page("inside_one_head", "abc", state={**own_model_state(run.result, "Your model"), "inside_kind": "cross",
                                                "inside_head": 1})
    no_exception(at)
    assert float(at.metric[1].value) <= TOLERANCE
    assert len(list(cell_rows(cell_tables(at)[1]).values())[0]) == 8         # d_k = 16 / 2
    assert z(canvas_charts(at)["lens"]).shape[0] == 1                        # one decoder layer
    names, values = split_bars(at)                                           # cross L0 of a one-layer model
    assert names == [*TERMS, TOTAL] and values[-1] == pytest.approx(float(at.metric[2].value), abs=1e-4)
    assert_the_largest_term_is_named(at, names, values)
    assert_the_copy_count_is_the_maps(at)


def test_a_post_norm_model_is_described_as_it_computes(bundled):
    """No LayerNorm before the attention and none at the end of the stack: the equations and sentences say so."""
    import torch

    from transformer.checkpoint import Checkpoint
    from transformer.config import ModelConfig
    from transformer.model import Transformer
    torch.manual_seed(0)
    model = Transformer(ModelConfig(d_model=64, n_heads=8, n_encoder_layers=1, n_decoder_layers=1, d_ff=32,
                                    norm="post")).eval().requires_grad_(False)
    own = Checkpoint(model, bundled.vocab, {})
    at = open_page("inside_one_head", "abc", state={**own_model_state(own, "Post-norm"), "inside_kind": "cross"})
    no_exception(at)
    equations = " ".join(e.value for e in at.latex)
    assert r"q_i &= x_i\,W_Q" in equations and r"\mathrm{LN}(x_i)\,W_Q" not in equations
    text = " ".join(m.value for m in at.markdown)
    assert "**post-norm**" in text and "divided by √8 = 2.828" in text
    assert "the generator makes it the scores of the next token" in text and "final LayerNorm" not in text
    assert float(at.metric[1].value) <= TOLERANCE
    assert not has_split_bars(at) and any("post-norm" in i.value for i in at.info)   # cross: no split
    assert_the_copy_count_is_the_maps(at)


# --- Content against position, and the letter map -----------------------------------------------------------

def split_bars(at, split="term by term"):
    """The term bars (viz.circuits.term_bars, HTML) of one split (by source, "term by term", or "by role"): each
    term's name and value, in order."""
    import re
    body = next(e.proto.body for e in at.get("html") if "data-term=" in e.proto.body and split in e.proto.body)
    found = re.findall(r'data-term="([^"]*)" data-value="([^"]*)"', body)
    return [html.unescape(name) for name, _ in found], np.array([float(v) for _, v in found])


def has_split_bars(at, split="term by term") -> bool:
    return any("data-term=" in e.proto.body and split in e.proto.body for e in at.get("html"))


def page_text(at):
    return " ".join(m.value for m in at.markdown)


def assert_the_largest_term_is_named(at, names, values):
    sizes = np.abs(values[:-1])
    largest = int(sizes.argmax())
    assert (f"The largest term is **{names[largest]}**: {values[largest]:+.2f} of the score {values[-1]:.4f}, "
            f"{sizes[largest] / sizes.sum():.0%} of the terms' summed size") in page_text(at)


def assert_the_copy_count_is_the_maps(at):
    spec = canvas_charts(at)["letter_map"]
    logits = z(spec)
    largest = [c for _, c, _ in spec["panels"][0]["outlines"]]                  # each row's largest, outlined
    assert len(largest) == len(logits) and np.allclose(logits[np.arange(len(logits)), largest], logits.max(-1),
                                                       atol=1e-4)
    copies = int((np.array(largest) == np.arange(len(logits))).sum())
    assert f"On **{copies} of {len(logits)}** characters the largest logit is the character itself" in page_text(at)
    assert ("mostly writes the letter it attends to" in page_text(at)) == (copies > len(logits) / 2)


# kind, head, query, key: a layer-0 cell of each kind (the decoder's key 4 is a later position, masked)
SPLIT_CELLS = [("encoder_self", 3, 4, 1), ("decoder_self", 1, 2, 4), ("cross", 3, 2, 4)]


@pytest.mark.parametrize("kind,head,query,key", SPLIT_CELLS, ids=[c[0] for c in SPLIT_CELLS])
def test_a_layer_0_score_is_four_terms_and_the_biases_that_add_up_to_it(ckpt, kind, head, query, key):
    at = open_page("inside_one_head", "banana", state=state(kind, 0, head, query, key))
    no_exception(at)
    names, values = split_bars(at)
    assert names == ([*TERMS, TOTAL] if kind == "cross" else [*FOUR, "biases", TOTAL])
    assert values[:-1].sum() == pytest.approx(values[-1], abs=1e-9)
    t = make_run(ckpt.model, ckpt.vocab, "banana").trace
    path = attention_path(kind, 0)
    q, k = t[f"{path}.queries"][head, query], t[f"{path}.keys"][head, key]
    assert values[-1] == pytest.approx(q @ k / np.sqrt(len(q)), abs=1e-4)               # the model's own q·k/√d_k
    masked = not t.mask(kind)[query, key]
    assert masked == (kind == "decoder_self")
    if not masked:
        assert values[-1] == pytest.approx(float(at.metric[2].value), abs=1e-4)        # the score the page shows
    assert_the_largest_term_is_named(at, names, values)
    if kind == "cross":
        assert_the_copy_count_is_the_maps(at)
        shown = z(canvas_charts(at)["letter_map"])
        assert np.allclose(shown, letter_map(ckpt.model, t, ckpt.vocab, 0, head).logits, atol=5e-5)
    else:
        assert "letter_map" not in canvas_charts(at)


def test_a_later_layer_says_why_it_is_not_split_with_the_written_share(ckpt):
    at = open_page("inside_one_head", "banana", state=state("cross", 1, 0, 2, 3))
    no_exception(at)
    assert not has_split_bars(at)
    cell = score_split(ckpt.model, make_run(ckpt.model, ckpt.vocab, "banana").trace, "cross", 1, 0).at(2, 3)
    share = abs(cell[WITH_WRITTEN]) / sum(abs(v) for v in cell.values())
    assert (f"the terms with what was written come to {cell[WITH_WRITTEN]:+.2f} of this score "
            f"{sum(cell.values()):.4f}, {share:.0%} of the terms' summed size") in page_text(at)
    assert_the_copy_count_is_the_maps(at)


@pytest.mark.parametrize("layer,head,query,key", [(0, 3, 2, 4), (1, 0, 2, 3)], ids=["layer 0", "layer 1"])
def test_a_cross_score_split_by_role_adds_up_at_any_layer_and_its_head_share_is_recomputed(ckpt, layer, head, query,
                                                                                          key):
    """The review's N1 on Inside one head: by role (the stream's mean over random texts of the text's length
    against the rest), a score splits at every layer, not only at layer 0, and the head's position·position share
    is recomputed here with the tests' own float64 algebra from the same means."""
    at = open_page("inside_one_head", "banana", state=state("cross", layer, head, query, key))
    no_exception(at)
    names, values = split_bars(at, "by role")
    assert names == [*FOUR, "biases", TOTAL]
    run = make_run(ckpt.model, ckpt.vocab, "banana")
    scores = run.trace.attention("cross", layer, "scores")[head]
    assert values[:-1].sum() == pytest.approx(values[-1], abs=1e-9)
    assert values[-1] == pytest.approx(float(scores[query, key]), abs=1e-4)             # the model's own score
    means = position_means(ckpt.model, ckpt.vocab, "reverse", 6, len(run.fed_ids), "cross", layer)
    mine = own_terms(ckpt, run, head, *means.both, layer=layer)
    assert values[FOUR.index(POSITION_POSITION)] == pytest.approx(mine["pp"][query, key], abs=1e-9)
    words = page_text(at)
    assert (f"position·position carries **{own_share(mine, 'pp'):.1%}** of what moves its scores and "
            f"content·content **{own_share(mine, 'cc'):.1%}**") in words


def test_with_heads_switched_off_or_a_model_of_ones_own_the_split_by_role_says_why_not(ckpt):
    at = open_page("inside_one_head", "banana", state={**state("cross", 0, 3, 2, 4), "ablated": ["cross L1 H0"]})
    no_exception(at)
    assert not has_split_bars(at, "by role")
    assert any(ROLES_NEED_EVERY_HEAD in i.value for i in at.info)
