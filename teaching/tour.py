"""The tour's ten steps in teaching order, and the minutes a 50-minute class gives each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    number: int
    title: str
    goal: str            # one sentence: what the learner will understand
    look_for: str        # what to look at in the live view
    page: str            # the app page that shows it in full
    page_title: str
    minutes: int


STEPS: tuple[Step, ...] = (
    Step(1, "Tokens and embeddings",
         "Each character becomes a token id, then a vector of d_model numbers the model learned.",
         "The token ids of your text, and how long each scaled embedding is beside its positional code.",
         "app_pages/positional.py", "Positional encoding", 4),
    Step(2, "Positional encoding",
         "Attention alone ignores order, so each position adds its own fixed code of sines and cosines.",
         "Each row is one position's code: fast waves on the left, slow ones on the right.",
         "app_pages/positional.py", "Positional encoding", 4),
    Step(3, "One attention head, and √d_k",
         "A head scores every key against a query, divides by √d_k, and turns the scores into weights that sum "
         "to 1.",
         "One head of the encoder: each row is a query, each column a key, each row sums to 1.",
         "app_pages/inside_one_head.py", "Inside one head", 5),
    Step(4, "Masks",
         "The causal mask stops a decoder position from reading the positions after it.",
         "The decoder's self-attention: everything above the diagonal is exactly 0.",
         "app_pages/masks.py", "Masks", 4),
    Step(5, "The decoder, step by step",
         "The decoder writes one token at a time, reading the start symbol and what it has written so far.",
         "The decoder's input at this step, and the probability of every next token.",
         "app_pages/decode.py", "Decode step by step", 5),
    Step(6, "Cross-attention",
         "Each output step looks at the source through cross-attention; to reverse, step i reads position "
         "n − 1 − i.",
         "The anti-diagonal: the first output step reads the last source letter.",
         "app_pages/attention.py", "Attention", 5),
    Step(7, "Training: from blur to anti-diagonal",
         "The same model, saved during training, goes from uniform attention and wrong letters to the reversal.",
         "The output at each snapshot, and when the anti-diagonal appears.",
         "app_pages/training.py", "Training", 4),
    Step(8, "Teacher forcing",
         "In training the decoder reads the correct prefix; generating, it reads its own, and one wrong token "
         "changes what it reads next.",
         "What the decoder writes after a token it did not choose.",
         "app_pages/lab_forcing.py", "Teacher forcing", 4),
    Step(9, "Switching heads off",
         "Switching a head off and measuring what breaks is evidence of what the head does; a pattern alone is "
         "not.",
         "The exact match lost when each head alone is off.",
         "app_pages/lab_ablation.py", "Switch heads off", 5),
    Step(10, "How the model reverses",
         "To write the last character first the model needs the length of the text, and the encoder's attention "
         "is where it gets it.",
         "What the model writes with every encoder head switched off.",
         "app_pages/how_it_reverses.py", "How it reverses", 4),
)
INTRODUCTION_MINUTES, WRAP_UP_MINUTES = 3, 3
assert INTRODUCTION_MINUTES + sum(s.minutes for s in STEPS) + WRAP_UP_MINUTES == 50
