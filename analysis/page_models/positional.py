"""Positional encoding: the model's table and one of any size, the codes added to the learner's characters, why
sinusoids (similarity, distances, the rotation), and the map of positions the model's task needs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from transformer.config import ModelConfig
from transformer.layers import sinusoidal_encoding
from transformer.task_rules import parse_rule

from ..lesson import InputVectors, input_vectors
from ..positional import (largest_rise, offset_distances, reflection_blocks, reflection_error, rotation_blocks,
                          rotation_error, shift_by_rotation, similarity)
from ..run import Run
from ..tasks import words

D_MODEL_SIZES = (8, 16, 32, 64, 128, 256, 512)   # the "any size" slider's choices
DELTAS = (1, 3, 8)                               # the distance chart's lines


@dataclass(frozen=True)
class PositionalView:
    """P = max_len + 1 positions of the model, D = d_model, S source positions."""

    d_model: int
    positions: int                         # P
    table: np.ndarray                      # (P, D) the model's codes
    custom: np.ndarray                     # (custom positions, custom d_model)
    scaling_sentence: str                  # the embedding's scale against the code's
    vectors: InputVectors                  # the codes and norms of the learner's characters
    source: list[str]                      # (S,)
    norms: pd.DataFrame                    # (S, 4) each character's norms
    similarity: np.ndarray                 # (P, P) PE · PEᵀ
    similarity_sentence: str
    distances: dict[int, np.ndarray]       # δ -> (P + 10 − δ,) ‖PE(pos+δ) − PE(pos)‖
    distances_caption: str
    rotation_table: pd.DataFrame           # five pairs of dimensions: their rotation by δ
    shifted: np.ndarray                    # (D,) PE(pos + δ)
    rotated: np.ndarray                    # (D,) PE(pos) rotated by δ
    rotation_error: float                  # over every position and dimension
    need_title: str                        # what the task needs of positions
    need_sentence: str


def positional_view(run: Run, config: ModelConfig, custom_d: int, custom_len: int, delta: int,
                    pos: int) -> PositionalView:
    d_model, positions = config.d_model, config.max_len + 1
    vectors = input_vectors(run)
    scaling_sentence = (
        f"The token embedding is multiplied by √d_model = {d_model ** 0.5:.2f} before the code is added. Every code "
        f"has the same length, √(d_model/2) = {(d_model / 2) ** 0.5:.3f}, because each sine-cosine pair has length 1. "
        "Whether the scaling keeps the token from being drowned by its position depends on the embeddings' own "
        f"size: here they have length {vectors.raw_embedding_norm.min():.2f}–{vectors.raw_embedding_norm.max():.2f} "
        f"(they started near 1, drawn with standard deviation 1/√d_model), so scaled they are "
        f"{vectors.embedding_norm.min():.1f}–{vectors.embedding_norm.max():.1f} against the code's "
        f"{vectors.position_norm.max():.1f}. Unscaled, the code would be the larger.")
    norms = pd.DataFrame({
        "character": run.source, "‖embedding‖": vectors.raw_embedding_norm,
        "‖embedding × √d_model‖": vectors.embedding_norm, "‖PE‖": vectors.position_norm}).round(3)

    pe = sinusoidal_encoding(positions + 10, d_model)                  # (P + 10, D)
    alike = similarity(pe[:positions]).numpy()                         # (P, P)
    from_zero = alike[0]                                               # (P,) PE(0)·PE(j)
    low, rise = largest_rise(from_zero)                                # a farther position more like PE(0)
    similarity_sentence = (
        "Every position gets a **unique**, **bounded** code (each value lies in [−1, 1]) computed the same way "
        "every time, for any length. The similarity PE(i)·PE(j) depends only on the distance |i − j|, the same "
        "everywhere along the sequence, and neighbours are the most alike"
        + (f"; but it does not fall steadily with distance: PE(0)·PE({low}) = {from_zero[low]:.1f} is less than "
           f"PE(0)·PE({rise}) = {from_zero[rise]:.1f}." if from_zero[rise] > from_zero[low] else "."))
    distances = {d: offset_distances(pe, d).numpy() for d in DELTAS}

    blocks = rotation_blocks(delta, d_model).numpy()                   # (D/2, 2, 2)
    shown = [0, 1, 2, d_model // 4, d_model // 2 - 1]
    rotation_table = pd.DataFrame(
        [{"pair (dims)": f"{2 * i}, {2 * i + 1}", "cos ωδ": blocks[i, 0, 0], "sin ωδ": blocks[i, 0, 1],
          "−sin ωδ": blocks[i, 1, 0]} for i in shown]).round(5)
    long_table = sinusoidal_encoding(positions + 20, d_model)          # (P + 20, D): room for pos + δ

    need_title, need_sentence = task_needs(run.task, len(run.text), d_model)
    return PositionalView(
        d_model=d_model, positions=positions, table=sinusoidal_encoding(positions, d_model).numpy(),
        custom=sinusoidal_encoding(custom_len, custom_d).numpy(), scaling_sentence=scaling_sentence,
        vectors=vectors, source=run.source, norms=norms, similarity=alike, similarity_sentence=similarity_sentence,
        distances=distances, distances_caption="Spread of each line (largest − smallest): " + ", ".join(
            f"δ = {d}: {float(v.max() - v.min()):.1e}" for d, v in distances.items()),
        rotation_table=rotation_table, shifted=long_table[pos + delta].numpy(),
        rotated=shift_by_rotation(long_table[pos:pos + 1], delta)[0].numpy(),
        rotation_error=rotation_error(positions, d_model, delta), need_title=need_title, need_sentence=need_sentence)


def rule_needs(task: str, n: int) -> tuple[str, str]:
    """What any other rule asks of positions: its map of steps to source positions, and whether that map changes
    with the text's length (measured on texts of n, n + 1 and n + 2 distinct characters)."""
    w, rule = words(task), parse_rule(task)
    if rule.by_content:
        return (f"What {rule.spec} needs: letters first", (
            f"At output step i, {rule.spec} reads {w.reads}: which source position that is depends on which "
            "letters the text holds, not on a map of positions alone. The codes still tell two equal letters "
            "apart."))

    def positions(m: int) -> list[int]:
        text = "".join(chr(0x4E00 + i) for i in range(m))                  # m distinct characters
        return rule.source_positions(text, text)

    now = positions(n)
    for m in (n + 1, n + 2):
        other = positions(m)
        differs = [i for i in range(min(len(now), len(other))) if now[i] != other[i]]
        if differs:
            i = differs[0]
            return (f"What {rule.spec} needs: a map that depends on n", (
                f"At output step i, {rule.spec} reads {w.reads}. That map changes with the text's length: at step "
                f"{i} it reads source position {now[i]} of {n} characters but {other[i]} of {m}. So, as for "
                "reversing, the model needs the text's length, or at least where it ends."))
    return (f"What {rule.spec} needs: the same map at every length", (
        f"At output step i, {rule.spec} reads {w.reads}. For {n}, {n + 1} and {n + 2} characters that map is the "
        "same at every step they share, so, as for copying, it needs no length."))


def task_needs(task: str, n: int, d_model: int) -> tuple[str, str]:
    """What the task asks of positions: for reversal, a reflection that changes with the text's length n."""
    if task == "reverse":
        mirror = reflection_blocks(n, d_model).numpy()                 # (D/2, 2, 2)
        other = reflection_blocks(n + 1, d_model).numpy()
        return ("What reversing needs: a reflection that depends on n", (
            f"Reversing copies source position n−1−i at output step i. For each pair of dimensions, PE(n−1−i) is a "
            f"fixed 2 × 2 map of PE(i), but unlike the shift above it is a **reflection** (determinant "
            f"{float(np.linalg.det(mirror[0])):.0f}) and it depends on **n**: for your {n} characters and for {n + 1} "
            f"the first pair's maps differ by up to {float(np.abs(mirror[0] - other[0]).max()):.2f}. So no single map "
            f"takes every position to its mirror: the model has to know how long the text is. Applying this n's map "
            f"to every position of your text lands on the mirrored code to within {reflection_error(n, d_model):.1e}."))
    if task == "copy":
        return ("What copying needs: the same position on both sides", (
            "Copying reads source position i at output step i: the decoder's code PE(i) and the source's code PE(i) "
            "are the same vector, for every length n, so the map from a step to the position it copies is the "
            "identity and needs no length (reversing needs a reflection that changes with n: choose *Reverse* in "
            "the sidebar to see it)."))
    if task != "sort":
        return rule_needs(task, n)
    return ("What sorting needs: letters first, positions only between equals", (
        "Sorting reads the i-th smallest character wherever it stands, so which source position to read is set by "
        "the letters, not by a map of positions. The codes still tell two equal letters apart. *No positions* in "
        "the lab measures how much this model still needs them."))
