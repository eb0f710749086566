"""The quizzes' Streamlit glue: a quiz built once per (seed, form) on the bundled reverser (a class's, and a
learner's by default) or on the model a learner has chosen, the form a learner answers it in, and the results with a link to the page of each missed item. The questions, their answers and
every figure come from teaching.quiz and teaching.quiz_results."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import streamlit as st

from teaching.quiz import FORMS, Quiz, build_quiz, lab_head_costs
from teaching.quiz_results import ClassReport, LearnerResult, class_report

from .cache import checkpoint_for
from .classes import CLASS_MODEL_KEY
from .lab_runs import ablation_table
from .links import page_link
from .pages import page
from .text import escape_markdown

MAX_SEED = 2 ** 31 - 1
UNANSWERED = "-"                 # an item left out, in a link's list of answers


@st.cache_resource(show_spinner=False)
def _head_costs() -> dict:
    ckpt = checkpoint_for(CLASS_MODEL_KEY)
    return lab_head_costs(CLASS_MODEL_KEY, ckpt.model, ckpt.vocab, ckpt.task)   # stored with the checkpoint


def _build(seed: int, form: str, avoid: tuple[str, ...]) -> Quiz:
    ckpt = checkpoint_for(CLASS_MODEL_KEY)
    return build_quiz(ckpt.model, ckpt.vocab, ckpt.task, seed, form, _head_costs(), frozenset(avoid))


BUILDING = "Building the quiz from the model's own numbers…"


# A learner's seed comes from a link, a class's from the store: two caches, so links with new seeds never push a
# running class's quizzes out.
@st.cache_resource(show_spinner=BUILDING, max_entries=64)
def _learner_quiz(seed: int, form: str, avoid: tuple[str, ...]) -> Quiz:
    return _build(seed, form, avoid)


@st.cache_resource(show_spinner=BUILDING, max_entries=128)
def _class_quiz(seed: int, form: str, avoid: tuple[str, ...]) -> Quiz:
    return _build(seed, form, avoid)


@st.cache_resource(show_spinner=BUILDING, max_entries=64)
def _quiz_on(key: str, seed: int, form: str) -> Quiz:
    ckpt = checkpoint_for(key)
    costs = {effect.head: effect.drop for effect in ablation_table(key)[1]}   # the table Switch heads off shows
    return build_quiz(ckpt.model, ckpt.vocab, ckpt.task, seed, form, costs, min_len=ckpt.min_len)


def quiz_on(key: str, seed: int, form: str) -> Quiz:
    """One form of a learner's quiz on the model `key` names: the reverser's own cache for the reverser. A model
    of the learner's own computes its table of heads switched off when asked first (explorer.on_request)."""
    if key == CLASS_MODEL_KEY:
        return quiz_on_reverser(seed, form)
    if form not in FORMS or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"no quiz {form!r} with seed {seed}")
    ablation_table(key)   # asked for in this run, outside the cache: an own model's stops the page until asked
    return _quiz_on(key, seed, form)


def quiz_on_reverser(seed: int, form: str, avoid: tuple[str, ...] = (), for_class: bool = False) -> Quiz:
    """One form of the quiz on the bundled reverser, the lesson's case study (whichever task the sidebar
    shows): a class and a learner alone answer the same model."""
    if form not in FORMS or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"no quiz {form!r} with seed {seed}")
    return (_class_quiz if for_class else _learner_quiz)(seed, form, tuple(sorted(avoid)))


def new_seed() -> int:
    return secrets.randbelow(MAX_SEED)


def encode_answers(quiz: Quiz, answers: list[str | None]) -> str:
    """Answers as option places, one character each ('-' for none): short enough for a link."""
    return "".join(UNANSWERED if a is None else str(item.question.options.index(a))
                   for item, a in zip(quiz.items, answers))


def decode_answers(quiz: Quiz, text: str) -> list[str | None] | None:
    """The answers a link holds, or None when it holds none that fit this quiz."""
    if len(text) != len(quiz.items):
        return None
    answers: list[str | None] = []
    for item, ch in zip(quiz.items, text):
        if ch == UNANSWERED:
            answers.append(None)
        elif ch in "0123456789" and int(ch) < len(item.question.options):
            answers.append(item.question.options[int(ch)])
        else:
            return None
    return answers


def _item(quiz: Quiz, i: int, key: str, stored: dict[int, str], **radio) -> str | None:
    """One item: its number and prompt (a long text in a wrapped block), its options as radio buttons."""
    question = quiz.items[i].question
    prompt, _, block = question.prompt.partition("\n\n")
    st.markdown(f"**{i + 1}.** {escape_markdown(prompt)}")
    if block:
        st.code(block, language=None, wrap_lines=True)
    before = stored.get(i)
    return st.radio(f"Answer to question {i + 1}", question.options, key=f"{key}_{i}",
                    index=question.options.index(before) if before in question.options else None,
                    label_visibility="collapsed", **radio)


def answer_form(quiz: Quiz, key: str) -> list[str | None] | None:
    """Every item in one form, handed in together; the answers when handed in."""
    with st.form(key):
        picked = [_item(quiz, i, key, {}) for i in range(len(quiz.items))]
        handed = st.form_submit_button("Hand in", type="primary", width="stretch")
    return picked if handed else None


def answer_each(quiz: Quiz, key: str, stored: dict[int, str], keep: Callable[[int, str], None]) -> None:
    """Every item, each answer kept (`keep(item, option)`) the moment it is picked. For a page that polls: a
    form's submit press that follows a timed fragment run was lost in Chromium (Streamlit 1.65; not re-checked on
    1.67), a radio's change is not."""
    for i in range(len(quiz.items)):
        _item(quiz, i, key, stored, on_change=lambda i=i: keep(i, st.session_state[f"{key}_{i}"]))


def show_result(result: LearnerResult) -> None:
    """The two scores, the gain in words, and each missed item: the model's answer, its numbers, its page."""
    left, middle, right = st.columns(3)
    left.metric("Before", "—" if result.before is None else f"{result.right_before} of {result.items}")
    middle.metric("After", "—" if result.after is None else f"{result.right_after} of {result.items}")
    right.metric("Normalised gain", "—" if result.gain is None else f"{result.gain:.2f}",
                 help="g = (after − before) / (100 % − before): how much of the room the first score left, the "
                      "second one took up.")
    if result.before is not None and result.after is not None:
        st.caption("g = (after − before) / (100 % − before). On eight items one item moves a score by 12.5 points, "
                   "so one person's gain is a rough estimate; course averages (such as Hake's) are not comparable "
                   "to it." if result.gain is not None else
                   "No gain can be computed: the first quiz left nothing to gain.")
    if not result.missed:
        st.success("Every item right.", icon="🎯")
        return
    st.markdown(f"**{'The items you missed' if result.after is not None else 'Missed'}**, with the model's own "
                "answer and the page that shows it:")
    for missed in result.missed:
        with st.container(border=True):
            st.markdown(escape_markdown(f"{missed.index + 1}. {missed.concept}. You picked: "
                                        f"{missed.picked or 'nothing'}. The model's answer: {missed.answer.rstrip('.')}. "
                                        f"{missed.why}"))
            target = page(missed.page)
            page_link(target.id, f"See it on {target.title}", target.icon)


def class_quizzes(seed: int, text: str) -> dict[str, Quiz]:
    """A class's two quizzes: from the seed the store drew for it, never about the class's own text."""
    return {form: quiz_on_reverser(seed, form, (text,), for_class=True) for form in FORMS}


def class_report_of(seed: int, text: str, answers: list) -> tuple[dict[str, Quiz], ClassReport]:
    """A class's two quizzes and what its handed-in answers (classroom.store.QuizAnswerRow) say, for the teacher's
    page and its CSV alike."""
    quizzes = class_quizzes(seed, text)
    return quizzes, class_report(quizzes["before"], quizzes["after"],
                                 [(a.form, a.number, a.item, a.option) for a in answers])
