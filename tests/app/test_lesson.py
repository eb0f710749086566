"""The Lesson page: every step asks first and grades each option against the model in use; a wrong answer gets
a hint and the answer on request; the step is in the URL; the keys and the teacher's sheet are there."""

import numpy as np
import pytest

from analysis import attribution
from analysis.offsets import run_offsets
from analysis.run import make_run
from teaching.steps import STEPS
from transformer.checkpoint import load_snapshot, snapshot_index
from transformer.intervention import Intervention, every_head

from .helpers import (canvas_charts, cell_rows, cell_table_with, compute_every_table, no_exception, open_page,
                      own_model_state, sample_tables)
from .test_entrypoint import open_app
from ..conftest import BUNDLED

TEXT = "banana"


@pytest.fixture(scope="module", autouse=True)
def page_tables():
    """The page's own whole-sample tables (steps 8 and 9), computed before the first page opens: they are
    cached for the whole process, as on the server, and a page run computing them would wait for all of them."""
    from explorer.cache import BUNDLED_CHECKPOINT
    from explorer.lab_runs import _ablation_table, _forced_table, _offset_table
    key = str(BUNDLED_CHECKPOINT)     # the key the page's runs and tables are cached under
    _ablation_table(key), _offset_table(key, kind="cross"), _forced_table(key, "z")


def answer_widget(at, step):
    widgets = [w for w in [*at.radio, *at.pills] if str(w.key).startswith(f"lesson_answer_{step}_")]
    assert len(widgets) == 1
    return widgets[0]


def graded_right(at, step) -> set[str]:
    """Every option the page calls right, found by checking each one."""
    right = set()
    for option in answer_widget(at, step).options:
        widget = answer_widget(at, step)
        widget.set_value(option).run()
        at.button(key=f"{widget.key}_check").click().run()
        no_exception(at)
        if any(s.value.startswith("Right") for s in at.success):
            right.add(option)
        else:
            assert any("Not quite" in w.value for w in at.warning), option       # a wrong pick gets a hint
    return right


def expected(ckpt, step: int) -> set[str]:
    """The right answer worked out here from the model, independently of the page."""
    model, vocab = ckpt.model, ckpt.vocab
    run = make_run(model, vocab, TEXT)
    if step == 5:
        return {run.decoder_out[2]}
    if step == 6:
        head = max(run_offsets(run, "cross", 0), key=lambda f: (f.best_share, f.mean_top_weight)).head
        i = int(run.trace["cross", 0][head, 3].argmax())
        return {f"{i}: {run.source[i]}"}
    if step == 7:
        steps = [e["step"] for e in snapshot_index(BUNDLED)]
        first = next((s for s in steps if make_run(load_snapshot(BUNDLED, s), vocab, TEXT).output == TEXT[::-1]), None)
        return {f"step {first:,}" if first is not None else "never"}
    if step == 9:
        effects, fits = sample_tables()
        offered = {f.id for f in fits}   # the heads on screen
        worst = max(e.drop for e in effects if e.head in offered)
        return {f"Cross L{e.head.layer} H{e.head.head}" for e in effects if e.head in offered and e.drop == worst}
    if step == 10:
        off = Intervention(frozenset(h for h in every_head(model.config.layers_per_kind, model.config.n_heads)
                                     if h.kind == "encoder_self"))
        reverses = make_run(model, vocab, TEXT, edit=off).output == TEXT[::-1]
        return {"yes, the exact reversal" if reverses else "no, something else"}
    if step == 11:   # the first written step whose most-weighed position is not among the swaps' largest drops
        occluded = attribution.occlusion(model, vocab, run, attribution.QUICK_LETTERS, attribution.QUICK_COUNT)
        looked = run.trace["cross", model.config.n_decoder_layers - 1].mean(0).argmax(-1)       # (T,)
        moving = [t for t in range(len(TEXT)) if np.ptp(occluded[t]) > 1e-3]
        t = next((t for t in moving if occluded[t, looked[t]] < occluded[t].max() - 1e-3), moving[0])
        return {f"{i}: {c}" for i, c in enumerate(TEXT) if occluded[t, i] >= occluded[t].max() - 1e-3}
    raise AssertionError(step)


@pytest.mark.slow   # each kind answered by the model, as a learner would
@pytest.mark.parametrize("step", [5, 6, 7, 9, 10, 11],
                         ids=["token", "position", "snapshot", "head", "choice", "swapped position"])
def test_each_kind_of_question_calls_right_exactly_the_models_answer(ckpt, step):
    at = open_page("lesson", TEXT, state={"lesson_step": step})
    no_exception(at)
    assert at.header[0].value.startswith(f"Step {step} of {len(STEPS)}")
    assert graded_right(at, step) == expected(ckpt, step)


@pytest.mark.parametrize("step", [1, 2, 3, 4, 8])
def test_the_other_steps_ask_grade_and_reveal(step):
    at = open_page("lesson", TEXT, state={"lesson_step": step})
    no_exception(at)
    assert len(graded_right(at, step)) >= 1


def test_a_wrong_answer_gets_a_hint_then_the_answer_on_request_with_the_reveal():
    at = open_page("lesson", TEXT, state={"lesson_step": 6})
    widget = answer_widget(at, 6)
    widget.set_value(widget.options[0]).run()                      # source position 0: not what step 3 reads
    at.button(key=f"{widget.key}_check").click().run()
    assert any(w.value.startswith("Not quite") and "Where in your text" in w.value for w in at.warning)
    assert not canvas_charts(at)                                   # nothing revealed yet
    at.button(key=f"{widget.key}_show").click().run()
    assert any("The model" in i.value and "answer" in i.value for i in at.info)
    assert len(canvas_charts(at)) == 1                             # the cross-attention, revealed


def test_a_learners_own_model_gets_its_own_answers():
    from explorer.live_training import LiveSettings, LiveTraining
    live = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    live.run()
    own = live.result
    state = own_model_state(own, "Your model")
    at = open_page("lesson", "abc", state={**state, "lesson_step": 5})
    no_exception(at)
    run = make_run(own.model, own.vocab, "abc")
    assert graded_right(at, 5) == {run.decoder_out[min(2, len(run.decoder_out) - 1)]}
    at = open_page("lesson", "abc", state={**state, "lesson_step": 7})
    assert any("no training snapshots" in i.value for i in at.info)       # said, not a dead end
    assert at.button[1].label == "Next" and not at.button[1].disabled     # the tour goes on


def compute_buttons(at) -> list:
    return [b for b in at.button if b.key and b.key.startswith("compute_")]


def test_an_own_models_steps_8_and_9_show_their_evidence_then_ask_for_each_missing_table():
    """An own model's whole-sample tables are computed when the learner asks: what needs no table is on screen
    above the question that asks, and step 9 asks for both of its tables before its question."""
    from explorer.live_training import LiveSettings, LiveTraining
    live = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    live.run()
    state = own_model_state(live.result, "Your model")
    at = open_page("lesson", "abc", state={**state, "lesson_step": 8})
    no_exception(at)
    assert any(m.value == "**What the model writes on its own**" for m in at.markdown)
    assert compute_buttons(at) and not at.dataframe and not at.radio and not at.pills
    compute_buttons(at)[-1].click().run()
    assert "held-out words" in at.dataframe[0].value.columns and not compute_buttons(at)
    assert answer_widget(at, 8)                                            # the question, once the table is in
    at = open_page("lesson", "abc", state={**state, "lesson_step": 9})
    assert compute_buttons(at) and not at.dataframe
    assert compute_every_table(at) == 2                                    # the offsets, then the costs
    assert [list(d.value.columns)[-1] for d in at.dataframe] == ["mean largest weight"]   # before the answer
    assert answer_widget(at, 9)


def test_the_step_is_in_the_link_and_the_arrow_keys_move_it():
    at = open_app({"text": "level", "lesson_step": "4"}, "lesson")
    no_exception(at)
    assert at.header[0].value == "Step 4 of 13 · Masks"
    back, forward = at.button[0], at.button[1]
    assert (back.proto.shortcut, forward.proto.shortcut) == ("left", "right")
    forward.click().run()
    assert at.header[0].value.startswith("Step 5 of 13")
    at.button[0].click().run()
    at.button[0].click().run()
    assert at.header[0].value.startswith("Step 3 of 13")


def prepared_sheets(at, monkeypatch) -> dict[str, str]:
    """Press "Prepare the teacher's sheet" and return the files its download buttons hold, by extension, as
    Streamlit's own media store received them."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    received = {}
    store = MemoryMediaFileStorage.load_and_get_id

    def keep(self, path_or_data, mimetype, kind, filename=None):
        if filename:
            received[filename.rsplit(".", 1)[-1]] = path_or_data.decode() if isinstance(path_or_data, bytes) \
                else path_or_data
        return store(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", keep)
    assert not at.get("download_button")           # nothing is built before the teacher asks
    at.button(key="prepare_sheet").click().run()
    no_exception(at)
    assert [b.label for b in at.get("download_button")] == ["Teacher's sheet (Markdown)",
                                                            "Teacher's sheet (printable HTML)"]
    return received


def expected_in_sheet(sheet: str, step: int) -> list[str]:
    section = sheet.split(f"## Step {step} ")[1].split("## Step")[0]
    return [line[2:].removesuffix(" **← expected**") for line in section.splitlines() if "← expected" in line]


def test_the_teachers_sheet_is_offered_in_two_formats(monkeypatch):
    at = open_page("lesson", TEXT)
    sheets = prepared_sheets(at, monkeypatch)
    assert set(sheets) == {"md", "html"} and TEXT in sheets["md"] and "<h1>" in sheets["html"]
    assert expected_in_sheet(sheets["md"], 5) == sorted(graded_right(open_page("lesson", TEXT, state={
        "lesson_step": 5}), 5))


def test_the_teachers_sheet_of_an_own_model_carries_its_answers(monkeypatch):
    """Issue 24: the sheet was built when the button was pressed, outside the session's run, so it read the
    bundled model under a header naming the own one."""
    from explorer.live_training import LiveSettings, LiveTraining
    live = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    live.run()
    own, text = live.result, "abc"
    step = 5
    at = open_page("lesson", text, state={**own_model_state(own, "Your model"), "lesson_step": step})
    sheets = prepared_sheets(at, monkeypatch)
    own_answer = graded_right(at, step)
    bundled_answer = graded_right(open_page("lesson", text, state={"lesson_step": step}), step)
    assert own_answer != bundled_answer              # the two models differ here, so the sheet can tell them apart
    assert "your own model" in sheets["md"]
    assert set(expected_in_sheet(sheets["md"], step)) == own_answer
    assert "computed on request" in sheets["md"]     # step 9's table of an own model was not asked for


def test_the_step_buttons_are_never_disabled_so_the_keyboards_focus_stays_on_them():
    """A disabled button drops the focus to the page body: at the ends, Previous stays and says so, and Next
    (the same button, by its key) starts again."""
    at = open_page("lesson", TEXT, state={"lesson_step": 1})
    previous, following = at.button(key="lesson_previous"), at.button(key="lesson_next")
    assert not previous.disabled and not following.disabled and following.label == "Next"
    previous.click().run()
    assert at.slider(key="lesson_step").value == 1
    assert any("first step" in t.value for t in at.toast)
    at = open_page("lesson", TEXT, state={"lesson_step": len(STEPS)})
    following = at.button(key="lesson_next")
    assert following.label == "Start again" and not following.disabled
    following.click().run()
    assert at.slider(key="lesson_step").value == 1 and at.button(key="lesson_next").label == "Next"
    at.button(key="lesson_next").click().run()
    assert at.slider(key="lesson_step").value == 2


@pytest.mark.parametrize("step", [3, 7])
def test_in_projector_mode_a_step_is_a_slide_its_words_left_and_its_numbers_right(step):
    """For a hall's first screen: the intro folds, the words and the question take the left column and the
    step's chart or table the right; tables are plain HTML, in the page's enlarged type."""
    plain = open_page("lesson", TEXT, state={"lesson_step": step})
    at = open_page("lesson", TEXT, state={"lesson_step": step, "projector": True})
    no_exception(at)
    assert at.title[0].value == "🎓 Lesson" and plain.title[0].value.startswith("🎓 Lesson: how")
    assert [e.label for e in at.expander][0].endswith("about this lesson")
    words, numbers = at.columns[-2], at.columns[-1]
    assert words.header[0].value.startswith(f"Step {step} of")
    assert any(w.key.startswith(f"lesson_answer_{step}_") for w in [*words.radio, *words.get("button_group")])
    if step == 3:   # the head's heatmap, on the right in projector mode
        heatmaps = [c for c in numbers.get("bidi_component") if c.proto.component_name.endswith("canvas_heatmap")]
        assert len(heatmaps) == 1 == len(canvas_charts(plain))
        row = cell_rows(cell_table_with(at, "Row 0 alone, on a colour scale of its own"))   # and its row 0 alone
        drawn = canvas_charts(plain)["lesson_head"]["panels"][0]["z"][0]             # the heatmap's row 0 (4 places)
        assert np.allclose(next(iter(row.values())), drawn, atol=5e-4)
    else:           # the snapshots' table: a data grid, and plain HTML in projector mode
        assert len(numbers.table) == 1 and not at.dataframe and len(plain.dataframe) == 1
        assert numbers.table[0].value.shape == plain.dataframe[0].value.shape


def test_step_12_shows_the_heads_cost_and_asks_which_pattern_is_enough():
    """The optional twelfth step: step 9's costliest cross head, what it costs and where it looks, before a
    question over three patterns; the reveal's table holds each pattern's exact match (recomputed in
    tests/unit/test_step_views.py)."""
    at = open_page("lesson", TEXT, state={"lesson_step": 12})
    no_exception(at)
    assert at.header[0].value.startswith(f"Step 12 of {len(STEPS)}")
    labels = [m.label for m in at.metric]
    assert "Exact match lost with Cross L0 H3 off (step 9)" in labels and "Steps with its largest weight on n−i" in labels
    (radio,) = [r for r in at.radio if r.key and r.key.startswith("lesson_answer_12")]
    assert [o.split(":")[0] for o in radio.options] == ["n − i", "n − 1 − i", "uniform"]


def test_step_13_sets_hello_beside_its_twin_and_reveals_the_weights_set_by_hand():
    """The optional thirteenth step on "hello": one table of the two texts before the vote (their weights are
    recomputed in tests/unit/test_step_views.py), four readings to pick from, and after the right pick the
    held-out table and the numbers behind it."""
    at = open_page("lesson", "hello", state={"lesson_step": 13})
    no_exception(at)
    assert at.header[0].value.startswith(f"Step 13 of {len(STEPS)}")
    (before,) = at.dataframe
    assert list(before.value.index)[0] == "hello" and "last layer on n − i" in before.value.columns
    (radio,) = [r for r in at.radio if r.key and r.key.startswith("lesson_answer_13")]
    assert len(radio.options) == 4 and radio.options[1].startswith("The letter just read")
    radio.set_value(radio.options[1]).run()
    [b for b in at.button if b.label == "Check my answer"][0].click().run()
    no_exception(at)
    page = " ".join(m.value for m in at.markdown) + " ".join(s.value for s in at.success)
    assert "half on n − 1 − i and half on n − i" in page and len(at.dataframe) == 2
