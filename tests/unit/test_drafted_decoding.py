"""Drafted greedy decoding of the pages' runs: a run or a padded batch of runs reads the task's answers in its
traced pass and keeps them where the model writes every one, and a draft refused part way, or one the model
does not write, still gives plain greedy decoding's tokens."""

from __future__ import annotations

import pytest
import torch

from analysis.lesson import companions
from analysis.run import correct_tokens, make_batch_runs, make_run
from transformer import decoding
from transformer.checkpoint import bundled_checkpoint, load_snapshot, snapshot_index
from transformer.data import held_out_strings, target
from transformer.intervention import Head, Intervention
from transformer.vocab import EOS, PAD

from .decoding_models import TASKS, models, written  # noqa: F401 - models is a fixture

pytestmark = pytest.mark.slow   # left out of the quick tier: a thousand strings a task


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
