"""A task of one's own in a link: `?task=rotate:2&alphabet=…` fills the Training page's task, names a rule it cannot
use, never reaches the bundled Task picker, and opens the model this server already trained for that task."""

from urllib.parse import parse_qsl, urlsplit

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from explorer import task_links, task_models
from transformer.checkpoint import Checkpoint
from transformer.config import ModelConfig
from transformer.model import Transformer
from transformer.task_rules import TaskSpec, TaskSpecError, task_spec
from transformer.vocab import Vocab

from .helpers import ROOT

GREEK = "αβγδεζηθικλμνξοπρστυφχψω"


def open_app(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def notices(at: AppTest) -> str:
    return " ".join(str(e.value) for e in [*at.info, *at.warning]).replace("\\", "")


def test_a_link_with_a_rule_fills_the_training_task_and_leaves_the_bundled_picker_alone():
    task_models.forget_all()
    at = open_app({"task": "rotate:2", "alphabet": GREEK, "lengths": "2-5"})
    assert not at.exception, [e.value for e in at.exception]
    assert "This link asks for the task rotate:2" in notices(at)
    assert (at.session_state["own_rule"], at.session_state["own_alphabet"], at.session_state["own_lengths"]) == (
        "rotate:2", GREEK, "2-5")
    assert at.session_state["task"] == "reverse" and "could not be used" not in notices(at)   # quietly skipped
    at.switch_page("app_pages/training.py").run()
    assert not at.exception
    assert at.text_input(key="own_rule").value == "rotate:2"
    link = next(c.value for c in at.code if "task=" in c.value)
    assert task_links.linked_task(dict(parse_qsl(urlsplit(link).query))) == task_spec("rotate:2", GREEK, "2-5")


@pytest.mark.parametrize(("rule", "part"), [("rotate:2|spin", "part 2 ('spin')"), ("bogus", "'bogus'")])
def test_a_link_whose_rule_cannot_be_used_names_the_wrong_part_once(rule, part):
    at = open_app({"task": rule})
    assert not at.exception
    assert "This link's task could not be used" in notices(at) and part in notices(at)
    assert "could not be used, so it shows the default" not in notices(at)   # one message, the one that says why
    assert at.session_state["task"] == "reverse" and "task" not in at.query_params


def kept_model(spec: TaskSpec) -> Checkpoint:
    vocab = Vocab(spec.characters)
    torch.manual_seed(0)
    config = ModelConfig(vocab_size=vocab.size, d_model=16, n_heads=2, n_encoder_layers=1, n_decoder_layers=1,
                         d_ff=32, max_len=spec.max_len)
    return Checkpoint(Transformer(config).eval().requires_grad_(False), vocab,
                      {"held_out": {"n": 100, "exact_match": 0.99}}, spec.spec, spec.min_len)


def test_a_link_to_a_task_this_server_trained_opens_its_model_at_once_with_a_text_it_reads():
    spec = task_spec("rotate:2", GREEK, "2-5")
    model = kept_model(spec)
    task_models.keep(spec, model)
    try:
        at = open_app({"task": "rotate:2", "alphabet": GREEK, "lengths": "2-5", "text": "hello"})
        assert not at.exception, [e.value for e in at.exception]
        assert "was trained on this server already" in notices(at)
        assert at.session_state["model_choice"] == "rotate:2 (trained on this server)"
        text = at.session_state["text"]
        assert set(text) <= set(" " + GREEK) and 2 <= len(text) <= 5       # "hello" was not one it reads
    finally:
        task_models.forget_all()


def test_the_store_keeps_the_newest_tasks_within_its_bound():
    task_models.forget_all()
    specs = [task_spec(f"rotate:{k}", lengths="1-4") for k in range(1, task_models.KEPT + 3)]
    for spec in specs:
        task_models.keep(spec, kept_model(spec))
    assert [task_models.kept(s) is not None for s in specs] == [False, False] + [True] * task_models.KEPT
    task_models.forget_all()


@settings(max_examples=600, deadline=None, derandomize=True)
@given(st.dictionaries(st.sampled_from(["task", "alphabet", "lengths"]), st.text(max_size=300)))
def test_any_link_gives_a_task_none_or_a_message_never_an_exception(params):
    try:
        found = task_links.linked_task(params)
    except TaskSpecError as err:
        assert str(err)
    else:
        assert found is None or found.max_output <= 96


def test_a_huge_link_value_is_refused_at_once():
    for params in ({"task": "reverse|" * 10**5}, {"task": "swap-pairs", "alphabet": "ab" * 10**6},
                   {"task": "shift:1", "lengths": "9" * 10**5}, {"task": "swap-pairs", "alphabet": "α" * 10**6}):
        try:
            task_links.linked_task(params)
        except TaskSpecError as err:
            assert len(str(err)) < 400
        else:
            raise AssertionError(f"accepted {str(params)[:60]}")
