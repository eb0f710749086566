"""Decode step by step's record against the model run again one step at a time, on that step's own prefix."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.page_models.decode import TEMPERATURES, TOP_TOKENS, decode_step, looked_step
from analysis.run import Decoding
from transformer.vocab import SOS

from .conftest import run_of


def step_pass(ckpt, text, prefix):
    """The model over one step's own prefix, independent of the run's single traced pass."""
    src = ckpt.vocab.encode(text, ckpt.model.config.max_len)
    with torch.inference_mode():
        return ckpt.model(torch.tensor([src]), torch.tensor([[SOS, *prefix]]), trace=True)


@pytest.mark.parametrize("t, layer, head", [(0, 0, 1), (2, 1, 3)])
def test_a_step_reads_its_prefix_and_shows_the_model_distribution_and_rows(reverser, t, layer, head):
    run = run_of("banana")
    step = decode_step(run, reverser.vocab, t)
    looked = looked_step(run, run_of("banana", how=Decoding(teacher=True)), t, layer, head)
    alone = step_pass(reverser, "banana", list(run.fed_ids[:t]))
    expected = torch.softmax(alone.logits[0, -1], -1).numpy()
    assert np.allclose(step.probs, expected, atol=1e-6)
    assert step.decoder_input == " ".join(["⟨s⟩", *"ananab"[:t]])
    assert step.chosen == "ananab"[t] and step.written == "ananab"[: t + 1]
    assert step.chosen_p == pytest.approx(expected.max(), abs=1e-6)
    assert len(step.top_tokens) == TOP_TOKENS and step.top_tokens[0] == step.chosen
    assert list(step.top_probs) == sorted(step.top_probs, reverse=True)
    assert np.allclose(looked.cross, alone.trace["cross", layer][0, :, -1].numpy(), atol=1e-6)
    assert np.allclose(looked.decoder_self[:, : t + 1], alone.trace["decoder_self", layer][0, :, -1].numpy(),
                       atol=1e-6)
    assert np.all(looked.decoder_self[:, t + 1:] == 0)                 # the future, under the causal mask
    peak = int(looked.cross[head].argmax())
    assert f"Head {head} puts its largest weight ({looked.cross[head].max():.3f}) on source position **{peak}**" in (
        looked.cross_sentence)
    assert f"step {t} copies source position **{5 - t}**" in looked.cross_sentence    # banana, mirrored


def test_the_temperatures_divide_the_step_scores_and_the_caption_gives_their_peaks(reverser):
    run = run_of("hello")
    step = decode_step(run, reverser.vocab, 0)
    logits = step_pass(reverser, "hello", []).logits[0, -1].double().numpy()
    for temperature in TEMPERATURES:
        scaled = np.exp((logits - logits.max()) / temperature)
        p = scaled / scaled.sum()
        assert np.allclose(step.by_temperature[temperature], p, atol=1e-5)
        assert step.entropy[temperature] == pytest.approx(-(p[p > 0] * np.log(p[p > 0])).sum(), abs=1e-4)
        assert f"T = {temperature:g}: top p = {p.max():.3f}" in step.temperature_caption
    ordered = np.sort(logits)
    assert step.lead == pytest.approx(ordered[-1] - ordered[-2], abs=1e-4)
    peaks = [step.by_temperature[temperature].max() for temperature in TEMPERATURES]
    assert peaks == sorted(peaks, reverse=True)


def test_the_last_step_ends_the_output_and_sampling_is_read_from_its_own_distribution(reverser):
    run = run_of("ab")
    last = decode_step(run, reverser.vocab, 2)
    looked = looked_step(run, run_of("ab", how=Decoding(teacher=True)), 2, 0, 0)
    assert last.chosen == "⟨/s⟩" and last.output == "ba"
    assert "the step that ends the output" in looked.cross_sentence
    assert "none (no later position)" in looked.self_sentence
    sampled = run_of("hello", how=Decoding(temperature=3.0, top_k=5, seed=7))
    step = decode_step(sampled, reverser.vocab, 0)
    assert np.count_nonzero(step.probs > 0) == 5                      # top-k = 5
    assert step.chosen_id == sampled.chosen_ids[0]


def test_under_teacher_forcing_no_position_reads_a_later_one(reverser):
    taught = run_of("level", how=Decoding(teacher=True))
    looked = looked_step(run_of("level"), taught, 1, 0, 0)
    later = np.triu(taught.trace.stack_attention("decoder_self"), k=1).max()
    assert later == 0.0 and looked.self_sentence.endswith("is **0 (exactly)**.")
