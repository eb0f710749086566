"""Run one page under AppTest and read its plotly figures back as numpy."""

from __future__ import annotations

import base64
import functools
import json
import re

import numpy as np
from streamlit.testing.v1 import AppTest

from analysis.lab import ablation_ranking
from analysis.offsets import head_offsets
from drivers.app_test import PAGES, ROOT, open_page  # noqa: F401 (the tests' door to a page)
from explorer.cache import shared_checkpoint
from explorer.lab_runs import held_out_sample



@functools.cache
def sample_tables() -> tuple[list, list]:
    """The lab's held-out words, every head switched off in turn and every cross head's offsets: the lesson's
    step-9 answer worked out from the model, independently of the page (which reads its stored tables), once
    per process for every test that needs it."""
    ckpt = shared_checkpoint()
    sample = held_out_sample(ckpt.model.config.max_len)
    return (ablation_ranking(ckpt.model, ckpt.vocab, sample)[1],
            head_offsets(ckpt.model, ckpt.vocab, sample, kind="cross"))


def compute_every_table(at: AppTest, most: int = 8) -> int:
    """Press "Compute it for my model" until the page asks for no more tables (an own model's lab tables are
    computed on request, one per press); how many presses it took."""
    for pressed in range(most + 1):
        buttons = [b for b in at.button if b.key and b.key.startswith("compute_")]
        if not buttons:
            return pressed
        buttons[-1].click().run()   # the newest: AppTest keeps a finished table's button from the run before
        assert not at.exception, [e.value for e in at.exception]
    raise AssertionError(f"still asking after {most} tables")


OWN_STATE = ("_session_token", "_own_models", "own_model", "model_choice")


def _keep(loaded, label):
    from explorer.own_models import add
    add(label, loaded)


def own_model_state(loaded, label: str = "Your model") -> dict:
    """Session state under which a page shows `loaded` as this session's own model, as an upload or a finished
    live run leaves it: the model on the session's shelf (a session-scoped cache), only strings in the state.
    Pass it as open_page(..., state=...)."""
    at = AppTest.from_function(_keep, args=(loaded, label), default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    return {key: at.session_state[key] for key in OWN_STATE}


def own_shelf(at: AppTest):
    """The shelf of an AppTest session (its own models and live run), read from outside its script runs."""
    from explorer.own_models import shelf_of
    return shelf_of(at.session_state["_session_token"])


def figures(at: AppTest) -> dict[str, dict]:
    """Plotly figures by their widget key (the pages give every chart a key)."""
    return {el.key: json.loads(el.proto.spec) for el in at.get("plotly_chart")}


def array(value) -> np.ndarray:
    """Plotly's JSON arrays come as lists or as base64 typed arrays {'dtype', 'bdata', 'shape'}."""
    if isinstance(value, dict) and "bdata" in value:
        data = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        shape = value.get("shape")
        if shape:
            data = data.reshape([int(s) for s in str(shape).split(",")] if isinstance(shape, str) else shape)
        return data
    return np.asarray(value, dtype=object if _has_none(value) else None)


def _has_none(value) -> bool:
    if isinstance(value, list):
        return any(_has_none(v) for v in value)
    return value is None


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def metric_values(at: AppTest) -> list[str]:
    """The value of every st.metric on the page, in page order (column by column)."""
    return [m.value for m in at.metric]


def cell_tables(at: AppTest) -> list[dict]:
    """The spec of every table of coloured cells (explorer.components.vector_rows) on the page, in page order, as
    the browser gets it."""
    return [json.loads(el.proto.bytes) for el in at.get("bidi_component")
            if el.proto.component_name.endswith("vector_rows")]


def cell_table_with(at: AppTest, text: str) -> dict:
    """The first table of coloured cells whose title holds `text`."""
    return next(spec for spec in cell_tables(at) if text in spec["title"])


def cell_rows(spec: dict) -> dict[str, np.ndarray]:
    """The rows of a table of coloured cells, by name: the numbers each row's cells are drawn from."""
    return {name: np.array(row, dtype=float) for name, row in zip(spec["names"], spec["vectors"], strict=True)}


def decode_parts(at: AppTest) -> dict[str, dict]:
    """Decode step by step's two parts (viz.decode_steps), "step" and "looked", each with every step's data, which
    the browser steps through (explorer/components/front_end.js)."""
    return {data["part"]: data for data in (json.loads(el.proto.bytes) for el in at.get("bidi_component")
                                            if el.proto.component_name.endswith("decode_steps"))}


def decode_sentences(at: AppTest, t: int) -> str:
    """Every sentence Decode step by step shows with step t, as the HTML the browser writes (bold as <strong>)."""
    parts = decode_parts(at)
    step, looked = parts["step"]["views"][t], parts["looked"]["views"][t]
    return " ".join([step["caption"], step["temperature_caption"], looked["cross_sentence"], looked["self_sentence"],
                     looked["reads"], looked["same"], looked["cost"], parts["looked"]["draft"]])


def next_token_bars(at: AppTest) -> dict[str, list[tuple[str, str, float]]]:
    """Each next-token bar chart (explorer.components.next_token_bars) by its key: its bars in the order the browser
    draws them, (token, series, probability), the series "chosen" for the chosen token's bar."""
    charts = {el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.bytes) for el in at.get("bidi_component")
              if el.proto.component_name.endswith("next_token_bars")}
    return {key: [(data["labels"][i], "chosen" if i == data["view"]["chosen_id"] else "", data["view"]["probs"][i])
                  for i in data["view"]["bar_order"]] for key, data in charts.items()}


def row_bars(at: AppTest) -> list[list[tuple[str, str, float]]]:
    """Every viz.html_bars.row_bars chart drawn with st.html, in page order: its bars' (series, row, value)."""
    return [[(series, row, float(value)) for series, row, value in
             re.findall(r'data-series="([^"]*)" data-row="([^"]*)" data-value="([^"]*)"', e.proto.body)]
            for e in at.get("html") if 'data-row="' in e.proto.body]


def svg_charts(at: AppTest) -> dict[str, str]:
    """The markup of each SVG drawing (explorer.components.svg_chart: Home's architecture), by its key."""
    return {el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.bytes)["markup"] for el in at.get("bidi_component")
            if el.proto.component_name.endswith("svg_chart")}


def plotly_series(figure: dict, axis: str = "y") -> dict[str, np.ndarray]:
    """The named traces of a Plotly figure (figures(at)), by name: each one's `axis` (y, x, or customdata: the
    values a log axis's hover says, before their floor), in order."""
    return {trace["name"]: array(trace[axis]) for trace in figure["data"] if trace.get("name")}


def plotly_marks(figure: dict) -> list[float]:
    """Where a figure's vertical marks stand (its shapes from top to bottom of the plot), in order."""
    return [shape["x0"] for shape in figure["layout"].get("shapes", []) if shape["x0"] == shape["x1"]
            and shape.get("yref") == "y domain"]


def chart_numbers(at: AppTest) -> dict[str, str]:
    """The summary and numbers table under each Plotly chart (explorer.charts.plotly_chart), by the chart's key."""
    return {el.proto.id.rsplit("-", 1)[-1].removesuffix("_numbers"): json.loads(el.proto.bytes)["markup"]
            for el in at.get("bidi_component") if el.proto.component_name.endswith("chart_numbers")}


def canvas_charts(at: AppTest) -> dict[str, dict]:
    """Canvas heatmaps (explorer.components) by their key: the spec each was drawn from. A chart whose views the
    browser switches (switched_heatmaps) gives the view it opens on, and its whole data as "switch"."""
    charts = {el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.bytes) for el in at.get("bidi_component")
              if el.proto.component_name.endswith("canvas_heatmap")}
    return {key: {**data["views"][data["chosen"]], "switch": data} if "views" in data else data
            for key, data in charts.items()}
