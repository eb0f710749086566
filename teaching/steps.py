"""The lesson's steps in teaching order, and the minutes a 50-minute class gives each: ten steps, and
three optional ones for a longer class."""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Step:
    number: int
    title: str
    goal: str            # one sentence: what the learner will understand
    look_for: str        # what to look at in the live view
    page: str            # the id of the app page that shows it in full (explorer.pages)
    minutes: int
    optional: bool = False   # outside the 50 minutes: for a longer class


STEPS: tuple[Step, ...] = (
    Step(1, "Tokens and embeddings",
         "Each character becomes a token id, then a vector of d_model numbers the model learned.",
         "The token id of each character and its embedding's length ‖e‖; after you answer, how long each scaled "
         "embedding is beside its code.",
         "positional", 4),
    Step(2, "Positional encoding",
         "Attention alone ignores order, so each position adds its own fixed code of sines and cosines.",
         "Each row is one position's code: fast waves on the left, slow ones on the right.",
         "positional", 4),
    Step(3, "One attention head, and √d_k",
         "A head scores every key against a query, divides by √d_k, and turns the scores into weights that sum "
         "to 1.",
         "One head of the encoder: each row is a query, each column a key, each row sums to 1; row 0 again on "
         "a scale of its own, and the last column.",
         "inside_one_head", 5),
    Step(4, "Masks",
         "The causal mask stops a decoder position from reading the positions after it.",
         "The mask: a row is one decoder position, blue cells are the positions it may read, grey ones are "
         "hidden; after you answer, the weights themselves.",
         "masks", 4),
    Step(5, "The decoder, step by step",
         "The decoder writes one token at a time, reading the start symbol and what it has written so far.",
         "The decoder's input at this step, and the probability of every next token.",
         "decode", 5),
    Step(6, "Cross-attention: where did that letter come from?",
         "Each output step reads the source through cross-attention. One reading of how this model reverses: a "
         "layer-0 cross head finds where the character the step has just read came from (n − i), and the last "
         "layer looks one position to the left of it (n − 1 − i), at the character to write.",
         "Your whole text by source position, and what the output step has read so far; after you answer, the "
         "head's weights and where the last layer looks at the same step.",
         "attention", 5),
    Step(7, "Training: when is the output right?",
         "The same model, saved during training: set the step where it first reverses your text against how much "
         "of its attention is on the anti-diagonal there; the output need not wait for a clean picture.",
         "How much of the attention is on the anti-diagonal at each snapshot; after you answer, what the model "
         "wrote for your text at each one.",
         "training", 4),
    Step(8, "A wrong character forced in",
         "In training the decoder reads the correct prefix (teacher forcing); generating, it reads its own. Force "
         "a wrong first character and see whether it recovers.",
         "What the model writes on its own, and what held-out words did with the same wrong character forced "
         "first.",
         "lab_forcing", 4),
    Step(9, "Switching heads off",
         "Switching a head off and measuring what breaks is evidence of whether the model needs it; where its "
         "weight lands is a clue, not that evidence.",
         "Where each cross head's largest weight lands and how often; after you answer, the exact match lost "
         "beside it.",
         "lab_ablation", 5),
    Step(10, "How the model reverses: the length",
         "To start, the decoder must find your text's last character, and where that is depends on the length. "
         "With every encoder self-attention head off, no source position sees any other, so nothing in the encoder "
         "can count the characters. One reading is that the encoder heads work the length out; How it reverses "
         "switches some of them off and probes for it.",
         "What the model writes with every encoder head switched off (and, on a short text, look back at step 3's last column).",
         "how_it_reverses", 4),
    Step(11, "Which character made this one?",
         "Attention says where a head reads; swapping a character for other letters and watching the probability "
         "of what the step writes tests whether reading it mattered. The two need not agree.",
         "Where the last layer's cross-attention looks at this step, its heads averaged; after you answer, how "
         "far each character's swap lowers the probability of what the step writes.",
         "lab_attribution", 5, optional=True),
    Step(12, "One head: needed, enough, and read by the next layer",
         "Switching a head off shows whether the model needs it; putting a hand-written pattern in its place tests "
         "whether that pattern is enough: if the model keeps its exact match, the pattern does the head's job.",
         "What the costliest cross head costs switched off and where its largest weight lands; after you answer, "
         "the exact match with each pattern in its place, and how the last layer looks with the head off.",
         "lab_patch", 5, optional=True),
    Step(13, "Two keys at once: the letter to write and the one just read",
         "The last layer need not put all its weight on the character it writes: where a step reads two keys, "
         "the numbers, not the largest weight, say which one counts.",
         "Two texts that differ in one character beside n − i, at the same step: how the read head and the last "
         "layer share their weight there; after you answer, what weights set by hand keep on the held-out words.",
         "attention", 5, optional=True),
)
INTRODUCTION_MINUTES, WRAP_UP_MINUTES = 3, 3
QUIZ_MINUTES = 5   # each of the class's two quizzes: eight items on the students' phones
assert INTRODUCTION_MINUTES + sum(s.minutes for s in STEPS if not s.optional) + WRAP_UP_MINUTES == 50


# The steps whose words are the reverser's, as they read under any other task: the same question, asked of what
# the rule needs. The other steps read the same under every task.
OTHER_TASKS = {
    6: {"goal": "Each output step reads the source through cross-attention, and the rule says where each output "
                "character comes from. One reading to test: a layer-0 cross head finds where the character the "
                "step has just read came from, and the last layer looks at the position of the character to "
                "write."},
    7: {"goal": "The same model, saved during training: set the step where it first writes your text's answer "
                "right against how much of its attention is on the task's pattern there; the output need not wait "
                "for a clean picture.",
        "look_for": "How much of the attention is on the task's pattern at each snapshot; after you answer, what "
                    "the model wrote for your text at each one."},
    10: {"title": "Every encoder head switched off",
         "goal": "With every encoder self-attention head off, no source position sees any other: each character "
                 "knows itself and its position, nothing about the length or its neighbours. Whether the rule needs "
                 "more than that, the model's output says.",
         "look_for": "What the model writes with every encoder head switched off, beside what it writes with them.",
         "page": "lab_ablation"},
    13: {"goal": "A reading of the reversal model's last layer, which puts weight on two keys at once (n − 1 − i "
                 "and n − i): its question is asked of the bundled reverser only.",
         "look_for": "Switch the sidebar's Task to Reverse to take this step on the reverser."},
}


def step_for(number: int, task: str) -> Step:
    """Step `number` as the lesson words it for a model of `task`."""
    step = STEPS[number - 1]
    return step if task == "reverse" else replace(step, **OTHER_TASKS.get(number, {}))
