"""A mischievous student against class mode (issue 63), driven over Streamlit's protocol as the review drove it:
one client taking seats from many sessions, guessing join codes from fresh sessions, and reading the answer
before the teacher reveals it. Each attack is a coroutine of the server's address for
drivers.hostile_class.under_attack, which times another learner around it; the class it attacks is made in the
server's own database (EXPLORER_DATABASE_URL), as a teacher's page would make it. Shared by
tests/e2e/test_hostile_seats.py and benchmarks.hostile_class."""

from __future__ import annotations

import asyncio
import random
import time
import urllib.request

from classroom import codes
from classroom.database import make_engine, migrate
from classroom.store import ClassStore
from explorer.pages import page
from teaching.class_mode import HELD_BACK

from .protocol_session import ProtocolSession, browser_cookie, joined

JOIN = page("join").url_path
WRONG = "No class has this code"           # classroom.errors.NO_SUCH_CODE
WAIT = "Too many wrong codes"              # explorer.classes.check_code_tries
CHECK = "Check my answer"                  # the Lesson page's button that grades a pick
PREPARE = "Prepare the teacher's sheet"
SHEETS = ("Teacher's sheet (Markdown)", "Teacher's sheet (printable HTML)")
EXPECTED = "← expected"                    # how the sheet marks a step's answer (teaching.sheet)


def class_store() -> ClassStore:
    """The server's class database, as its pages reach it (the tests' servers inherit the URL)."""
    engine = make_engine()
    migrate(engine)
    return ClassStore(engine)


async def submit_code(session: ProtocolSession, code: str, nickname: str = "") -> list[str]:
    """The join form filled and sent from a plain /join, as after going back to it: the session was opened with
    no query and sends none, so the page draws the form again even when its last run seated it; what the page
    said."""
    answer = await session.fill_and_press({codes.CODE_LABEL: code, codes.NICKNAME_LABEL: nickname}, "Join")
    return answer.markdown


async def seat_exhaustion(url: str, cookie_tabs: int = 3, cookieless: int = 8, submits: int = 5) -> dict:
    """Attack 6 of the review: `cookie_tabs` sessions of one browser (one cookie) and `cookieless` sessions that
    send no cookie each submit the class's code on a plain /join `submits` times (5 submits from one session were
    5 seats, and 8 such sessions took all 500 seats). Then a real student, a fresh browser, joins by the link."""
    store = class_store()
    new = store.create_class("hello")
    cookie = await asyncio.to_thread(browser_cookie, url)
    tabs = [ProtocolSession(url, JOIN, browser=cookie) for _ in range(cookie_tabs)]
    tabs += [ProtocolSession(url, JOIN, browser=None) for _ in range(cookieless)]

    async def resubmit(n: int, tab: ProtocolSession) -> list[str]:
        await tab.open()
        said = [line for _ in range(submits) for line in await submit_code(tab, new.code, f"tab{n}")]
        await tab.close()
        return said

    said = await asyncio.gather(*(resubmit(n, tab) for n, tab in enumerate(tabs)))
    taken = store.snapshot(new.code).joined
    student = await joined(url, new.code, "real student")
    await student.close()
    store.engine.dispose()
    return {"submits": len(tabs) * submits, "seats taken": taken,
            "refused": sum("cookie" in line for lines in said for line in lines),
            "real student seated": "seat=" in student.query}


def guess(rng: random.Random) -> str:
    return "".join(rng.choice(codes.CODE_ALPHABET) for _ in range(codes.CODE_LENGTH))


async def code_guessing(url: str, seconds: float = 15, workers: int = 4, per_session: int = 5) -> dict:
    """Attack 9 of the review: `workers` clients without the browser's cookie guess codes, each from a fresh
    session every `per_session` guesses with a right code of a class of their own in between (that reset the
    per-session wait: 80.9 guesses a second, never slowed). Counted: the guesses the store answered ("no class
    has this code") and those refused with a wait."""
    store = class_store()
    own = store.create_class("hello")
    counted = {"answered": 0, "told to wait": 0, "right codes": 0}
    end = time.monotonic() + seconds

    async def guesser(n: int) -> None:
        rng = random.Random(n)
        while time.monotonic() < end:
            session = ProtocolSession(url, JOIN, browser=None)
            await session.open()
            for code in [guess(rng) for _ in range(per_session)] + [own.code]:
                said = " ".join(await submit_code(session, code))
                counted["answered"] += WRONG in said
                counted["told to wait"] += WAIT in said
                counted["right codes"] += code == own.code and WAIT not in said
            await session.close()

    started = time.monotonic()
    await asyncio.gather(*(guesser(n) for n in range(workers)))
    took = time.monotonic() - started
    store.engine.dispose()
    return {**counted, "seconds": round(took, 1), "answered per second": round(counted["answered"] / took, 2),
            "tries per second": round((counted["answered"] + counted["told to wait"]) / took, 1)}


class PageReader(ProtocolSession):
    """A session that also keeps the address of every file a download button of the last runs offers."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.files: dict[str, str] = {}   # label -> the file's URL on the server

    def _read(self, element, answer) -> None:
        super()._read(element, answer)
        if element.WhichOneof("type") == "download_button" and element.download_button.url:
            self.files[element.download_button.label] = element.download_button.url


def fetched(url: str, path: str) -> str:
    with urllib.request.urlopen(f"{url}{path}", timeout=30) as response:
        return response.read().decode()


async def what_a_student_reaches(url: str, cookie: str, text: str, step: int) -> dict:
    """The Lesson page on the class's text at `step`, as a seated student's other tab opens it, and the teacher's
    sheet it prepares: whether the page offers to check an answer or says it is held back, and which steps'
    answers the sheet marks."""
    lesson = PageReader(url, page("lesson").url_path, f"text={text.replace(' ', '+')}&lesson_step={step}",
                        browser=cookie)
    shown = await lesson.open()
    offers_check = CHECK in lesson.widget_ids
    await lesson.press(PREPARE)
    sheets = [fetched(url, lesson.files[label]) for label in SHEETS]
    await lesson.close()
    markdown = sheets[0].split("## Step ")[1:]
    return {"check offered": offers_check, "said held back": HELD_BACK in shown.markdown,
            "steps marked in the sheet": [int(s.split(" ", 1)[0]) for s in markdown if EXPECTED in s],
            "held back in the HTML sheet": HELD_BACK.replace("'", "&#x27;") in sheets[1]}


async def answer_before_reveal(url: str, text: str = "level up", settle: float = 2.5) -> dict:
    """Attack 8 of the review: a seated student, while the class votes on step 1, opens the Lesson page on the
    class's text in another tab and prepares the teacher's sheet (it held the answer revealed later). Then the
    teacher reveals step 1, and after `settle` seconds (the Lesson page asks every 2 s) the same again."""
    store = class_store()
    new = store.create_class(text)
    store.open_voting(new.code, new.secret)
    student = await joined(url, new.code, "reader")
    before = await what_a_student_reaches(url, student.browser, text, 1)
    store.reveal(new.code, new.secret)
    await asyncio.sleep(settle)
    after = await what_a_student_reaches(url, student.browser, text, 1)
    await student.close()
    store.engine.dispose()
    return {"seated": "seat=" in student.query, "before": before, "after": after}
