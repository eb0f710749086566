"""The shipped checkpoints (reverse, copy, sort) meet the bars of issue 15, re-measured on a fresh sample."""

import pytest

from transformer.checkpoint import BUNDLED_ROOT, bundled_checkpoint, load
from transformer.data import TASKS
from transformer.data import held_out_strings
from transformer.metrics import cross_attention_alignment, exact_match

TRAINED_LENGTH = 48


@pytest.fixture(scope="module", params=list(TASKS))
def shipped(request):
    return load(bundled_checkpoint(request.param))


def test_every_checkpoint_together_stays_under_40_mb():
    total = sum(f.stat().st_size for f in BUNDLED_ROOT.rglob("*") if f.is_file())
    assert total <= 40 * 1024 * 1024  # with the snapshots of their training runs
    assert {d.name for d in BUNDLED_ROOT.iterdir() if d.is_dir()} == set(TASKS)


def test_size_task_and_shape(shipped):
    c = shipped.model.config
    assert (c.n_encoder_layers, c.n_decoder_layers, c.n_heads, c.d_model) == (2, 2, 4, 64)  # one architecture
    assert c.max_len == TRAINED_LENGTH
    assert shipped.task in shipped.metrics["task"]


@pytest.mark.parametrize("task", list(TASKS))
def test_recorded_metrics_meet_the_bars(task):
    shipped = load(bundled_checkpoint(task))
    m = shipped.metrics
    assert m["held_out"]["n"] >= 10_000
    assert m["held_out"]["exact_match"] >= (0.999 if shipped.task == "reverse" else 0.99)
    assert min(m["held_out"]["per_length"].values()) >= 0.99
    assert set(m["held_out"]["per_length"]) == {str(n) for n in range(1, TRAINED_LENGTH + 1)}
    assert m["train_seconds"] + m["recording_seconds"] <= 45 * 60


@pytest.mark.parametrize("task", list(TASKS))
def test_exact_match_and_pattern_hold_on_a_fresh_sample(task):
    shipped = load(bundled_checkpoint(task))
    texts = held_out_strings(1000, TRAINED_LENGTH, seed=4242)
    report = exact_match(shipped.model, shipped.vocab, texts, task=shipped.task)
    assert report.exact_match >= 0.99
    alignment = cross_attention_alignment(shipped.model, shipped.vocab, texts[:300], task=shipped.task)
    assert max(max(row) for row in alignment.values()) >= 0.5   # a head follows the task's own pattern (chance: 1/n)


def test_the_reverser_reads_the_first_phrases_anyone_types():
    reverser = load(bundled_checkpoint("reverse"))
    for phrase in ("attention is all you need", "the quick brown fox jumps over the lazy dog"):
        report = exact_match(reverser.model, reverser.vocab, [phrase])
        assert report.exact_match == 1.0, phrase


@pytest.mark.parametrize("task", list(TASKS))
def test_every_held_out_string_of_one_or_two_letters_is_right(task):
    """The shortest held-out strings are few and never trained on (a sorter once wrote 'bb' for 'b'), so all
    of them are checked, not a sample."""
    from transformer.data import LETTERS, is_held_out
    shipped = load(bundled_checkpoint(task))
    short = [a for a in LETTERS if is_held_out(a)] + [a + b for a in LETTERS for b in LETTERS if is_held_out(a + b)]
    report = exact_match(shipped.model, shipped.vocab, short, task=shipped.task)
    assert len(short) > 50 and report.exact_match == 1.0
