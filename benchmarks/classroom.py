"""A classroom of 30 sessions on one server, each typing new words for a bounded time.

    python -m benchmarks.classroom [--sessions 30] [--seconds 60] [--clients protocol,browser] [--pause 0]
                                   [--replicas 1,2 | --url URL | --against REF]

Sessions are spread over every page of the app. Two kinds of client, each against a fresh server:
- protocol: Streamlit's websocket protocol spoken from Python (drivers.protocol_session). A class brings
  its own browsers, so this is the server's share: rerun requested to script finished, nothing drawn.
- browser: a headless Chromium context per session, typing into the text box and waiting for the page to
  settle with every chart drawn. Here 30 tabs render on the server's own 2 cores: the machine saturated.
Each session types its next word as soon as the last one is drawn, or, with --pause P, after reading it for
a random 0.5 P to 1.5 P seconds (a class that looks at the result). Prints p50 and p95 interaction latency,
the number of errors (an exception shown, the sidebar not showing the word's reversal, or a wait that timed
out), the server's peak resident memory (VmHWM), and the cores the server processes and the Python clients
each kept busy (CPU seconds over wall seconds: on this 2-core machine the clients take their share too).

The server is a fresh `streamlit run app.py`; with --replicas 1,2 it is `scripts/serve.sh` with each number
of replicas behind HAProxy in turn (the same clients, one after the other, each replica's peak memory
printed); with --url, a server already running (no memory figure). With --against REF, REF (checked out in a
temporary git worktree, served with its own pinned packages) and the working tree each serve the same class on a
fresh server in turn, REF, working tree, working tree, REF, so that a drift of the machine falls on both alike;
then the ratios of answers, each pair's new over old and the four's.

Writes docs/records/classroom.json.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import statistics
import time
from pathlib import Path

from playwright.async_api import async_playwright

from benchmarks.record import write_record
from drivers.harness import CHROMIUM, CHROMIUM_ARGS, ROOT, RUN_MARK, start_server, stop_server, wait_for_run_async
from drivers.replicas import start_replicas, stop_replicas

from drivers.words import new_word
from explorer.pages import PAGES as REGISTRY
from drivers.protocol_session import ProtocolSession

from drivers.versions import checked_out, ready, start as serve_tree

PAGES = [p.url_path for p in REGISTRY]  # url paths of every page, "" for home
TIMEOUT_MS = 120_000


def describe(err: Exception) -> str:
    """An error's type and first line (a timeout's message is empty)."""
    first_line = str(err).splitlines()[0][:120] if str(err) else ""
    return f"{type(err).__name__}: {first_line}"


def peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds a process has used so far (/proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def open_session(browser, url: str, path: str):
    context = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await context.new_page()
    await page.add_init_script(f"({RUN_MARK})()")   # counting from the document's start (drivers.harness.open_page)
    await page.goto(f"{url}/{path}", timeout=TIMEOUT_MS)
    await wait_for_run_async(page, [0, 0, 0], TIMEOUT_MS)
    return context, page


async def student(page, path: str, seed: int, stop_at: float, pause: float, latencies: list, errors: list) -> None:
    rng = random.Random(seed)
    while time.monotonic() < stop_at:
        await asyncio.sleep(pause * rng.uniform(0.5, 1.5))
        word = new_word(rng)
        start = time.perf_counter()
        try:
            mark = await page.evaluate(RUN_MARK)      # the runs ended so far
            box = page.get_by_role("textbox", name="Your text")
            await box.fill(word, timeout=TIMEOUT_MS)
            await box.press("Enter")
            await wait_for_run_async(page, mark, TIMEOUT_MS)
            latencies.append(time.perf_counter() - start)
            if await page.locator("[data-testid='stException']").count():
                errors.append(f"{path}: exception on screen for {word!r}")
            if word[::-1] not in await page.get_by_test_id("stSidebar").inner_text():
                errors.append(f"{path}: sidebar does not show the reversal of {word!r}")
        except Exception as err:  # noqa: BLE001 - counted and reported, the run goes on
            errors.append(f"{path}: {describe(err)}")


async def browsers(url: str, sessions: int, seconds: float, pause: float, mark) -> tuple[list, list]:
    latencies: list[float] = []
    errors: list[str] = []
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        paths = [PAGES[i % len(PAGES)] for i in range(sessions)]
        opened = []
        for start in range(0, sessions, 5):  # open the class five at a time, then start the clock
            opened += await asyncio.gather(*(open_session(browser, url, path) for path in paths[start:start + 5]))
        mark()
        stop_at = time.monotonic() + seconds
        await asyncio.gather(*(student(page, path, i, stop_at, pause, latencies, errors)
                               for i, ((_, page), path) in enumerate(zip(opened, paths))))
        for context, _ in opened:
            await context.close()
        await browser.close()
    return latencies, errors


async def protocol_student(url: str, path: str, seed: int, stop_at: float, pause: float, latencies: list,
                           errors: list) -> None:
    rng = random.Random(seed)
    session = ProtocolSession(url, path)
    await session.open()
    while time.monotonic() < stop_at:
        await asyncio.sleep(pause * rng.uniform(0.5, 1.5))
        word = new_word(rng)
        try:
            answer = await asyncio.wait_for(session.type(word), TIMEOUT_MS / 1000)
        except Exception as err:  # noqa: BLE001 - counted and reported, the run goes on
            errors.append(f"{path}: {describe(err)}")
            break
        latencies.append(answer.seconds)
        errors += [f"{path}: {e[:120]} for {word!r}" for e in answer.exceptions]
        if answer.model_writes != word[::-1]:
            errors.append(f"{path}: the sidebar does not show the reversal of {word!r}")
    await session.close()


async def protocol_clients(url: str, sessions: int, seconds: float, pause: float, mark) -> tuple[list, list]:
    latencies: list[float] = []
    errors: list[str] = []
    for path in PAGES:  # each page once first, as a class's first students would (a lab table is built once)
        session = ProtocolSession(url, path)
        await session.open()
        await session.close()
    mark()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(protocol_student(url, PAGES[i % len(PAGES)], i, stop_at, pause, latencies, errors)
                           for i in range(sessions)))
    return latencies, errors


CLIENTS = {"protocol": protocol_clients, "browser": browsers}


@contextlib.contextmanager
def serving(kind: str, replicas: int | None, url: str | None, root: tuple[str, Path] | None = None):
    """(what serves, its URL, the server processes' ids) while it runs; `root`: (its name, a tree to serve)."""
    if url:
        yield f"the server at {url}", url, []
    elif root:
        process, port = serve_tree(root[1])
        try:
            ready([(process, port)])
            yield f"one server of {root[0]}", f"http://127.0.0.1:{port}", [process.pid]
        finally:
            stop_server(process)
    elif replicas:
        served = start_replicas(replicas, ROOT / "artifacts" / f"classroom-{kind}-{replicas}-replicas")
        try:
            yield f"{replicas} replica{'s' if replicas > 1 else ''} behind HAProxy", served.url, served.pids()
        finally:
            stop_replicas(served)
    else:
        process, url = start_server(f"classroom-{kind}-server.log")
        try:
            yield "one server", url, [process.pid]
        finally:
            stop_server(process)


def one_class(kind: str, args: argparse.Namespace, count: int | None = None,
              root: tuple[str, Path] | None = None) -> dict:
    """Serve, let the class work, print what it measured; the figures printed (their "interactions": the number
    of answers)."""
    with serving(kind, count, args.url, root) as (what, url, pids):
        clock: dict = {}   # when the clock starts, after the warm-up: the wall clock and CPU seconds so far

        def mark() -> None:
            clock.update(wall=time.monotonic(), clients=time.process_time(), servers=[cpu_seconds(pid) for pid in pids])

        latencies, errors = asyncio.run(CLIENTS[kind](url, args.sessions, args.seconds, args.pause, mark))
        wall = time.monotonic() - clock["wall"]
        clients_cores = (time.process_time() - clock["clients"]) / wall
        servers_cores = [(cpu_seconds(pid) - before) / wall for pid, before in zip(pids, clock["servers"])]
        peaks = [peak_mb(pid) for pid in pids]
    ordered = sorted(latencies)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))] if ordered else float("nan")
    print(f"{kind} clients: {args.sessions} sessions over {len(PAGES)} pages for {args.seconds:.0f} s on "
          f"{what}, pausing {args.pause:g} s on average: {len(latencies)} interactions "
          f"({len(latencies) / args.seconds:.1f}/s), {len(errors)} errors", flush=True)
    if latencies:
        print(f"  interaction latency: p50 {statistics.median(latencies):.2f} s, p95 {p95:.2f} s")
    if peaks:
        print("  peak resident memory: " + ", ".join(f"{peak:.0f} MB" for peak in peaks))
        print(f"  cores busy over the {wall:.0f} s: server{'s' if len(pids) > 1 else ''} "
              + ", ".join(f"{cores:.2f}" for cores in servers_cores)
              + f"; the Python clients {clients_cores:.2f}"
              + (" (the browsers not counted)" if kind == "browser" else ""))
    for error in errors[:5] + errors[-5:]:
        print("  error:", error)
    row = {"clients": kind, "server": what, **({"tree": root[0]} if root else {}),
           **({"replicas": count} if count and not args.url else {}), "interactions": len(latencies),
           "interactions/s": round(len(latencies) / args.seconds, 1), "errors": len(errors)}
    if latencies:
        row.update({"p50 s": round(statistics.median(latencies), 2), "p95 s": round(p95, 2)})
    if peaks:
        row.update({"peak MB": [round(peak) for peak in peaks], "cores busy over s": round(wall),
                    "server cores": [round(cores, 2) for cores in servers_cores],
                    "Python client cores": round(clients_cores, 2)})
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", default=",".join(CLIENTS), help="comma-separated: protocol, browser")
    parser.add_argument("--pause", type=float, default=0.0, help="mean seconds a session reads before typing again")
    parser.add_argument("--replicas", help="comma-separated replica counts behind HAProxy, measured in turn")
    parser.add_argument("--url", help="a server already running, instead of a fresh one")
    parser.add_argument("--against", metavar="REF", help="a git ref: it and the working tree in turn, old-new-new-old")
    args = parser.parse_args()
    if args.against and (args.url or args.replicas):
        parser.error("--against serves each tree itself: not with --url or --replicas")
    counts = [int(n) for n in args.replicas.split(",")] if args.replicas else [None]
    rows, ratios = [], []
    for kind in args.clients.split(","):
        if args.against:
            with checked_out(args.against) as other:
                trees = {"old": (args.against, other), "new": ("the working tree", ROOT)}
                answers = []
                for turn, name in enumerate(("old", "new", "new", "old"), start=1):
                    rows.append({"turn": turn, **one_class(kind, args, root=trees[name])})
                    answers.append(rows[-1]["interactions"])
            if 0 in (answers[0], answers[3]):
                print(f"answers {answers}: {args.against} answered none in a round, so no ratio")
                ratios.append({"clients": kind, "answers": answers})
                continue
            old, new = answers[0] + answers[3], answers[1] + answers[2]
            print(f"answers, new / old: {answers[1] / answers[0]:.2f} × (the first pair), "
                  f"{answers[2] / answers[3]:.2f} × (the second), {new / old:.2f} × "
                  "(all four: a drift of the machine that is steady over them cancels)")
            ratios.append({"clients": kind, "answers": answers, "the first pair": round(answers[1] / answers[0], 2),
                           "the second": round(answers[2] / answers[3], 2), "all four": round(new / old, 2)})
        else:
            for count in counts:
                rows.append(one_class(kind, args, count))
    figures = {"sessions": args.sessions, "pages": len(PAGES), "seconds": args.seconds, "pause s": args.pause,
               "rows": rows}
    if args.against:
        figures["answers, new / old"] = ratios
    write_record("classroom", figures)


if __name__ == "__main__":
    main()
