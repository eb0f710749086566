"""The architecture diagram (viz/architecture.py), drawn as SVG on the server: every box holds its text, no two
boxes overlap, every arrow runs from one box's edge to another's, and a screen reader gets every label."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from viz.architecture import CHAR_PX, PAD_X, architecture_boxes, architecture_svg

SVG = "{http://www.w3.org/2000/svg}"
CONFIGS = [dict(d_model=64, n_heads=4, d_ff=256, n_encoder_layers=2, n_decoder_layers=2, vocab_size=30,
                norm="pre", tie_embeddings=True),
           dict(d_model=512, n_heads=8, d_ff=2048, n_encoder_layers=6, n_decoder_layers=6, vocab_size=37000,
                norm="post", tie_embeddings=False)]


def boxes_drawn(root) -> dict[str, tuple[float, float, float, float, list[str]]]:
    drawn = {}
    for group in root.iter(f"{SVG}g"):
        rect = group.find(f"{SVG}rect")
        x, y, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
        drawn[group.get("data-box")] = (x, y, w, h, [t.text for t in group.iter(f"{SVG}text")])
    return drawn


@pytest.mark.parametrize("config", CONFIGS, ids=["bundled", "the paper's base"])
def test_every_box_holds_its_lines_and_no_two_boxes_overlap(config):
    root = ET.fromstring(architecture_svg(**config)).find(f"{SVG}svg")
    width, height = (float(v) for v in root.get("viewBox").split()[2:])
    drawn = boxes_drawn(root)
    expected = architecture_boxes(**config)
    assert set(drawn) == set(expected) and len(drawn) == 9
    for name, (x, y, w, h, lines) in drawn.items():
        assert lines == list(expected[name].lines)
        assert w >= max(len(line) for line in lines) * CHAR_PX + 2 * PAD_X - 1e-6
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height, name
    names = list(drawn)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            ax, ay, aw, ah, _ = drawn[a]
            bx, by, bw, bh, _ = drawn[b]
            assert ax + aw <= bx or bx + bw <= ax or ay + ah <= by or by + bh <= ay, (a, b)


def test_the_arrows_join_the_boxes_in_the_order_the_data_flows():
    root = ET.fromstring(architecture_svg(**CONFIGS[0])).find(f"{SVG}svg")
    drawn = boxes_drawn(root)

    def at_edge(px, py, name, side):
        x, y, w, h, _ = drawn[name]
        return x <= px <= x + w and abs(py - (y + h if side == "bottom" else y)) < 1e-6

    flows = {("source", "source embedding"), ("source embedding", "encoder"), ("encoder", "encoder norm"),
             ("target", "target embedding"), ("target embedding", "decoder"), ("encoder norm", "decoder"),
             ("decoder", "decoder norm"), ("decoder norm", "generator")}
    found = set()
    for line in root.iter(f"{SVG}line"):
        x1, y1, x2, y2 = (float(line.get(k)) for k in ("x1", "y1", "x2", "y2"))
        found |= {(a, b) for a, b in flows if at_edge(x1, y1, a, "bottom") and at_edge(x2, y2, b, "top")}
        assert y2 > y1      # every arrow points down
    assert found == flows and len(list(root.iter(f"{SVG}line"))) == len(flows)


def test_its_description_names_every_label_and_post_norm_has_no_final_norm():
    markup = architecture_svg(**CONFIGS[1])
    description = ET.fromstring(markup).find(f"{SVG}svg").find(f"{SVG}desc").text
    for box in architecture_boxes(**CONFIGS[1]).values():
        for line in box.lines:
            assert line in description
    assert "√512 + sinusoidal positions" in description and "the memory that the decoder's cross-attention" \
        in description
    assert "LayerNorm(x + FFN[512→2048→512](x))" in markup and "final LayerNorm" not in markup
    assert "Linear 512→37000 (its own weights)" in markup
    assert re.search(r'role="img" aria-label="The model\'s architecture, with its real sizes" '
                     r'aria-describedby="architecture-description"', markup)


def test_it_grows_to_its_column_only_in_projector_mode():
    """Off a projector its own width bounds it; projector mode's page style lifts the bound."""
    from explorer.charts import PROJECTOR_CSS
    from viz.architecture import GROW_VARIABLE

    width = re.search(r'viewBox="0 0 (\d+) ', architecture_svg(**CONFIGS[0])).group(1)
    assert f"max-width: var({GROW_VARIABLE}, {width}px)" in architecture_svg(**CONFIGS[0])
    assert f"{GROW_VARIABLE}: none" in PROJECTOR_CSS
