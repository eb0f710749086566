"""Join a class: a seat from the teacher's code, the step the teacher shows, a vote with large tap targets, then
the class's spread and the model's answer when the teacher shows them. The seat is a token in this page's link
(and this session), so a reload, a lost network or another replica brings the student back to it."""

import streamlit as st

from classroom import codes
from classroom.errors import NO_SUCH_CODE, ClassError, UnknownClass
from classroom.store import ClassStore
from explorer import classes, lesson
from explorer.charts import show_chart
from explorer.errors import InputError
from explorer.text import escape_markdown
from teaching.class_mode import spread
from teaching.steps import STEPS
from viz.classroom import vote_spread

st.title("🙋 Join a class")


def join_form(store: ClassStore, code: str) -> None:
    with st.form("join_class"):
        typed = st.text_input("Class code (on the teacher's screen)", value=code, max_chars=12)
        nickname = st.text_input(f"Nickname (optional, up to {codes.NICKNAME_MAX} characters)",
                                 max_chars=codes.NICKNAME_MAX, placeholder="none: you will be “Student n”")
        joined = st.form_submit_button("Join", type="primary", icon=":material/login:", width="stretch")
    if not joined:
        return
    wanted = codes.normal_code(typed)
    try:
        classes.check_code_tries()
        if not codes.is_code(wanted):   # not even the shape of a code: the same answer, without asking the store
            raise UnknownClass(NO_SUCH_CODE)
        seat = store.join(wanted, nickname)
    except UnknownClass as error:
        classes.count_wrong_code(True)
        st.error(str(error), icon="🔢")
    except ClassError as error:
        st.error(str(error), icon="⚠️")
    else:
        classes.count_wrong_code(False)
        st.session_state[classes.SEATS_KEY] = {**st.session_state.get(classes.SEATS_KEY, {}), wanted: seat.token}
        st.query_params.from_dict({classes.CLASS_PARAM: wanted, classes.SEAT_PARAM: seat.token})
        st.rerun()


def vote_buttons(store: ClassStore, code: str, token: str, state, question, mine: str | None) -> str | None:
    """Large buttons, one per option; the one voted for is filled. Returns the vote as the store now holds it."""
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
    return mine


def in_class(store: ClassStore, code: str, token: str, seat) -> None:
    state = store.snapshot(code).state
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
    if question is None:
        st.info("No question on this step: wait for the teacher's next one.", icon="⏳")
    else:
        st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
        mine = store.my_vote(code, token, state.step, state.round)
        if state.voting:
            mine = vote_buttons(store, code, token, state, question, mine)
        if mine is not None:
            st.success(escape_markdown(f"Your vote is in (round {state.round}): {mine}."
                                       + (" You can change it until voting closes." if state.voting else "")),
                       icon="🗳️")
        elif not state.voting and not state.revealed:
            st.info("Voting is not open. Talk it over; the teacher opens it.", icon="⏳")
        if state.spread_shown:
            shown = spread(question, store.counts(code, state.step, state.round))
            show_chart(vote_spread(shown.options, shown.counts, f"The class, round {state.round}"), key="spread")
        if state.revealed:
            st.success(escape_markdown(f"The model's answer: {question.answer}. {question.why}"), icon="🔎")
            if mine is not None:
                st.markdown("You were **right**." if question.grade(mine) else
                            "Yours was another answer: look at the numbers below.")
            lesson.draw(view.after)

    @st.fragment(run_every=classes.STUDENT_POLL_SECONDS)
    def waiting_line() -> None:
        classes.rerun_when_changed(store, code, lambda s: st.caption(
            f"{s.joined} joined · {s.voted} voted in round {s.state.round}"))

    waiting_line()


store = classes.class_store()
if store is None:
    st.stop()
code, token = classes.param(classes.CLASS_PARAM).upper(), classes.param(classes.SEAT_PARAM)
if code and not token and code in st.session_state.get(classes.SEATS_KEY, {}):
    token = st.session_state[classes.SEATS_KEY][code]     # joining again from this session: the same seat
    st.query_params[classes.SEAT_PARAM] = token

seat = None
if code and token:
    try:
        seat = store.seat(code, token)
    except ClassError as error:   # a seat of an ended class, a link cut short, or the store gone
        st.warning(str(error), icon="⚠️")

if seat is None:
    join_form(store, code if codes.is_code(codes.normal_code(code)) else "")
else:
    try:
        in_class(store, code, token, seat)
    except ClassError as error:
        st.error(str(error), icon="⚠️")
    except InputError as error:   # a class's text the model in use can no longer read
        st.error(escape_markdown(f"This class's text cannot be shown: {error}"), icon="✏️")
