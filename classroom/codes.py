"""Join codes, the teacher's secret, seat tokens and nicknames: what a person types or holds in a link."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import unicodedata

from .errors import BadNickname

# No look-alikes: no 0/O, 1/I/L; upper case only, so a code read aloud or off a projector is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 6
SECRET_BYTES = 24          # 192 random bits in the teacher's link (at least 128 asked for)
NICKNAME_MAX = 24          # characters
CODE_LABEL = "Class code (on the teacher's screen)"                         # the join form's boxes
NICKNAME_LABEL = f"Nickname (optional, up to {NICKNAME_MAX} characters)"


def new_join_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(typed: str) -> str:
    """What a student typed, as a code: spaces and dashes dropped, upper case (no code holds 0, O, 1, I or L,
    so a look-alike typed fails as any wrong code does)."""
    return "".join(c for c in typed.upper() if c not in " -\t")[: CODE_LENGTH * 2]


def is_code(code: str) -> bool:
    """Whether a (normalised) string could be a join code at all: asked before the store is."""
    return len(code) == CODE_LENGTH and set(code) <= set(CODE_ALPHABET)


def new_secret() -> str:
    """A URL-safe secret: the teacher's link, or a student's seat token."""
    return secrets.token_urlsafe(SECRET_BYTES)


def digest(secret: str) -> str:
    """What the store keeps of a secret: its SHA-256 (a random secret of 192 bits needs no slow hash)."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def keyed_digest(key: bytes, kind: str, value: str) -> str:
    """What the store keeps of a browser's key or an address: an HMAC under the server's key, so a reader of the
    database cannot test guesses against it (all IPv4 addresses are 2^32 guesses for a plain hash)."""
    return hmac.new(key, f"{kind}\n{value}".encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def seat_token_of(key: bytes, code: str, browser: str) -> str:
    """A browser's seat token in one class: derived from the browser's key, not drawn, so that the store can hand
    the seat back to any tab of that browser, on any replica, while keeping only the token's digest."""
    mac = hmac.new(key, f"seat\n{code}\n{browser}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:SECRET_BYTES]).decode()


def teacher_secret_of(key: bytes, code: str, browser: str) -> str:
    """The teacher's secret of a class started from a browser: derived as a seat token is, so that the browser
    gets the class back after a reload or a replica's death, on any replica, while the store keeps its digest
    only. The private link holds the same secret, for another device."""
    mac = hmac.new(key, f"teacher\n{code}\n{browser}".encode("utf-8", "surrogatepass"), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:SECRET_BYTES]).decode()


def matches(secret: str, stored_digest: str) -> bool:
    """Constant-time comparison of a secret with a stored digest."""
    return hmac.compare_digest(digest(secret), stored_digest)


def given_name(number: int) -> str:
    """The name of a seat whose student typed none."""
    return f"Student {number}"


def is_given_name(name: str) -> bool:
    """Whether a name reads as one the store gives ("student 17", "STUDENT 3"): nobody may type one, so a
    typed name never passes for another seat's."""
    head, _, tail = name.casefold().partition(" ")
    return head == "student" and tail.isdecimal()


def same_name(a: str, b: str) -> bool:
    """Two nicknames a class would take for one person: equal but for case (cleaned: spaces squeezed, NFC)."""
    return a.casefold() == b.casefold()


def clean_nickname(typed: str) -> str:
    """A nickname as stored and shown: control and format characters dropped, spaces squeezed, at most
    NICKNAME_MAX characters; empty when nothing printable was typed (the store then names the seat "Student 17"). Markup is kept as text: every screen
    escapes it and the CSV neutralises formulas."""
    kept = "".join(c for c in unicodedata.normalize("NFC", typed) if unicodedata.category(c)[0] != "C")
    name = " ".join(kept.split())
    if len(name) > NICKNAME_MAX:
        raise BadNickname(f"A nickname has at most {NICKNAME_MAX} characters; this one has {len(name)}.")
    return name
