"""A task of someone's own in a link: `?task=rotate:2&alphabet=…&lengths=1-6` on any page.

The sidebar's Task picks one of the bundled three (and is bound to ?task=); a link whose task is a rule instead
is taken here first, before that picker reads the URL: the rule fills the Training page's fields, and if this
server has trained that task with the quick recipe already (explorer.task_models), every page shows that model
at once. A rule that cannot be used is named, never run, and the picker keeps its default.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from transformer.data import TASKS
from transformer.task_rules import LATIN, TaskSpec, TaskSpecError, task_spec

from . import task_models
from .link_guard import take_link_value
from .own_models import add
from .own_task import ALPHABET_KEY, LENGTHS_KEY, RULE_KEY
from .text import escape_markdown

TASK_PARAM, ALPHABET_PARAM, LENGTHS_PARAM = "task", "alphabet", "lengths"
DEFAULT_LENGTHS = "1-6"
NOTICE_KEY = "_task_link_notice"   # (kind, sentence) to show once, on the page the link opened


def linked_task(params: dict[str, str]) -> TaskSpec | None:
    """The task a link names as a rule (None: no task, or a bundled one), or the TaskSpecError that says why
    not. Streamlit-free, so a fuzzer can call it."""
    rule = params.get(TASK_PARAM)
    if not rule or rule in TASKS:   # empty: no rule (the Task picker names it)
        return None
    return task_spec(rule, params.get(ALPHABET_PARAM) or LATIN, params.get(LENGTHS_PARAM) or DEFAULT_LENGTHS)


def task_link(spec: TaskSpec, base: str = "/training") -> str:
    """The link that opens this task: its rule, alphabet and lengths in the URL."""
    query = {TASK_PARAM: spec.spec, LENGTHS_PARAM: f"{spec.min_len}-{spec.max_len}"}
    if spec.alphabet != LATIN:
        query[ALPHABET_PARAM] = spec.alphabet
    return f"{base.split('?')[0]}?{urlencode(query)}"


def use_kept(spec: TaskSpec) -> None:
    """on_click of "Use the model this server trained": the kept model becomes this session's own."""
    model = task_models.kept(spec)
    if model is not None:
        add(f"{spec.spec} (trained on this server)", model)
        from .live_runs import fit_text_to
        fit_text_to(model, spec)


def offer_task(spec: TaskSpec) -> None:
    """Under the Training page's task: its link, and the model this server trained for it, if it kept one."""
    st.caption("A link that opens this task for someone else (its copy button shows on hover):")
    st.code(task_link(spec, st.context.url or "/training"), language=None, wrap_lines=True)
    model = task_models.kept(spec)
    if model is not None:
        held = model.metrics.get("held_out", {}).get("exact_match")
        st.button(f"Use the model this server trained for {spec.spec}"
                  + (f" ({held:.0%} held-out exact match)" if held is not None else ""),
                  key="own_use_kept", on_click=use_kept, args=(spec,))


def take_task_link() -> None:
    """Before the Task picker reads the URL: a rule in ?task= goes to the Training page's fields (and the kept
    model, if any, to this session), out of the URL, with a word on the page."""
    params = {k: st.query_params.get(k) for k in (TASK_PARAM, ALPHABET_PARAM, LENGTHS_PARAM)}
    if not params[TASK_PARAM] or params[TASK_PARAM] in TASKS:   # empty: the picker names it as any bad value
        return
    for k in (TASK_PARAM, ALPHABET_PARAM, LENGTHS_PARAM):
        if params[k] is not None:
            take_link_value(k, params[k])
    try:
        spec = linked_task({k: v for k, v in params.items() if v is not None})
    except TaskSpecError as err:
        st.session_state[NOTICE_KEY] = ("warning", f"This link's task could not be used, so the bundled model is "
                                                   f"shown. {err}")
        return
    st.session_state[RULE_KEY] = spec.spec
    st.session_state[ALPHABET_KEY] = spec.alphabet
    st.session_state[LENGTHS_KEY] = f"{spec.min_len}-{spec.max_len}"
    model = task_models.kept(spec)
    if model is not None:
        add(f"{spec.spec} (trained on this server)", model)
        from .live_runs import fit_text_to                    # the text box must read the new alphabet
        fit_text_to(model, spec)
        st.session_state[NOTICE_KEY] = ("info", f"This link's task, {spec.spec}, was trained on this server "
                                                "already: every page shows that model now (your session only).")
    else:
        st.session_state[NOTICE_KEY] = ("info", f"This link asks for the task {spec.spec}. No model of it has been "
                                                "trained on this server yet: on the Training page, its rule is "
                                                "filled in; press Start training (about a minute at most).")


def show_task_link_notice() -> None:
    notice = st.session_state.pop(NOTICE_KEY, None)
    if notice:
        kind, sentence = notice
        (st.warning if kind == "warning" else st.info)(escape_markdown(sentence), icon="🔗")
