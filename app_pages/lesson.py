"""Lesson: ten steps and an optional eleventh, each with a question the model answers, asked before the reveal."""

import streamlit as st

from explorer import lesson
from explorer.callbacks import move_slider
from explorer.cache import checkpoint_or_stop, model_key, reversal_only
from explorer.own_models import is_own
from explorer.pages import TITLES
from explorer.state import VIEW, learner_text
from explorer.text import escape_markdown
from teaching.sheet import sheet_html, sheet_markdown
from teaching.steps import STEPS

st.title("🎓 Lesson: how a Transformer reverses your text")
st.markdown(
    "Ten steps, from characters to the mechanism, and an optional eleventh for a longer class, each on the text "
    "in the sidebar. Every step asks you to "
    "**predict first**; the model's own numbers then say whether you were right. Use **←** and **→** to move "
    "between steps. Teachers: each step has its own link (copy the address bar), and the sheet at the bottom "
    "has the questions, the model's answers and timings for a 50-minute class."
)

reversal_only("The lesson")
ckpt = checkpoint_or_stop()
key = model_key()   # names the model in use: the key of every cached run below
text = learner_text(ckpt)
config = ckpt.model.config
last = len(STEPS)


back, middle, forward = st.columns([1, 3, 1], vertical_alignment="bottom")
number = middle.slider("Step", 1, last, 1, key=lesson.STEP_KEY, **VIEW)
back.button("Previous", icon=":material/arrow_back:", shortcut="Left", on_click=move_slider,
            args=(lesson.STEP_KEY, 1, last), kwargs={"by": -1},
            disabled=number == 1, width="stretch", help="Previous step (← key)")
forward.button("Next", icon=":material/arrow_forward:", icon_position="right", shortcut="Right", on_click=move_slider,
               args=(lesson.STEP_KEY, 1, last), kwargs={"by": 1}, disabled=number == last, width="stretch", help="Next step (→ key)")
step = STEPS[number - 1]

st.subheader(f"Step {step.number} of {last} · {step.title}" + (" (optional)" if step.optional else ""))
st.markdown(f"**Goal.** {step.goal}")
view = lesson.step_view(step.number, key, text, ask_tables=False)   # all of it, but for a table an own model lacks
lesson.draw(view.before)
if is_own(key):   # a server model's tables are all there: asking again would build it twice
    shown, view = view.before, lesson.step_view(step.number, key, text)   # a missing table is asked for here, below
    lesson.draw(view.before[len(shown):])
st.caption(f"**Look for:** {step.look_for}")
if view.question is None:
    st.info("This model has no training snapshots (your own models keep none), so this step has no question; "
            "switch to the bundled model in the sidebar to see its training.", icon="ℹ️")
else:
    lesson.ask(view, text)

st.divider()
model = ("your own model" if is_own(key) else "the bundled model") + (
    f" ({config.n_encoder_layers} + {config.n_decoder_layers} layers, {config.n_heads} heads, d_model {config.d_model})")
SHEET_FOR = "_sheet_for"   # the (text, model) the teacher asked a sheet for; later reruns keep offering it
wanted = (text, key)
if st.session_state.get(SHEET_FOR) != wanted:
    st.button("Prepare the teacher's sheet", icon=":material/description:", key="prepare_sheet",
              on_click=st.session_state.update, kwargs={SHEET_FOR: wanted},
              help="Every step's question and the answer the model in use gives on this text, with timings.")
else:  # built in this run, from the model this page shows (a download built later ran outside the session)
    questions = lesson.all_questions(key, text, ask_tables=False)
    left, right = st.columns(2)
    left.download_button("Teacher's sheet (Markdown)", sheet_markdown(text, model, questions, TITLES),
                         file_name=f"lesson_{text.replace(' ', '_')}.md", mime="text/markdown", on_click="ignore",
                         width="stretch")
    right.download_button("Teacher's sheet (printable HTML)", sheet_html(text, model, questions, TITLES),
                          file_name=f"lesson_{text.replace(' ', '_')}.html", mime="text/html", on_click="ignore",
                          width="stretch")
    st.caption(escape_markdown(f"The sheet holds every step's question and the answer {model} gives on '{text}'."))
