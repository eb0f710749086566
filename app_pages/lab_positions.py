"""Lab 3: take the positions away (zeroed or shuffled) and see what is left of the task."""

import streamlit as st

from analysis.labels import weight_text
from analysis.repeats import copies_gap
from analysis.tasks import words
from explorer.charts import show_chart
from explorer.lab_runs import SAMPLE_SIZE, sample_exact_match
from explorer.link_guard import stop_page
from explorer.model import checkpoint_or_stop, text_run
from explorer.pickers import pick_head
from explorer.state import VIEW, learner_text
from explorer.text import answer_metric, visible
from viz import attention_side_by_side

MODES = {"zero": "Removed (zeroed)", "shuffle": "Shuffled"}
SIDES = {"source": "Source (encoder)", "target": "Target (decoder)"}



def positions_text(mode: str, sides: tuple[str, ...], gap: float | None, table_rows: int, trained: int) -> str:
    """What this set-up leaves of the positions, held to the right-hand map: how differently its queries weigh
    the copies of one letter (gap, None when no letter repeats). table_rows: the code table's length, which the
    target's shuffle draws from (transformer.intervention); trained: the decoder positions training reached."""
    if mode == "zero" and "source" in sides:
        said = ("With the source codes zeroed, the copies of a letter enter the encoder as the same vector, and "
                "without positions nothing in the encoder can make them differ, so a query can only follow *which* "
                "letter, not *where*.")
    elif mode == "zero":
        said = ("Only the decoder lost its codes: the source keeps its own, so the copies of a letter still carry "
                "different codes. One reading of what is lost: each step no longer knows which step it is.")
    else:
        said = (f"Shuffled, every position in the {' and '.join(sides)} still has a code of its own, only another "
                "position's: " + ("the copies of a letter still carry different codes, so the model reads each "
                                  "source character as if it stood somewhere else." if "source" in sides else
                                  "the source keeps its own codes, so the copies of a letter still carry different "
                                  "codes.")
                 + (f" Each decoder step gets the code of a position drawn from all {table_rows} rows of the code "
                    f"table, {'most of them' if table_rows - trained > table_rows / 2 else 'some of them'} past the "
                    f"{trained} positions the decoder met in training: codes it never learned to read."
                    if "target" in sides else ""))
    if gap is None:
        return said + " Your text repeats no character, so this map cannot show it: try one that does, like hello."
    if gap == 0:
        alike = "exactly the same weight from every query."
    elif gap < 1e-6:   # float rounding in the encoder's sums
        alike = f"the same weight from every query (they differ by at most {weight_text(gap)})."
    else:
        alike = f"weights that differ by up to {weight_text(gap)} from one query."
    return said + " On the right-hand map, the copies of a repeated character get " + alike


ckpt = checkpoint_or_stop()
task = words(ckpt.task)
st.title("🧪 Lab: no positions")
st.markdown(
    "Attention by itself does not know order: shuffle the keys and each weight just moves with its key. In the "
    "**encoder**, only the positional encoding tells the model where a character is. The **decoder** could in "
    "principle work out its position without codes, by counting the tokens its causal mask lets it see. Take "
    f"the codes away and see what is left of {task.output}."
)

text = learner_text(ckpt)
config = ckpt.model.config
target_only = sample_exact_match("zero", ("target",), 0)
st.caption(f"With the codes zeroed in the decoder alone, this model gets {target_only:.1%} of {SAMPLE_SIZE} held-out "
           "words exactly right: "
           + ("it cannot do without its target codes; it learnt to rely on them too." if target_only < 0.5 else
              "it copes without its target codes."))

a, b, c = st.columns([1, 2, 1])
mode = a.radio("Positions", list(MODES), format_func=MODES.get, key="pe_mode", **VIEW)
sides = b.pills("Where", list(SIDES), format_func=SIDES.get, selection_mode="multi", default=list(SIDES),
                key="pe_sides", **VIEW)
seed = c.number_input("Shuffle seed", 0, 999, 0, key="pe_seed", disabled=mode != "shuffle", **VIEW)
if not sides:
    st.warning("Choose the source, the target or both.", icon="👆")
    stop_page()
sides = tuple(s for s in SIDES if s in sides)

edit = {"positions": mode, "sides": sides, "shuffle_seed": seed}
before, after = text_run(text), text_run(text, **edit)
taught, taught_after = text_run(text, teacher=True), text_run(text, teacher=True, **edit)
left, right = st.columns(2)
left.metric("With positions", visible(before.output))
answer_metric(right, f"Positions {MODES[mode].lower()} in the {' and '.join(sides)}", after)
kept, lost = sample_exact_match("normal", ("source", "target"), 0), sample_exact_match(mode, sides, seed)
left.metric(f"Exact match on {SAMPLE_SIZE} held-out words", f"{kept:.1%}")
right.metric(f"Exact match on {SAMPLE_SIZE} held-out words ", f"{lost:.1%}", delta=f"{lost - kept:+.1%}",
             delta_color="normal")

_, layer, _ = pick_head(config, "pe_", kinds=("cross",), layer_label="Cross-attention layer", heads=False)
show_chart(attention_side_by_side(
    [taught.trace["cross", layer].mean(0), taught_after.trace["cross", layer].mean(0)],
    ["with positions", f"positions {MODES[mode].lower()}"], taught.decoder_in, taught.source,
    title=f"Cross-attention, layer {layer}, average of the {config.n_heads} heads (a summary)",
    query_title="decoder position (reads)", key_title="source position"), key="cross")
gap = copies_gap(taught_after.trace["cross", layer].mean(0), taught.source)   # the right-hand map
st.caption(f"The task's pattern is {task.pattern}: {task.rule}. " + positions_text(mode, sides, gap, config.max_positions,
                                                                                 config.max_len + 1))
