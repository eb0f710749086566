"""Every page under each task: the sidebar's Task picks the bundled model, and the pages speak of that task's
own target and attention pattern."""


import numpy as np
import pytest

from analysis.circuits import CONTENT_CONTENT, FOUR, POSITION_POSITION, TERMS, score_split, sharpest_head
from analysis.run import make_run
from analysis.tasks import WORDS
from explorer.cache import SHARED_TABLES, TABLES_COMPUTED
from explorer.pages import BY_ID
from transformer.checkpoint import bundled_checkpoint, load
from transformer.data import TASKS, source_positions, target


from .helpers import canvas_charts, decode_sentences, open_page
from .test_entrypoint import open_app

TEXT = "banana split"
REVERSAL_ONLY = {"how_it_reverses", "lesson"}         # built on the reversal model: they offer to switch back
PAGE_NAMES = sorted(BY_ID)


def page_text(at) -> str:
    return " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.info, *at.metric, *at.header])


@pytest.mark.parametrize("task", list(TASKS))
@pytest.mark.parametrize("page", PAGE_NAMES)
def test_every_page_runs_under_every_task(page, task):
    """...and its default view reads every whole-sample table from the checkpoint's stored tables (a fresh
    server's first visitor waits for none of them)."""
    SHARED_TABLES.clear()                        # what earlier tests computed must not hide a missing table
    computed = sum(TABLES_COMPUTED.values())
    at = open_page(page, TEXT, state={"task": task})
    assert not at.exception, [e.value for e in at.exception]
    assert sum(TABLES_COMPUTED.values()) == computed, f"computed instead of read: {TABLES_COMPUTED}"
    if page in REVERSAL_ONLY and task != "reverse":
        assert "built on the reversal model" in " ".join(i.value for i in at.info)
        at.button(key="back_to_reverse").click().run()
        assert not at.exception and at.session_state["task"] == "reverse"
        assert not [i for i in at.info if "built on the reversal model" in i.value]


@pytest.mark.parametrize("task", list(TASKS))
def test_home_shows_the_chosen_models_answer(task):
    at = open_page("home", TEXT, state={"task": task})
    written = next(m for m in at.metric if m.label == "The model writes")
    assert written.value == target(TEXT, task).replace(" ", "␣")
    assert f"correct: {WORDS[task].output}" in str(written.proto.delta)
    assert WORDS[task].verb in page_text(at)


@pytest.mark.parametrize("task", list(TASKS))
def test_attention_and_decode_name_the_tasks_own_pattern(task):
    at = open_page("attention", TEXT, state={"task": task, "kind": "cross"})
    assert f"falls on {WORDS[task].pattern}" in page_text(at)
    step = 1
    at = open_page("decode", TEXT, state={"task": task})
    expected = source_positions(TEXT, task)[step]
    assert f"to {task}, step {step} copies source position <strong>{expected}</strong>" in decode_sentences(at, step)


@pytest.mark.parametrize("task", list(TASKS))
def test_training_page_curves_name_the_pattern(task):
    at = open_page("training", TEXT, state={"task": task})
    assert f"Output steps on {WORDS[task].pattern}" in [m.label for m in at.metric]
    ckpt = load(bundled_checkpoint(task))
    assert ckpt.metrics["curve"], "every bundled checkpoint ships its learning curves"


def test_compare_tasks_shows_the_three_outputs_side_by_side():
    at = open_page("compare_tasks", TEXT)
    written = [m.value for m in at.metric if m.label == "writes"]
    assert written == [target(TEXT, task).replace(" ", "␣") for task in WORDS]
    best = {f"best_{t}" for t in TASKS}
    assert not at.get("plotly_chart")                                  # every map on the canvas, the open tab's
    assert set(canvas_charts(at)) == best | {"grid_reverse", "split_reverse"}          # grid and terms only


def test_compare_tasks_says_when_a_model_gets_the_text_wrong_beside_its_held_out_score():
    """The sorter writes 99.98 % of held-out strings exactly but not the pangram (9 spaces for 8): the page says
    so beside the number, and says nothing of the kind under a model that gets the text right."""
    pangram = "the quick brown fox jumps over the lazy dog"
    wrong = {task for task in TASKS
             if make_run(load(bundled_checkpoint(task)).model, load(bundled_checkpoint(task)).vocab, pangram,
                         task=task).output != target(pangram, task)}
    assert wrong, "some bundled model must get the pangram wrong for this test to mean anything"
    at = open_page("compare_tasks", pangram)
    notes = [c.value for c in at.caption if c.value.startswith("Wrong on your text")]
    scores = {f"{load(bundled_checkpoint(t)).metrics['held_out']['exact_match']:.2%}" for t in wrong}
    assert len(notes) == len(wrong) and all(any(score in n for n in notes) for score in scores)


@pytest.mark.parametrize("task", list(TASKS))
def test_compare_tasks_draws_the_grid_of_the_open_tab_only(task):
    """The tabs are lazy: only the open tab's grid is built, and it is that model's cross-attention."""
    at = open_page("compare_tasks", TEXT, state={"task": task})
    tabbed = lambda: {k for k in canvas_charts(at) if not k.startswith("best_")}   # noqa: E731
    assert tabbed() == {f"grid_{task}", f"split_{task}"}
    other = next(t for t in TASKS if t != task)
    at.session_state["grid_task"] = WORDS[other].label
    at.run()
    grids = canvas_charts(at)
    assert tabbed() == {f"grid_{other}", f"split_{other}"}
    assert WORDS[other].label in grids[f"grid_{other}"]["title"]


@pytest.mark.parametrize("task", list(TASKS))
def test_the_task_in_the_url_switches_the_model_card(task):
    at = open_app({"task": task, "text": TEXT}, "home")
    assert not at.exception
    card = " ".join(m.value for m in at.sidebar.markdown)
    assert f"task: {WORDS[task].verb}" in card
    assert at.sidebar.markdown and any(target(TEXT, task).replace(" ", "␣") in m.value for m in at.sidebar.markdown)


@pytest.mark.parametrize("text", ["hello", "the quick brown fox jumps over the lazy dog"], ids=["hello", "43 characters"])
def test_compare_tasks_says_whether_position_or_content_drives_each_models_layer_0_head(text):
    at = open_page("compare_tasks", text)
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    words = " ".join(m.value for m in at.markdown)
    for row, task in zip(table.to_dict("records"), TASKS):
        ckpt = load(bundled_checkpoint(task))
        trace = make_run(ckpt.model, ckpt.vocab, text, task=task).trace
        split = score_split(ckpt.model, trace, "cross", 0, sharpest_head(trace, "cross", 0))
        shares = split.shares()
        assert row["head"] == f"cross L0 H{split.head}"
        assert [row[name] for name in TERMS] == pytest.approx([shares[name] for name in TERMS], abs=1e-9)
        position, content = shares[POSITION_POSITION], shares[CONTENT_CONTENT]
        largest = max(shares, key=shares.get)
        verdict = "position weighs more than content" if position > content else "content weighs more than position"
        assert (f"**{WORDS[task].label}**, cross L0 H{split.head}: the largest part is *{largest}* "
                f"(**{shares[largest]:.1%}**). Position·position carries **{position:.1%}** and content·content "
                f"**{content:.1%}**, so of these two, on your text, {verdict}.") in words
    open_task = "reverse"                                      # the tab open by default
    ckpt = load(bundled_checkpoint(open_task))
    trace = make_run(ckpt.model, ckpt.vocab, text, task=open_task).trace
    split = score_split(ckpt.model, trace, "cross", 0, sharpest_head(trace, "cross", 0))
    panels = canvas_charts(at)[f"split_{open_task}"]["panels"]
    assert [p["title"] for p in panels] == list(FOUR)
    for name, panel in zip(FOUR, panels):
        assert np.allclose(np.array(panel["z"], dtype=float), split.centred(name), atol=5e-5)

    at.selectbox(key="split_head").set_value(0).run()
    assert list(at.dataframe[0].value["head"]) == ["cross L0 H0"] * len(TASKS)
