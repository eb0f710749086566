"""Quiz: eight questions before the lesson and eight after, each built and graded by the model, and the gain
between the two. The page's link keeps the seed and the answers, so a learner can close it and come back."""

import streamlit as st

from explorer import quiz
from explorer.cache import checkpoint_or_stop, model_key
from explorer.classes import CLASS_MODEL_KEY
from explorer.links import page_link
from explorer.text import escape_markdown
from teaching.quiz_results import learner_result, missed_items

SEED_PARAM = "quiz"
SEED_KEY, ANSWERS_KEY = "_quiz_seed", "_quiz_answers"   # this session's quiz, if the link holds none

st.title("📝 Quiz: before and after the lesson")
INTRO = ("{count} questions on the lesson's ideas, each about a string you have not seen, each answered by the "
         "model itself ({model}). Take the first quiz **before** the lesson and the second **after** it: they "
         "ask the same questions in the same order, each with its right answer in the same place, on different "
         "strings, and the normalised gain compares your two scores: how "
         "much of the room your first score left, your second one took up. Guessing every item would score about "
         "{chance:.0%}.")


def link_seed() -> int | None:
    raw = str(st.query_params.get(SEED_PARAM, ""))
    digits = raw.isascii() and raw.isdigit() and len(raw) <= 10      # '²' is a digit to isdigit, not to int
    return int(raw) if digits and int(raw) <= quiz.MAX_SEED else None


in_use, key = checkpoint_or_stop(), model_key()   # the model the sidebar has chosen asks and answers
MODEL_KEY = "_quiz_model"
if st.session_state.get(MODEL_KEY) != key:          # another model's answers do not fit this model's items
    st.session_state[MODEL_KEY] = key
    st.session_state.pop(ANSWERS_KEY, None)
    st.session_state.pop(SEED_KEY, None)
seed = link_seed()
if seed is None:
    seed = st.session_state.get(SEED_KEY) or quiz.new_seed()
if seed != st.session_state.get(SEED_KEY) or ANSWERS_KEY not in st.session_state:
    st.session_state[SEED_KEY], st.session_state[ANSWERS_KEY] = seed, {}
answers: dict = st.session_state[ANSWERS_KEY]
quizzes = {form: quiz.quiz_on(key, seed, form) for form in quiz.FORMS}
TASK_PARAM = "quiz_task"    # the task of the model whose quiz a link's answers belong to
for form in quiz.FORMS:    # a link's answers (a bookmark, another tab) fill in what this session lacks
    if form not in answers and form in st.query_params and \
            str(st.query_params.get(TASK_PARAM, "reverse")) == in_use.task:
        found = quiz.decode_answers(quizzes[form], str(st.query_params[form]))
        if found is not None:
            answers[form] = found
model = ("the bundled reverser" if key == CLASS_MODEL_KEY else
         escape_markdown(f"the model the sidebar has chosen, of the task {in_use.task}"))
count = len(quizzes["before"].items)
st.markdown(INTRO.format(count={6: "Six", 7: "Seven", 8: "Eight"}.get(count, str(count)), model=model,
                         chance=quizzes["before"].chance))
in_link = {SEED_PARAM: str(seed), **({} if in_use.task == "reverse" else {TASK_PARAM: in_use.task}),
           **{f: quiz.encode_answers(quizzes[f], a) for f, a in answers.items()}}
for name, value in in_link.items():
    if st.query_params.get(name) != value:   # only the quiz's own keys: the sidebar's text and task stay in the link
        st.query_params[name] = value


def hand_in(form: str, picked: list) -> None:
    answers[form] = picked
    st.rerun()


before, after = answers.get("before"), answers.get("after")
if before is None:
    st.header("1 · Before the lesson")
    st.caption("An item left blank counts as wrong. The answers stay hidden until the second quiz, so that it "
               "measures the lesson, not the answers.")
    if (picked := quiz.answer_form(quizzes["before"], "quiz_before")) is not None:
        hand_in("before", picked)
elif after is None:
    right = sum(quizzes["before"].marks(before))
    st.success(f"First quiz handed in: {right} of {len(before)} right. Now do the lesson, then come back here "
               "(this page's address keeps your answers: bookmark it).", icon="✅")
    page_link("lesson", "Go to the lesson", "🎓")
    st.header("2 · After the lesson")
    if (picked := quiz.answer_form(quizzes["after"], "quiz_after")) is not None:
        hand_in("after", picked)
else:
    st.header("Your result")
    quiz.show_result(learner_result(quizzes["before"], quizzes["after"], before, after))
    with st.expander("The first quiz, item by item"):
        first = missed_items(quizzes["before"], before)
        st.markdown(f"Missed {len(first)} of {len(before)}." if first else "Every item right.")
        for m in first:
            st.markdown(escape_markdown(f"{m.index + 1}. {m.concept}: the model's answer is {m.answer}. "
                                             f"{m.why}"))
    st.caption("The gain measures this lesson only if the lesson came between the two quizzes. The two forms "
               "share every choice that sets an item's answer; their strings differ, and a string can still make "
               "an item a little easier or harder.")
    if st.button("Start again with new questions"):
        st.session_state[SEED_KEY], st.session_state[ANSWERS_KEY] = quiz.new_seed(), {}
        for name in (SEED_PARAM, TASK_PARAM, *quiz.FORMS):
            st.query_params.pop(name, None)
        st.rerun()
