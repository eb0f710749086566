"""The lessons' numbers: input vectors and pattern shares of a run, why attention divides by √d_k, how much an
encoder head looks at the last character, and what the decoder writes after a wrong first token."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import torch

from transformer.data import pad, target
from transformer.decoding import max_output_tokens
from transformer.intervention import Intervention, Replacement
from transformer.metrics import exact_match, pattern_share
from transformer.model import Transformer
from transformer.trace import read_only
from transformer.vocab import EOS, PAD, SOS, Vocab
from transformer.task_rules import LATIN

from .lab import Progress, report, teacher_forced_trace
from .patching import pattern_weights
from .run import Run

COMPANIONS = (  # batch partners for the masks page, so the learner's word sits among padded rows
    "softmax", "residual", "layer norm", "attention", "feed forward", "encoder decoder",
    "query key value", "positional encoding", "multi head attention", "scaled dot product",
)


def made_words(letters: str, max_len: int) -> tuple[str, ...]:
    """Words of another alphabet to stand in for COMPANIONS: its letters in turn, at four lengths."""
    lengths = sorted({max(1, max_len * k // 4) for k in (4, 3, 2, 1)}, reverse=True)
    return tuple("".join(letters[(start * 5 + i) % len(letters)] for i in range(n))
                 for start, n in enumerate(lengths))


def companions(text: str, max_len: int, count: int = 2, letters: str = LATIN) -> list[str]:
    """Batch partners longer than the text where possible, so the text's own row gets real padding."""
    usable = set(letters) | {" "}  # every vocabulary has the space the bundled phrases use
    known = COMPANIONS if all(set(w) <= usable for w in COMPANIONS) else made_words(letters, max_len)
    fitting = [w for w in known if len(w) <= max_len and w != text]
    longer = sorted((w for w in fitting if len(w) > len(text)), key=len)
    shorter = sorted((w for w in fitting if len(w) <= len(text)), key=len, reverse=True)
    return (longer + shorter)[:count]


@dataclass(frozen=True)
class ScalingSample:
    """The paper's argument for dividing by √d_k, on random queries and keys with unit-variance components."""

    d_k: int
    score_std: float           # std of q·k: about √d_k
    scaled_std: float          # std of q·k/√d_k: about 1
    top_weight: float          # mean largest softmax weight without the scaling
    scaled_top_weight: float   # and with it
    gradient: float            # mean Frobenius norm of the softmax's Jacobian without the scaling (0: no gradient)
    scaled_gradient: float     # and with it
    example: np.ndarray        # (n_keys,) one draw's weights without the scaling
    scaled_example: np.ndarray  # (n_keys,) the same draw's weights with it


@functools.lru_cache(maxsize=16)
def scaling_experiment(d_k: int, n_keys: int = 10, draws: int = 2000, seed: int = 0) -> ScalingSample:
    """Seeded, so computed once per process rather than on every rerun of the Masks page, which tabulates five sizes."""
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(draws, 1, d_k, generator=generator, dtype=torch.float64)       # (draws, 1, d_k)
    k = torch.randn(draws, n_keys, d_k, generator=generator, dtype=torch.float64)  # (draws, n_keys, d_k)
    raw = (q @ k.transpose(1, 2))[:, 0]                                            # (draws, n_keys)
    scaled = raw / math.sqrt(d_k)
    weights = {name: torch.softmax(s, -1) for name, s in (("raw", raw), ("scaled", scaled))}
    jacobian = {name: (torch.diag_embed(p) - p[:, :, None] * p[:, None, :]).flatten(1).norm(dim=1).mean()
                for name, p in weights.items()}                                     # dp/ds = diag(p) − p pᵀ
    return ScalingSample(
        d_k, float(raw.std()), float(scaled.std()),
        float(weights["raw"].max(-1).values.mean()), float(weights["scaled"].max(-1).values.mean()),
        float(jacobian["raw"]), float(jacobian["scaled"]),
        read_only(weights["raw"][0].numpy()), read_only(weights["scaled"][0].numpy()),   # shared by every session
    )


@dataclass(frozen=True)
class InputVectors:
    embedding_norm: np.ndarray        # (S,) ||embedding * sqrt(d_model)||
    raw_embedding_norm: np.ndarray    # (S,) ||embedding|| before scaling
    position_norm: np.ndarray         # (S,) ||PE(pos)|| = sqrt(d_model / 2)
    positions: np.ndarray             # (S, d_model) the encoding added to each source position


def input_vectors(run: Run) -> InputVectors:
    scaled, rows = run.trace["src_embed.output"], run.trace["src_positions.rows"]   # (S, d_model) each
    d_model = scaled.shape[-1]
    return InputVectors(
        embedding_norm=np.linalg.norm(scaled, axis=1),
        raw_embedding_norm=np.linalg.norm(scaled / math.sqrt(d_model), axis=1),
        position_norm=np.linalg.norm(rows, axis=1),
        positions=rows,
    )


def pattern_shares(run: Run, layer: int) -> np.ndarray:
    """(H,) per head of one decoder layer: the share of this run's output steps whose largest
    cross-attention weight falls on the source position its task copies from (transformer.metrics.pattern_share;
    for reversal, the mirrored position n-1-i)."""
    cross = torch.tensor(run.trace["cross", layer])[None]                    # (1, H, T, S)
    return pattern_share(cross, [run.text], run.task, run.letters).numpy()


def last_key_shares(run: Run, layer: int, head: int) -> np.ndarray:
    """(S,) the weight each query of one encoder head puts on the text's last character: the clue, in step 3,
    that the encoder can mark where the text ends (which reversing needs to start)."""
    return np.asarray(run.trace["encoder_self", layer][head][:, -1], dtype=float)


FORCED_OUTCOMES = ("restart", "carry on", "other")   # after a wrong first token: the whole target, the rest, else


def forced_outcome(written: str, target: str, token: str) -> str:
    """What a decoding did after `token` was forced in as its first character: wrote the whole target after it
    ('restart'), the target without its first character, as if the token had been it ('carry on'), or else."""
    if written == token + target:
        return "restart"
    if written == token + target[1:]:
        return "carry on"
    return "other"


@dataclass(frozen=True)
class ForcedOutcomes:
    token: str
    counts: dict[str, int]     # FORCED_OUTCOMES -> how many words did that
    words: int                 # the words counted: those whose target does not start with the token

    @property
    def commonest(self) -> str:
        return max(FORCED_OUTCOMES, key=lambda o: self.counts[o])


@torch.inference_mode()
def forced_outcomes(model: Transformer, vocab: Vocab, texts: list[str], token: str, task: str = "reverse",
                    batch_size: int = 50, progress: Progress = None) -> ForcedOutcomes:
    """Force `token` as the first character of every text's output, decode the rest greedily (batched, as
    transformer.decoding.greedy_batch) and count the outcomes. Texts whose target starts with the token are left
    out: there the token is not wrong."""
    texts = [t for t in texts if not target(t, task, vocab.letters).startswith(token)]
    forced_id = vocab.encode(token, 1)[0]
    counts = dict.fromkeys(FORCED_OUTCOMES, 0)
    order = sorted(texts, key=len)
    for start in range(0, len(order), batch_size):
        report(progress, start / max(len(order), 1))
        chunk = order[start:start + batch_size]
        sources = [vocab.encode(t, model.config.max_len) for t in chunk]
        src = pad(sources)                                                              # (B, S)
        encoded = model.encode(src)
        tgt = torch.tensor([[SOS, forced_id]] * len(chunk))                             # (B, 2)
        done = torch.zeros(len(chunk), dtype=torch.bool)
        limits = torch.tensor([max_output_tokens(model, len(s)) for s in sources])      # (B,)
        for t in range(1, int(limits.max())):
            token_ids = model.decode(tgt, encoded)[:, -1].argmax(-1).masked_fill(done, PAD)   # (B,)
            tgt = torch.cat([tgt, token_ids[:, None]], dim=1)
            done |= (token_ids == EOS) | (limits <= t + 1)
            if bool(done.all()):
                break
        for text, row in zip(chunk, tgt[:, 1:].tolist()):
            counts[forced_outcome(vocab.decode(row), target(text, task, vocab.letters), token)] += 1   # to EOS
    return ForcedOutcomes(token, counts, len(texts))


SPLIT = 0.3   # a step whose last layer puts at least this much of its weight on n − i reads two keys, not one


@dataclass(frozen=True)
class LastLayerSplit:
    """How the reverser's last layer shares its cross-attention between the character to write (n − 1 − i) and
    the one the step has just read (n − i), over held-out words, and what weights set by hand to half on each
    keep: the test of whether the weight on n − i counts as a vote for the letter there."""

    on_task: float      # mean weight (the layer's heads averaged) on n − 1 − i, over steps 1 .. n − 1
    on_read: float      # the same on n − i
    split_share: float  # share of those steps with at least SPLIT on n − i
    steps: int
    own: float          # exact match with the model's own weights
    half_read: float    # with every last-layer cross head's weights half on n − 1 − i, half on n − i
    half_other: float   # half on n − 1 − i, half on n − 2 − i: the other neighbour
    words: int


def half_pattern(task: str, other: str):
    """A pattern (transformer.intervention.Pattern) with half the weight on the task's key, half on `other`
    (analysis.patching's names: "task+1" is n − i for reverse, "task-1" is n − 2 − i)."""
    return lambda source, n_queries: 0.5 * (pattern_weights("task", task, source, n_queries)
                                            + pattern_weights(other, task, source, n_queries))


@torch.inference_mode()
def last_layer_split(model: Transformer, vocab: Vocab, texts: list[str], progress: Progress = None) -> LastLayerSplit:
    """The reverser's last layer on `texts` (teacher-forced, so every step has its right prefix), then greedy
    exact match with its weights set by hand (LastLayerSplit)."""
    last = model.config.n_decoder_layers - 1
    on_task, on_read = [], []
    for done, text in enumerate(texts):
        report(progress, 0.5 * done / max(len(texts), 1))
        weights = teacher_forced_trace(model, vocab, text)["cross", last][0].double().mean(0)   # (T, S)
        n = len(text)
        for i in range(1, n):
            on_task.append(float(weights[i, n - 1 - i]))
            on_read.append(float(weights[i, n - i]))
    matches = {}
    for k, other in enumerate(("task+1", "task-1")):
        report(progress, 0.5 + 0.25 * k)
        edit = Intervention(replaced=(Replacement(last, half_pattern("reverse", other)),))
        matches[other] = exact_match(model, vocab, texts, edit, task="reverse").exact_match
    own = exact_match(model, vocab, texts, task="reverse").exact_match
    return LastLayerSplit(float(np.mean(on_task)), float(np.mean(on_read)), float(np.mean(np.array(on_read) >= SPLIT)),
                          len(on_read), own, matches["task+1"], matches["task-1"], len(texts))


@dataclass(frozen=True)
class RepeatPair:
    """Two texts that differ in one character, beside the key n − i that output step `step` has just read from:
    in `repeated` that key's letter stands there twice (at n − i and n − i + 1), in `single` once."""

    repeated: str
    single: str
    step: int

    @property
    def read_key(self) -> int:
        return len(self.repeated) - self.step


def repeat_pair(text: str, step: int, alphabet: str) -> RepeatPair:
    """The learner's text and its twin at `step`: the letter beside n − i made equal to it, or, where it already
    is, made a letter of `alphabet` the text does not hold. ValueError where n − i has no neighbour on its right
    (steps 2 .. n − 1 do)."""
    n = len(text)
    if not 2 <= step <= n - 1:
        raise ValueError(f"step {step} of a text of {n} characters has no key beside n − i: steps 2 to {n - 1} do")
    k = n - step
    if text[k] == " ":
        raise ValueError(f"step {step} has just read a space: a space cannot stand twice")
    if text[k + 1] == text[k]:
        spare = next((c for c in alphabet if c not in text and c != " "), None)
        if spare is None:
            raise ValueError("the text holds every letter of the model's alphabet: none is left to swap in")
        return RepeatPair(text, text[:k + 1] + spare + text[k + 2:], step)
    return RepeatPair(text[:k + 1] + text[k] + text[k + 2:], text, step)
