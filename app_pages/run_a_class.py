"""Run a class: start one, project its join code, step through the lesson while the class votes, discusses,
votes again, and the model reveals. The teacher's secret never stays in the address bar of the projected page:
it is kept in this session, and the private link that holds it sits in a closed expander, which projector mode
leaves out."""

import base64
import html
import time

import streamlit as st

from classroom import codes
from classroom.codes import NICKNAME_MAX
from classroom.errors import NO_SUCH_CODE, ClassError, UnknownClass, WrongSecret
from classroom.store import OPEN_FORM, PREDICT_STEP, QUIZ_STAGES, ClassStore
from explorer import class_predict, classes, lesson, quiz
from explorer.cache import checkpoint_for
from explorer.charts import projector_on
from explorer.errors import InputError
from server.gate import fragment
from explorer.text import escape_markdown
from teaching.class_mode import (
    joined_line, projected_line, projected_scales, round_result, spread, teacher_advice,
)
from teaching.gradebook import Gradebook, Roster, Vote, gradebook, gradebook_xlsx, table_csv
from teaching.predict_train import ClassTask, Run, prediction
from teaching.quiz_results import MIN_FOR_INTERVAL, gain_words
from teaching.steps import STEPS
from viz.classroom import vote_spread
from viz.quiz import score_spread, share_right_by_item

CSV_KEY, ERROR_KEY = "_class_csv", "_class_error"
KEEP_LINK_KEY = "_class_keep_link"   # the code of the class just started, until its teacher kept the link
REMOVED_KEY, PICKED_SEAT_KEY = "_class_removed", "_seat_to_remove"   # what was done to a seat, the seat picked
NEW_NAME_KEY = "_seat_new_name"


def start_form(store: ClassStore) -> None:
    st.markdown(
        "Project this page; students join on their phones with a code. For each step of the lesson: open voting, "
        "everyone commits to an answer, show the spread (the right answer is not marked), let neighbours argue, "
        "open a second round, then reveal the model's own answer. This is peer instruction; the share right in "
        "each round tells you what to do next.")
    ckpt = checkpoint_for(classes.CLASS_MODEL_KEY)
    with st.form("start_class"):
        text = st.text_input("The class's text: every screen shows the model's numbers for it", value=classes.CLASS_TEXT,
                             max_chars=ckpt.model.config.max_len)
        started = st.form_submit_button("Start a class", type="primary")
    if started:
        try:
            ckpt.vocab.encode(text, ckpt.model.config.max_len)
            classes.count_new_class()
            new = classes.start_class(store, text)
        except InputError as error:
            st.error(escape_markdown(str(error)), icon="✏️")
        except ClassError as error:
            st.error(str(error), icon="🛑")
        else:
            st.session_state[classes.TEACHING_KEY] = (new.code, new.secret)
            st.session_state[KEEP_LINK_KEY] = new.code
            st.query_params.from_dict({classes.CLASS_PARAM: new.code})
            st.rerun()


def keep_the_link(code: str, secret: str) -> bool:
    """Before the class starts, once: the teacher keeps the recovery link (for another device; this browser gets
    the class back by itself). True once they have, or chose to go on."""
    if st.session_state.get(KEEP_LINK_KEY) != code:
        return True
    with st.container(border=True, key="keep_link"):
        st.subheader("Before the class starts: keep your recovery link")
        cookieless = classes.taught_here(classes.class_store(), code) is None
        st.markdown("This browser gets the class back by itself after a reload, a sleep or a server restart. "
                    + ("**This browser did not accept the app's cookie, so the link is the only way back.** "
                       if cookieless else "") +
                    "From another device (your phone, a colleague's laptop), only this link opens it: keep it "
                    "where the room cannot see it. Whoever has it controls the class.")
        link = classes.teacher_link(code, secret)       # never projected: in projector mode the page is the
        st.code(link, language=None, wrap_lines=True)    # projector view
        st.download_button("Save the link as a file", f"Recovery link of class {code}: {link}\n",
                           file_name=f"class_{code}_recovery_link.txt", mime="text/plain", on_click="ignore")
        st.button("I have kept it: start the class", type="primary", key="link_kept",
                  on_click=st.session_state.pop, args=(KEEP_LINK_KEY, None))
    return False


def header(code: str, secret: str) -> None:
    """The presenter's header: the code, the link and QR for a check, where the link reaches, the projector
    view's link, and the private link in a closed expander."""
    link = classes.join_link(code)
    left, right = st.columns([3, 1], vertical_alignment="center")
    left.html(f"<p class='class-code-intro'>Join at <b>{html.escape(link)}</b> with the code</p>"
              f"<p class='class-code' aria-label='join code {' '.join(code)}'>{html.escape(code)}</p>")
    qr = base64.b64encode(classes.qr_png(link)).decode()   # an <img> of our own: st.image's has no alt text
    right.html(f"<figure class='class-qr-figure'><img class='class-qr' src='data:image/png;base64,{qr}' width='160' "
               f"height='160' alt='QR code of the join link {html.escape(link)}'><figcaption>Scan to join"
               "</figcaption></figure>")
    base = classes.join_base()
    if not base.reachable:     # the likeliest way a first class fails: a link every phone opens on itself
        st.warning(base.note, icon="📵")
    else:
        st.caption(base.note)
    st.link_button("Open the projector view in a new tab ↗", classes.projector_link(code), type="primary",
                   help="For the room: the code and QR always in view, the question, the count, the spread and the "
                        "reveal, on one 1280 × 720 screen, and never your private link. This page stays yours: "
                        "on your laptop's screen, or on your phone through the recovery link.")
    with st.expander("Your private teacher link (not while projecting: whoever has it controls the class)"):
        st.markdown("Open it to take the class back from another device (your phone, as a remote).")
        st.code(classes.teacher_link(code, secret), language=None, wrap_lines=True)
    st.html(CODE_CSS)


CODE_CSS = ("<style>.class-code{font-size:clamp(3rem,9vw,6rem);font-weight:700;letter-spacing:.15em;margin:0;"
            "font-family:monospace}.class-code-intro{font-size:1.3rem;margin:0}"
            ".class-qr-figure{margin:0;text-align:center}.class-qr-figure figcaption{font-size:.875rem;opacity:.7}"
            "</style>")
# The projector view's bar stays at the top while the page scrolls (a phone's, or a long reveal's), and its
# count is read from the back of a hall.
PROJECTED_CSS = """<style>
.st-key-class_bar{position:sticky;top:0;z-index:100;background:#fff;border-bottom:1px solid rgba(17,24,39,.15)}
.st-key-class_bar h1.class-bar-code{font-size:3.2rem;font-weight:700;letter-spacing:.12em;margin:0;padding:0;
  line-height:1.1;font-family:monospace}
.class-bar-link{font-size:.8rem;margin:0;overflow-wrap:anywhere}
.class-count{font-size:1.5rem;font-weight:700;margin:0;line-height:1.2}
.st-key-class_answered figcaption{display:none}
</style>"""


def projector_view(store: ClassStore, code: str) -> None:
    """What the room sees, from the class's code alone: nothing on it needs or holds the teacher's secret, and
    it follows the presenter's moves by itself. Controls, seats, results and files are the presenter's."""
    snapshot = store.snapshot(code)
    state = snapshot.state
    link = classes.join_link(code)
    st.html(PROJECTED_CSS)
    with st.container(key="class_bar"):
        left, middle, right = st.columns([5, 4, 1], vertical_alignment="center")
        left.html(f"<h1 class='class-bar-code' aria-label='Join code {' '.join(code)}'>{html.escape(code)}</h1>")
        middle.html(f"<p class='class-bar-link'>Join at <b>{html.escape(link)}</b>, or scan the code</p>")
        qr = base64.b64encode(classes.qr_png(link)).decode()
        right.html(f"<img class='class-bar-qr' src='data:image/png;base64,{qr}' width='96' height='96' "
                   f"alt='QR code of the join link {html.escape(link)}'>")
    st.session_state[classes.SEEN_KEY] = classes.drawn_state(state)
    if state.open_form is not None:
        st.header(f"The {state.open_form} quiz is open: answer it on your phone")
        projected_count(store, code)
        return
    if state.step == PREDICT_STEP:
        class_predict.projected_step(store, code, state, projected_count)
        return
    step = STEPS[state.step - 1]
    view = lesson.step_view(step.number, classes.CLASS_MODEL_KEY, state.text)
    question = view.question
    st.subheader(f"Step {step.number} of {len(STEPS)} · {step.title}")
    if question is None:
        st.markdown(f"**Goal.** {step.goal}")
        below = st
    else:
        below = projected_question(store, code, state, question)
    with below.expander("The question, why, and the numbers (on every phone)"):
        if question is not None:
            st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
            if state.revealed:
                st.markdown(escape_markdown(question.why))
        lesson.draw(view.before)
        if state.revealed:
            lesson.draw(view.after)
        st.caption("This is the projector view: the controls are on the presenter view, this page without "
                   "projector mode, on your own screen or phone.")


def projected_question(store: ClassStore, code: str, state, question):
    """The question (or, once revealed, the model's answer) beside the options, the count and the spread, in
    type small enough for one 1280 × 720 screen (projected_scales); the left column, for what goes under it."""
    fit = projected_scales(question)
    st.html("<style>" + "".join(
        f".st-key-class_{side} :is(p, li, figure){{font-size:{scale}rem !important}}"
        f".st-key-class_{side} .class-count{{font-size:{max(1.5 * scale, 1.2):.2f}rem !important}}"
        for side, scale in (("asked", fit.left), ("answered", fit.right)) if scale < 1) + "</style>")
    left, right = st.columns([1, 2] if fit.wide_options else [1, 1], gap="large")
    asked, answered = left.container(key="class_asked"), right.container(key="class_answered")
    if state.revealed:    # the question was on screen while the class voted: now the answer takes its place
        asked.success(escape_markdown(question.answer_line), icon="🔎")
    else:
        asked.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
    counts = {r: store.counts(code, state.step, r) for r in range(1, state.round + 1)}
    labels = 50 if fit.wide_options else 40
    with answered:
        projected_count(store, code)
        if state.revealed:    # the last round's spread, each round's share right in its title
            results = [round_result(question, r, counts[r]) for r in counts]
            shares = " → ".join(f"round {g.round}: " + ("no votes" if g.share_right is None else
                                                        f"{g.share_right:.0%} right") for g in results)
            shown = spread(question, counts[state.round])
            st.html(vote_spread(shown.options, shown.counts, shares[0].upper() + shares[1:], label_share=labels))
        elif state.spread_shown:
            shown = spread(question, counts[state.round])
            st.html(vote_spread(shown.options, shown.counts, f"Round {state.round}: {shown.total} votes",
                                label_share=labels))
        else:
            st.markdown("\n".join(f"- **{escape_markdown(o)}**" for o in question.options))
    return asked


def projected_count(store: ClassStore, code: str) -> None:
    """The live count, large, polled: the page reruns when the class moves on."""
    @fragment(run_every=classes.TEACHER_POLL_SECONDS)
    def polled() -> None:
        classes.rerun_when_changed(store, code, lambda s: st.html(
            "<p class='class-count' aria-live='polite'>" + html.escape(projected_line(
                s.joined, s.voted, s.state.voting, s.state.round, s.state.open_form, s.handed_in)) + "</p>"))

    polled()


def gradebook_of_class(store: ClassStore, code: str, secret: str, state) -> Gradebook:
    """A row per student, the items and every vote, each voted step's question as the model answers it on the
    class's text."""
    votes = [Vote(v.step, v.round, v.number, v.option) for v in store.all_votes(code, secret)]
    steps = sorted({v.step for v in votes} - {PREDICT_STEP})
    questions = {s: q for s in steps
                 if (q := lesson.question(s, classes.CLASS_MODEL_KEY, state.text, ask_tables=False)) is not None}
    if (task := ClassTask.from_text(state.task)) is not None:   # predict, then train: graded once measured
        if (q := prediction(task).question(Run.from_text(state.training))) is not None:
            questions[PREDICT_STEP] = q
    answers = store.all_quiz_answers(code, secret)
    quizzes, report = quiz.class_report_of(state.quiz_seed, state.text, answers) if answers else (None, None)
    return gradebook(code, state.text, "the bundled reverser", "reverse", time.time(),
                     [Roster(*r) for r in store.roster(code, secret)], questions, votes, quizzes,
                     [(a.form, a.number, a.item, a.option) for a in answers], report)


def quiz_controls(store: ClassStore, code: str, secret: str, state) -> None:
    """Open the before quiz at the start, the after quiz at the end; students answer on their own screens."""
    def act(stage: int) -> None:
        try:
            store.set_quiz_stage(code, secret, stage)
        except ClassError as error:
            st.session_state[ERROR_KEY] = str(error)

    stage = state.quiz_stage
    with st.container(border=True, key="quiz_controls"):
        st.markdown(f"**Quiz before and after the lesson.** Now: {QUIZ_STAGES[stage]}. Eight questions the model "
                    "answers, on strings no one has seen; the gain from the first to the second estimates what the "
                    "class learnt. Once the after quiz is closed, students see the answers, so it cannot be opened "
                    "again.")
        left, middle, right = st.columns(3)
        left.button("Reopen the before quiz" if stage == 2 else "Open the before quiz", width="stretch",
                    type="primary" if stage == 0 else "secondary", disabled=stage not in (0, 2), on_click=act,
                    args=(1,))
        middle.button("Open the after quiz", width="stretch", type="primary" if stage == 2 else "secondary",
                      disabled=stage not in (0, 2), on_click=act, args=(3,))
        right.button("Close the quiz", width="stretch", disabled=stage not in OPEN_FORM, on_click=act,
                     args=(stage + 1,),
                     help="Closing the after quiz shows each student their two scores and the answers.")


def counts_line(store: ClassStore, code: str, state) -> None:
    """Who has joined, and who has voted (or handed in the open quiz), polled; the page reruns when the class
    moves on."""
    @fragment(run_every=classes.TEACHER_POLL_SECONDS)
    def polled() -> None:
        classes.rerun_when_changed(store, code, lambda s: st.markdown(
            f"**{joined_line(s.joined, s.voted, s.state.voting, s.state.round, s.state.open_form, s.handed_in)}**"))

    st.session_state[classes.SEEN_KEY] = classes.drawn_state(state)
    polled()


def quiz_open(store: ClassStore, code: str, state) -> None:
    """While a quiz is open, the projected page shows who has handed in, and the questions in a closed
    expander (the students have them on their screens)."""
    form = state.open_form
    st.header(f"The {form} quiz is open")
    st.markdown("Students answer on their phones; each answer is kept as they pick it, and they can change it until "
                "you close the quiz.")

    counts_line(store, code, state)
    with st.expander("The questions, as the students see them (not while projecting)"):
        for i, item in enumerate(quiz.class_quizzes(state.quiz_seed, state.text)[form].items):
            st.markdown(escape_markdown(f"{i + 1}. {item.question.prompt}"))


def quiz_results(store: ClassStore, code: str, secret: str, state) -> None:
    """Scores before and after, the class's gain with its interval, and how each item worked."""
    answers = store.all_quiz_answers(code, secret)
    if not answers:
        return
    quizzes, report = quiz.class_report_of(state.quiz_seed, state.text, answers)
    g, n = report.gain, len(quizzes["after"].items)
    st.header("Quiz results")
    cols = st.columns(3)
    for column, form in zip(cols, (report.before, report.after)):
        column.metric(f"{form.form.capitalize()}: mean right",
                      "—" if form.mean_share is None else f"{form.mean_share:.0%}",
                      f"{form.students} student{'s' if form.students != 1 else ''}", delta_color="off",
                      delta_arrow="off")
    cols[2].metric("Class gain (normalised)", "—" if g.gain is None else f"{g.gain:.2f}",
                   f"95 % interval {g.low:.2f} to {g.high:.2f}" if g.low is not None else
                   "no student has taken both quizzes yet" if not g.students else
                   f"no interval under {MIN_FOR_INTERVAL} students", delta_color="off",
                   delta_arrow="off", help="g = (after − before) / (100 % − before), from the class's means, over "
                   "the students who took both; the interval resamples those students 2,000 times.")
    if g.students:
        st.markdown(escape_markdown(f"Over the {g.students} students who took both: {g.pre:.0%} right before, "
                                    f"{g.post:.0%} after. {gain_words(g.gain, g.students)}"))
    st.caption(f"A quiz of {n} items is a rough instrument, and a small class's interval is wide (none is shown "
               f"under {MIN_FOR_INTERVAL} students). The interval resamples the students only, not the items; read "
               "it before the gain.")
    st.html(score_spread({f.form: f.counts for f in (report.before, report.after)},
                            "Students by items right"))
    st.html(share_right_by_item([i.concept for i in quizzes["after"].items],
                                   {f.form: [s.share_right for s in f.items] for f in (report.before, report.after)},
                                   "Share right, item by item"))
    table = [{"item": i + 1, "concept": b.concept,
              "before: share right": b.share_right, "before: discrimination": b.discrimination,
              "after: share right": a.share_right, "after: discrimination": a.discrimination}
             for i, (b, a) in enumerate(zip(report.before.items, report.after.items))]
    st.dataframe(table, hide_index=True, width="stretch", column_config={
        **{f"{f}: share right": st.column_config.NumberColumn(format="percent") for f in ("before", "after")},
        **{f"{f}: discrimination": st.column_config.NumberColumn(format="%.2f") for f in ("before", "after")}})
    st.caption("Share right is the item's difficulty. Discrimination is the correlation between getting the item "
               "right and the score on the other items: near 0 or below, the item does not separate the students "
               f"who learnt more from the others (None: everyone alike, or fewer than {MIN_FOR_INTERVAL} students, "
               "too few for a correlation). The two forms' items ask the same concept in the same place, on "
               "different strings.")


def run_class(store: ClassStore, code: str, secret: str) -> None:
    state = store.teacher_state(code, secret)
    if not keep_the_link(code, secret):
        return
    header(code, secret)
    quiz_controls(store, code, secret, state)
    if message := st.session_state.pop(ERROR_KEY, None):
        st.error(message)
    if state.open_form is not None:
        quiz_open(store, code, state)      # no results while it is open: a student could test an answer
        manage_seats(store, code, secret)
        class_files(store, code, secret, state)
        return
    last = len(STEPS)
    number = st.select_slider("Step", list(range(1, PREDICT_STEP + 1)), value=state.step,
                              key=f"class_step_{state.step}",
                              format_func=lambda n: f"{n} · {STEPS[n - 1].title if n <= last else class_predict.TITLE}")
    if number != state.step:
        store.go_to_step(code, secret, number)
        st.rerun()
    if state.step == PREDICT_STEP:
        class_predict.teacher_step(store, code, secret, state, counts_line)
        quiz_results(store, code, secret, state)
        manage_seats(store, code, secret)
        class_files(store, code, secret, state)
        return

    step = STEPS[state.step - 1]
    view = lesson.step_view(step.number, classes.CLASS_MODEL_KEY, state.text)
    question = view.question
    st.header(f"Step {step.number} of {last} · {step.title}")
    st.markdown(f"**Goal.** {step.goal}")
    lesson.draw(view.before)
    if question is None:
        st.info("This step has no question for this model: move to another step.", icon="ℹ️")
    else:
        step_question(store, code, secret, state, view, step, question)
    quiz_results(store, code, secret, state)
    manage_seats(store, code, secret)
    class_files(store, code, secret, state)


def step_question(store: ClassStore, code: str, secret: str, state, view, step, question) -> None:
    st.markdown(f"**Predict first.** {escape_markdown(question.prompt)}")
    st.markdown("  ·  ".join(f"**{escape_markdown(o)}**" for o in question.options))

    counts_line(store, code, state)
    classes.teacher_controls(store, code, secret, state, ERROR_KEY)

    counts = {r: store.counts(code, step.number, r) for r in range(1, state.round + 1)}
    results = [round_result(question, r, counts[r]) for r in counts]
    if state.spread_shown and not state.revealed:
        shown = spread(question, counts[state.round])
        votes = f"{shown.total} vote{'' if shown.total == 1 else 's'}"
        st.html(vote_spread(shown.options, shown.counts, f"Round {state.round}: {votes}"))
        st.info(teacher_advice(results[-1]), icon="🧭")
    if state.revealed:
        for column, result in zip(st.columns(len(results)), results):
            shown = spread(question, counts[result.round])
            classes.share_right(column, result)
            with column:
                st.html(vote_spread(shown.options, shown.counts, f"Round {result.round}"))
        st.success(escape_markdown(f"{question.answer_line} {question.why}"), icon="🔎")
        lesson.reveal(view)


def manage_seats(store: ClassStore, code: str, secret: str) -> None:
    """Who joined; the teacher renames a seat (a mistaken or offensive name) or frees one (someone who left, or
    a seat nobody in the room holds: its votes and quiz answers leave every count)."""
    def picked_number() -> int:
        return st.session_state[PICKED_SEAT_KEY].number

    def remove() -> None:
        try:
            gone = store.remove_seat(code, secret, picked_number())
        except ClassError as error:
            st.session_state[REMOVED_KEY] = (False, str(error))
        else:
            st.session_state[REMOVED_KEY] = (True, f"{gone.nickname} (seat {gone.number}) is removed, with their "
                                             "votes and quiz answers. They can join again with the code, as someone "
                                             "new.")

    def rename() -> None:
        try:
            seat = store.rename_seat(code, secret, picked_number(), st.session_state.get(NEW_NAME_KEY, ""))
        except ClassError as error:
            st.session_state[REMOVED_KEY] = (False, str(error))
        else:
            st.session_state[REMOVED_KEY] = (True, f"Seat {seat.number} is now called {seat.nickname}.")
            st.session_state[NEW_NAME_KEY] = ""

    seats = store.participants(code, secret)
    with st.expander(f"Students who joined ({len(seats)}): rename or remove a seat (not while projecting)"):
        if done := st.session_state.pop(REMOVED_KEY, None):
            (st.success if done[0] else st.error)(escape_markdown(done[1]), icon="🪑" if done[0] else "✏️")
        if not seats:
            st.markdown("No one has joined yet.")
            return
        st.dataframe([{"seat": seat.number, "nickname": seat.nickname} for seat in seats], hide_index=True,
                     height=min(35 * len(seats) + 38, 300), width="stretch")
        st.selectbox("Seat", seats, key=PICKED_SEAT_KEY, format_func=lambda seat: f"{seat.number} · {seat.nickname}")
        name_col, rename_col = st.columns([3, 1], vertical_alignment="bottom")
        name_col.text_input("New nickname (empty: “Student N” again)", key=NEW_NAME_KEY, max_chars=NICKNAME_MAX)
        rename_col.button("Rename", key="rename_seat", on_click=rename, width="stretch")
        st.button("Remove from the class", key="remove_seat", on_click=remove)


def class_files(store: ClassStore, code: str, secret: str, state) -> None:
    st.divider()
    low, high = st.columns(2)
    if low.button("Prepare the gradebook", width="stretch",
                  help="A row per student (seat, nickname, when they joined, each step's rounds right or wrong, "
                       "the two quizzes and the gain), the items, and every vote."):
        st.session_state[CSV_KEY] = (code, gradebook_of_class(store, code, secret, state), time.strftime("%H:%M:%S"))
    prepared = st.session_state.get(CSV_KEY)
    if prepared and prepared[0] == code:
        book, at = prepared[1], prepared[2]
        low.download_button(f"Gradebook as of {at} (CSV)", table_csv(book.students, book.header),
                            file_name=f"class_{code}_gradebook.csv", mime="text/csv", on_click="ignore",
                            width="stretch", key="gradebook_csv")
        low.download_button("Items and rounds (CSV)", table_csv(book.items), file_name=f"class_{code}_items.csv",
                            mime="text/csv", on_click="ignore", width="stretch", key="items_csv")
        low.download_button("All three as a spreadsheet (.xlsx)", gradebook_xlsx(book),
                            file_name=f"class_{code}.xlsx", on_click="ignore", width="stretch", key="gradebook_xlsx",
                            mime="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    with high.popover("End the class", width="stretch"):
        st.markdown("Ends the class for everyone and deletes every seat and vote at once. This cannot be undone.")
        if st.button("End it and delete its answers", type="primary", key="end_class"):
            store.end_class(code, secret)
            st.session_state.pop(classes.TEACHING_KEY, None)
            st.query_params.clear()
            st.rerun()


store = classes.class_store()
if store is None:
    st.stop()
linked_code = classes.param(classes.CLASS_PARAM).upper()   # the class the link names, if any
if classes.TEACHER_PARAM in st.query_params:   # the private link: its secret moves into this session and out
    linked_secret = classes.param(classes.TEACHER_PARAM)   # of the address bar
    if linked_secret:
        st.session_state[classes.TEACHING_KEY] = (linked_code, linked_secret)
    del st.query_params[classes.TEACHER_PARAM]
if projector_on() and linked_code:
    try:                     # what the room sees: the code is all it needs, so guessing one is limited as on Join
        classes.check_code_tries()
        if not codes.is_code(linked_code):
            raise UnknownClass(NO_SUCH_CODE)
        projector_view(store, linked_code)
    except UnknownClass as error:
        classes.count_wrong_code()
        st.error(str(error), icon="🛑")
    except ClassError as error:
        st.error(str(error), icon="🛑")
    except InputError as error:
        st.error(escape_markdown(f"This class's text cannot be shown: {error}"), icon="✏️")
    st.stop()
st.title("📣 Run a class")
code, secret = st.session_state.get(classes.TEACHING_KEY, ("", ""))
if linked_code not in ("", code):
    code, secret = "", ""   # another class's code in the link: this session does not control it

if not (code and secret) and (back := classes.taught_here(store, linked_code or None)):
    code, secret = back.code, back.secret     # a reload, a new tab, a sleep or a replica's death: this browser
    st.session_state[classes.TEACHING_KEY] = (code, secret)           # started the class, and takes it back
    st.query_params[classes.CLASS_PARAM] = code
    st.toast(f"Class {code} is back: this browser started it.", icon="🔑")
if not (code and secret):
    if linked_code:
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
