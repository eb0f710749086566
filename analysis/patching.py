"""Build a head: replace cross-attention weights by a pattern stated by hand and measure what the model still does.

Switching a head off asks whether the model needs it; putting a chosen pattern in its place asks whether that
pattern is enough. Each pattern names one source position per output step i, from the text's true length n and,
for the sorted order, its characters; a position past either end of the text is moved to the nearest end (so the
mirror's end step, i = n, reads position 0, where the last character came from). Uniform spreads the weight over
the n characters.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import random_string
from transformer.intervention import Intervention, Replacement
from transformer.metrics import exact_match
from transformer.model import Transformer
from transformer.data import source_positions
from transformer.task_rules import LATIN
from transformer.vocab import CHARACTERS, PAD, SPECIALS, Vocab

from .lab import Progress, lab_limit, report

PATTERNS = ("task", "task+1", "task-1", "mirror", "diagonal", "uniform")
JUDGED_FROM = 0.1  # below this exact match of its own, a model has too little of its task for a pattern to keep
PAST_LENGTHS = 8   # words past the trained length: lengths max_len+1 .. max_len+8 (49-56 for the bundled models)
NEARLY_ALL = 0.9   # from this exact match past the trained length on, a pattern rescues nearly all the longer words


def pattern_label(name: str, task: str) -> str:
    """How the page names a pattern under a task: the offsets move the task's own source position by one (for
    a rule other than the bundled three, to the key of the next or the previous output step)."""
    own = {"reverse": "the ideal mirror (n−1−i)", "copy": "the diagonal (i)",
           "sort": "the sorted order (the i-th smallest)"}.get(task, f"{task}'s map")
    shifted = {"reverse": ("n−i", "n−2−i"), "copy": ("i+1", "i−1"),
               "sort": ("the i-th smallest + 1", "the i-th smallest − 1")}.get(
        task, ("the key of step i+1", "the key of step i−1"))
    return {
        "task": f"{own}, the task's own pattern",
        "task+1": f"one to the right ({shifted[0]})",
        "task-1": f"one to the left ({shifted[1]})",
        "mirror": "the ideal mirror (n−1−i)",
        "diagonal": "the diagonal (i)",
        "uniform": "uniform over the source (1/n each)",
    }[name]


def patterns_for(task: str) -> list[str]:
    """The patterns offered under a task, the task's own first; the mirror or the diagonal is left out where it
    is the task's own."""
    same = {"reverse": "mirror", "copy": "diagonal"}.get(task)
    return [name for name in PATTERNS if name != same]


def _rule_keys(task: str, source: torch.Tensor, n_queries: int, characters: str, shift: int) -> torch.Tensor:
    """(B, Tq) the source position the rule's map names for output step i + shift, each row read back to its text
    (a step past the map's end keeps its last key)."""
    rows = []
    for ids in source.tolist():
        text = "".join(characters[i - len(SPECIALS)] for i in ids if i >= len(SPECIALS))
        positions = source_positions(text, task, characters.replace(" ", "")) or [0]
        rows.append([positions[min(max(i + shift, 0), len(positions) - 1)] for i in range(n_queries)])
    return torch.tensor(rows, dtype=torch.long, device=source.device)


def source_keys(name: str, task: str, source: torch.Tensor, n_queries: int,
                characters: str = CHARACTERS) -> torch.Tensor:
    """(B, Tq) the source position each output step reads under a one-position pattern, within 0..n-1.
    characters: the vocabulary's (vocab.characters), to read a row back to its text for a rule's own map."""
    n = (source != PAD).sum(-1, keepdim=True)                       # (B, 1)
    step = torch.arange(n_queries, device=source.device)[None]      # (1, Tq)
    last = (n - 1).clamp(min=0)
    if name.startswith("task") and task not in ("reverse", "copy", "sort"):
        keys = _rule_keys(task, source, n_queries, characters, {"task+1": 1, "task-1": -1}.get(name, 0))
        return torch.minimum(keys.clamp(min=0), last)
    if name == "mirror" or (name.startswith("task") and task == "reverse"):
        keys = n - 1 - step
    elif name == "diagonal" or (name.startswith("task") and task == "copy"):
        keys = step.expand(source.size(0), -1)
    elif name.startswith("task") and task == "sort":
        ranked = source.masked_fill(source == PAD, torch.iinfo(source.dtype).max)
        order = torch.sort(ranked, dim=-1, stable=True).indices     # (B, S) equal characters in source order
        keys = order.gather(1, torch.minimum(step, last))           # (B, Tq)
    else:
        raise ValueError(f"unknown pattern {name!r} for task {task!r}: one of {PATTERNS}")
    keys = keys + {"task+1": 1, "task-1": -1}.get(name, 0)
    return torch.minimum(keys.clamp(min=0), last)                   # (B, Tq)


def pattern_weights(name: str, task: str, source: torch.Tensor, n_queries: int,
                    characters: str = CHARACTERS) -> torch.Tensor:
    """(B, Tq, S) the weights a replaced head uses: one-hot on source_keys, or 1/n over the text for uniform."""
    if name not in PATTERNS:
        raise ValueError(f"unknown pattern {name!r}: one of {PATTERNS}")
    if name == "uniform":
        text = (source != PAD).float()                                # (B, S)
        spread = text / text.sum(-1, keepdim=True).clamp(min=1)
        return spread[:, None].expand(-1, n_queries, -1)
    keys = source_keys(name, task, source, n_queries, characters)   # (B, Tq)
    return torch.nn.functional.one_hot(keys, source.size(1)).float()


@dataclass(frozen=True)
class Placement:
    """Where the pattern goes: one decoder layer's cross-attention, every head or one."""

    layer: int
    head: int | None = None   # None: every head of the layer

    def describe(self) -> str:
        return f"every cross head of layer {self.layer}" if self.head is None else f"cross L{self.layer} H{self.head}"


def patched(name: str, task: str, placement: Placement, model: Transformer,
            characters: str = CHARACTERS) -> Intervention:
    """The intervention that puts the pattern in place for one run (checked against the model's shape)."""
    config = model.config
    if not 0 <= placement.layer < config.n_decoder_layers:
        raise ValueError(f"layer {placement.layer} is outside 0..{config.n_decoder_layers - 1}")
    if placement.head is not None and not 0 <= placement.head < config.n_heads:
        raise ValueError(f"head {placement.head} is outside 0..{config.n_heads - 1}")
    if name not in PATTERNS:
        raise ValueError(f"unknown pattern {name!r}: one of {PATTERNS}")
    heads = None if placement.head is None else frozenset({placement.head})
    return Intervention(replaced=(Replacement(
        placement.layer, lambda src, t: pattern_weights(name, task, src, t, characters), heads),))


def past_lengths(model: Transformer) -> list[int]:
    """The lengths just past the trained ones that the lab may read (none if the position table ends there)."""
    limit = model.config.max_len
    return list(range(limit + 1, min(limit + PAST_LENGTHS, lab_limit(model)) + 1))


def past_span(model: Transformer) -> str:
    """The lengths past_lengths covers, as the pages write them: '49–56' (a model that can read none has none)."""
    lengths = past_lengths(model)
    return f"{lengths[0]}–{lengths[-1]}" if lengths else ""


def longer_texts(model: Transformer, n: int, seed: int = 0, letters: str = LATIN) -> list[str]:
    """n random strings spread evenly over past_lengths, drawn from a seed (the same words for every pattern)."""
    rng = random.Random(seed)
    lengths = past_lengths(model)
    return [random_string(rng, lengths[k % len(lengths)], letters=letters) for k in range(n)] if lengths else []


@dataclass(frozen=True)
class PatchScore:
    within: float            # exact match on the held-out words (trained lengths)
    past: float | None       # exact match on words past the trained length (None: the model cannot read them)
    n_within: int
    n_past: int


def patch_score(model: Transformer, vocab: Vocab, held_out: list[str], longer: list[str], task: str,
                edit: Intervention, progress: Progress = None) -> PatchScore:
    """Exact match of greedy free-running decodings, the pattern in place at every step, in and past the
    trained length."""
    report(progress, 0.0)
    within = exact_match(model, vocab, held_out, edit, task=task).exact_match
    report(progress, 0.5)
    past = exact_match(model, vocab, longer, edit, max_len=lab_limit(model), task=task).exact_match if longer else None
    return PatchScore(within, past, len(held_out), len(longer))


def pattern_grid(name: str, task: str, vocab: Vocab, text: str, n_queries: int, limit: int) -> np.ndarray:
    """(Tq, S) the pattern one text's run reads, for a chart."""
    source = torch.tensor([vocab.encode(text, limit)])
    return pattern_weights(name, task, source, n_queries, vocab.characters)[0].numpy()


def past_rescue(own: PatchScore, patched: PatchScore, noise_points: float) -> str:
    """What a pattern, handed the true length n, wins back past the trained length, against the model's own
    weights on the same longer words (both scored there; `noise_points` is one standard error of a figure, in
    points): 'worse' or 'noise' when it does worse or no better than the noise; otherwise 'nearly all' when it
    keeps NEARLY_ALL of them or more, 'most' when it wins back at least half of what the own weights lose, and
    'some'. Build a head and How this model reverses both read their sentence about longer words from it."""
    gain = patched.past - own.past
    if gain * 100 < -noise_points:
        return "worse"
    if gain * 100 <= noise_points:
        return "noise"
    if patched.past >= NEARLY_ALL:
        return "nearly all"
    return "most" if gain >= (1 - own.past) / 2 else "some"


def verdict(patched_share: float, normal_share: float) -> str:
    """'kept', 'part' or 'lost': how much of the model's own exact match the pattern keeps (a tenth of the
    normal figure lost is still kept; more than half lost is lost); 'none' when the model itself gets fewer than
    a tenth of the words right, too few to judge."""
    if normal_share < JUDGED_FROM:
        return "none"
    ratio = patched_share / normal_share
    return "kept" if ratio >= 0.9 else "part" if ratio >= 0.5 else "lost"
