"""Lab: why this character? For one output step, every source character under five lenses side by side, and how
far each lens ranks the characters as occlusion does over every step of the text. Streamlit-free: the page draws
this record."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..attribution import (COMPLETENESS_TOLERANCE, MOST_POINTS, QUICK_COUNT, QUICK_LETTERS, VARIES, Agreement,
                           Integrated, Lenses, agreement, tops, varies)
from ..labels import visible
from ..run import Run

HEADS_AVERAGED = "all heads, averaged (a summary)"
SHORT_AVERAGED = "heads averaged"   # in column names and sentences, where brackets would nest
NAMED_DISAGREEMENTS = 8   # steps named in the sentence; the rest counted

# What each lens measures, and what it does not: one sentence each, checked against the numbers shown.
LENS_SAYS = {
    "attention": "how much weight the step's query puts on each source position: where the head reads, not what "
                 "reading it changes",
    "influence": "the weight times the length of what that key sends through the head's W_O (‖w v W_O‖; for all "
                 "heads, the heads' lengths added up, not the length of their sum): a large weight on a value that "
                 "sends little counts for little",
    "gradient × input": "how fast the chosen token's log-probability moves as each character's embedding grows, "
                        "times the embedding: a slope at the text itself, blind to where the effect saturates",
    "integrated gradients": "the same slopes summed along a straight line from all-zero embeddings to the text's, "
                            "so a step's numbers add up to how far its log-probability moves between the two; the "
                            "all-zero start is a choice",
    "occlusion": "the drop in the chosen token's probability when that one character is swapped for {letters} "
                 "in turn (the mean): a direct test of whether the character matters, one at a time, blind to "
                 "characters that matter only together, and not only of reading: a swap also lowers it where it "
                 "makes your text disagree with what the decoder has already written (a character already copied), "
                 "and under sorting a swap can change which letter should come first. Values within 0.001 of 0 "
                 "are float noise",
}
EVERY_SWAP = "each other letter"


def quick_swaps(letters: str = QUICK_LETTERS) -> str:
    return (f"{QUICK_COUNT} other letters spread over the alphabet (from {', '.join(letters)}: the first five that "
            "are not the character itself)")




def occlusion_says(lenses: Lenses) -> str:
    return LENS_SAYS["occlusion"].format(letters=EVERY_SWAP if lenses.every_letter else quick_swaps(lenses.swaps))


@dataclass(frozen=True)
class LensColumn:
    name: str          # as the table heads it
    values: np.ndarray  # (S,)
    says: str


@dataclass(frozen=True)
class AgreementRow:
    lens: str
    rho: float | None
    steps: int
    same_top: float | None


@dataclass(frozen=True)
class WhyView:
    step_line: str                    # what the step reads and writes
    sources: list[str]                # (S,) "3: l"
    columns: list[LensColumn]         # the lenses at this step
    completeness: str                 # integrated gradients against their gap
    agreement: list[AgreementRow]     # each lens against occlusion, over every step
    disagreements: str                # where the layer's attention and occlusion part ways
    rollout_rows: list[str]           # (T,) decoder rows: what each step writes
    rollout: np.ndarray               # (T, S)
    occlusion: np.ndarray             # (T, S)
    rollout_line: str


def layer_labels(n_layers: int) -> dict[int, str]:
    """How the layer picker names each decoder layer: the last said to be the last."""
    return {n: f"{n} (the last)" if n == n_layers - 1 else str(n) for n in range(n_layers)}


def head_name(head: int | None) -> str:
    return SHORT_AVERAGED if head is None else f"head {head}"


def why_view(run: Run, lenses: Lenses, layer: int, head: int | None, step: int, integrated: Integrated | None,
             every_step: np.ndarray | None = None) -> WhyView:
    """`head` None: the layer's heads averaged (attention) or summed (influence: what all of them send).
    `integrated`: this step's integrated gradients, once computed (None: not yet, and no column);
    `every_step`: (T, S) integrated gradients at every step, when computed."""
    attention = lenses.attention[layer]                                      # (H, T, S)
    influence = lenses.influence[layer]
    att = attention.mean(0) if head is None else attention[head]             # (T, S)
    inf = influence.sum(0) if head is None else influence[head]
    which = f"layer {layer}, {head_name(head)}"
    summed = which.replace("averaged", "summed")        # what every head sends adds up; weights are averaged
    gradient = "gradient × input"
    columns = [
        LensColumn(f"attention ({which})", att[step], LENS_SAYS["attention"]),
        LensColumn(f"influence ({summed})", inf[step], LENS_SAYS["influence"]),
        LensColumn(gradient + ("" if varies(lenses.grad_input[step]) else " (flat: saturated)"),
                   lenses.grad_input[step], LENS_SAYS[gradient]),
        *([LensColumn("integrated gradients", integrated.attributions, LENS_SAYS["integrated gradients"])]
          if integrated is not None else []),
        LensColumn("occlusion", lenses.occlusion[step], occlusion_says(lenses)),
    ]
    if integrated is None:
        completeness = "Integrated gradients at this step are computed when you ask (below the table)."
    else:
        total = float(integrated.attributions.sum())
        within = abs(integrated.error) <= COMPLETENESS_TOLERANCE
        completeness = (
            f"Integrated gradients at this step add up to {total:.3f} nats; the log-probability moves by "
            f"{integrated.gap:.3f} nats from all-zero embeddings to your text's, so they miss it by "
            f"{abs(integrated.error):.3f} ({integrated.points} points on the path). "
            + (f"The page computes until the miss is at most {COMPLETENESS_TOLERANCE} nats." if within else
               f"Even {MOST_POINTS} points left it above the {COMPLETENESS_TOLERANCE} nats aimed at: read these "
               "attributions with that in mind."))
    rows = [("attention", att), ("influence", inf), ("gradient × input", lenses.grad_input),
            ("rollout", lenses.rollout)]
    if every_step is not None:
        rows.insert(3, ("integrated gradients", every_step))
    table, found = [], {}          # found: {lens name: Agreement}
    for name, lens in rows:
        found[name] = agreement(lens, lenses.occlusion)
        label = {"attention": f"attention ({which})", "influence": f"influence ({summed})"}.get(name, name)
        table.append(AgreementRow(label, found[name].rho, found[name].steps, found[name].same_top))
    return WhyView(
        step_line=(f"Step {step} reads {' '.join(run.decoder_in[:step + 1])} and writes '{run.decoder_out[step]}' "
                   f"(p = {float(run.probs[step].max()):.3f})."),
        sources=[f"{i}: {c}" for i, c in enumerate(run.source)],
        columns=columns,
        completeness=completeness,
        agreement=table,
        disagreements=disagreements(run, att, lenses.occlusion, which),
        rollout_rows=[f"{i}→{w}" for i, w in enumerate(run.decoder_out)],
        rollout=lenses.rollout,
        occlusion=lenses.occlusion,
        rollout_line=rollout_line(found["rollout"]),
    )


def disagreements(run: Run, att: np.ndarray, occluded: np.ndarray, which: str) -> str:
    """The steps (where occlusion varies) whose top source position under attention is not occlusion's, named
    (the first few). Positions, not letters: a repeated letter is two positions."""
    counted = [t for t in range(len(att)) if varies(occluded[t])]
    top_a, top_o = att.argmax(-1), occluded.argmax(-1)
    parted = [t for t in counted if int(top_a[t]) not in tops(occluded[t])]
    if not parted:
        return (f"At every one of the {len(counted)} steps where occlusion moves the probability by more than "
                f"{VARIES:g}, attention's largest weight ({which}) is on one of the positions whose swap lowers it "
                f"most (within {VARIES:g}).")
    named = "; ".join(f"step {t} (writes '{visible(run.decoder_out[t])}'): attention on position {top_a[t]} "
                      f"('{visible(run.source[top_a[t]])}'), occlusion on position {top_o[t]} "
                      f"('{visible(run.source[top_o[t]])}')" for t in parted[:NAMED_DISAGREEMENTS])
    more = f"; and {len(parted) - NAMED_DISAGREEMENTS} more" if len(parted) > NAMED_DISAGREEMENTS else ""
    return (f"At {len(parted)} of the {len(counted)} steps where occlusion moves the probability by more than "
            f"{VARIES:g}, attention's largest weight ({which}) is on a position whose swap lowers it by more than "
            f"{VARIES:g} less than the largest drop: {named}{more}.")


def rollout_line(found: Agreement) -> str:
    """Rollout against occlusion (their agreement, as the table above has it), in words."""
    if found.steps == 0:
        return "At no step do both rollout and occlusion vary, so there is nothing to compare."
    return (f"Over the {found.steps} steps where both vary, rollout's largest value is on one of the positions "
            f"whose swap lowers the probability most (within {VARIES:g}) at {found.same_top:.0%} of them, with a mean "
            f"Spearman ρ of {found.rho:.2f}. "
            "Rollout assumes each layer passes on what it weighs, plus its residual; where it parts from occlusion, "
            "a merged attention map is not the explanation.")
