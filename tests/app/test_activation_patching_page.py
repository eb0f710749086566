"""Patch one activation under AppTest: every task on a 48-character text, the prediction and the reveal, and
the grid of every single patch."""

from __future__ import annotations

import random

import numpy as np
import pytest

from analysis import activation_patching as P
from explorer.cache import task_checkpoint
from analysis.run import make_run
from transformer.data import random_string

from .helpers import canvas_charts, no_exception, open_page

pytestmark = pytest.mark.slow   # left out of the quick tier: every task's patches at 48 characters

LONG = random_string(random.Random(48), 48)


@pytest.mark.parametrize("task", ["reverse", "copy", "sort"])
def test_the_page_patches_and_draws_its_cone_for_every_task_on_48_characters(task):
    at = open_page("lab_activation_patching", LONG, query={"task": task}, state={"task": task})
    no_exception(at)
    assert not canvas_charts(at)                             # the grid waits for its button
    next(b for b in at.button if b.label == "Compute every single patch").click().run()
    no_exception(at)
    ckpt = task_checkpoint(task)
    other = list(P.proposed_pairs(LONG, 48, task).values())[0]
    cone = P.cone(ckpt.model, make_run(ckpt.model, ckpt.vocab, LONG, task=task),
                  make_run(ckpt.model, ckpt.vocab, other, task=task))
    drawn = canvas_charts(at)
    assert set(drawn) == {"cone_memory", "cone_stream"}
    assert np.array_equal(np.array(drawn["cone_memory"]["panels"][0]["z"], dtype=float), cone.memory[None, :])
    assert np.array_equal(np.array(drawn["cone_stream"]["panels"][0]["z"], dtype=float), cone.stream)
    assert drawn["cone_memory"]["zmax"] == drawn["cone_stream"]["zmax"] == max(1, cone.memory.max(), cone.stream.max())
    assert f"of the {cone.memory.size + cone.stream.size} single patches" in at.caption[-1].value


def test_predict_then_reveal():
    at = open_page("lab_activation_patching", "hello")
    no_exception(at)
    assert at.selectbox(key="patch_position").value == 2            # where the two texts part
    at.get("button_group")[0].set_value(["2: 'a'"]).run()
    next(b for b in at.button if b.label == "Reveal").click().run()
    no_exception(at)
    assert at.success and "Right. 1 output step changes: 2: 'a'" in at.success[0].value.replace("\\", "")
    at.get("button_group")[0].set_value(["1: 'l'"]).run()      # a guess changed after the reveal is not regraded
    assert at.success and next(b for b in at.button if b.label == "Reveal").disabled
    assert "it writes 'olleh'" in " ".join(m.value for m in at.markdown).replace("\\", "")
