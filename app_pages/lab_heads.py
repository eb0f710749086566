"""Lab 2: which head does the task? Every head scored against a hypothesis for its kind and against that
hypothesis shifted by a position or two, beside what removing it costs."""

import pandas as pd
import streamlit as st

from explorer.charts import show_chart
from explorer.lab_runs import NOISE_POINTS, SAMPLE_SIZE, ablation_table, offset_table, pattern_table
from explorer.model import checkpoint_or_stop
from explorer.state import learner_text
from analysis.lab import (EVEN_UNIFORMITY, HYPOTHESES, correlation_words, rank_agreement, rank_correlation,
                          score_correlation)
from analysis.labels import KIND_SHORT
from analysis.offsets import EXPLAINED_SHARE, OFFSETS, offset_label
from analysis.tasks import words
from viz.lab import harm_against_pattern

TOP = 4  # how many heads each ranking calls its best

ckpt = checkpoint_or_stop()
task = words(ckpt.task)
st.title(f"🧪 Lab: which head does the work?")
st.markdown(
    f"Is there a head that does the work of the task ({task.verb})? Each kind of attention gets a **hypothesis** "
    f"below. Only cross-attention's follows from what the task needs: {task.rule}. For "
    "the two self-attentions nobody knows an ideal pattern; the ones below are guesses to test. Every head is "
    "scored by the mean weight it puts on the key its hypothesis names (beside **chance**, the score of a head "
    "that spreads its weight evenly), by its **entropy** and its **uniformity** (1: spread evenly). The "
    "**evidence** is the column *exact match lost when off*: what switching the head off costs."
)
st.markdown(
    f"A head can follow its hypothesis **shifted**: reading, say, the character a step has just read instead of "
    f"the one it writes. So each head is also scored against the **offsets** k = {OFFSETS[0]}…+{OFFSETS[-1]} of "
    "its hypothesis (offset 0 is the hypothesis itself): for each offset, the share of steps whose largest weight "
    f"lands on the key it names. This page calls a head **explained by an offset** when at least "
    f"{EXPLAINED_SHARE:.0%} of its steps land there: one key then takes the largest weight at least as "
    "often as every other key of the row put together."
)
hypotheses = [h.format(pattern=task.pattern) for h in HYPOTHESES.values()]
families = [", ".join(offset_label(kind, ckpt.task, k) for k in OFFSETS) for kind in HYPOTHESES]
st.table(pd.DataFrame({"attention kind": list(HYPOTHESES), "hypothesis: query i attends to": hypotheses,
                       f"offsets {OFFSETS[0]}…+{OFFSETS[-1]}: query i attends to": families}))

learner_text(ckpt)
patterns = pattern_table()
fits = {f.id: f for f in offset_table()}
base, effects = ablation_table()
drop = {e.head: e.drop for e in effects}
harm_rank = {e.head: i + 1 for i, e in enumerate(effects)}

table = pd.DataFrame({
    "rank by pattern": range(1, len(patterns) + 1),
    "head": [str(p.head) for p in patterns],
    "pattern score": [p.score for p in patterns],
    "chance": [p.chance for p in patterns],
    "best offset": [fits[p.head].best_offset for p in patterns],
    "key it names": [offset_label(p.head.kind, ckpt.task, fits[p.head].best_offset) for p in patterns],
    "steps there": [fits[p.head].best_share for p in patterns],
    "mean top weight": [fits[p.head].mean_top_weight for p in patterns],
    "entropy (nats)": [p.entropy for p in patterns],
    "uniformity": [p.uniformity for p in patterns],
    "exact match lost when off": [drop[p.head] for p in patterns],
    "rank by harm": [harm_rank[p.head] for p in patterns],
})
st.dataframe(table, hide_index=True, width="content", column_config={
    "pattern score": st.column_config.ProgressColumn(format="%.3f", min_value=0, max_value=1),
    "chance": st.column_config.NumberColumn(format="%.3f"),
    "best offset": st.column_config.NumberColumn(format="%+d"),
    "steps there": st.column_config.NumberColumn(format="percent"),
    "mean top weight": st.column_config.NumberColumn(format="%.2f"),
    "entropy (nats)": st.column_config.NumberColumn(format="%.2f"),
    "uniformity": st.column_config.NumberColumn(format="%.2f"),
    "exact match lost when off": st.column_config.NumberColumn(format="percent")})
st.caption(f"Scores are averaged over {SAMPLE_SIZE} held-out words with {task.output}, correct, fed to the decoder. "
           "Decoder row 0 can only attend to ⟨s⟩ and the end step copies nothing, so neither is counted. "
           + ("For sort, weight on any source position holding the right character counts. " if ckpt.task == "sort"
              else "") +
           "*Steps there*: the share of steps whose largest weight is on the key the best offset names; *mean top "
           "weight*: the mean of each step's largest weight (1: all on one key). "
           f"Each exact-match loss carries up to ±{NOISE_POINTS:.1f} points of sampling noise.")

show_chart(harm_against_pattern([str(p.head) for p in patterns], [p.head.kind for p in patterns],
                                [p.score for p in patterns], [drop[p.head] for p in patterns],
                                title="Does looking right mean being needed?"), key="agreement")
show_chart(harm_against_pattern([str(p.head) for p in patterns], [p.head.kind for p in patterns],
                                [fits[p.head].best_share for p in patterns], [drop[p.head] for p in patterns],
                                title="Does landing on one offset mean being needed?",
                                x_title="share of steps on its best offset"), key="offset_agreement")

rho = rank_correlation(patterns, drop)
best_by_pattern = {p.head for p in patterns[:TOP]}
best_by_harm = {e.head for e in effects[:TOP]}
both = best_by_pattern & best_by_harm
by_kind = rank_agreement(patterns, drop)
rho_offset = score_correlation({h: f.best_share for h, f in fits.items()}, drop)
st.subheader("Do the two rankings agree?")
st.markdown(
    (f"Rank correlation between pattern score and harm (Spearman ρ): **{rho:.2f}** over {len(patterns)} heads: "
     f"the two rankings **{correlation_words(rho)}**. "
     if rho is not None else "A rank correlation is not defined here: every head costs the same when removed. ")
    + f"Of the top {TOP} by pattern and the top {TOP} by harm, {len(both)} are the same head"
    + (f" ({', '.join(map(str, sorted(both)))})." if both else ".")
    + " The kinds are scored against different hypotheses with different chance levels, so within each kind: "
    + ", ".join(f"{KIND_SHORT[k].lower()} ρ = {r:.2f}" if r is not None else f"{KIND_SHORT[k].lower()} undefined"
                for k, r in by_kind.items()) + "."
    + (f" Ranked instead by the share of steps on each head's best offset, ρ = **{rho_offset:.2f}**: that ranking "
       f"and harm **{correlation_words(rho_offset)}**." if rho_offset is not None else "")
)
only_pattern, only_harm = sorted(best_by_pattern - best_by_harm), sorted(best_by_harm - best_by_pattern)
if only_pattern:
    coped = all(drop[h] * 100 < 2 * NOISE_POINTS for h in only_pattern)
    st.markdown(("- **Look right, but the model copes without any one of them:** " if coped else
                 "- **Look right, but others cost more when switched off:** ") + ", ".join(
        f"{h} (score {next(p.score for p in patterns if p.head == h):.2f}, {drop[h]:.1%} lost)" for h in only_pattern)
        + (". One reading: heads that share a job cover for each other." if coped else
           ". Each of these is still needed; looking right ranks them first, removing them does not."))


def _named(head) -> str:
    fit = fits[head]
    score = next(p.score for p in patterns if p.head == head)
    label = offset_label(head.kind, ckpt.task, fit.best_offset)
    where = (f"largest weight on **{label}**, offset {fit.best_offset:+d}, in {fit.best_share:.0%} of steps"
             if fit.explained else
             f"its most frequent offset, {label} ({fit.best_offset:+d}), holds the largest weight in only "
             f"{fit.best_share:.0%} of steps")
    return f"{head} ({drop[head]:.1%} lost, score {score:.2f}; {where}, mean top weight {fit.mean_top_weight:.2f})"


shifted = [h for h in only_harm if fits[h].explained]
unexplained = [h for h in only_harm if not fits[h].explained]
if shifted:
    st.markdown("- **Needed, and explained by an offset:** " + ", ".join(map(_named, shifted))
                + ". The hypothesis scores " + ("them" if len(shifted) > 1 else "it")
                + " low, yet one offset holds the largest weight in most steps.")
if unexplained:
    st.markdown("- **Needed, and not explained by any offset:** " + ", ".join(map(_named, unexplained))
                + f". No offset from {OFFSETS[0]} to +{OFFSETS[-1]} holds the largest weight in "
                f"{EXPLAINED_SHARE:.0%} of steps; this table cannot say what they do.")

even = [p for p in patterns if p.uniformity >= EVEN_UNIFORMITY and p.head.kind != "decoder_self"]  # heads that read the source
st.subheader("Another hypothesis: even heads carry the length")
if even:
    costly = max(even, key=lambda p: drop[p.head])
    needed = drop[costly.head] * 100 >= 2 * NOISE_POINTS
    use = ("which the mirror position n−1−i needs" if ckpt.task == "reverse" else "which knowing when to stop needs")
    st.markdown(
        f"{len(even)} encoder or cross head(s) spread their weight almost evenly over the source (uniformity at "
        f"least {EVEN_UNIFORMITY}). Such a head computes close to the mean of the source positions' values; every value "
        "carries its position's code, so the mean can change with the length n. "
        + (f"Switching off **{costly.head}** (uniformity {costly.uniformity:.2f}) costs **{drop[costly.head]:.1%}** "
           f"of exact match. One reading: the mean tells later layers how long the text is, {use}. "
           if needed else
           f"Switching off any one of them costs at most **{drop[costly.head]:.1%}** of exact match "
           f"({costly.head}), within twice the sampling noise: the model copes without each one alone, so this "
           "table neither supports nor rules out that they carry the length. ")
        + ("*How it reverses* switches the even heads off and probes for the length; this table does not, and a "
           "cost shows that the model needs a head, not what for. "
           if ckpt.task == "reverse" else
           "This table does not test it. ") +
        "(An even decoder self-attention head averages over what has been written so far instead, which could "
        "tell the decoder how many steps it has taken.)"
    )
else:
    st.markdown(f"No encoder or cross head here spreads its weight almost evenly (uniformity at least {EVEN_UNIFORMITY}).")
