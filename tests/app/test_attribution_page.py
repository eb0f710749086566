"""Why this character? under AppTest: the page draws its lenses for every task on a 48-character text, its
numbers are the model's (the occlusion column against analysis.attribution, with five letters and then every
other letter on request), a step and a head are chosen from
the page, and integrated gradients at every step join the agreement table when asked for."""

from __future__ import annotations

import numpy as np
import pytest

from analysis import attribution as A
from analysis.run import make_run
from explorer.cache import task_checkpoint
from transformer.data import random_string

from .helpers import canvas_charts, no_exception, open_page

pytestmark = pytest.mark.slow   # left out of the quick tier: every lens for every task at 48 characters

LONG = random_string(__import__("random").Random(48), 48)


@pytest.mark.parametrize("task", ["reverse", "copy", "sort"])
def test_the_page_draws_every_lens_for_every_task_on_48_characters(task):
    at = open_page("lab_attribution", LONG, query={"task": task}, state={"task": task})
    no_exception(at)
    table = at.dataframe[0].value
    assert len(table) == 48 and list(table.columns)[0] == "source" and "integrated gradients" not in table
    next(b for b in at.button if b.label == "Integrated gradients at this step").click().run()
    no_exception(at)
    table = at.dataframe[0].value
    assert "integrated gradients" in table and len(table.columns) == 6
    charts = canvas_charts(at)
    assert set(charts) == {"lenses", "rollout"} and charts["lenses"]["rows"] == list(table.columns)[1:]
    occlusion_row = charts["lenses"]["panels"][0]["hover"][list(table.columns).index("occlusion") - 1]
    assert occlusion_row == [f"value {v:.2g}" for v in table["occlusion"]]        # each cell named by its number
    ckpt = task_checkpoint(task)
    run = make_run(ckpt.model, ckpt.vocab, LONG, task=task)
    quick = A.occlusion(ckpt.model, ckpt.vocab, run, A.QUICK_LETTERS, A.QUICK_COUNT)
    assert np.allclose(table["occlusion"], quick[0], atol=1e-6)
    next(b for b in at.button if b.label == "Occlusion with every other letter").click().run()
    no_exception(at)
    assert np.allclose(at.dataframe[0].value["occlusion"], A.occlusion(ckpt.model, ckpt.vocab, run)[0], atol=1e-6)
    assert not any(b.label == "Occlusion with every other letter" for b in at.button)
    assert "each other letter in turn" in " ".join(m.value for m in at.markdown)


def test_choosing_a_step_and_a_head_and_asking_for_every_step():
    at = open_page("lab_attribution", "hello")
    at.slider(key="why_step").set_value(3).run()
    at.selectbox(key="why_head").set_value("head 3").run()
    no_exception(at)
    names = list(at.dataframe[0].value.columns)
    assert names[1] == "attention (layer 1, head 3)" and "Step 3 reads" in at.markdown[1].value
    assert len(at.dataframe[1].value) == 4
    next(b for b in at.button if b.label.startswith("Compute integrated gradients")).click().run()
    no_exception(at)
    lenses = list(at.dataframe[1].value["lens"])
    assert "integrated gradients" in lenses and len(lenses) == 5


def test_the_rollout_sentence_has_the_agreement_tables_rollout_row(ckpt):
    """The sentence under the rollout map and the table's rollout row are one measurement: rollout against
    occlusion over the steps where both vary, computed here again from the model (rollout as the page draws it, and
    occlusion with the page's quick letters)."""
    text = random_string(__import__("random").Random(49), 48)   # no other test asks for every letter on it
    at = open_page("lab_attribution", text)
    no_exception(at)
    assert any("letters spread over the alphabet" in c.value for c in at.caption)     # the quick letters' occlusion
    run = make_run(ckpt.model, ckpt.vocab, text)
    rollout = A.rollout(run)                                                                     # (T, S)
    assert np.allclose(canvas_charts(at)["rollout"]["panels"][0]["z"], rollout, atol=1e-4)    # drawn to 4 decimals
    found = A.agreement(rollout, A.occlusion(ckpt.model, ckpt.vocab, run, A.QUICK_LETTERS, A.QUICK_COUNT))
    row = at.dataframe[1].value.set_index("lens").loc["rollout"]
    assert row["steps where both vary"] == found.steps > 0
    assert row["mean Spearman ρ with occlusion"] == f"{found.rho:.2f}"
    sentence = next(c.value for c in at.caption if "Spearman" in c.value).replace("\\", "")   # unescaped
    assert (f"Over the {found.steps} steps where both vary" in sentence and f"at {found.same_top:.0%} of them, "
            f"with a mean Spearman ρ of {found.rho:.2f}" in sentence)
