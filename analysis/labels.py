"""Names a learner reads: token labels, attention kinds, and the axes of each kind's matrix.

Labels keep positions apart only by their place in a list, so repeated letters stay distinct columns.
"""

from __future__ import annotations

from transformer.trace import KINDS, Kind
from transformer.vocab import Vocab

SOS_LABEL, EOS_LABEL, PAD_LABEL, SPACE_LABEL = "⟨s⟩", "⟨/s⟩", "·", "␣"

KIND_NAMES: dict[Kind, str] = {"encoder_self": "Encoder self-attention", "decoder_self": "Decoder self-attention",
                               "cross": "Cross-attention"}
KIND_SHORT: dict[Kind, str] = {"encoder_self": "Encoder self", "decoder_self": "Decoder self", "cross": "Cross"}
assert tuple(KIND_NAMES) == KINDS


def visible(text: str) -> str:
    """Spaces shown as '␣' so a learner can count them."""
    return text.replace(" ", "␣")


def token_label(vocab: Vocab, token_id: int) -> str:
    """A short printable label. Angle brackets are the Unicode ones: '<s>' would be read as HTML by plotly."""
    token = vocab.token(token_id)
    return {"<sos>": SOS_LABEL, "<eos>": EOS_LABEL, "<pad>": PAD_LABEL, " ": SPACE_LABEL}.get(token, token)


def reads_writes(reads: list[str], writes: list[str]) -> list[str]:
    """Decoder row labels 'what it reads → what it writes'."""
    return [f"{a}→{b}" for a, b in zip(reads, writes)]


def attention_axes(kind: Kind, source: list[str], decoder_in: list[str],
                   decoder_out: list[str] | None = None) -> tuple[list[str], list[str], str, str]:
    """(row labels, column labels, row title, column title) of one kind's (T_query, T_key) matrix."""
    decoder_rows = reads_writes(decoder_in, decoder_out) if decoder_out else decoder_in
    if kind == "encoder_self":
        return source, source, "source position (query)", "source position (key)"
    if kind == "decoder_self":
        return decoder_rows, decoder_in, "decoder position (query)", "decoder position (key)"
    return decoder_rows, source, "decoder position (query)", "source position (key)"


def weight_text(weight: float) -> str:
    """A weight as a learner reads it: '0 (exactly)' only when it is exactly zero (a masked key's weight), else
    with enough significant digits that a small weight never rounds to a printed 0."""
    return "0 (exactly)" if weight == 0 else f"{weight:.3g}"


def ffn_formula(d_model: int, d_ff: int) -> str:
    """The feed-forward network in the row-vector form the code computes (x W₁ + b₁ for a row x; PyTorch stores
    each W as its transpose, out × in), with this model's shapes. LaTeX, one notation on every page; the shapes
    on a line of their own, as one line ran past a phone's width (KaTeX does not break a formula)."""
    return (r"\begin{gathered}\mathrm{FFN}(x) = \max(0,\; x W_1 + b_1)\, W_2 + b_2 \\ "
            rf"x \in \mathbb{{R}}^{{1\times{d_model}}},\; W_1 \in \mathbb{{R}}^{{{d_model}\times{d_ff}}},\; "
            rf"W_2 \in \mathbb{{R}}^{{{d_ff}\times{d_model}}}\end{{gathered}}")
