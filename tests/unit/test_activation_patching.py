"""Patch one activation: a run patched with its own activations is itself, exactly; the encoder's output and one
decoder layer's whole stream copied from the clean run give the clean run's logits; a one-letter change is undone
at the step that copies it by patching the encoder's output at that letter; a bad patch is refused."""

from __future__ import annotations

import pytest
import torch

from analysis import activation_patching as P
from analysis.run import make_run
from transformer.intervention import Intervention, Patch


@pytest.fixture(scope="module")
def pair(bundled):
    return make_run(bundled.model, bundled.vocab, "hello"), make_run(bundled.model, bundled.vocab, "healo")


@pytest.mark.parametrize("site", [P.Site("memory", 1), P.Site("memory", 4), P.Site("cross_head", 2, 1, 3),
                                  P.Site("cross_head", 0, 0, 0), P.Site("decoder_stream", 3, 0),
                                  P.Site("decoder_stream", 5, 1)])
def test_a_run_patched_with_its_own_activation_is_unchanged_exactly(bundled, pair, site):
    clean, _ = pair
    assert torch.equal(P.forced_logits(bundled.model, clean, P.patch_from(clean, site)),
                       P.forced_logits(bundled.model, clean, Intervention()))


@pytest.mark.parametrize("layer", [0, 1])
def test_the_encoders_output_and_a_layers_whole_stream_from_the_clean_run_give_its_logits(bundled, pair, layer):
    """Everything after decoder layer `layer` reads only its stream and the encoder's output: copy both from the
    clean run (every position) into the other, and the logits are the clean run's."""
    clean, other = pair
    sites = [P.Site("memory", p) for p in range(len(clean.source_ids))]
    sites += [P.Site("decoder_stream", t, layer) for t in range(len(clean.fed_ids))]
    patched = P.forced_logits(bundled.model, other, P.patch_from(clean, *sites))
    assert torch.equal(patched, P.forced_logits(bundled.model, clean, Intervention()))
    assert not torch.equal(P.forced_logits(bundled.model, other, Intervention()), patched)


def test_patching_the_changed_letter_brings_the_clean_character_back(bundled, pair):
    clean, other = pair
    done = P.patch_one(bundled.model, bundled.vocab, clean, other, P.Site("memory", 2), "reverse")
    assert other.output == "olaeh" and done.after.output == clean.output == "olleh" and done.changed == [2]
    assert done.p_clean_before[2] < 0.01 and done.p_clean_after[2] > 0.99
    cone = P.cone(bundled.model, clean, other)
    assert cone.memory.tolist() == [0, 0, 1, 0, 0] and cone.stream.shape == (2, 6)


def test_a_bad_patch_is_refused(bundled, pair):
    with pytest.raises(ValueError, match="site"):
        Patch("elsewhere", 0, value=torch.zeros(64))
    with pytest.raises(ValueError, match="value"):
        Patch("memory", 0)
    with pytest.raises(ValueError, match="0 or more"):
        Patch("memory", -1, value=torch.zeros(64))
    clean, _ = pair
    with pytest.raises(ValueError, match="no source position"):
        P.forced_logits(bundled.model, clean, Intervention(patches=(Patch("memory", 9, value=torch.zeros(64)),)))
    assert P.proposed_pairs("hello", 48) == {"one letter changed (position 2: 'l' → 'a')": "healo",
                                             "one letter added (at the start: 'z')": "zhello"}
    assert P.proposed_pairs("ab cd", 48, "copy") == {"one letter changed (position 1: 'b' → 'a')": "aa cd",
                                                     "one letter added (at the end: 'z')": "ab cdz"}


def test_a_pair_of_two_lengths_is_said_to_misalign_the_source_positions(bundled):
    """The review's N13: 'hello' against 'zhello' keeps the output aligned but shifts every source position, so a
    memory patch copies another character from another place; the cone's sentence says so, and only then."""
    from analysis.page_models.lab_activation_patching import cone_line
    clean = make_run(bundled.model, bundled.vocab, "hello")
    for other_text, misaligned in (("zhello", True), ("hallo", False)):
        other = make_run(bundled.model, bundled.vocab, other_text)
        said = cone_line(P.cone(bundled.model, clean, other), clean, other)
        assert ("their source positions no longer line up" in said) == misaligned, said
        if misaligned:
            assert "The two texts differ in length (5 and 6 characters)" in said
