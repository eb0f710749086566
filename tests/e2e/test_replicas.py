"""Issue 17 in a real browser: two replicas behind HAProxy, started by `scripts/serve.sh` as a teacher would.

Sessions keep to their replica (the proxy's cookie) across reruns and page switches, own models (uploaded or
trained live) stay with their session, and uploads pass the proxy and Streamlit's XSRF check. A replica killed
under its learners moves them to a live process (the other replica, or its own restart), which draws their
view again from the URL and says what they lost, while the live replica's own learners notice nothing."""

from __future__ import annotations

import os
import re
import signal
import time
import urllib.request

import pytest
import torch
from playwright.sync_api import expect

from transformer import checkpoint
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.vocab import Vocab

from drivers.harness import ROOT, load, settle, type_text
from drivers.hostile import upload
from drivers.replicas import COOKIE, start_replicas, stop_replicas

pytestmark = pytest.mark.load   # the slowest tier: `python -m pytest -m "not load"` leaves it out



@pytest.fixture
def two_replicas(chromium_path, haproxy, request):
    served = start_replicas(2, ROOT / "artifacts" / f"e2e-{request.node.name[:48]}")
    yield served
    stop_replicas(served)


def replica_of(context) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == COOKIE)


def model_zip(d_model: int) -> bytes:
    torch.manual_seed(d_model)
    config = ModelConfig(d_model=d_model, n_heads=2, n_encoder_layers=1, n_decoder_layers=1, d_ff=32)
    return checkpoint.to_zip(checkpoint.Checkpoint(Transformer(config).eval(), Vocab(), {"task": "reverse"}))


def open_learner(browser, url: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    load(page, url, timeout=120_000)
    return context, page


def go_to(page, label: str) -> None:
    page.get_by_test_id("stSidebar").get_by_role("link", name=label, exact=True).click()
    settle(page)


def test_serve_prints_the_address_to_project(two_replicas):
    """Issue 65, problem 3: the script names the address phones reach the class at, the one the replicas build
    the join link from (EXPLORER_PUBLIC_URL); told to listen on 127.0.0.1, that is the proxy's own."""
    printed = (two_replicas.logs / "serve.out").read_text()
    assert f"the address to project, for phones on this network: {two_replicas.url}" in printed


def test_sessions_keep_their_replica_and_their_own_models_through_the_proxy(two_replicas, browser):
    learners = [open_learner(browser, f"{two_replicas.url}/training?text=level") for _ in range(2)]
    for i, (context, page) in enumerate(learners):
        first = replica_of(context)
        message = upload(page, f"mine-{i}.zip", model_zip(16 * (i + 1)))   # XSRF-checked, through the proxy
        assert "is now the model on every page" in message
        for label, word in (("Attention", "abc"), ("Decode step by step", "banana"), ("Home", "level")):
            go_to(page, label)
            type_text(page, word)
            assert page.locator("[data-testid='stException']").count() == 0, label
            # the model only the process that took the upload holds: the session stayed there
            expect(page.get_by_test_id("stSidebar")).to_contain_text(f"d_model {16 * (i + 1)}")
            assert replica_of(context) == first, label

    context, page = learners[0]                          # a live-trained model stays with its own session
    go_to(page, "Training")
    page.get_by_text("My own sizes").click()
    page.get_by_label("Steps", exact=True).fill("30")
    page.get_by_role("button", name="Start training").click()
    expect(page.get_by_text("Training finished after 30 steps", exact=False)).to_be_visible(timeout=120_000)
    settle(page)
    page.get_by_role("button", name="Look at it on every page").click()
    settle(page)
    go_to(page, "Attention")                             # a full run draws the sidebar again
    chosen = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").get_by_role("combobox")
    expect(chosen).to_have_value(re.compile(r"Your model \(reverse, 30 steps"))
    _, other = learners[1]
    go_to(other, "Attention")
    expect(other.get_by_test_id("stSidebar")).to_contain_text("d_model 32")          # still its own upload
    expect(other.locator("body")).not_to_contain_text("Your model (reverse, 30 steps")
    for context, _ in learners:
        context.close()


def view_in_url(page) -> dict[str, str]:
    return {k: v for k, v in re.findall(r"[?&]([^=&]+)=([^&]*)", page.url) if k != "model"}


def test_a_replica_killed_mid_class_moves_its_learners_and_says_what_they_lost(two_replicas, browser):
    view = "attention?text=level&kind=cross&layer=1&head=1"   # a head both models have
    on: dict[str, tuple] = {}
    opened = []
    while len(on) < 2 and len(opened) < 6:               # HAProxy balances new browsers by least connections
        learner = open_learner(browser, f"{two_replicas.url}/{view}")
        opened.append(learner)
        on.setdefault(replica_of(learner[0]), learner)
    assert len(on) == 2, f"every session went to {set(on)}"
    (lost_name, (_, victim)), (kept_name, (_, other)) = sorted(on.items())

    go_to(victim, "Training")
    upload(victim, "mine.zip", model_zip(16))
    go_to(victim, "Attention")
    sidebar = victim.get_by_test_id("stSidebar")
    expect(sidebar).to_contain_text("d_model 16")
    before = view_in_url(victim)
    assert before["head"] == "1" and "model=own" in victim.url

    pids = {f"replica{number}": pid for number, _, pid in two_replicas.table()}
    os.kill(pids[lost_name], signal.SIGKILL)             # the replica dies mid-class

    expect(sidebar.get_by_text("model of your own", exact=False)).to_be_visible(timeout=90_000)
    settle(victim)
    moved_to = replica_of(victim.context)
    now = {f"replica{number}": pid for number, _, pid in two_replicas.table()}
    # the live replica, or the dead one's new process when the script restarted it first (issue 65)
    assert moved_to == kept_name or now[lost_name] != pids[lost_name], f"{moved_to} still names the dead process"
    expect(sidebar).to_contain_text("2 encoder + 2 decoder layers")   # the bundled reverser again
    expect(sidebar.get_by_text("level", exact=True)).to_be_visible()
    assert view_in_url(victim) == before                 # the same view, drawn from the URL
    assert "model=own" not in victim.url
    assert victim.locator("[data-testid='stException']").count() == 0

    type_text(other, "banana")                           # the live replica's learner notices nothing
    expect(other.get_by_test_id("stSidebar").get_by_text("ananab", exact=True)).to_be_visible()
    assert other.get_by_test_id("stSidebar").get_by_test_id("stAlert").count() == 0
    assert replica_of(other.context) == kept_name
    type_text(victim, "banana")                          # and the moved learner works on
    expect(sidebar.get_by_text("ananab", exact=True)).to_be_visible()
    for context, _ in opened:
        context.close()

    # Issue 65 (P9): the script starts the dead replica again, says so, and its new process answers
    number, dead = int(lost_name.removeprefix("replica")), pids[lost_name]
    said = f"replica {number} (process {dead}) ended with exit code 137; starting it again"
    deadline, answered = time.monotonic() + 120, False
    while time.monotonic() < deadline and not answered:
        port, pid = next((p, q) for n, p, q in two_replicas.table() if n == number)
        try:
            answered = pid != dead and urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health",
                                                              timeout=2).read() == b"ok"
        except OSError:
            time.sleep(0.5)
    assert answered, "the killed replica was not started again"
    assert said in (two_replicas.logs / "serve.log").read_text()
    assert said in (two_replicas.logs / "serve.out").read_text()        # on the script's own output too
