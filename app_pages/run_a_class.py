"""Run a class: start one, project its join code, step through the lesson while the class votes, discusses,
votes again, and the model reveals."""

import time

import streamlit as st

from classroom.errors import ClassError
from explorer import classes, lesson
from explorer.cache import checkpoint_for
from explorer.charts import show_chart
from explorer.errors import InputError
from explorer.links import page_link
from explorer.text import escape_markdown
from teaching.class_mode import class_csv, joined_line, round_result, spread, teacher_advice
from teaching.steps import STEPS
from viz.classroom import vote_spread

st.title("📣 Run a class")
store = classes.class_store()
if store is None:
    st.stop()
code, secret = classes.param(classes.CLASS_PARAM).upper(), classes.param(classes.TEACHER_PARAM)

if not (code and secret):
    st.markdown(
        "Project this page; students join on their phones with a code. For each step of the lesson: open voting, "
        "everyone commits to an answer, show the spread (the right answer is not marked), let neighbours argue, "
        "open a second round, then reveal the model's own answer. This is peer instruction; the share right in "
        "each round tells you what to do next.")
    ckpt = checkpoint_for(classes.CLASS_MODEL_KEY)
    with st.form("start_class"):
        text = st.text_input("The class's text: every screen shows the model's numbers for it", value="hello",
                             max_chars=ckpt.model.config.max_len)
        started = st.form_submit_button("Start a class", type="primary", icon=":material/groups:")
    if started:
        try:
            ckpt.vocab.encode(text, ckpt.model.config.max_len)
            new = store.create_class(text)
        except InputError as error:
            st.error(escape_markdown(str(error)), icon="✏️")
        except ClassError as error:
            st.error(str(error), icon="🛑")
        else:
            st.query_params.update({classes.CLASS_PARAM: new.code, classes.TEACHER_PARAM: new.secret})
            st.rerun()
    st.stop()

try:
    state = store.teacher_state(code, secret)
except ClassError as error:
    st.error(str(error), icon="🔒")
    page_link("run_a_class", "Start a new class", "📣")
    st.stop()

key, last = classes.CLASS_MODEL_KEY, len(STEPS)
link = classes.join_link(code)
left, right = st.columns([3, 1], vertical_alignment="center")
left.html(f"<p class='class-code-intro'>Join at <b>{link}</b> with the code</p>"
          f"<p class='class-code' aria-label='join code {' '.join(code)}'>{code}</p>")
right.image(classes.qr_png(link), caption="Scan to join", width=200)
with st.expander("Your teacher link (keep it private: it controls the class)"):
    st.code(classes.teacher_link(code, secret), language=None, wrap_lines=True)
st.html("<style>.class-code{font-size:clamp(3rem,9vw,6rem);font-weight:700;letter-spacing:.15em;margin:0;"
        "font-family:monospace}.class-code-intro{font-size:1.3rem;margin:0}</style>")


def act(change, *args) -> None:
    try:
        change(code, secret, *args)
    except ClassError as error:
        st.session_state["_class_error"] = str(error)


number = st.select_slider("Step", list(range(1, last + 1)), value=state.step, key=f"class_step_{state.step}",
                          format_func=lambda n: f"{n} · {STEPS[n - 1].title}")
if number != state.step:
    act(store.go_to_step, number)
    st.rerun()
if message := st.session_state.pop("_class_error", None):
    st.error(message)

step = STEPS[state.step - 1]
view = lesson.step_view(step.number, key, state.text)
question = view.question
st.subheader(f"Step {step.number} of {last} · {step.title}")
st.markdown(f"**Goal.** {step.goal}")
lesson.draw(view.before)
st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
st.markdown("  ·  ".join(f"**{escape_markdown(o)}**" for o in question.options))


@st.fragment(run_every=classes.POLL_SECONDS)
def counts_line() -> None:
    classes.rerun_when_changed(store, code, lambda s: st.markdown(
        f"#### {joined_line(s.joined, s.voted, s.state.voting, s.state.round)}"))


st.session_state[classes.SEEN_KEY] = classes.drawn_state(state)
counts_line()

buttons = st.columns(5)
buttons[0].button("Open voting", type="primary", disabled=state.voting or state.revealed, width="stretch",
                  on_click=act, args=(store.open_voting,), icon=":material/how_to_vote:")
buttons[1].button("Close voting", disabled=not state.voting, width="stretch", on_click=act,
                  args=(store.close_voting,), icon=":material/lock:")
buttons[2].button("Show the spread", disabled=state.spread_shown, width="stretch", on_click=act,
                  args=(store.show_spread,), icon=":material/bar_chart:")
buttons[3].button("Round 2", disabled=state.round == 2 or state.revealed, width="stretch", on_click=act,
                  args=(store.second_round,), icon=":material/forum:", help="After neighbours discuss: vote again")
buttons[4].button("Reveal", disabled=state.revealed, width="stretch", on_click=act, args=(store.reveal,),
                  icon=":material/visibility:")

results = [round_result(question, r, store.counts(code, step.number, r)) for r in range(1, state.round + 1)]
if state.spread_shown and not state.revealed:
    shown = spread(question, store.counts(code, step.number, state.round))
    show_chart(vote_spread(shown.options, shown.counts, f"Round {state.round}: {shown.total} votes"), key="spread")
    st.info(teacher_advice(results[-1]), icon="🧭")
if state.revealed:
    columns = st.columns(len(results))
    for column, result in zip(columns, results):
        shown = spread(question, store.counts(code, step.number, result.round))
        column.metric(f"Round {result.round}: share right",
                      "no votes" if result.share_right is None else f"{result.share_right:.0%}",
                      f"{result.right} of {result.votes}", delta_color="off")
        with column:
            show_chart(vote_spread(shown.options, shown.counts, f"Round {result.round}"),
                       key=f"spread_round_{result.round}")
    st.success(escape_markdown(f"The model's answer: {question.answer}. {question.why}"), icon="🔎")
    lesson.reveal(view)

st.divider()


def csv_of_class() -> bytes:
    """Every vote so far, with each voted step's question as the model in use answers it on the class's text."""
    votes = store.all_votes(code, secret)
    steps = sorted({v.step for v in votes})
    counts = {(s, r): store.counts(code, s, r) for s in steps for r in (1, 2)}
    questions = {s: lesson.question(s, key, state.text, ask_tables=False) for s in steps}
    rows = [(v.step, v.round, v.number, v.nickname, v.option) for v in votes]
    return class_csv(questions, {k: c for k, c in counts.items() if c}, rows).encode()


low, high = st.columns(2)
CSV_KEY = "_class_csv"
if low.button("Prepare the class's answers (CSV)", width="stretch", icon=":material/table:"):
    try:
        st.session_state[CSV_KEY] = (code, csv_of_class(), time.strftime("%H:%M:%S"))
    except ClassError as error:
        st.error(str(error))
prepared = st.session_state.get(CSV_KEY)
if prepared and prepared[0] == code:
    low.download_button(f"Download the answers as of {prepared[2]}", prepared[1], file_name=f"class_{code}.csv",
                        mime="text/csv", on_click="ignore", width="stretch", icon=":material/download:")
with high.popover("End the class", icon=":material/delete:", width="stretch"):
    st.markdown("Ends the class for everyone and deletes every seat and vote at once. This cannot be undone.")
    if st.button("End it and delete its answers", type="primary", key="end_class"):
        try:
            store.end_class(code, secret)
        except ClassError as error:
            st.error(str(error))
        else:
            st.query_params.clear()
            st.rerun()
