"""Each lesson step as one record: its question, what the page shows before the learner answers (evidence to
reason from, never the answer) and what it reveals after, every number already computed.

A step's record is built by one function from a LessonSource, which hands out the runs and whole-sample tables
of the model in use: the page's caches (explorer.lesson) or the model itself (the unit tests). The page draws
any record with one drawer; nothing here knows Streamlit, so a test reads a step's numbers without a page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from analysis.attribution import QUICK_COUNT, VARIES, Lenses, agreement, varies
from analysis.lab import HeadEffect
from analysis.labels import attention_axes, token_label, visible
from analysis.lesson import ForcedOutcomes, LastLayerSplit, RepeatPair, input_vectors, repeat_pair
from analysis.offsets import OffsetFit, offset_label, read_offset, run_offsets
from analysis.tasks import words
from analysis.patching import PatchScore
from analysis.run import Run
from transformer.config import ModelConfig
from transformer.data import target
from transformer.intervention import Head, every_head
from transformer.vocab import Vocab

from . import questions as q
from .questions import FORCED_OPTIONS, Question, answer_noun, expected, forced_options
from .steps import STEPS, Step, step_for

FORCED = ("z", "q")   # the token forced in step 8: 'z', or 'q' when the answer starts with 'z' (else from the end
                      # of the model's own alphabet)


class LessonSource(Protocol):
    """The model in use, its runs on the lesson's text and its whole-sample tables. A table may be None: a
    model of one's own computes it on request, and `ask` says whether this step may ask for it now."""
    text: str
    task: str
    vocab: Vocab
    config: ModelConfig
    sample_size: int                                  # the held-out words behind every table

    def run(self, **change) -> Run: ...               # the text's run, changed as text_run is (forced, ablated…)
    def snapshots(self) -> list[dict]: ...            # the training snapshots' index: step, alignment
    def snapshot_output(self, step: int) -> str: ...
    def forced_table(self, token: str, ask: bool) -> ForcedOutcomes | None: ...
    def cross_offsets(self, ask: bool) -> list[OffsetFit] | None: ...
    def ablation_table(self, ask: bool) -> tuple[float, list[HeadEffect]] | None: ...
    def lenses(self) -> Lenses: ...                   # Why this character?'s lenses on the text (quick occlusion)
    def patch_score(self, pattern: str | None, layer: int, head: int | None, ask: bool) -> PatchScore | None: ...
    def cross_offsets_without(self, head: Head, ask: bool) -> list[OffsetFit] | None: ...   # the last layer's
    def other_run(self, text: str) -> Run: ...        # another text, its right prefix read (teacher forcing)
    def split_table(self, ask: bool) -> LastLayerSplit | None: ...


# --- What a step shows: a few kinds of display, each drawn one way ------------------------------------------

@dataclass(frozen=True)
class Table:
    columns: dict[str, list]
    index: tuple[str, ...] | None = None              # row names; None hides the index
    percent: tuple[str, ...] = ()                     # columns shown as percentages
    heading: str = ""                                 # markdown above the table (no learner's text in it)
    caption: str = ""                                 # markdown below it (no learner's text in it)


@dataclass(frozen=True)
class Chart:
    figure: str                                       # the name of a builder in viz
    arguments: dict
    key: str


@dataclass(frozen=True)
class Strip:
    """Short vectors as rows of coloured cells (viz.strips.vector_rows_spec)."""
    rows: tuple[np.ndarray, ...]
    names: tuple[str, ...]
    title: str
    column_name: str


@dataclass(frozen=True)
class Metric:
    label: str
    value: str


@dataclass(frozen=True)
class Written:
    """A text the model wrote, shown whole and wrapped (a metric cuts a long one off)."""
    label: str
    text: str


@dataclass(frozen=True)
class Side:
    """Two displays side by side, to compare."""
    left: Metric | Written | Table
    right: Metric | Written | Table


@dataclass(frozen=True)
class Note:
    text: str                                         # plain text, shown as written (the learner's text in it)


Display = Table | Chart | Strip | Metric | Written | Side | Note


@dataclass(frozen=True)
class StepView:
    step: Step
    question: Question | None                          # None: this model cannot ask it (see teaching.sheet)
    before: tuple[Display, ...]
    after: tuple[Display, ...] = field(default=())


# --- Steps in teaching order ------------------------------------------------------------------------------

def _step(number: int, source: LessonSource) -> Step:
    """Step `number` as the lesson words it for the model's task."""
    return step_for(number, source.task)


def _embeddings(source: LessonSource) -> StepView:
    run, text = source.run(), source.text
    vectors = input_vectors(run)
    table = Table({str(i): [visible(c), str(token), f"{length:.2f}"]
                   for i, (c, token, length) in enumerate(zip(text, run.source_ids, vectors.raw_embedding_norm))},
                  index=("character", "token id", "‖e‖, its embedding's length"))
    norms = Chart("norms_bars", {"labels": run.source, "embedding": vectors.embedding_norm,
                                 "raw_embedding": vectors.raw_embedding_norm, "position": vectors.position_norm,
                                 "title": "Length of each embedding beside its positional code"}, "lesson_norms")
    return StepView(_step(1, source), q.embedding_question(run), (table,), (norms,))


def _positions(source: LessonSource) -> StepView:
    run, shuffled = source.run(), source.run(positions="shuffle", sides=("source",))
    codes = Chart("encoding_spec", {"pe": run.trace["src_positions.rows"],
                                    "title": "The positional code added to each of your characters",
                                    "row_labels": run.source, "row_title": "source position"}, "lesson_codes")
    outputs = Side(Metric("With its positions", visible(run.output)),
                   Metric("With the source's codes shuffled", visible(shuffled.output) or "(nothing)"))
    return StepView(_step(2, source), q.positions_question(source.text, run, shuffled), (codes,), (outputs,))


def _one_head(source: LessonSource) -> StepView:
    run = source.run()
    rows, cols, _, _ = attention_axes("encoder_self", run.source, run.decoder_in)
    weights = run.trace["encoder_self", 0][0]                                              # (S, S) head 0
    head = Chart("weights_spec", {"weights": weights, "query_labels": rows, "key_labels": cols,
                                       "title": "Encoder layer 0, head 0 (row 0 outlined)", "highlight_row": 0},
                 "lesson_head")
    row = Strip((weights[0],), (f"row 0 ('{visible(run.source[0])}')",),
                "Row 0 alone, on a colour scale of its own (a long text spreads each row thin)", "key position")
    scores = run.trace.attention("encoder_self", 0, "scores")[0, 0].astype(float) * math.sqrt(run.d_k)  # (S,) row 0
    unscaled = np.exp(scores - scores.max())
    comparison = Chart("softmax_comparison", {"scaled": weights[0], "unscaled": unscaled / unscaled.sum(),
                                              "key_labels": run.source, "d_k": run.d_k,
                                              "title": "Row 0 with the division by √d_k (as trained) and without"},
                       "lesson_scaling")
    return StepView(_step(3, source), q.scaling_question(run, 0, 0, 0), (head, row), (comparison,))


def _mask_step(text: str) -> int:
    return min(3, len(text) - 1)        # a position with a later one after it (the pass reads n + 1)


def _masks(source: LessonSource) -> StepView:
    taught, t = source.run(teacher=True), _mask_step(source.text)   # the whole target read at once, as in training
    n = len(taught.decoder_in)
    mask = Chart("mask_spec", {"mask": np.tril(np.ones((n, n), dtype=bool)), "row_labels": taught.decoder_in,
                               "col_labels": taught.decoder_in, "title": "The causal mask of the decoder"}, "lesson_mask")
    weights = Chart("weights_spec", {"weights": taught.trace["decoder_self", 0][0],   # (T, T) head 0
                                          "query_labels": taught.decoder_in, "key_labels": taught.decoder_in,
                                          "title": f"Decoder self-attention, layer 0, head 0 (row {t} outlined)",
                                          "highlight_row": t}, "lesson_self")
    return StepView(_step(4, source), q.mask_question(taught, 0, 0, t), (mask,), (weights,))


def _decode_step(run: Run) -> int:
    return min(2, len(run.decoder_out) - 1)


def _decoder(source: LessonSource) -> StepView:
    run = source.run()
    t = _decode_step(run)
    labels = [token_label(source.vocab, i) for i in range(source.vocab.size)]
    bars = Chart("bars_spec", {"probs": run.probs[t], "labels": labels, "top_k": 8, "chosen": run.chosen_ids[t],
                               "title": f"Next-token probabilities at step {t}"}, "lesson_probs")
    return StepView(_step(5, source), q.decode_question(run, t),
                    (Metric(f"The decoder's input at step {t}", " ".join(run.decoder_in[:t + 1])),), (bars,))


def _cross_step(text: str, run: Run) -> int:
    """A step inside the text and inside the decoding (a model of one's own may stop early)."""
    return min(3, len(text) - 1, len(run.decoder_out) - 1)


def reading_head(run: Run) -> OffsetFit:
    """Layer 0's cross head whose largest weight stays on one offset of the mirror most often on this text (the
    sharpest among equals): step 6's head, and its offsets (the evidence step 6's prompt gives)."""
    return max(run_offsets(run, "cross", 0), key=lambda f: (f.best_share, f.mean_top_weight))


def _cross_attention(source: LessonSource) -> StepView:
    run, text = source.run(), source.text
    t, fit = _cross_step(text, run), reading_head(run)
    characters = Table({str(i): [visible(c)] for i, c in enumerate(text)}, index=("character",),
                       heading=f"**Your text, by source position** (n = {len(text)})")
    read = Note(f"Output step {t} has read: {' '.join(map(visible, run.decoder_in[:t + 1]))}")
    rows, cols, row_title, col_title = attention_axes("cross", run.source, run.decoder_in, run.decoder_out)
    head = Chart("weights_spec", {"weights": run.trace["cross", 0][fit.head], "query_labels": rows,   # (T, S)
                                       "key_labels": cols,
                                       "title": f"Cross-attention, layer 0, head {fit.head} (step {t} outlined)",
                                       "query_title": row_title, "key_title": col_title, "highlight_row": t},
                 "lesson_cross")
    question = q.cross_question(run, 0, fit.head, t, fit, source.config.n_decoder_layers - 1)
    return StepView(_step(6, source), question, (characters, read), (head,))


def _training(source: LessonSource) -> StepView:
    index = source.snapshots()
    if not index:
        return StepView(_step(7, source), None, ())
    outputs = [(s["step"], source.snapshot_output(s["step"])) for s in index]
    alignment = [s["alignment"] for s in index]
    pattern = words(source.task).pattern
    on_pattern = f"held-out steps on {pattern}"
    answer = target(source.text, source.task, source.vocab.letters)
    shares = Table({"training step": [s for s, _ in outputs], on_pattern: alignment}, percent=(on_pattern,),
                   caption="Each snapshot's share of held-out output steps whose best last-layer cross head puts "
                           f"its largest weight on {pattern} (the Training page's figure).")
    right = "the reversal?" if source.task == "reverse" else "right?"
    written = Table({"training step": [s for s, _ in outputs], "it writes": [visible(o) or "(nothing)" for _, o in outputs],
                     right: [o == answer for _, o in outputs], on_pattern: alignment},
                    percent=(on_pattern,))
    question = q.snapshot_question(source.text, outputs, {s["step"]: s["alignment"] for s in index}, source.task,
                                   answer)
    return StepView(_step(7, source), question, (shares,), (written,))


def forced_token(answer: str, letters: str = "abcdefghijklmnopqrstuvwxyz") -> str:
    """Step 8's wrong first character: 'z' (or 'q') where the model's alphabet has it, else one from the end of
    its alphabet; never the answer's own first character."""
    choices = [c for c in FORCED if c in letters] or list(reversed(letters))[:2]
    return next((c for c in choices if not answer.startswith(c)), choices[-1])


def _forcing(source: LessonSource, ask: bool) -> StepView:
    run, text = source.run(), source.text
    token = forced_token(expected(run), source.vocab.letters)
    forced = source.run(forced=((0, source.vocab.encode(token, 1)[0]),))
    outcomes = source.forced_table(token, ask)
    question = q.forcing_question(text, forced, token, outcomes)
    before: list[Display] = [Written("What the model writes on its own", run.output)]
    if outcomes is not None:
        labels = forced_options(token, source.task)
        before.append(Table({"held-out words": [outcomes.counts[o] for o in FORCED_OPTIONS],   # in view on a phone
                             f"after '{token}' forced first": list(labels.values())},
                            caption=f"{outcomes.words} of the {source.sample_size} held-out words, each decoded with "
                                    f"'{token}' forced as its first character (words whose "
                                    f"{answer_noun(source.task)} starts with '{token}' left out)."))
    after = Side(Written("On its own", run.output), Written(f"With '{token}' forced first", forced.output))
    return StepView(_step(8, source), question, tuple(before), (after,))


def _offsets_columns(fits: list[OffsetFit], task: str) -> dict[str, list]:
    return {"head": [q.head_name(f.id) for f in fits],
            "largest weight most often on": [offset_label(f.kind, task, f.best_offset) for f in fits],
            "share of steps": [f.best_share for f in fits],
            "mean largest weight": [round(f.mean_top_weight, 2) for f in fits]}


def _ablation(source: LessonSource, ask: bool) -> StepView:
    offsets = source.cross_offsets(ask)      # the evidence first: an own model asks for it first
    if offsets is None:
        return StepView(_step(9, source), None, ())
    fits = [f for f in offsets if f.kind == "cross"]
    where = Table(_offsets_columns(fits, source.task), percent=("share of steps",),
                  caption=f"On {source.sample_size} held-out words with "
                          + ("the correct reversal" if source.task == "reverse" else "the right answer")
                          + " fed in: where each cross head's largest weight lands most often, as an offset of "
                          + ("the mirror n − 1 − i (n − i is one to its right: the source position of the character "
                             "the step has just read)" if source.task == "reverse" else
                             "the key the task copies from at step i (offset −1 is the key of step i − 1: where the "
                             "character the step has just read came from)")
                          + ", and the share of steps it lands there.")
    table = source.ablation_table(ask)
    if table is None:
        return StepView(_step(9, source), None, (where,))
    base, effects = table
    drop = {e.head: e.drop for e in effects}
    order = sorted(range(len(fits)), key=lambda i: -drop[fits[i].id])      # the costliest first
    columns = {name: [values[i] for i in order]
               for name, values in {**_offsets_columns(fits, source.task),
                                    "exact match lost": [drop[f.id] for f in fits]}.items()}
    worst = effects[0]
    lost = Table(columns, percent=("share of steps", "exact match lost"),
                 caption=f"With every head working: {base:.1%} on the same {source.sample_size} held-out words. Of "
                         f"all {len(effects)} heads, the costliest is {q.head_name(worst.head)} ({worst.drop:.1%} "
                         "lost).")
    return StepView(_step(9, source), q.ablation_question(effects, source.sample_size, offsets, source.task), (where,), (lost,))


def encoder_heads(config: ModelConfig) -> tuple[tuple[str, int, int], ...]:
    """(kind, layer, head) of every encoder self-attention head, as runs name the heads they switch off."""
    return tuple((h.kind, h.layer, h.head) for h in every_head(config.layers_per_kind, config.n_heads)
                 if h.kind == "encoder_self")


def _encoder_off(source: LessonSource) -> StepView:
    run, off = source.run(), source.run(ablated=encoder_heads(source.config))
    return StepView(_step(10, source), q.encoder_off_question(source.text, off), (),
                    (Side(Metric("Every head working", visible(run.output)),
                          Metric("Every encoder head off", visible(off.output) or "(nothing)")),))


def telling_step(run: Run, attention: np.ndarray, occluded: np.ndarray) -> int | None:
    """Step 11's output step: the first character written where the position attention weighs most is not among
    occlusion's largest (within VARIES), else the first where occlusion varies at all (None: no swap moves any
    step)."""
    moving = [t for t in range(len(run.output)) if varies(occluded[t])]
    parted = [t for t in moving if occluded[t, attention[t].argmax()] < occluded[t].max() - VARIES]
    return (parted or moving or [None])[0]


def _which_character(source: LessonSource) -> StepView:
    run, lenses = source.run(), source.lenses()
    attention = lenses.attention[-1].mean(0)                                   # (T, S) the last layer, averaged
    t = telling_step(run, attention, lenses.occlusion)
    if t is None:
        return StepView(_step(11, source), None, ())
    sources = [f"{i}: {visible(c)}" for i, c in enumerate(run.source)]
    looked = f"attention (layer {len(lenses.attention) - 1}, heads averaged)"
    where = Chart("lens_rows_spec", {"names": [looked], "values": attention[t][None], "sources": sources,
                                "title": f"Where the last layer looks at step {t}"}, "lesson_attention_row")
    both = Chart("lens_rows_spec", {"names": [looked, "occlusion"], "values": np.stack([attention[t], lenses.occlusion[t]]),
                               "sources": sources, "title": f"Step {t}: attention and occlusion (each row on its "
                                                            "own colour scale)"}, "lesson_occlusion_row")
    found = agreement(attention, lenses.occlusion)
    agree = (round((found.same_top or 0) * found.steps), found.steps)
    question = q.which_character_question(run, attention[t], lenses.occlusion[t], t, QUICK_COUNT, agree)
    order = np.argsort(attention[t])[::-1][:2]                                 # the two largest weights
    largest = Note(f"The largest weights at step {t}: " + ", then ".join(
        f"{attention[t][i]:.2f} on position {i} ('{visible(run.source[i])}')" for i in order) + ".")
    return StepView(_step(11, source), question, (where, largest), (both,))


def _one_head_tested(source: LessonSource, ask: bool) -> StepView:
    """Step 12: the costliest cross head's necessity (step 9's number), its sufficiency (patterns in its place)
    and what the last layer does without it."""
    offsets, table = source.cross_offsets(ask), source.ablation_table(ask)
    if offsets is None or table is None:
        return StepView(_step(12, source), None, ())
    _, effects = table
    cross = {f.id: f for f in offsets if f.kind == "cross"}
    worst = max((e for e in effects if e.head in cross), key=lambda e: e.drop)
    head, fit = worst.head, cross[worst.head]
    patterns = q.sufficiency_patterns(source.task)
    scores = {p: source.patch_score(p, head.layer, head.head, ask) for p in patterns}
    own = source.patch_score(None, 0, None, ask)
    if own is None or any(v is None for v in scores.values()):
        return StepView(_step(12, source), None, ())
    last = source.config.n_decoder_layers - 1
    composition = None
    if head.layer < last:
        without = source.cross_offsets_without(head, ask)
        if without is None:
            return StepView(_step(12, source), None, ())
        on = np.mean([f.shares.get(0, 0.0) for f in offsets if f.kind == "cross" and f.layer == last])
        composition = (float(on), float(np.mean([f.shares.get(0, 0.0) for f in without])))
    label = offset_label("cross", source.task, fit.best_offset)
    before = (Side(Metric(f"Exact match lost with {q.head_name(head)} off (step 9)", f"{worst.drop:.1%}"),
                   Metric(f"Steps with its largest weight on {label}", f"{fit.best_share:.0%}")),
              Note(f"On {source.sample_size} held-out words: with every head working, the model gets "
                   f"{own.within:.1%} exactly right."))
    names = [q.pattern_words(p, source.task) for p in patterns]
    kept = Table({f"in place of {q.head_name(head)}": [*names, "its own weights", "switched off"],
                  "exact match": [*(scores[p].within for p in patterns), own.within,
                                  own.within - worst.drop]},
                 percent=("exact match",),
                 caption=f"Greedy decoding of the {source.sample_size} held-out words, the pattern in place at every "
                         "step (Build a head).")
    own_pattern = ({read_offset(source.task): q.read_pattern(source.task), 0: "task"}.get(fit.best_offset)
                   if fit.explained else None)   # offsets of the task's key
    question = q.sufficiency_question(head, {p: v.within for p, v in scores.items()}, own.within, worst.drop,
                                      source.sample_size, composition, own_pattern, source.task)
    return StepView(_step(12, source), question, before, (kept,))


def _twin(run: Run, step: int, read_head: int, last_layer: int) -> q.TwinReading:
    n = len(run.text)
    k = n - step
    last = np.asarray(run.trace["cross", last_layer][:, step], dtype=float)   # (H, S)
    own = np.asarray(run.trace["cross", 0][read_head, step], dtype=float)                            # (S,)
    mean = last.mean(0)
    return q.TwinReading(run.text, float(own[k]), float(own[k + 1]), float(mean[k - 1]), float(mean[k]),
                         int((last.argmax(-1) == k).sum()), last.shape[0], run.decoder_out[step])


def _twins_table(twins: tuple[q.TwinReading, ...]) -> Table:
    return Table({"read head on n − i": [round(t.read_head_on_read, 2) for t in twins],
                  "read head beside it": [round(t.read_head_beside, 2) for t in twins],
                  "last layer on n − 1 − i": [round(t.on_task, 2) for t in twins],
                  "last layer on n − i": [round(t.on_read, 2) for t in twins],
                  "heads' largest on n − i": [f"{t.heads_on_read} of {t.heads}" for t in twins],
                  "writes": [visible(t.writes) for t in twins]},
                 index=tuple(visible(t.text) for t in twins))


def _valid_pair(source: LessonSource, wanted: int) -> RepeatPair | None:
    """The repeat pair at the step nearest `wanted` whose two texts the model can read (a space cannot stand
    twice, nor at an end), or None where no step has one."""
    for step in sorted(range(2, len(source.text)), key=lambda s: (abs(s - wanted), s)):
        try:
            pair = repeat_pair(source.text, step, source.vocab.characters)
            for text in (pair.repeated, pair.single):
                source.vocab.check(text, source.config.max_len)
        except ValueError:   # the vocabulary's InputError is one
            continue
        return pair
    return None


def _exception(source: LessonSource, ask: bool) -> StepView:
    """Step 13: the learner's text and its twin with (or without) a repeat beside n − i, at step 6's step (or
    the nearest whose twin the model can read); the last layer's split between n − 1 − i and n − i, and the
    held-out test of what the weight on n − i counts."""
    if source.task != "reverse":   # its two keys, n − 1 − i and n − i, are the reverser's
        return StepView(_step(13, source), None, ())
    run = source.run()
    t = _cross_step(source.text, run)
    split = source.split_table(ask)
    pair = _valid_pair(source, t)
    if pair is None or split is None:
        return StepView(_step(13, source), None, ())
    t = pair.step
    head = reading_head(run).head
    repeated, single = (_twin(source.other_run(text), t, head, source.config.n_decoder_layers - 1)
                        for text in (pair.repeated, pair.single))
    k = pair.read_key
    before = (Note(f"Output step {t} of two texts that differ only beside n − i = {k}: '{pair.repeated}', where "
                   f"'{pair.repeated[k]}' stands at {k} and {k + 1}, and '{pair.single}', where it stands at {k} "
                   f"only. The read head is cross L0 H{head} (step 6); the last layer's {repeated.heads} heads "
                   "are averaged."),
              _twins_table((repeated, single)))
    kept = Table({"last layer's weights": ["its own", "half on n − 1 − i, half on n − i",
                                           "half on n − 1 − i, half on n − 2 − i"],
                  "exact match": [split.own, split.half_read, split.half_other]},
                 percent=("exact match",),
                 caption=f"Greedy decoding of the {split.words} held-out words, every last-layer cross head's "
                         "weights set by hand at every step (as Build a head does).")
    question = q.exception_question(t, repeated, single, split, Head("cross", 0, head))
    return StepView(_step(13, source), question, before, (kept,))


BUILDERS: dict[int, Callable[[LessonSource, bool], StepView]] = {
    1: lambda s, ask: _embeddings(s), 2: lambda s, ask: _positions(s), 3: lambda s, ask: _one_head(s),
    4: lambda s, ask: _masks(s), 5: lambda s, ask: _decoder(s), 6: lambda s, ask: _cross_attention(s),
    7: lambda s, ask: _training(s), 8: _forcing, 9: _ablation, 10: lambda s, ask: _encoder_off(s),
    11: lambda s, ask: _which_character(s), 12: _one_head_tested, 13: _exception,
}
assert sorted(BUILDERS) == [s.number for s in STEPS]


def step_view(number: int, source: LessonSource, ask: bool = True) -> StepView:
    """Step `number`'s record on the source's text. With ask=False a table an own model has not computed yet is
    not asked for: the step then has no question (the teacher's sheet leaves it out)."""
    if number not in BUILDERS:
        raise ValueError(f"no step {number}: the lesson has steps 1 to {len(STEPS)}")
    return BUILDERS[number](source, ask)
