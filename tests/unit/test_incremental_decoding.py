"""Incremental decoding (the key/value cache) and drafted greedy decoding are the plain decoder, exactly: the
cache's logits are the whole-prefix pass's at every step, and the tokens decided are the same, for greedy,
sampled and forced decodings, under every kind of intervention, on the three bundled checkpoints and on a
post-norm and an untied model; a draft checked in one pass gives plain greedy decoding's answer, accepted or
refused."""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest
import torch

from analysis.patching import pattern_weights
from analysis.run import correct_tokens, make_run, traced_pass
from transformer import decoding
from transformer.data import held_out_strings, random_string
from transformer.intervention import Head, Intervention, Patch, Replacement
from transformer.model import Transformer
from transformer.vocab import EOS, SOS

from .decoding_models import TASKS, models, written  # noqa: F401 - models is a fixture

pytestmark = pytest.mark.slow   # left out of the quick tier: the cache against plain greedy decoding on 10,000 strings
# drafted decoding of runs and batches: tests/unit/test_drafted_decoding.py (a file of its own, so the two halves
# run on both workers)

@pytest.fixture(scope="module")
def held_out(models):
    """Each task's 10,000 held-out strings, their sources, and plain greedy decoding's tokens for them (one step at a
    time, no draft): computed once (18 s a task), read by both ten-thousand-string tests of the task."""
    found = {}

    def of(task: str) -> tuple[list[str], list[list[int]], list[list[int]]]:
        if task not in found:
            model, vocab = models[task]
            words = held_out_strings(10_000, model.config.max_len)
            sources = [vocab.encode(w, model.config.max_len) for w in words]
            found[task] = words, sources, decoding.greedy_batch(model, sources)
        return found[task]
    return of


def edits(model: Transformer) -> dict[str, Intervention]:
    """One intervention of each kind the decoder reads during a decoding."""
    d, dk = model.config.d_model, model.config.d_k
    torch.manual_seed(1)
    return {
        "none": Intervention(),
        "heads off": Intervention(frozenset({Head("decoder_self", 0, 1), Head("cross", 1, 2),
                                             Head("encoder_self", 1, 0)})),
        "target codes shuffled": Intervention(positions="shuffle", sides=frozenset({"target"}), shuffle_seed=4),
        "codes zeroed": Intervention(positions="zero"),
        "source codes swapped": Intervention(positions="swap", swapped=(0, 2)),
        "cross pattern": Intervention(replaced=(Replacement(0, lambda s, t: pattern_weights("uniform", "reverse",
                                                                                            s, t)),)),
        "patches": Intervention(patches=(Patch("memory", 1, value=torch.randn(d)),
                                         Patch("cross_head", 2, 1, 3, torch.randn(dk)),
                                         Patch("decoder_stream", 3, 0, value=torch.randn(d)))),
    }


def plain(model, src, edit, temperature=None, seed=0, forced=None):
    """The decoder without a cache: the whole prefix again at every step. (step logits, fed tokens)."""
    encoded = model.encode(torch.tensor([src]), edit=edit)
    logits, fed = [], []
    for t in range(decoding.max_output_tokens(model, len(src))):
        row = model.decode(torch.tensor([[SOS, *fed]]), encoded, edit=edit)[0, -1]     # (V,)
        logits.append(row)
        choice = decoding.choose(decoding.next_token_probs(row, temperature, None), temperature, seed, t)
        fed.append((forced or {}).get(t, choice))
        if fed[-1] == EOS:
            break
    return torch.stack(logits), fed


def cached(model, src, fed, edit):
    """The same steps through the cache, reading the tokens `fed` decided: (step logits)."""
    cache = model.start_decoding(model.encode(torch.tensor([src]), edit=edit), edit)
    return torch.stack([model.decode_step(torch.tensor([token]), cache, edit)[0] for token in [SOS, *fed[:-1]]])


@torch.inference_mode()
@pytest.mark.parametrize("name", [*TASKS, "post-norm", "untied"])
def test_the_cache_gives_the_whole_prefix_logits_and_tokens_under_every_intervention(models, name):
    """Logits compared in float64, where rounding is far below 1e-5, so the test sees the algorithm: in float32
    a row summed in another order (one query against t + 1) moves a logit by up to about 3e-5. Tokens compared
    in float32, as the app decodes."""
    model, vocab = models[name]
    exact = copy.deepcopy(model).double()
    words = [random_string(random.Random(n), n) for n in (5, model.config.max_len)]
    for kind, edit in edits(model).items():
        for word in words:
            src = vocab.encode(word, model.config.max_len)
            for how in ({}, {"temperature": 1.3, "seed": 5}, {"forced": {0: vocab.encode("z", 1)[0]}}):
                logits, fed = plain(exact, src, edit, **how)
                torch.testing.assert_close(cached(exact, src, fed, edit), logits, rtol=0, atol=1e-5,
                                           msg=lambda m: f"{name}, {kind}, {word!r}, {how}: {m}")
                _, fed = plain(model, src, edit, **how)
                decided = decoding.decide(model, src, how.get("temperature"), None, how.get("seed", 0), edit,
                                          how.get("forced"))
                assert list(decided.fed) == fed, (name, kind, word, how)


@torch.inference_mode()
def test_a_block_of_positions_and_a_cache_cut_back_give_the_same_rows(models):
    model, vocab = models["reverse"]
    src = vocab.encode("attention is all you need", 48)
    read = torch.tensor([[SOS, *src[::-1]]])                                            # (1, T)
    encoded = model.encode(torch.tensor([src]))
    whole = model.decode(read, encoded)                                                 # (1, T, V)
    cache = model.start_decoding(encoded)
    parts = [model.decode_block(read[:, :10], cache), model.decode_block(read[:, 10:], cache)]
    torch.testing.assert_close(torch.cat(parts, 1), whole, rtol=0, atol=1e-4)       # float32: summed otherwise
    cache.keep(4)
    torch.testing.assert_close(model.decode_block(read[:, 4:], cache), whole[:, 4:], rtol=0, atol=1e-4)
    whole_cache = model.start_decoding(encoded)
    assert torch.equal(model.decode_block(read, whole_cache), whole)     # the whole prefix at once: the same sums


@torch.inference_mode()
@pytest.mark.parametrize("task", TASKS)
def test_a_checked_draft_gives_plain_greedy_decoding_on_ten_thousand_held_out_strings(models, held_out, task):
    """Drafted batches against plain batches (both decide token by token through the same model): every
    output equal, the model's answers and its mistakes alike."""
    model, vocab = models[task]
    words, sources, plain = held_out(task)
    drafts = [correct_tokens(vocab, w, model.config.max_len, task) for w in words]
    assert decoding.greedy_batch(model, sources, drafts=drafts) == plain


@pytest.mark.parametrize("task", TASKS)
def test_a_run_takes_its_tokens_from_its_traced_pass_and_they_are_plain_greedy_decoding_on_ten_thousand_strings(
        models, held_out, task):
    """make_run reads the draft in its traced pass and keeps that pass's tokens when it confirms the draft at
    every position (one pass, not a draft pass and then a traced one). The traced pass computes attention by
    hand and the draft pass with torch's fused kernel, so their logits differ in float32 rounding (up to about
    1e-4): the tokens must still be plain greedy decoding's, for every held-out string of every task."""
    model, vocab = models[task]
    words, _, plain = held_out(task)
    for word, tokens in zip(words, plain):
        assert written(make_run(model, vocab, word, task=task)) == tokens, (task, word)


def test_a_confirmed_draft_costs_one_pass_and_a_refused_one_still_decodes_greedily(models):
    """The generator's calls count the decoder's passes: one for a draft the model writes; more when it refuses
    one (a costly head switched off), and then the tokens are plain greedy decoding's, one step at a time."""
    model, vocab = models["reverse"]
    calls = []
    hook = model.generator.register_forward_hook(lambda *_: calls.append(1))
    try:
        run = make_run(model, vocab, "attention is all you need")
        assert len(calls) == 1 and run.output == "deen uoy lla si noitnetta"
        assert run.draft_kept == len(run.fed_ids) and list(run.chosen_ids) == list(run.fed_ids)
        # the run's numbers are the traced pass's of the draft, as the draft pass and then a traced pass gave them
        logits, trace = traced_pass(model, torch.tensor([list(run.source_ids)]), torch.tensor([run.decoder_in_ids]))
        assert torch.equal(torch.tensor(run.logits), logits[0])
        assert torch.equal(torch.tensor(run.probs), torch.softmax(logits[0], -1))
        assert set(run.trace) == set(trace) and all(np.array_equal(run.trace[k], trace[k][0].numpy()) for k in trace)
        off = Intervention(frozenset({Head("cross", 0, 3)}))
        src = vocab.encode("attention is all you need", 48)
        calls.clear()
        refused = make_run(model, vocab, "attention is all you need", edit=off)
        assert len(calls) > 2 and refused.draft_kept < len(refused.fed_ids)
        assert list(refused.fed_ids) == list(decoding.decide(model, src, edit=off).fed)
    finally:
        hook.remove()
