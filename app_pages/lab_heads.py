"""Lab 2: which head reverses? Every head scored against its ideal pattern, beside what removing it costs."""

import pandas as pd
import streamlit as st
from scipy.stats import spearmanr

from explorer.lab_runs import SAMPLE_SIZE, ablation_table, pattern_table
from explorer.model import checkpoint_or_stop
from explorer.state import learner_text
from analysis.lab import IDEAL_PATTERN
from viz.lab import harm_against_pattern

TOP = 4  # how many heads each ranking calls its best

st.title("🧪 Lab: which head reverses?")
st.markdown(
    "Each kind of attention has an obvious job in reversing. A **cross-attention** head that reverses puts step "
    "i's weight on source position n−1−i: the anti-diagonal. Here every head is scored by the mean weight it "
    "puts on the key its kind's ideal pattern names, and by its **entropy** (0 nats: all weight on one key). "
    "Then the score is compared with what switching the head off actually costs."
)
st.table(pd.DataFrame({"attention kind": list(IDEAL_PATTERN), "ideal key for query i": list(IDEAL_PATTERN.values())}))

ckpt = checkpoint_or_stop()
learner_text(ckpt)
patterns = pattern_table()
base, effects = ablation_table()
drop = {e.head: e.drop for e in effects}
harm_rank = {e.head: i + 1 for i, e in enumerate(effects)}

table = pd.DataFrame({
    "rank by pattern": range(1, len(patterns) + 1),
    "head": [str(p.head) for p in patterns],
    "pattern score": [p.score for p in patterns],
    "entropy (nats)": [p.entropy for p in patterns],
    "exact match lost when off": [drop[p.head] for p in patterns],
    "rank by harm": [harm_rank[p.head] for p in patterns],
})
st.dataframe(table, hide_index=True, width="content", column_config={
    "pattern score": st.column_config.ProgressColumn(format="%.3f", min_value=0, max_value=1),
    "entropy (nats)": st.column_config.NumberColumn(format="%.2f"),
    "exact match lost when off": st.column_config.NumberColumn(format="percent")})
st.caption(f"Scores are averaged over {SAMPLE_SIZE} held-out words with the correct reversal fed to the decoder.")

st.plotly_chart(harm_against_pattern([str(p.head) for p in patterns], [p.head.kind for p in patterns],
                                     [p.score for p in patterns], [drop[p.head] for p in patterns],
                                     title="Does looking right mean being needed?"), key="agreement")

scores, harms = [p.score for p in patterns], [drop[p.head] for p in patterns]
rho = spearmanr(scores, harms).statistic if len(set(scores)) > 1 and len(set(harms)) > 1 else None
best_by_pattern = {p.head for p in patterns[:TOP]}
best_by_harm = {e.head for e in effects[:TOP]}
both = best_by_pattern & best_by_harm
st.subheader("Do the two rankings agree?")
st.markdown(
    (f"Rank correlation between pattern score and harm (Spearman ρ): **{rho:.2f}** over {len(patterns)} heads. "
     if rho is not None else "A rank correlation is not defined here: every head costs the same when removed. ")
    + ("They **agree**: " if len(both) >= TOP // 2 else "They **differ**: ")
    + f"of the top {TOP} by pattern and the top {TOP} by harm, {len(both)} are the same head"
    + (f" ({', '.join(map(str, sorted(both)))})." if both else ".")
)
only_pattern, only_harm = sorted(best_by_pattern - best_by_harm), sorted(best_by_harm - best_by_pattern)
if only_pattern:
    st.markdown("- **Look right, but the model copes without them:** " + ", ".join(
        f"{h} (score {next(p.score for p in patterns if p.head == h):.2f}, {drop[h]:.1%} lost)" for h in only_pattern)
        + ". Heads that share a job cover for each other: switch one off and the others still carry the mirror.")
if only_harm:
    st.markdown("- **Needed, but not for the obvious pattern:** " + ", ".join(
        f"{h} ({drop[h]:.1%} lost, score {next(p.score for p in patterns if p.head == h):.2f})" for h in only_harm)
        + ". These heads do a job the ideal pattern does not name, such as telling the decoder how far it has "
          "got, and no other head does it for them.")
