"""The page registry (explorer.pages) is the one list of pages: every script in app_pages/ has its row and every
row its script, every term a page lists is in the glossary and every glossary term on some page, and what reads
the registry (the lesson's links, the tests' links) names only pages it holds."""

from pathlib import Path

from explorer.pages import BY_ID, PAGES, PAGES_DIR, SECTIONS, mismatched_scripts, page, pages_using
from teaching.glossary import GLOSSARY
from teaching.steps import STEPS
from tests.links import LINKS


def test_every_script_has_a_row_and_every_row_a_script():
    assert mismatched_scripts() == {"scripts without a row": [], "rows without a script": []}
    assert all((PAGES_DIR / f"{p.id}.py").is_file() for p in PAGES)


def test_a_script_the_registry_does_not_name_is_found(tmp_path: Path):
    """The check itself: a page added to app_pages/ without a row, or a row whose script was renamed, is named."""
    for p in PAGES[1:]:
        (tmp_path / f"{p.id}.py").write_text("")
    (tmp_path / "a_new_page.py").write_text("")
    assert mismatched_scripts(tmp_path) == {"scripts without a row": ["a_new_page"],
                                            "rows without a script": [PAGES[0].id]}


def test_one_default_page_and_unique_paths_in_the_sidebars_order():
    assert [p.id for p in PAGES if not p.url_path] == ["home"]
    assert len({p.url_path for p in PAGES}) == len({p.title for p in PAGES}) == len(PAGES)
    assert SECTIONS == ("Lesson", "Explore", "Lab: change it and see")
    assert all(p.url_path == p.id.replace("_", "-") for p in PAGES if p.url_path)   # the link says the script


def test_every_glossary_term_is_on_some_page_and_every_listed_term_is_defined():
    listed = {t for p in PAGES for t in p.terms}
    assert listed == set(GLOSSARY)
    assert [p.title for p in pages_using("causal mask")] == ["Lesson", "Decode step by step", "Masks"]


def test_the_lessons_steps_and_the_tests_links_name_registered_pages():
    assert {s.page for s in STEPS} <= BY_ID.keys()
    assert set(LINKS) == BY_ID.keys()            # a copied link is tested for every page


def test_an_unknown_page_id_names_the_ones_there_are():
    try:
        page("lab-ablation")
    except KeyError as err:
        assert "lab_ablation" in str(err)
    else:
        raise AssertionError("a path taken for an id was accepted")


def test_every_page_has_a_page_model_and_a_missing_one_is_named(tmp_path: Path):
    from explorer.pages import ROOT, pages_without_model
    assert pages_without_model() == []
    assert page("lesson").model == "teaching.step_views" and page("decode").model == "analysis.page_models.decode"
    for p in PAGES[1:]:                                         # the check itself, on a made-up tree
        module = tmp_path / (p.model.replace(".", "/") + ".py")
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text("")
    assert pages_without_model(tmp_path) == [PAGES[0].id]
    assert ROOT == PAGES_DIR.parent
