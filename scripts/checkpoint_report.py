"""The table of the bundled checkpoints in docs/how-the-model-works.md, read from their metrics.json (nothing is
re-measured here).

    python scripts/checkpoint_report.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from analysis.tasks import words  # noqa: E402
from transformer.checkpoint import bundled_checkpoint  # noqa: E402
from transformer.data import TASKS  # noqa: E402


def row(task: str) -> str:
    directory = bundled_checkpoint(task)
    m = json.loads((directory / "metrics.json").read_text())
    held = m["held_out"]
    per_length = {int(n): share for n, share in held["per_length"].items()}
    below = {n: s for n, s in per_length.items() if s < 1}
    shares = m["cross_attention_alignment"]
    layer, head, best = max(((layer, h, s) for layer, row_ in shares.items() for h, s in enumerate(row_)),
                            key=lambda x: x[2])
    size = sum(f.stat().st_size for f in directory.rglob("*") if f.is_file())
    return (f"| {task} | {m['steps']:,} | {m['train_seconds']:,.0f} s + {m['recording_seconds']:,.0f} s | "
            f"**{held['exact_match']:.2%}** | {min(per_length.values()):.1%} at {min(per_length, key=per_length.get)}"
            f" | {', '.join(f'{n}: {s:.1%}' for n, s in below.items()) or 'none'} | "
            f"{best:.1%} ({layer.replace('layer_', 'L')} H{head}) on {words(task).pattern} ({words(task).short_rule}) | "
            f"{size / 2**20:.1f} MB |")


def main() -> None:
    print("| task | steps | training + recording | exact match, 10,000 held-out | worst length | lengths below 100 % "
          "| best cross head's share of steps on the task's pattern | size |")
    print("|---|---|---|---|---|---|---|---|")
    for task in TASKS:
        print(row(task))


if __name__ == "__main__":
    main()
