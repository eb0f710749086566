"""Heads against the offsets of their kind's pattern: the keys each offset names, the shares against the weights
read directly, and what they say of the bundled reverser, the bundled copier and a small live-trained model."""

import numpy as np
import pytest
import torch

from analysis import offsets
from analysis.lab import teacher_forced_trace
from analysis.offsets import OffsetFit, head_offsets
from analysis.run import TEACHER, make_run
from tests.conftest import ROOT
from transformer.checkpoint import load
from transformer.data import held_out_strings
from transformer.intervention import Head, Intervention
from transformer.metrics import pattern_share
from transformer.vocab import SOS


def keys(kind, n_queries, text, task, k):
    return [list(np.flatnonzero(row)) for row in offsets.offset_keys(kind, n_queries, text, task, k)]


def test_each_offset_names_the_hypothesis_shifted():
    assert keys("cross", 4, "abc", "reverse", 0) == [[2], [1], [0], []]
    assert keys("cross", 4, "abc", "reverse", 1) == [[], [2], [1], []]      # n−i: where the read character stood
    assert keys("cross", 4, "abc", "reverse", -1) == [[1], [0], [], []]
    assert keys("cross", 4, "abc", "copy", -1) == [[], [0], [1], []]
    assert keys("cross", 4, "bab", "sort", 1) == [[0, 2], [0, 2], [], []]    # ranks 1 and 2 of "abb" are both b
    assert keys("encoder_self", 3, "abc", "reverse", 1) == [[1], [2], []]
    assert keys("decoder_self", 3, "abc", "reverse", 0) == [[], [0], [1]]    # the previous position
    assert keys("decoder_self", 3, "abc", "reverse", 1) == [[0], [1], [2]]   # itself
    assert [offsets.offset_label("cross", "reverse", k) for k in (-1, 0, 1, 2)] == ["n−2−i", "n−1−i", "n−i", "n+1−i"]
    assert offsets.offset_label("decoder_self", "copy", 0) == "i−1"
    assert offsets.offset_label("cross", "copy", 1) == "i+1"


def teacher_forced_cross(model, vocab, text, layer, task="reverse"):
    """(H, Tq, S) cross weights of one layer with the correct output fed in."""
    out = text[::-1] if task == "reverse" else "".join(sorted(text)) if task == "sort" else text
    src, tgt = vocab.encode(text, 48), [SOS, *vocab.encode(out, 48)]
    with torch.inference_mode():
        trace = model(torch.tensor([src]), torch.tensor([tgt]), trace=True).trace
    return trace["cross", layer][0].double().numpy()


def direct_reverse_shares(model, vocab, texts, layer, head):
    """Per offset, the share of output steps whose largest weight is on n−1−i+k, counted one step at a time."""
    hits, steps = {k: 0 for k in offsets.OFFSETS}, 0
    for text in texts:
        w = teacher_forced_cross(model, vocab, text, layer)[head]
        n = len(text)
        for i in range(n):
            steps += 1
            for k in offsets.OFFSETS:
                hits[k] += int(w[i].argmax()) == n - 1 - i + k
    return {k: h / steps for k, h in hits.items()}


def test_shares_match_the_weights_read_directly(bundled):
    texts = ["level", "banana", "the quick brown fox"]
    fits = head_offsets(bundled.model, bundled.vocab, texts, kind="cross", layer=1)
    assert [(f.kind, f.layer, f.head) for f in fits] == [("cross", 1, h) for h in range(bundled.model.config.n_heads)]
    for fit in fits:
        assert fit.shares == pytest.approx(direct_reverse_shares(bundled.model, bundled.vocab, texts, 1, fit.head))
        assert fit.best_share == max(fit.shares.values()) == fit.shares[fit.best_offset]
    steps = [teacher_forced_cross(bundled.model, bundled.vocab, t, 1)[2][: len(t)].max(-1) for t in texts]
    assert fits[2].mean_top_weight == pytest.approx(np.concatenate(steps).mean())
    # offset 0 of cross-attention is the pattern the Training page and the Attention page count
    hits = sum(pattern_share(torch.tensor(teacher_forced_cross(bundled.model, bundled.vocab, t, 1))[None], [t]).numpy()
               * len(t) for t in texts)
    assert [f.shares[0] for f in fits] == pytest.approx(hits / sum(map(len, texts)))


@pytest.fixture(scope="module")
def reverser_fits(bundled):
    return head_offsets(bundled.model, bundled.vocab, held_out_strings(200, bundled.model.config.max_len))


def test_the_reversers_costliest_cross_head_reads_where_the_character_just_read_came_from(reverser_fits, bundled):
    fit = {f.id: f for f in reverser_fits}
    l0h3 = fit[Head("cross", 0, 3)]
    print(f"cross L0 H3: best offset {l0h3.best_offset:+d}, share {l0h3.best_share:.3f}, "
          f"mean top weight {l0h3.mean_top_weight:.3f}")
    assert l0h3.best_offset == offsets.READ_OFFSET["reverse"] == 1 and l0h3.best_share > 0.9
    assert l0h3.shares[0] < 0.1 and l0h3.mean_top_weight > 0.9 and l0h3.explained
    last = [fit[Head("cross", 1, h)] for h in range(bundled.model.config.n_heads)]
    print("last layer:", [(f.best_offset, round(f.best_share, 3), round(f.mean_top_weight, 3)) for f in last])
    assert all(f.best_offset == 0 and 0.5 < f.best_share < 0.9 for f in last)
    assert all(f.shares[0] + f.shares[1] > 0.9 for f in last)        # the rest on n−i


def test_a_switched_off_head_changes_what_the_others_do(bundled):
    texts = held_out_strings(40, bundled.model.config.max_len)
    edit = Intervention(ablated=frozenset({Head("cross", 0, 3)}))
    intact = head_offsets(bundled.model, bundled.vocab, texts, kind="cross", layer=1)
    without = head_offsets(bundled.model, bundled.vocab, texts, kind="cross", layer=1, edit=edit)
    assert np.mean([f.shares[0] for f in without]) < np.mean([f.shares[0] for f in intact])


def test_the_copier_has_a_diagonal_cross_head():
    copier = load(ROOT / "checkpoints" / "copy")
    texts = held_out_strings(100, copier.model.config.max_len)
    fits = head_offsets(copier.model, copier.vocab, texts[:20], "copy", kind="cross", layer=0)
    hits = sum(pattern_share(torch.tensor(teacher_forced_cross(copier.model, copier.vocab, t, 0, "copy"))[None],
                             [t], "copy").numpy() * len(t) for t in texts[:20])
    assert [f.shares[0] for f in fits] == pytest.approx(hits / sum(map(len, texts[:20])))
    fits = head_offsets(copier.model, copier.vocab, texts, "copy", kind="cross")
    print("copy:", [(str(f.id), f.best_offset, round(f.best_share, 3)) for f in fits])
    assert [f for f in fits if f.best_offset == 0 and f.best_share > 0.95]


def test_on_a_live_trained_model_the_shares_follow_its_own_weights():
    from explorer.live_training import LiveSettings, LiveTraining
    live = LiveTraining(LiveSettings(layers=1, heads=2, d_model=16, steps=30, max_len=6))
    live.run()
    model, vocab = live.result.model, live.result.vocab
    texts = held_out_strings(30, 6)
    fits = head_offsets(model, vocab, texts)
    assert len(fits) == 3 * 2 and all(isinstance(f, OffsetFit) for f in fits)
    for fit in (f for f in fits if f.kind == "cross"):
        assert fit.shares == pytest.approx(direct_reverse_shares(model, vocab, texts, 0, fit.head))
    for fit in (f for f in fits if f.kind == "encoder_self"):          # offset 0: each position on itself
        on_itself = [teacher_forced_trace(model, vocab, t)["encoder_self", 0][0, fit.head].argmax(-1).numpy()
                     == np.arange(len(t)) for t in texts]
        assert fit.shares[0] == pytest.approx(np.concatenate(on_itself).mean())
    run = make_run(model, vocab, texts[0], TEACHER)
    one = head_offsets(model, vocab, texts[:1], kind="cross", layer=0)
    for mine, theirs in zip(offsets.run_offsets(run, "cross", 0), one):
        assert mine.shares == pytest.approx(theirs.shares)
        assert mine.mean_top_weight == pytest.approx(theirs.mean_top_weight)


@pytest.mark.parametrize("where", [dict(kind="sideways"), dict(kind="cross", layer=5), dict(head=9)])
def test_a_head_the_model_does_not_have_is_refused(bundled, where):
    with pytest.raises(ValueError):
        head_offsets(bundled.model, bundled.vocab, ["abc"], **where)


def test_no_words_is_refused(bundled):
    with pytest.raises(ValueError):
        head_offsets(bundled.model, bundled.vocab, [])
