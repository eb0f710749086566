"""Join a class: a seat from the teacher's code, the step the teacher shows, a vote with large tap targets, then
the class's spread and the model's answer when the teacher shows them. The seat is a token in this page's link,
and the browser's own (explorer.classes.take_seat): a reload, a lost network, another replica, another tab or
the code typed again brings the student back to it."""

import streamlit as st

from classroom import codes
from classroom.errors import NO_SUCH_CODE, ClassError, UnknownClass, UnknownSeat
from classroom.store import PREDICT_STEP, RESULTS_STAGE, ClassStore
from explorer import class_predict, classes, lesson, quiz
from explorer.errors import InputError
from server.gate import fragment
from explorer.scroll import to_top_once
from explorer.text import escape_markdown
from teaching.class_mode import spread
from teaching.quiz_results import learner_result
from teaching.steps import STEPS
from viz.classroom import vote_spread

st.title("🙋 Join a class")


def join_form(store: ClassStore, code: str) -> None:
    with st.form("join_class"):
        typed = st.text_input(codes.CODE_LABEL, value=code, max_chars=12)
        nickname = st.text_input(codes.NICKNAME_LABEL, max_chars=codes.NICKNAME_MAX, placeholder="none: you will be “Student n”")
        joined = st.form_submit_button("Join", type="primary", width="stretch")
    if not joined:
        return
    wanted = codes.normal_code(typed)
    try:
        classes.check_code_tries()      # while this address waits: answered at once, the store not asked
        if not codes.is_code(wanted):   # not even the shape of a code: the same answer, without asking the store
            raise UnknownClass(NO_SUCH_CODE)
        token = classes.take_seat(store, wanted, nickname)
    except UnknownClass as error:
        classes.count_wrong_code()
        st.error(str(error), icon="🔢")
    except ClassError as error:
        st.error(str(error), icon="⚠️")
    else:
        st.query_params.from_dict({classes.CLASS_PARAM: wanted, classes.SEAT_PARAM: token})
        st.rerun()


VOTE_ERROR_KEY = "_class_vote_error"   # why the last vote pressed was not stored, for the run it starts


def vote_buttons(store: ClassStore, code: str, token: str, state, question, mine: str | None) -> None:
    """Large buttons, one per option; the one voted for is filled. A press is stored before the run it starts,
    so that run draws every button with the vote the store now holds."""
    def keep(option: str) -> None:
        try:
            store.vote(code, token, state.step, state.round, option, question.options)
        except ClassError as error:
            st.session_state[VOTE_ERROR_KEY] = str(error)

    st.html("<style>.st-key-class_vote_options button{min-height:3.2rem;font-size:1.15rem}</style>")
    if message := st.session_state.pop(VOTE_ERROR_KEY, None):
        st.error(message, icon="⚠️")
    with st.container(key="class_vote_options"):
        for i, option in enumerate(question.options):
            st.button(escape_markdown(option), key=f"vote_{state.step}_{state.round}_{i}", width="stretch",
                      type="primary" if option == mine else "secondary", on_click=keep, args=(option,))


QUIZ_ERROR_KEY = "_class_quiz_error"   # why the last answer picked was not stored, for the next run


def take_quiz(store: ClassStore, code: str, token: str, state) -> None:
    """The open quiz: each answer is stored the moment it is picked, and can be changed until the teacher closes
    the quiz."""
    form = state.open_form
    taken = quiz.class_quizzes(state.quiz_seed, state.text)[form]
    options = [i.question.options for i in taken.items]

    def keep(item: int, option: str) -> None:
        answers = [None] * len(taken.items)
        answers[item] = option
        try:
            store.hand_in(code, token, form, answers, options)
        except ClassError as error:
            st.session_state[QUIZ_ERROR_KEY] = str(error)

    st.header(f"The {form} quiz")
    if message := st.session_state.pop(QUIZ_ERROR_KEY, None):
        st.error(message, icon="⚠️")
    stored = store.my_answers(code, token, form)
    count = st.empty()
    st.markdown(f"{len(taken.items)} questions, each answered by the model itself. Each answer is kept the moment "
                "you pick it; an item left blank counts as wrong. Your score comes when the teacher closes the after "
                "quiz.")
    quiz.answer_each(taken, f"class_quiz_{form}", stored, keep)
    said = f"Your answers are in: {len(stored)} of {len(taken.items)}."
    (count.success if len(stored) == len(taken.items) else count.info)(
        f"{said} You can change them until the teacher closes the quiz." if stored else
        f"No answer yet: 0 of {len(taken.items)}.", icon="📨")


def quiz_result(store: ClassStore, code: str, token: str, state) -> None:
    """Once the after quiz is closed: this student's two scores, the gain and the items to look at again."""
    quizzes = quiz.class_quizzes(state.quiz_seed, state.text)
    mine = {f: store.my_answers(code, token, f) for f in quiz.FORMS}
    if not any(mine.values()):
        return
    listed = {f: [mine[f].get(i) for i in range(len(quizzes[f].items))] if mine[f] else None for f in quiz.FORMS}
    with st.expander("Your quiz result", expanded=True):
        quiz.show_result(learner_result(quizzes["before"], quizzes["after"], listed["before"], listed["after"]))


def in_class(store: ClassStore, code: str, token: str, seat) -> None:
    state = store.snapshot(code).state
    st.session_state[classes.SEEN_KEY] = classes.drawn_state(state)
    st.caption(escape_markdown(f"You are {seat.nickname} in class {code}. Keep this page's link to come back to "
                               "your seat."))
    if state.open_form is not None:
        take_quiz(store, code, token, state)
    else:
        if state.quiz_stage == RESULTS_STAGE:
            quiz_result(store, code, token, state)
        step_screen(store, code, token, state)
    poll(store, code)


def step_screen(store: ClassStore, code: str, token: str, state) -> None:
    """The step the teacher shows. At the reveal the model's answer and the student's own result come first, so a
    phone shows them without scrolling; the numbers they were asked about move below."""
    if state.step == PREDICT_STEP:
        class_predict.student_step(store, code, token, state, vote_buttons)
        return
    step = STEPS[state.step - 1]
    view = lesson.step_view(step.number, classes.CLASS_MODEL_KEY, state.text)
    question = view.question
    st.header(f"Step {step.number} of {len(STEPS)} · {step.title}")
    mine = store.my_vote(code, token, state.step, state.round) if question is not None else None
    revealed = state.revealed and question is not None
    if revealed:
        to_top_once(f"{code}-{state.step}-{state.round}")   # a phone was scrolled down to the buttons
        st.success(escape_markdown(f"{question.answer_line} {question.why}"), icon="🔎")
        if mine is not None:
            st.markdown("You were **right**." if question.grade(mine) else
                        "Yours was another answer: look at the numbers below.")
    else:
        st.markdown(f"**Goal.** {step.goal}")
    with st.expander("The numbers on the teacher's screen", expanded=not revealed):
        lesson.draw(view.before, narrow=True)
    if question is None:
        st.info("No question on this step: wait for the teacher's next one.", icon="⏳")
        return
    st.markdown(f"**{'The question' if revealed else 'Predict first'}.** {escape_markdown(question.prompt)}")
    if state.voting:
        vote_buttons(store, code, token, state, question, mine)
    if mine is not None:
        st.success(escape_markdown(f"Your vote is in (round {state.round}): {mine}."
                                   + (" You can change it until voting closes." if state.voting else "")),
                   icon="🗳️")
    elif not state.voting and not state.revealed:
        st.info("Voting is not open. Talk it over; the teacher opens it.", icon="⏳")
    if state.spread_shown:
        shown = spread(question, store.counts(code, state.step, state.round))
        st.html(vote_spread(shown.options, shown.counts, f"The class, round {state.round}"))
    if revealed:
        lesson.draw(view.after, narrow=True)


def poll(store: ClassStore, code: str) -> None:
    @fragment(run_every=classes.STUDENT_POLL_SECONDS)
    def waiting_line() -> None:
        classes.rerun_when_changed(store, code, lambda s: st.caption(
            f"{s.joined} joined · {s.handed_in} handed in the {s.state.open_form} quiz" if s.state.open_form else
            f"{s.joined} joined · {s.voted} voted in round {s.state.round}"))

    waiting_line()


store = classes.class_store()
if store is None:
    st.stop()
code, token = classes.param(classes.CLASS_PARAM).upper(), classes.param(classes.SEAT_PARAM)
seat = None
try:
    if codes.is_code(code) and not token:
        token = classes.held_seat_token(store, code)    # this browser's seat: the join link again, another tab
        if token:
            st.query_params[classes.SEAT_PARAM] = token
    if code and token:
        seat = store.seat(code, token)
except ClassError as error:   # a seat removed or of an ended class, a link cut short, or the store gone
    if isinstance(error, UnknownSeat):
        classes.forget_seat(code)
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
