"""No learner can stop, wipe or starve the class (issue 24): each attack of the review, driven over Streamlit's
protocol against a real server while another learner types on Home. Each asserts what the attack broke (the
victim's model, the upload store, the work after the tabs left) and the issue's bounds: the other learner at
most 2x slower during the attack, the server under 1.5 GB at peak and back within 100 MB of its start once
the attacker has left. The figures are printed (pytest -s); benchmarks.hostile_class prints them all side
by side and records them for docs/benchmarks.md."""

from __future__ import annotations

import functools
import time
import urllib.request

import pytest

from drivers import hostile_class as attacks
from server.gate import ALLOWANCE, MAX_REST, RUN_OVERHEAD, SHARE
from .conftest import attacked_server

pytestmark = pytest.mark.load   # the slowest tier: `python -m pytest -m "not load"` leaves it out

PEAK_MB = 1536
BACK_WITHIN_MB = 100
SLOWER_AT_MOST = 2.0


@pytest.fixture(scope="module")
def class_server(chromium_path):
    yield from attacked_server("e2e-hostile-class.log")


QUIET_AFTER_TYPIST = 5   # seconds: the other learner leaves when under_attack returns, and its last answer and
                         # its session's close cost the server 1.0 s and 0.4 s of CPU in the first two seconds
                         # (then 0.00-0.02 s a second), which a window opened at once counted as the attack's


def held_to_the_bounds(measured: attacks.Measured) -> None:
    print(measured.line())
    assert not measured.wrong, measured.wrong
    assert measured.ratio <= SLOWER_AT_MOST, measured.line()
    assert measured.peak_mb < PEAK_MB, measured.line()
    assert measured.after_mb <= measured.start_mb + BACK_WITHIN_MB, measured.line()


def healthy(url: str) -> bool:
    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as response:
        return response.status == 200


def test_an_endless_upload_asks_first_runs_aside_and_stops_when_its_tabs_leave(class_server):
    measured = attacks.under_attack("endless uploads", class_server.url, class_server.pid,
                                    attacks.endless_uploads, seed=11)
    assert measured.details["asked on request"] == [True, True]   # nothing heavy ran on page load
    assert measured.details["left mid-run"] >= 1                   # a tab left while its table was computed
    held_to_the_bounds(measured)
    assert healthy(class_server.url)
    time.sleep(QUIET_AFTER_TYPIST)
    before = attacks.cpu_seconds(class_server.pid)
    time.sleep(5)
    idle = attacks.cpu_seconds(class_server.pid) - before
    print(f"server CPU over 5 s after the tabs left: {idle:.2f} s")
    assert idle < 1.0   # the work stopped with its sessions (it ran for minutes before)


def test_clear_cache_from_a_browser_wipes_nothing(class_server):
    measured = attacks.under_attack("clear_cache", class_server.url, class_server.pid, attacks.clear_caches,
                                    seed=12)
    assert measured.details == {"victim told its model was released": False,
                                "victim still offered its model": True}
    held_to_the_bounds(measured)


def test_made_up_widget_states_are_refused_before_they_are_stored(class_server):
    attacks.prepare_widget_flood()
    measured = attacks.under_attack("made-up widget states", class_server.url, class_server.pid,
                                    attacks.widget_flood, seed=13)
    assert measured.details == {"25 MB messages refused": 12, "small reruns answered": 150}
    held_to_the_bounds(measured)


def test_the_upload_endpoint_takes_only_what_an_uploader_asked_for(class_server):
    measured = attacks.under_attack("stray uploads", class_server.url, class_server.pid, attacks.stray_uploads,
                                    seed=14)
    assert measured.details["home was given upload URLs"] is False
    assert measured.details["files stored"] <= 2
    assert measured.details["refused"] >= 198
    held_to_the_bounds(measured)


def test_downloads_wait_their_turn_with_the_script_runs(class_server):
    measured = attacks.under_attack("downloads", class_server.url, class_server.pid, attacks.downloads, seed=16)
    built, refused = measured.details["downloads built"], measured.details["failed"]
    assert built + refused == 200 and built >= 200 // 6   # one of each six at once; the rest refused at once
    held_to_the_bounds(measured)


def test_a_flood_of_class_polls_rests_like_any_other_run(class_server):
    """Two seated students' tabs send their poll (a fragment's rerun) back to back for 15 s, while the other
    learner is connected (a session alone on the server never rests). Each run takes its session's place at the
    gate (server.gate.fragment) and spends at least RUN_OVERHEAD of its allowance, so the polls answered are
    bounded by what the allowance gives in that time, the last poll's rest (at most MAX_REST) and run included
    (before, with plain st.fragment: 4,752 polls, 316.8 a second, against a bound of 627, and the other learner
    2.04x slower)."""
    seconds, tabs = 15, 2
    measured = attacks.under_attack("class polls", class_server.url, class_server.pid,
                                    functools.partial(attacks.poll_flood, seconds=seconds, tabs=tabs), seed=17)
    assert measured.details["seated"] == [True] * tabs and measured.details["polls"] > 0
    spendable = ALLOWANCE + SHARE * (seconds + 2 * MAX_REST) + MAX_REST * SHARE   # full at the start, its debt capped
    assert measured.details["polls"] <= tabs * spendable / RUN_OVERHEAD, measured.line()
    held_to_the_bounds(measured)
    time.sleep(QUIET_AFTER_TYPIST)
