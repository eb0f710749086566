"""Class mode's step after the lesson, predict then train (teaching.predict_train): the teacher's controls, the
run of the class's model written into the class's row as the teacher's session trains it, and what the
projector and the students' phones draw from that row, whichever replica serves them."""

from __future__ import annotations

import time
from dataclasses import replace

import streamlit as st

from analysis.prediction import followed
from classroom.errors import ClassError
from classroom.store import PREDICT_STEP, ClassState, ClassStore
from server.gate import fragment
from teaching.class_mode import round_result, spread, teacher_advice
from teaching.predict_train import (
    ClassTask, Prediction, Run, example_matches, followed_numbers, prediction, thinned,
)
from transformer.task_rules import TaskSpecError
from viz.attention import weights_spec
from viz.classroom import vote_spread
from viz.plotly_charts import HEIGHT
from viz.training import live_curves

from . import live_runs
from .charts import plotly_chart
from .classes import share_right, teacher_controls
from .components import canvas_heatmap
from .live_training import LiveSettings, LiveSettingsError
from .own_task import own_task
from .text import escape_markdown

TITLE = "Predict, then train: a task of the class's own"
GOAL = ("Before a model learns a new task, predict where its attention will look; then watch it learn in a minute "
        "and see whether it looks there.")
RUN_KEY = "_class_run"         # (code, task text) of the class whose model this session's live run trains
WRITTEN_KEY = "_class_run_written"   # when this session last wrote the run into the class's row
WRITE_EVERY = 2.0              # seconds between writes of a run in progress (each is one UPDATE)
ERROR_KEY = "_class_predict_error"
PROJECTED_ANSWER_PX = 250      # the answer's heatmap on the room's screen
PROJECTED_CURVE_PX = 200       # and the run's curve, before projector mode's type grows it
PROJECTED_RIGHT_CSS = ("<style>.st-key-predict_answered :is(p, li, figure){font-size:.8rem !important}"
                       ".st-key-predict_answered .class-count{font-size:1.2rem !important}</style>")
# the count, the answer and four bars in the right half of 720 px (as teaching.class_mode.projected_scales does
# for the lesson's steps)


def asked(state: ClassState) -> tuple[Prediction | None, Run | None, str | None]:
    """The class's question, its run, and why there is no question (a task it cannot ask about)."""
    task = ClassTask.from_text(state.task)
    if task is None:
        return None, None, None
    try:
        return prediction(task), Run.from_text(state.training), None
    except TaskSpecError as err:
        return None, None, str(err)


def _act(change, *args) -> None:
    try:
        change(*args)
    except ClassError as error:
        st.session_state[ERROR_KEY] = str(error)


def _set_task(store: ClassStore, code: str, secret: str, task: ClassTask) -> None:
    if st.session_state.pop(RUN_KEY, None) is not None:   # a run for the last task would hold the lane for nothing
        live_runs.stop()
    _act(store.set_task, code, secret, task.to_text())


def trains_here(code: str, state: ClassState) -> bool:
    """Whether this session's live run is the one training the class's model."""
    live = live_runs.current()
    return live is not None and not live.progress.done and st.session_state.get(RUN_KEY) == (code, state.task)


def _train(store: ClassStore, code: str, secret: str, state: ClassState) -> None:
    """on_click of Train: the quick recipe in this (the teacher's) session, its run written into the row."""
    task = ClassTask.from_text(state.task)
    try:
        settings = LiveSettings.for_task(task.spec)
        live = live_runs.start(settings)
    except (LiveSettingsError, live_runs.AlreadyTraining, TaskSpecError) as err:
        st.session_state[ERROR_KEY] = str(err)
        return
    st.session_state[RUN_KEY] = (code, state.task)
    _act(store.record_training, code, secret, _run_of(live).to_text())


def _run_of(live) -> Run:
    p = live.progress
    status = {"waiting": "training", "running": "training"}.get(p.status, p.status)
    waiting = f"waiting for its turn in the server's line ({p.ahead} ahead)" if p.status == "waiting" else ""
    return Run(status, p.step, p.steps, p.seconds, thinned(p.loss), tuple(p.exact_match), p.message or waiting,
               time_limit=p.time_limit)


def write_run(store: ClassStore, code: str, secret: str, state: ClassState) -> Run | None:
    """This session's run of the class's model into the class's row: every WRITE_EVERY seconds while it trains,
    then once more when it ends, with what the trained model's last layer follows."""
    live = live_runs.current()
    if live is None or st.session_state.get(RUN_KEY) != (code, state.task):
        return None
    run = _run_of(live)
    stored = Run.from_text(state.training)
    if stored is not None and stored.done:
        return stored
    if run.done and live.result is not None and run.status != "failed":
        ask = prediction(ClassTask.from_text(state.task))
        found = followed(live.result, ask.task.spec, ask.patterns, ask.text)
        held = live.result.metrics["held_out"]
        run = replace(run, followed=followed_numbers(found), final=held["exact_match"], final_n=held["n"])
    if run.done or time.monotonic() - st.session_state.get(WRITTEN_KEY, 0.0) >= WRITE_EVERY:
        st.session_state[WRITTEN_KEY] = time.monotonic()
        _act(store.record_training, code, secret, run.to_text())
    return run


def draw_run(run: Run | None, key: str, narrow: bool = False, compact: bool = False) -> None:
    """The run as every screen shows it: how far, and the curves (compact: exact match alone, for the room)."""
    if run is None:
        st.caption("No model has trained on this task yet.")
        return
    exact = run.exact[-1][1] if run.exact else 0.0
    if run.status == "training":
        st.progress(run.fraction,
                    text=f"Training, {run.message}" if run.message else
                    f"Training: step {run.step:,}, {run.seconds:.0f} s, held-out exact match {exact:.0%}")
    elif run.status == "failed":
        st.error(escape_markdown(f"The run failed: {run.message}"), icon="⚠️")
    else:
        st.markdown(run.ended_short if compact else run.ended)
    drawn = live_curves(run.loss, run.exact, run.step if run.done else run.steps,   # a run that ended: its steps
                        height=PROJECTED_CURVE_PX if compact else HEIGHT)
    charts = list(zip(("loss", "match"), drawn))
    if compact:
        charts = charts[-1:]
    places = [None] * len(charts) if narrow or compact else st.columns(max(len(charts), 1))   # a phone: one
    for place, (name, chart) in zip(places, charts):                                           # under the other
        plotly_chart(chart, key=f"{key}_{name}", container=place)


def draw_answer(ask: Prediction, run: Run, key: str, height: int | None = None) -> None:
    """The trained model's attention on the example text, for the option it follows, beside the answer
    (`height`: the room's screen, where it shares 720 px with the vote)."""
    numbers = run.followed
    best = max(numbers["shares"], key=numbers["shares"].get)
    label = next(o.label for o in ask.patterns if o.rule == best)
    whose = "Its" if height else "The trained model's"   # the room's screen: a title of one line
    spec = weights_spec(numbers["weights"], numbers["rows"], numbers["cols"],
                        f"{whose} last layer, head {numbers['heads'][best]}, on “{ask.text}”",
                        query_title="output step (what it writes)", key_title="source position", height=height)
    canvas_heatmap(spec, key)
    if height is None:   # the room's screen has no line to spare: the phones and the teacher's screen say it
        positions = next(o.positions for o in ask.patterns if o.rule == best)
        hits, steps = example_matches(numbers["weights"], positions)
        st.caption(f"On “{ask.text}”, {hits} of {steps} output steps put their largest weight on {label} (the "
                   "end step reads no character and is not counted).")


def teacher_step(store: ClassStore, code: str, secret: str, state: ClassState, counts_line) -> None:
    """The teacher's screen of the step: the task, the vote, the run, the reveal."""
    st.header(f"Step {PREDICT_STEP} · {TITLE}")
    st.markdown(f"**Goal.** {GOAL}")
    if message := st.session_state.pop(ERROR_KEY, None):
        st.error(escape_markdown(message), icon="✋")
    ask, run, why_not = asked(state)
    with st.expander("The class's task: set a new one" if ask else "Set the class's task", expanded=ask is None):
        spec = own_task(ask.task.rule if ask else "rotate:2")
        if spec is not None:
            st.button("Ask the class about this task", type="primary", key="class_set_task",
                      on_click=_set_task, args=(store, code, secret, ClassTask.of(spec)),
                      help="A new question: its votes and any model trained for the last task go.")
    if why_not:
        st.error(escape_markdown(f"The class's task cannot be asked about: {why_not}"), icon="✋")
    if ask is None:
        return
    st.markdown(f"**Predict first.** {escape_markdown(ask.prompt)}")
    st.markdown("  ·  ".join(f"**{escape_markdown(o)}**" for o in ask.options))
    counts_line(store, code, state)
    measured = run is not None and bool(run.followed)
    # again once a run failed, or when no session of this browser trains it any more (its tab closed mid-run:
    # the lane says so if one still does)
    trainable = not state.voting and not state.revealed and (
        run is None or run.status == "failed" or (not run.done and not trains_here(code, state)))

    def train_button(column) -> None:
        column.button("Train the model", disabled=not trainable, width="stretch",
                      type="primary" if trainable else "secondary", key="predict_train",
                      on_click=_train, args=(store, code, secret, state),
                      help="Close voting first: the class commits before it sees the model learn. About a minute.")

    teacher_controls(store, code, secret, state, ERROR_KEY, key="predict_", train=train_button,
                     reveal_ready=measured, reveal_help="Once the model has trained: where its attention looks, "
                                                        "beside the vote.")

    @fragment(run_every=1.0 if run is not None and not run.done else None)
    def training() -> None:
        now = store.teacher_state(code, secret)
        drawn = write_run(store, code, secret, now) or Run.from_text(now.training)
        draw_run(drawn, "predict_teacher")
        if drawn is not None and drawn.followed and not (run is not None and run.followed):
            st.rerun(scope="app")   # measured: the Reveal button may be pressed now

    training()
    counts = {r: store.counts(code, PREDICT_STEP, r) for r in range(1, state.round + 1)}
    question = ask.question(run)
    if state.spread_shown and not state.revealed:
        shown = spread(ask, counts[state.round])
        st.html(vote_spread(shown.options, shown.counts, f"Round {state.round}: {shown.total} votes"))
        if question is not None:
            st.info(teacher_advice(round_result(question, state.round, counts[state.round])), icon="🧭")
    if state.revealed and question is not None:
        st.success(escape_markdown(f"{question.answer_line} {question.why}"), icon="🔎")
        results = [round_result(question, r, counts[r]) for r in counts]
        for column, result in zip(st.columns(len(results)), results):
            share_right(column, result)
        left, right = st.columns(2)
        with left:
            shown = spread(ask, counts[state.round])
            st.html(vote_spread(shown.options, shown.counts, f"The class, round {state.round}"))
        with right:
            draw_answer(ask, run, "predict_answer_teacher")


def projected_step(store: ClassStore, code: str, state: ClassState, projected_count) -> None:
    """What the room sees on one 1280 × 720 screen: the question (then the answer and the model's attention)
    beside the count, the spread and the run's exact match as it trains."""
    st.subheader(f"Step {PREDICT_STEP} · {TITLE}")
    ask, run, why_not = asked(state)
    if ask is None:
        st.markdown(f"**Goal.** {GOAL}" if why_not is None else escape_markdown(why_not))
        return
    question = ask.question(run)
    revealed = state.revealed and question is not None
    st.html(PROJECTED_RIGHT_CSS)
    left, column = st.columns(2, gap="large")
    right = column.container(key="predict_answered")
    with left:   # the question while the class votes, the run while the model trains, then its attention
        if revealed:
            draw_answer(ask, run, "predict_projected_answer", height=PROJECTED_ANSWER_PX)
        elif run is None:
            st.markdown(f"**Predict first.** {escape_markdown(ask.prompt)}")
        else:
            followed_run(store, code, "predict_projected", run, compact=True)
    with right:
        projected_count(store, code)
        if revealed:
            share, head = ask.measured(run, question.answer)
            st.success(escape_markdown(f"The model's answer: {question.answer} (head {head}, at {share:.0%} of the "
                                       "output steps)."), icon="🔎")
        counts = store.counts(code, PREDICT_STEP, state.round)
        if state.spread_shown or state.revealed:
            shown = spread(ask, counts)
            st.html(vote_spread(shown.options, shown.counts, f"Round {state.round}: {shown.total} votes",
                                label_share=40))
        else:
            st.markdown("\n".join(f"- **{escape_markdown(o)}**" for o in ask.options))


def followed_run(store: ClassStore, code: str, key: str, run: Run | None, narrow: bool = False,
                 compact: bool = False) -> None:
    """The run, read from the class's row every two seconds while it trains; the page reruns once it ends."""
    @fragment(run_every=2.0 if run is not None and not run.done else None)
    def polled() -> None:
        now = Run.from_text(store.snapshot(code).state.training)
        draw_run(now, key, narrow, compact)
        if now is not None and now.done and not (run is not None and run.done):
            st.rerun(scope="app")

    polled()


def student_step(store: ClassStore, code: str, token: str, state: ClassState, vote_buttons) -> None:
    """A student's phone: the question and the vote, the run as it trains, then the answer and their own."""
    st.header(f"Step {PREDICT_STEP} · {TITLE}")
    ask, run, why_not = asked(state)
    if ask is None:
        st.info("The teacher has not set the class's task yet: wait for it." if why_not is None else
                escape_markdown(why_not), icon="⏳")
        return
    question = ask.question(run)
    mine = store.my_vote(code, token, PREDICT_STEP, state.round)
    revealed = state.revealed and question is not None
    if revealed:
        st.success(escape_markdown(f"{question.answer_line} {question.why}"), icon="🔎")
        if mine is not None:
            st.markdown(escape_markdown(f"You chose {mine} ({ask.share_of(run, mine)}): ") +
                        ("you were **right**." if question.grade(mine) else
                         escape_markdown(f"the model follows {question.answer} "
                                         f"({ask.share_of(run, question.answer)}).")))
        draw_answer(ask, run, "predict_student_answer")
    st.markdown(f"**{'The question' if revealed else 'Predict first'}.** {escape_markdown(ask.prompt)}")
    if state.voting:
        vote_buttons(store, code, token, state, ask, mine)
    if mine is not None:
        st.success(escape_markdown(f"Your vote is in (round {state.round}): {mine}."
                                   + (" You can change it until voting closes." if state.voting else "")), icon="🗳️")
    elif not state.voting and not revealed and run is None:
        st.info("Voting is not open. Talk it over; the teacher opens it.", icon="⏳")
    if run is not None and run.followed and not revealed:
        st.info("The model has trained. Wait for the teacher's reveal.", icon="⏳")
    if state.spread_shown:
        shown = spread(ask, store.counts(code, PREDICT_STEP, state.round))
        st.html(vote_spread(shown.options, shown.counts, f"The class, round {state.round}"))
    followed_run(store, code, "predict_student", run, narrow=True)
