"""Inside one head: every number behind one attention weight, worked out again from the weights and set beside
the model's own, then what the rest of the layer does with it, the residual stream and the logit lens."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.intervention import Intervention
from transformer.model import Transformer
from transformer.vocab import Vocab

from ..circuits import (CONTENT_CONTENT, POSITION_POSITION, WITH_WRITTEN, LetterMap, SplitUnavailable, letter_map,
                        score_split)
from ..functional_split import functional_split
from ..inside import TOLERANCE, AttentionAt, InsideHead, inside_head, logit_lens, residual_norms, value_weighted
from ..labels import KIND_NAMES, attention_axes, ffn_formula, token_label
from ..run import Run, correct_tokens

MOST = "the one it attends to most"   # the key picker's default, a label that does not depend on the text


@dataclass(frozen=True)
class Axes:
    """The chosen kind's rows (queries) and columns (keys), before any cell is chosen: the pickers need them."""

    rows: list[str]
    cols: list[str]
    row_title: str
    col_title: str


def axes(run: Run, kind: str) -> Axes:
    return Axes(*attention_axes(kind, run.source, run.decoder_in, run.decoder_out))


@dataclass(frozen=True)
class ScoreTerms:
    """The chosen score split into content, position, what layers wrote and biases (pre-norm models)."""

    intro: str | None            # layer 0: how the stream splits; None at later layers
    cell: dict[str, float]       # term -> its part of the score
    total: float
    sentence: str


@dataclass(frozen=True)
class InsideView:
    """One cell (query i, key j) of one head. Tq queries, Tk keys, d_k per head, V tokens, N decoder layers."""

    inside: InsideHead                  # every number derived and traced (analysis.inside)
    i: int
    j: int
    axes: Axes
    overview: np.ndarray                # (Tq, Tk) the head's weights
    header: str
    weight: float
    score_metric: str
    checked_numbers: int                # how many numbers below are checked against the model
    ablated_note: str | None
    stream_sentence: str
    stream_labels: list[str]
    memory_note: str | None             # cross-attention: where keys and values come from
    qkv_latex: str
    qkv_caption: str
    score_latex: str
    score_sentence: str
    terms: ScoreTerms | None
    split_unavailable: str | None
    softmax_table: pd.DataFrame         # (Tk, 6) one row per key
    sends_max: float
    softmax_caption: str
    weighted: np.ndarray                # (Tk, d_k) w_ij v_j
    weighted_sentence: str
    letters: LetterMap | None           # cross-attention: letter in → logit out along the value path
    letters_sentence: str | None
    letters_caption: str | None
    residual_latex: str
    concat_sentence: str
    rest: list[tuple[str, str | None]]  # each later sublayer: a sentence and, for the feed-forward, its formula
    next_stop: str
    generator_sentence: str | None
    checks: pd.DataFrame
    checks_caption: str
    stack: str
    norms: pd.DataFrame
    norms_top: float
    norms_caption: str
    lens_correct_p: np.ndarray          # (N, T)
    lens_top: list[list[str]]           # (N, T) the token the lens would pick
    lens_steps: list[str]               # (T,)
    lens_caption: str


def inside_view(model: Transformer, vocab: Vocab, run: Run, kind: str, layer: int, head: int, i: int,
                picked: int | str, edit: Intervention, ablated: tuple = ()) -> InsideView:
    """`picked` is a key position or MOST; `edit` is the run's intervention, `ablated` its heads as the picker
    names them (kind, layer, head)."""
    config = model.config
    ax = axes(run, kind)
    rows, cols = ax.rows, ax.cols
    overview = run.trace[kind, layer][head]                                   # (Tq, Tk)
    j = int(overview[i].argmax()) if picked == MOST else int(picked)
    inside = inside_head(model, run.trace, kind, layer, head, i, j, edit)
    at = inside.attention
    h, d_k = head, inside.d_k
    weight = float(at.weights.derived[h, j])

    inputs = f"the input vectors (each embedding × √d_model = {config.d_model ** 0.5:g}, plus its positional code)"
    where = {"encoder_self": inputs if layer == 0 else f"the output of encoder layer {layer - 1}",
             "decoder_self": inputs if layer == 0 else f"the output of decoder layer {layer - 1}",
             "cross": f"the stream after decoder layer {layer}'s self-attention"}[kind]
    if inside.pre_norm:
        stream_sentence = (
            f"x_{i} is the residual stream at position {i} as it enters this sublayer: {where}. This model is "
            f"**pre-norm**, so the attention reads LN(x_{i}): here μ = **{at.mean:.4f}**, √(σ² + ε) = "
            f"**{at.spread:.4f}**, then the learned γ and β. ‖x_{i}‖ = {np.linalg.norm(at.stream):.2f}, "
            f"‖LN(x_{i})‖ = {np.linalg.norm(at.normed.derived):.2f}.")
    else:
        stream_sentence = (f"x_{i} is the residual stream at position {i} as it enters this sublayer: {where}. This "
                           "model is **post-norm**: the attention reads x itself, and LayerNorm comes after the "
                           "residual add.")
    memory_note = ("In cross-attention the keys and values do not come from this stream: they come from the "
                   "**encoder's final output** (the memory"
                   + (", after the encoder's final LayerNorm" if inside.pre_norm else "")
                   + f"), the same {len(cols)} vector{'s' if len(cols) > 1 else ''} for every decoder layer and step."
                   ) if kind == "cross" else None

    source = "m_j" if kind == "cross" else (r"\mathrm{LN}(x_j)" if inside.pre_norm else "x_j")
    reads = r"\mathrm{LN}(x_i)" if inside.pre_norm else "x_i"
    qkv_latex = (rf"\begin{{aligned}}q_i &= {reads}\,W_Q^{{({h})}} + b_Q^{{({h})}} \\ "      # one a line: a phone
                 rf"k_j &= {source}\,W_K^{{({h})}} + b_K^{{({h})}} \\ v_j &= {source}\,W_V^{{({h})}} + b_V^{{({h})}}"
                 r"\end{aligned}")
    qkv_caption = (("m_j is the encoder's output at source position j. " if kind == "cross" else "")
                   + f"Shapes: (1 × {config.d_model}) · ({config.d_model} × {d_k}) + (1 × {d_k}) → 1 × {d_k}. Head "
                   f"{h} owns columns {h * d_k}–{(h + 1) * d_k - 1} of W_Q, W_K and W_V (d_k = d_model / heads = "
                   f"{config.d_model} / {config.n_heads} = {d_k}; in the code's nn.Linear weights, which are stored "
                   "transposed, these are rows).")
    allowed = bool(at.allowed[j])
    scaled = inside.dot / np.sqrt(d_k)
    score_latex = (rf"\begin{{aligned}}s_{{{i},{j}}} &= \frac{{q_{{{i}}}\cdot k_{{{j}}}}}{{\sqrt{{d_k}}}} = "
                   rf"\frac{{{inside.dot:.4f}}}{{\sqrt{{{d_k}}}}} = {scaled:.4f}"
                   + ("" if allowed else r" \\ &\to -\infty \text{ (masked)}") + r"\end{aligned}")   # a phone's width
    score_sentence = (
        f"The score multiplies q and k dimension by dimension (the last row), adds the {d_k} terms, divides by √d_k "
        "and applies the mask. A sum of d_k terms of random vectors spreads out like √d_k, so the division stops "
        "scores growing with d_k, as at the start of training; a trained head can still make them large and put "
        "nearly all its weight on one key (the Masks page measures both). "
        f"The {d_k} terms add up to q·k = **{inside.dot:.4f}** (largest term {inside.products.max():.3f}, smallest "
        f"{inside.products.min():.3f}); divided by √{d_k} = {np.sqrt(d_k):.4g} it is **{scaled:.4f}**. "
        + (f"Key {j} may be attended to, so the mask adds 0. The model's own score: {at.scores.traced[h, j]:.4f}."
           if allowed else f"Key {j} is masked (a later decoder position), so its score becomes −∞, and the model's "
           "own score is −∞ too."))

    try:
        terms, split_unavailable = score_terms(model, run, kind, layer, head, i, j, at, float(scaled),
                                               inside.pre_norm), None
    except SplitUnavailable as err:
        terms, split_unavailable = None, f"{err} The split into content and position is shown for pre-norm models."

    row_scores, row_weights = at.scores.derived[h], at.weights.derived[h]    # (Tk,), (Tk,)
    exps = at.exps[h]                                                        # (Tk,) e^(s − max s), 0 where masked
    sends = value_weighted(model, run.trace, kind, layer, edit)[head, i]     # (Tk,) ‖w_ij v_j W_O^h‖
    softmax_table = pd.DataFrame({
        "key": [f"{k}:{c}" + (" ◀" if k == j else "") for k, c in enumerate(cols)],
        "score s": [f"{x:.5f}" if ok else "−∞ (masked)" for x, ok in zip(row_scores, at.allowed)],
        "e^(s − max s)": exps, "weight (here)": row_weights,
        "weight (the model)": at.weights.traced[h], "sends ‖w·v·W_O‖": sends})
    softmax_caption = (
        f"Subtracting the largest score before e^ changes no weight and keeps the numbers small. The weights "
        f"sum to {row_weights.sum():.6f}; w[{i}, {j}] = {weight:.5f}, the model's {at.weights.traced[h, j]:.5f}."
        + (f" The {int((~at.allowed).sum())} masked keys have score −∞ and weight exactly 0."
           if not at.allowed.all() else "")
        + " The last column is the size of what each key actually sends into the layer's output through this "
        "head, ‖w_ij v_j W_O^h‖ (step 5 defines W_O^h): a large weight on a key whose value, after W^O, is short "
        "moves little."
        + (" It is all 0 here: this head is switched off." if inside.switched_off else ""))

    weighted = row_weights[:, None] * at.values.derived[h]                  # (Tk, d_k)
    lengths = np.linalg.norm(weighted, axis=1)
    order = [k for k in np.argsort(-lengths) if at.allowed[k]][:3]
    weighted_sentence = (
        "The keys that contribute most to this head's output, by the length of w·v (before W^O; the table's "
        "last column measures it after): "
        + ", ".join(f"key {k} `{cols[k]}` ({lengths[k]:.3f}, weight {row_weights[k]:.3f})" for k in order)
        + f". The sum has length {np.linalg.norm(at.heads.derived[h]):.3f}.")

    letters = letters_sentence = letters_caption = None
    if kind == "cross":
        letters = letter_map(model, run.trace, vocab, layer, head)
        n_letters = len(letters.letters)
        letters_sentence = (
            f"On **{letters.copies} of {n_letters}** characters the largest logit is the character itself"
            + (", so along this path the head mostly writes the letter it attends to."
               if letters.copies > n_letters / 2 else
               ", so along this path the head does not, on the whole, write the letter it attends to; one reading "
               "is that what it passes on is used by the layers after it, or carries something other than the "
               "letter."))
        letters_caption = (
            "Each row: a character's embedding × √d_model alone (no position, nothing the encoder wrote), as if the "
            "head put all its weight on a source position holding it"
            + (", centred and scaled by the encoder's last LayerNorm as its mean spread is on your text" if
               letters.normed else "")
            + f", then this head's W_V and W_O^{head}"
            + (", the decoder's last LayerNorm (frozen likewise)" if letters.normed else "")
            + (" and the generator (tied: the embedding matrix transposed)." if config.tie_embeddings else
               " and the generator.")
            + " This is the direct path: the layers after the head are skipped, and so are the biases, which add "
            "the same to every row.")

    # a line each step: on one line, this ran past a projector's column, and the concatenation beside W^O past a
    # phone's width (KaTeX does not break a formula)
    residual_latex = (r"\begin{aligned}c_i &= \mathrm{Concat}(\mathrm{head}_0(i), \dots, \mathrm{head}_{H-1}(i)) \\ "
                      r"\mathrm{MHA}(i) &= c_i\,W^O + b_O \\ &= \sum_h \mathrm{head}_h(i)\,W_O^h + b_O \\ x_i' &= "
                      + (r"x_i + \mathrm{MHA}(i)" if inside.pre_norm else r"\mathrm{LN}(x_i + \mathrm{MHA}(i))")
                      + r"\end{aligned}")
    off = [x for x in range(config.n_heads) if not at.gate[x]]
    concat_sentence = (
        f"The H = {config.n_heads} head outputs ({d_k} numbers each) are laid side by side into c_i, {config.d_model} "
        "numbers" + (f" (switched off: head {', '.join(map(str, off))}, all zeros)" if off else "")
        + f"; W^O ({config.d_model} × {config.d_model}) mixes them. Head h's {d_k} numbers meet only rows "
        f"h·{d_k} to h·{d_k} + {d_k - 1} of W^O, a block called W_O^h, so the output is a sum of one term per head. "
        "What the sublayer adds has length "
        f"**{np.linalg.norm(at.output.derived):.2f}**, against ‖x_{i}‖ = {np.linalg.norm(at.stream):.2f}; the stream "
        f"after it has length {np.linalg.norm(at.residual.derived):.2f}.")

    rest = []
    for block in inside.rest:
        if isinstance(block, AttentionAt):
            top = block.weights.derived.argmax(-1)
            rest.append((
                f"**Cross-attention** (the next sublayer) reads {'LN of ' if inside.pre_norm else ''}that stream and "
                "the encoder's output: its heads' largest weights at this position fall on source positions "
                + ", ".join(f"{top[x]} (head {x})" for x in range(config.n_heads))
                + f". It adds a vector of length {np.linalg.norm(block.output.derived):.2f}.", None))
        else:
            active = int((block.hidden.derived > 0).sum())
            rest.append((f"**Feed-forward**, on this position alone: {active} of its {block.hidden.derived.size} "
                         f"hidden units are above 0 after the ReLU; it adds a vector of length "
                         f"{np.linalg.norm(block.output.derived):.2f}.", ffn_formula(config.d_model, config.d_ff)))
    stop = inside.next_stop
    generator_sentence = None
    if stop.logits is not None:
        logits = stop.logits.derived                                          # (V,)
        best = np.argsort(-logits)[:3]
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        generator_sentence = ("At this position the generator's top scores: " + ", ".join(
            f"`{token_label(vocab, int(t))}` ({logits[t]:.2f}, p = {probs[t]:.3f})" for t in best)
            + f"; the model wrote `{run.decoder_out[i]}` at step {i}.")

    blocks, checks = zip(*inside.checks_by_block)
    checks_table = pd.DataFrame({
        "sublayer": blocks, "quantity": [c.name for c in checks],
        "shape": [" × ".join(map(str, c.shape)) for c in checks],
        "largest |here − model|": [c.difference for c in checks], "largest number": [c.size for c in checks],
        "difference ÷ size": [c.scaled_difference for c in checks]})
    checks_caption = (
        "Worked out here in float64 from the trained weights, starting from the residual stream the model "
        "recorded. The model computes in float32, whose rounding grows with the size of a number, so each "
        "difference is also divided by the size of the numbers it compares (where that is above 1). Largest: "
        f"**{inside.largest_difference:.1e}** (a match is at most {TOLERANCE:g}).")

    stack = "encoder" if kind == "encoder_self" else "decoder"
    norms = residual_norms(run.trace, stack, i)
    largest = max(norms[1:], key=lambda r: r.added)
    norms_caption = (
        ("Every sublayer adds its output to the stream, so the stream is the sum of the input vectors and "
         "everything each block wrote. " if inside.pre_norm else
         "Every sublayer adds its output to the stream, and this post-norm model then normalises the sum. ")
        + f"At this position the largest addition is from the {largest.step} "
        f"(length {largest.added:.2f}); the stream ends at length {norms[-1].stream:.2f}. "
        + ("The norms are of the stream before the final LayerNorm." if inside.pre_norm else
           "This model is post-norm, so each stream norm is measured after that block's LayerNorm."))

    lens_steps, lens_caption, lens = lens_reading(model, vocab, run, inside.pre_norm)
    return InsideView(
        inside=inside, i=i, j=j, axes=ax, overview=overview,
        header=f"**{KIND_NAMES[kind]}, layer {layer}, head {head}** · query {i} `{rows[i]}` → key {j} `{cols[j]}`",
        weight=weight, score_metric="masked (−∞)" if not allowed else f"{at.scores.derived[h, j]:.4f}",
        checked_numbers=sum(c.derived.size for c in inside.checks),
        ablated_note=(f"{len(ablated)} head(s) switched off: " + ", ".join(f"{k} L{l} H{x}" for k, l, x in ablated)
                      + ". Every number below is from that run.") if ablated else None,
        stream_sentence=stream_sentence,
        stream_labels=[f"x_{i}", f"LN(x_{i})" if inside.pre_norm else f"x_{i} (read as is)"],
        memory_note=memory_note, qkv_latex=qkv_latex, qkv_caption=qkv_caption, score_latex=score_latex,
        score_sentence=score_sentence, terms=terms, split_unavailable=split_unavailable,
        softmax_table=softmax_table, sends_max=float(max(sends.max(), 1e-9)), softmax_caption=softmax_caption,
        weighted=weighted, weighted_sentence=weighted_sentence, letters=letters, letters_sentence=letters_sentence,
        letters_caption=letters_caption, residual_latex=residual_latex, concat_sentence=concat_sentence, rest=rest,
        next_stop=f"Then {stop.description}.", generator_sentence=generator_sentence, checks=checks_table,
        checks_caption=checks_caption, stack=stack,
        norms=pd.DataFrame({"block": [r.step for r in norms], "‖what it added‖": [r.added for r in norms],
                            "‖stream after it‖": [r.stream for r in norms]}),
        norms_top=max(r.stream for r in norms), norms_caption=norms_caption,
        lens_correct_p=lens.correct_p,
        lens_top=[[token_label(vocab, int(t)) for t in row] for row in lens.top_ids],
        lens_steps=lens_steps, lens_caption=lens_caption)


def score_terms(model: Transformer, run: Run, kind: str, layer: int, head: int, i: int, j: int, at: AttentionAt,
                scaled: float, pre_norm: bool) -> ScoreTerms:
    """Score s[i, j] term by term (raises SplitUnavailable for a post-norm model)."""
    config = model.config
    split = score_split(model, run.trace, kind, layer, head)
    cell = split.at(i, j)
    cell_sum = sum(cell.values())
    model_score = float(at.scores.traced[head, j]) if at.allowed[j] else scaled
    sizes = {name: abs(v) for name, v in cell.items()}
    total_size = sum(sizes.values()) or 1.0
    if layer > 0:
        return ScoreTerms(None, cell, cell_sum, (
            f"The split is shown for layer 0. At layer {layer} the stream also holds what the sublayers before it "
            "wrote, and attention there has already mixed in characters and positions from other positions, so a "
            "part of x_j no longer stands for the character and the place of position j alone. Split the same "
            f"way, the terms with what was written come to {cell[WITH_WRITTEN]:+.2f} of this score "
            f"{cell_sum:.4f}, {sizes[WITH_WRITTEN] / total_size:.0%} of the terms' summed size."))
    intro = (
        (f"At layer 0 this stream is exactly each {'source' if kind == 'encoder_self' else 'decoder'} "
         "position's embedding × √d_model (its **content**, the character) plus its positional code (its "
         "**position**). " if not split.written else
         "At layer 0 the query's stream is the decoder position's embedding × √d_model (its **content**) plus "
         "its positional code (its **position**) plus what decoder layer 0's self-attention wrote; the keys "
         "come from the encoder's output, whose stream holds the source character, its position, and what "
         f"the encoder's {2 * config.n_encoder_layers} sublayers wrote. ")
        + ("Freeze each LayerNorm at the mean and spread it has on your text at each position: then LN(x) is "
           "γ⊙(content − its mean)/σ + γ⊙(position − its mean)/σ"
           + (" + γ⊙(what was written − its mean)/σ" if split.written else "")
           + " + β, and q and k split the same way, with β W + b as a bias part. "
           if pre_norm else "This post-norm model reads x as it is, and q and k split with it. ")
        + "Each term below is the query's part · the key's part, divided by √d_k: content·position is the "
        "query's character against the key's position. *biases* gathers the terms with β, b_Q or b_K"
        + ("; *with what layers wrote* every term with a written part, on either side" if split.written else "")
        + ".")
    largest = max(sizes, key=sizes.get)
    sentence = (
        f"The largest term is **{largest}**: {cell[largest]:+.2f} of the score {cell_sum:.4f}, "
        f"{sizes[largest] / total_size:.0%} of the terms' summed size (position·position "
        f"{sizes[POSITION_POSITION] / total_size:.0%}, content·content {sizes[CONTENT_CONTENT] / total_size:.0%}). "
        f"The terms add up to {cell_sum:.4f}; "
        + (f"the model's own score is {model_score:.4f}" if at.allowed[j] else
           f"q·k/√d_k worked out above is {model_score:.4f} (the mask then makes the model's −∞)")
        + f", {abs(cell_sum - model_score):.1e} apart. A term that is the same for every key of a row (one "
        "that depends on the query alone) moves no weight: softmax ignores it.")
    return ScoreTerms(intro, cell, cell_sum, sentence)


def lens_reading(model: Transformer, vocab: Vocab, run: Run, pre_norm: bool):
    """The logit lens on the run's correct output: its step labels, its caption, and the lens itself."""
    correct = correct_tokens(vocab, run.text, model.config.max_len, run.task)
    lens = logit_lens(model, run.trace, correct)
    steps = [token_label(vocab, t) for t in correct][: lens.top_ids.shape[1]]
    steps += ["(after the end)"] * (lens.top_ids.shape[1] - len(steps))
    n_characters = min(len(run.text), lens.correct_p.shape[1])
    by_layer = lens.correct_p[:, :n_characters].mean(axis=1)                 # (N,) over the character steps
    end = lens.correct_p[:, n_characters] if n_characters < lens.correct_p.shape[1] else None   # the ⟨/s⟩ step
    reading = (" One reading: the layers before the last do not yet say which character comes next; the last one "
               "does." if (by_layer[:-1] < 0.5).all() and by_layer[-1] >= 0.5 else "")
    caption = (
        ("The decoder's final LayerNorm and the generator applied to each decoder layer's output, at every step of "
         "this run (as if the layers after it were skipped). " if pre_norm else
         "The generator applied to each decoder layer's output, at every step of this run (this post-norm model has "
         "no final LayerNorm). ")
        + f"Mean p(correct) over the {n_characters} character step(s): "
        + ", ".join(f"after layer {x}: **{p:.3f}**" for x, p in enumerate(by_layer))
        + ("" if end is None else "; at the end step (⟨/s⟩): " + ", ".join(f"{p:.3f}" for p in end))
        + f". After the last layer it is the model's own output (largest difference {lens.last_difference:.1e})."
        + reading)
    return steps, caption, lens


@dataclass(frozen=True)
class RoleTerms:
    """The chosen score split by role (analysis.functional_split), and the whole head's shares that way."""

    cell: dict[str, float]       # FOUR and biases -> its part of the score s[i, j]
    total: float
    shares: dict[str, float]     # the same terms' shares of what moves the head's scores over its whole matrix
    sentence: str


ROLE_INTRO = (
    "Split **by role** instead of by source: the *position-like* part of a stream at a position is its mean over "
    "{samples} random texts of your text's length, decoded towards their own answers (it depends on where and how "
    "long, never on the letters); the *content-like* part is the rest, what your letters changed there. Whatever "
    "the layers before wrote is shared between the two by what it does, so this split works at every layer, not "
    "only at layer 0.")

ROLES_NEED_EVERY_HEAD = ("With heads switched off the streams change, and the random texts' means are the intact "
                         "model's: switch every head back on to see this split.")


def role_terms(model: Transformer, run: Run, kind: str, layer: int, head: int, i: int, j: int,
               means: tuple[np.ndarray, np.ndarray]) -> RoleTerms:
    """Score s[i, j] by role; `means` the PositionMeans' `both` for this kind, layer and the run's length."""
    split = functional_split(model, run.trace, kind, layer, head, means)
    cell = split.at(i, j)
    shares = split.shares()
    position, content = shares[POSITION_POSITION], shares[CONTENT_CONTENT]
    largest = max(cell, key=lambda name: abs(cell[name]))
    sentence = (
        f"By role, the largest term of this score is **{largest}** ({cell[largest]:+.2f} of {sum(cell.values()):.4f}). "
        + ("Over the whole head (every allowed cell, each row's mean taken away), position·position carries "
           f"**{position:.1%}** of what moves its scores and content·content **{content:.1%}**, so on your text "
           + ("position weighs more than content." if position > content else
              "content weighs more than position." if content > position else "the two weigh the same.")
           if not np.isnan(position) else "Every row of this head has one key, so no term moves a weight."))
    return RoleTerms(cell, float(sum(cell.values())), shares, sentence)
