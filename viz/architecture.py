"""The encoder-decoder drawn as an SVG diagram, labelled with the checkpoint's real sizes.

It was a Graphviz chart: laying it out in the browser compiled Graphviz's WebAssembly on every learner's first
visit, a cost of the browser's main thread (benchmarks.browser_latency), for a graph whose shape never changes. Its boxes are placed here, in two columns (the encoder's, the decoder's)
and a merged foot, with the same labels and fills (the borders darker, at least 4.5:1 on their fills); every
box's text is in the SVG's description for a screen reader.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

FONT_PX, LINE_PX = 12, 18           # the labels' type and line height, in the drawing's own units
CHAR_PX = 6.2                       # a generous average width of one character at 12 px (the page's Source Sans)
PAD_X, PAD_Y = 16, 9                # room inside a box around its lines
GAP_Y, GAP_X, MARGIN = 32, 36, 4    # between ranks, between the two columns, around the drawing
INPUT = ("#fef3c7", "#b45309")      # fill and border: what goes in
LAYER = ("#eef2ff", "#4f46e5")      # the model's layers
OUTPUT = ("#dcfce7", "#15803d")     # what comes out
TEXT, EDGE = "#111827", "#475569"
TITLE = "The model's architecture, with its real sizes"


@dataclass(frozen=True)
class Box:
    """One box of the diagram: its lines of text and its colours."""
    lines: tuple[str, ...]
    colours: tuple[str, str] = LAYER

    @property
    def width(self) -> float:
        return max(len(line) for line in self.lines) * CHAR_PX + 2 * PAD_X

    @property
    def height(self) -> float:
        return len(self.lines) * LINE_PX + 2 * PAD_Y


def architecture_boxes(
    d_model: int, n_heads: int, d_ff: int, n_encoder_layers: int, n_decoder_layers: int,
    vocab_size: int, norm: str, tie_embeddings: bool,
) -> dict[str, Box]:
    """The diagram's boxes by name: the source and its embedding, the encoder and its final norm, the target and
    its embedding, the decoder and its final norm, the generator."""
    d_k = d_model // n_heads
    block = "x + {f}(LayerNorm(x))" if norm == "pre" else "LayerNorm(x + {f}(x))"
    ffn = block.format(f=f"FFN[{d_model}→{d_ff}→{d_model}]")
    final = "final LayerNorm" if norm == "pre" else "(no final norm: post-norm)"
    embedding = Box((f"token embedding × √{d_model}", "+ sinusoidal positions"))
    tie = "shared with both embeddings" if tie_embeddings else "its own weights"
    return {
        "source": Box(("source characters (S)",), INPUT),
        "source embedding": embedding,
        "encoder": Box((f"Encoder layer × {n_encoder_layers}",
                        block.format(f=f"SelfAttention[{n_heads} heads × d_k {d_k}]"), ffn)),
        "encoder norm": Box((final,)),
        "target": Box(("⟨s⟩ + output so far (T)", "(the target shifted right)"), INPUT),
        "target embedding": embedding,
        "decoder": Box((f"Decoder layer × {n_decoder_layers}",
                        block.format(f="MaskedSelfAttention") + "  (causal)",
                        block.format(f="CrossAttention") + "  (Q: decoder, K,V: encoder)", ffn)),
        "decoder norm": Box((final,)),
        "generator": Box((f"generator: Linear {d_model}→{vocab_size} ({tie})",
                          "+ softmax → next-token probabilities"), OUTPUT),
    }


def _layout(boxes: dict[str, Box]) -> tuple[dict[str, tuple[float, float]], float, float]:
    """Each box's centre, and the drawing's width and height. The encoder's column on the left (source to its
    norm), the decoder's inputs on the right level with the encoder and its norm, then the decoder, its norm and
    the generator below both, centred between the columns."""
    left = ("source", "source embedding", "encoder", "encoder norm")
    right = ("target", "target embedding")
    foot = ("decoder", "decoder norm", "generator")
    left_width = max(boxes[n].width for n in left)
    right_width = max(boxes[n].width for n in right)
    x_left = MARGIN + left_width / 2
    x_right = MARGIN + left_width + GAP_X + right_width / 2
    centres: dict[str, tuple[float, float]] = {}
    y = MARGIN
    for name in left:                     # ranks 0-3
        centres[name] = (x_left, y + boxes[name].height / 2)
        y += boxes[name].height + GAP_Y
    for name, beside in zip(right, left[2:]):   # level with the encoder and its norm, as Graphviz ranked them
        centres[name] = (x_right, centres[beside][1])
    y = max(centres["encoder norm"][1] + boxes["encoder norm"].height / 2,
            centres["target embedding"][1] + boxes["target embedding"].height / 2) + GAP_Y + 8
    x_foot = (x_left + x_right) / 2
    for name in foot:
        centres[name] = (x_foot, y + boxes[name].height / 2)
        y += boxes[name].height + GAP_Y
    shift = max(0.0, MARGIN - min(x - boxes[n].width / 2 for n, (x, _) in centres.items()))   # a wide foot
    centres = {n: (x + shift, y_) for n, (x, y_) in centres.items()}
    width = max(x + boxes[n].width / 2 for n, (x, _) in centres.items()) + MARGIN
    return centres, width, y - GAP_Y + MARGIN


GROW_VARIABLE = "--architecture-max-width"   # projector mode sets it to none


def architecture_svg(
    d_model: int, n_heads: int, d_ff: int, n_encoder_layers: int, n_decoder_layers: int,
    vocab_size: int, norm: str, tie_embeddings: bool,
) -> str:
    """The diagram as SVG markup: embeddings + positions -> N encoder layers -> memory -> M decoder layers ->
    generator. It shrinks to its column's width (a phone's); where the page sets GROW_VARIABLE to `none`
    (projector mode's style) it also grows to it."""
    boxes = architecture_boxes(d_model, n_heads, d_ff, n_encoder_layers, n_decoder_layers, vocab_size, norm,
                               tie_embeddings)
    centres, width, height = _layout(boxes)

    def top(name, dx=0.0):
        x, y = centres[name]
        return x + dx, y - boxes[name].height / 2

    def bottom(name):
        x, y = centres[name]
        return x, y + boxes[name].height / 2

    quarter = boxes["decoder"].width / 4
    memory = (bottom("encoder norm"), top("decoder", -quarter))   # the one labelled edge
    edges = [(bottom("source"), top("source embedding")), (bottom("source embedding"), top("encoder")),
             (bottom("encoder"), top("encoder norm")), (bottom("target"), top("target embedding")),
             (bottom("target embedding"), top("decoder", quarter)), memory,
             (bottom("decoder"), top("decoder norm")), (bottom("decoder norm"), top("generator"))]
    parts = ['<figure style="margin: 0">'
             f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
             f'aria-label="{TITLE}" aria-describedby="architecture-description" class="architecture" '
             f'style="width: 100%; max-width: var({GROW_VARIABLE}, {width:.0f}px); height: auto; display: block; '
             'font-family: &quot;Source Sans&quot;, sans-serif">',
             f'<title>{TITLE}</title>',
             f'<desc id="architecture-description">{html.escape(_description(boxes))}</desc>',
             '<defs><marker id="architecture-arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" '
             f'markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="{EDGE}"/>'
             '</marker></defs>']
    for (x1, y1), (x2, y2) in edges:
        parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{EDGE}" '
                     'stroke-width="1.4" marker-end="url(#architecture-arrow)"/>')
    (mx1, my1), (mx2, my2) = memory
    parts.append(f'<text x="{(mx1 + mx2) / 2 + 8:.1f}" y="{(my1 + my2) / 2 + 4:.1f}" font-size="{FONT_PX - 1}" '
                 f'fill="{TEXT}">memory (K, V)</text>')
    for name, box in boxes.items():
        x, y = centres[name]
        fill, border = box.colours
        parts.append(f'<g data-box="{html.escape(name)}"><rect x="{x - box.width / 2:.1f}" '
                     f'y="{y - box.height / 2:.1f}" width="{box.width:.1f}" height="{box.height:.1f}" rx="12" '
                     f'fill="{fill}" stroke="{border}" stroke-width="1.2"/>')
        first = y - (len(box.lines) - 1) * LINE_PX / 2
        for i, line in enumerate(box.lines):
            parts.append(f'<text x="{x:.1f}" y="{first + i * LINE_PX:.1f}" text-anchor="middle" '
                         f'dominant-baseline="central" font-size="{FONT_PX}" fill="{TEXT}" style="white-space: pre">'
                         f'{html.escape(line)}</text>')
        parts.append("</g>")
    parts.append("</svg></figure>")
    return "".join(parts)


def _description(boxes: dict[str, Box]) -> str:
    """The diagram in words, in the order the data flows."""
    say = {name: "; ".join(box.lines).replace("; +", " +") for name, box in boxes.items()}
    return (f"Encoder: {say['source']} → {say['source embedding']} → {say['encoder']} → {say['encoder norm']}. "
            "The encoder's output is the memory that the decoder's cross-attention reads (its keys and values). "
            f"Decoder: {say['target']} → {say['target embedding']} → {say['decoder']} → "
            f"{say['decoder norm']} → {say['generator']}.")
