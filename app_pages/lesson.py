"""Lesson: ten steps and three optional ones, each with a question the model answers, asked before the reveal, on
the model in use, whatever its task."""

import streamlit as st

from analysis.tasks import WORDS as BUNDLED_WORDS, words as task_words
from explorer import classes, lesson
from explorer.callbacks import turn_lesson_step
from explorer.charts import projector_on
from explorer.own_models import is_own
from explorer.pages import TITLES
from explorer.state import VIEW, model_and_text
from explorer.text import escape_markdown
from teaching.sheet import WHY_NO_QUESTION, sheet_html, sheet_markdown
from teaching.steps import STEPS, step_for

ckpt, key, text = model_and_text()   # key: names the model in use, the key of every cached run
config, task = ckpt.model.config, ckpt.task
about = {"reverse": "How a Transformer reverses your text", "copy": "How a Transformer copies your text",
         "sort": "How a Transformer sorts your text"}.get(task) or escape_markdown(f"How a Transformer learns {task}")
projector = projector_on()   # a hall's first screen holds the step's controls and its chart, so the intro folds
if projector:
    title_col, intro = st.columns([1, 3], vertical_alignment="center")
    title_col.title("🎓 Lesson")
    intro = intro.expander(f"{about}: about this lesson")
else:
    st.title(f"🎓 Lesson: {about[0].lower()}{about[1:]}")
    intro = st.container()
intro.markdown(
    ("" if task in BUNDLED_WORDS else escape_markdown(f"The model in use was trained to {task_words(task).verb} "
                                                      f"({task}). "))
    + "Ten steps, from characters to the mechanism, and three optional ones for a longer class, each on the text "
    "in the sidebar. Every step asks you to "
    "**predict first**; the model's own numbers then say whether you were right. Use **←** and **→** to move "
    "between steps. Teachers: each step has its own link (copy the address bar), and the sheet at the bottom "
    "has the questions, the model's answers and timings for a 50-minute class."
)

last = len(STEPS)
held = classes.held_steps(text)   # a class voting on this text: its answers not yet revealed stay off this page


back, middle, forward = st.columns([1, 2, 1], vertical_alignment="bottom")   # "Previous" whole at 1024 px
number = middle.slider("Step", 1, last, 1, key=lesson.STEP_KEY, **VIEW,  # the heading below says "Step n of 13"
                       label_visibility="collapsed" if projector else "visible")
back.button("Previous", shortcut="Left", key="lesson_previous",   # no icon: its name would be read aloud
            on_click=turn_lesson_step, args=(lesson.STEP_KEY, last, -1), width="stretch", help="Previous step (← key)")
at_end = number == last   # the same button (its key), so the keyboard's focus stays on it
forward.button("Start again" if at_end else "Next", shortcut="Right", key="lesson_next", on_click=turn_lesson_step,
               args=(lesson.STEP_KEY, last, 1), width="stretch",
               help="Back to step 1 (→ key)" if at_end else "Next step (→ key)")
step = step_for(number, task)   # its words follow the model's task

# In projector mode a step is a slide: its words and question on the left, its numbers on the right, so the
# chart is on a 1280×720 hall's first screen; elsewhere one column, in reading order.
slide = st.container(key="lesson_slide")
if projector:
    words, numbers = slide.columns([2, 3], gap="medium")
else:
    words = numbers = slide
words.header(f"Step {step.number} of {last} · {step.title}" + (" (optional)" if step.optional else ""))
words.markdown(f"**Goal.** {step.goal}")
view = lesson.step_view(step.number, key, text, ask_tables=False)   # all of it, but for a table an own model lacks
lesson.draw(view.before, numbers)
if is_own(key):   # a server model's tables are all there: asking again would build it twice
    shown, view = view.before, lesson.step_view(step.number, key, text)   # a missing table is asked for here, below
    lesson.draw(view.before[len(shown):], numbers)
words.caption(f"**Look for:** {step.look_for}")
if view.question is None:
    words.info(f"This step has no question here: {WHY_NO_QUESTION.get(step.number, 'this model cannot ask it')}"
               + (" (your own models keep none); switch to the bundled model in the sidebar to see its training."
                  if step.number == 7 else "."), icon="ℹ️")
elif step.number in held:
    with words:
        lesson.hold_back(view)
else:
    with words:
        lesson.ask(view, text, numbers)

st.divider()
model = ("your own model" if is_own(key) else "the bundled model") + (
    f" ({config.n_encoder_layers} + {config.n_decoder_layers} layers, {config.n_heads} heads, d_model {config.d_model})")
SHEET_FOR = "_sheet_for"   # the (text, model) the teacher asked a sheet for; later reruns keep offering it
wanted = (text, key)
if st.session_state.get(SHEET_FOR) != wanted:
    st.button("Prepare the teacher's sheet", key="prepare_sheet",
              on_click=st.session_state.update, kwargs={SHEET_FOR: wanted},
              help="Every step's question, the numbers on screen before it and the answer the model in use gives "
                   "on this text, with timings.")
else:  # built in this run, from the model this page shows (a download built later ran outside the session)
    views = lesson.all_views(key, text, ask_tables=False)
    questions, before = [v.question for v in views], [v.before for v in views]
    left, right = st.columns(2)
    left.download_button("Teacher's sheet (Markdown)", sheet_markdown(text, model, questions, TITLES, held, before, task),
                         file_name=f"lesson_{text.replace(' ', '_')}.md", mime="text/markdown", on_click="ignore",
                         width="stretch")
    right.download_button("Teacher's sheet (printable HTML)", sheet_html(text, model, questions, TITLES, held, before, task),
                          file_name=f"lesson_{text.replace(' ', '_')}.html", mime="text/html", on_click="ignore",
                          width="stretch")
    st.caption(escape_markdown(
        f"The sheet holds every step's question and the answer {model} gives on '{text}'" + (
            f", except on steps {', '.join(map(str, sorted(held)))}: a class is voting on them on this text, and "
            "their answers come when the teacher reveals them." if held else ".")))
