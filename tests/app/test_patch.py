"""Build a head: the page asks for a prediction before it shows anything measured, then shows what the model writes
with the pattern in place and exact match in and past the trained length, in sentences that follow the numbers."""

import pytest

from analysis.patching import Placement, patched, pattern_label, verdict
from explorer.lab_runs import NOISE_POINTS
from explorer.cache import checkpoint_for
from transformer.decoding import generate
from transformer.checkpoint import bundled_checkpoint
from transformer.data import target

from .helpers import compute_every_table, no_exception, open_page, own_model_state

OUTCOMES = {"kept": 0, "part": 1, "lost": 2}


def answer(at, wrote="yes", outcome=0):
    """Answer the two prediction questions (the page's only radios)."""
    at.radio[0].set_value(wrote)
    at.radio[1].set_value(at.radio[1].options[outcome]).run()
    no_exception(at)
    return at


def shown(at) -> str:
    return " ".join(str(e.value) for e in [*at.markdown, *at.caption])


def patched_output(ckpt, text, pattern, layer, head=None):
    """What the model writes with the pattern in place, as a metric shows it."""
    edit = patched(pattern, ckpt.task, Placement(layer, head), ckpt.model)
    written = ckpt.vocab.decode(generate(ckpt.model, ckpt.vocab.encode(text, ckpt.model.config.max_len), edit=edit))
    return written.replace(" ", "␣") or "(nothing)"


def check_reveal(at, ckpt, text, pattern, layer, head=None):
    """What the revealed page shows is the model's: the outputs, and sentences holding the table's numbers."""
    written = [m.value for m in at.metric]
    assert written[1] == patched_output(ckpt, text, pattern, layer, head)
    table = at.dataframe[0].value
    own, mine = table.iloc[0, 1], table.iloc[0, 2]
    assert f"{mine:.1%}" in shown(at) and f"{own:.1%}" in shown(at)
    outcome = verdict(mine, own)
    said = {"kept": "is enough", "part": "carries part of the job", "lost": "is not enough"}[outcome]
    assert said in shown(at)
    assert f"it did **{at.radio[1].options[OUTCOMES[outcome]]}**" in shown(at)   # the measured outcome, named
    if len(table) == 2:                                  # past the trained length: the sentence follows the row
        own_past, mine_past = table.iloc[1, 1], table.iloc[1, 2]
        better = mine_past - own_past > NOISE_POINTS / 100
        assert ("the pattern does better than the model's own weights" in shown(at)) == better
        if better:      # a rescue is only part of the story while many words stay wrong with n handed over
            still = f"the {1 - mine_past:.0%} still wrong with n handed over"
            assert (still in shown(at)) == (mine_past < 0.9)
    return table


@pytest.mark.parametrize("task, pattern", [("reverse", "task"), ("copy", "task+1")])
def test_the_page_asks_first_then_shows_the_pattern_at_work(task, pattern):
    text = "banana split"
    ckpt = checkpoint_for(str(bundled_checkpoint(task)))
    last = ckpt.model.config.n_decoder_layers - 1
    at = open_page("lab_patch", text, state={"task": task, "patch_pattern": pattern})
    no_exception(at)
    assert not at.dataframe and len(at.metric) == 0                 # nothing measured before the prediction
    assert "Answer both questions" in at.info[0].value
    assert at.selectbox(key="patch_pattern").value == pattern
    answer(at)
    assert at.metric[0].value == target(text, task).replace(" ", "␣")   # the model's own, the task's target
    table = check_reveal(at, ckpt, text, pattern, last)
    assert len(table) == 2 and "49–56 characters" in table.iloc[1, 0]    # past the trained length of 48
    assert pattern_label(pattern, task) in shown(at)


@pytest.fixture(scope="module")
def small_model():
    """Session state with a one-layer, two-head model trained for a few steps, as a learner's live run leaves it."""
    from explorer.live_training import LiveSettings, LiveTraining
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    run.run()
    return own_model_state(run.result), run.result


def test_a_live_trained_model_computes_its_tables_on_request(small_model):
    state, loaded = small_model
    at = answer(open_page("lab_patch", "level", state={**state, "patch_pattern": "uniform"}))
    assert compute_every_table(at) == 2      # the model's own weights, then the pattern
    assert not at.error and not at.warning
    table = at.dataframe[0].value
    assert "7–12 characters" in table.iloc[1, 0]    # past its trained length of 6, up to twice it
    assert at.metric[1].value == patched_output(loaded, "level", "uniform", 0)
