"""Two parallel quizzes, "before" and "after" the lesson, each built and graded by the model.

One item per concept of the lesson. Each is built on fresh strings (held out from training, never the lab's
sample, never the learner's own text) from a seed, and its right answer is read from a run of the model on that
string, never written in: another model gives another key. The two forms draw from halves of the string space
split by a hash, so they never share a string.

Each item is built so that nothing in its wording gives the answer away: the right option sits at a rank drawn
uniformly (numbers and prefixes in a window around the answer, positions and heads in order around it), or in an
order drawn at random, and the yes/no and three-way items draw which answer is right before they search for a
string the model answers that way. tests/unit/test_quiz.py answers every item from its text alone, with a dozen
surface rules, and holds each to chance.
"""

from __future__ import annotations

import math
import random
import zlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from dataclasses import dataclass

import numpy as np

from analysis.labels import EOS_LABEL, KIND_SHORT, SOS_LABEL, weight_text
from analysis.lab import ablation_ranking, first_difference, lab_limit
from analysis.run import TEACHER, Decoding, Run, make_run
from analysis.table_store import lookup
from analysis.tasks import words
from transformer.data import LETTERS, held_out_strings, is_held_out, target
from transformer.intervention import Head, Intervention
from transformer.model import Transformer
from transformer.vocab import Vocab

from .questions import Question

FORMS = ("before", "after")
FORM_SALT = b"quiz-form:"
WORD_LENGTHS = (5, 8)         # the short strings most items are built on: a learner can count them on a phone
WINDOW = 4                    # options in a window around the answer
CLOSE = 0.05                  # the scaling item's "about the same": within this of the weight now
TRIES = 400                   # strings an item may try before it gives up (it never has, on the bundled models)


class QuizError(Exception):
    """A quiz that cannot be built on this model (an item found no string it could ask about)."""


@dataclass(frozen=True)
class QuizItem:
    kind: str            # one of ITEM_KINDS
    concept: str         # what it asks about, as the results name it
    page: str            # the id of the page that shows it (explorer.pages)
    text: str            # the fresh string it is built on
    question: Question
    setting: dict        # what it changed or looked at (layer, head, step, …): the tests recompute the answer


@dataclass(frozen=True)
class Quiz:
    form: str
    seed: int
    task: str
    items: tuple[QuizItem, ...]

    def marks(self, answers: Sequence[str | None]) -> tuple[bool, ...]:
        """Right or wrong per item; an unanswered item is wrong."""
        if len(answers) != len(self.items):
            raise ValueError(f"{len(answers)} answers for {len(self.items)} items")
        return tuple(item.question.grade(a) for item, a in zip(self.items, answers))

    @property
    def chance(self) -> float:
        """The share right expected from guessing every item."""
        return sum(1 / len(item.question.options) for item in self.items) / len(self.items)

    def score(self, answers: Sequence[str | None]) -> float:
        """The share of items right, 0 to 1."""
        return sum(self.marks(answers)) / len(self.items)


def form_of(text: str) -> str:
    """Which form may ask about a string: a hash splits the strings in two, so the forms never share one."""
    return FORMS[zlib.crc32(FORM_SALT + text.encode()) % 2]


class Strings:
    """Fresh strings for one item of one form: held out from training, of the form's half, not avoided."""

    def __init__(self, rng: random.Random, form: str, avoid: frozenset[str]) -> None:
        self.rng, self.form, self.avoid = rng, form, avoid
        self.last = ""   # the string drawn last: the one an item that was built stands on

    def fits(self, text: str) -> bool:
        return is_held_out(text) and form_of(text) == self.form and text not in self.avoid

    def word(self, distinct: bool = True, lengths: tuple[int, int] = WORD_LENGTHS) -> str:
        """Letters only; distinct letters, so that a position is named by its letter too."""
        while True:
            n = self.rng.randint(*lengths)
            text = ("".join(self.rng.sample(LETTERS, n)) if distinct
                    else "".join(self.rng.choice(LETTERS) for _ in range(n)))
            if self.fits(text):
                self.last = text
                return text


@dataclass(frozen=True)
class QuizModel:
    """The model the quiz reads, and its task."""
    model: Transformer
    vocab: Vocab
    task: str
    head_costs: Mapping[Head, float]   # exact match lost with each head alone off, on the lab's 200 words

    def run(self, text: str, how: Decoding = Decoding(), edit: Intervention = Intervention(),
            max_len: int | None = None) -> Run:
        return make_run(self.model, self.vocab, text, how, edit, max_len, self.task)

    @property
    def n_layers(self) -> dict:
        c = self.model.config
        return {"encoder_self": c.n_encoder_layers, "decoder_self": c.n_decoder_layers, "cross": c.n_decoder_layers}


def _noun(task: str) -> str:
    """What the task writes, as the pages name it, without its article: 'reversal', 'copy', 'sorted text'."""
    return words(task).output.removeprefix("the ")


def _tokens(labels: Sequence[str]) -> str:
    return " ".join(labels)


def _window(answer: int, low: int, high: int, rank: int) -> list[int] | None:
    """WINDOW consecutive integers within [low, high] with `answer` at place `rank`; None if they do not fit."""
    start = answer - rank
    return list(range(start, start + WINDOW)) if low <= start and start + WINDOW - 1 <= high else None


Built = tuple[Question, dict]


def _search(build: Callable[[], Built | None], what: str) -> Built:
    for _ in range(TRIES):
        found = build()
        if found is not None:
            return found
    raise QuizError(f"no string found for the {what} item on this model")


def _shuffled(rng: random.Random, options: list[str]) -> tuple[str, ...]:
    shown = list(options)
    rng.shuffle(shown)
    return tuple(shown)


# --- The items, in the lesson's order ------------------------------------------------------------------

def positions_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """Trade the positional codes of two source positions: what does the model write? (Not for sorting, whose
    output does not depend on the order.)"""
    def build() -> Built | None:
        text = strings.word()
        i, j, k = rng.sample(range(len(text)), 3)     # k: a third position, for the wrong options

        def traded(a: int, b: int) -> str:
            chars = list(text)
            chars[a], chars[b] = chars[b], chars[a]
            return target("".join(chars), m.task)

        written = m.run(text, edit=Intervention(positions="swap", swapped=(i, j))).output
        candidates = list(dict.fromkeys([target(text, m.task), traded(i, j), traded(i, k), traded(j, k)]))
        if written not in candidates:
            candidates[-1] = written
        if len(set(candidates)) < WINDOW:
            return None
        options = _shuffled(rng, candidates)
        word = _noun(m.task)
        return Question(
            "choice",
            f"The model's task is the {word} of a text. Take '{text}' and trade the positional codes of source "
            f"positions {i} ('{text[i]}') and {j} ('{text[j]}'): each of the two characters enters the encoder with "
            "the other's code, and nothing else changes. What will the model write?",
            options, frozenset({written}),
            "The encoder knows where a character stands only from the code added to its embedding.",
            f"It writes '{written}'; without the trade it writes '{m.run(text).output}'."), {"swapped": (i, j)}
    if m.task == "sort":
        raise QuizError("sorting does not depend on the order, so trading two positions changes nothing to ask")
    return _search(build, "positional code")


SCALE_OPTIONS = ("larger, by more than {c}", "about the same (within {c})", "smaller, by more than {c}")


def scaling_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """Scores times √d_k (no division) or divided by √d_k once more: the row's largest weight grows, stays or
    shrinks? Which of the three is right is drawn first, then a row the model answers that way is searched."""
    options = tuple(o.format(c=CLOSE) for o in SCALE_OPTIONS)
    wanted = rng.randrange(3)
    d_k = m.model.config.d_k
    root = math.sqrt(d_k)

    def build() -> Built | None:
        text = strings.word()
        run = m.run(text)
        sharper = wanted == 0 or (wanted == 1 and rng.random() < 0.5)
        factor = root if sharper else 1 / root
        rows = [(layer, head, q) for layer in range(m.n_layers["encoder_self"])
                for head in range(m.model.config.n_heads) for q in range(len(text))]
        rng.shuffle(rows)
        for layer, head, q in rows:
            scores = run.trace.attention("encoder_self", layer, "scores")[head, q].astype(float)   # (S,)
            now = float(run.trace["encoder_self", layer][head, q].max())
            changed = np.exp(scores * factor - (scores * factor).max())
            then = float((changed / changed.sum()).max())
            found = 0 if then > now + CLOSE else 2 if then < now - CLOSE else 1
            if found != wanted:
                continue
            how = "were not divided at all" if sharper else f"were divided by d_k = {d_k} instead of by {root:g}"
            return Question(
                "choice",
                f"Encoder layer {layer}, head {head}, row {q} ('{text[q]}') of '{text}': the scores are divided by "
                f"√d_k = {root:g} before the softmax, and the row's largest weight is {now:.2f} (spread evenly, "
                f"each of its {len(text)} keys would get {1 / len(text):.2f}). If the scores {how}, its largest "
                "weight would be:",
                options, frozenset({options[found]}),
                "Multiplying every score by a number multiplies every gap between two scores by it too. How does "
                "the softmax treat wider gaps, and how far can a weight move from where it is?",
                f"Its largest weight would be {then:.3f}, against {now:.3f} now."), {
                "layer": layer, "head": head, "row": q, "factor": factor}
        return None
    return _search(build, "√d_k")


def mask_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """How many decoder positions does position t read (weight above 0), in one head of decoder self-attention?"""
    def build() -> Built | None:
        text = strings.word()
        run = m.run(text)
        n_positions = len(run.decoder_in)
        t = rng.randrange(n_positions)
        layer, head = rng.randrange(m.n_layers["decoder_self"]), rng.randrange(m.model.config.n_heads)
        row = run.trace["decoder_self", layer][head, t]                          # (T,)
        count = int((row > 0).sum())
        shown = _window(count, 1, n_positions, rng.randrange(WINDOW))
        if shown is None:
            return None
        options = tuple(str(c) for c in shown)
        return Question(
            "choice",
            f"The decoder reads ⟨s⟩ and the model's output for '{text}' in one pass: {_tokens(run.decoder_in)}. "
            f"In decoder self-attention, layer {layer}, head {head}, to how many of these positions does the "
            f"position that holds '{run.decoder_in[t]}' give a weight above 0?",
            options, frozenset({str(count)}),
            "Which positions does the causal mask hide from a decoder position, and does a position read itself?",
            f"The weights of the position holding '{run.decoder_in[t]}' (position {t}, counting ⟨s⟩ as 0): "
            + ", ".join(weight_text(float(w)) for w in row) + f"; {count} above 0."), {
            "layer": layer, "head": head, "position": t}
    return _search(build, "causal mask")


def decoder_input_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """What does the decoder read at step t while it writes its output?"""
    def build() -> Built | None:
        text = strings.word()
        run = m.run(text)
        labels = [*run.decoder_in, run.decoder_out[-1]]         # ⟨s⟩, every token written, the last one too
        t = rng.randrange(len(run.decoder_in))
        shown = _window(t + 1, 1, len(labels), rng.randrange(WINDOW))
        if shown is None:
            return None
        options = tuple(_tokens(labels[:n]) for n in shown)
        return Question(
            "token",
            f"The model writes its output for '{text}' one token at a time, and writes '{run.output}' then "
            f"{EOS_LABEL}. Steps count from 0. What does the decoder read at step {t}?",
            options, frozenset({_tokens(run.decoder_in[:t + 1])}),
            "The decoder reads the start symbol and what it has written before this step; not the token it is "
            "about to write.",
            f"At step {t} it reads {_tokens(run.decoder_in[:t + 1])} and writes '{run.decoder_out[t]}'."), {"step": t}
    return _search(build, "decoder input")


def cross_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """Where does the last layer's cross-attention (heads averaged) look most at step i?"""
    last = m.n_layers["cross"] - 1

    def build() -> Built | None:
        text = strings.word()
        run = m.run(text)
        n = len(text)
        step = rng.randrange(n)
        row = run.trace["cross", last][:, step].mean(0)                           # (S,) heads averaged
        best = float(row.max())
        top = [p for p in range(n) if row[p] >= best - 1e-6]
        if len(top) != 1:
            return None
        shown = _window(top[0], 0, n - 1, rng.randrange(WINDOW))
        if shown is None:
            return None
        options = tuple(f"position {p} ('{text[p]}')" for p in shown)
        written = f"has written '{run.output[:step]}' so far" if step else "has written nothing yet"
        return Question(
            "position",
            f"The model's task is the {_noun(m.task)} of a text. For '{text}' (positions 0 to {n - 1}) it "
            f"{written} and is at step {step} (steps count from 0), about to write the next character. In the "
            f"last decoder layer, with its {m.model.config.n_heads} heads averaged, "
            "which source position gets the most cross-attention weight?",
            options, frozenset({options[shown.index(top[0])]}),
            "Cross-attention is where a step reads the source. Which source character does this step need, and "
            "where does it stand?",
            f"The weights at step {step}, heads averaged: " + ", ".join(f"{p}: {w:.2f}" for p, w in enumerate(row))
            + f". It then writes '{run.decoder_out[step]}'."), {"layer": last, "step": step, "shown": tuple(shown)}
    return _search(build, "cross-attention")


def forcing_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """Generating, the decoder reads its own output; trained with teacher forcing, it read the correct one."""
    def build() -> Built | None:
        text = strings.word()
        want = target(text, m.task)
        t = rng.randrange(2, len(want))
        token = rng.choice(want[1:t])     # a letter the correct prefix holds too, later: no option stands out by it
        forced = m.run(text, Decoding(forced=((0, m.vocab.encode(token, m.model.config.max_len)[0]),)))
        taught = m.run(text, TEACHER)
        if len(forced.decoder_in) <= t:   # forced off course, it stopped before step t
            return None
        right = _tokens(taught.decoder_in[:t + 1])
        candidates = [right, _tokens(forced.decoder_in[:t + 1]),
                      _tokens([SOS_LABEL, *want[:t + 1]]), _tokens(forced.decoder_in[:t])]
        if len(set(candidates)) < WINDOW:
            return None
        return Question(
            "token",
            f"Generating from '{text}', we force step 0 to write '{token}' instead of the model's own choice; its "
            f"output is then '{forced.output}'. The model was trained with teacher forcing. With teacher forcing "
            f"on this text, as in training, what would the decoder read at step {t} (steps count from 0)?",
            _shuffled(rng, candidates), frozenset({right}),
            "Teacher forcing: in training, what the decoder reads at each step is not its own output.",
            f"Teacher forcing feeds ⟨s⟩ and the correct {_noun(m.task)} so far: {right}. Generating with "
            f"'{token}' forced, step {t} read {_tokens(forced.decoder_in[:t + 1])}."), {"token": token, "step": t}
    return _search(build, "teacher forcing")


HEAD_OPTIONS = ("yes, it writes something else", "no, it writes the same")
COSTLY, CHEAP = 0.5, 0.05   # exact match lost on the lab's words: a head asked about is clearly one or the other


def head_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """Switch one head off: does the model write something else for this string? Only heads the lab's table
    puts clearly on one side are asked about (costing at least half its words, or at most 5 %), each where this
    string agrees with the table, so the lab's evidence answers it. Which side is drawn first, half each."""
    changes = rng.random() < 0.5
    heads = sorted(h for h, cost in m.head_costs.items() if (cost >= COSTLY if changes else cost <= CHEAP))
    if not heads:
        raise QuizError("no head of this model is clearly needed (or clearly not) on the lab's words")

    def build() -> Built | None:
        text = strings.word()
        normal = m.run(text).output
        for head in rng.sample(heads, len(heads)):     # in a random order, until one does what the table says
            written = m.run(text, edit=Intervention(ablated=frozenset({head}))).output
            if (written != normal) == changes:
                return Question(
                    "choice",
                    f"The model writes '{normal}' for '{text}'. Switch off {head_label(head)} (its output is set "
                    "to zero; every other head works as before). Will the model write something else?",
                    HEAD_OPTIONS, frozenset({HEAD_OPTIONS[not changes]}),
                    "Switching a head off shows whether the model needs it; the lab's table of what each head "
                    "costs is the evidence.",
                    f"With {head_label(head)} off it writes '{written}'. On the lab's {LAB_WORDS} held-out words, "
                    f"switching it off alone costs {m.head_costs[head]:.1%} of exact match."), {"head": head}
        return None
    return _search(build, "switched-off head")


LENGTH_OPTIONS = ("yes, exactly", "no")


def length_item(m: QuizModel, strings: Strings, rng: random.Random) -> Built:
    """Will the model do its task exactly on a random string of this length? Within the training lengths or past
    them is drawn first (half each), then a string the model answers that way."""
    trained = m.model.config.max_len
    exact = rng.random() < 0.5
    lengths = (trained - 18, trained) if exact else (trained + 4, min(trained + 16, lab_limit(m.model)))

    def build() -> Built | None:
        text = strings.word(distinct=False, lengths=lengths)
        run = m.run(text, max_len=lab_limit(m.model))
        if (run.output == run.target) != exact:
            return None
        first = first_difference(run.output, run.target)
        kept = target(text[:trained], m.task)     # the task done on the characters it was trained to reach
        wrong = (f"It writes {len(run.output)} characters, exactly the {_noun(m.task)} of the first "
                 f"{trained} and nothing of the other {len(text) - trained}." if run.output == kept else
                 f"Its first wrong character is at step {first} of {len(run.target)}.")
        return Question(
            "choice",
            f"The model was trained on texts of 1 to {trained} characters. Will it write the exact "
            f"{_noun(m.task)} of this random text of {len(text)} characters?\n\n{text}",
            LENGTH_OPTIONS, frozenset({LENGTH_OPTIONS[not exact]}),
            "Every position past the training length has a positional code the model never saw in training.",
            "It writes the exact " + _noun(m.task) + "." if exact else wrong), {"max_len": lab_limit(m.model)}
    return _search(build, "training length")


def head_label(head: Head) -> str:
    return f"{KIND_SHORT[head.kind]} L{head.layer} H{head.head}"


@dataclass(frozen=True)
class ItemKind:
    name: str
    concept: str
    page: str
    build: Callable[[QuizModel, Strings, random.Random], Built]
    tasks: tuple[str, ...] = ("reverse", "copy", "sort")


ITEM_KINDS: tuple[ItemKind, ...] = (
    ItemKind("positions", "what a positional code is for", "lab_positions", positions_item, ("reverse", "copy")),
    ItemKind("scaling", "what dividing by √d_k does to the weights", "inside_one_head", scaling_item),
    ItemKind("mask", "what the causal mask hides", "masks", mask_item),
    ItemKind("decoder_input", "what the decoder reads at step t", "decode", decoder_input_item),
    ItemKind("cross", "where a cross-attention row looks for this task", "attention", cross_item),
    ItemKind("forcing", "what teacher forcing feeds", "lab_forcing", forcing_item),
    ItemKind("head_off", "what switching a head off does", "lab_ablation", head_item, ("reverse", "sort")),
    ItemKind("length", "why the model fails beyond its training length", "lab_length", length_item),
)


LAB_WORDS = 200                                      # explorer.lab_runs.SAMPLE_SIZE
ABLATION_TABLE = "explorer.lab_runs._ablation_table"  # its name among a checkpoint's stored tables


def lab_sample(max_len: int) -> frozenset[str]:
    """The held-out words the lab and the lesson's tables show: a quiz never asks about one of them."""
    return frozenset(held_out_strings(LAB_WORDS, max_len))


def lab_head_costs(checkpoint_dir: Path | str, model: Transformer, vocab: Vocab, task: str) -> dict[Head, float]:
    """Exact match lost with each head alone switched off on the lab's words (Switch heads off shows it): read
    from the checkpoint's stored tables while fresh, else computed (a minute or so)."""
    found, table = lookup(str(checkpoint_dir), ABLATION_TABLE, ())
    if not found:
        table = ablation_ranking(model, vocab, held_out_strings(LAB_WORDS, model.config.max_len), task)
    return {effect.head: effect.drop for effect in table[1]}


def build_quiz(model: Transformer, vocab: Vocab, task: str, seed: int, form: str,
               head_costs: Mapping[Head, float], avoid: frozenset[str] = frozenset()) -> Quiz:
    """One form of the quiz: an item per kind that applies to the task, each on its own fresh strings.
    `head_costs`: lab_head_costs of this model."""
    if form not in FORMS:
        raise ValueError(f"a quiz form is one of {FORMS}, not {form!r}")
    m = QuizModel(model, vocab, task, head_costs)
    avoid = avoid | lab_sample(model.config.max_len)
    items = []
    for kind in ITEM_KINDS:
        if task not in kind.tasks:
            continue
        rng = random.Random(f"{seed}:{form}:{kind.name}")
        strings = Strings(random.Random(f"{seed}:{form}:{kind.name}:strings"), form, avoid)
        question, setting = kind.build(m, strings, rng)
        items.append(QuizItem(kind.name, kind.concept, kind.page, strings.last, question, setting))
    return Quiz(form, seed, task, tuple(items))
