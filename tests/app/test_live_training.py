"""Training a model from the page: start, watch, stop, use it on other pages (this session only),
download it, one job per learner in the server's heavy lane, and uploads checked before use."""

import gc
import threading
import time
import weakref

import numpy as np
import pytest
import torch

from explorer import live_runs
from explorer.cache import BUNDLED_CHECKPOINT
from server.gate import server_gate
from server.heavy_lane import HeavyLane
from explorer.own_models import OWN_MODEL_KEY
from explorer.pages import PAGES
from transformer import checkpoint
from explorer.live_training import LIMITS, LiveSettings, LiveSettingsError, LiveTraining

from ..conftest import zip_of
from .helpers import (canvas_charts, compute_every_table, no_exception, open_page, own_model_state, own_shelf,
                      figures, plotly_series)


def wait_until_done(run, seconds=120):
    deadline = time.monotonic() + seconds   # a guard against a hung thread, not a speed requirement
    while not run.progress.done and time.monotonic() < deadline:
        time.sleep(0.1)
    assert run.progress.done, run.progress


STARTED = []   # every run a test started, stopped after it


def start_button(at):
    """The form's submit button, "Start training" (it has no key)."""
    return next(b for b in at.button if b.label == "Start training")


def start_from_page(steps=40, d_model=16, layers=1, text="banana"):
    at = open_page("training", text)
    at.radio(key="live_sizing").set_value("My own sizes").run()
    at.number_input(key="live_steps").set_value(steps)
    at.selectbox(key="live_d_model").set_value(d_model)
    at.selectbox(key="live_layers").set_value(layers)
    start_button(at).click().run()
    no_exception(at)
    run = own_shelf(at).live_run
    STARTED.append(run)
    return at, run


@pytest.fixture(autouse=True)
def no_runs_left_behind():
    yield
    for run in STARTED:
        if run is not None:
            run.stop.set()
            wait_until_done(run)
    STARTED.clear()
    lane, deadline = server_gate().lane, time.monotonic() + 10   # a run gives its ticket back just after it is done
    while len(lane) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(lane) == 0


def test_a_short_run_from_the_page_finishes_and_draws_its_curves():
    at, run = start_from_page(steps=40)
    wait_until_done(run)
    at.run()
    no_exception(at)
    p = run.progress
    assert p.status == "finished" and p.step == 40
    drawn = figures(at)
    loss, matches = plotly_series(drawn["live_curves"], "x"), plotly_series(drawn["live_matches"], "x")
    assert list(loss["training loss"]) == list(range(1, 41))                      # a loss point after every step
    assert [s for s, _ in p.exact_match] == list(matches["held-out exact match"]) == [25, 40]
    assert np.allclose(plotly_series(drawn["live_curves"], "customdata")["training loss"], [v for _, v in p.loss])
    assert "Training finished after 40 steps" in at.success[0].value
    assert [d.label for d in at.get("download_button")] == ["Download it (zip)"]
    assert run.result.model.config.d_model == 16 and run.result.metrics["steps_done"] == 40
    again = checkpoint.from_zip(live_runs.result_zip(weakref.ref(run)), name="mine.zip")   # what the download holds
    assert again.metrics == run.result.metrics
    assert all(torch.equal(a, b) for a, b in zip(again.model.state_dict().values(),
                                                 run.result.model.state_dict().values()))


def test_the_trained_model_is_used_on_other_pages_of_this_session_only():
    at, run = start_from_page(steps=20, layers=1)
    wait_until_done(run)
    at.run()
    at.button(key="live_use").click().run()
    own = at.session_state[OWN_MODEL_KEY]
    assert own_shelf(at).models[own] is run.result
    mine = open_page("attention", "banana", state={k: at.session_state[k] for k in ("_session_token", OWN_MODEL_KEY)})
    no_exception(mine)
    grid = canvas_charts(mine)["grid"]["panels"]
    assert {p["title"].split(" ")[0] for p in grid} == {"L0"}                 # the one-layer model
    everyone_else = open_page("attention", "banana")
    assert {p["title"].split(" ")[0] for p in canvas_charts(everyone_else)["grid"]["panels"]} == {
        "L0", "L1"}                                                          # still the bundled model


def test_stop_ends_the_run_early_and_keeps_what_it_learned():
    at, run = start_from_page(steps=3000, d_model=16)
    while run.progress.step < 3:
        time.sleep(0.05)
    at.run()
    at.button(key="live_stop").click().run()
    wait_until_done(run)
    assert run.progress.status == "stopped" and 3 <= run.progress.step < 3000
    at.run()
    assert "Training stopped" in at.success[0].value
    assert run.result.metrics["steps_done"] == run.progress.step


def test_one_job_per_learner_and_the_next_learner_waits_in_the_heavy_lane(monkeypatch):
    """Every AppTest session is one learner (one session id); another is made by naming it otherwise."""
    monkeypatch.setattr(live_runs, "learner", lambda: "browser:first")
    at, run = start_from_page(steps=3000)
    start_button(at).click().run()                   # again, from the same learner (a tab of the same browser)
    assert "in the server's line already (training a model)" in at.error[0].value.replace("\\", "")
    monkeypatch.setattr(live_runs, "learner", lambda: "browser:second")
    late_at, late = start_from_page(steps=40)
    while late.progress.ahead == 0:                  # told its place once it has waited half a second
        time.sleep(0.1)
    assert late.progress.status == "waiting" and late.progress.step == 0 and run.progress.status == "running"
    late_at.run()
    assert "1 job ahead of it in the server's line" in late_at.get("progress")[0].proto.text
    run.stop.set()
    wait_until_done(run)
    wait_until_done(late)                            # its turn came once the first ended
    assert late.progress.status == "finished" and late.progress.step == 40
    assert len(server_gate().lane) == 0


def test_a_run_stops_when_its_session_has_gone(monkeypatch):
    run = LiveTraining(LiveSettings(d_model=16, steps=3000))
    lane = HeavyLane()
    monkeypatch.setattr(live_runs, "session_alive", lambda session: False)
    live_runs._train(run, "gone", lane, lane.enter("gone", live_runs.TRAINING))
    assert run.progress.status == "stopped" and run.progress.step == 0
    assert len(lane) == 0


def test_a_run_waiting_in_line_leaves_it_when_its_tab_closes(monkeypatch):
    lane = HeavyLane()
    first = lane.enter("someone else", "another job")
    run = LiveTraining(LiveSettings(d_model=16, steps=3000))
    alive = [True]
    monkeypatch.setattr(live_runs, "session_alive", lambda session: alive[0])
    waiting = threading.Thread(target=live_runs._train, args=(run, "tab", lane, lane.enter("tab", "training")))
    waiting.start()
    while run.progress.ahead != 1:
        time.sleep(0.05)
    alive[0] = False
    waiting.join(10)
    assert run.progress.status == "stopped" and run.progress.step == 0
    assert len(lane) == 1 and lane.ahead(first) == 0


def test_a_download_never_keeps_a_run_alive():
    run = LiveTraining(LiveSettings(d_model=16, steps=10))
    run.run()
    held = weakref.ref(run)
    assert checkpoint.from_zip(live_runs.result_zip(held)).metrics["steps_done"] == 10
    del run
    gc.collect()
    assert held() is None and live_runs.result_zip(held) == b""


def test_bad_settings_are_refused_by_the_library():
    with pytest.raises(LiveSettingsError, match=f"steps must be between 10 and {LIMITS['steps'][1]}, got 100000"):
        LiveSettings(steps=100_000).check()
    with pytest.raises(LiveSettingsError, match=r"part 2 \('spin'\) is not an operation"):
        LiveSettings(task="reverse|spin").check()
    with pytest.raises(ValueError, match="divisible by heads"):
        LiveSettings(d_model=16, heads=3).check()


def test_an_uploaded_checkpoint_becomes_this_sessions_model_and_the_uploader_starts_afresh():
    at = open_page("training", "level")
    at.file_uploader(key="upload_0").set_value(("mine.zip", checkpoint.to_zip(BUNDLED_CHECKPOINT), "application/zip"))
    at.run()
    no_exception(at)
    own = at.session_state[OWN_MODEL_KEY]
    assert own.startswith("own:") and own_shelf(at).models[own].model.config.n_heads == 4
    assert at.session_state["model_choice"].startswith("Uploaded: mine.zip")
    assert "is now the model on every page" in at.success[0].value
    assert [u.key for u in at.get("file_uploader")] == ["upload_1"]   # the bytes are not kept by the old one


def test_a_sorter_uploaded_while_reverse_is_chosen_is_said_to_be_a_sorter_and_never_scored_on_reversal():
    from transformer.checkpoint import bundled_checkpoint
    at = open_page("training", "level", state={"task": "reverse"})
    at.file_uploader(key="upload_0").set_value(("sorter.zip", checkpoint.to_zip(bundled_checkpoint("sort")),
                                                "application/zip"))
    at.run()
    no_exception(at)
    assert "trained to sort, not to reverse" in at.warning[0].value.replace("\\", "")
    assert at.session_state["task"] == "sort"                       # the selector now names the model's own task
    assert "trained to sort, so every page scores it on the sorted text" in at.success[0].value.replace("\\", "")
    home = open_page("home", "level", state={k: at.session_state[k] for k in
                                              ("_session_token", "_own_models", "own_model", "model_choice", "task")})
    assert [m.value for m in home.metric if m.label == "The model writes"] == ["eellv"]


@pytest.mark.parametrize("data, reason", [
    (b"not a zip at all", "not a zip file"),
    (zip_of({"model.safetensors": b"x", "config.json": b"{}", "metrics.json": b"{}", "evil.py": b"1"}),
     "unexpected evil.py"),
    (zip_of({"model.safetensors": b"\x80\x04junk", "config.json": (BUNDLED_CHECKPOINT / "config.json").read_bytes(),
             "metrics.json": b"{}"}), "model.safetensors"),
])
def test_a_bad_upload_gets_a_clear_message_and_changes_nothing(data, reason):
    at = open_page("training", "level")
    at.file_uploader(key="upload_0").set_value(("bad.zip", data, "application/zip"))
    at.run()
    no_exception(at)
    assert reason in at.error[0].value.replace("\\", "")
    assert OWN_MODEL_KEY not in at.session_state and "model_choice" not in at.session_state


@pytest.fixture(scope="module")
def small_model():
    """Session state with a one-layer, two-head model trained for a few steps, as a learner's live run leaves it."""
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    run.run()
    return own_model_state(run.result)


BUNDLED_ONLY = {"lesson", "how_it_reverses", "compare_tasks"}   # the bundled reverser, or all three bundled models
TRAINED_PAGES = [p.id for p in PAGES if (p.svgs or p.plotlys or p.canvases) and p.id not in BUNDLED_ONLY]


@pytest.mark.slow   # every page on a live-trained model
@pytest.mark.parametrize("page", ["home", *TRAINED_PAGES])
def test_every_page_works_with_a_small_live_trained_model(page, small_model):
    at = open_page(page, "level", state=small_model)
    no_exception(at)
    compute_every_table(at)    # the lab's tables of an own model are computed on request
    assert not at.error and not at.warning
    too_long = open_page(page, "abcdefg", state=small_model)   # 7 > its max_len of 6
    no_exception(too_long)
    assert "at most 6" in too_long.error[0].value


def test_a_live_run_learns_the_task_it_is_given_and_its_model_says_so():
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=20, max_len=4, task="sort"), eval_n=30)
    run.run()
    assert run.progress.status == "finished" and run.result.task == "sort"
    assert run.result.metrics["task"].startswith("sort")
    with pytest.raises(LiveSettingsError, match="'shuffle' is not an operation"):
        LiveSettings(task="shuffle").check()
