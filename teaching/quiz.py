"""Two parallel quizzes, "before" and "after" the lesson, each built and graded by the model.

Parallel means the two forms of a seed ask the same questions in the same places with the same kind of right
answer: what sets an item's difficulty and its key (the length, the step, the layer or head, the side of a
yes/no, the right option's place) is drawn from the seed alone; only the strings differ.

One item per concept of the lesson. Each is built on fresh strings (held out from training, never the lab's
sample, never the learner's own text) from a seed, and its right answer is read from a run of the model on that
string, never written in: another model gives another key. The two forms draw from halves of the string space
split by a hash, so they never share a string.

Each item is built so that nothing in its wording gives the answer away: the right option sits at a rank drawn
uniformly (numbers and prefixes in a window around the answer, positions and heads in order around it), or in an
order drawn at random, and the yes/no and three-way items draw which answer is right before they search for a
string the model answers that way. Each asks only what the lesson shows (the head item, the cross heads of its
step 9) and what the numbers on screen decide. tests/unit/test_quiz.py answers every item from its text alone, with a dozen
surface rules, and holds each to chance.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from dataclasses import dataclass

import numpy as np

from analysis.labels import EOS_LABEL, SOS_LABEL, weight_text
from analysis.lab import ablation_ranking, first_difference, lab_limit
from analysis.run import TEACHER, Decoding, Run, make_run
from analysis.table_store import lookup
from analysis.tasks import WORDS, words
from transformer.data import LETTERS, held_out_strings, is_held_out, random_string, source_positions, target
from transformer.intervention import Head, Intervention
from transformer.model import Transformer
from transformer.task_rules import parse_rule
from transformer.vocab import Vocab

from .questions import Question, head_name, order_free

FORMS = ("before", "after")
FORM_SALT = b"quiz-form:"
WORD_LENGTHS = (5, 8)         # the short strings most items are built on: a learner can count them on a phone
WINDOW = 4                    # options in a window around the answer
CLOSE = 0.05                  # the scaling item's "about the same": within this of the weight now
TRIES = 400                   # strings an item may try before it gives up (it never has, on the bundled models)


class QuizError(Exception):
    """A quiz that cannot be built on this model (an item found no string it could ask about)."""


class NotAskable(QuizError):
    """An item kind this model gives nothing clear to ask (no cross head clearly needed and one clearly not): the
    quiz leaves it out of both forms."""


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
    """Which form may ask about a string: a hash splits the strings in two, so the forms never share one. Not
    CRC-32, which the held-out split uses: it is linear, so among held-out strings of one length a CRC split puts
    every string in the same form (the before form had held only 6-letter words)."""
    return FORMS[hashlib.blake2b(FORM_SALT + text.encode(), digest_size=1).digest()[0] % 2]


class Strings:
    """Fresh strings for one item of one form, of the model's alphabet: held out from training, of the form's
    half, not avoided."""

    def __init__(self, rng: random.Random, form: str, avoid: frozenset[str], letters: str = LETTERS) -> None:
        self.rng, self.form, self.avoid, self.letters = rng, form, avoid, letters
        self.last = ""   # the string drawn last: the one an item that was built stands on

    def fits(self, text: str) -> bool:
        return is_held_out(text) and form_of(text) == self.form and text not in self.avoid

    def word(self, distinct: bool, n: int) -> str:
        """Letters only, n of them; distinct letters, so that a position is named by its letter too."""
        while True:
            text = ("".join(self.rng.sample(self.letters, n)) if distinct
                    else "".join(self.rng.choice(self.letters) for _ in range(n)))
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
    min_len: int = 1                   # the shortest text it was trained on

    @property
    def letters(self) -> str:
        return self.vocab.letters

    @property
    def word_lengths(self) -> tuple[int, int]:
        """WORD_LENGTHS within the lengths the model was trained on."""
        top = self.model.config.max_len
        low, high = (max(self.min_len, min(n, top)) for n in WORD_LENGTHS)
        if high < 3:
            raise QuizError(f"the model reads at most {top} characters: the quiz's items need 3 at least")
        return max(low, 3), high

    def target(self, text: str) -> str:
        return target(text, self.task, self.letters)

    def run(self, text: str, how: Decoding = Decoding(), edit: Intervention = Intervention(),
            max_len: int | None = None) -> Run:
        return make_run(self.model, self.vocab, text, how, edit, max_len, self.task)

    @property
    def n_layers(self) -> dict:
        c = self.model.config
        return {"encoder_self": c.n_encoder_layers, "decoder_self": c.n_decoder_layers, "cross": c.n_decoder_layers}


def _noun(task: str) -> str:
    """What the task writes, as the pages name it, without its article: 'reversal', 'copy', 'sorted text'; for any
    other rule, 'output'."""
    return words(task).output.removeprefix("the ") if task in WORDS else "output"


def _task_is(task: str) -> str:
    """The sentence that names the model's task in an item."""
    if task in WORDS:
        return f"The model's task is the {_noun(task)} of a text."
    return f"The model's task is {task}: to {words(task).verb}."




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
#
# Each kind is a plan and an ask. The plan, drawn from a random stream of the seed alone, makes every choice that
# sets the item's difficulty and its answer: the length of the string, the step, the layer and head, the side of
# the key, the right option's place. Both forms of a seed share it: only the strings differ. The ask builds the
# item on one string, or returns None when this string does not fit the plan, and the search tries another.

def _placed(rng: random.Random, answers: Sequence[int], low: int, high: int) -> tuple[int, int]:
    """An answer and its place in a WINDOW of consecutive integers within [low, high]: the place drawn first,
    uniformly, so that no place is right more often than another, then an answer among those it fits."""
    rank = rng.randrange(WINDOW)
    return rng.choice([a for a in answers if _window(a, low, high, rank) is not None]), rank


def _ordered(order: Sequence[int], candidates: list[str]) -> tuple[str, ...]:
    return tuple(candidates[i] for i in order)


def _source_of(m: QuizModel, text: str, step: int) -> int:
    """The source position the task takes the character it writes at `step` from (the letters are distinct)."""
    return source_positions(text, m.task, m.letters)[step]


def positions_plan(m: QuizModel, rng: random.Random) -> dict:
    if order_free(m.task):
        raise QuizError("sorting does not depend on the order, so trading two positions changes nothing to ask")
    n = rng.randint(*m.word_lengths)
    return {"n": n, "ijk": tuple(rng.sample(range(n), 3)), "order": tuple(rng.sample(range(WINDOW), WINDOW))}


def positions_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """Trade the positional codes of two source positions: what does the model write? (Not for sorting, whose
    output does not depend on the order.)"""
    i, j, k = plan["ijk"]     # k: a third position, for the wrong options

    def traded(a: int, b: int) -> str:
        chars = list(text)
        chars[a], chars[b] = chars[b], chars[a]
        return m.target("".join(chars))

    written = m.run(text, edit=Intervention(positions="swap", swapped=(i, j))).output
    candidates = list(dict.fromkeys([m.target(text), traded(i, j), traded(i, k), traded(j, k)]))
    if written not in candidates:
        candidates[-1] = written
    if len(set(candidates)) < WINDOW:
        return None
    return Question(
        "choice",
        f"{_task_is(m.task)} Take '{text}' and trade the positional codes of source "
        f"positions {i} ('{text[i]}') and {j} ('{text[j]}'): each of the two characters enters the encoder with "
        "the other's code, and nothing else changes. What will the model write?",
        _ordered(plan["order"], candidates), frozenset({written}),
        "The encoder knows where a character stands only from the code added to its embedding.",
        f"It writes '{written}'; without the trade it writes '{m.run(text).output}'."), {"swapped": (i, j)}


SCALE_OPTIONS = ("larger, by more than {c}", "about the same (within {c})", "smaller, by more than {c}")
FAR = 0.15   # a row moves ("larger", "smaller") only where its largest weight is this far from where it can go


def scaling_plan(m: QuizModel, rng: random.Random) -> dict:
    wanted = rng.randrange(3)
    n = rng.randint(*m.word_lengths)
    # One head for both forms (the second review: seed 5's forms asked encoder L1 H0 and L1 H1): the head sets
    # how sharp the row is, so how hard the item is; only the row within each form's string may differ. It is
    # drawn among the heads whose rows give this answer on random strings often enough to be found.
    layer, head = rng.choice(scaling_heads(m, wanted))
    # "about the same" is asked of a flatter row only: no encoder row of these words holds 0.95 or more, so none
    # is near where a sharper softmax takes it
    return {"wanted": wanted, "sharper": wanted == 0, "n": n, "layer": layer, "head": head,
            "rows": tuple(rng.sample(range(n), n))}


_SCALING_HEADS: dict[tuple[int, str, int], list[tuple[int, int]]] = {}
SCALING_PROBE, SCALING_FOUND = 40, 2   # random strings a head is tried on, and how many must give the answer:
                                       # one in 20 strings, and 400 tries (TRIES) miss with a chance of 1e-9


def scaling_heads(m: QuizModel, wanted: int) -> list[tuple[int, int]]:
    """The encoder heads (layer, head) on which the scaling item can be built with `wanted` as its answer."""
    key = (id(m.model), m.task, wanted)
    if key not in _SCALING_HEADS:
        rng = random.Random(f"scaling heads {wanted}")
        texts = [random_string(rng, rng.randint(*m.word_lengths), letters=m.letters) for _ in range(SCALING_PROBE)]
        runs = [m.run(t) for t in texts]
        heads = [(layer, h) for layer in range(m.n_layers["encoder_self"]) for h in range(m.model.config.n_heads)]
        _SCALING_HEADS[key] = [(layer, h) for layer, h in heads
                               if sum(any(_scaling_row(m, run, t, layer, h, q, wanted) is not None
                                          for q in range(len(t))) for t, run in zip(texts, runs))
                               >= SCALING_FOUND]
    if not _SCALING_HEADS[key]:
        raise NotAskable(f"no encoder head gives the scaling item's answer {wanted}")
    return _SCALING_HEADS[key]


def scaling_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """Scores times √d_k (no division) or divided by √d_k once more: the row's largest weight grows, stays or
    shrinks? Only rows the two numbers shown decide: a largest weight within CLOSE of where the change can take
    it (1 when sharper, 1/n when flatter) can only stay about the same; the rows asked about that are at least
    FAR from it move by more than CLOSE (rows between, or far ones that hardly move, are not asked)."""
    run = m.run(text)
    for q in plan["rows"]:
        built = _scaling_row(m, run, text, plan["layer"], plan["head"], q, plan["wanted"])
        if built is not None:
            return built
    return None


def _scaling_row(m: QuizModel, run, text: str, layer: int, head: int, q: int, wanted: int) -> Built | None:
    """The scaling item on row q of encoder `layer`, `head`, if that row gives `wanted` and the screen decides it."""
    options = tuple(o.format(c=CLOSE) for o in SCALE_OPTIONS)
    sharper = wanted == 0
    d_k = m.model.config.d_k
    root = math.sqrt(d_k)
    factor = root if sharper else 1 / root
    n = len(text)
    scores = run.trace.attention("encoder_self", layer, "scores")[head, q].astype(float)   # (S,)
    now = float(run.trace["encoder_self", layer][head, q].max())
    room = (1.0 if sharper else 1 / n) - now
    if CLOSE < abs(room) < FAR:
        return None                                # neither number on screen decides this row
    changed = np.exp(scores * factor - (scores * factor).max())
    then = float((changed / changed.sum()).max())
    found = 0 if then > now + CLOSE else 2 if then < now - CLOSE else 1
    if found != wanted or (found == 1) != (abs(room) <= CLOSE):   # a far row that hardly moves: not asked
        return None
    how = "were not divided at all" if sharper else f"were divided by d_k = {d_k} instead of by {root:g}"
    return Question(
        "choice",
        f"Encoder layer {layer}, head {head}, row {q} ('{text[q]}') of '{text}': the scores are divided by "
        f"√d_k = {root:g} before the softmax, and the row's largest weight is {now:.2f} (all on one key it "
        f"would be 1; spread evenly, each of its {n} keys would get {1 / n:.2f}). If the scores {how}, its "
        "largest weight would be:",
        options, frozenset({options[found]}),
        "Multiplying every score by a number multiplies every gap between two scores by it too. How does "
        "the softmax treat wider gaps, and how far can a weight move from where it is?",
        f"Its largest weight would be {then:.3f}, against {now:.3f} now."), {
        "layer": layer, "head": head, "row": q, "factor": factor}


def mask_plan(m: QuizModel, rng: random.Random) -> dict:
    n = rng.randint(*m.word_lengths)
    count, rank = _placed(rng, range(1, n + 2), 1, n + 1)   # the decoder reads ⟨s⟩ and the n characters written
    return {"n": n, "t": count - 1, "layer": rng.randrange(m.n_layers["decoder_self"]),
            "head": rng.randrange(m.model.config.n_heads), "rank": rank}


def mask_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """How many decoder positions does position t read (weight above 0), in one head of decoder self-attention?"""
    run = m.run(text)
    t, layer, head = plan["t"], plan["layer"], plan["head"]
    if len(run.decoder_in) <= t:    # the model stopped before the position the plan asks about
        return None
    row = run.trace["decoder_self", layer][head, t]                          # (T,)
    count = int((row > 0).sum())
    shown = _window(count, 1, len(run.decoder_in), plan["rank"])
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


def decoder_input_plan(m: QuizModel, rng: random.Random) -> dict:
    n = rng.randint(*m.word_lengths)
    read, rank = _placed(rng, range(1, n + 2), 1, n + 2)    # tokens read at step t: t + 1
    return {"n": n, "t": read - 1, "rank": rank}


def decoder_input_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """What does the decoder read at step t while it writes its output?"""
    run = m.run(text)
    labels = [*run.decoder_in, run.decoder_out[-1]]         # ⟨s⟩, every token written, the last one too
    t = plan["t"]
    shown = _window(t + 1, 1, len(labels), plan["rank"]) if t < len(run.decoder_in) else None
    if shown is None:    # the model stopped early, or wrote another length than the plan counted on
        return None
    options = tuple(_tokens(labels[:k]) for k in shown)
    return Question(
        "token",
        f"The model writes its output for '{text}' one token at a time, and writes '{run.output}' then "
        f"{EOS_LABEL}. Steps count from 0. What does the decoder read at step {t}?",
        options, frozenset({_tokens(run.decoder_in[:t + 1])}),
        "The decoder reads the start symbol and what it has written before this step; not the token it is "
        "about to write.",
        f"At step {t} it reads {_tokens(run.decoder_in[:t + 1])} and writes '{run.decoder_out[t]}'."), {"step": t}


def cross_plan(m: QuizModel, rng: random.Random) -> dict:
    n = rng.randint(*m.word_lengths)
    if parse_rule(m.task).by_content:    # sorting: where the answer stands depends on the string's letters
        return {"n": n, "step": rng.randrange(n), "rank": rng.randrange(WINDOW)}
    if m.task not in ("reverse", "copy"):  # any other rule: its map depends on the length alone
        sources = source_positions(LETTERS[:n], m.task)                     # per output step
        rank = rng.randrange(WINDOW)
        fitting = [t for t, p in enumerate(sources) if _window(p, 0, n - 1, rank) is not None]
        if not fitting:
            raise NotAskable(f"texts of {n} characters leave no room for {WINDOW} positions to choose from")
        return {"n": n, "step": rng.choice(fitting), "rank": rank}
    source, rank = _placed(rng, range(n), 0, n - 1)
    return {"n": n, "step": n - 1 - source if m.task == "reverse" else source, "rank": rank}


def cross_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """Where does the last layer's cross-attention (heads averaged) look most at step i? Only where the top key
    is the source position the task reads at that step, the rule the hint teaches (once in 200 it is not)."""
    last = m.n_layers["cross"] - 1
    run = m.run(text)
    n, step = len(text), plan["step"]
    if len(run.decoder_out) <= step or step >= len(m.target(text)):
        return None
    row = run.trace["cross", last][:, step].mean(0)                           # (S,) heads averaged
    best = float(row.max())
    top = [p for p in range(n) if row[p] >= best - 1e-6]
    if top != [_source_of(m, text, step)]:
        return None
    shown = _window(top[0], 0, n - 1, plan["rank"])
    if shown is None:      # sorting: where the answer stands depends on the string
        return None
    options = tuple(f"position {p} ('{text[p]}')" for p in shown)
    written = f"has written '{run.output[:step]}' so far" if step else "has written nothing yet"
    return Question(
        "position",
        f"{_task_is(m.task)} For '{text}' (positions 0 to {n - 1}) it "
        f"{written} and is at step {step} (steps count from 0), about to write the next character. In the "
        f"last decoder layer, with its {m.model.config.n_heads} heads averaged, "
        "which source position gets the most cross-attention weight?",
        options, frozenset({options[shown.index(top[0])]}),
        "Cross-attention is where a step reads the source. Which source character does this step need, and "
        "where does it stand?",
        f"The weights at step {step}, heads averaged: " + ", ".join(f"{p}: {w:.2f}" for p, w in enumerate(row))
        + f". It then writes '{run.decoder_out[step]}'."), {"layer": last, "step": step, "shown": tuple(shown)}


def forcing_plan(m: QuizModel, rng: random.Random) -> dict:
    n = rng.randint(*m.word_lengths)
    t = rng.randrange(2, n)
    return {"n": n, "t": t, "forced": rng.randrange(1, t), "order": tuple(rng.sample(range(WINDOW), WINDOW))}


def forcing_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """Generating, the decoder reads its own output; trained with teacher forcing, it read the correct one."""
    want = m.target(text)
    t = plan["t"]
    token = want[plan["forced"]]     # a letter the correct prefix holds too, later: no option stands out by it
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
        _ordered(plan["order"], candidates), frozenset({right}),
        "Teacher forcing: in training, what the decoder reads at each step is not its own output.",
        f"Teacher forcing feeds ⟨s⟩ and the correct {_noun(m.task)} so far: {right}. Generating with "
        f"'{token}' forced, step {t} read {_tokens(forced.decoder_in[:t + 1])}."), {"token": token, "step": t}


HEAD_OPTIONS = ("yes, it writes something else", "no, it writes the same")
COSTLY, CHEAP = 0.9, 0.05   # exact match lost on the lab's words: a head asked about is clearly one or the other


def head_sides(m: QuizModel) -> dict[bool, list[Head]]:
    """The cross heads (the ones the lesson's step 9 shows) that the lab's table puts clearly on each side."""
    cross = {h: cost for h, cost in m.head_costs.items() if h.kind == "cross"}
    return {True: sorted(h for h, cost in cross.items() if cost >= COSTLY),
            False: sorted(h for h, cost in cross.items() if cost <= CHEAP)}


def head_plan(m: QuizModel, rng: random.Random) -> dict:
    sides = head_sides(m)
    if not (sides[True] and sides[False]):
        raise NotAskable("no cross head of this model is clearly needed, or none clearly not, on the lab's words")
    changes = rng.random() < 0.5
    return {"changes": changes, "head": rng.choice(sides[changes]), "n": rng.randint(*m.word_lengths)}


def head_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """Switch one cross head off: does the model write something else for this string? Only heads the lesson's
    step 9 shows clearly on one side (at least 90 % of the lab's words lost, or at most 5 %), each on a string
    that agrees with the table, so what the lesson shows answers it. Which side is drawn first, half each."""
    head, changes = plan["head"], plan["changes"]
    normal = m.run(text).output
    written = m.run(text, edit=Intervention(ablated=frozenset({head}))).output
    if (written != normal) != changes:
        return None
    return Question(
        "choice",
        f"The model writes '{normal}' for '{text}'. Switch off {head_name(head)} (its output is set "
        "to zero; every other head works as before). Will the model write something else?",
        HEAD_OPTIONS, frozenset({HEAD_OPTIONS[not changes]}),
        "Switching a head off shows whether the model needs it; the lesson's table of what each cross head "
        "costs is the evidence.",
        f"With {head_name(head)} off it writes '{written}'. On the lab's {LAB_WORDS} held-out words, "
        f"switching it off alone costs {m.head_costs[head]:.1%} of exact match."), {"head": head}


LENGTH_OPTIONS = ("yes, exactly", "no")


def length_plan(m: QuizModel, rng: random.Random) -> dict:
    trained = m.model.config.max_len
    exact = rng.random() < 0.5
    low, high = ((max(m.min_len, trained - 18), trained) if exact else
                 (trained + 4, min(trained + 16, lab_limit(m.model))))
    return {"exact": exact, "n": rng.randint(low, high), "distinct": False}


def length_ask(m: QuizModel, text: str, plan: dict) -> Built | None:
    """Will the model do its task exactly on a random string of this length? Within the training lengths or past
    them is drawn first (half each), then a string the model answers that way."""
    trained, exact = m.model.config.max_len, plan["exact"]
    run = m.run(text, max_len=lab_limit(m.model))
    if (run.output == run.target) != exact:
        return None
    first = first_difference(run.output, run.target)
    kept = m.target(text[:trained])     # the task done on the characters it was trained to reach
    wrong = (f"It writes {len(run.output)} characters, exactly the {_noun(m.task)} of the first "
             f"{trained} and nothing of the other {len(text) - trained}." if run.output == kept else
             f"Its first wrong character is at step {first} of {len(run.target)}.")
    return Question(
        "choice",
        f"The model was trained on texts of {m.min_len} to {trained} characters. Will it write the exact "
        f"{_noun(m.task)} of this random text of {len(text)} characters?\n\n{text}",
        LENGTH_OPTIONS, frozenset({LENGTH_OPTIONS[not exact]}),
        "Every position past the training length has a positional code the model never saw in training.",
        "It writes the exact " + _noun(m.task) + "." if exact else wrong), {"max_len": lab_limit(m.model)}


@dataclass(frozen=True)
class ItemKind:
    name: str
    concept: str
    page: str
    plan: Callable[[QuizModel, random.Random], dict]        # what both forms of a seed share
    ask: Callable[[QuizModel, str, dict], Built | None]      # the item on one string, if it fits the plan
    asks_of: Callable[[str], bool] = lambda task: True       # whether it is asked of a model of this task


ITEM_KINDS: tuple[ItemKind, ...] = (
    ItemKind("positions", "what a positional code is for", "lab_positions", positions_plan, positions_ask,
             lambda task: not order_free(task)),
    ItemKind("scaling", "what dividing by √d_k does to the weights", "inside_one_head", scaling_plan, scaling_ask),
    ItemKind("mask", "what the causal mask hides", "masks", mask_plan, mask_ask),
    ItemKind("decoder_input", "what the decoder reads at step t", "decode", decoder_input_plan, decoder_input_ask),
    ItemKind("cross", "where a cross-attention row looks for this task", "attention", cross_plan, cross_ask),
    ItemKind("forcing", "what teacher forcing feeds", "lab_forcing", forcing_plan, forcing_ask),
    ItemKind("head_off", "what switching a head off does", "lesson", head_plan, head_ask),
    ItemKind("length", "why the model fails beyond its training length", "lab_length", length_plan, length_ask),
)


LAB_WORDS = 200                                      # explorer.lab_runs.SAMPLE_SIZE
ABLATION_TABLE = "explorer.lab_runs._ablation_table"  # its name among a checkpoint's stored tables


def lab_sample(max_len: int, letters: str = LETTERS, min_len: int = 1) -> frozenset[str]:
    """The held-out words the lab and the lesson's tables show (explorer.lab_runs.lab_words): a quiz never asks
    about one of them."""
    return frozenset(held_out_strings(LAB_WORDS, max_len, min_len=min_len, letters=letters))


def lab_head_costs(checkpoint_dir: Path | str, model: Transformer, vocab: Vocab, task: str,
                   min_len: int = 1) -> dict[Head, float]:
    """Exact match lost with each head alone switched off on the lab's words (Switch heads off shows it): read
    from the checkpoint's stored tables while fresh, else computed (a minute or so)."""
    found, table = lookup(str(checkpoint_dir), ABLATION_TABLE, ())
    if not found:
        table = ablation_ranking(model, vocab, sorted(lab_sample(model.config.max_len, vocab.letters, min_len)), task)
    return {effect.head: effect.drop for effect in table[1]}


def item_plan(m: QuizModel, kind: ItemKind, seed: int) -> dict:
    """What both forms of a seed share for this kind of item: drawn from the seed alone, never the form."""
    return kind.plan(m, random.Random(f"{seed}:{kind.name}"))


def build_quiz(model: Transformer, vocab: Vocab, task: str, seed: int, form: str,
               head_costs: Mapping[Head, float], avoid: frozenset[str] = frozenset(), min_len: int = 1) -> Quiz:
    """One form of the quiz: an item per kind that applies to the task, each on its own fresh strings of the
    model's alphabet and lengths. `head_costs`: lab_head_costs of this model."""
    if form not in FORMS:
        raise ValueError(f"a quiz form is one of {FORMS}, not {form!r}")
    m = QuizModel(model, vocab, task, head_costs, min_len)
    avoid = avoid | lab_sample(model.config.max_len, vocab.letters, min_len)
    items = []
    for kind in ITEM_KINDS:
        if not kind.asks_of(task):
            continue
        try:
            plan = item_plan(m, kind, seed)
        except NotAskable:
            continue
        strings = Strings(random.Random(f"{seed}:{form}:{kind.name}:strings"), form, avoid, vocab.letters)
        question, setting = _search(lambda: kind.ask(m, strings.word(plan.get("distinct", True), plan["n"]), plan),
                                    kind.name)
        items.append(QuizItem(kind.name, kind.concept, kind.page, strings.last, question, setting))
    return Quiz(form, seed, task, tuple(items))
