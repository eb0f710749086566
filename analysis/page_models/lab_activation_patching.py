"""Lab: patch one activation. From the two runs, the chosen patch's effect and every single patch's effect (the
causal cone), as the page shows them. Streamlit-free."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..activation_patching import Cone, Patched, Site
from ..labels import visible
from ..run import Run


@dataclass(frozen=True)
class PatchView:
    options: list[str]           # the other text's output steps, to predict from: "2: 'l'"
    changed: list[str]           # those among them the patch changes (the model's answer)
    extra: int                   # characters the patched run writes past the other run's end (not among options)
    outputs: str                 # what the two texts write, and the other one patched
    verdict: str
    table: dict[str, list]       # per step: the clean run's token, its probability before and after


def step_labels(run: Run) -> list[str]:
    return [f"{t}: '{visible(w)}'" for t, w in enumerate(run.decoder_out)]


def site_words(site: Site) -> str:
    """The patched activation in words: 'the decoder's residual stream after layer 1, at position 3'."""
    return {"memory": f"the encoder's output at source position {site.position}",
            "cross_head": f"cross-attention head {site.head} of layer {site.layer}'s output at step {site.position}",
            "decoder_stream": f"the decoder's residual stream after layer {site.layer}, at position {site.position}",
            }[site.site]


def patch_view(clean: Run, patched: Patched, site: Site) -> PatchView:
    other = patched.before
    options = step_labels(other)
    changed = [options[t] for t in patched.changed if t < len(options)]
    extra = sum(t >= len(options) for t in patched.changed)
    outputs = (f"'{visible(clean.text)}' writes '{visible(clean.output)}'; '{visible(other.text)}' writes "
               f"'{visible(other.output)}'; with {site_words(site)} copied from the first run, it writes "
               f"'{visible(patched.after.output)}'.")
    steps = len(patched.p_clean_before)
    table = {"step": list(range(steps)), "the first text's token": [visible(w) for w in clean.decoder_out[:steps]],
             "p before the patch": list(patched.p_clean_before), "p with the patch": list(patched.p_clean_after)}
    verdict = ("No output character changes." if not changed else
               f"{len(changed)} output step{'s' if len(changed) != 1 else ''} change{'' if len(changed) != 1 else 's'}"
               ": " + ", ".join(changed) + ".")
    if extra:
        verdict += f" It also writes {extra} character{'s' if extra != 1 else ''} past where the other text ended."
    return PatchView(options, changed, extra, outputs, verdict, table)


def cone_line(found: Cone, clean: Run, other: Run) -> str:
    """Which single patches move the other run's top tokens, and how far: the cells of the grid, in words."""
    memory, stream = found.memory, found.stream
    patches = memory.size + stream.size
    moving = int((memory > 0).sum() + (stream > 0).sum())
    said = (f"{moving} of the {patches} single patches change at least one of the {found.steps} output steps "
            f"(each patch on its own, the other text's prefix read).")
    if memory.size and memory.max() > 0:
        top = [int(p) for p in np.flatnonzero(memory == memory.max())]
        said += (f" In the encoder's output, position{'s' if len(top) > 1 else ''} "
                 + ", ".join(f"{p} ('{visible(clean.source[p])}' against '{visible(other.source[p])}')" for p in top)
                 + f" change{'' if len(top) > 1 else 's'} the most: {int(memory.max())} step"
                 + ("s" if memory.max() != 1 else "") + ".")
        if len(clean.source) != len(other.source):
            said += (f" The two texts differ in length ({len(clean.source)} and {len(other.source)} characters), so "
                     "their source positions no longer line up: a patched position brings another character from "
                     "another place, into a text of another length. Read these cells with a pair of one length.")
    for layer, row in enumerate(stream):
        if row.max() > 0:
            most = [int(t) for t in np.flatnonzero(row == row.max())]
            where = (f"position {most[0]} changes" if len(most) == 1 else
                     f"each of positions {', '.join(map(str, most))} changes")
            moving_here = int((row > 0).sum())
            said += (f" After decoder layer {layer}, patching {where} {int(row.max())} step"
                     f"{'s' if row.max() != 1 else ''}, the most of its {row.size} positions; "
                     + ("it is the only position whose patch changes any." if moving_here == 1 else
                        f"{moving_here} positions change at least one."))
    return said
