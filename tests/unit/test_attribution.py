"""Why this character?: each lens checked another way (integrated gradients add up to their gap, gradient ×
input is autograd's, occlusion is the runs' own probabilities, rollout's rows sum to 1), the shared model gets no
hook, and on the bundled reverser occluding the character a step copies moves it more than occluding any other."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np
import pytest
import torch

from analysis import attribution as A
from scipy.stats import spearmanr

from analysis.page_models.lab_attribution import disagreements, why_view
from analysis.run import Decoding, make_run
from transformer.data import held_out_strings, random_string
from transformer.intervention import Intervention

pytestmark = pytest.mark.slow   # left out of the quick tier: occlusion and gradients over whole runs


@pytest.fixture(scope="module")
def runs(bundled):
    return {text: make_run(bundled.model, bundled.vocab, text)
            for text in ("hello", "level", random_string(random.Random(3), 20))}


def test_handing_the_model_its_own_embeddings_changes_nothing(bundled):
    src, tgt = torch.tensor([bundled.vocab.encode("hello", 48)]), torch.tensor([[1, 16, 13, 13, 8, 11]])
    own = bundled.model(src, tgt).logits
    given = bundled.model(src, tgt, edit=Intervention(source_embeddings=bundled.model.src_embed(src))).logits
    assert torch.equal(own, given)


def test_integrated_gradients_add_up_to_the_gap_within_the_stated_tolerance(bundled, runs):
    for run in runs.values():
        for step in sorted({0, len(run.chosen_ids) // 2, len(run.chosen_ids) - 1}):
            found = A.integrated_gradients(bundled.model, run, step)
            assert abs(found.attributions.sum() - found.gap) == pytest.approx(abs(found.error), abs=1e-4)
            assert abs(found.error) <= A.COMPLETENESS_TOLERANCE or found.points == A.MOST_POINTS
            assert abs(found.error) <= A.COMPLETENESS_TOLERANCE, (run.text, step, found)   # here: always reached


def test_gradient_x_input_is_autograds_gradient_times_the_embedding(bundled, runs):
    run = runs["hello"]
    lens = A.gradient_x_input(bundled.model, run)
    embeddings, forward = A._pieces(bundled.model, run)
    for step in (0, 3):
        e = embeddings.clone().requires_grad_()
        (grad,) = torch.autograd.grad(forward(e)[0, step], e)
        assert np.allclose(lens[step], (grad * e).sum(-1)[0].detach().numpy(), atol=1e-5)


def test_gradient_x_input_is_captums_at_every_step(bundled, runs):
    """The lens's batched backward passes give what Captum's InputXGradient gives from T copies of the text."""
    from captum.attr import InputXGradient
    for run in runs.values():
        embeddings, forward = A._pieces(bundled.model, run)
        steps = len(run.chosen_ids)
        captum = InputXGradient(forward).attribute(embeddings.expand(steps, -1, -1).clone().requires_grad_(),
                                                   target=list(range(steps))).sum(-1).detach().numpy()   # (T, S)
        lens = A.gradient_x_input(bundled.model, run)
        assert lens.shape == captum.shape == (steps, len(run.source_ids))
        assert np.allclose(lens, captum, rtol=0, atol=1e-6)


def test_occlusion_is_the_drop_in_the_runs_own_probability(bundled, runs):
    run = runs["level"]
    lens = A.occlusion(bundled.model, bundled.vocab, run, letters="xyz")
    base = run.probability_of(list(run.chosen_ids))
    for j, step in ((0, 4), (2, 1)):
        drops = []
        for letter in "xyz":
            changed = run.text[:j] + letter + run.text[j + 1:]
            forced = make_run(bundled.model, bundled.vocab, changed, Decoding(forced=tuple(enumerate(run.fed_ids))))
            drops.append(base[step] - forced.probability_of(list(run.chosen_ids))[step])
        assert lens[step, j] == pytest.approx(np.mean(drops), abs=1e-5)


def test_rollout_rows_are_distributions_and_no_hook_is_left_on_the_model(bundled, runs):
    for run in runs.values():
        found = A.lenses(bundled.model, bundled.vocab, run)
        assert np.allclose(found.rollout.sum(-1), 1, atol=1e-5)
        A.integrated_gradients(bundled.model, run, 0)
    hooks = [m for m in bundled.model.modules() if m._forward_hooks or m._forward_pre_hooks or m._backward_hooks]
    assert hooks == [] and all(p.grad is None for p in bundled.model.parameters())


def test_agreement_and_the_page_model(bundled, runs):
    occluded = np.array([[0.9, 0.1, 0.0], [0.0, 0.2, 0.8]])
    same = A.agreement(occluded, occluded)
    assert same.rho == pytest.approx(1) and same.same_top == 1 and same.steps == 2
    flipped = A.agreement(occluded[:, ::-1], occluded)
    assert flipped.rho == pytest.approx(-1) and flipped.same_top == 0
    run = runs["hello"]
    found = A.lenses(bundled.model, bundled.vocab, run)
    view = why_view(run, found, 1, None, 2, A.integrated_gradients(bundled.model, run, 2))
    assert [c.name.split(" (")[0] for c in view.columns] == ["attention", "influence", "gradient × input",
                                                              "integrated gradients", "occlusion"]
    assert np.allclose(view.columns[0].values, run.trace["cross", 1][:, 2].mean(0))
    assert "summed" in view.columns[1].name and "'l'" in view.step_line
    assert [r.lens.split(" (")[0] for r in view.agreement] == ["attention", "influence", "gradient × input", "rollout"]


def test_agreement_counts_only_steps_where_both_vary_and_ties_tops_within_varies():
    """Worked by hand: a step where the lens is flat, one where it varies only within VARIES of 0 (all 0 once
    cleaned), a lens with one step more than occlusion (not counted), and a top tied within VARIES."""
    occluded = np.array([[0.5, 0.5 - A.VARIES / 2, 0.0],    # positions 0 and 1 tie at the top
                         [0.0, 0.3, 0.6],
                         [0.0, 0.3, 0.6]])
    lens = np.array([[0.0, 1.0, 2.0],                       # counted: its top (2) is not occlusion's
                     [0.4, 0.4, 0.4],                       # flat: not counted
                     [9e-4, -9e-4, 0.0],                    # spans more than VARIES, all 0 once cleaned: not counted
                     [3.0, 2.0, 1.0]])                      # a fourth step occlusion does not have: not counted
    found = A.agreement(lens, occluded)
    assert found.steps == 1 and found.same_top == 0.0
    assert found.rho == pytest.approx(spearmanr([0.0, 1.0, 2.0], occluded[0]).statistic)
    found = A.agreement(np.array([[0.0, 1.0, 0.5]]), occluded[:1])   # its top at position 1, within VARIES of 0.5
    assert found.steps == 1 and found.same_top == 1.0
    assert A.agreement(lens[1:3], occluded[1:3]) == A.Agreement(None, 0, None)


def test_occluding_the_copied_character_moves_its_step_most(bundled):
    """On the lab's 200 held-out words, at each step whose copied character (the mirror, n − 1 − i) is the only
    one of its letter in the word, occluding it moves the step's probability more than occluding any other
    character. (Where the letter repeats, the step may read either copy.) The five replacement letters of the
    page's first view; `python -m benchmarks.occlusion` measures it with every letter too."""
    steps = moved_most = 0
    for word in held_out_strings(200, 48):
        run = make_run(bundled.model, bundled.vocab, word)
        occluded = A.occlusion(bundled.model, bundled.vocab, run, A.QUICK_LETTERS, A.QUICK_COUNT)
        n = len(word)
        for t in range(n):
            copied = n - 1 - t
            if word.count(word[copied]) == 1 and n > 1:
                steps += 1
                moved_most += occluded[t, copied] > np.delete(occluded[t], copied).max()
    assert moved_most / steps >= 0.95, (moved_most, steps)


def test_occlusion_over_every_letter_reports_its_progress_batch_by_batch(bundled):
    run = make_run(bundled.model, bundled.vocab, random_string(random.Random(5), 30))
    shares = []
    A.lenses(bundled.model, bundled.vocab, run, every_letter=True, progress=shares.append)
    batches = -(-sum(26 - (c != " ") for c in run.text) // A.OCCLUSION_BATCH)   # 25 letters a letter, 26 a space
    # the script's thread reports each batch it takes, as a share of them all; the gradients' thread takes some
    assert 1 <= len(shares) <= batches and shares == sorted(set(shares)) and shares[0] == 0 and shares[-1] < 1
    assert all(share * batches == pytest.approx(round(share * batches)) for share in shares)


class OtherThread:
    """An executor whose every job runs in a thread of its own: started at once and finished before submit
    returns (`first`), or started once `go` is set."""

    def __init__(self, first: bool = False, go: threading.Event | None = None) -> None:
        self.first, self.go = first, go

    def submit(self, job, *args) -> Future:
        future = Future()

        def work() -> None:
            if self.go is not None:
                self.go.wait(10)
            try:
                future.set_result(job(*args))
            except BaseException as error:       # handed to the future, as an executor does
                future.set_exception(error)
        thread = threading.Thread(target=work)
        thread.start()
        if self.first:
            thread.join()
        return future


def test_occlusion_shared_with_a_second_thread_gives_the_same_numbers_to_the_bit(bundled, runs):
    """The helper taking every batch (it runs first), and a real second thread taking what it can: the same
    numbers as one thread alone, and progress reported from the calling thread only."""
    for run in runs.values():
        alone = A.occlusion(bundled.model, bundled.vocab, run)            # every other letter: up to 16 batches
        reported = []
        all_by_helper = A.occlusion(bundled.model, bundled.vocab, run, helper=OtherThread(first=True),
                                    progress=reported.append)
        assert reported == [] and np.array_equal(alone, all_by_helper)
        with ThreadPoolExecutor(max_workers=1) as pool:
            threads = set()
            shared = A.occlusion(bundled.model, bundled.vocab, run, helper=pool,
                                 progress=lambda share: threads.add(threading.get_ident()))
        assert threads == {threading.get_ident()} and np.array_equal(alone, shared)
    assert A.lenses(bundled.model, bundled.vocab, run, True).occlusion.tobytes() == alone.tobytes()


def test_a_stopped_occlusion_stops_its_helper_too(bundled, runs):
    """Streamlit stops a run by raising from its next call, a progress report here: the helper, started only
    then, must not go on through every batch while the stopped run waits for it."""
    model = bundled.model
    started, passes = threading.Event(), []
    hook = model.generator.register_forward_hook(lambda *_: passes.append(1))

    def stop(share: float) -> None:
        raise KeyboardInterrupt("the run was stopped")

    try:
        with pytest.raises(KeyboardInterrupt):
            A.occlusion(model, bundled.vocab, runs["hello"], helper=OtherThread(go=started), progress=stop)
        started.set()                                     # the helper begins only after the stop
        time.sleep(0.5)                                   # time enough for a helper going on to take batches
    finally:
        hook.remove()
    assert passes == []


def test_ties_and_float_noise_are_not_counted_as_disagreement_or_ranked(bundled):
    occluded = np.array([[1.0, 1.0 - 1e-4, 0.0, 2e-7, -3e-7]])          # two swaps that both drop p by ~1
    lens = np.array([[0.2, 0.5, 0.1, 0.1, 0.1]])                        # its top is the second of the tied two
    found = A.agreement(lens, occluded)
    assert found.same_top == 1 and found.steps == 1
    noisy = np.array([[0.9, 0.0, 1e-7, -1e-7, 2e-7]])
    ranked = np.array([[0.9, 0.5, 0.4, 0.3, 0.2]])                      # the same top; the rest ranks noise
    assert A.agreement(ranked, noisy).rho == pytest.approx(
        float(spearmanr([0.9, 0.5, 0.4, 0.3, 0.2], [0.9, 0, 0, 0, 0]).statistic))
    run = make_run(bundled.model, bundled.vocab, "abc")
    tied = np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])   # step 0 ties 0 and 1
    att = np.full((4, 3), 1 / 3)
    att[0] = [0.1, 0.8, 0.1]
    assert "At every one of the 1 steps" in disagreements(run, att, tied, "layer 1, heads averaged")
    att[0] = [0.1, 0.1, 0.8]
    assert "At 1 of the 1 steps" in disagreements(run, att, tied, "layer 1, heads averaged")


def test_rank_agreement_of_every_row_at_once_is_scipys_spearman_row_by_row():
    """Random rows with ties (values rounded to one decimal) and without: the same ρ as spearmanr to 1e-12."""
    rng = np.random.default_rng(3)
    for ties in (True, False):
        a, b = rng.normal(size=(40, 17)), rng.normal(size=(40, 17))
        if ties:
            a, b = a.round(1), b.round(0)
        rows = [(x, y) for x, y in zip(a, b) if np.ptp(x) > 0 and np.ptp(y) > 0]
        found = A.spearman_rows(np.stack([x for x, _ in rows]), np.stack([y for _, y in rows]))
        expected = [float(spearmanr(x, y).statistic) for x, y in rows]
        assert np.allclose(found, expected, atol=1e-12, rtol=0)
