"""How it reverses: every number on the page against the model, on the bundled model and a learner's own."""

import re

import numpy as np
import pytest
import torch

from analysis import lab, mechanism, offsets
from analysis.run import TEACHER, make_run
from transformer.data import sample_strings
from transformer.data import held_out_strings
from transformer.intervention import NO_INTERVENTION, Head, Intervention
from transformer.vocab import SOS

from .helpers import canvas_charts, compute_every_table, no_exception, open_page, own_model_state

pytestmark = pytest.mark.slow   # left out of the quick tier: live-trained models' circuits


def text_of(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption] + [i.value for i in at.info])


def numbers_after(text: str, phrase: str) -> list[float]:
    """The bold numbers of the sentence starting at `phrase`."""
    sentence = text[text.index(phrase):].split(". ")[0]
    return [float(x) for x in re.findall(r"\*\*(−?-?[\d.]+)%?\*\*", sentence.replace("−", "-"))]


@pytest.fixture(scope="module")
def page(ckpt):
    at = open_page("how_it_reverses", "banana")
    no_exception(at)
    return at


@pytest.fixture(scope="module")
def sample(ckpt):
    return held_out_strings(200, ckpt.model.config.max_len)


def test_the_length_probes_refitted_with_the_even_heads_off_still_read_it(page, ckpt, sample):
    at = page
    intact, old, refit = (d.value for d in at.dataframe[:3])
    assert intact.loc["input (embedding + position code)"].max() < 0.1
    assert intact.loc["encoder output (memory)"].min() > 0.9
    # the even encoder heads, found as the page finds them (Which head does the work?, 200 held-out words)
    heads = [p.head for p in lab.pattern_scores(ckpt.model, ckpt.vocab, sample)
             if p.head.kind == "encoder_self" and p.uniformity >= lab.EVEN_UNIFORMITY]
    assert heads
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Exact match, every head working"] == "100.0%"
    # the same probes fitted here, apart from the page: its three tables and its reading of the learner's text
    train = [t for t in sample_strings(600, 5, ckpt.model.config.max_len, held_out=True) if t not in set(sample)]
    probe = mechanism.length_probe(ckpt.model, ckpt.vocab, train, sample, heads)
    for shown, want in ((intact, probe.r2), (old, probe.r2_off), (refit, probe.r2_refit)):
        assert np.allclose(shown.to_numpy(), want, atol=1e-3, equal_nan=True)
    assert metrics[f"With the {len(heads)} evenly spreading encoder heads off"] == f"{probe.exact_off:.1%}"
    (old_low, old_high), (low, high) = mechanism.output_range(probe.r2_off), mechanism.output_range(probe.r2_refit)
    print(f"encoder output with {len(heads)} heads off: old probes R² {old_low:.3f}..{old_high:.3f}, "
          f"refitted {low:.3f}..{high:.3f}; exact match {probe.exact_off:.3f}")
    text = text_of(at)
    assert (f"the intact model's probes score R² **{old_low:.2f}** to **{old_high:.2f}**, and probes refitted on the "
            f"changed model **{low:.2f}** to **{high:.2f}**") in text
    readable = low >= mechanism.READABLE
    assert ("still linearly readable" in text) == readable
    assert ("do not show that the length enters through these heads" in text) == readable
    assert "the length enters through these heads, and the model needs it" not in text
    with torch.inference_mode():
        trace = ckpt.model(torch.tensor([ckpt.vocab.encode("banana", 24)]), torch.tensor([[SOS]]), trace=True).trace
    guess = float(probe.probes[(5, 0)].predict(trace["encoder_norm.output"][0, :1].numpy())[0])
    assert f"says n ≈ **{guess:.1f}** (it is 6)" in text
    # every encoder head off: nothing can carry the length, and the refitted probes say so
    every = numbers_after(text, "For comparison, with **every** encoder head off")
    assert len(every) == 3 and every[1] < mechanism.READABLE and "as they must" in text


def test_the_cross_heads_and_what_switching_them_off_writes(page, ckpt):
    text = text_of(page)
    broken = make_run(ckpt.model, ckpt.vocab, "banana",
                      edit=Intervention(frozenset(Head("cross", 1, h) for h in range(4)))).output
    assert broken != "ananab" and f"the model writes **{broken}** instead of **ananab**" in text
    assert "1/n = 17%" in text


def test_the_length_reading_is_tested_by_the_mirror_handed_the_true_length(page, ckpt, sample):
    """Section 6's reading (the length read-out fails first) with Build a head's test beside it: the mirror, built
    from the true n, in place of the last cross layer. On the bundled reverser it rescues some longer words, not
    most (20 % against 10.5 %), and the sentence must say that rather than confirm the reading."""
    from analysis import patching
    from explorer.lab_runs import NOISE_POINTS
    model = ckpt.model
    longer = patching.longer_texts(model, 200)
    own = patching.patch_score(model, ckpt.vocab, sample, longer, "reverse", NO_INTERVENTION)
    mirror = patching.patch_score(model, ckpt.vocab, sample, longer, "reverse",
                                  patching.patched("task", "reverse", patching.Placement(1, None), model))
    text = text_of(page)
    assert (f"it keeps **{mirror.within:.1%}** exact (own weights {own.within:.1%}); on 200 words of 49–56 "
            f"characters, **{mirror.past:.1%}** (own weights {own.past:.1%})") in text
    gain = mirror.past - own.past
    assert gain * 100 > NOISE_POINTS and mirror.past < 0.9        # the bundled model's case, measured
    assert gain < (1 - own.past) / 2                              # a rescue, but of fewer than half it loses
    assert f"rescues {gain * 100:.1f} points, not most of the words" in text
    assert "read-out is at most part of what fails" in text


def test_the_circuit_names_the_head_reading_where_the_last_character_came_from(page, ckpt, sample):
    at, last = page, ckpt.model.config.n_decoder_layers - 1
    fits = offsets.head_offsets(ckpt.model, ckpt.vocab, sample)
    first = offsets.read_head(fits, "reverse", last)
    assert first.best_offset == 1 and first.explained                 # n−i: measured 95 % for cross L0 H3
    off_key = Intervention(frozenset({first.id}))
    without = offsets.head_offsets(ckpt.model, ckpt.vocab, sample, kind="cross", layer=last, edit=off_key)
    on = np.array([f.shares[0] for f in fits if f.kind == "cross" and f.layer == last])
    off = np.array([f.shares[0] for f in without])
    print(f"{first.id}: n−i in {first.best_share:.3f} of steps, mean top weight {first.mean_top_weight:.3f}; "
          f"last layer on n−1−i {on.round(3)} -> {off.round(3)} with it off")
    text = text_of(at)
    assert f"**{first.id}** puts its largest weight there in **{first.best_share:.1%}** of steps" in text
    assert f"in **{on.min():.0%}–{on.max():.0%}** of steps (mean {on.mean():.1%})" in text
    assert f"in **{off.min():.0%}–{off.max():.0%}** (mean {off.mean():.1%})" in text
    fall = on.mean() - off.mean()
    assert ("One reading is: layer" in text) == (fall >= 0.2)
    maps = canvas_charts(at)["composition"]
    titles = [p["title"] for p in maps["panels"]]
    assert titles[0] == "H0" and titles[-1] == "H3*" and f"{first.id} switched off" in text
    assert maps["panels"][-1]["name"] == f"last layer, head 3, {first.id} off"
    assert maps["title"] == f"Last layer; *: without {first.id}"
    panels = [make_run(ckpt.model, ckpt.vocab, "banana", TEACHER, edit).trace["cross", last]
              for edit in (NO_INTERVENTION, off_key)]                  # (H, Tq, S) each: on, then off
    for i, panel in enumerate(maps["panels"]):
        assert np.allclose(panel["z"], panels[i // 4][i % 4], atol=5e-5)


def test_the_costliest_head_is_named_with_its_offset_never_as_unexplained(page, ckpt, sample):
    text = text_of(page)   # the ablation ranking itself is checked on Switch heads off (test_lab)
    named = re.search(r"The costliest head, \*\*(\w+) L(\d) H(\d)\*\*", text).groups()
    fit = next(f for f in offsets.head_offsets(ckpt.model, ckpt.vocab, sample)
               if f.id == Head(named[0], int(named[1]), int(named[2])))
    print(f"costliest: {fit.id}, best offset {fit.best_offset:+d} in {fit.best_share:.3f}")
    if fit.explained and fit.best_offset != 0:
        label = offsets.offset_label(fit.kind, "reverse", fit.best_offset)
        assert f"lands on **{label}** (offset {fit.best_offset:+d}) in **{fit.best_share:.1%}** of steps" in text
    assert "cannot say what" not in text and "Looking right is not being needed" not in text


def test_the_page_runs_on_a_learners_own_small_model():
    from explorer.live_training import LiveSettings, LiveTraining
    run = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    run.run()
    at = open_page("how_it_reverses", "abc", state=own_model_state(run.result, "Your model"))
    no_exception(at)
    assert not at.dataframe and any("computed when you ask" in i.value for i in at.info)  # nothing heavy on load
    assert compute_every_table(at) >= 4      # the pattern table, the probes, the ablation and failure tables
    assert not at.warning                    # none ran past its budget
    table = at.dataframe[0].value
    assert list(table.columns) == ["position 0", "position 1", "position 2", "position 4"]
    assert len(table) == 4      # input, after layer 0's attention, after layer 0, encoder output
    assert "a single decoder layer" in text_of(at)


def test_on_a_two_layer_live_model_the_circuit_sentence_follows_its_own_heads():
    from explorer.live_training import LiveSettings, LiveTraining
    live = LiveTraining(LiveSettings(layers=2, heads=2, d_model=16, steps=30, max_len=6))
    live.run()
    model, vocab = live.result.model, live.result.vocab
    at = open_page("how_it_reverses", "abcd", state=own_model_state(live.result, "Your model"))
    compute_every_table(at)
    no_exception(at)
    text = text_of(at)
    sample = held_out_strings(200, 6)
    fits = offsets.head_offsets(model, vocab, sample)
    first = offsets.read_head(fits, "reverse", 1)
    if first.best_offset == 1 and first.explained:
        assert f"**{first.id}** puts its largest weight there in **{first.best_share:.1%}**" in text
    else:
        assert f"the closest, {first.id}, does so in {first.shares[1]:.0%}" in text
        assert "shows no such first step" in text
    _, effects = lab.ablation_ranking(model, vocab, sample)        # cheap on a model this small
    costliest = next(f for f in fits if f.id == effects[0].head)
    assert f"The costliest head, **{costliest.id}**" in text
    label = offsets.offset_label(costliest.kind, "reverse", costliest.best_offset)
    if costliest.explained and costliest.best_offset != 0:
        assert f"lands on **{label}** (offset {costliest.best_offset:+d})" in text
    elif costliest.explained:
        assert "lands on the hypothesis's key" in text
    else:
        assert f"(best: {label}, {costliest.best_share:.0%})" in text
