"""Interventions change one forward pass exactly as described, and never the shared model."""

import copy
import threading

import pytest
import torch

from transformer.intervention import Head, Intervention
from transformer.vocab import SOS


def batch(config, seed=0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, config.vocab_size, (3, 6), generator=g)
    src[1, 4:] = 0  # padding in one row
    tgt = torch.cat([torch.full((3, 1), SOS), torch.randint(3, config.vocab_size, (3, 4), generator=g)], dim=1)
    return src, tgt


def test_no_intervention_is_the_plain_forward_pass(tiny_model):
    src, tgt = batch(tiny_model.config)
    assert torch.equal(tiny_model(src, tgt).logits, tiny_model(src, tgt, edit=Intervention()).logits)


@pytest.mark.parametrize("kind, module", [("encoder_self", "encoder_layers.{layer}.self_attention"),
                                          ("decoder_self", "decoder_layers.{layer}.self_attention"),
                                          ("cross", "decoder_layers.{layer}.cross_attention")])
@pytest.mark.parametrize("trace", [False, True])
def test_ablating_a_head_equals_a_copy_whose_w_o_ignores_that_head(tiny_model, kind, module, trace):
    layer, head = 1, 2
    d_k = tiny_model.config.d_k
    oracle = copy.deepcopy(tiny_model)
    w_o = oracle.get_submodule(module.format(layer=layer)).w_o
    with torch.no_grad():
        w_o.weight[:, head * d_k:(head + 1) * d_k] = 0  # the head's output no longer reaches the stream
    src, tgt = batch(tiny_model.config)
    edit = Intervention(ablated=frozenset({Head(kind, layer, head)}))
    ours = tiny_model(src, tgt, trace=trace, edit=edit).logits
    assert torch.allclose(ours, oracle(src, tgt).logits, atol=1e-6)
    assert not torch.allclose(ours, tiny_model(src, tgt).logits, atol=1e-4)  # and it did change something


def test_zero_positions_equal_a_copy_with_an_all_zero_table(tiny_model):
    oracle = copy.deepcopy(tiny_model)
    oracle.positions.table.zero_()
    src, tgt = batch(tiny_model.config)
    out = tiny_model(src, tgt, trace=True, edit=Intervention(positions="zero"))
    assert torch.allclose(out.logits, oracle(src, tgt).logits, atol=1e-6)
    assert torch.count_nonzero(out.trace["src_positions.rows"]) == 0
    assert torch.count_nonzero(out.trace["tgt_positions.rows"]) == 0


def test_zeroing_only_the_source_leaves_the_target_codes(tiny_model):
    src, tgt = batch(tiny_model.config)
    trace = tiny_model(src, tgt, trace=True, edit=Intervention(positions="zero", sides=frozenset({"source"}))).trace
    assert torch.count_nonzero(trace["src_positions.rows"][0]) == 0
    assert torch.equal(trace["tgt_positions.rows"][0], tiny_model.positions.encoding(tgt.size(1)))


def test_shuffled_source_positions_are_a_permutation_of_its_own_codes(tiny_model):
    src, tgt = batch(tiny_model.config)
    table = tiny_model.positions.encoding(src.size(1))
    edit = Intervention(positions="shuffle", shuffle_seed=3)
    rows = tiny_model(src, tgt, trace=True, edit=edit).trace["src_positions.rows"][0]
    assert not torch.equal(rows, table)
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, table.tolist()))


def test_shuffled_target_codes_stay_put_as_the_decoding_grows(tiny_model):
    src, tgt = batch(tiny_model.config)
    edit = Intervention(positions="shuffle", sides=frozenset({"target"}), shuffle_seed=1)
    short = tiny_model(src, tgt[:, :3], trace=True, edit=edit).trace["tgt_positions.rows"][0]
    long = tiny_model(src, tgt, trace=True, edit=edit).trace["tgt_positions.rows"][0]
    assert torch.equal(long[:3], short)


def test_a_swap_trades_two_source_codes_and_leaves_the_rest_and_the_target(tiny_model):
    src, tgt = batch(tiny_model.config)
    table = tiny_model.positions.encoding(src.size(1))
    trace = tiny_model(src, tgt, trace=True, edit=Intervention(positions="swap", swapped=(1, 4))).trace
    rows = trace["src_positions.rows"][0]
    order = [0, 4, 2, 3, 1, 5]
    assert torch.equal(rows, table[order])
    assert torch.equal(trace["tgt_positions.rows"][0], tiny_model.positions.encoding(tgt.size(1)))
    for bad in ((2, 2), (-1, 3), (1,)):
        with pytest.raises(ValueError, match="two different positions"):
            Intervention(positions="swap", swapped=bad)
    with pytest.raises(ValueError, match="cannot swap"):
        tiny_model(src, tgt, edit=Intervention(positions="swap", swapped=(1, 9)))


def test_bad_interventions_are_refused():
    with pytest.raises(ValueError, match="positions"):
        Intervention(positions="backwards")
    with pytest.raises(ValueError, match="sides"):
        Intervention(sides=frozenset({"middle"}))
    with pytest.raises(ValueError, match="head index"):
        Intervention(ablated=frozenset({Head("cross", 0, 9)})).head_gate("cross", 0, 4)


def test_experiments_leave_the_shared_model_as_it_was(tiny_model):
    before = {k: v.clone() for k, v in tiny_model.state_dict().items()}
    src, tgt = batch(tiny_model.config)
    plain = tiny_model(src, tgt).logits
    every = frozenset(Head(k, layer, h) for k in ("encoder_self", "decoder_self", "cross")
                      for layer in range(2) for h in range(4))
    tiny_model(src, tgt, trace=True, edit=Intervention(ablated=every, positions="zero"))
    assert all(torch.equal(v, before[k]) for k, v in tiny_model.state_dict().items())
    assert torch.equal(tiny_model(src, tgt).logits, plain)


def test_concurrent_experiments_do_not_see_each_other(tiny_model):
    """Two threads on one model, one ablating, one not: each gets exactly its own answer every time."""
    src, tgt = batch(tiny_model.config)
    edit = Intervention(ablated=frozenset({Head("cross", 1, 0), Head("encoder_self", 0, 1)}), positions="shuffle")
    with torch.inference_mode():
        expected = {"plain": tiny_model(src, tgt).logits, "edited": tiny_model(src, tgt, edit=edit).logits}
    mismatches = []

    def run(name, e):
        with torch.inference_mode():
            for _ in range(50):
                if not torch.equal(tiny_model(src, tgt, edit=e).logits, expected[name]):
                    mismatches.append(name)

    threads = [threading.Thread(target=run, args=("plain", Intervention())), threading.Thread(target=run, args=("edited", edit))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert mismatches == []
    assert not torch.equal(expected["plain"], expected["edited"])
