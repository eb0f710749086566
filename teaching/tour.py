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
         "The token id of each character; after you answer, how long each scaled embedding is beside its code.",
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
         "The mask: a row is one decoder position, dark cells are the positions it may read, light ones are "
         "hidden; after you answer, the weights themselves.",
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
         "The same model, saved during training, goes from wrong letters to the reversal while its cross-attention "
         "sharpens from a blur into the anti-diagonal (the Training page shows both).",
         "After you answer: what the model wrote for your text at each snapshot (the Training page shows its "
         "cross-attention forming the anti-diagonal).",
         "app_pages/training.py", "Training", 4),
    Step(8, "Its own tokens, or the right ones (teacher forcing)",
         "In training the decoder reads the correct prefix; generating, it reads its own, and one wrong token "
         "changes what it reads next.",
         "What the decoder writes after a token it did not choose.",
         "app_pages/lab_forcing.py", "Teacher forcing", 4),
    Step(9, "Switching heads off",
         "Switching a head off and measuring what breaks is evidence of whether the model needs it; a pattern "
         "alone is not.",
         "The exact match lost when each head alone is off.",
         "app_pages/lab_ablation.py", "Switch heads off", 5),
    Step(10, "How the model reverses",
         "Without encoder self-attention this model almost never reverses exactly; one reading, tested on How it "
         "reverses, is that this is where it learns the text's length, which it needs to start at the end.",
         "What the model writes with every encoder head switched off.",
         "app_pages/how_it_reverses.py", "How it reverses", 4),
)
INTRODUCTION_MINUTES, WRAP_UP_MINUTES = 3, 3
assert INTRODUCTION_MINUTES + sum(s.minutes for s in STEPS) + WRAP_UP_MINUTES == 50
