"""Build a head: the maps are the model's own cross-attention and the pattern's positions worked out again here;
the findings follow the scores on every branch, in and past the trained length.

The page scores 200 held-out words and 200 longer ones per pattern (explorer.lab_runs.patch_table); one test
scores 12 of each here and checks the record shows those, the others hand it scores made by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from analysis.page_models.lab_patch import (OUTCOMES, answer_caption, patch_findings, patch_maps, pattern_labels,
                                            places)
from analysis.patching import PatchScore, Placement, longer_texts, patch_score, patched, patterns_for
from analysis.run import Decoding
from transformer.data import held_out_strings, target
from transformer.intervention import NO_INTERVENTION
from transformer.vocab import SOS

from .conftest import checkpoint, run_of

TEACHER = Decoding(teacher=True)
NOISE = 3.5


def own_cross(task: str, text: str, layer: int) -> np.ndarray:
    """(H, Tq, S) one cross layer with the task's correct output fed in, made here."""
    ckpt = checkpoint(task)
    limit = ckpt.model.config.max_len
    src = torch.tensor([ckpt.vocab.encode(text, limit)])
    tgt = torch.tensor([[SOS, *ckpt.vocab.encode_output(target(text, task), limit)]])
    with torch.inference_mode():
        return ckpt.model(src, tgt, trace=True).trace["cross", layer][0].numpy()


def test_every_head_of_a_layer_shows_its_average_beside_the_mirror(reverser):
    text, n = "banana split", 12
    maps = patch_maps(reverser.model.config, reverser.vocab, run_of(text, how=TEACHER), "task", Placement(1))
    assert np.allclose(maps.own, own_cross("reverse", text, 1).mean(0), atol=1e-6)
    mirror = np.zeros((n + 1, n))
    for i in range(n + 1):                     # the end step, i = n, is held to position 0
        mirror[i, max(n - 1 - i, 0)] = 1
    assert np.array_equal(maps.yours, mirror)
    assert maps.own_title == "The model's own: average of layer 1"
    assert maps.rows == ["⟨s⟩", *"tilps␣ananab"] and maps.cols == [*"banana␣split"]
    assert maps.caption.startswith("Both maps on your text, the decoder reading the reversal (teacher forcing).")


def test_one_head_alone_shows_that_head_and_uniform_spreads_over_the_text():
    ckpt = checkpoint("copy")
    maps = patch_maps(ckpt.model.config, ckpt.vocab, run_of("level", "copy", TEACHER), "uniform", Placement(0, 3))
    assert np.allclose(maps.own, own_cross("copy", "level", 0)[3], atol=1e-6)
    assert np.allclose(maps.yours, 1 / 5) and maps.yours.shape == (6, 5)
    assert maps.own_title == "The model's own: cross L0 H3"
    assert "the decoder reading the copy" in maps.caption


def test_the_sorted_order_reads_each_characters_place_in_the_text():
    ckpt = checkpoint("sort")
    maps = patch_maps(ckpt.model.config, ckpt.vocab, run_of("cab", "sort", TEACHER), "task", Placement(1))
    assert maps.yours.argmax(1).tolist() == [1, 2, 0, 0]     # a at 1, b at 2, c at 0; the end step held to 0


def test_the_choices_name_each_pattern_once_and_every_place(reverser):
    labels = pattern_labels("reverse")
    assert list(labels) == patterns_for("reverse") and list(labels)[0] == "task"
    assert labels["task"].startswith("the ideal mirror") and "the ideal mirror (n−1−i)" not in labels.values()
    assert pattern_labels("copy")["task"].startswith("the diagonal")
    config = reverser.model.config
    where = places(config)
    assert len(where) == 1 + config.n_decoder_layers * config.n_heads
    assert where["every head of the last layer (L1)"] == Placement(1, None)
    assert where["cross L0 H3 alone"] == Placement(0, 3)
    assert [p.describe() for p in list(where.values())[:2]] == ["every cross head of layer 1", "cross L0 H0"]


@pytest.mark.parametrize("pattern", ["task", "uniform"])
def test_the_answer_caption_says_whether_the_patched_model_writes_the_reversal(reverser, pattern):
    edit = patched(pattern, "reverse", Placement(1), reverser.model)
    run = run_of("level up", intervention=edit)
    writes = run.output == target("level up", "reverse")
    said = answer_caption("no", run)
    assert said == (f"You answered **no**; with your pattern the model **{'writes' if writes else 'does not write'}** "
                    "the reversal of your text.")
    if pattern == "task":
        assert writes                          # the mirror is enough for the bundled reverser's last layer


def test_the_table_shows_the_scores_measured_on_a_small_sample(reverser):
    model, vocab = reverser.model, reverser.vocab
    held_out, longer = held_out_strings(12, model.config.max_len), longer_texts(model, 12)
    base = patch_score(model, vocab, held_out, longer, "reverse", NO_INTERVENTION)
    mine = patch_score(model, vocab, held_out, longer, "reverse", patched("task+1", "reverse", Placement(1), model))
    found = patch_findings(model, "reverse", "task+1", Placement(1), base, mine, OUTCOMES[0], 12, NOISE)
    assert found.table["words"].to_list() == ["12 held-out words (1–48 characters)",
                                              "12 words past the trained length (49–56 characters)"]
    assert found.table["own weights"].to_list() == [base.within, base.past]
    assert found.table["your pattern"].to_list() == [mine.within, mine.past]
    assert f"{mine.within:.1%}" in found.finding and f"{base.within:.1%}" in found.finding
    assert "one to the right (n−i)" in found.finding and "every cross head of layer 1" in found.finding


def score(within: float, past: float | None = None) -> PatchScore:
    return PatchScore(within, past, 200, 0 if past is None else 200)


@pytest.mark.parametrize("mine, outcome, said", [
    (0.95, 0, "keeps 95.0% exact match (its own weights: 100.0%). On these words the pattern is enough"),
    (0.6, 1, "exact match falls to 60.0% (its own weights: 100.0%). The pattern carries part of the job"),
    (0.3, 2, "exact match falls to 30.0% (its own weights: 100.0%). This pattern is not enough")])
def test_the_finding_and_the_prediction_follow_the_share_kept(reverser, mine, outcome, said):
    found = patch_findings(reverser.model, "reverse", "uniform", Placement(0, 2), score(1.0), score(mine),
                           OUTCOMES[2 - outcome], 200, NOISE)
    assert said in found.finding and "uniform over the source (1/n each) in place of cross L0 H2" in found.finding
    assert ("that head's" in found.finding) and "those heads'" not in found.finding
    assert found.prediction == (f"You predicted that exact match would {OUTCOMES[2 - outcome]}; measured, it did "
                                f"**{OUTCOMES[outcome]}**. Each figure carries up to ±3.5 points of sampling noise "
                                "(one standard error at 50 %).")
    assert found.past is None and len(found.table) == 1


def test_a_model_that_gets_too_few_words_right_is_not_judged(reverser):
    found = patch_findings(reverser.model, "reverse", "task", Placement(1), score(0.05), score(0.5), OUTCOMES[0],
                           200, NOISE)
    assert found.prediction is None
    assert found.finding.startswith("With its own weights this model gets 5.0% of the held-out words right, too few")
    assert found.finding.endswith("it gets 50.0%.")


@pytest.mark.parametrize("own, mine, said", [
    (0.1, 0.95, "does better than the model's own weights (95.0% against 10.0%). The pattern is handed the true "
                "length n, so one reading is that the model's own sense of n is part of what breaks on longer words."),
    (0.1, 0.3, "does better than the model's own weights (30.0% against 10.0%). The pattern is handed the true "
               "length n, so one reading is that the model's own sense of n is part of what breaks on longer "
               "words; the 70% still wrong with n handed over fail for some other reason too."),
    (0.5, 0.4, "does worse than the model's own weights (40.0% against 50.0%)."),
    (0.1, 0.12, "changes little (12.0% against 10.0% with the model's own weights): being handed the true length n "
                "here does not rescue the longer words"),
    (0.99, 0.98, "changes little (98.0% against 99.0% with the model's own weights).")])
def test_past_the_trained_length_the_sentence_follows_the_rescue(reverser, own, mine, said):
    found = patch_findings(reverser.model, "reverse", "task", Placement(1), score(1.0, own), score(1.0, mine),
                           OUTCOMES[0], 200, NOISE)
    assert found.past.startswith("Past the trained length the pattern " + said)
    assert len(found.table) == 2 and found.table["your pattern"].iloc[1] == mine
