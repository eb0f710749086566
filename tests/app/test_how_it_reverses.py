"""How it reverses: every number on the page against the model, on the bundled model and a learner's own."""

import numpy as np
import torch

from analysis import lab, mechanism
from analysis.run import make_run
from transformer.data import sample_strings
from transformer.evaluate import held_out_strings
from transformer.intervention import Head, Intervention
from transformer.vocab import SOS

from .helpers import compute_every_table, no_exception, open_page, own_model_state


def text_of(at) -> str:
    return " ".join([m.value for m in at.markdown] + [c.value for c in at.caption])


def test_the_length_is_unreadable_in_the_input_readable_after_attention_and_lost_with_the_even_heads(ckpt):
    at = open_page("how_it_reverses", "banana")
    no_exception(at)
    intact, off = at.dataframe[0].value, at.dataframe[1].value
    assert intact.loc["input (embedding + position code)"].max() < 0.1
    assert intact.loc["encoder output (memory)"].min() > 0.9
    assert off.loc["encoder output (memory)"].max() < 0.5
    # the even encoder heads, found as the page finds them (Which head does the work?, 200 held-out words)
    trained = ckpt.model.config.max_len
    test = held_out_strings(200, trained)
    heads = [p.head for p in lab.pattern_scores(ckpt.model, ckpt.vocab, test)
             if p.head.kind == "encoder_self" and p.uniformity >= lab.EVEN_UNIFORMITY]
    assert heads
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Exact match, every head working"] == "100.0%"
    assert float(metrics[f"With the {len(heads)} even encoder heads off"].rstrip("%")) < 10
    text = text_of(at)
    assert "fall together: the length enters through these heads" in text
    assert ("**every** encoder head" in text) == (len(heads) == 2 * ckpt.model.config.n_heads)
    # the same probes fitted here, apart from the page: its table and its reading of the learner's text
    train = [t for t in sample_strings(600, 5, trained, held_out=True) if t not in set(test)]
    probe = mechanism.length_probe(ckpt.model, ckpt.vocab, train, test, heads)
    assert np.allclose(intact.to_numpy(), probe.r2, atol=1e-3) and np.allclose(off.to_numpy(), probe.r2_off, atol=1e-3)
    with torch.inference_mode():
        trace = ckpt.model(torch.tensor([ckpt.vocab.encode("banana", 24)]), torch.tensor([[SOS]]), trace=True).trace
    guess = float(probe.probes[(5, 0)].predict(trace["encoder_norm.output"][0, :1].numpy())[0])
    assert f"says n ≈ **{guess:.1f}** (it is 6)" in text
    broken = make_run(ckpt.model, ckpt.vocab, "banana",
                      edit=Intervention(frozenset(Head("cross", 1, h) for h in range(4)))).output
    assert broken != "ananab" and f"the model writes **{broken}** instead of **ananab**" in text
    assert "1/n = 17%" in text


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
