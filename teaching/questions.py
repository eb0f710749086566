"""The tour's predict-first questions, each answered by the model itself.

Every builder takes the numbers of the model in use (a run, a run under an intervention, the lab's ranking,
the snapshots' outputs) and returns a Question whose right answer was read from them, never written in: with
another model the same builder gives that model's answer. Streamlit-free, so the teacher's sheet and the
tests build the same questions as the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from analysis.lab import HeadEffect
from analysis.labels import EOS_LABEL, KIND_SHORT, visible
from analysis.lesson import SPLIT, ForcedOutcomes, LastLayerSplit, forced_outcome, last_key_shares
from analysis.offsets import OffsetFit, offset_keys, offset_label, read_offset
from analysis.patching import pattern_label
from analysis.run import Run
from analysis.tasks import words
from transformer.data import expected_keys, target
from transformer.intervention import Head
from transformer.task_rules import parse_rule

KINDS_OF_ANSWER = ("choice", "position", "token", "head", "snapshot")
TIE = 1e-3   # step 11: swaps whose drops are this close are tied (saturated steps drop by 1.000 at several)


@dataclass(frozen=True)
class Question:
    kind: str                        # what the learner picks, one of KINDS_OF_ANSWER
    prompt: str
    options: tuple[str, ...]
    answers: frozenset[str]          # every option the model counts as right (ties are all right)
    hint: str                        # after a wrong pick: where to look, never the answer
    why: str                         # with the reveal: the model's own numbers
    hints: dict[str, str] = field(default_factory=dict)   # a hint for one particular wrong pick

    def __post_init__(self) -> None:
        if self.kind not in KINDS_OF_ANSWER:
            raise ValueError(f"unknown kind of answer {self.kind!r}")
        if not self.answers or not self.answers <= set(self.options):
            raise ValueError(f"answers {sorted(self.answers)} must be among the options {self.options}")

    @property
    def answer(self) -> str:
        """The right answer as the reveal names it (the first of several tied ones, in option order)."""
        return next(o for o in self.options if o in self.answers)

    @property
    def answer_line(self) -> str:
        """'The model's answer: …' with one full stop, whether or not the option ends with one."""
        return f"The model's answer: {self.answer.rstrip('.')}."

    def grade(self, picked: str | None) -> bool:
        return picked in self.answers

    def hint_for(self, picked: str | None) -> str:
        return self.hints.get(picked or "", self.hint)


def _position(i: int, label: str) -> str:
    return f"{i}: {label}"


def order_free(task: str) -> bool:
    """Whether the rule's output ignores the order of the text (a sort anywhere in it)."""
    return any(step.operation.name == "sort" for step in parse_rule(task).steps)


def right_output(task: str) -> str:
    """The output the task asks for, as a yes/no option names it."""
    return "the exact reversal" if task == "reverse" else "exactly the right answer"


def expected(run: Run) -> str:
    """What the run's task writes for its text: the answer the model is graded against."""
    return target(run.text, run.task, run.letters)


# --- One builder per step ----------------------------------------------------------------------------

def embedding_question(run: Run) -> Question:
    """Which is longer for the first character: its scaled embedding or its positional code?"""
    embedding = float(np.linalg.norm(run.trace["src_embed.output"][0]))
    code = float(np.linalg.norm(run.trace["src_positions.rows"][0]))
    options = ("the scaled embedding", "the positional code", "about the same (within 10 %)")
    ratio = embedding / code
    answer = options[2] if abs(ratio - 1) <= 0.1 else options[0] if ratio > 1 else options[1]
    d_model = run.trace["src_embed.output"].shape[-1]
    raw = embedding / math.sqrt(d_model)
    return Question(
        "choice",
        f"The encoder adds two vectors for the first character '{run.source[0]}': its embedding (multiplied by "
        f"√d_model = {math.sqrt(d_model):g}) and the positional code of position 0. The table above gives the "
        "embedding's length ‖e‖ before that multiplication. Which is longer?",
        options, frozenset({answer}),
        f"Here ‖e‖ = {raw:.2f}, and multiplying a vector by a number multiplies its length by it. Every "
        f"positional code has the same length, √(d_model / 2) = {math.sqrt(d_model / 2):.2f}.",
        f"‖embedding × √d_model‖ = {embedding:.2f} and ‖PE(0)‖ = {code:.2f} (ratio {ratio:.2f}).",
    )


def _still_right(changed: Run, prompt: str, hint: str, why: str) -> Question:
    """A yes/no question: does the model, so changed, still write what its task asks for?"""
    answer = expected(changed)
    options = (f"yes, {right_output(changed.task)}", "no, something else")
    said = "" if changed.task == "reverse" else f" (the right answer is '{answer}')"
    return Question("choice", prompt, options, frozenset({options[changed.output != answer]}), hint,
                    f"{why} it writes '{changed.output}'{said}.")


def positions_question(text: str, normal: Run, shuffled: Run) -> Question:
    """Shuffle the source's positional codes: does the model still write the task's answer?"""
    moved = int((np.abs(shuffled.trace["src_positions.rows"] - normal.trace["src_positions.rows"]).max(-1) > 0).sum())
    where = ("which character came last" if normal.task == "reverse" else
             f"where each character stands (though {normal.task} sorts, and a sorted text ignores the order)"
             if order_free(normal.task) else
             f"where each character stands, which {normal.task} needs")
    return _still_right(
        shuffled,
        "Shuffle the positional codes of the source: the same codes, handed out in a random order. Will the model "
        f"still write {right_output(normal.task)}?",
        f"Did the shuffle move any code here? Where it did, how could the model tell {where}?",
        f"The shuffle moved {moved} of the {len(text)} codes; with them shuffled")


def scaling_question(run: Run, layer: int, head: int, query: int) -> Question:
    """Without dividing by √d_k, would the row's largest weight be larger, the same or smaller?"""
    scores = run.trace.attention("encoder_self", layer, "scores")[head, query].astype(float)   # (S,)
    weights = run.trace["encoder_self", layer][head, query]
    raw = np.exp(scores * math.sqrt(run.d_k) - (scores * math.sqrt(run.d_k)).max())
    unscaled = float((raw / raw.sum()).max())
    scaled = float(weights.max())
    options = ("larger", "about the same (within 0.01)", "smaller")
    answer = options[1] if abs(unscaled - scaled) <= 0.01 else options[0] if unscaled > scaled else options[2]
    return Question(
        "choice",
        f"Encoder layer {layer}, head {head}, row {query} ('{run.source[query]}'): the scores are divided by "
        f"√d_k = {math.sqrt(run.d_k):g} before the softmax. Without that division, would the row's largest "
        "weight be larger, about the same, or smaller?",
        options, frozenset({answer}),
        f"Without the division every score is √d_k = {math.sqrt(run.d_k):g} times bigger, and so is every gap "
        "between two scores. What does the softmax do with wider gaps?",
        f"Its largest weight is {scaled:.3f}; without the division it would be {unscaled:.3f}. "
        + _last_character_clue(run, layer, head),
    )


SHORT = 6   # the texts on which encoder L0 H0 of the bundled reverser marks the last character in every row:
            # nearly every random text of up to 5 characters, most of 6, few of 7 or 8 (tests/unit/test_teaching.py)


def _last_character_clue(run: Run, layer: int, head: int) -> str:
    """What the head gives the text's last character, in words that follow the numbers: a clue to step 10."""
    shares = last_key_shares(run, layer, head)                                       # (S,)
    weights = run.trace["encoder_self", layer][head]                                 # (S, S)
    n = len(run.source)
    on_last = int((weights.argmax(-1) == n - 1).sum())
    spread = f"between {shares.min():.2f} and {shares.max():.2f}" if n > 1 else f"{shares.max():.2f}"
    said = (f"Look also at the last column: this head gives the last character '{run.source[-1]}' {spread} of "
            f"each row's weight, and {on_last} of the {n} rows give it their largest weight.")
    if run.task == "reverse" and 1 < n <= SHORT and on_last == n:   # measured on the reverser only (test_teaching)
        said += (" One reading, for step 10, on short texts like this one (every row picks the last character on "
                 "nearly every text of up to 5 characters, on most of 6, on few longer): the encoder marks where "
                 "the text ends, which reversing needs in order to start. On longer texts this head's rows do not "
                 "all pick the last character, so the length must come from elsewhere.")
    return said


def mask_question(run: Run, layer: int, head: int, step: int) -> Question:
    """How much weight does row `step` of decoder self-attention give the positions after it?"""
    row = run.trace["decoder_self", layer][head, step]                      # (T,)
    later = float(row[step + 1:].max())
    options = ("exactly 0", "a little (above 0, below 0.01)", "0.01 or more")
    answer = options[0] if later == 0 else options[1] if later < 0.01 else options[2]
    return Question(
        "choice",
        f"Decoder self-attention, layer {layer}, head {head}, in the pass that reads "
        + ("your text's whole reversal" if run.task == "reverse" else "the whole right answer")
        + f" at once: position {step} has read {' '.join(run.decoder_in[:step + 1])}. How much weight does it give "
        f"{_after(run.decoder_in[step + 1:])}?",
        options, frozenset({answer}),
        "Look at the mask above: which cells of row " + str(step) + " are hidden, and what does a hidden score "
        "become before the softmax?",
        f"Its weights on positions 0 to {step}: " + ", ".join(f"{w:.2f}" for w in row[:step + 1])
        + f"; the largest on a later position: {_weight(later)}.",
    )


def _after(labels: list[str]) -> str:
    """The later positions, named while there are few, counted when there are many."""
    return (f"the positions after it ({', '.join(labels)})" if len(labels) <= 8 else
            f"the {len(labels)} positions after it")


def _weight(w: float) -> str:
    """A weight that is exactly 0 said so, not rounded to 0.0."""
    return "0, exactly" if w == 0 else f"{w:.2g}"


def decode_question(run: Run, step: int) -> Question:
    """What will the decoder write at this step?"""
    options = tuple(dict.fromkeys([*sorted(set(run.source)), EOS_LABEL, run.decoder_out[step]]))
    probability = float(run.probs[step].max())
    return Question(
        "token",
        f"Step {step}: the decoder has read {' '.join(run.decoder_in[:step + 1])}. What will it write?",
        options, frozenset({run.decoder_out[step]}),
        ("Reversing: step 0 writes the last character, step 1 the one before it, and so on" if run.task == "reverse"
         else f"The rule {run.task}: {words(run.task).rule}") + f"; the end symbol {EOS_LABEL} comes after all of them.",
        f"It writes '{run.decoder_out[step]}' with probability {probability:.3f}.",
    )


def _at(keys: set[int]) -> str:
    """Source positions as a sentence names them: 'position 3', 'positions 3 or 5' (equal letters)."""
    ordered = sorted(keys)
    return f"position {ordered[0]}" if len(ordered) == 1 else "positions " + " or ".join(map(str, ordered))


def cross_question(run: Run, layer: int, head: int, step: int, fit: OffsetFit, last_layer: int) -> Question:
    """Which source position does a layer-0 cross head read most at step `step`? `fit`: that head's offsets on
    this run (analysis.offsets.run_offsets), the evidence the prompt gives. The hint follows what the head does
    here: where the character just read came from, where the one to write comes from, or neither. The keys are
    the task's (transformer.data.expected_keys): for reversal n − i and n − 1 − i."""
    row = run.trace["cross", layer][head, step]                              # (S,)
    options = tuple(_position(i, label) for i, label in enumerate(run.source))
    best = float(row.max())
    top = int(row.argmax())
    n = len(run.source)
    keys = expected_keys(run.text, run.task, run.letters)                  # per output step, the keys it copies
    to_write = keys[step] if step < len(keys) else set()
    just_read = keys[step - 1] if 0 < step <= len(keys) else set()        # what step i − 1 copied
    reversing = run.task == "reverse"
    read_at = f"n − i = {n - step}" if reversing else _at(just_read) if just_read else ""
    write_at = f"n − 1 − i = {n - 1 - step}" if reversing else _at(to_write) if to_write else "no position"
    read = run.decoder_in[step]
    repeats = (" Repeated letters: the position matters, not the letter."
               if reversing or len(set(run.text)) < len(run.text) else "")
    if step > 0 and top in just_read:
        hint = f"Step {step} has just read '{read}'. Where in your text did that character come from?{repeats}"
    elif top in to_write:
        hint = (f"Step {step} is about to write '{run.decoder_out[step]}'. Where in your text is the character it "
                f"should copy?{repeats}")
    else:
        hint = (f"This head looks neither where the character step {step} has just read came from nor where the "
                "one it writes stands: look at the positions near those two.")
    last = run.trace["cross", last_layer][:, step].argmax(-1)                 # (H,) each last-layer head's top key
    left, on_read = sum(int(k) in to_write for k in last), sum(int(k) in just_read for k in last)
    found = step > 0 and top in just_read
    came = f" (n − i = {n} − {step})" if reversing else f" (under {run.task}, step {step - 1} copied from there)"
    why = (f"Its largest weight, {best:.2f}, falls on source position {top}"
           + (f", where the character it has just read, '{read}', came from{came}" if found else "")
           + ". At the same step the last layer's heads put theirs on positions "
           + ", ".join(str(int(k)) for k in last)
           + f": {left} of {len(last)} on {write_at}, "
           + ("the character it writes" if reversing else "where the character it writes comes from")
           + (", one to the left" if reversing and found and left > len(last) / 2 else ""))
    if step > 0 and on_read:
        same = {run.source[k] for k in just_read} & {run.source[k] for k in to_write}
        why += f"; {on_read} on {read_at}" + (f", which holds the same letter '{min(same)}'" if same else "")
    why += "."
    if left <= len(last) / 2:
        right = step < len(expected(run)) and run.decoder_out[step] == expected(run)[step]
        looks = "n − 1 − i" if reversing else "the key the task copies from"
        why += (f" Here only {left} of the {len(last)} last-layer heads look at {looks}, and the model "
                f"{'still ' if right else ''}writes '{run.decoder_out[step]}': the reading above holds for this step "
                "only in part.")
    label = offset_label("cross", run.task, fit.best_offset)
    on_text = offset_keys("cross", len(keys), run.text, run.task, fit.best_offset, run.letters).any(-1)   # (T,)
    outside = int((~on_text).sum())                            # steps where that key is off the text
    steps = len(keys)
    room = (f" (at {outside} of its {steps} steps {label} lies outside your text, so {(steps - outside) / steps:.0%} "
            "is the most it could score)" if outside else "")
    return Question(
        "position",
        f"Cross-attention, layer {layer}, head {head}: on your text its largest weight lands on "
        f"{label} in {fit.best_share:.0%} of the output steps{room}, with a "
        f"mean largest weight of {fit.mean_top_weight:.2f} (of layer {layer}'s cross heads, the one that keeps to "
        f"one offset most often, the sharpest among equals). Output step {step} has just "
        f"read '{read}' and will write '{run.decoder_out[step]}'. Which source position does this head read most?",
        options, frozenset(options[i] for i in range(n) if row[i] >= best - 1e-6), hint, why,
    )


def snapshot_question(text: str, outputs: list[tuple[int, str]],
                      on_pattern: dict[int, float] | None = None, task: str = "reverse",
                      answer: str | None = None) -> Question:
    """At which training snapshot does the model first write the task's answer (`answer`; the reversal by
    default)? `outputs`: (step, output), in order; `on_pattern`: per snapshot step, the share of held-out output
    steps whose last-layer best head is on the task's pattern (the Training page's figure), so the reveal can
    set the output against the attention."""
    answer = text[::-1] if answer is None else answer
    pattern = words(task).pattern
    done = "reversed" if task == "reverse" else "right"
    options = (*(f"step {s:,}" for s, _ in outputs), "never")
    index = next((i for i, (_, out) in enumerate(outputs) if out == answer), len(outputs))
    earlier = {o: f"Later: at that point it does not yet write your text {done}." for o in options[:index]}
    later = {o: ("Earlier: by then it had already reversed your text." if task == "reverse" else
                 "Earlier: by then it already wrote the right answer.") for o in options[index + 1:]}
    why = "Its output at each snapshot: " + ", ".join(f"step {s:,}: '{out}'" if out else f"step {s:,}: (nothing)"
                                                      for s, out in outputs) + "."
    if on_pattern and index < len(outputs):
        first, last = outputs[index][0], outputs[-1][0]
        share, final = on_pattern[first], on_pattern[last]
        when = f"step {first:,}" + (", the last snapshot" if last == first else "")
        why += (f" When it first writes your text {done} ({when}), {share:.1%} of held-out output steps have the "
                f"last layer's best head on {pattern}" + (f"; at step {last:,}, {final:.1%}." if last != first
                                                            else "."))
        if share < 0.5:                                    # most held-out steps still off the pattern
            why += (f" So the output is right while most steps are still off {pattern}: the output can be "
                    "right before the attention looks clean.")
    first_right = "first reverse" if task == "reverse" else "first write the right answer for"
    return Question(
        "snapshot",
        f"The model was saved at {len(outputs)} points of its training. At which one does it {first_right} "
        f"'{text}' exactly?",
        options, frozenset({options[index]}),
        "Think of how much training a model of this size needs before every character lands in its place"
        + ("; the shares on screen are about attention on held-out words, not your text's output, and the two "
           "need not arrive together." if on_pattern else "."),
        why, {**earlier, **later},
    )


FORCED_OPTIONS = {"restart": "'{t}', then the whole {out} (it starts again)",
                  "carry on": "'{t}' in place of the {out}'s first character, then the rest of it",
                  "other": "something else"}


def answer_noun(task: str) -> str:
    """What the task writes, as 'the whole …' names it."""
    return "reversal" if task == "reverse" else "right answer"


def forced_options(token: str, task: str) -> dict[str, str]:
    """FORCED_OPTIONS for one forced token under one task."""
    return {o: label.format(t=token, out=answer_noun(task)) for o, label in FORCED_OPTIONS.items()}


def forcing_question(text: str, forced: Run, token: str, outcomes: ForcedOutcomes | None) -> Question:
    """Force a wrong first character: what does the model write after it? `outcomes`: what held-out words did
    under the same forcing (None: not computed), the evidence the screen shows first."""
    named = forced_options(token, forced.task)
    options = tuple(named.values())
    out = answer_noun(forced.task)
    outcome = forced_outcome(forced.output, expected(forced), token)
    if outcomes is None:
        hint, hints, tally = (f"Step 1 reads ⟨s⟩ and '{token}'; the source is unchanged. Compare with what the "
                              "model writes on its own."), {}, ""
    else:
        counts = outcomes.counts
        tally = (f" On {outcomes.words} held-out words with '{token}' forced first: " + ", ".join(
            f"{counts[o]} {_did(o, token, out)}" for o in FORCED_OPTIONS) + ".")
        hint = ("Look at what the held-out words did with the same token forced in, then at your own text: its "
                f"{out}, and the letters in it.")
        common = outcomes.commonest
        hints = {} if common == outcome else {named[common]: (
            f"That is what most held-out words do ({counts[common]} of {outcomes.words}), but not every word does "
            "it, and yours is one of the others.")}
    said = {"restart": f"it writes the forced token and then the whole {out}, as if nothing had happened",
            "carry on": f"it takes '{token}' for the {out}'s first character and carries on from the second",
            "other": "it does neither"}[outcome]
    why = f"With '{token}' forced, the whole output is '{forced.output}': {said}.{tally}"
    if outcomes is not None and outcomes.counts["restart"] > outcomes.words / 2:
        why += (" Most of these words recover from the wrong token: on them, one wrong character read did not "
                "derail the rest, though in training the decoder only ever read right ones"
                + ("." if outcome == "restart" else "; yours is one of the words that do not."))
    return Question(
        "choice",
        f"Force the decoder's first character to '{token}' (step 0 writes '{token}' whatever it prefers). What "
        "will it write after it?",
        options, frozenset({named[outcome]}), hint, why, hints,
    )


def _did(outcome: str, token: str, out: str) -> str:
    return {"restart": f"wrote '{token}' and then the whole {out}",
            "carry on": f"wrote the {out} without its first character", "other": "wrote something else"}[outcome]


def ablation_question(effects: list[HeadEffect], sample_size: int, fits: list[OffsetFit] | None = None,
                      task: str = "reverse") -> Question:
    """Which single head, switched off, costs the most exact match? With `fits` (each head's offsets on the same
    held-out words, shown on screen first), the question is among those heads, so it can be reasoned about."""
    among = {f.id for f in fits} if fits else {e.head for e in effects}
    chosen = sorted((e for e in effects if e.head in among), key=lambda e: e.head)
    names = tuple(head_name(e.head) for e in chosen)
    worst = max(e.drop for e in chosen)
    shown = sorted(chosen, key=lambda e: -e.drop)     # every one: the quiz asks about any of them (review N2)
    by_head = {f.id: f for f in fits or ()}

    def lost(e: HeadEffect) -> str:
        fit = by_head.get(e.head)
        where = "" if fit is None else (f" (largest weight on {offset_label(e.head.kind, task, fit.best_offset)} "
                                        f"in {fit.best_share:.0%} of steps)")
        return f"{head_name(e.head)} {e.drop:.1%}{where}"

    why = "Exact match lost: " + ", ".join(lost(e) for e in shown) + "."
    return Question(
        "head",
        f"Switch off one head at a time. Which of these {len(names)} costs the most exact match on {sample_size} "
        "held-out random strings?",
        names, frozenset(head_name(e.head) for e in chosen if e.drop >= worst - 1e-9),
        ("A head's output is read by every layer after it: a layer-0 head whose largest weight lands on one fixed "
         "offset almost every step can hand the later layers something they cannot get elsewhere, while heads "
         "that share a job can stand in for each other." if task == "reverse" else
         "Heads that share a job can stand in for each other, so switching one off costs little; a head that "
         "does what no other head does cannot be spared, however sharp or spread out its weights are."),
        why,
    )


def read_pattern(task: str) -> str:
    """The analysis.patching pattern on the key of the character the step has just read (n − i for reverse)."""
    return "task+1" if read_offset(task) == 1 else "task-1"


def sufficiency_patterns(task: str) -> tuple[str, ...]:
    """Step 12's three patterns: the key just read, the task's own key, and 1/n on every character."""
    return (read_pattern(task), "task", "uniform")
PATTERN_WORDS = {"reverse": {"task+1": "n − i: where the character just read came from",
                             "task": "n − 1 − i: where the character to write stands (the mirror)",
                             "uniform": "uniform: 1/n on every character"}}
ENOUGH = 0.02     # a pattern within this of the model's own exact match keeps what the head does
NEEDED = 0.5      # switched off, the head costs at least this much exact match
BUILT_ON = 0.25   # the last layer's share on the mirror falls at least this much with the head off


def pattern_words(name: str, task: str) -> str:
    """A pattern as the lesson names it; under a task the lesson has no words for, as Build a head does."""
    return PATTERN_WORDS.get(task, {}).get(name) or pattern_label(name, task)


def sufficiency_question(head: Head, within: dict[str, float], own: float, drop: float, sample_size: int,
                         composition: tuple[float, float] | None, own_pattern: str | None,
                         task: str = "reverse") -> Question:
    """Which pattern, put in place of one head's weights on every held-out word, keeps the most exact match?
    `within`: each pattern's exact match (analysis.patching); `own`: the model's own; `drop`: what switching
    the head off costs (step 9); `composition`: the last layer's share on the mirror with the head on and off;
    `own_pattern`: the pattern on the offset where the head's own largest weight lands most often (or None)."""
    patterns = sufficiency_patterns(task)
    options = tuple(pattern_words(p, task) for p in patterns)
    best = max(within.values())
    answers = frozenset(pattern_words(p, task) for p in patterns if within[p] >= best - 0.005)
    name = head_name(head)
    kept = ", ".join(f"{pattern_words(p, task).split(': ')[0]} {within[p]:.1%}" for p in patterns)
    top = max(patterns, key=lambda p: within[p])
    why = (f"With each pattern in place of {name} on the {sample_size} held-out words, the exact match is: {kept} "
           f"(its own weights: {own:.1%}). Switched off, it costs {drop:.1%} (step 9): the model needs it. ")
    enough = within[top] >= own - ENOUGH
    short = pattern_words(top, task).split(": ")[0]
    why += ((f"With {short} in its place the model keeps its exact match: that pattern is enough"
             + (", and it is where the head's own largest weight lands. " if top == own_pattern else ". "))
            if enough else
            f"No pattern keeps the model's own exact match (the best, {short}, is {own - within[top]:.1%} short): "
            "on these words, no one of these patterns stands in for what the head does. ")
    if composition is not None:
        on, off = composition
        where = ("on the mirror n − 1 − i" if task == "reverse" else "on the key the task copies from")
        why += (f"The last layer's heads land {where} in {on:.0%} of steps with {name} working "
                f"and {off:.0%} with it off" + (" (How it reverses)" if task == "reverse" else ""))
        if on - off >= BUILT_ON and enough and drop >= NEEDED and top == own_pattern == read_pattern(task):
            why += (": needed, enough, and built on. One reading is a two-step circuit: this head finds where the "
                    "character just read came from, and the last layer "
                    + ("steps one to the left." if task == "reverse" else "goes from there to the key it copies."))
        else:
            why += "."
    return Question(
        "choice",
        f"{name} has its weights replaced, on every held-out word and at every step, by one of three patterns "
        "written by hand; every other head keeps its own. Which pattern keeps the most of the model's exact "
        f"match ({own:.1%} with its own weights)?",
        options, answers,
        "A pattern is enough if the model keeps its exact match with it in the head's place. Each one hands the "
        "layers after this head something different: one key, another key, or an average of the whole text. "
        "Which of them could those layers not get from elsewhere?",
        why.strip(),
    )


def encoder_off_question(text: str, ablated: Run) -> Question:
    """Switch off every encoder head: does the model still write the task's answer?"""
    reversing = ablated.task == "reverse"
    return _still_right(
        ablated,
        "Switch off every encoder self-attention head (the encoder still sees each character and its position). "
        + ("Will the model still reverse your text?" if reversing else
           f"Will the model still write {right_output(ablated.task)} for your text?"),
        "With these heads off, no source position sees any other: each character's vector knows only itself and "
        "its position, though cross-attention still sees all of them. "
        + ("Can this model find where your text ends that way?" if reversing else
           f"Does {ablated.task} need more than that: the length, or what the other characters are?"),
        "With every encoder head off")


def head_name(head: Head) -> str:
    """A head as the lesson and the quizzes name it: "Cross L1 H0"."""
    return f"{KIND_SHORT[head.kind]} L{head.layer} H{head.head}"


def which_character_question(run: Run, attention: np.ndarray, occlusion: np.ndarray, step: int, swaps: int,
                             agree: tuple[int, int]) -> Question:
    """Which source character's swap lowers the probability of what step `step` writes the most? `attention`:
    (S,) where the last cross layer's heads, averaged, look at this step (the evidence the page shows first);
    `occlusion`: (S,) each position's mean drop over `swaps` replacement letters; `agree`: (steps where the two
    tops agree, steps where both vary) on this text."""
    options = tuple(_position(i, label) for i, label in enumerate(run.source))
    written, looked = run.decoder_out[step], int(attention.argmax())
    best = float(occlusion.max())
    tops = [i for i in range(len(options)) if occlusion[i] >= best - TIE]
    answers = frozenset(options[i] for i in tops)
    named = " or ".join(f"position {i} ('{run.source[i]}')" for i in tops)
    p = float(run.probs[step].max())
    same, counted = agree
    hints = {} if options[looked] in answers else {options[looked]: (
        "That is where the heads' weight is largest: where they read. Whether the character there matters to "
        f"what is written is what the swap tests, and '{written}' has to come from somewhere in your text.")}
    return Question(
        "position",
        f"Step {step} writes '{written}' (p = {p:.3f}). Swap one character of your text at a time, for each of "
        f"{swaps} other letters in turn, the decoder reading what it has written so far unchanged: which "
        f"position's swap lowers the "
        f"probability of '{written}' the most?",
        options, answers,
        "The chart shows where the heads read: a clue, not a test. Think about what the step writes and where "
        "in your text it could come from.",
        f"Swapping {named} lowers p('{written}') by {best:.3f} on average, "
        + ("more than any other" if len(tops) == 1 else f"within {TIE:g} of each other, so each counts as right")
        + f"; the last layer's heads, averaged, put their largest weight, {float(attention[looked]):.2f}, on "
        f"position {looked} ('{run.source[looked]}'). On your text the heads' largest weight is on one of the "
        f"positions whose swap lowers the probability most at {same} of the {counted} steps where both vary"
        + (" (every one: on longer texts they part more often)" if same == counted else "")
        + ". A swap can also lower it without being read: where it makes your text disagree with what the "
        "decoder has already written.",
        hints,
    )


@dataclass(frozen=True)
class TwinReading:
    """One text of a repeat pair at the asked step: the read head's weight on n − i and beside it, the last
    layer's (heads averaged) on n − 1 − i and n − i, how many last-layer heads' largest weight is on n − i, and
    the letter written there (the right prefix read)."""

    text: str
    read_head_on_read: float
    read_head_beside: float
    on_task: float
    on_read: float
    heads_on_read: int
    heads: int
    writes: str


REPEAT_MATTERS = 0.15      # the repeat "splits" the last layer if it moves this much more weight onto n − i
DISCOUNT_KEEPS = 0.05      # half the weight on n − i "costs nothing" if the exact match falls by less than this
OTHER_BREAKS = 0.25        # and half on the other neighbour costs at least this much more


def exception_question(step: int, repeated: TwinReading, single: TwinReading, split: LastLayerSplit,
                       read_head: Head) -> Question:
    """Why does the last layer share its weight between n − 1 − i and n − i, yet write the letter at
    n − 1 − i? Three readings, each decided by the numbers: the repeat beside n − i (the pair), the weight on
    the letter just read counting for nothing (weights by hand on the held-out words), the largest weight
    deciding what is written (the pair)."""
    n, k = len(repeated.text), len(repeated.text) - step
    read, to_write = visible(repeated.text[k]), visible(repeated.text[k - 1])
    repeat = ("The repeat: the read head finds both copies of the letter just read, so the last layer, one to "
              "the left, is torn between two keys; without the repeat it looks at one.")
    discount = ("The letter just read: the last layer shares its weight between the letter to write and the one "
                "just read on most steps, repeat or not, and the weight on the one just read hardly counts.")
    largest = ("The largest weight: where most last-layer heads put theirs on n − i, the model writes the letter "
               "there.")
    holds = {
        repeat: repeated.on_read - single.on_read >= REPEAT_MATTERS and single.on_read < SPLIT,
        discount: (split.split_share >= 0.5 and split.half_read >= split.own - DISCOUNT_KEEPS
                   and split.half_other <= split.half_read - OTHER_BREAKS),
        largest: any(t.heads_on_read > t.heads / 2 and t.writes == t.text[k] != t.text[k - 1]
                     for t in (repeated, single)),
    }
    neither = "None of these three."
    options = (repeat, discount, largest, neither)
    answers = frozenset(o for o, ok in holds.items() if ok) or frozenset({neither})

    def said(t: TwinReading) -> str:
        return (f"'{t.text}': {t.on_task:.2f} on n − 1 − i and {t.on_read:.2f} on n − i, {t.heads_on_read} of "
                f"{t.heads} heads' largest weight on n − i; it writes '{t.writes}'")

    name = head_name(read_head)
    why = (f"At step {step}: {said(repeated)}; {said(single)}. "
           f"The repeat does move {name}, the read head: {repeated.read_head_on_read:.2f} on n − i and "
           f"{repeated.read_head_beside:.2f} on the copy beside it in '{repeated.text}', "
           f"{single.read_head_on_read:.2f} and {single.read_head_beside:.2f} in '{single.text}'; it moves the last "
           f"layer's weight on n − i by {repeated.on_read - single.on_read:+.2f}. "
           f"Over the {split.steps:,} steps of the {split.words} held-out words where both keys lie in the text, "
           "the last layer puts on average "
           f"{split.on_task:.2f} on n − 1 − i and {split.on_read:.2f} on n − i, and at least {SPLIT:.1f} on n − i at "
           f"{split.split_share:.0%} of them. With its weights set by hand to half on n − 1 − i and half on n − i at "
           f"every step, the model keeps {split.half_read:.0%} exact match (its own: {split.own:.0%}); half on "
           f"n − 1 − i and half on n − 2 − i, its other neighbour, {split.half_other:.0%}: the weight on the letter "
           "just read costs almost nothing, the same weight on a letter not yet read breaks the reversal.")
    if holds[discount]:
        why += (" One reading, which these numbers allow but do not prove: the step has just read the letter at "
                "n − i, so reading it again adds nothing the model would write; a letter it has not read yet, it "
                "cannot discount.")
    return Question(
        "choice",
        f"Output step {step} of '{repeated.text}' has just read '{read}' (from n − i = {k}) and should write "
        f"'{to_write}' (n − 1 − i = {k - 1}); in '{repeated.text}' '{read}' stands beside n − i too, in "
        f"'{single.text}' it does not. The table shows how the last layer shares its weight between n − 1 − i and "
        "n − i in each text, and what the model writes. Which reading do the model's numbers back?",
        options, answers,
        "Compare the two texts' last layer: does the repeat change how it shares its weight? And which letter "
        "does the step already know?",
        why,
    )
