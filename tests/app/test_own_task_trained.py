"""A model trained here for rotate:2, a rule no bundled model knows, as a learner's own model. The lesson: every
step runs, is worded for the rule, and the answers the page accepts are what this model does, worked out here from
the model again. Compare tasks: the model beside the three bundled ones, its numbers the model's own. The quiz: asked and
answered by this model."""

import subprocess
import sys

import pytest

from analysis.lesson import forced_outcome
from analysis.offsets import run_offsets
from analysis.run import Decoding, make_run
from teaching import quiz as qz
from teaching.questions import forced_options
from teaching.step_views import encoder_heads, forced_token
from transformer.checkpoint import load
from transformer.data import source_positions, target
from transformer.intervention import Head, Intervention

from .helpers import no_exception, open_page, own_model_state
from .test_lesson import answer_widget
from ..conftest import ROOT

pytestmark = pytest.mark.slow   # trains a model for up to a minute

TEXT = "planets"
RULE = "rotate:2"


@pytest.fixture(scope="module")
def rotator(tmp_path_factory):
    out = tmp_path_factory.mktemp("rotate") / "model"
    subprocess.run([sys.executable, "-m", "transformer.train", "--task", RULE, "--lengths", "2-8", "--seconds", "60",
                    "--out", str(out)], cwd=ROOT, check=True, capture_output=True, timeout=600)
    ckpt = load(out)
    return ckpt, own_model_state(ckpt, "My rotator")


def asked(at):
    """The page once every table of one's own model it needs is computed: asked for, as the learner does (a
    table another test of this module computed is there already)."""
    no_exception(at)
    for _ in range(4):
        asks = [b for b in at.button if str(b.key).startswith("compute_")]
        if not asks:
            break
        asks[0].click().run()
        no_exception(at)
    return at


def lesson(state, step: int):
    return asked(open_page("lesson", TEXT, state={**state, "lesson_step": step}))


def expected(ckpt, step: int) -> str:
    """The answer the model gives, worked out from the model, not from the page."""
    model, vocab = ckpt.model, ckpt.vocab
    run = make_run(model, vocab, TEXT, task=RULE)
    answer = target(TEXT, RULE)
    if step in (2, 10):
        edit = (Intervention(positions="shuffle", sides=frozenset({"source"})) if step == 2 else
                Intervention(frozenset(Head(*h) for h in encoder_heads(model.config))))
        changed = make_run(model, vocab, TEXT, edit=edit, task=RULE)
        return "yes, exactly the right answer" if changed.output == answer else "no, something else"
    if step == 6:
        head = max(run_offsets(run, "cross", 0), key=lambda f: (f.best_share, f.mean_top_weight)).head
        t = min(3, len(TEXT) - 1, len(run.decoder_out) - 1)
        i = int(run.trace["cross", 0][head, t].argmax())
        return f"{i}: {run.source[i]}"
    if step == 8:
        token = forced_token(answer, vocab.letters)
        forced = make_run(model, vocab, TEXT, Decoding(forced=((0, vocab.encode(token, 1)[0]),)), task=RULE)
        return forced_options(token, RULE)[forced_outcome(forced.output, answer, token)]
    raise AssertionError(step)


def test_the_lesson_names_the_rule_and_every_step_runs_on_the_rotator(rotator):
    ckpt, state = rotator
    for step in range(1, 14):
        at = lesson(state, step)
        title = at.title[0].value.replace("\\", "")   # as drawn, its markdown escapes taken out
        assert title == "🎓 Lesson: how a Transformer learns rotate:2"
        assert "trained to rotate the text left by 2 places (rotate:2)" in at.markdown[0].value.replace("\\", "")
        assert not [i for i in at.info if "built on the reversal model" in i.value]
        said = " ".join(str(e.value) for e in [*at.markdown, *at.caption, *at.header, *at.info])
        if step != 13:
            assert "revers" not in said.lower(), (step, said)
    assert any("asked of the reversal model only" in i.value for i in at.info)   # step 13 says why it asks nothing


@pytest.mark.parametrize("step", [2, 6, 8, 10])
def test_the_answer_the_page_accepts_is_what_the_rotator_does(rotator, step):
    ckpt, state = rotator
    at = lesson(state, step)
    right = expected(ckpt, step)
    widget = answer_widget(at, step)
    assert right in widget.options
    for option in (next(o for o in widget.options if o != right), right):
        widget = answer_widget(at, step)
        widget.set_value(option).run()
        at.button(key=f"{widget.key}_check").click().run()
        no_exception(at)
        assert bool(at.success) == (option == right), option


def test_compare_tasks_sets_the_rotator_beside_the_three_bundled_models(rotator):
    ckpt, state = rotator
    at = open_page("compare_tasks", TEXT, state=state)
    no_exception(at)
    assert [m.value for m in at.markdown if m.value.startswith("### ")][-1] == "### Your model (rotate:2)"
    run = make_run(ckpt.model, ckpt.vocab, TEXT, task=RULE)
    assert [m.value for m in at.metric][-1] == run.output
    wanted = source_positions(TEXT, RULE)                         # where each output character comes from
    shares = {(layer, head): float((run.trace["cross", layer][head, :len(wanted)].argmax(-1) == wanted).mean())
              for layer in range(ckpt.model.config.n_decoder_layers) for head in range(ckpt.model.config.n_heads)}
    (layer, head), share = max(shares.items(), key=lambda kv: (kv[1], -kv[0][0], -kv[0][1]))
    said = (f"Cross L{layer} H{head}: {share:.0%} of your text's output steps put their largest weight on the "
            "pattern of rotate:2")
    assert any(c.value.startswith(said) for c in at.caption), said


def test_the_quiz_is_asked_and_answered_by_the_rotator(rotator):
    ckpt, state = rotator
    at = asked(open_page("quiz", None, query={"quiz": "1234"}, state=state))   # its table of heads switched off
    assert any("of the task rotate\\:2" in m.value for m in at.markdown)
    costs = qz.lab_head_costs("not stored", ckpt.model, ckpt.vocab, RULE, ckpt.min_len)
    built = qz.build_quiz(ckpt.model, ckpt.vocab, RULE, 1234, "before", costs, min_len=ckpt.min_len)
    shown = [r for r in at.radio if str(r.key).startswith("quiz_before_")]
    assert [tuple(r.options) for r in shown] == [item.question.options for item in built.items]
    for radio, item in zip(shown, built.items):          # every answer right
        radio.set_value(item.question.answer)
    next(b for b in at.button if "Hand in" in b.label).click().run()
    no_exception(at)
    assert any(f"{len(built.items)} of {len(built.items)} right" in s.value for s in at.success)
    assert at.query_params["quiz_task"] == RULE   # a link to these answers names the model's task
