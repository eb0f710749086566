"""A class voting at once: protocol-level students join a class on a real server and vote within a few seconds;
a protocol-level teacher polls the count as the teacher's page does.

    python -m benchmarks.class_vote [--students 60,200] [--backends sqlite,postgresql] [--window 10]
    python -m benchmarks.class_vote --kill-teachers-replica --students 60


For each database (a SQLite file, or a PostgreSQL server of its own from drivers/postgres.py) and class size:
one `streamlit run app.py` pointed at it by EXPLORER_DATABASE_URL; the class is made and voting opened in the
store; every student opens Join a class with the code, joins (the form, as a browser sends it), then votes at a
random moment in the window by pressing an option's button; everyone, teacher included, reruns the page's
fragment at its page's interval as the browser's timer does. Prints votes the students were told were stored, votes in
the database, lost and double-counted ones, the p50 and p95 seconds from a student being told "your vote is
in" to the teacher's screen counting it (the teacher's page polls every 1.5 s, a student's every 3 s), and the
server's CPU with 60 joined students, idle and then polling (no votes), as a share of one core (the
PostgreSQL server's own CPU is not counted). Writes docs/records/class_vote.json.

With --kill-teachers-replica: two replicas behind HAProxy (scripts/serve.sh); the teacher starts the class on the
presenter page and opens voting; halfway through the vote the teacher's own replica is killed with SIGKILL.
Everyone whose socket closed reconnects as Streamlit's client does. Prints, besides the above, how many students
were dropped and came back to their seat, the seconds until the teacher's page showed the class again (no link
kept: the browser's own key), the p95 of the votes after the kill, and what serve.sh said. Writes
docs/records/class_vote_killed_replica.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import re
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from urllib.parse import parse_qs

import websockets

from classroom.database import make_engine, migrate
from classroom.store import ClassStore
from benchmarks.record import write_record
from drivers.harness import ROOT, _free_port, stop_server, wait_until_healthy
from drivers.postgres import temporary_postgres
from drivers.protocol_session import Answer, ProtocolSession, joined
from drivers.replicas import COOKIE as REPLICA_COOKIE, Replicas, start_replicas, stop_replicas
from explorer.classes import CLASS_MODEL_KEY
from explorer.lesson import question
from explorer.pages import page

POLL_S = 1.5               # how long a session waits before its first poll; then each its page's own interval
POLL_TIMEOUT_S = 30        # a poll the server never finishes counts as stuck, and the client polls on
STUCK: list[str] = []      # which kind of session a stuck poll came from
VOTED = re.compile(r"(\d+) of (\d+) voted")
LOCKED_OUT = "controls a class only after"   # what the presenter page says to a browser that is not the teacher's


def server_with(url: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
         str(port), "--server.address", "127.0.0.1"], cwd=ROOT, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env={**os.environ, "EXPLORER_DATABASE_URL": url})
    address = f"http://127.0.0.1:{port}"
    if not wait_until_healthy(address, process, 120):
        process.kill()
        raise RuntimeError("the server did not start")
    return process, address


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def interval(session: ProtocolSession) -> float:
    """The page's own polling interval (its shortest timed fragment), as the browser's timer keeps it."""
    return min(session.fragments.values(), default=POLL_S)


async def poll(session: ProtocolSession, who: str):
    try:
        return await asyncio.wait_for(session.poll(), POLL_TIMEOUT_S)
    except asyncio.TimeoutError:
        STUCK.append(who)
        return None


async def teacher_watch(session: ProtocolSession, stop: asyncio.Event, seen: list[tuple[float, int]]) -> None:
    """Poll as the teacher's page does; note (time, votes counted) at every poll."""
    while not stop.is_set():
        answer = await poll(session, "teacher")
        for line in answer.markdown if answer else ():
            found = VOTED.search(line)
            if found:
                seen.append((time.perf_counter(), int(found.group(1))))
        await asyncio.sleep(interval(session))


async def student(url: str, code: str, n: int, options: tuple[str, ...], window: float, start: float,
                  told: list[float], stop: asyncio.Event, rng: random.Random) -> tuple[bool, str | None]:
    """Join, vote once in the window, poll until told to stop: (seated, the option the page said was stored)."""
    session = await joined(url, code, f"s{n}")
    if "seat=" not in session.query:
        await session.close()
        return False, None
    await asyncio.sleep(max(0.0, start + rng.uniform(0, window) - time.perf_counter()))
    label = next(l for l in session.widget_ids if l.replace("\\", "") == options[n % len(options)])
    answer = await session.press(label)
    said = None
    if any("Your vote is in" in m for m in answer.markdown):
        told.append(time.perf_counter())
        said = options[n % len(options)]
    while not stop.is_set():
        await poll(session, "student")
        await asyncio.sleep(interval(session))
    await session.close()
    return True, said


async def wind_down(tasks: list, watching: asyncio.Task, teacher: ProtocolSession, stop: asyncio.Event,
                    told: list[float], students: int, window_end: float) -> list:
    """Once every student was told the vote is in (or two minutes past the window), let the last polls land,
    stop everyone and close the teacher: the students' outcomes."""
    while len(told) < students and time.perf_counter() < window_end + 120:
        await asyncio.sleep(POLL_S)
    await asyncio.sleep(2 * POLL_S)
    stop.set()
    outcomes = await asyncio.gather(*tasks)
    watching.cancel()
    await teacher.close()
    return outcomes


async def one_class(url: str, store: ClassStore, students: int, window: float) -> dict:
    new = store.create_class("hello")
    store.open_voting(new.code, new.secret)
    options = question(1, CLASS_MODEL_KEY, "hello").options
    teacher = ProtocolSession(url, page("run_a_class").url_path, f"class={new.code}&teacher={new.secret}")
    await teacher.open()
    stop, seen, told = asyncio.Event(), [], []
    watching = asyncio.create_task(teacher_watch(teacher, stop, seen))
    rng = random.Random(0)
    start = time.perf_counter() + 5 + students * 0.05          # after everyone has joined, roughly
    tasks = [asyncio.create_task(student(url, new.code, n, options, window, start, told, stop, rng))
             for n in range(students)]
    await asyncio.sleep(max(0.0, start + window - time.perf_counter()) + 4 * POLL_S)
    outcomes = await wind_down(tasks, watching, teacher, stop, told, students, start + window)
    said = {f"s{n}": option for n, (_, option) in enumerate(outcomes) if option is not None}
    rows = [(v.nickname, v.option) for v in store.all_votes(new.code, new.secret) if (v.step, v.round) == (1, 1)]
    held = dict(rows)
    lost = sum(1 for name, option in said.items() if held.get(name) != option)   # told stored, not (or not so)
    double = len(rows) - len(held)                                                # one student counted twice
    joined = sum(seated for seated, _ in outcomes)
    told.sort()
    delays = []
    for k, at in enumerate(told, start=1):
        shown = next((t for t, count in seen if count >= k and t >= at), None)
        if shown is not None:
            delays.append(shown - at)
    return dict(code=new.code, joined=joined, told=len(said), stored=len(rows), lost=lost, double=double,
                delays=delays)


DROPPED = (websockets.ConnectionClosed, OSError, asyncio.TimeoutError)   # a socket whose replica died


async def back_again(session: ProtocolSession, who: str, came_back: list) -> Answer:
    """Reconnect as Streamlit's client does when its socket closes (the same cookies, the page's query, through
    the proxy that sends it to a live replica); note (who, seconds until the page answered)."""
    gone = time.perf_counter()
    while True:
        try:
            answer = await asyncio.wait_for(session.reopen(), POLL_TIMEOUT_S)
        except DROPPED:
            await asyncio.sleep(0.1)
            continue
        came_back.append((who, time.perf_counter() - gone, answer))
        return answer


async def steady_student(url: str, code: str, n: int, options: tuple[str, ...], vote_at: float,
                         told: list[float], stop: asyncio.Event, came_back: list) -> tuple[str | None, str | None]:
    """A student whose socket may close at any moment: they reconnect, and press again if they were never told
    their vote was in (a student who saw no confirmation taps again). (their seat's token, the option the page
    said was stored)."""
    session = await joined(url, code, f"s{n}")
    token = parse_qs(session.query).get("seat", [None])[0]
    if token is None:
        await session.close()
        return None, None
    said = None
    while not stop.is_set():
        try:
            if said is None and time.perf_counter() >= vote_at:
                label = next(l for l in session.widget_ids if l.replace("\\", "") == options[n % len(options)])
                answer = await asyncio.wait_for(session.press(label), POLL_TIMEOUT_S)
                if any("Your vote is in" in m for m in answer.markdown):
                    told.append(time.perf_counter())
                    said = options[n % len(options)]
            else:
                await asyncio.wait_for(session.poll(), POLL_TIMEOUT_S)
            await asyncio.sleep(interval(session))
        except DROPPED:
            answer = await back_again(session, f"s{n}", came_back)
            if not any(f"You are s{n} " in m for m in answer.markdown):
                return token, said   # not back at the seat: counted from came_back's answer
    await session.close()
    return token, said


async def killed_teacher_replica(served: Replicas, store: ClassStore, students: int, window: float) -> dict:
    """A class on two replicas: the teacher starts it on the presenter page (the class kept for the teacher's
    browser), opens voting, the students vote over `window` seconds, and halfway through the teacher's own
    replica is killed with SIGKILL. Its sockets close; teacher and students reconnect through the proxy."""
    teacher = ProtocolSession(served.url, page("run_a_class").url_path, "class=")
    await teacher.open()
    label = next(l for l in teacher.widget_ids if l.startswith("The class's text"))
    await teacher.fill_and_press({label: "hello"}, "Start a class")
    await teacher.press("I have kept it: start the class")
    code = parse_qs(teacher.query)["class"][0]
    assert "teacher" not in parse_qs(teacher.query), "the presenter's link holds no secret"
    await teacher.press("Open voting")
    options = question(1, CLASS_MODEL_KEY, "hello").options
    stop, seen, told, came_back = asyncio.Event(), [], [], []

    async def watch() -> None:
        while not stop.is_set():
            try:
                await teacher_watch(teacher, stop, seen)
            except DROPPED:
                answer = await back_again(teacher, "teacher", came_back)
                if not any(VOTED.search(m) for m in answer.markdown) or any(LOCKED_OUT in m for m in answer.markdown):
                    raise RuntimeError("the teacher's page came back without its class")

    watching = asyncio.create_task(watch())
    rng = random.Random(0)
    start = time.perf_counter() + 5 + students * 0.05
    tasks = [asyncio.create_task(steady_student(served.url, code, n, options, start + rng.uniform(0, window), told,
                                                stop, came_back)) for n in range(students)]
    await asyncio.sleep(max(0.0, start + window / 2 - time.perf_counter()))
    victim = teacher.cookies[REPLICA_COOKIE]
    pids = {f"replica{number}": pid for number, _, pid in served.table()}
    os.kill(pids[victim], signal.SIGKILL)
    killed_at = time.perf_counter()
    await asyncio.sleep(window / 2 + 4 * POLL_S)
    outcomes = await wind_down(tasks, watching, teacher, stop, told, students, start + window)
    said = {token: option for token, option in outcomes if option is not None}
    stored = {token: store.my_vote(code, token, 1, 1) for token, _ in outcomes if token is not None}
    counted = sum(store.counts(code, 1, 1).values())
    seated_again = [who for who, _, a in came_back if who != "teacher" and any(f"You are {who} " in m
                                                                             for m in a.markdown)]
    teacher_back = [seconds for who, seconds, _ in came_back if who == "teacher"]
    told.sort()
    delays = [next(t for t, count in seen if count >= k and t >= at) - at for k, at in enumerate(told, start=1)
              if any(count >= k and t >= at for t, count in seen)]
    return dict(code=code, victim=victim, joined=len(stored), told=len(said), stored=counted,
                lost=sum(1 for token, option in said.items() if stored[token] != option),
                double=counted - sum(1 for v in stored.values() if v is not None),
                dropped=len([w for w, _, _ in came_back if w != "teacher"]), seated_again=len(seated_again),
                teacher_back=teacher_back, delays=delays,
                after_kill=[d for d, at in zip(delays, told) if at >= killed_at])


async def quiet_polling(url: str, pid: int, store: ClassStore, students: int,
                        seconds: float = 20) -> tuple[float, float]:
    """Server CPU, as a share of one core, with `students` joined students connected: first idle (their pages
    open, nobody polling), then polling at their page's interval, nobody voting. The difference is what the
    polling costs."""
    new = store.create_class("hello")
    sessions = []
    for n in range(students):
        sessions.append(await joined(url, new.code, f"q{n}"))

    async def share_of_core() -> float:
        before, wall = cpu_seconds(pid), time.perf_counter()
        await asyncio.sleep(seconds)
        return (cpu_seconds(pid) - before) / (time.perf_counter() - wall)

    await asyncio.sleep(2 * POLL_S)
    idle = await share_of_core()
    stop = asyncio.Event()

    async def keep_polling(s: ProtocolSession, offset: float) -> None:
        await asyncio.sleep(offset)
        while not stop.is_set():
            await poll(s, "quiet")
            await asyncio.sleep(interval(s))

    tasks = [asyncio.create_task(keep_polling(s, i * interval(s) / students)) for i, s in enumerate(sessions)]
    await asyncio.sleep(2 * POLL_S)
    polling = await share_of_core()
    stop.set()
    await asyncio.gather(*tasks)
    for s in sessions:
        await s.close()
    return idle, polling


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", default="60,200")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--window", type=float, default=10.0)
    parser.add_argument("--kill-teachers-replica", action="store_true",
                        help="instead: two replicas behind HAProxy, the teacher's killed halfway through the vote")
    args = parser.parse_args()
    sizes = [int(n) for n in args.students.split(",")]
    if args.kill_teachers_replica:
        killed_runs(args, sizes)
        return
    print(f"{'database':<11} {'students':>8} {'joined':>6} {'told':>5} {'stored':>6} {'lost':>4} {'double':>6} "
          f"{'p50 s':>6} {'p95 s':>6}")
    polling, rows = {}, []
    for backend in args.backends.split(","):
        with ExitStack() as stack:
            url = (f"sqlite:///{stack.enter_context(tempfile.TemporaryDirectory())}/classes.db"
                   if backend == "sqlite" else stack.enter_context(temporary_postgres()))
            engine = make_engine(url)
            migrate(engine)
            store = ClassStore(engine)
            process, address = server_with(url)
            try:
                for n in sizes:
                    r = asyncio.run(one_class(address, store, n, args.window))
                    q = statistics.quantiles(r["delays"], n=20) if len(r["delays"]) > 1 else [float("nan")] * 19
                    print(f"{backend:<11} {n:>8} {r['joined']:>6} {r['told']:>5} {r['stored']:>6} {r['lost']:>4} "
                          f"{r['double']:>6} {statistics.median(r['delays']) if r['delays'] else float('nan'):>6.2f} "
                          f"{q[18]:>6.2f}", flush=True)
                    rows.append({"database": backend, "students": n, "joined": r["joined"], "told stored": r["told"],
                                 "stored": r["stored"], "lost": r["lost"], "double": r["double"],
                                 "vote to count p50 s": round(statistics.median(r["delays"]), 2),
                                 "vote to count p95 s": round(q[18], 2)})
                polling[backend] = asyncio.run(quiet_polling(address, process.pid, store, 60))
            finally:
                stop_server(process)
                engine.dispose()
    print(f"polls the server never finished within {POLL_TIMEOUT_S} s: {len(STUCK)} "
          f"({', '.join(f'{w}: {STUCK.count(w)}' for w in sorted(set(STUCK)))})")
    for backend, (idle, busy) in polling.items():
        print(f"{backend}: the server's CPU with 60 joined students (no teacher, no votes): {idle:.1%} of one core "
              f"with their pages open and idle, {busy:.1%} while they poll: the polling costs {busy - idle:.1%}")
    write_record("class_vote", {"rows": rows, "stuck polls": len(STUCK), "share of one core, 60 students": {
        backend: {"idle": round(idle, 3), "polling": round(busy, 3)} for backend, (idle, busy) in polling.items()}})


def killed_runs(args: argparse.Namespace, sizes: list[int]) -> None:
    print(f"{'database':<11} {'students':>8} {'joined':>6} {'told':>5} {'stored':>6} {'lost':>4} {'double':>6} "
          f"{'dropped':>7} {'reseated':>8} {'teacher back s':>14} {'p50 s':>6} {'p95 s':>6} {'p95 after kill':>14}")
    rows = []
    for backend in args.backends.split(","):
        with ExitStack() as stack:
            logs = Path(stack.enter_context(tempfile.TemporaryDirectory()))
            url = f"sqlite:///{logs}/classes.db" if backend == "sqlite" else stack.enter_context(temporary_postgres())
            engine = make_engine(url)
            migrate(engine)
            os.environ["EXPLORER_DATABASE_URL"] = url       # what scripts/serve.sh's replicas read
            served = start_replicas(2, logs / "serve")
            try:
                for n in sizes:
                    r = asyncio.run(killed_teacher_replica(served, ClassStore(engine), n, args.window))
                    p95 = lambda xs: statistics.quantiles(xs, n=20)[18] if len(xs) > 1 else float("nan")
                    back = ", ".join(f"{t:.1f}" for t in r["teacher_back"]) or "never"
                    print(f"{backend:<11} {n:>8} {r['joined']:>6} {r['told']:>5} {r['stored']:>6} {r['lost']:>4} "
                          f"{r['double']:>6} {r['dropped']:>7} {r['seated_again']:>8} {back:>14} "
                          f"{statistics.median(r['delays']):>6.2f} {p95(r['delays']):>6.2f} "
                          f"{p95(r['after_kill']):>14.2f}", flush=True)
                    restarted = [line for line in (logs / "serve" / "serve.log").read_text().splitlines()
                                 if "starting it again" in line] if (logs / "serve" / "serve.log").exists() else []
                    said = restarted[-1].split(" ", 1)[1] if restarted else "nothing"
                    print(f"  killed {r['victim']}; scripts/serve.sh said: {said}")
                    rows.append({"database": backend, "students": n, "joined": r["joined"], "told stored": r["told"],
                                 "stored": r["stored"], "lost": r["lost"], "double": r["double"],
                                 "dropped by the kill": r["dropped"], "back at their seat": r["seated_again"],
                                 "teacher back s": [round(t, 2) for t in r["teacher_back"]],
                                 "vote to count p50 s": round(statistics.median(r["delays"]), 2),
                                 "vote to count p95 s": round(p95(r["delays"]), 2),
                                 "p95 s of votes after the kill": round(p95(r["after_kill"]), 2),
                                 "serve.sh said": said})
            finally:
                stop_replicas(served)
                engine.dispose()
    print(f"polls the server never finished within {POLL_TIMEOUT_S} s: {len(STUCK)}")
    write_record("class_vote_killed_replica", {"rows": rows, "stuck polls": len(STUCK)}, module="class_vote")


if __name__ == "__main__":
    main()
