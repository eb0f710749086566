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
from analysis.labels import EOS_LABEL, KIND_SHORT
from analysis.run import Run
from transformer.intervention import Head

KINDS_OF_ANSWER = ("choice", "position", "token", "head", "snapshot")


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

    def grade(self, picked: str | None) -> bool:
        return picked in self.answers

    def hint_for(self, picked: str | None) -> str:
        return self.hints.get(picked or "", self.hint)


def _position(i: int, label: str) -> str:
    return f"{i}: {label}"


# --- One builder per step ----------------------------------------------------------------------------

def embedding_question(run: Run) -> Question:
    """Which is longer for the first character: its scaled embedding or its positional code?"""
    embedding = float(np.linalg.norm(run.trace["src_embed.output"][0]))
    code = float(np.linalg.norm(run.trace["src_positions.rows"][0]))
    options = ("the scaled embedding", "the positional code", "about the same (within 10 %)")
    ratio = embedding / code
    answer = options[2] if abs(ratio - 1) <= 0.1 else options[0] if ratio > 1 else options[1]
    d_model = run.trace["src_embed.output"].shape[-1]
    return Question(
        "choice",
        f"The encoder adds two vectors for the first character '{run.source[0]}': its embedding (multiplied by "
        f"√d_model) and the positional code of position 0. Which is longer?",
        options, frozenset({answer}),
        f"Every positional code has the same length, √(d_model / 2) = {math.sqrt(d_model / 2):.2f}; the embedding "
        f"is multiplied by √d_model = {math.sqrt(d_model):g} before the code is added.",
        f"‖embedding × √d_model‖ = {embedding:.2f} and ‖PE(0)‖ = {code:.2f} (ratio {ratio:.2f}).",
    )


def _still_reverses(text: str, changed: Run, prompt: str, hint: str, why: str) -> Question:
    """A yes/no question: does the model, so changed, still write the exact reversal?"""
    options = ("yes, the exact reversal", "no, something else")
    return Question("choice", prompt, options, frozenset({options[changed.output != text[::-1]]}), hint,
                    f"{why} it writes '{changed.output}'.")


def positions_question(text: str, normal: Run, shuffled: Run) -> Question:
    """Shuffle the source's positional codes: does the model still reverse the text?"""
    moved = int((np.abs(shuffled.trace["src_positions.rows"] - normal.trace["src_positions.rows"]).max(-1) > 0).sum())
    return _still_reverses(
        text, shuffled,
        "Shuffle the positional codes of the source: the same codes, handed out in a random order. Will the model "
        "still write the exact reversal?",
        "Did the shuffle move any code here? Where it did, how could the model tell which character came last?",
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
        "between two scores. What does the softmax do with wider gaps? (With a single key there is nothing to "
        "share.)",
        f"Its largest weight is {scaled:.3f}; without the division it would be {unscaled:.3f}.",
    )


def mask_question(run: Run, layer: int, head: int, step: int) -> Question:
    """How much weight does row `step` of decoder self-attention give the positions after it?"""
    row = run.trace["decoder_self", layer][head, step]                      # (T,)
    later = float(row[step + 1:].max())
    options = ("exactly 0", "a little (above 0, below 0.01)", "0.01 or more")
    answer = options[0] if later == 0 else options[1] if later < 0.01 else options[2]
    return Question(
        "choice",
        f"Decoder self-attention, layer {layer}, head {head}, in the pass that reads your text's whole reversal "
        f"at once: position {step} has read {' '.join(run.decoder_in[:step + 1])}. How much weight does it give "
        f"the positions after it ({', '.join(run.decoder_in[step + 1:])})?",
        options, frozenset({answer}),
        "Look at the mask above: which cells of row " + str(step) + " are hidden, and what does a hidden score "
        "become before the softmax?",
        f"Its weights on positions 0 to {step}: " + ", ".join(f"{w:.2f}" for w in row[:step + 1])
        + f"; the largest on a later position: {later:.1f}.",
    )


def decode_question(run: Run, step: int) -> Question:
    """What will the decoder write at this step?"""
    options = tuple(dict.fromkeys([*sorted(set(run.source)), EOS_LABEL, run.decoder_out[step]]))
    probability = float(run.probs[step].max())
    return Question(
        "token",
        f"Step {step}: the decoder has read {' '.join(run.decoder_in[:step + 1])}. What will it write?",
        options, frozenset({run.decoder_out[step]}),
        "Reversing: step 0 writes the last character, step 1 the one before it, and so on; the end symbol "
        f"{EOS_LABEL} comes after all of them.",
        f"It writes '{run.decoder_out[step]}' with probability {probability:.3f}.",
    )


def cross_question(run: Run, layer: int, head: int, step: int) -> Question:
    """Which source letter will output step `step` read most, in this cross head?"""
    row = run.trace["cross", layer][head, step]                              # (S,)
    options = tuple(_position(i, label) for i, label in enumerate(run.source))
    best = float(row.max())
    n = len(run.source)
    return Question(
        "position",
        f"Cross-attention, layer {layer}, head {head} (of this layer's heads, the one that looks at the mirrored "
        f"position most often on your text): output step {step} writes '{run.decoder_out[step]}'. Which source "
        "position does it read most?",
        options, frozenset(options[i] for i in range(n) if row[i] >= best - 1e-6),
        f"To reverse, step i must copy the letter at source position n − 1 − i (here n = {n}). Repeated letters: "
        "the position matters, not the letter.",
        f"Its largest weight, {best:.2f}, falls on source position {int(row.argmax())}"
        + (f" (n − 1 − {step} = {n - 1 - step})." if 0 <= n - 1 - step < n else "."),
    )


def snapshot_question(text: str, outputs: list[tuple[int, str]]) -> Question:
    """At which training snapshot does the model first reverse the text? `outputs`: (step, output), in order."""
    options = (*(f"step {s:,}" for s, _ in outputs), "never")
    index = next((i for i, (_, out) in enumerate(outputs) if out == text[::-1]), len(outputs))
    earlier = {o: "Later: at that point it does not yet write your text reversed." for o in options[:index]}
    later = {o: "Earlier: by then it had already reversed your text." for o in options[index + 1:]}
    return Question(
        "snapshot",
        f"The model was saved at {len(outputs)} points of its training. At which one does it first reverse "
        f"'{text}' exactly?",
        options, frozenset({options[index]}),
        "Think of how much training a model of this size needs before every character lands in its place.",
        "Its output at each snapshot: " + ", ".join(f"step {s:,}: '{out}'" if out else f"step {s:,}: (nothing)"
                                                     for s, out in outputs) + ".",
        {**earlier, **later},
    )


def forcing_question(forced: Run, token: str) -> Question:
    """Force the first written character: what does the next step write?"""
    written = forced.decoder_out[1] if len(forced.decoder_out) > 1 else EOS_LABEL
    options = tuple(dict.fromkeys([*sorted(set(forced.source)), token, EOS_LABEL, written]))
    return Question(
        "token",
        f"Force the decoder's first character to '{token}' (step 0 writes '{token}' whatever it prefers). What "
        "will it write at step 1?",
        options, frozenset({written}),
        "Step 1 reads ⟨s⟩ and the forced character, but its cross-attention still looks at the source.",
        f"With '{token}' forced, step 1 writes '{written}' (probability {float(forced.probs[1].max()):.3f}); "
        f"the whole output: '{forced.output}'."
        if len(forced.decoder_out) > 1 else f"With '{token}' forced, the decoding ends.",
    )


def ablation_question(effects: list[HeadEffect], sample_size: int) -> Question:
    """Which single head, switched off, costs the most exact match?"""
    names = tuple(_head_name(e.head) for e in sorted(effects, key=lambda e: e.head))
    worst = max(e.drop for e in effects)
    return Question(
        "head",
        f"Switch off one head at a time. Which one costs the most exact match on {sample_size} held-out random "
        "strings?",
        names, frozenset(_head_name(e.head) for e in effects if e.drop >= worst - 1e-9),
        "A head's output is read by every layer after it, so a layer-0 head that later layers rely on can break "
        "more than the head that looks most like the mirror.",
        "Exact match lost: " + ", ".join(f"{_head_name(e.head)} {e.drop:.1%}"
                                         for e in sorted(effects, key=lambda e: -e.drop)[:4]) + ".",
    )


def encoder_off_question(text: str, ablated: Run) -> Question:
    """Switch off every encoder head: does the model still reverse the text?"""
    return _still_reverses(
        text, ablated,
        "Switch off every encoder self-attention head (the encoder still sees each character and its position). "
        "Will the model still reverse your text?",
        "With these heads off, no source position sees any other: each character's vector knows only itself and "
        "its position. Is that enough to write the whole text backwards?",
        "With every encoder head off")


def _head_name(head: Head) -> str:
    return f"{KIND_SHORT[head.kind]} L{head.layer} H{head.head}"
