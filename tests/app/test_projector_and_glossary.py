"""Projector mode reaches every chart of every page; the glossary is on every page and in one list."""

import pytest

from explorer.charts import PROJECTED_TYPE
from explorer.pages import BY_ID, PAGES
from teaching.glossary import GLOSSARY
from viz.canvas_heatmap import CIVIDIS_REVERSED, FONT as CANVAS_FONT, PROJECTOR_FONT, WEIGHT_SCALES

from .helpers import canvas_charts, figures, no_exception, open_page
from .test_entrypoint import open_app

CHART_PAGES = [p.id for p in PAGES if p.canvases or p.plotlys]


@pytest.mark.parametrize("page", CHART_PAGES)
def test_projector_mode_restyles_every_chart_of_the_page(page):
    plain_at, projected_at = (open_page(page, "level", state={"projector": on}) for on in (False, True))
    plain_plotly, projected_plotly = figures(plain_at), figures(projected_at)
    assert set(plain_plotly) == set(projected_plotly) and len(plain_plotly) == BY_ID[page].plotlys
    plain_canvas, projected_canvas = canvas_charts(plain_at), canvas_charts(projected_at)
    assert set(plain_canvas) == set(projected_canvas) and len(plain_canvas) == BY_ID[page].canvases
    for key, spec in projected_canvas.items():
        assert (spec["font"], plain_canvas[key]["font"]) == (PROJECTOR_FONT, CANVAS_FONT), key
        weights = plain_canvas[key]["stops"] in ([list(c) for c in s] for s in WEIGHT_SCALES)
        assert (spec["stops"] == [list(c) for c in CIVIDIS_REVERSED]) == weights, key   # signed and mask scales kept
    for key, figure in projected_plotly.items():             # in px, so scaled as the page's type is
        plain = plain_plotly[key]["layout"]
        assert figure["layout"]["font"]["size"] == pytest.approx(plain["font"]["size"] * PROJECTED_TYPE), key
        assert figure["layout"]["height"] > plain["height"], key


def test_the_sidebar_switch_turns_projector_mode_on_for_the_session_and_the_link():
    at = open_app({"text": "level", "projector": "true"}, "attention")
    no_exception(at)
    assert at.session_state["projector"] is True
    drawn = canvas_charts(at)
    assert len(drawn) == 3 and all(spec["font"] == PROJECTOR_FONT for spec in drawn.values())   # Attention's
    styles = [h.proto.body for h in at.get("html")]
    assert any("html { font-size: 175%; }" in s for s in styles)                  # 28-px body text everywhere
    assert any(":focus-visible { outline: 3px solid" in s for s in styles)        # in both modes
    [link] = [c.value for c in at.sidebar.code]                                   # the link to share, to copy
    assert link.startswith("/attention?") and "text=level" in link and "projector" not in link
    at.toggle(key="projector").set_value(False).run()
    assert not at.sidebar.code                                                    # only in projector mode
    styles = [h.proto.body for h in at.get("html")]
    assert not any("font-size: 175%" in s for s in styles) and any(":focus-visible" in s for s in styles)


def test_the_link_for_students_keeps_the_view_and_drops_projector_mode():
    from explorer.links import link_for_students

    assert link_for_students("http://hall:8501/masks", "masks", {"text": "a b&c", "projector": "true",
                                                                 "mask_kind": "causal"}) == (
        "http://hall:8501/masks?text=a+b%26c&mask_kind=causal")
    assert link_for_students(None, "", {"projector": "true"}) == "/"
    assert link_for_students("http://hall:8501/run-a-class", "run-a-class",   # never a teacher's secret or a seat
                             {"class": "ABCDEF", "teacher": "s3cret", "seat": "t0ken", "projector": "true"}) == (
        "http://hall:8501/run-a-class?class=ABCDEF")


def test_each_page_lists_its_own_terms_in_the_sidebar():
    at = open_app({"text": "level"}, "masks")
    popover = [p for p in at.sidebar.get("popover")]
    assert len(popover) == 1 and "Terms on this page (6)" in popover[0].proto.popover.label
    text = " ".join(m.value for m in popover[0].markdown)
    for term in BY_ID["masks"].terms:
        assert f"**{term}** — {GLOSSARY[term]}" in text


def test_the_glossary_page_lists_every_term_and_finds_one():
    at = open_page("glossary", None)
    no_exception(at)
    shown = [m.value for m in at.markdown if m.value.startswith("**")]
    assert len(shown) == len(GLOSSARY)
    at.text_input(key="glossary_find").set_value("causal").run()
    found = [m.value for m in at.markdown if m.value.startswith("**")]
    assert any(v.startswith("**causal mask**") for v in found) and len(found) < len(GLOSSARY)
    at.text_input(key="glossary_find").set_value("zzzz").run()
    assert any("No term matches" in i.value for i in at.info)
