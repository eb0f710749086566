"""Join a class: a seat from the teacher's code, the step the teacher shows, a vote with large tap targets, then
the class's spread and the model's answer when the teacher shows them."""

import streamlit as st

from classroom import codes
from classroom.errors import ClassError, UnknownClass
from explorer import classes, lesson
from explorer.charts import show_chart
from explorer.text import escape_markdown
from teaching.class_mode import spread
from teaching.steps import STEPS
from viz.classroom import vote_spread

st.title("🙋 Join a class")
store = classes.class_store()
if store is None:
    st.stop()
code, token = classes.param(classes.CLASS_PARAM).upper(), classes.param(classes.SEAT_PARAM)

seat = None
if code and token:
    try:
        seat = store.seat(code, token)
    except ClassError as error:   # a seat of an ended class, or a link cut short
        st.warning(str(error), icon="⚠️")

if seat is None:
    with st.form("join_class"):
        typed = st.text_input("Class code (on the teacher's screen)", value=code, max_chars=12, key="join_code")
        nickname = st.text_input(f"Nickname (optional, up to {codes.NICKNAME_MAX} characters)",
                                 max_chars=codes.NICKNAME_MAX, placeholder="none: you will be “Student n”")
        joined = st.form_submit_button("Join", type="primary", icon=":material/login:", width="stretch")
    if joined:
        wanted = codes.normal_code(typed)
        try:
            classes.check_code_tries()
            seat = store.join(wanted, nickname)
        except UnknownClass as error:
            classes.count_wrong_code(True)
            st.error(str(error), icon="🔢")
        except ClassError as error:
            st.error(str(error), icon="⚠️")
        else:
            classes.count_wrong_code(False)
            st.query_params.update({classes.CLASS_PARAM: wanted, classes.SEAT_PARAM: seat.token})
            st.rerun()
    st.stop()

try:
    snapshot = store.snapshot(code)
except ClassError as error:
    st.error(str(error))
    st.stop()
state = snapshot.state
st.session_state[classes.SEEN_KEY] = classes.drawn_state(state)
st.caption(escape_markdown(f"You are {seat.nickname} in class {code}. Keep this page's link to come back to "
                           "your seat."))

step = STEPS[state.step - 1]
view = lesson.step_view(step.number, classes.CLASS_MODEL_KEY, state.text)
question = view.question
st.subheader(f"Step {step.number} of {len(STEPS)} · {step.title}")
st.markdown(f"**Goal.** {step.goal}")
with st.expander("The numbers on the teacher's screen", expanded=True):
    lesson.draw(view.before)
st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")

mine = store.my_vote(code, token, state.step, state.round)
if state.voting:
    st.html("<style>.st-key-class_vote_options button{min-height:3.2rem;font-size:1.15rem}</style>")
    with st.container(key="class_vote_options"):
        for i, option in enumerate(question.options):
            if st.button(escape_markdown(option), key=f"vote_{state.step}_{state.round}_{i}", width="stretch",
                         type="primary" if option == mine else "secondary"):
                try:
                    store.vote(code, token, state.step, state.round, option, question.options)
                except ClassError as error:
                    st.error(str(error))
                else:
                    mine = option
if mine is not None:
    st.success(escape_markdown(f"Your vote is in (round {state.round}): {mine}."
                               + (" You can change it until voting closes." if state.voting else "")), icon="🗳️")
elif not state.voting and not state.revealed:
    st.info("Voting is not open. Talk it over; the teacher opens it.", icon="⏳")

if state.spread_shown and not state.revealed:
    shown = spread(question, store.counts(code, state.step, state.round))
    show_chart(vote_spread(shown.options, shown.counts, f"The class, round {state.round}"), key="spread")
if state.revealed:
    shown = spread(question, store.counts(code, state.step, state.round))
    show_chart(vote_spread(shown.options, shown.counts, f"The class, round {state.round}"), key="spread")
    right = mine is not None and question.grade(mine)
    st.success(escape_markdown(f"The model's answer: {question.answer}. {question.why}"), icon="🔎")
    if mine is not None:
        st.markdown("You were **right**." if right else "Yours was another answer: look at the numbers below.")
    lesson.draw(view.after)


@st.fragment(run_every=classes.POLL_SECONDS)
def waiting_line() -> None:
    classes.rerun_when_changed(store, code, lambda s: st.caption(
        f"{s.joined} joined · {s.voted} voted in round {s.state.round}"))


waiting_line()
