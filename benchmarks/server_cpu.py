"""The server's CPU time for a new word on each page, two versions of the app side by side.

    python -m benchmarks.server_cpu --against 7134e04 [--words 15] [--page all]

Both versions are served at once (drivers.versions.served_pair). On each page a session of each (Streamlit's
websocket protocol, drivers.protocol_session: nothing drawn) types the same new words in turn, one server first
then the other; each server process's CPU seconds are read from /proc before a page's first word and after its
last (the kernel counts them in 10 ms ticks: ±10 ms over the page's words, ±0.7 ms a word at 15). This is what a
class costs the server per answer, page by page, without a class's queueing: with every page equally visited
and the server's time shared fairly, a class's answers per second are about 1 / (the mean over pages).
Prints each page's mean CPU milliseconds per word for both (the working tree's list of pages: the other version
must serve them too), their ratio, and the mean over pages.

Writes docs/records/server_cpu.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from benchmarks.record import write_record
from drivers.protocol_session import ProtocolSession
from drivers.words import new_word
from explorer.pages import PAGES

from drivers.versions import served_pair
from .classroom import cpu_seconds


async def per_page(servers: dict, path: str, words: int, seed: int) -> dict[str, float]:
    """Mean CPU seconds per new word on `path`, for each server."""
    sessions = {}
    for name, (_, port) in servers.items():
        sessions[name] = ProtocolSession(f"http://127.0.0.1:{port}", path)
        await sessions[name].open()
        await sessions[name].type("warmup")        # the page's first run (its tables, its models) not counted
    before = {name: cpu_seconds(process.pid) for name, (process, _) in servers.items()}
    rng = random.Random(seed)
    for i in range(words):
        word = new_word(rng)
        for name in (list(servers) if i % 2 == 0 else list(servers)[::-1]):
            answer = await sessions[name].type(word)
            if answer.exceptions or answer.model_writes is None:
                raise RuntimeError(f"{name} /{path}: {answer.exceptions or 'no answer in the sidebar'} for {word!r}")
    await asyncio.sleep(0.2)                       # what a server does after its last answer (its clean-up)
    used = {name: cpu_seconds(process.pid) - before[name] for name, (process, _) in servers.items()}
    for session in sessions.values():
        await session.close()
    return {name: total / words for name, total in used.items()}


def wait_until_idle(servers: dict, seconds: float = 120) -> None:
    """Until neither server used more than 20 ms of CPU in a second: their warm-ups (the models, the stored tables)
    done, so the first page's words do not pay for them."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        before = [cpu_seconds(process.pid) for process, _ in servers.values()]
        time.sleep(1)
        if all(cpu_seconds(process.pid) - b <= 0.02 for (process, _), b in zip(servers.values(), before)):
            return
    raise RuntimeError(f"the servers were still busy after {seconds:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--against", required=True, help="a git ref to compare the working tree with")
    parser.add_argument("--words", type=int, default=15, help="new words typed on each page of each server")
    parser.add_argument("--page", default="all", help="url paths separated by commas ('' for home), or 'all'")
    args = parser.parse_args()
    paths = [p.url_path for p in PAGES] if args.page == "all" else args.page.split(",")
    with served_pair(args.against) as servers:
        wait_until_idle(servers)
        rows = {path: asyncio.run(per_page(servers, path, args.words, seed)) for seed, path in enumerate(paths)}
    old, new = args.against, "working tree"
    print(f"server CPU ms per new word (a class's words, mean of {args.words} a page, each server in turn)")
    print(f"{'page':<26} {old[:10]:>10} {'new':>8} {'new/old':>8}")
    table = []
    for path, cpu in rows.items():
        print(f"/{path:<25} {cpu[old] * 1000:>10.1f} {cpu[new] * 1000:>8.1f} {cpu[new] / cpu[old]:>8.2f}")
        table.append({"page": f"/{path}", "against": old, "old ms": round(cpu[old] * 1000, 1),
                      "new ms": round(cpu[new] * 1000, 1), "new/old": round(cpu[new] / cpu[old], 2)})
    mean_old = statistics.mean(r[old] for r in rows.values())
    mean_new = statistics.mean(r[new] for r in rows.values())
    print(f"{'mean over pages':<26} {mean_old * 1000:>10.1f} {mean_new * 1000:>8.1f} {mean_new / mean_old:>8.2f}"
          f"   (1 / mean: {1 / mean_old:.1f} against {1 / mean_new:.1f} answers per CPU second)")
    write_record("server_cpu", {
        "new words a page": args.words, "rows": table,
        "mean over pages": {"against": old, "old ms": round(mean_old * 1000, 1), "new ms": round(mean_new * 1000, 1),
                            "new/old": round(mean_new / mean_old, 2),
                            "old answers per CPU second": round(1 / mean_old, 1),
                            "new answers per CPU second": round(1 / mean_new, 1)}})


if __name__ == "__main__":
    main()
