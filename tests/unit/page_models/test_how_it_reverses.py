"""How this model reverses: each section's record against the model, worked out again here where a number comes
from the model, and its wording on every branch.

The page's tables come from 200 held-out words (and 600 more for the length probes; explorer.lab_runs): the
tests here fit the probes on 80 words scored on 30, and score the offsets on 30 words, which keeps the file to a
few seconds; the ablation ranking (24 heads switched off in turn), the failure table and the patch scores are
handed over as made by hand, since the record only ranks, names and words them.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.stats import spearmanr

from analysis import mechanism, offsets
from analysis.lab import FirstFailure, HeadEffect, HeadPattern
from analysis.page_models.how_it_reverses import (beyond_training, even_heads, every_encoder_head, every_head_off,
                                                  last_cross_heads, last_layer_mirror, length_reading_tested,
                                                  length_source, length_verdict, looking_and_needed,
                                                  mirror_needs_length, read_first, two_steps)
from analysis.patching import PatchScore
from analysis.run import Decoding
from transformer.data import held_out_strings, sample_strings
from transformer.intervention import Head, Intervention
from transformer.vocab import SOS

from .conftest import checkpoint, run_of

TEACHER = Decoding(teacher=True)
NOISE = 3.5
EVEN = (("encoder_self", 0, 1), ("encoder_self", 1, 1))


def edit_of(keys) -> Intervention:
    return Intervention(ablated=frozenset(Head(*k) for k in keys))


@pytest.fixture(scope="module")
def probe(reverser):
    """Length probes on a small sample, two encoder heads off."""
    limit = reverser.model.config.max_len
    test = held_out_strings(30, limit)
    train = [t for t in sample_strings(80, 5, limit, held_out=True) if t not in set(test)]
    return mechanism.length_probe(reverser.model, reverser.vocab, train, test, [Head(*k) for k in EVEN])


@pytest.fixture(scope="module")
def fits(reverser):
    return offsets.head_offsets(reverser.model, reverser.vocab, held_out_strings(30, reverser.model.config.max_len))


def encoder_output(text: str, edit: Intervention = Intervention()) -> np.ndarray:
    """(d_model,) the encoder's output at position 0, made here."""
    ckpt = checkpoint()
    with torch.inference_mode():
        trace = ckpt.model(torch.tensor([ckpt.vocab.encode(text, 48)]), torch.tensor([[SOS]]), trace=True,
                           edit=edit).trace
    return trace["encoder_norm.output"][0, 0].numpy()


def test_the_first_section_names_the_learners_last_character_escaped():
    said = mirror_needs_length("ab c", lambda s: f"<{s}>")
    assert "Your text has n = 4, so step 0 copies position 3 ('<c>') and step 3 copies position 0." in said
    assert "('<␣>')" in mirror_needs_length("ab ", lambda s: f"<{s}>")


def test_the_even_heads_are_the_encoder_heads_spread_evenly_in_table_order():
    patterns = [HeadPattern(Head(kind, 0, h), 0.5, 0.2, 1.0, u) for kind, h, u in
                [("encoder_self", 3, 0.95), ("cross", 0, 0.99), ("encoder_self", 1, 0.89), ("encoder_self", 0, 0.9)]]
    assert even_heads(patterns) == (("encoder_self", 0, 3), ("encoder_self", 0, 0))


def test_the_length_tables_and_the_reading_of_the_learners_text(probe, reverser):
    run, ablated = run_of("banana"), run_of("banana", how=TEACHER, intervention=edit_of(EVEN))
    view = length_source(probe, run, ablated, 30, NOISE)
    for table, r2 in ((view.r2, probe.r2), (view.r2_off, probe.r2_off), (view.r2_refit, probe.r2_refit)):
        assert np.allclose(table.to_numpy(), np.round(r2, 3), equal_nan=True)
        assert list(table.index) == probe.streams and list(table.columns)[:2] == ["position 0", "position 1"]
    memory = probe.r2[-1][np.isfinite(probe.r2[-1])]
    assert view.caption == (f"Probes fitted on about 600 held-out words, scored on 30 others, at source positions "
                            f"{', '.join(map(str, probe.positions))} (doubling: fewer words reach the far ones). "
                            f"In the input the best "
                            f"R² is {np.nanmax(probe.r2[0]):.2f}; in the encoder output the worst is "
                            f"{memory.min():.2f}.")
    assert view.even.startswith("2 encoder self-attention head(s) spread their weight almost evenly (uniformity at "
                                "least 0.9 on *Which head does the work?*): encoder_self L0 H1, encoder_self L1 H1.")
    assert (view.exact, view.exact_off) == (f"{probe.exact:.1%}", f"{probe.exact_off:.1%}")
    assert view.exact_change == f"{probe.exact_off - probe.exact:+.1%}"
    assert view.off_label == "With the 2 evenly spreading encoder heads off" and view.no_candidate is None
    n = len(probe.streams) - 1
    guess = probe.probes[(n, 0)].predict(encoder_output("banana")[None])[0]
    off = encoder_output("banana", edit_of(EVEN))[None]
    guess_off, guess_refit = probe.probes[(n, 0)].predict(off)[0], probe.probes_refit[(n, 0)].predict(off)[0]
    assert view.reading.endswith(f" For your text, the probe reading the encoder output at position 0 says n ≈ "
                                 f"**{guess:.1f}** (it is 6); with those heads off, the intact model's probe says "
                                 f"**{guess_off:.1f}** and the refitted one **{guess_refit:.1f}**.")
    refit = probe.r2_refit[-1][np.isfinite(probe.r2_refit[-1])]
    assert f"probes refitted on the changed model **{refit.min():.2f}** to **{refit.max():.2f}**" in view.reading
    assert length_verdict(probe, NOISE) in view.reading


def test_without_even_heads_only_the_reading_and_why_nothing_is_switched_off(probe):
    view = length_source(probe, run_of("abc"), None, 30, NOISE)
    assert view.even is None and view.r2_off is None and view.r2_refit is None
    assert view.reading.startswith("For your text, the probe reading the encoder output at position 0 says n ≈ **")
    assert view.reading.endswith("** (it is 3).")
    assert view.no_candidate == ("No encoder head of this model spreads its weight evenly (uniformity at least 0.9), "
                                 "so there is no candidate to switch off here.")


def made_probe(r2_off_row, r2_refit_row, exact=1.0, exact_off=1.0, heads=2) -> mechanism.LengthProbe:
    """A probe whose encoder-output row (the last) reads as given, the other row NaN-free."""
    rows = lambda last: np.array([[0.0, 0.0], last])  # noqa: E731
    off = [Head("encoder_self", 0, h) for h in range(heads)]
    return mechanism.LengthProbe(["input", "encoder output"], ["a", "b"], [0, 1], rows([0.99, 0.99]),
                                 rows(r2_off_row), rows(r2_refit_row), off, exact, exact_off, {}, {})


def test_the_verdict_follows_the_refitted_probes_and_the_exact_match():
    readable = length_verdict(made_probe([0.1, 0.2], [0.8, 0.9], 1.0, 0.5), NOISE)
    assert readable.startswith("So the length is still linearly readable in the encoder output with these heads off. "
                               "What fell is the old probes' fit")
    assert "The exact match falls from 100.0% to 50.0%: the model needs these heads." in readable
    assert readable.endswith("fitted to the intact stream.")
    kept = length_verdict(made_probe([0.7, 0.8], [0.8, 0.9], 1.0, 0.97), NOISE)
    assert "What fell" not in kept and kept.endswith("The exact match is 97.0% (every head working: 100.0%). ")
    assert length_verdict(made_probe([0.1, 0.1], [0.2, 0.4]), NOISE).startswith("Refitted probes cannot read it")
    assert length_verdict(made_probe([0.1, 0.1], [0.2, 0.7]), NOISE).startswith("Refitted probes read it at some")


def test_the_comparison_switches_every_encoder_head_off_unless_those_are_the_even_ones(reverser):
    config = reverser.model.config
    every = every_encoder_head(config, EVEN)
    assert len(every) == 8 and set(every) == {("encoder_self", layer, h) for layer in (0, 1) for h in range(4)}
    assert every_encoder_head(config, tuple(reversed(every))) is None
    blind = every_head_off(made_probe([0.0, 0.0], [-0.1, 0.2], exact_off=0.0, heads=8))
    assert blind.startswith("For comparison, with **every** encoder head off (8), refitted probes score R² **-0.10** "
                            "to **0.20** in the encoder output, and the exact match is **0.0%**.")
    assert blind.endswith("the probes find none, as they must.")
    assert every_head_off(made_probe([0.0, 0.0], [0.1, 0.6])).endswith("its error on held-out words, not a length.")


def test_the_last_layers_shares_on_the_mirror_and_what_it_writes_without_them(reverser):
    config = reverser.model.config
    assert last_cross_heads(config) == tuple(("cross", 1, h) for h in range(4))
    run, broken = run_of("banana"), run_of("banana", intervention=edit_of(last_cross_heads(config)))
    said = last_layer_mirror(config, run, broken, lambda s: s)
    best = run.trace["cross", 1].argmax(-1)[:, :6]                          # (H, n): each head's choice per step
    shares = (best == np.arange(5, -1, -1)).mean(1)
    assert ", ".join(f"head {h} **{s:.0%}**" for h, s in enumerate(shares)) in said
    assert "about 1/n = 17%" in said and broken.output != "ananab"
    written = broken.output.replace(" ", "␣") or "(nothing)"
    assert said.endswith(f"Switch those 4 heads off and the model writes **{written}** instead of **ananab**.")


def test_the_first_step_head_reads_where_the_character_came_from_and_the_last_layer_follows_it(reverser, fits):
    first = read_first(fits, "reverse", 1)
    earlier = [f for f in fits if f.kind == "cross" and f.layer == 0]
    named = max(earlier, key=lambda f: f.shares[1])
    assert first == (("cross", named.layer, named.head),) and named.shares[1] >= 0.5
    without = offsets.head_offsets(reverser.model, reverser.vocab, held_out_strings(30, 48), kind="cross", layer=1,
                                   edit=edit_of(first))
    effects = [HeadEffect(named.id, 0.6, 0.4)]
    taught, taught_off = run_of("banana", how=TEACHER), run_of("banana", how=TEACHER, intervention=edit_of(first))
    view = two_steps("reverse", 1, fits, effects, without, taught, taught_off, 30)
    on = np.array([f.shares[0] for f in fits if f.kind == "cross" and f.layer == 1])
    off = np.array([f.shares[0] for f in without])
    assert view.info is None and len(view.sentences) == 2
    assert (f"Over 30 held-out words with the correct reversal fed in, **{named.id}** puts its largest weight there "
            f"in **{named.best_share:.1%}** of steps") in view.sentences[0]
    assert "switched off alone it costs 40.0% of exact match" in view.sentences[0]
    assert f"in **{on.min():.0%}–{on.max():.0%}** of steps (mean {on.mean():.1%})" in view.sentences[0]
    assert f"in **{off.min():.0%}–{off.max():.0%}** (mean {off.mean():.1%})" in view.sentences[0]
    fall = on.mean() - off.mean()
    assert view.sentences[1].startswith("So where the last layer looks depends on" if fall >= 0.2 else
                                        "Switching it off takes" if fall >= 0.05 else "Switching it off moves")
    assert np.array_equal(view.on, taught.trace["cross", 1]) and np.array_equal(view.off, taught_off.trace["cross", 1])
    assert not np.allclose(view.on, view.off)
    assert view.rows[1] == "a→n" and view.cols == list("banana") and view.off_name == str(named.id)
    assert view.caption.endswith(f"Unstarred: every head on; starred (*): {named.id} switched off.")


def fit(kind, layer, head, shares, top=0.9) -> offsets.OffsetFit:
    best = max(shares, key=lambda k: (shares[k], -abs(k)))
    return offsets.OffsetFit(kind, layer, head, best, shares[best], shares, top)


def test_without_a_head_explained_by_the_read_offset_there_is_no_first_step():
    shares = {-2: 0.0, -1: 0.1, 0: 0.5, 1: 0.3, 2: 0.1}
    fits = [fit("cross", 0, 0, shares), fit("cross", 1, 0, shares)]
    assert read_first(fits, "reverse", 1) is None
    view = two_steps("reverse", 1, fits, [], None, run_of("abc", how=TEACHER), None, 30)
    assert view.on is None and view.caption is None
    assert view.sentences == [
        "Step i reads the character written at step i−1, which stood at source position n−i. No cross head before "
        "the last layer puts its largest weight there in at least 50% of steps: the closest, cross L0 H0, does so in "
        "30% (its best offset is +0, n−1−i, in 50%). So this model shows no such first step."]
    single = two_steps("reverse", 0, fits, [], None, run_of("abc", how=TEACHER), None, 30)
    assert single.info.startswith("This model has a single decoder layer") and single.sentences == []


def test_looking_and_being_needed_ranks_each_kind_and_names_the_costliest_heads_offset():
    heads = [Head(kind, 0, h) for kind in ("encoder_self", "decoder_self", "cross") for h in range(3)]
    scores = dict(zip(heads, [0.1, 0.5, 0.9, 0.3, 0.2, 0.1, 0.2, 0.8, 0.5]))
    drops = dict(zip(heads, [0.0, 0.1, 0.2, 0.05, 0.01, 0.02, 0.1, 0.6, 0.3]))
    patterns = [HeadPattern(h, scores[h], 0.1, 1.0, 0.5) for h in heads]
    effects = sorted((HeadEffect(h, 1 - d, d) for h, d in drops.items()), key=lambda e: -e.drop)
    shifted = {-2: 0.0, -1: 0.05, 0: 0.05, 1: 0.9, 2: 0.0}
    fits = [fit(h.kind, h.layer, h.head, shifted if h == Head("cross", 0, 1) else
                {-2: 0.1, -1: 0.1, 0: 0.2 + 0.05 * i, 1: 0.1, 2: 0.1}) for i, h in enumerate(heads)]
    said = looking_and_needed("reverse", patterns, fits, effects)
    for kind, name in (("encoder_self", "encoder self"), ("decoder_self", "decoder self"), ("cross", "cross")):
        rho = spearmanr([scores[h] for h in heads if h.kind == kind], [drops[h] for h in heads if h.kind == kind])
        assert f"{name} **ρ = {rho.statistic:.2f}**" in said
    assert ("The costliest head, **cross L0 H1** (60.0% of exact match lost), scores 0.80 against its hypothesis, yet "
            "its largest weight lands on **n−i** (offset +1) in **90.0%** of steps") in said
    rho = spearmanr([f.best_share for f in fits], [drops[f.id] for f in fits]).statistic
    assert f"the cost rank with ρ = **{rho:.2f}**" in said
    unexplained = [f if f.id != Head("cross", 0, 1) else fit("cross", 0, 1, {-2: 0.2, -1: 0.2, 0: 0.2, 1: 0.3,
                                                                              2: 0.1}) for f in fits]
    said = looking_and_needed("reverse", patterns, unexplained, effects)
    assert "; no offset from -2 to +2 holds its largest weight in 50% of steps (best: n−i, 30%). " in said


def test_beyond_the_trained_length_counts_only_the_longer_strings():
    failures = [FirstFailure(46, 1.0, 0.0, None, 0.99), FirstFailure(50, 0.2, 0.5, 0.0, 0.4),
                FirstFailure(52, 0.0, 1.0, 0.0, 0.1234)]
    view = beyond_training(failures, 48)
    assert view.longer and view.sentence.startswith("Past 48 characters, 75% of random strings go wrong at the very "
                                                    "first output character")
    assert "no encoder head ever averaged over more than 48 positions" in view.sentence
    assert view.caption == "At length 52: 0% reversed exactly, p(correct first character) 0.123."
    none = beyond_training(failures[:1], 48)
    assert not none.longer and none.caption is None and "nothing to show here" in none.sentence


@pytest.mark.parametrize("own, mirror, ending", [
    (0.105, 0.2, "rescues 9.5 points, not most of the words: the length read-out is at most part of what fails."),
    (0.1, 0.7, "rescues 60.0 points, most of what the model's own weights lose, though 30% still fail: the length "
               "read-out is a large part of what fails."),
    (0.1, 0.95, "rescues nearly all of them, which fits the reading that the length read-out is what fails."),
    (0.1, 0.12, "rescues no more than the noise: what fails lies elsewhere too."),
    (0.3, 0.2, "The mirror does worse than the model's own weights here: handing over the length does not help.")])
def test_the_length_reading_is_tested_by_the_mirror_past_the_trained_length(reverser, own, mirror, ending):
    said = length_reading_tested(reverser.model, PatchScore(1.0, own, 200, 200), PatchScore(0.995, mirror, 200, 200),
                                 1, NOISE)
    assert said.startswith(f"*Build a head* tests it: the ideal mirror, built from the true length n, in place of "
                           f"every cross head of layer 1. On the 200 held-out words it keeps **99.5%** exact (own "
                           f"weights 100.0%); on 200 words of 49–56 characters, **{mirror:.1%}** (own weights "
                           f"{own:.1%}). ")
    assert said.endswith(ending)
    assert length_reading_tested(reverser.model, PatchScore(1.0, None, 200, 0), PatchScore(1.0, None, 200, 0), 1,
                                 NOISE) is None
