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
from analysis.lesson import companions
from analysis.run import correct_tokens, make_batch_runs, make_run, traced_pass
from transformer import decoding
from transformer.checkpoint import bundled_checkpoint, load, load_snapshot, snapshot_index
from transformer.config import ModelConfig
from transformer.data import held_out_strings, random_string, target
from transformer.intervention import Head, Intervention, Patch, Replacement
from transformer.model import Transformer
from transformer.vocab import EOS, PAD, SOS

pytestmark = pytest.mark.slow   # left out of the quick tier: the cache against plain greedy decoding on 10,000 strings

TASKS = ("reverse", "copy", "sort")


@pytest.fixture(scope="module")
def models():
    """Each model with its vocabulary: the bundled checkpoints, and two small random ones built otherwise."""
    found = {task: load(bundled_checkpoint(task)) for task in TASKS}
    pairs = {task: (c.model, c.vocab) for task, c in found.items()}
    vocab = found["reverse"].vocab
    for name, config in (("post-norm", ModelConfig(d_model=32, n_heads=4, d_ff=64, max_len=12, norm="post")),
                         ("untied", ModelConfig(d_model=32, n_heads=4, d_ff=64, max_len=12, tie_embeddings=False))):
        torch.manual_seed(3)
        pairs[name] = (Transformer(config).eval(), vocab)
    return pairs


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


def written(run) -> list[int]:
    """A run's tokens before its end symbol, as greedy_batch returns them."""
    fed = list(run.fed_ids)
    return fed[:fed.index(EOS)] if EOS in fed else fed


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


@pytest.mark.parametrize("task", TASKS)
def test_a_batch_of_runs_decides_its_tokens_as_plain_greedy_decoding_in_one_pass_where_it_can(models, task):
    """make_batch_runs (the Masks page's padded batch: the text and two longer partners) reads the task's answers
    in its traced pass and keeps them where the model writes every one. On 1,000 held-out strings of each task,
    its tokens are plain greedy decoding's of the same batch; a batch the model writes costs one decoder pass,
    and an early snapshot's batch (whose answers it refuses) still decodes as plain greedy decoding does."""
    model, vocab = models[task]
    limit = model.config.max_len
    early = load_snapshot(bundled_checkpoint(task), snapshot_index(bundled_checkpoint(task))[1]["step"])
    calls = []
    hook = model.generator.register_forward_hook(lambda *_: calls.append(1))
    one_pass = refused = 0
    try:
        for i, word in enumerate(held_out_strings(1_000, limit)):
            texts = [word, *companions(word, limit)]
            for who in (model, early) if i < 100 else (model,):
                calls.clear()
                runs = make_batch_runs(who, vocab, texts, task)
                passes = len(calls)
                plain = decoding.greedy_batch(who, [vocab.encode(t, limit) for t in texts])
                assert [[t for t in written(r) if t != PAD] for r in runs] == plain, (task, texts)   # rows padded
                writes_every_answer = [r.output for r in runs] == [target(t, task) for t in texts]
                if who is model:
                    assert (passes == 1) == writes_every_answer, texts     # one pass exactly when it can be
                    one_pass += passes == 1
                else:
                    refused += not writes_every_answer
    finally:
        hook.remove()
    assert one_pass >= 950 and refused >= 90, (one_pass, refused)


@torch.inference_mode()
def test_a_draft_refused_part_way_still_gives_plain_greedy_decoding(models):
    """Where the model is wrong, the draft (the right answer) is refused: a model early in training, a costly
    head switched off, a wrong draft, and one cut short by the length limit. Each decoding equals plain greedy
    decoding, and the refusals happened."""
    model, vocab = models["reverse"]
    early = load_snapshot(bundled_checkpoint("reverse"), snapshot_index(bundled_checkpoint("reverse"))[1]["step"])
    words = held_out_strings(300, 48)
    refused = 0
    for who, edit in ((early, Intervention()), (model, Intervention(frozenset({Head("cross", 0, 3)})))):
        for word in words[:50]:
            src = vocab.encode(word, 48)
            decided, kept = decoding.drafted_greedy(who, src, correct_tokens(vocab, word, 48), edit)
            assert decided == decoding.decide(who, src, edit=edit), word
            assert make_run(who, vocab, word, edit=edit).fed_ids == decided.fed, word
            refused += kept < len(src) + 1
        sources = [vocab.encode(w, 48) for w in words]
        drafts = [correct_tokens(vocab, w, 48) for w in words]
        assert decoding.greedy_batch(who, sources, edit=edit, drafts=drafts) == decoding.greedy_batch(
            who, sources, edit=edit)
    assert refused > 50
    src = vocab.encode("level", 48)
    for draft in ([vocab.encode("z", 1)[0]] * 3 + [EOS], [vocab.encode("a", 1)[0]] * 40):   # wrong; too long
        decided, kept = decoding.drafted_greedy(model, src, draft)
        assert decided == decoding.decide(model, src) and kept < len(draft)
    assert vocab.decode(list(decoding.decide(model, src).fed)) == target("level", "reverse")


@torch.inference_mode()
def test_whether_greedy_decoding_writes_a_draft_is_answered_in_one_pass_exactly(models):
    """writes_draft (the Training page's question to its nine snapshots) against a whole plain decoding: every
    snapshot of every task, the final model with a costly head off, and drafts that are wrong, unended or too
    long; both answers occur."""
    answers = set()
    for task in TASKS:
        model, vocab = models[task]
        folder = bundled_checkpoint(task)
        who = [load_snapshot(folder, s["step"]) for s in snapshot_index(folder)]
        for snapshot in who:
            for word in held_out_strings(40, 48):
                src, draft = vocab.encode(word, 48), correct_tokens(vocab, word, 48, task)
                writes = [*decoding.decide(snapshot, src).fed] == draft
                assert decoding.writes_draft(snapshot, src, draft) == writes, (task, word)
                answers.add(writes)
    model, vocab = models["reverse"]
    off = Intervention(frozenset({Head("cross", 0, 3)}))
    for word in held_out_strings(40, 48):
        src, draft = vocab.encode(word, 48), correct_tokens(vocab, word, 48)
        assert decoding.writes_draft(model, src, draft, off) == ([*decoding.decide(model, src, edit=off).fed] == draft)
    src = vocab.encode("level", 48)
    right = correct_tokens(vocab, "level", 48)
    assert decoding.writes_draft(model, src, right)
    assert not decoding.writes_draft(model, src, right[:-1])                      # no EOS: not what it writes
    assert not decoding.writes_draft(model, src, [vocab.encode("z", 1)[0]] * 3 + [EOS])
    assert not decoding.writes_draft(model, src, [vocab.encode("a", 1)[0]] * 60 + [EOS])   # past the limit
    assert answers == {True, False}
