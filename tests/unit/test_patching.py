"""Build a head: a pattern put in place of cross-attention weights really replaces them, each pattern names the
positions it says, and on the bundled reverser the ideal mirror keeps far more than the mirror one to the right."""

import pytest
import torch

from analysis.patching import (
    PATTERNS, PatchScore, Placement, longer_texts, past_lengths, past_rescue, past_span, patch_score, patched,
    pattern_weights, patterns_for, verdict,
)
from transformer.data import source_positions
from transformer.data import held_out_strings
from transformer.intervention import Intervention, Replacement
from transformer.vocab import PAD, SOS, Vocab

VOCAB = Vocab()


def sources(*texts):
    """(B, S) ids of the texts, padded."""
    rows = [VOCAB.encode(t, 64) for t in texts]
    width = max(map(len, rows))
    return torch.tensor([r + [PAD] * (width - len(r)) for r in rows])


def batch(config, seed=0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, config.vocab_size, (3, 6), generator=g)
    src[1, 4:] = PAD
    tgt = torch.cat([torch.full((3, 1), SOS), torch.randint(3, config.vocab_size, (3, 5), generator=g)], dim=1)
    return src, tgt


def random_pattern(src, n_queries):
    """Weights no head would compute by chance: a fixed random distribution over each row's characters."""
    g = torch.Generator().manual_seed(1)
    raw = torch.rand(src.size(0), n_queries, src.size(1), generator=g).masked_fill((src == PAD)[:, None], 0)
    return raw / raw.sum(-1, keepdim=True)


@pytest.mark.parametrize("heads", [None, frozenset({2})])
def test_a_replacement_puts_the_pattern_in_the_trace_and_leaves_the_other_heads(tiny_model, heads):
    src, tgt = batch(tiny_model.config)
    edit = Intervention(replaced=(Replacement(1, random_pattern, heads),))
    plain = tiny_model(src, tgt, trace=True).trace
    out = tiny_model(src, tgt, trace=True, edit=edit)
    weights, before = out.trace["cross", 1], plain["cross", 1]                  # (B, H, T, S)
    chosen = list(range(tiny_model.config.n_heads)) if heads is None else sorted(heads)
    others = [h for h in range(tiny_model.config.n_heads) if h not in chosen]
    expected = random_pattern(src, tgt.size(1))                                 # (B, T, S)
    for h in chosen:
        assert torch.equal(weights[:, h], expected)
        assert not torch.allclose(before[:, h], expected, atol=1e-3)            # it did differ before
    for h in others:
        assert torch.allclose(weights[:, h], before[:, h])
    assert torch.allclose(out.trace["cross", 0], plain["cross", 0])             # the layer before is untouched
    assert torch.allclose(tiny_model(src, tgt, edit=edit).logits, out.logits, atol=1e-6)   # untraced path agrees
    assert not torch.allclose(out.logits, tiny_model(src, tgt).logits, atol=1e-4)


def test_a_replacement_equals_a_model_whose_head_reads_the_values_the_pattern_names(tiny_model):
    """With weights one-hot on key j, a head's output is value j: checked against the values the trace recorded."""
    src, tgt = batch(tiny_model.config)
    edit = patched("mirror", "reverse", Placement(1), tiny_model)
    trace = tiny_model(src, tgt, trace=True, edit=edit).trace
    values, heads = trace.attention("cross", 1, "values"), trace.attention("cross", 1, "heads")  # (B, H, S, d_k)
    keys = pattern_weights("mirror", "reverse", src, tgt.size(1)).argmax(-1)                    # (B, T)
    for b in range(src.size(0)):
        assert torch.allclose(heads[b], values[b][:, keys[b]], atol=1e-6)


def test_bad_replacements_are_refused(tiny_model):
    src, tgt = batch(tiny_model.config)
    with pytest.raises(ValueError, match="at most one replacement per layer"):
        Intervention(replaced=(Replacement(0, random_pattern), Replacement(0, random_pattern)))
    with pytest.raises(ValueError, match="head index out of range"):
        tiny_model(src, tgt, edit=Intervention(replaced=(Replacement(0, random_pattern, frozenset({9})),)))
    with pytest.raises(ValueError, match="must have shape"):
        tiny_model(src, tgt, edit=Intervention(replaced=(Replacement(0, lambda s, t: torch.ones(1, t, 2)),)))
    with pytest.raises(ValueError, match="outside"):
        patched("mirror", "reverse", Placement(5), tiny_model)
    with pytest.raises(ValueError, match="unknown pattern"):
        patched("spiral", "reverse", Placement(0), tiny_model)


def test_each_pattern_names_its_positions_with_the_ends_held_to_the_text():
    src = sources("hello", "ab")                                                # n = 5 and 2, padded to 5
    steps = 7
    keys = {name: pattern_weights(name, "reverse", src, steps).argmax(-1).tolist() for name in PATTERNS}
    assert keys["task"][0] == [4, 3, 2, 1, 0, 0, 0] == keys["mirror"][0]       # the end step (i = n) reads 0
    assert keys["task+1"][0] == [4, 4, 3, 2, 1, 0, 0]                         # n−i: step 0 held to the last
    assert keys["task-1"][0] == [3, 2, 1, 0, 0, 0, 0]
    assert keys["diagonal"][0] == [0, 1, 2, 3, 4, 4, 4]
    assert keys["mirror"][1] == [1, 0, 0, 0, 0, 0, 0]                         # each row by its own length
    weights = pattern_weights("uniform", "reverse", src, steps)               # (B, T, S)
    assert torch.allclose(weights[1, :, :2], torch.full((steps, 2), 0.5)) and weights[1, :, 2:].sum() == 0
    for name in PATTERNS:
        w = pattern_weights(name, "reverse", src, steps)
        assert torch.allclose(w.sum(-1), torch.ones(2, steps)) and w[1, :, 2:].sum() == 0   # never on padding


@pytest.mark.parametrize("task", ["reverse", "copy", "sort"])
def test_the_tasks_own_pattern_is_the_position_it_copies_from(task):
    texts = ["banana split", "zebra", "a a"]
    weights = pattern_weights("task", task, sources(*texts), 13)
    for b, text in enumerate(texts):
        assert weights[b, :len(text)].argmax(-1).tolist() == source_positions(text, task)


def test_each_task_offers_its_own_pattern_first_and_no_pattern_twice():
    for task in ("reverse", "copy", "sort"):
        offered = patterns_for(task)
        assert offered[0] == "task" and len(offered) == len(set(offered))
    assert "mirror" not in patterns_for("reverse") and "diagonal" not in patterns_for("copy")


def test_the_verdict_follows_the_share_kept():
    assert [verdict(x, 0.9) for x in (0.9, 0.81, 0.5, 0.2)] == ["kept", "kept", "part", "lost"]
    assert verdict(0.3, 0.0) == verdict(0.3, 0.05) == "none"     # too little of the task to judge


def test_longer_texts_are_past_the_trained_length(bundled):
    texts = longer_texts(bundled.model, 16)
    assert sorted({len(t) for t in texts}) == past_lengths(bundled.model)
    assert min(past_lengths(bundled.model)) == bundled.model.config.max_len + 1
    limit = bundled.model.config.max_len
    assert past_span(bundled.model) == f"{limit + 1}–{limit + 8}"


def past(own: float, patched: float, noise: float = 3.5) -> str:
    return past_rescue(PatchScore(1.0, own, 200, 200), PatchScore(1.0, patched, 200, 200), noise)


def test_the_rescue_past_the_trained_length_is_judged_against_the_noise_and_what_the_own_weights_lose():
    assert [past(0.5, x) for x in (0.46, 0.47, 0.53, 0.54)] == ["worse", "noise", "noise", "some"]
    assert past(0.5, 0.54, noise=5) == "noise"
    assert past(0.1, 0.9) == past(0.5, 0.95) == "nearly all"          # from 90 % kept on
    assert past(0.1, 0.56) == "most" and past(0.1, 0.54) == "some"    # half of the 90 points lost: 45


def test_on_the_bundled_reverser_the_mirror_is_enough_and_one_to_the_right_is_not(bundled):
    """Only the held-out words (the page also scores the longer ones): two sets of 200 decodings."""
    model, vocab = bundled.model, bundled.vocab
    held_out, last = held_out_strings(200, model.config.max_len), model.config.n_decoder_layers - 1
    within = {name: patch_score(model, vocab, held_out, [], "reverse",
                                patched(name, "reverse", Placement(last), model)).within for name in ("task", "task+1")}
    print("exact match with the pattern in the last cross layer:", within)
    assert within["task+1"] < within["task"] / 2
