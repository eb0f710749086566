"""Run one text through a checkpoint (reverse, copy or sort it), or say clearly why it cannot.

    python -m transformer.predict hello [--task sort] [--checkpoint DIR]

--task picks the bundled checkpoint of that task; with --checkpoint, the task is the one its config.json names,
and a --task that differs is refused.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .checkpoint import CheckpointError, MismatchedCheckpointError, bundled_checkpoint, load
from .data import TASKS
from .decoding import generate
from .vocab import InputError



def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("text")
    parser.add_argument("--task", choices=list(TASKS), help="the task (default: reverse, or the checkpoint's own)")
    parser.add_argument("--checkpoint", type=Path, help="a checkpoint directory (default: the bundled one of --task)")
    args = parser.parse_args(argv)
    directory = args.checkpoint or bundled_checkpoint(args.task or "reverse")
    try:
        ckpt = load(directory)
        if args.task and args.task != ckpt.task:
            raise MismatchedCheckpointError(f"{directory} was trained to {ckpt.task} (its config.json says so), "
                                            f"not to {args.task}")
        src = ckpt.vocab.encode(args.text, ckpt.model.config.max_len)
    except (CheckpointError, InputError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(ckpt.vocab.decode(generate(ckpt.model, src)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
