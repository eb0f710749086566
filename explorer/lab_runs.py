"""The lab's experiments over whole samples (and the lesson's), cached; a bundled checkpoint's are read from its
stored tables (analysis.table_store) when they are fresh. One word's runs come from explorer.cache.text_run; every
function takes the model's key (explorer.cache.model_key) first; each
experiment builds its own Intervention, so it is an argument to the
shared model, never a change to it."""

from __future__ import annotations

from analysis import lab, mechanism, offsets, patching
from analysis.lesson import ForcedOutcomes, LastLayerSplit, forced_outcomes, last_layer_split
from analysis.run import Run, make_run
from transformer.checkpoint import Checkpoint
from transformer.data import held_out_strings, sample_strings
from transformer.intervention import NO_INTERVENTION, Head
from transformer.metrics import exact_match
from transformer.task_rules import LATIN

from .cache import SHARED_TABLES, checkpoint_for, intervention, model_run
from .on_request import on_request

SAMPLE_SIZE = 200   # held-out words behind every exact-match figure of the lab
NOISE_POINTS = 50 / SAMPLE_SIZE ** 0.5  # sampling noise of an exact-match figure: one standard error at 50 %
RULE_OF_THREE_POINTS = 300 / SAMPLE_SIZE  # 95 % bound on a loss when no word of the sample broke
PROBE_SEED = 5      # the held-out words a length probe is fitted on (it is scored on the lab's sample)


def held_out_sample(max_len: int, letters: str = LATIN, min_len: int = 1) -> list[str]:
    """The lab's held-out words: SAMPLE_SIZE of them, in the model's own alphabet and lengths."""
    return held_out_strings(SAMPLE_SIZE, max_len, min_len=min_len, letters=letters)


def lab_words(ckpt: Checkpoint) -> list[str]:
    return held_out_sample(ckpt.model.config.max_len, ckpt.vocab.letters, ckpt.min_len)


@model_run(max_entries=4, show_spinner="Switching off each head in turn on 200 held-out words…",
           shared=SHARED_TABLES, stored=True)
def _ablation_table(key: str, _progress: lab.Progress = None) -> tuple[float, list[lab.HeadEffect]]:
    ckpt = checkpoint_for(key)
    return lab.ablation_ranking(ckpt.model, ckpt.vocab, lab_words(ckpt), ckpt.task,
                                _progress)


@model_run(max_entries=4, show_spinner="Scoring every head on 200 held-out words…", shared=SHARED_TABLES, stored=True)
def _pattern_table(key: str, _progress: lab.Progress = None) -> list[lab.HeadPattern]:
    ckpt = checkpoint_for(key)
    return lab.pattern_scores(ckpt.model, ckpt.vocab, lab_words(ckpt), ckpt.task,
                              _progress)


@model_run(max_entries=8, show_spinner="Scoring heads against the offsets of their pattern on 200 held-out words…",
           shared=SHARED_TABLES, stored=True)
def _offset_table(key: str, heads_off: tuple[tuple[str, int, int], ...] = (), kind: str | None = None,
                  layer: int | None = None, _progress: lab.Progress = None) -> list[offsets.OffsetFit]:
    ckpt = checkpoint_for(key)
    return offsets.head_offsets(ckpt.model, ckpt.vocab, lab_words(ckpt), ckpt.task,
                                kind, layer, edit=intervention(heads_off), progress=_progress)


@model_run(max_entries=64, show_spinner="Measuring exact match on 200 held-out words…",
           shared=SHARED_TABLES, stored=True)
def _sample_exact_match(key: str, positions: str, sides: tuple[str, ...], seed: int,
                        _progress: lab.Progress = None) -> float:
    ckpt = checkpoint_for(key)
    edit = intervention((), positions, sides, seed)
    lab.report(_progress, 0.0)   # one batch of 200 decodings (n + 9 steps each), after a chance to stop
    sample = lab_words(ckpt)
    return exact_match(ckpt.model, ckpt.vocab, sample, edit, task=ckpt.task).exact_match


@model_run(max_entries=4, show_spinner="Running random strings of every length up to twice the trained length…",
           shared=SHARED_TABLES, stored=True)
def _length_curve(key: str, per_length: int = 20, _progress: lab.Progress = None) -> dict[int, float]:
    ckpt = checkpoint_for(key)
    lengths = list(range(1, lab.lab_limit(ckpt.model) + 1))
    return lab.exact_match_by_length(ckpt.model, ckpt.vocab, lengths, per_length, task=ckpt.task,
                                     progress=_progress)


@model_run(max_entries=4, show_spinner="Finding where the output first goes wrong at each length…",
           shared=SHARED_TABLES, stored=True)
def _failure_table(key: str, per_length: int = 10, _progress: lab.Progress = None) -> list[lab.FirstFailure]:
    ckpt = checkpoint_for(key)
    limit = ckpt.model.config.max_len
    lengths = list(range(max(1, limit - 4), min(limit + 16, lab.lab_limit(ckpt.model)) + 1, 2))
    return lab.first_failures(ckpt.model, ckpt.vocab, lengths, per_length, task=ckpt.task, progress=_progress)


@model_run(max_entries=4, show_spinner="Fitting linear probes for the length on 600 held-out words…",
           shared=SHARED_TABLES, stored=True)
def _length_probe(key: str, heads_off: tuple[tuple[str, int, int], ...],
                  _progress: lab.Progress = None) -> mechanism.LengthProbe:
    ckpt = checkpoint_for(key)
    limit = ckpt.model.config.max_len
    test = lab_words(ckpt)
    train = [t for t in sample_strings(600, PROBE_SEED, limit, held_out=True, min_len=ckpt.min_len,
                                       letters=ckpt.vocab.letters) if t not in set(test)]
    lab.report(_progress, 0.0)   # encoder passes and two batches of decodings, after a chance to stop
    return mechanism.length_probe(ckpt.model, ckpt.vocab, train, test, [Head(*h) for h in heads_off])


@model_run(max_entries=4, show_spinner="Forcing a wrong first character on 200 held-out words…",
           shared=SHARED_TABLES, stored=True)
def _forced_table(key: str, token: str, _progress=None) -> ForcedOutcomes:
    ckpt = checkpoint_for(key)
    return forced_outcomes(ckpt.model, ckpt.vocab, lab_words(ckpt), token, ckpt.task,
                           progress=_progress)


@model_run(max_entries=4, show_spinner="Measuring the last layer's weights on 200 held-out words…",
           shared=SHARED_TABLES, stored=True)
def _split_table(key: str, _progress=None) -> LastLayerSplit:
    ckpt = checkpoint_for(key)
    return last_layer_split(ckpt.model, ckpt.vocab, lab_words(ckpt), _progress)


def split_table(key: str, ask: bool = True) -> LastLayerSplit | None:
    """How the last layer shares its weight between n − 1 − i and n − i, and what half on each keeps (step 13)."""
    return on_request(_split_table, "Measuring the last layer's weights on 200 held-out words", key, ask=ask)


def ablation_table(key: str, ask: bool = True) -> tuple[float, list[lab.HeadEffect]] | None:
    return on_request(_ablation_table, "Switching off each head in turn on 200 held-out words", key, ask=ask)


def forced_table(key: str, token: str, ask: bool = True) -> ForcedOutcomes | None:
    """What the 200 held-out words write after a wrong first character (`token`) is forced on them."""
    return on_request(_forced_table, "Forcing a wrong first character on 200 held-out words", key, token, ask=ask)


def pattern_table(key: str) -> list[lab.HeadPattern]:
    return on_request(_pattern_table, "Scoring every head on 200 held-out words", key)


def offset_table(key: str, heads_off: tuple[tuple[str, int, int], ...] = (), kind: str | None = None,
                 layer: int | None = None, ask: bool = True) -> list[offsets.OffsetFit] | None:
    """Heads (all, or one kind or layer) against the offsets of their pattern, with `heads_off` switched off."""
    return on_request(_offset_table, "Scoring heads against the offsets of their pattern on 200 held-out words",
                      key, heads_off, kind, layer, ask=ask)


def sample_exact_match(key: str, positions: str, sides: tuple[str, ...], seed: int) -> float:
    return on_request(_sample_exact_match, "Measuring exact match on 200 held-out words", key, positions, sides,
                      seed)


def length_curve(key: str) -> dict[int, float]:
    return on_request(_length_curve, "Running random strings of every length up to twice the trained length", key)


def failure_table(key: str) -> list[lab.FirstFailure]:
    return on_request(_failure_table, "Finding where the output first goes wrong at each length", key)


def length_probe(key: str, heads_off: tuple[tuple[str, int, int], ...]) -> mechanism.LengthProbe:
    return on_request(_length_probe, "Fitting linear probes for the length on 600 held-out words", key, heads_off)


@model_run(max_entries=32, show_spinner="Measuring exact match with the pattern in place on 400 words…",
           shared=SHARED_TABLES, stored=True)
def _patch_table(key: str, pattern: str | None, layer: int, head: int | None,
                 _progress: lab.Progress = None) -> patching.PatchScore:
    """Exact match with a pattern in place of cross-attention weights (None: the model's own), on the lab's
    held-out words and as many words just past the trained length."""
    ckpt = checkpoint_for(key)
    model = ckpt.model
    edit = (NO_INTERVENTION if pattern is None else
            patching.patched(pattern, ckpt.task, patching.Placement(layer, head), model, ckpt.vocab.characters))
    return patching.patch_score(model, ckpt.vocab, lab_words(ckpt),
                                patching.longer_texts(model, SAMPLE_SIZE, letters=ckpt.vocab.letters), ckpt.task,
                                edit, _progress)


@model_run(max_entries=64)
def patched_run(key: str, text: str, pattern: str, layer: int, head: int | None) -> Run:
    """The learner's text decoded greedily with the pattern in place at every step."""
    ckpt = checkpoint_for(key)
    edit = patching.patched(pattern, ckpt.task, patching.Placement(layer, head), ckpt.model, ckpt.vocab.characters)
    return make_run(ckpt.model, ckpt.vocab, text, edit=edit, task=ckpt.task)


def patch_table(key: str, pattern: str | None, layer: int, head: int | None,
                ask: bool = True) -> patching.PatchScore | None:
    return on_request(_patch_table, "Measuring exact match on 200 held-out words and 200 longer ones",
                      key, pattern, layer, head, ask=ask)
