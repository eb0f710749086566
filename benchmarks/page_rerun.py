"""Server-side cost of a full rerun of each page for a 24-character input, under AppTest.

    python -m benchmarks.page_rerun [--repeats 15]

"cold" clears the cached runs (explorer.cache.clear_runs) and st.cache_data before every run, so it pays for the model runs and the figures;
"warm" is a rerun with the model's numbers cached (moving a slider that changes no input), so it pays
for the figures and the page. The shared model itself is loaded once (st.cache_resource) in both.

Writes docs/records/page_rerun.json.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import streamlit as st
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from benchmarks.record import write_record  # noqa: E402
from explorer.cache import clear_runs  # noqa: E402
PAGES = ["home", "decode", "attention", "positional", "masks"]
TEXT = "the quick brown fox jump"  # 24 characters, the model's limit


def timed_runs(page: str, repeats: int, cold: bool) -> list[float]:
    at = AppTest.from_file(str(ROOT / "app_pages" / f"{page}.py"), default_timeout=300)
    at.session_state["text"] = TEXT
    at.run()
    times = []
    for _ in range(repeats):
        if cold:
            st.cache_data.clear()
            clear_runs()
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
        assert not at.exception, [e.value for e in at.exception]
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    assert len(TEXT) == 24
    print(f"full rerun of each page for {TEXT!r} (24 characters); medians of {args.repeats} runs (ms)")
    print(f"{'page':<12} {'cold':>8} {'warm':>8} {'cold/warm':>10}")
    rows = []
    for page in PAGES:
        cold = statistics.median(timed_runs(page, args.repeats, cold=True))
        warm = statistics.median(timed_runs(page, args.repeats, cold=False))
        print(f"{page:<12} {cold * 1e3:>8.1f} {warm * 1e3:>8.1f} {cold / warm:>10.2f}")
        rows.append({"page": page, "cold ms": round(cold * 1e3, 1), "warm ms": round(warm * 1e3, 1),
                     "cold/warm": round(cold / warm, 2)})
    write_record("page_rerun", {"text": TEXT, "medians of": args.repeats, "rows": rows})


if __name__ == "__main__":
    main()
