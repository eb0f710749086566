"""Run a class: start one, project its join code, step through the lesson while the class votes, discusses,
votes again, and the model reveals. The teacher's secret never stays in the address bar of the projected page:
it is kept in this session, and the private link that holds it sits in a closed expander."""

import html
import time

import streamlit as st

from classroom.errors import ClassError, UnknownClass, WrongSecret
from classroom.store import ClassStore
from explorer import classes, lesson
from explorer.cache import checkpoint_for
from explorer.charts import show_chart
from explorer.errors import InputError
from explorer.text import escape_markdown
from teaching.class_mode import class_csv, joined_line, round_result, spread, teacher_advice
from teaching.steps import STEPS
from viz.classroom import vote_spread

st.title("📣 Run a class")
CSV_KEY, ERROR_KEY = "_class_csv", "_class_error"


def start_form(store: ClassStore) -> None:
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
            st.session_state[classes.TEACHING_KEY] = (new.code, new.secret)
            st.query_params.from_dict({classes.CLASS_PARAM: new.code})
            st.rerun()


def header(code: str, secret: str) -> None:
    link = classes.join_link(code)
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.html(f"<p class='class-code-intro'>Join at <b>{html.escape(link)}</b> with the code</p>"
              f"<p class='class-code' aria-label='join code {' '.join(code)}'>{html.escape(code)}</p>")
    right.image(classes.qr_png(link), caption="Scan to join", width=200)
    with st.expander("Your private teacher link (not while projecting: whoever has it controls the class)"):
        st.markdown("Open it to take the class back after a reload, or from another device.")
        st.code(classes.teacher_link(code, secret), language=None, wrap_lines=True)
    st.html("<style>.class-code{font-size:clamp(3rem,9vw,6rem);font-weight:700;letter-spacing:.15em;margin:0;"
            "font-family:monospace}.class-code-intro{font-size:1.3rem;margin:0}</style>")


def controls(store: ClassStore, code: str, secret: str, state) -> None:
    def act(change, *args) -> None:
        try:
            change(code, secret, *args)
        except ClassError as error:
            st.session_state[ERROR_KEY] = str(error)

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


def csv_of_class(store: ClassStore, code: str, secret: str, text: str) -> bytes:
    """Every vote so far, with each voted step's question as the model answers it on the class's text."""
    votes = store.all_votes(code, secret)
    steps = sorted({v.step for v in votes})
    counts = {(s, r): store.counts(code, s, r) for s in steps for r in (1, 2)}
    questions = {s: lesson.question(s, classes.CLASS_MODEL_KEY, text, ask_tables=False) for s in steps}
    rows = [(v.step, v.round, v.number, v.nickname, v.option) for v in votes]
    return class_csv({s: q for s, q in questions.items() if q is not None}, {k: c for k, c in counts.items() if c},
                     rows).encode()


def run_class(store: ClassStore, code: str, secret: str) -> None:
    state = store.teacher_state(code, secret)
    header(code, secret)
    last = len(STEPS)
    number = st.select_slider("Step", list(range(1, last + 1)), value=state.step, key=f"class_step_{state.step}",
                              format_func=lambda n: f"{n} · {STEPS[n - 1].title}")
    if number != state.step:
        store.go_to_step(code, secret, number)
        st.rerun()
    if message := st.session_state.pop(ERROR_KEY, None):
        st.error(message)

    step = STEPS[state.step - 1]
    view = lesson.step_view(step.number, classes.CLASS_MODEL_KEY, state.text)
    question = view.question
    st.subheader(f"Step {step.number} of {last} · {step.title}")
    st.markdown(f"**Goal.** {step.goal}")
    lesson.draw(view.before)
    if question is None:
        st.info("This step has no question for this model: move to another step.", icon="ℹ️")
        return
    st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
    st.markdown("  ·  ".join(f"**{escape_markdown(o)}**" for o in question.options))

    @st.fragment(run_every=classes.TEACHER_POLL_SECONDS)
    def counts_line() -> None:
        classes.rerun_when_changed(store, code, lambda s: st.markdown(
            f"#### {joined_line(s.joined, s.voted, s.state.voting, s.state.round)}"))

    st.session_state[classes.SEEN_KEY] = classes.drawn_state(state)
    counts_line()
    controls(store, code, secret, state)

    counts = {r: store.counts(code, step.number, r) for r in range(1, state.round + 1)}
    results = [round_result(question, r, counts[r]) for r in counts]
    if state.spread_shown and not state.revealed:
        shown = spread(question, counts[state.round])
        votes = f"{shown.total} vote{'' if shown.total == 1 else 's'}"
        show_chart(vote_spread(shown.options, shown.counts, f"Round {state.round}: {votes}"), key="spread")
        st.info(teacher_advice(results[-1]), icon="🧭")
    if state.revealed:
        for column, result in zip(st.columns(len(results)), results):
            shown = spread(question, counts[result.round])
            column.metric(f"Round {result.round}: share right",
                          "no votes" if result.share_right is None else f"{result.share_right:.0%}",
                          f"{result.right} of {result.votes} votes", delta_color="off", delta_arrow="off")
            with column:
                show_chart(vote_spread(shown.options, shown.counts, f"Round {result.round}"),
                           key=f"spread_round_{result.round}")
        st.success(escape_markdown(f"The model's answer: {question.answer}. {question.why}"), icon="🔎")
        lesson.reveal(view)

    st.divider()
    low, high = st.columns(2)
    if low.button("Prepare the class's answers (CSV)", width="stretch", icon=":material/table:"):
        st.session_state[CSV_KEY] = (code, csv_of_class(store, code, secret, state.text), time.strftime("%H:%M:%S"))
    prepared = st.session_state.get(CSV_KEY)
    if prepared and prepared[0] == code:
        low.download_button(f"Download the answers as of {prepared[2]}", prepared[1], file_name=f"class_{code}.csv",
                            mime="text/csv", on_click="ignore", width="stretch", icon=":material/download:")
    with high.popover("End the class", icon=":material/delete:", width="stretch"):
        st.markdown("Ends the class for everyone and deletes every seat and vote at once. This cannot be undone.")
        if st.button("End it and delete its answers", type="primary", key="end_class"):
            store.end_class(code, secret)
            st.session_state.pop(classes.TEACHING_KEY, None)
            st.query_params.clear()
            st.rerun()


store = classes.class_store()
if store is None:
    st.stop()
if classes.TEACHER_PARAM in st.query_params:   # the private link: its secret moves into this session and out
    linked_secret = classes.param(classes.TEACHER_PARAM)   # of the address bar
    if linked_secret:
        st.session_state[classes.TEACHING_KEY] = (classes.param(classes.CLASS_PARAM).upper(), linked_secret)
    del st.query_params[classes.TEACHER_PARAM]
code, secret = st.session_state.get(classes.TEACHING_KEY, ("", ""))
if classes.param(classes.CLASS_PARAM).upper() not in ("", code):
    code, secret = "", ""   # another class's code in the link: this session does not control it

if not (code and secret):
    if classes.param(classes.CLASS_PARAM):
        st.warning("This page controls a class only after its private teacher link was opened in this browser "
                   "session. Open that link, or start a new class below.", icon="🔒")
    start_form(store)
else:
    try:
        run_class(store, code, secret)
    except (WrongSecret, UnknownClass) as error:   # a wrong link, or a class ended: this session lets it go
        st.session_state.pop(classes.TEACHING_KEY, None)
        st.error(str(error), icon="🔒")
        start_form(store)
    except ClassError as error:
        st.error(str(error), icon="🛑")
    except InputError as error:   # a class's text the model in use can no longer read
        st.error(escape_markdown(f"This class's text cannot be shown: {error}"), icon="✏️")
