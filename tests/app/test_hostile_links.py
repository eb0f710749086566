"""Plain links with values no widget can use (issue 24, attack 7): the page opens with each such widget's default
and a notice naming the value, never a traceback. Before explorer.link_guard, `?seed=1e309` raised OverflowError
and `?kind=` KeyError: None. Links are opened through app.py, which draws the notice."""

from __future__ import annotations

import functools

import pytest
from streamlit.testing.v1 import AppTest

from .helpers import ROOT, canvas_charts, decode_parts, no_exception, open_page

HUGE = "99999999999999999999999"
BAD_VALUES = {  # page -> URL key -> values its widget cannot use
    "home": {"task": [""], "projector": ["maybe"]},   # the sidebar, on every page (a rule: tests/app/test_task_links)
    "lesson": {"lesson_step": ["1e309", HUGE, ""]},
    "decode": {"seed": ["1e309", "-inf", "nan", HUGE], "mode": ["", "bogus"], "temperature": ["inf", "nan"],
               "top_k": ["1e309"], "step": ["-inf", "²", HUGE], "show_cache": ["maybe", ""], "step_layer": ["9"], "step_head": ["9"]},
    "attention": {"kind": ["", "bogus"], "layer": ["9"], "head": ["9", "²", HUGE]},   # head: no widget reads it
    "inside_one_head": {"inside_kind": ["", "bogus"], "inside_layer": ["9"], "inside_head": ["9"],
                        "inside_query": ["999"], "inside_key": ["position 99"]},
    "positional": {"pe_d_model": ["1e309"], "pe_positions": ["-inf", HUGE], "delta": ["nan"], "pos": ["1e309"]},
    "masks": {"mask_kind": ["", "bogus"], "mask_layer": ["9"], "mask_head": ["9"], "mask_row": ["row 9"],
              "mask_d_k": ["1e309"]},
    "training": {"snapshot": ["nan", "1e309"]},
    "lab_ablation": {"lab_kind": ["", "bogus"], "lab_layer": ["9"], "lab_head": ["9"]},
    "lab_positions": {"pe_seed": ["1e309", "-inf", "nan", HUGE], "pe_mode": ["bogus"], "pe_layer": ["9"]},
    "lab_forcing": {"force_step": ["step 99"], "force_token": ["bogus"]},
    "lab_query_key": {"qk_kind": ["", "bogus"], "qk_layer": ["9"], "qk_head": ["9"]},
    "lab_patch": {"patch_pattern": ["", "bogus"], "patch_where": ["", "cross L9 H9"]},
    "compare_tasks": {"grid_task": ["", "Bogus"], "split_alone": ["", "Bogus"]},
}
CASES = [(page, key, value) for page, keys in BAD_VALUES.items() for key, values in keys.items() for value in values]
KIND_KEYS = {"attention": "kind", "inside_one_head": "inside_kind", "masks": "mask_kind", "lab_ablation": "lab_kind",
             "lab_query_key": "qk_kind"}   # the pages whose Attention kind control offers several kinds


def open_link(page: str, query: dict[str, str]) -> AppTest:
    """The app opened from a link to `page`: AppTest finds a page by its file only after a first run (of Home)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    at.run()
    return at if page == "home" else at.switch_page(f"app_pages/{page}.py").run()


def shown(at: AppTest, page: str, key: str) -> object:
    """What the page shows for a URL key: its bound widget's value, or for Attention's head and Decode's step
    (picked in the browser, no widget) the head its charts open on and the step."""
    if (page, key) == ("attention", "head"):
        return canvas_charts(at)["detail"]["switch"]["chosen"]
    if (page, key) == ("decode", "step"):
        return decode_parts(at)["step"]["chosen"]
    if (page, key) == ("decode", "show_cache"):
        return decode_parts(at)["looked"]["show_cache"]
    return at.session_state[key]


@functools.cache
def defaults(page: str) -> dict[str, object]:
    """Each bound widget's value on the page opened without a query."""
    at = open_link(page, {})
    no_exception(at)
    return {key: shown(at, page, key) for key in BAD_VALUES[page]}


def link_notices(at: AppTest) -> list[str]:
    return [n.value.replace("\\", "") for n in at.info if "could not be used" in n.value]


@pytest.mark.parametrize(("page", "key", "value"), CASES, ids=[f"{p}-{k}={v or 'empty'}" for p, k, v in CASES])
def test_a_value_no_widget_can_use_gives_the_default_and_a_notice(page, key, value):
    at = open_link(page, {key: value})
    no_exception(at)
    assert link_notices(at) == [f"The link's value for {key} ({value or 'empty'}) could not be used, so it shows "
                                "the default."]
    assert shown(at, page, key) == defaults(page)[key]
    assert key not in at.query_params          # the address bar no longer carries it, so a copied link is clean
    at.run()
    assert not link_notices(at)                # said once, not on every rerun


def test_several_unusable_values_are_named_in_one_notice():
    at = open_link("attention", {"kind": "", "layer": "9", "head": "1"})
    no_exception(at)
    assert link_notices(at) == ["The link's values for kind (empty) and layer (9) could not be used, so they show "
                                "their defaults."]
    assert shown(at, "attention", "head") == 1


@pytest.mark.parametrize("query", [{"seed": "7", "mode": "sample"}, {"seed": "0", "mode": "greedy"}])
def test_usable_values_and_values_that_write_the_default_get_no_notice(query):
    at = open_link("decode", query)
    no_exception(at)
    assert not link_notices(at)
    assert at.session_state["seed"] == int(query["seed"]) and at.session_state["mode"] == query["mode"]


def test_a_head_longer_than_int_reads_falls_back_with_a_notice():
    """Attention's head is read by the page, not a widget: 5,000 digits are more than int() takes."""
    at = open_link("attention", {"head": "9" * 5000})
    no_exception(at)
    assert shown(at, "attention", "head") == 0 and "head" not in at.query_params
    assert link_notices(at) == [f"The link's value for head ({'9' * 40}…) could not be used, so it shows the default."]


def test_a_long_value_is_cut_short_in_the_notice():
    at = open_link("decode", {"seed": "9" * 500})
    no_exception(at)
    assert link_notices(at) == [f"The link's value for seed ({'9' * 40}…) could not be used, so it shows the default."]


@pytest.mark.parametrize("page", list(KIND_KEYS))
def test_an_empty_attention_kind_sent_by_a_crafted_client_keeps_the_default(page):
    """A browser never empties this required control; a hand-made websocket message can."""
    at = open_page(page)
    key = KIND_KEYS[page]
    default = at.session_state[key]
    at.segmented_control(key=key).set_value(None).run()
    no_exception(at)
    assert at.session_state[key] == default
    assert at.segmented_control(key=key).value == default


@pytest.mark.parametrize(("page", "key"), [("decode", "seed"), ("lab_positions", "pe_seed")])
def test_a_later_run_whose_url_brings_a_value_no_widget_can_use_gets_the_default_and_a_notice(page, key):
    """Streamlit seeds a widget from the URL again after its first run too: a disabled one (Decode's seed while
    greedy) on every run, any one on Back or Forward. A value brought by such a run is checked like a link's."""
    at = open_link(page, {})
    no_exception(at)
    at.query_params[key] = "1e309"
    at.run()
    no_exception(at)
    assert link_notices(at) == [f"The link's value for {key} (1e309) could not be used, so it shows the default."]
    assert at.session_state[key] == defaults(page)[key] and key not in at.query_params
