"""The teacher's sheet: the lesson's steps, questions, the model's answers and the timings, as Markdown and as a
printable HTML page."""

from __future__ import annotations

import html
from typing import Mapping

from .class_mode import HELD_BACK
from .questions import Question
from .steps import INTRODUCTION_MINUTES, STEPS, WRAP_UP_MINUTES

WHY_NO_QUESTION = {  # the steps whose question a model can lack, and why
    7: "it has no training snapshots",
    11: "no swap of one character moves the probability of any character it writes by more than 0.001",
    9: "for a model of your own, the table of heads switched off and the cross heads' offsets are computed on "
       "request: once both have been computed on the Lesson's step 9, the sheet includes this step",
}


def _schedule() -> list[tuple[int, int, str]]:
    """(start minute, end minute, what) for a 50-minute class."""
    rows, t = [(0, INTRODUCTION_MINUTES, "Introduction: type the class's text in the sidebar, read the reversal")], \
        INTRODUCTION_MINUTES
    for step in STEPS:
        if not step.optional:
            rows.append((t, t + step.minutes, f"Step {step.number}: {step.title}"))
            t += step.minutes
    rows.append((t, t + WRAP_UP_MINUTES, "Wrap-up: what surprised the class; the Glossary page"))
    t += WRAP_UP_MINUTES
    for step in STEPS:
        if step.optional:   # past the 50 minutes
            rows.append((t, t + step.minutes, f"Optional, for a longer class: step {step.number}: {step.title}"))
            t += step.minutes
    return rows


def _minutes(step) -> str:
    return f"{step.minutes} min" + (", optional: for a longer class" if step.optional else "")


def class_mode(titles: Mapping[str, str]) -> str:
    return (f"Class mode: open the app's {titles['run_a_class']} page to ask these questions of the whole class. "
            "Students join on their phones with a six-character code; for each step, open voting, show the spread, "
            "let neighbours discuss, open round 2, then reveal the model's answer.")


def sheet_markdown(text: str, model: str, questions: list[Question | None], titles: Mapping[str, str],
                   held: frozenset[int] = frozenset()) -> str:
    """titles: each page id's title (explorer.pages), as the sidebar names the page a step sends the class to;
    held: the steps whose answer a class voting on this text has not seen yet, asked without it."""
    lines = [f"# Attention explorer: a 50-minute lesson on '{text}'", "",
             f"Model: {model}. Every expected answer below was read from this model on this text; another text or "
             "model can give other answers (open the app's Lesson page to see them).", "", class_mode(titles), "",
             "## Timing", "",
             "| minutes | what |", "|---|---|"]
    lines += [f"| {a}–{b} | {what} |" for a, b, what in _schedule()]
    for step, question in zip(STEPS, questions):
        lines += ["", f"## Step {step.number} · {step.title} ({_minutes(step)})", "",
                  f"**Goal.** {step.goal}", "", f"**Look for.** {step.look_for} (page: {titles[step.page]})", ""]
        if question is None:
            lines += [f"No question here for this model ({WHY_NO_QUESTION.get(step.number, '')}).", ""]
            continue
        lines += [f"**Ask first.** {question.prompt}", ""]
        if step.number in held:
            lines += [f"- {option}" for option in question.options] + ["", f"**Answer held back.** {HELD_BACK}"]
            continue
        lines += [f"- {option}" + (" **← expected**" if question.grade(option) else "") for option in question.options]
        lines += ["", f"**Hint after a wrong answer.** {question.hint}"]
        if question.hints:
            lines += ["", *(f"- after '{option}': {hint}" for option, hint in question.hints.items())]
        lines += ["", f"**Why.** {question.why}"]
    return "\n".join(lines) + "\n"


def sheet_html(text: str, model: str, questions: list[Question | None], titles: Mapping[str, str],
               held: frozenset[int] = frozenset()) -> str:
    """The same as sheet_markdown, as a page to print."""
    e = html.escape
    parts = [f"<h1>Attention explorer: a 50-minute lesson on ‘{e(text)}’</h1>",
             f"<p>Model: {e(model)}. Every expected answer below was read from this model on this text; another "
             f"text or model can give other answers.</p><p>{e(class_mode(titles))}</p>", "<h2>Timing</h2><table><tr><th>minutes</th><th>what</th>"
             "</tr>" + "".join(f"<tr><td>{a}–{b}</td><td>{e(what)}</td></tr>" for a, b, what in _schedule())
             + "</table>"]
    for step, question in zip(STEPS, questions):
        parts.append(f'<section><h2>Step {step.number} · {e(step.title)} <small>({_minutes(step)})</small></h2>'
                     f"<p><b>Goal.</b> {e(step.goal)}</p><p><b>Look for.</b> {e(step.look_for)} "
                     f"(page: {e(titles[step.page])})</p>")
        if question is None:
            parts.append(f"<p>No question here for this model ({e(WHY_NO_QUESTION.get(step.number, ''))}).</p></section>")
            continue
        if step.number in held:
            parts.append(f"<p><b>Ask first.</b> {e(question.prompt)}</p><ul>"
                         + "".join(f"<li>{e(o)}</li>" for o in question.options)
                         + f"</ul><p><b>Answer held back.</b> {e(HELD_BACK)}</p></section>")
            continue
        options = "".join(f"<li class='expected'>{e(o)} ← expected</li>" if question.grade(o) else f"<li>{e(o)}</li>"
                          for o in question.options)
        parts.append(f"<p><b>Ask first.</b> {e(question.prompt)}</p><ul>{options}</ul>"
                     f"<p><b>Hint after a wrong answer.</b> {e(question.hint)}</p>"
                     + ("<ul>" + "".join(f"<li>after ‘{e(o)}’: {e(h)}</li>" for o, h in question.hints.items())
                        + "</ul>" if question.hints else "")
                     + f"<p><b>Why.</b> {e(question.why)}</p></section>")
    style = ("body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;line-height:1.45}"
             "table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 8px;text-align:left}"
             ".expected{font-weight:700}section{break-inside:avoid;border-top:1px solid #ccc;margin-top:1rem}"
             "@media print{body{margin:0;font-size:11pt}}")
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Lesson on {e(text)}</title>"
            f"<style>{style}</style></head><body>{''.join(parts)}</body></html>")
