"""server.gate: two places on the server, one per learner, the heavy lane beside them, and a readiness route that
fails while stuck."""

import ast
import asyncio
import threading
import time
from pathlib import Path

import pytest

from server.gate import MAX_REST, PLACES, STUCK_AFTER, Gate, GateBusy, _in_place, _Once, readiness, watch
from server.heavy_lane import AlreadyInLine, HeavyLane


def test_one_session_never_holds_two_places_so_another_session_always_finds_one():
    gate = Gate()
    inside = threading.Event()
    release = threading.Event()
    entered = []

    def hold(session: str, tag: str) -> None:
        with gate.place(session):
            entered.append(tag)
            inside.set()
            release.wait(10)

    greedy = [threading.Thread(target=hold, args=("greedy tab", f"greedy {i}")) for i in range(6)]
    for thread in greedy:
        thread.start()
    inside.wait(5)
    assert gate.held() == 1                       # six downloads of one tab: one place, five wait their turn
    with gate.place("another learner"):           # the other learner gets in at once
        assert gate.held() == 2
    release.set()
    for thread in greedy:
        thread.join(10)
    assert len(entered) == 6 and gate.held() == 0


def test_a_deferred_download_waits_for_its_sessions_place():
    gate = Gate()
    order = []
    with gate.place("tab"):
        worker = threading.Thread(target=lambda: order.append(_in_place(gate, "tab", lambda: "built")))
        worker.start()
        worker.join(0.5)
        assert worker.is_alive() and not order   # the tab's own run holds its place
        order.append("run done")
    worker.join(5)
    assert order == ["run done", "built"]


def test_stuck_only_while_every_place_is_held():
    now = [0.0]
    gate = Gate(clock=lambda: now[0])
    with gate.place("a"):
        now[0] = 1_000.0
        assert gate.stuck_for() == 0.0            # a place is still free
        with gate.place("b"):
            now[0] = 1_030.0
            assert gate.stuck_for() == 30.0       # since the newer of the two took its place
    assert gate.stuck_for() == 0.0


def test_the_readiness_check_fails_while_the_places_are_stuck_and_recovers():
    now = [0.0]
    gate = Gate(clock=lambda: now[0])
    watch(gate)
    assert readiness((True, "ok")) == (True, "ok")
    holders = [gate.place(f"s{i}") for i in range(PLACES)]
    for holder in holders:
        holder.__enter__()
    now[0] = STUCK_AFTER - 1
    assert readiness((True, "ok")) == (True, "ok")
    now[0] = STUCK_AFTER + 1
    ok, message = readiness((True, "ok"))
    assert not ok and "busy" in message
    assert readiness((False, "unavailable")) == (False, "unavailable")   # Streamlit's own answer comes first
    holders[0].__exit__(None, None, None)
    assert readiness((True, "ok")) == (True, "ok")
    holders[1].__exit__(None, None, None)


def test_heavy_work_leaves_its_place_and_runs_one_at_a_time_first_come_first_served():
    gate = Gate()
    in_lane = threading.Event()
    release = threading.Event()
    waits, order = [], []

    def heavy(who: str) -> None:
        with gate.place(who):
            with gate.heavy_lane(who, f"{who}'s job", lambda ahead: waits.append((who, ahead))):
                order.append(who)
                in_lane.set()
                release.wait(10)

    first = threading.Thread(target=heavy, args=("learner 1",))
    first.start()
    in_lane.wait(5)
    later = []
    for who in ("learner 2", "learner 3"):
        later.append(threading.Thread(target=heavy, args=(who,)))
        later[-1].start()
        time.sleep(0.2)
    time.sleep(1.0)
    assert all(t.is_alive() for t in later)
    assert ("learner 2", 1) in waits and ("learner 3", 2) in waits   # each told how many jobs are ahead of it
    assert gate.held() == 0                               # none holds a place the other learners need
    with gate.place("another learner"):
        assert gate.held() == 1
    release.set()
    for t in (first, *later):
        t.join(10)
    assert order == ["learner 1", "learner 2", "learner 3"] and gate.held() == 0 and len(gate.lane) == 0


def test_a_learner_holds_one_ticket_in_the_heavy_lane_whatever_its_tabs():
    gate = Gate()
    with gate.heavy_lane("browser:a", "integrated gradients", lambda ahead: None):
        with pytest.raises(AlreadyInLine, match="integrated gradients"):
            with gate.heavy_lane("browser:a", "occlusion", lambda ahead: None):
                pass
    with gate.heavy_lane("browser:a", "occlusion", lambda ahead: None):   # its ticket given back
        assert gate.lane.running() == ["occlusion"]


def test_giving_up_while_waiting_leaves_the_line():
    lane = HeavyLane()
    first = lane.enter("a", "first")
    second = lane.enter("b", "second")

    def give_up(ahead: int) -> None:
        raise TimeoutError

    with pytest.raises(TimeoutError):
        lane.wait(second, give_up, every=0.01)
    lane.leave(second)
    third = lane.enter("c", "third")
    assert lane.ahead(first) == 0 and lane.ahead(third) == 1


def test_a_download_pressed_again_is_not_built_again():
    gate, built = Gate(), []
    once = _Once(lambda: built.append("json") or "the trace")
    assert [_in_place(gate, "tab", once) for _ in range(200)] == ["the trace"] * 200
    assert built == ["json"]


@pytest.fixture
def fake_time(monkeypatch):
    """A gate's clock that moves only when told, and rests (time.sleep) that move it: (now, the rests taken)."""
    import server.gate as module
    now, slept = [0.0], []
    monkeypatch.setattr(module.time, "sleep", lambda seconds: (slept.append(seconds),
                                                               now.__setitem__(0, now[0] + seconds)))
    return now, slept


def held_for(gate: Gate, now: list[float], session: str, seconds: float) -> None:
    """A run of `session` holding its place for `seconds` of the fake clock."""
    with gate.place(session):
        now[0] += seconds


def test_a_session_spends_an_allowance_of_place_time_and_rests_only_once_it_is_in_debt(fake_time):
    import server.gate as module
    now, slept = fake_time
    connected = ["learner clicking about", "flooding tab", "another learner"]
    gate = Gate(clock=lambda: now[0], connected=lambda: connected)

    def run(session: str, held: float) -> None:
        held_for(gate, now, session, held)

    for _ in range(4):
        run("learner clicking about", 0.45)       # about 2 s of runs: the whole allowance, no rest
    assert slept == []
    run("flooding tab", 1.5)
    run("flooding tab", 1.5)                       # 3 s spent at once: 1 s in debt, capped at MAX_REST * SHARE
    run("another learner", 0.1)                    # another session never waits for that rest
    assert slept == []
    run("flooding tab", 0.1)                       # rests until its debt is paid: MAX_REST, less the 0.1 s
    assert slept == [pytest.approx(module.MAX_REST - 0.1)]   # that passed while the other learner ran
    slept.clear()
    for _ in range(50):                            # a flood of short runs, each asked for at once, while the
        run("flooding tab", 0.1)                   # others read
    busy_share = 50 * (0.1 + module.RUN_OVERHEAD) / (50 * 0.1 + sum(slept))
    assert busy_share == pytest.approx(module.SHARE, rel=0.05)   # its share, counting the work around each run


def test_a_session_has_one_download_on_the_way_and_it_waits_for_its_turn_only_so_long(monkeypatch):
    import server.gate as module
    monkeypatch.setattr(module, "DOWNLOAD_WAIT", 0.3)
    gate = Gate()
    with gate.place("tab"):                        # the tab's own run holds its turn
        first = threading.Thread(target=lambda: outcome.append(_try(gate)))
        outcome = []
        first.start()
        time.sleep(0.1)
        assert _try(gate) == "refused"             # a second download of the same tab, while one waits
        first.join(5)
    assert outcome == ["refused"]                  # the first gave up after DOWNLOAD_WAIT, freeing its thread
    assert _try(gate) == "built"


def _try(gate) -> str:
    try:
        return _in_place(gate, "tab", lambda: "built")
    except GateBusy:
        return "refused"


def test_a_fragment_inside_its_pages_run_reenters_the_place():
    gate = Gate()
    with gate.place("tab"):
        with gate.place("tab"):                    # would wait for itself for ever without re-entrance
            assert gate.held() == 1


def test_a_session_alone_on_the_server_never_rests_and_rests_again_while_another_is_connected(fake_time):
    now, slept = fake_time
    connected = ["teacher"]
    gate = Gate(clock=lambda: now[0], connected=lambda: connected)

    def run(session: str, held: float) -> None:
        held_for(gate, now, session, held)

    for _ in range(20):
        run("teacher", 0.5)                        # 10 s of runs, far past the allowance: nobody waits for it
    assert slept == []
    connected.append("a student")                  # a student opens the app...
    run("a student", 0.1)
    run("teacher", 0.5)                            # ...so the teacher, in debt, rests off the capped debt
    assert slept == [pytest.approx(MAX_REST - 0.1)]   # but for the student's 0.1 s
    now[0] += 60                                   # the student reads for a minute, still connected
    slept.clear()
    for _ in range(20):
        run("teacher", 0.5)                        # 10 s of runs again: it rests, as a tab flooding would
    assert len(slept) >= 10
    connected.remove("a student")                  # the student's tab closes: alone again
    slept.clear()
    for _ in range(20):
        run("teacher", 0.5)
    assert slept == []


def test_a_session_waiting_for_or_holding_a_place_is_company_even_once_its_tab_has_gone(fake_time):
    now, slept = fake_time
    gate = Gate(clock=lambda: now[0], connected=lambda: ["tab"])       # the download's tab is not connected
    with gate.place("a download"):                # another session's work, still going
        for _ in range(6):
            held_for(gate, now, "tab", 0.5)       # 3 s of runs: past the allowance, so it rests
    assert len(slept) == 1
    slept.clear()
    for _ in range(6):
        held_for(gate, now, "tab", 0.5)           # the download done: alone, no rest
    assert slept == []


def test_every_fragment_of_the_app_takes_its_sessions_place():
    """A fragment's reruns come without the page's run, on a timer or as often as a client sends them: each must be
    server.gate.fragment, which takes the session's place (a tab flooding a class's poll was not held back)."""
    root = Path(__file__).resolve().parents[2]
    plain = []
    for path in [root / "app.py", *sorted((root / "app_pages").glob("*.py")),
                 *sorted((root / "explorer").glob("*.py")), *sorted((root / "server").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text())):
            attribute = (isinstance(node, ast.Attribute) and node.attr == "fragment"
                         and isinstance(node.value, ast.Name) and node.value.id in ("st", "streamlit"))
            imported = (isinstance(node, ast.ImportFrom) and node.module == "streamlit"
                        and any(alias.name == "fragment" for alias in node.names))
            if (attribute or imported) and path.name != "gate.py":
                plain.append(f"{path.relative_to(root)}:{node.lineno}")
    assert plain == []
