"""Characters <-> token ids, and the errors a learner sees for input the model cannot take.

Ids: PAD=0, SOS=1, EOS=2 (three distinct symbols), then space and a-z.
The source is the characters alone; the decoder reads SOS + reversal and must emit reversal + EOS.
"""

from __future__ import annotations

from dataclasses import dataclass

PAD, SOS, EOS = 0, 1, 2
SPECIALS = ("<pad>", "<sos>", "<eos>")
CHARACTERS = " abcdefghijklmnopqrstuvwxyz"


class InputError(ValueError):
    """Base class: text the model cannot encode. The message is written for a learner."""


class EmptyInputError(InputError):
    def __init__(self) -> None:
        super().__init__("The text is empty: type a word of letters a-z, for example 'hello'.")


class UnknownCharacterError(InputError):
    """Characters outside the model's alphabet and space; `found` lists (position, character), positions from 1."""

    def __init__(self, found: list[tuple[int, str]], letters: str = CHARACTERS[1:]) -> None:
        self.found = found
        listed = ", ".join(f"{ch!r} at position {pos}" for pos, ch in found[:10])
        if len(found) > 10:
            listed += f" and {len(found) - 10} more"
        hint = ""
        if any(ch.isupper() and ch.lower() in letters for _, ch in found):
            hint = " Uppercase letters can be lowercased first."
        known = "the letters a-z" if letters == CHARACTERS[1:] else f"the characters {letters}"
        super().__init__(f"The model only knows {known} and the space. It cannot read {listed}.{hint}")


class InputTooLongError(InputError):
    def __init__(self, length: int, limit: int) -> None:
        self.length, self.limit = length, limit
        super().__init__(
            f"The text has {length} characters; this model reads at most {limit}. Shorten it by {length - limit}."
        )


class SpacingError(InputError):
    def __init__(self) -> None:
        super().__init__(
            "Spaces may only stand alone between letters: no leading, trailing or double spaces."
        )


@dataclass(frozen=True)
class CleanedText:
    """Text made acceptable by lowercasing and tidying spaces, with a note of each change made."""

    text: str
    notices: tuple[str, ...]


@dataclass(frozen=True)
class Vocab:
    characters: str = CHARACTERS

    @property
    def tokens(self) -> tuple[str, ...]:
        return SPECIALS + tuple(self.characters)

    @property
    def letters(self) -> str:
        """The alphabet: every character but the space."""
        return self.characters.replace(" ", "")

    @property
    def size(self) -> int:
        return len(SPECIALS) + len(self.characters)

    def token(self, token_id: int) -> str:
        return self.tokens[token_id]

    def check(self, text: str, max_len: int) -> None:
        """Raise the InputError that says what is wrong with `text`, or return quietly."""
        if not text:
            raise EmptyInputError()
        unknown = [(i + 1, ch) for i, ch in enumerate(text) if ch not in self.characters]
        if unknown:
            raise UnknownCharacterError(unknown, self.letters)
        if text.startswith(" ") or text.endswith(" ") or "  " in text:
            raise SpacingError()
        if len(text) > max_len:
            raise InputTooLongError(len(text), max_len)

    def encode(self, text: str, max_len: int) -> list[int]:
        """Character ids of `text` (no SOS/EOS: the source is the characters alone)."""
        self.check(text, max_len)
        offset = len(SPECIALS)
        return [offset + self.characters.index(ch) for ch in text]

    def encode_output(self, text: str, max_len: int) -> list[int]:
        """Character ids of a task's output. Only a source must have single inner spaces: sorting puts every
        space first ("a b c" -> "  abc"), so an output is checked for its characters and length alone."""
        if any(ch not in self.characters for ch in text) or len(text) > max_len:
            self.check(text, max_len)   # raises the error that says which
        offset = len(SPECIALS)
        return [offset + self.characters.index(ch) for ch in text]

    def decode(self, ids: list[int]) -> str:
        """Characters of ids, stopping at EOS; PAD and SOS are skipped."""
        out = []
        for i in ids:
            if i == EOS:
                break
            if i >= len(SPECIALS):
                out.append(self.characters[i - len(SPECIALS)])
        return "".join(out)

    def clean(self, text: str) -> CleanedText:
        """Lowercase and tidy spaces, saying what changed, so nothing is changed silently. An alphabet that
        holds capitals of its own keeps them: only characters it does not know are lowercased."""
        notices = []
        if self.characters == self.characters.lower():
            lowered = text.lower()
        else:
            lowered = "".join(c if c in self.characters else c.lower() for c in text)
        if lowered != text:
            notices.append("Uppercase letters were lowercased.")
        tidy = " ".join(part for part in lowered.split(" ") if part)
        if tidy != lowered:
            notices.append("Leading, trailing or repeated spaces were removed.")
        return CleanedText(tidy, tuple(notices))
