"""One run: a text through the model once, with everything a page draws from it.

The decoder input is decided first (the model's own greedy or sampled tokens, a learner's forced token,
or the task's correct output fed in), then one traced pass reads it. Because of the causal mask, row t of
that pass is exactly what decoding step t saw, so the steps need no pass of their own. Greedy decoding reads
the task's answer as a draft, so where the model writes it, the traced pass of the draft is the decoding's
one pass.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer import decoding
from transformer.data import correct_tokens, pad, target   # correct_tokens: re-exported for the pages
from transformer.decoding import greedy_batch, next_token_probs
from transformer.intervention import NO_INTERVENTION, Intervention
from transformer.model import Transformer
from transformer.task_rules import LATIN
from transformer.trace import Recorder, Trace, read_only
from transformer.vocab import EOS, PAD, SOS, Vocab

from .labels import token_label


@dataclass(frozen=True)
class Decoding:
    """How the decoder's input is decided."""

    temperature: float | None = None          # None: greedy; otherwise sampled at this temperature
    top_k: int | None = None
    seed: int = 0
    forced: tuple[tuple[int, int], ...] = ()  # (step, token) fed onward instead of the model's choice
    teacher: bool = False                     # feed the task's correct output instead (teacher forcing)


GREEDY = Decoding()
TEACHER = Decoding(teacher=True)


@dataclass(frozen=True)
class Run:
    """S source positions, T decoder positions (one per decoding step), V tokens in the vocabulary."""

    text: str
    source_ids: tuple[int, ...]    # (S,)
    fed_ids: tuple[int, ...]       # (T,) the token each step passed on (its choice, a forced one, or the correct one)
    chosen_ids: tuple[int, ...]    # (T,) what the model chose at each step (for teacher forcing: its argmax)
    source: list[str]              # (S,) labels
    decoder_in: list[str]          # (T,) labels of what each position reads: SOS, then the fed tokens
    decoder_out: list[str]         # (T,) labels of what each position chose
    output: str                    # what was written: the fed tokens before EOS
    logits: np.ndarray             # (T, V) the generator's scores
    probs: np.ndarray              # (T, V) the distribution each choice was drawn from (temperature, top-k applied)
    trace: Trace                   # every activation of the pass, numpy, batch dimension removed
    d_k: int
    task: str = "reverse"          # what the model was trained to write (a rule of transformer.task_rules)
    letters: str = LATIN           # the model's alphabet (vocab.letters): what shift moves along
    draft_kept: int | None = None  # greedy runs: how many tokens of the task's answer, read as a draft, were kept

    @property
    def target(self) -> str:
        """What the task asks for: the text reversed, copied, sorted, or whatever its rule writes."""
        return target(self.text, self.task, self.letters)

    @property
    def decoder_in_ids(self) -> list[int]:
        return [SOS, *self.fed_ids[:-1]]

    def probability_of(self, token_ids: list[int]) -> np.ndarray:
        """(T,) the probability each step gave the token listed for it."""
        return self.probs[np.arange(len(token_ids)), token_ids]


@torch.inference_mode()
def make_run(model: Transformer, vocab: Vocab, text: str, how: Decoding = GREEDY,
             edit: Intervention = NO_INTERVENTION, max_len: int | None = None, task: str = "reverse") -> Run:
    """`max_len` lets a lab read beyond the model's own limit (vocab.encode still refuses longer texts)."""
    limit = model.config.max_len if max_len is None else max_len
    src = vocab.encode(text, limit)
    kept = None                                          # draft tokens kept: greedy runs only
    traced = None                                        # the traced pass, where deciding the tokens made it
    if how.teacher:
        fed = correct_tokens(vocab, text, limit, task)
        chosen = None
    elif how.temperature is None and not how.forced:     # greedy: the task's answer as a draft, checked in a pass
        draft = correct_tokens(vocab, text, limit, task)
        traced = _trace_confirming(model, src, draft, edit)
        if traced is not None:
            fed, chosen, kept = draft, draft, len(draft)
        else:
            decided, kept = decoding.drafted_greedy(model, src, draft, edit)
            fed, chosen = list(decided.fed), list(decided.chosen)
    else:
        decided = decoding.decide(model, src, how.temperature, how.top_k, how.seed, edit, dict(how.forced))
        fed, chosen = list(decided.fed), list(decided.chosen)
    if traced is None:
        traced = traced_pass(model, torch.tensor([src]), torch.tensor([[SOS, *fed[:-1]]]), edit)
    logits, trace = traced
    logits = logits[0]                                                          # (T, V)
    if chosen is None:
        chosen = logits.argmax(-1).tolist()
    return _record(vocab, text, src, fed, chosen, logits, next_token_probs(logits, how.temperature, how.top_k),
                   trace.row(0), model.config.d_k, task, kept)


@torch.inference_mode()
def make_batch_runs(model: Transformer, vocab: Vocab, texts: list[str], task: str = "reverse") -> list[Run]:
    """Greedy runs of several texts from one padded pass: each run keeps the batch's padded width, so its
    masks show the padding. As in make_run, the traced pass of the task's answers decides the tokens: where the
    model writes every row's answer it is the only pass; otherwise greedy_batch decodes the rows it refused, and
    a second pass traces what was decided."""
    sources = [vocab.encode(t, model.config.max_len) for t in texts]
    drafts = [correct_tokens(vocab, t, model.config.max_len, task) for t in texts]
    src = pad(sources)                                                          # (B, S)
    decoded: list[list[int] | None] = [None] * len(texts)                       # tokens before EOS, each row
    traced = None
    if all(decoding.draftable(model, s, d) for s, d in zip(sources, drafts)):
        read = pad([[SOS, *d[:-1]] for d in drafts])                            # (B, D)
        logits, trace = traced_pass(model, src, read)                           # the drafts' traced pass
        for b, (choices, draft) in enumerate(zip(logits.argmax(-1).tolist(), drafts)):
            if choices[:len(draft)] == draft:           # a padded row's choices run on past its draft
                decoded[b] = draft[:-1]                 # greedy decoding writes this row's draft
        if all(d is not None for d in decoded):
            traced, tgt = (logits, trace), read         # it writes every one: that pass was the decoding's
    refused = [b for b, d in enumerate(decoded) if d is None]
    for b, tokens in zip(refused, greedy_batch(model, [sources[b] for b in refused])):
        decoded[b] = tokens
    if traced is None:
        tgt = pad([[SOS, *d] for d in decoded])                                 # (B, T)
        traced = traced_pass(model, src, tgt)
    logits, trace = traced
    runs = []
    for b, text in enumerate(texts):
        # What each position passed on: the output, then padding where a shorter row would have had EOS (the
        # pass read PAD there); the last position's EOS only when this row's output fills the batch's width.
        ended = len(decoded[b]) + 1 == tgt.size(1)
        fed = [*tgt[b, 1:].tolist(), EOS if ended else PAD]
        row = logits[b]                            # (T, V)
        runs.append(_record(vocab, text, src[b].tolist(), fed, row.argmax(-1).tolist(), row,
                            torch.softmax(row, -1), trace.row(b), model.config.d_k, task))
    return runs


def _trace_confirming(model: Transformer, src: list[int], draft: list[int],
                      edit: Intervention) -> tuple[torch.Tensor, Trace] | None:
    """The traced pass of SOS + the draft, if greedy decoding writes exactly the draft: the draft pass and the
    traced pass then read the same tokens, so one pass serves as both (it was 1.4 of a run's 3.3 ms). None where
    the model refuses a draft token somewhere (drafted_greedy then decides, and a second pass traces)."""
    if not decoding.draftable(model, src, draft):
        return None
    logits, trace = traced_pass(model, torch.tensor([src]), torch.tensor([[SOS, *draft[:-1]]]), edit)
    return (logits, trace) if logits[0].argmax(-1).tolist() == draft else None          # logits (1, T, V)


def traced_pass(model: Transformer, src: torch.Tensor, tgt: torch.Tensor,
                edit: Intervention = NO_INTERVENTION) -> tuple[torch.Tensor, Trace]:
    """(B, S) source and (B, T) decoder input -> logits (B, T, V) and the pass's trace. The run owns the
    recorder: each layer writes what it computes (an attention's weights, in transformer/layers.py) straight
    into it, and model.py only hands it down, so a chart's number reaches the run from the line that made it."""
    recorder = Recorder()
    logits = model.decode(tgt, model.encode(src, recorder, edit), recorder, edit)
    return logits, Trace(recorder.store)


def _record(vocab: Vocab, text: str, src: list[int], fed: list[int], chosen: list[int], logits: torch.Tensor,
            probs: torch.Tensor, trace: Trace, d_k: int, task: str, draft_kept: int | None = None) -> Run:
    return Run(
        text=text,
        source_ids=tuple(src),
        fed_ids=tuple(fed),
        chosen_ids=tuple(chosen),
        source=[token_label(vocab, i) for i in src],
        decoder_in=[token_label(vocab, i) for i in [SOS, *fed[:-1]]],
        decoder_out=[token_label(vocab, i) for i in chosen],
        output=vocab.decode(fed),
        logits=read_only(logits.numpy().copy()),
        probs=read_only(probs.numpy().copy()),
        trace=trace,
        d_k=d_k,
        task=task,
        letters=vocab.letters,
        draft_kept=draft_kept,
    )
