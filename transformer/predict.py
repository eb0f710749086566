"""Reverse one text with a checkpoint, or say clearly why it cannot.

    python -m transformer.predict hello [--checkpoint checkpoints/word_reversal]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .checkpoint import CheckpointError, load
from .decoding import generate
from .vocab import InputError

DEFAULT_CHECKPOINT = Path(__file__).resolve().parent.parent / "checkpoints" / "word_reversal"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("text")
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_CHECKPOINT)
    args = parser.parse_args(argv)
    try:
        ckpt = load(args.checkpoint)
        src = ckpt.vocab.encode(args.text, ckpt.model.config.max_len)
    except (CheckpointError, InputError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(ckpt.vocab.decode(generate(ckpt.model, src)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
