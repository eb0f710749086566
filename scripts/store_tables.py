"""Store the lab's whole-sample tables of each bundled checkpoint beside its weights (analysis.table_store).

    python -m scripts.store_tables            # every task: a few minutes on one core

Opens every page of the registry under each task, as a learner's first visit does (and the lesson's steps 8,
9, 12 and 13, which ask for the lesson's own tables, step 8 also on a text whose forced character is 'q'), through Streamlit's AppTest, so the tables stored are exactly
those the pages' default views ask for; then writes what each checkpoint's pages computed. Run it again
whenever tests/unit/test_table_store.py says a file is stale (the weights or the code behind the tables
changed): until then the server computes each table itself, as it did before the files existed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from analysis import table_store  # noqa: E402
from drivers.app_test import open_page  # noqa: E402
from explorer.cache import SHARED_TABLES  # noqa: E402
from explorer.pages import BY_ID  # noqa: E402
from transformer.checkpoint import bundled_checkpoint  # noqa: E402
from transformer.data import TASKS  # noqa: E402

TEXT = "hello"
LESSON_TABLE_STEPS = (8, 9, 12, 13)  # the lesson's steps that read whole-sample tables
ENDS_IN_Z = "jazz"            # step 8 forces 'q' instead of 'z' when the reversal starts with 'z': its own table


def visit(page: str, state: dict, text: str = TEXT) -> None:
    at = open_page(page, text, state=state, timeout=900)
    if at.exception:
        raise SystemExit(f"{page} under {state}: {[e.value for e in at.exception]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", choices=TASKS, action="append", help="only these tasks (default: every one)")
    tasks = parser.parse_args().task or list(TASKS)
    torch.set_num_threads(1)                    # as the server runs
    for task in tasks:
        start = time.perf_counter()
        for page in BY_ID:
            visit(page, {"task": task})
        if task == "reverse":                   # the lesson is built on the reversal model
            for step in LESSON_TABLE_STEPS:
                visit("lesson", {"task": task, "lesson_step": step})
            visit("lesson", {"task": task, "lesson_step": 8}, ENDS_IN_Z)
        directory = bundled_checkpoint(task)
        tables = {(group, args[1:]): value for (group, args), value in SHARED_TABLES.items()
                  if args and args[0] == str(directory)}
        path = table_store.write(directory, tables)
        print(f"{task}: {len(tables)} tables in {path.relative_to(ROOT)} "
              f"({path.stat().st_size / 1024:.0f} kB, {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
