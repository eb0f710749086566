"""Patch one activation: run a text and one that differs from it, copy one activation from the first run (the
clean one) into the second, and see which output characters change. The grid of every single patch's effect
over positions and layers is the "causal cone": where in the computation the difference between the two texts
lives. Each patch is an Intervention handed to the call, never a change to the shared model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from transformer.intervention import Intervention, Patch
from transformer.model import Transformer
from transformer.vocab import Vocab
from transformer.task_rules import LATIN

from .lab import Progress, report
from .run import Decoding, Run, make_run, traced_pass

SITE_NAMES = {"memory": "the encoder's output at a source position",
              "cross_head": "one cross-attention head's output at one step",
              "decoder_stream": "the decoder's residual stream after a layer, at one position"}


@dataclass(frozen=True)
class Site:
    site: str
    position: int
    layer: int = 0
    head: int = 0


def clean_value(clean: Run, site: Site) -> torch.Tensor:
    """The activation at `site` in the clean run, as the patch copies it."""
    trace = clean.trace
    if site.site == "memory":
        value = trace["encoder_norm.output"][site.position]                                      # (d_model,)
    elif site.site == "cross_head":
        value = trace[f"decoder_layers.{site.layer}.cross_attention.heads"][site.head, site.position]   # (d_k,)
    else:
        value = trace[f"decoder_layers.{site.layer}.feed_forward_residual.output"][site.position]     # (d_model,)
    return torch.tensor(np.asarray(value))


def patch_from(clean: Run, *sites: Site) -> Intervention:
    return Intervention(patches=tuple(Patch(s.site, s.position, s.layer, s.head, clean_value(clean, s))
                                      for s in sites))


def reach(clean: Run, other: Run, site: str) -> int:
    """How many positions a site has in both runs: source positions for the memory, decoder positions else."""
    if site == "memory":
        return min(len(clean.source_ids), len(other.source_ids))
    return min(len(clean.fed_ids), len(other.fed_ids))


@torch.inference_mode()
def forced_logits(model: Transformer, run: Run, edit: Intervention) -> torch.Tensor:
    """(T, V) logits of one pass over `run`'s source and its own decoder input, under `edit`. A traced pass, as
    the run's own: the activations a patch copies were computed on that path, so a run patched with its own
    values gives its own logits exactly."""
    logits, _ = traced_pass(model, torch.tensor([run.source_ids]), torch.tensor([run.decoder_in_ids]), edit)
    return logits[0]


@dataclass(frozen=True)
class Patched:
    before: Run                  # the other text, as the model decodes it
    after: Run                   # the same, decoded with the patch
    changed: list[int]           # output steps whose character differs between the two
    p_clean_before: np.ndarray   # (T,) p(the clean run's token) at each step, the other text's prefix read
    p_clean_after: np.ndarray


def patch_one(model: Transformer, vocab: Vocab, clean: Run, other: Run, site: Site, task: str) -> Patched:
    edit = patch_from(clean, site)
    after = make_run(model, vocab, other.text, Decoding(), edit, task=task)
    length = max(len(other.output), len(after.output))
    changed = [t for t in range(length + 1) if other.output[t:t + 1] != after.output[t:t + 1]]
    steps = min(len(clean.chosen_ids), len(other.chosen_ids))
    wanted = torch.tensor(clean.chosen_ids[:steps])
    probs = [torch.softmax(forced_logits(model, other, e), -1)[torch.arange(steps), wanted].numpy()
             for e in (Intervention(), edit)]
    return Patched(other, after, changed, *probs)


@dataclass(frozen=True)
class Cone:
    """Every single patch at once: for each site, the output steps whose top token moves (the other text's prefix
    read) when that one activation is copied from the clean run."""
    memory: np.ndarray           # (S,) steps changed by patching the encoder's output at each source position
    stream: np.ndarray           # (L, T) steps changed by patching the decoder stream after layer l at position t
    steps: int                   # the other run's output steps


@torch.inference_mode()
def cone(model: Transformer, clean: Run, other: Run, progress: Progress = None) -> Cone:
    own = forced_logits(model, other, Intervention()).argmax(-1)                              # (T,)
    layers = model.config.n_decoder_layers
    sources, positions = reach(clean, other, "memory"), reach(clean, other, "decoder_stream")
    total, done = sources + layers * positions, [0]

    def moved(site: Site) -> int:
        report(progress, done[0] / total)
        done[0] += 1
        return int((forced_logits(model, other, patch_from(clean, site)).argmax(-1) != own).sum())

    memory = np.array([moved(Site("memory", p)) for p in range(sources)])
    stream = np.array([[moved(Site("decoder_stream", t, layer)) for t in range(positions)] for layer in range(layers)])
    return Cone(memory, stream, len(other.chosen_ids))


def proposed_pairs(text: str, max_len: int, task: str = "reverse", alphabet: str = LATIN) -> dict[str, str]:
    """Texts that differ from `text` by one letter changed (the letter nearest its middle) or one added where the
    task's output keeps the rest in place (reverse: at the start, so the new letter is written last; any other
    task: at the end). The letters are the alphabet's first and last ('a' and 'z' for a-z)."""
    letters = [i for i, c in enumerate(text) if c != " "]
    first, z = alphabet[0], alphabet[-1]
    pairs = {}
    if letters:
        middle = min(letters, key=lambda i: abs(i - len(text) // 2))
        new = first if text[middle] != first else alphabet[1]
        pairs[f"one letter changed (position {middle}: '{text[middle]}' → '{new}')"] = (text[:middle] + new
                                                                                       + text[middle + 1:])
    if len(text) < max_len:
        if task == "reverse":
            pairs[f"one letter added (at the start: '{z}')"] = z + text
        else:
            pairs[f"one letter added (at the end: '{z}')"] = text + z
    return pairs
