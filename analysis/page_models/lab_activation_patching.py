"""Lab: patch one activation. From the two runs, the chosen patch's effect and every single patch's effect (the
causal cone), as the page shows them. Streamlit-free."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..activation_patching import SITE_NAMES, Cone, Patched, Site
from ..labels import visible
from ..run import Run


@dataclass(frozen=True)
class PatchView:
    options: list[str]           # the other text's output steps, to predict from: "2: 'l'"
    changed: list[str]           # those among them the patch changes (the model's answer)
    outputs: str                 # what the two texts write, and the other one patched
    verdict_right: str
    table: dict[str, list]       # per step: the clean run's token, its probability before and after


def step_labels(run: Run) -> list[str]:
    return [f"{t}: '{visible(w)}'" for t, w in enumerate(run.decoder_out)]


def patch_view(clean: Run, patched: Patched, site: Site) -> PatchView:
    other = patched.before
    options = step_labels(other)
    changed = [options[t] if t < len(options) else f"{t}: (past the end)" for t in patched.changed]
    where = SITE_NAMES[site.site] + (f" (layer {site.layer}" + (f", head {site.head}" if site.site == "cross_head"
                                                               else "") + ")" if site.site != "memory" else "")
    outputs = (f"'{visible(clean.text)}' writes '{visible(clean.output)}'; '{visible(other.text)}' writes "
               f"'{visible(other.output)}'; with {where} at position {site.position} copied from the first run, "
               f"it writes '{visible(patched.after.output)}'.")
    steps = len(patched.p_clean_before)
    table = {"step": list(range(steps)), "the first text's token": [visible(w) for w in clean.decoder_out[:steps]],
             "p before the patch": list(patched.p_clean_before), "p with the patch": list(patched.p_clean_after)}
    verdict = ("No output character changes." if not patched.changed else
               f"{len(patched.changed)} output step{'s' if len(patched.changed) != 1 else ''} change: "
               + ", ".join(changed) + ".")
    return PatchView(options, changed, outputs, verdict, table)


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
    for layer, row in enumerate(stream):
        if row.max() > 0:
            said += (f" After decoder layer {layer}, patching position {int(row.argmax())} changes "
                     f"{int(row.max())} step{'s' if row.max() != 1 else ''}, and {int((row > 0).sum())} of its "
                     f"{row.size} positions change{'s' if (row > 0).sum() == 1 else ''} any.")
    return said
