"""The Attention page names, beside each cross head's share on the task's pattern, the shifted pattern that holds
its largest weight more often, computed from the learner's own run."""

import pytest

from analysis.lesson import pattern_shares
from analysis.offsets import offset_label, run_offsets
from analysis.run import make_run

from .helpers import no_exception, open_page


def test_each_cross_head_is_named_with_the_offset_it_follows_on_the_learners_text(ckpt):
    at = open_page("attention", "hello", state={"kind": "cross", "layer": 0})
    no_exception(at)
    text = " ".join(m.value for m in at.markdown)
    run = make_run(ckpt.model, ckpt.vocab, "hello")
    hits = pattern_shares(run, 0)
    fits = run_offsets(run, "cross", 0)
    shifted = [f for f in fits if f.best_offset != 0]
    print([(f.head, f.best_offset, f.best_share) for f in fits])
    assert shifted      # on "hello" cross L0 H3 reads n−i: 20 % on the mirror, more on the shifted key
    for f in fits:
        named = (f"head {f.head}: **{hits[f.head]:.0%}** (more often on "
                 f"{offset_label('cross', 'reverse', f.best_offset)}: **{f.best_share:.0%}**)")
        assert (named in text) == (f.best_offset != 0)
        assert f"head {f.head}: **{hits[f.head]:.0%}**" in text
        assert f.shares[0] == pytest.approx(float(hits[f.head]))
