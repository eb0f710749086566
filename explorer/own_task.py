"""The Training page's "your own task": a rule typed or found from examples, an alphabet and lengths, checked as
they are typed. Returns the checked task; training it is the page's (explorer.live_runs)."""

from __future__ import annotations

import streamlit as st

from analysis.page_models.own_task import search_view, task_preview
from transformer.rule_search import ExampleError, parse_examples, search
from transformer.task_rules import LATIN, OPERATIONS, TaskSpec, TaskSpecError, task_spec

from .callbacks import set_state
from .heavy import NOT_RUN, STOPPED, in_heavy_lane
from .live_training import LIMITS
from .text import escape_markdown

RULE_KEY, ALPHABET_KEY, LENGTHS_KEY = "own_rule", "own_alphabet", "own_lengths"
PAIRS_KEY, ANSWER_KEY, FOUND_KEY, AGAIN_KEY = "own_pairs", "own_answer", "own_search", "own_search_again"
OPERATIONS_HELP = ("Operations, applied left to right with |: " + ", ".join(
    f"{op.name}:k" if op.parameter else op.name for op in OPERATIONS.values())
    + ". rotate:k moves the text left by k (negative: right); shift:k moves each letter k places along the "
      "alphabet, wrapping; double writes each character twice; dedupe drops a character already seen; mirror "
      "writes the text then its reversal; interleave alternates its two halves.")
EXAMPLE_PAIRS = "abcd -> badc\nhello -> ehllo\nxy -> yx\nabcdef -> badcfe\nq -> q"


def _search(pairs: list[tuple[str, str]], alphabet: str) -> None:
    found = in_heavy_lane("Finding the rules that fit", lambda report: search(pairs, alphabet, report), rest=0.0)
    if found is not NOT_RUN and found is not STOPPED:
        st.session_state[FOUND_KEY] = (tuple(pairs), alphabet, found)


def _add_pair(question: str) -> None:
    """on_click of "Add this pair": the learner's answer joins the pairs, and the next run searches again."""
    answer = str(st.session_state.get(ANSWER_KEY, "")).strip()
    st.session_state[PAIRS_KEY] = str(st.session_state.get(PAIRS_KEY, "")).rstrip("\n") + f"\n{question} -> {answer}"
    st.session_state[ANSWER_KEY] = ""
    st.session_state[AGAIN_KEY] = True


def _from_examples(alphabet: str) -> None:
    st.session_state.setdefault(PAIRS_KEY, EXAMPLE_PAIRS)   # set here, not as the widget's value: a found
    st.text_area("Pairs, one a line (a text, an arrow, its answer)", key=PAIRS_KEY,     # pair is added by the page
                 height=140, max_chars=4000, help="From 3 to 20 pairs. The search tries every rule of up to three operations.")
    try:
        pairs = parse_examples(st.session_state.get(PAIRS_KEY, EXAMPLE_PAIRS), alphabet)
    except TaskSpecError as err:
        st.error(escape_markdown(str(err)), icon="✋")
        return
    if st.button("Find the rule", key="own_find") or st.session_state.pop(AGAIN_KEY, False):
        _search(pairs, alphabet)
    kept = st.session_state.get(FOUND_KEY)
    if not kept or kept[0] != tuple(pairs) or kept[1] != alphabet:
        return
    view = search_view(kept[2], len(pairs))
    st.markdown(view.sentence)
    if view.found:
        st.button(f"Use {view.found}", key="own_use_found", on_click=set_state, args=(RULE_KEY, view.found))
    elif view.question:
        st.caption("What each group of rules answers: " + "; ".join(
            f"{escape_markdown(a) or '(nothing)'} ({escape_markdown(r)})" for a, r in view.answers))
        answer = st.text_input(f"Your answer for {view.question}", key=ANSWER_KEY, max_chars=2 * 96)
        st.button("Add this pair and search again", key="own_add_pair", disabled=not answer.strip(),
                  on_click=_add_pair, args=(view.question,))


def own_task(default_rule: str = "reverse") -> TaskSpec | None:
    """The task block: the rule (typed, or found from examples), alphabet and lengths, with the error that names
    the wrong part or a preview of the task on three of its texts. None while something is wrong."""
    low, high = LIMITS["max_len"]
    by_rule, by_examples = st.tabs(["By rule", "From examples"])
    with by_rule:
        st.session_state.setdefault(RULE_KEY, default_rule)   # "Use this rule" sets it too
        st.text_input("Rule", key=RULE_KEY, max_chars=120, help=OPERATIONS_HELP, placeholder="rotate:2|shift:1")
    c1, c2 = st.columns([3, 1])
    alphabet = c1.text_input("Alphabet (besides the space)", value=LATIN, key=ALPHABET_KEY, max_chars=60,
                             help="Up to 40 letters or digits of any script: Greek, Cyrillic, Devanagari, Hebrew, "
                                  "Arabic…")
    lengths = c2.text_input("Lengths", value=f"1-{min(6, high)}", key=LENGTHS_KEY, max_chars=8,
                            help=f"From 1 to at most {high} characters here (the command line trains up to 48).")
    with by_examples:
        _from_examples(alphabet or LATIN)
    try:
        spec = task_spec(st.session_state.get(RULE_KEY, default_rule), alphabet, lengths)
        if spec.max_len > high or spec.max_len < low:
            raise TaskSpecError(f"The lengths {lengths!r}: a model trained here reads texts of {low} to {high} "
                                "characters at most.")
    except TaskSpecError as err:
        st.error(escape_markdown(str(err)), icon="✋")
        return None
    preview = task_preview(spec)
    st.markdown(preview.sentence)
    st.caption("For example: " + ";  ".join(f"{escape_markdown(t)} → {escape_markdown(a)}"
                                            for t, a in preview.examples))
    return spec
