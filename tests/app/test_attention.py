import io
import re
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
import pytest
import torch

from transformer import decoding
from transformer.vocab import SOS


from .helpers import canvas_charts, figures, no_exception, open_page, own_model_state
from .test_entrypoint import open_app
from .test_released_models import untrained_reverser


def model_trace(ckpt, text):
    src = ckpt.vocab.encode(text, 24)
    out = decoding.generate(ckpt.model, src)
    with torch.inference_mode():
        return ckpt.model(torch.tensor([src]), torch.tensor([[SOS, *out]]), trace=True).trace


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_every_kind_draws_grid_and_one_head_beside_the_average_from_the_model_trace(ckpt, kind):
    at = open_page("attention", "level", query={"head": "3"})
    at.segmented_control(key="kind").set_value(kind).run()
    at.selectbox(key="layer").set_value(0).run()
    no_exception(at)
    assert figures(at) == {} and set(canvas_charts(at)) == {"grid", "detail", "influence"}
    trace = model_trace(ckpt, "level")
    weights = trace[kind, 0][0].numpy()                          # (H, Tq, Tk)
    detail = canvas_charts(at)["detail"]["panels"]                # four decimals, as the hover shows three
    assert np.allclose(detail[0]["z"], weights[3], atol=5e-5)
    assert np.allclose(detail[1]["z"], weights.mean(0), atol=5e-5)
    views = canvas_charts(at)["detail"]["switch"]["views"]       # every head of the layer, for the browser to switch
    assert [v["title"] for v in views] == [f"Layer 0, head {h} (left) and the average of its {len(weights)} heads "
                                           "(right)" for h in range(len(weights))]
    for head, view in enumerate(views):
        assert np.allclose(view["panels"][0]["z"], weights[head], atol=5e-5)
    grid = canvas_charts(at)["grid"]                              # every layer and head, a panel each
    c = ckpt.model.config
    n_layers = c.n_encoder_layers if kind == "encoder_self" else c.n_decoder_layers
    assert len(grid["panels"]) == n_layers * c.n_heads and grid["columns"] == c.n_heads
    for layer in range(n_layers):
        every_head = trace[kind, layer][0].numpy()
        for head in range(c.n_heads):
            panel = grid["panels"][layer * c.n_heads + head]
            assert (panel["title"], panel["name"]) == (f"L{layer} H{head}", f"layer {layer}, head {head}")
            assert np.allclose(panel["z"], every_head[head], atol=5e-5)
    # the panels of the layer drawn large, one a head, which the browser frames as the head is picked
    assert grid["follow"]["panels"] == list(range(c.n_heads)) and grid["follow"]["chosen"] == 3   # the link's head
    at.selectbox(key="layer").set_value(1).run()                  # layer 1's panels follow layer 0's four
    assert canvas_charts(at)["grid"]["follow"]["panels"] == [c.n_heads + h for h in range(c.n_heads)]


def test_cross_attention_rows_are_target_positions_and_columns_source(ckpt):
    at = open_page("attention", "banana", state={"kind": "cross"})
    detail = canvas_charts(at)["detail"]
    z = np.array(detail["panels"][0]["z"])
    assert z.shape == (7, 6)  # 6 output characters + the end step, by 6 source characters
    assert detail["cols"] == list("banana") and detail["rows"][0] == "⟨s⟩→a"
    assert detail["col_names"][3] == "3 (a)"                      # repeated letters named apart in the hover
    assert detail["col_title"].startswith("source") and "query" in detail["row_title"]
    assert detail["zmax"] == 1 and detail["bar"]                   # one scale, 0 to 1, and one colour bar
    best = np.unravel_index(z.argmax(), z.shape)                   # the accessible name says where the largest is
    assert f"head 0: largest weight {z.max():.3f}, at {detail['row_title']} {detail['row_names'][best[0]]}" in (
        detail["summary"])


def test_the_best_cross_head_reads_the_source_backwards(ckpt):
    at = open_page("attention", "attention", state={"kind": "cross", "layer": 1})
    text = " ".join(m.value for m in at.markdown)
    assert "falls on the anti-diagonal (n−1−i)" in text
    shares = [int(s) for s in __import__("re").findall(r"head \d: \*\*(\d+)%\*\*", text)]
    assert len(shares) == ckpt.model.config.n_heads and max(shares) >= 80   # "attention": 9 characters


def test_downloads_hold_the_matrix_and_the_whole_trace(ckpt):
    at = open_page("attention", "hello", state={"kind": "encoder_self", "layer": 1})
    no_exception(at)
    assert [b.label for b in at.get("download_button")] == ["Download the whole trace (JSON)"]
    switch = canvas_charts(at)["detail"]["switch"]           # each head's CSV, saved by the browser's button
    weights = model_trace(ckpt, "hello")["encoder_self", 1][0].numpy()             # (H, Tq, Tk)
    for head, (csv, note) in enumerate(zip(switch["csv"], switch["notes"])):
        frame = pd.read_csv(io.StringIO(csv), index_col=0)
        assert frame.index.name == "query \\ key" and list(frame.columns) == ["0:h", "1:e", "2:l", "3:l", "4:o"]
        assert np.allclose(frame.to_numpy(), weights[head], atol=1e-5)
        assert f'data-file="encoder_self_layer1_head{head}_weights.csv">Download head {head}&#x27;s weights (CSV)' in (
            note)


def test_query_parameters_open_the_same_kind_layer_and_head():
    at = open_app({"text": "level", "kind": "Decoder self", "layer": "0", "head": "1"}, "attention")
    no_exception(at)
    assert (at.session_state["kind"], at.session_state["layer"]) == ("decoder_self", 0)
    detail = canvas_charts(at)["detail"]
    assert detail["title"].startswith("Layer 0, head 1 (left)")
    assert (detail["switch"]["picker"], detail["switch"]["param"], detail["switch"]["view_names"]) == (
        "Head", "head", ["0", "1", "2", "3"])          # the radio buttons, which keep the head in the URL


def test_bad_query_parameters_fall_back_to_defaults():
    at = open_app({"text": "level", "kind": "sideways", "layer": "9", "head": "x"}, "attention")
    no_exception(at)
    assert (at.session_state["kind"], at.session_state["layer"]) == ("cross", 1)
    assert canvas_charts(at)["detail"]["switch"]["chosen"] == 0


def on_two_heads(at):
    """`at`'s session switched to its own untrained 2-head model (d_model 16), as an upload leaves it; not yet run."""
    for key, value in own_model_state(untrained_reverser(), "Two heads").items():
        at.session_state[key] = value
    return at


def test_a_head_kept_from_a_model_with_more_heads_is_not_named_as_a_bad_link():
    """The browser keeps the head in the URL. Switched to a model with fewer heads, the page opens on head 0 and
    says nothing: the number was this session's own choice on the other model, not a link's mistake (a link
    naming a head the model lacks is still named: test_hostile_links)."""
    at = open_app({"text": "level", "head": "3"}, "attention")          # the bundled model's 4 heads
    no_exception(at)
    assert canvas_charts(at)["detail"]["switch"]["chosen"] == 3
    on_two_heads(at).run()
    no_exception(at)
    assert canvas_charts(at)["detail"]["switch"]["view_names"] == ["0", "1"]
    assert canvas_charts(at)["detail"]["switch"]["chosen"] == 0
    assert not [i.value for i in at.info if "could not be used" in i.value]
    assert "head" not in at.query_params
    at.query_params["head"] = "3"             # on this model, a head it lacks: a link's mistake, named
    at.run()
    assert [i.value for i in at.info if "could not be used" in i.value] == [
        "The link's value for head (3) could not be used, so it shows the default."]
    bundled = on_two_heads(open_app({"text": "level", "head": "3"}, "attention"))
    bundled.query_params["head"] = "7"        # never a head of the model before either
    bundled.run()
    assert [i.value for i in bundled.info if "could not be used" in i.value] == [
        "The link's value for head (7) could not be used, so it shows the default."]


@pytest.mark.parametrize("kind", ["encoder_self", "decoder_self", "cross"])
def test_weight_beside_what_each_key_sends_and_how_often_they_disagree(ckpt, kind):
    at = open_page("attention", "banana", state={"kind": kind, "layer": 1}, query={"head": "2"})
    no_exception(at)
    panels = canvas_charts(at)["influence"]["panels"]
    trace = model_trace(ckpt, "banana")
    weights = trace[kind, 1][0, 2].numpy()                                          # (Tq, Tk)
    values = trace.attention(kind, 1, "values")[0, 2].numpy()                       # (Tk, d_k)
    module = (ckpt.model.encoder_layers[1].self_attention if kind == "encoder_self" else
              ckpt.model.decoder_layers[1].self_attention if kind == "decoder_self" else
              ckpt.model.decoder_layers[1].cross_attention)
    d_k = values.shape[1]
    w_o = module.w_o.weight.detach().numpy()[:, 2 * d_k:3 * d_k]                   # (d_model, d_k): head 2's block
    sent = weights * np.linalg.norm(values @ w_o.T, axis=1)[None, :]
    assert np.allclose(panels[0]["z"], sent, atol=1e-4)
    every_head = trace[kind, 1][0].numpy()[:, :, :, None] * np.stack([      # (H, Tq, Tk, 1): every head's
        np.linalg.norm(trace.attention(kind, 1, "values")[0, h].numpy() @ module.w_o.weight.detach().numpy()[
            :, h * d_k:(h + 1) * d_k].T, axis=1) for h in range(4)])[:, None, :, None]
    assert canvas_charts(at)["influence"]["zmax"] == pytest.approx(every_head.max(), abs=1e-4)   # one scale a layer
    differ = int((weights.argmax(1) != sent.argmax(1)).sum())
    note = canvas_charts(at)["influence"]["switch"]["notes"][2]
    assert f"sends the most in <strong>{differ} of {len(weights)}</strong> rows" in note


def test_the_link_to_inside_one_head_carries_this_head():
    at = open_app({"text": "level", "kind": "Decoder self", "layer": "0", "head": "3"}, "attention")
    no_exception(at)
    notes = canvas_charts(at)["influence"]["switch"]["notes"]
    hrefs = [re.search(r'class="page-link" href="([^"]+)"', note).group(1).replace("&amp;", "&") for note in notes]
    assert [href.split("?")[0] for href in hrefs] == ["inside-one-head"] * 4     # relative: a base path is kept
    queries = [{k: v[0] for k, v in parse_qs(href.split("?")[1]).items()} for href in hrefs]
    assert queries == [{"text": "level", "inside_kind": "Decoder self", "inside_layer": "0", "inside_head": str(h)}
                       for h in range(4)]
    hidden = [{k: v[0] for k, v in parse_qs(link.proto.query_string).items()} for link in at.get("page_link")]
    assert hidden == [{k: v for k, v in q.items() if k != "text"} for q in queries]   # what a plain click clicks
    inside = open_app(queries[3], "inside_one_head")                                  # the link followed
    no_exception(inside)
    assert "Decoder self-attention, layer 0, head 3" in inside.markdown[1].value
