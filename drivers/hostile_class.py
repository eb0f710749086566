"""A mischievous learner against a real server while another learner types on Home (issue 24): each attack
driven the way the review drove it, over Streamlit's own protocol, with the other learner's answer times and
the server's memory measured around it. Shared by tests/e2e/test_hostile_class.py and benchmarks.hostile_class.
"""

from __future__ import annotations

import asyncio
import functools
import random
import statistics
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Awaitable, Callable

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

from classroom.database import make_engine, migrate
from classroom.store import ClassStore
from drivers.protocol_session import NEW_BROWSER, ProtocolSession, joined, put_file
from drivers.payloads import endless_zip, with_files
from transformer.checkpoint import MAX_UPLOAD_BYTES

from .hostile import MemoryWatch, Typist
from .harness import resident_mb

UPLOADER = "A checkpoint zip"      # the start of the Training page's uploader label
COMPUTE = "Compute it for my model"
RELEASED = "is gone"               # the sidebar's words when a learner's own model is gone (explorer.frame)
ALONE_ANSWERS = 8                  # the other learner's answers timed alone before each attack (after two to warm
                                   # up), and as many after it
SETTLE_SECONDS = 10                # after the attacker leaves, before the server's memory is read again
                                   # (the other learner goes on typing: its last ALONE_ANSWERS are timed alone)


@dataclass
class Measured:
    """The other learner's median answer alone and during the attack, and the server's memory around it."""

    name: str
    alone: float
    during: list[float]
    wrong: list[str]
    start_mb: float
    peak_mb: float
    after_mb: float
    details: dict = field(default_factory=dict)   # what the attack itself saw

    @property
    def during_median(self) -> float:
        return statistics.median(self.during)

    @property
    def ratio(self) -> float:
        return self.during_median / self.alone

    def line(self) -> str:
        return (f"{self.name}: other learner {self.alone:.3f} s alone, {self.during_median:.3f} s during "
                f"({len(self.during)} answers), {self.ratio:.2f}x; server {self.start_mb:.0f} MB at start, "
                f"{self.peak_mb:.0f} MB peak, {self.after_mb:.0f} MB after; {self.details}")


def run_async(coroutine):
    """asyncio.run in a thread of its own: in the suite, Playwright's sync API keeps an event loop running in the
    main thread (the browser fixture), where asyncio.run refuses to start another."""
    result = {}

    def run() -> None:
        try:
            result["value"] = asyncio.run(coroutine)
        except BaseException as err:   # re-raised in the caller's thread
            result["error"] = err

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def cpu_seconds(pid: int) -> float:
    """User and system CPU the process has used (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100   # utime, stime in clock ticks of 1/100 s


def under_attack(name: str, url: str, pid: int, attack: Callable[[str], Awaitable[dict]], seed: int,
                 min_seconds: float = 12, min_answers: int = 6) -> Measured:
    """Time the other learner alone, then while `attack` runs (for at least min_seconds and min_answers), then
    alone again once the attacker has left, and read the server's memory SETTLE_SECONDS after it left. The
    answers alone before and after are pooled (A, B, A): the machine is shared, and a baseline on one side
    only took a quiet or a busy moment for the server's normal pace."""
    with Typist(url, seed=seed, page="") as typist:
        while len(typist.answers) < ALONE_ANSWERS + 2:
            time.sleep(0.2)
        before = typist.answers[2:]
        mark = len(typist.answers)
        with MemoryWatch(pid) as memory:
            started = time.monotonic()
            details = run_async(attack(url))
            while time.monotonic() - started < min_seconds or len(typist.answers) - mark < min_answers:
                time.sleep(0.2)
            during = typist.answers[mark:]
            start, peak = memory.before, memory.peak
        time.sleep(SETTLE_SECONDS)
        after = typist.answers[mark + len(during):][-ALONE_ANSWERS:]
        wrong = list(typist.wrong)
    return Measured(name, statistics.median(before + after), during, wrong, start, peak, resident_mb(pid), details)


async def uploaded(url: str, name: str, data: bytes, page: str = "training",
                   browser: str | None | object = NEW_BROWSER) -> ProtocolSession:
    """A session that uploaded `data` on the Training page and keeps it as its model, now on `page` (`browser`: as
    ProtocolSession takes it)."""
    session = ProtocolSession(url, "training", browser=browser)
    await session.open()
    label = next(k for k in session.widget_ids if k.startswith(UPLOADER))
    answer = await session.upload(url, label, name, data)
    if answer.exceptions:
        raise RuntimeError(f"the upload failed: {answer.exceptions}")
    if page != "training":
        await session.goto(page)
    return session


async def endless_uploads(url: str, seconds: float = 20) -> dict:
    """Attack 1: two tabs upload a model that claims 511 characters and never writes EOS, open Which head does
    the work? and ask for its tables; they leave mid-run."""
    data = endless_zip()
    tabs = [await uploaded(url, f"endless-{i}.zip", data, "lab-heads") for i in range(2)]
    offered = [COMPUTE in tab.widget_ids for tab in tabs]
    started = time.perf_counter()
    finished = [0, 0]

    async def ask_for_every_table(i: int) -> None:
        while COMPUTE in tabs[i].widget_ids:
            button = tabs[i].widget_ids.pop(COMPUTE)
            answer = await tabs[i].send([WidgetState(id=button, trigger_value=True)])  # a further table's
            # button is drawn again by this run if the page needs one more
            finished[i] += not answer.exceptions

    work = [asyncio.create_task(ask_for_every_table(i)) for i in range(len(tabs))]
    await asyncio.sleep(seconds)
    still_running = sum(not task.done() for task in work)
    for task in work:
        task.cancel()
    for tab in tabs:
        await tab.close()
    return {"asked on request": offered, "tables finished": finished, "left mid-run": still_running,
            "window s": round(time.perf_counter() - started, 1)}


async def clear_caches(url: str, messages: int = 20) -> dict:
    """Attack 2: a victim holds an uploaded model; another session sends clear_cache again and again, then opens
    two lab pages. The victim then types a word: is its model still there?"""
    victim = await uploaded(url, "victim.zip", with_files(), "")
    message = BackMsg()
    message.clear_cache = True
    attacker = ProtocolSession(url, "")
    await attacker.open()
    for _ in range(messages):
        await attacker.send_raw(message.SerializeToString())
    for page in ("lab-ablation", "lab-heads"):
        await attacker.goto(page)
    answer = await victim.type("lemon")
    await attacker.close()
    await victim.close()
    return {"victim told its model was released": any(RELEASED in m for m in answer.markdown),
            "victim still offered its model": "Model" in victim.widget_ids}


@functools.cache
def made_up_widgets(count: int) -> bytes:
    """A rerun message carrying `count` widget states no page declares (about 16 bytes each)."""
    message = BackMsg()
    message.rerun_script.SetInParent()   # a rerun even with no state at all
    states = message.rerun_script.widget_states.widgets
    for i in range(count):
        state = states.add()
        state.id, state.int_value = f"$$ID-{i:012x}", i
    return message.SerializeToString()


SMALL_FLOOD = 2_200   # made-up widget states that fit under server.guards.MAX_MESSAGE_BYTES (64 kB)


def prepare_widget_flood() -> None:
    """Build the flood's messages before anything is timed (a million protobuf messages take seconds here)."""
    made_up_widgets(1_000_000), made_up_widgets(SMALL_FLOOD)


async def widget_flood(url: str, big: int = 12, small: int = 150) -> dict:
    """Attack 3: `big` rerun messages of 1,000,000 made-up widget states (25 MB each), each on a fresh
    connection, then `small` reruns of SMALL_FLOOD (62 kB, under the limit) on one session as fast as the
    server answers them: 330,000 states that, if stored, would hold about 75 MB."""
    refused = 0
    for _ in range(big):
        session = ProtocolSession(url, "")
        await session.open()
        await session.send_raw(made_up_widgets(1_000_000))
        try:
            while True:     # whatever the server still sends, until it closes the connection
                await asyncio.wait_for(session.socket.recv(), 10)
        except Exception:
            pass
        refused += session.socket.close_code == 1009   # 1009: message too big
        await session.close()
    session = ProtocolSession(url, "")
    await session.open()
    finished = 0
    for _ in range(small):
        await session.send_raw(made_up_widgets(SMALL_FLOOD))
        while True:
            forward = ForwardMsg()
            forward.ParseFromString(await session.socket.recv())
            if forward.WhichOneof("type") == "script_finished":
                finished += 1
                break
    await session.close()
    return {"25 MB messages refused": refused, "small reruns answered": finished}


async def stray_uploads(url: str, files: int = 200) -> dict:
    """Attack 4: files no uploader asked for, PUT straight to Streamlit's upload endpoint (5 MB each), from a
    session on Home (which shows no uploader) and from one on Training asking for an upload URL each time."""
    data = b"x" * (MAX_UPLOAD_BYTES - 64 * 1024)
    home = ProtocolSession(url, "")
    await home.open()
    try:
        await home.upload(url, "Your text", "stray.zip", data)
        home_urls = True
    except (PermissionError, KeyError):
        home_urls = False
    training = ProtocolSession(url, "training")
    await training.open()
    statuses = []
    for i in range(files):
        if i % 2:   # made-up file ids under a real session
            upload_url = f"/_stcore/upload_file/{training.session_id}/{uuid.uuid4()}"
        else:       # ids the server gave when asked, as an uploader asks
            message = BackMsg()
            message.file_urls_request.request_id = uuid.uuid4().hex
            message.file_urls_request.file_names.append(f"stray-{i}.zip")
            message.file_urls_request.session_id = training.session_id
            await training.send_raw(message.SerializeToString())
            reply = await training._reply(lambda f: f.WhichOneof("type") == "file_urls_response")
            given = list(reply.file_urls_response.file_urls)
            upload_url = given[0].upload_url if given else f"/_stcore/upload_file/{training.session_id}/none"
        statuses.append(await asyncio.to_thread(put_file, url, upload_url, f"stray-{i}.zip", data))
    await home.close()
    await training.close()
    return {"home was given upload URLs": home_urls, "files stored": sum(s == 204 for s in statuses),
            "refused": sum(s in (403, 413) for s in statuses)}


async def downloads(url: str, requests: int = 200, at_once: int = 6) -> dict:
    """Attack 6: one tab asks for its whole trace as JSON 200 times, 6 at a time (a download is built when its
    button is pressed, outside the script run)."""
    tab = ProtocolSession(url, "attention")
    await tab.open()
    await tab.type("the quick brown fox jumps over the lazy dog")
    label = "Download the whole trace (JSON)"
    built, failed, started = 0, 0, time.perf_counter()
    for start in range(0, requests, at_once):
        ids = []
        for _ in range(min(at_once, requests - start)):
            message = BackMsg()
            request = message.backend_operation_request
            request.request_id, request.session_id = uuid.uuid4().hex, tab.session_id
            request.deferred_file.file_id = tab.deferred_ids[label]
            ids.append(request.request_id)
            await tab.send_raw(message.SerializeToString())
        for request_id in ids:
            reply = (await tab._reply(lambda f, r=request_id: f.WhichOneof("type") == "backend_operation_response"
                                      and f.backend_operation_response.request_id == r)).backend_operation_response
            built += bool(reply.deferred_file.url)
            failed += not reply.deferred_file.url
    await tab.close()
    return {"downloads built": built, "failed": failed, "seconds": round(time.perf_counter() - started, 1)}


async def poll_flood(url: str, seconds: float = 15, tabs: int = 2) -> dict:
    """Attack 7: students seated in a class (the server's own class database, as a teacher's page would make it)
    send their page's poll, a fragment's rerun that a browser's timer sends every 3 s, as fast as the server
    answers, from `tabs` sessions."""
    engine = make_engine()
    migrate(engine)
    new = ClassStore(engine).create_class("hello")
    async def one_tab(n: int) -> tuple[int, bool]:
        session = await joined(url, new.code, f"flood{n}")
        seated, polls, end = "seat=" in session.query, 0, time.monotonic() + seconds
        while seated and time.monotonic() < end:
            await session.poll()
            polls += 1
        await session.close()
        return polls, seated

    done = await asyncio.gather(*(one_tab(n) for n in range(tabs)))
    engine.dispose()
    polls = sum(polls for polls, _ in done)
    return {"seated": [seated for _, seated in done], "polls": polls, "polls per second": round(polls / seconds, 1)}


LENGTH = 48   # the longest word the bundled models read


def words(seed: int, count: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(LENGTH)) for _ in range(count)]


async def type_on_masks(url: str, typed: list[str], tabs: int = 1) -> list[str]:
    """Type the words on Masks, shared out over `tabs` sessions at once, then leave; what went wrong on screen,
    if anything. A session with others on the server rests once it has spent its allowance at the gate
    (server.gate), so a class of tabs fills the shared caches as fast as the server answers, each tab about a
    seventh as fast as it asks."""
    async def one_tab(share: list[str]) -> list[str]:
        session = ProtocolSession(url, "masks")
        await session.open()
        wrong = []
        for word in share:
            answer = await session.type(word)
            if answer.exceptions or answer.model_writes is None:
                wrong.append(f"{word}: {answer.exceptions or 'the sidebar drew no answer'}")
        await session.close()
        return wrong

    shares = await asyncio.gather(*(one_tab(typed[i::tabs]) for i in range(tabs)))
    return [problem for share in shares for problem in share]


async def typing_flood(url: str, count: int = 180) -> dict:
    """Attack 5: one session types `count` distinct 48-character words on Masks (a batch of three runs each)."""
    wrong = await type_on_masks(url, words(2, count))
    return {"words": count, "shown wrong": len(wrong)}


async def warm_up(url: str) -> None:
    """The bundled model's lab tables, loaded once per server before any attack is timed (read from its stored
    tables.json; a stale file makes a fresh server's first visit of a lab page compute them, a minute), and the
    pages the attacks use visited once, so that the server's start counts what any first learner would cost."""
    session = ProtocolSession(url, "lab-heads")
    await session.open()
    for page in ("lab-ablation", "attention", "lab-activation-patching", "training", "lab-attribution"):
        await session.goto(page)
    await session.press("Integrated gradients at this step")   # Captum's first use: its one-time costs
    await session.goto("")
    await session.close()
