"""The other learner of the hostile tests, in a process of its own (drivers.hostile.Typist starts it): types a
new random word of WORD_LENGTH letters every second on one page over Streamlit's protocol and prints each answer as a JSON line,
{"seconds": time to the answer, "wrong": "" or what was wrong with it}, until its standard input closes.

    python -m drivers.typist URL SEED PAGE
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import threading

from drivers.protocol_session import ProtocolSession

WORD_LENGTH = 12   # one length, so that every answer costs the same: answers alone and during an attack compare


async def type_words(url: str, seed: int, page: str, stop: threading.Event) -> None:
    session = ProtocolSession(url, page)
    await session.open()
    rng = random.Random(seed)          # typists with different seeds type different words (no cache hits)
    while not stop.is_set():
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(WORD_LENGTH))
        answer = await session.type(word)
        wrong = ""
        if answer.exceptions or answer.model_writes != word[::-1]:
            wrong = f"{word}: {answer.model_writes} {answer.exceptions}"
        print(json.dumps({"seconds": answer.seconds, "wrong": wrong}), flush=True)
        await asyncio.sleep(max(0.0, 1.0 - answer.seconds))
    await session.close()


def main(url: str, seed: str, page: str) -> None:
    stop = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    asyncio.run(type_words(url, int(seed), page, stop))


if __name__ == "__main__":
    main(*sys.argv[1:])
