"""The teacher's sheet: the lesson's steps, questions, the model's answers and the timings, as Markdown and as a
printable HTML page."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Mapping

import numpy as np

from .class_mode import HELD_BACK
from .questions import Question
from .step_views import Chart, Display, Metric, Note, Side, Strip, Table, Written
from .steps import INTRODUCTION_MINUTES, QUIZ_MINUTES, STEPS, WRAP_UP_MINUTES, step_for

ON_SCREEN = "On screen before the vote"   # the numbers a step's prompt and hint point at ("the table above"…)

WHY_NO_QUESTION = {  # the steps whose question a model can lack, and why
    7: "it has no training snapshots",
    11: "no swap of one character moves the probability of any character it writes by more than 0.001",
    12: "for a model of your own, the tables of heads switched off, the cross heads' offsets and the patterns "
        "put in a head's place are computed on request: once computed on the Lesson's step 12, the sheet includes "
        "this step",
    13: "it is asked of the reversal model only, whose two keys n − 1 − i and n − i it compares; there, it is "
        "asked at step 6's output step, which needs a text of at least 3 characters (a key beside n − i), "
        "and for a model of your own the last layer's weights on the held-out words are computed on request: "
        "once computed on the Lesson's step 13, the sheet includes this step",
    9: "for a model of your own, the table of heads switched off and the cross heads' offsets are computed on "
       "request: once both have been computed on the Lesson's step 9, the sheet includes this step",
}


def _schedule(task: str = "reverse") -> list[tuple[int, int, str]]:
    """(start minute, end minute, what) for a 50-minute class."""
    output = "the reversal" if task == "reverse" else "the model's answer"
    rows, t = [(0, INTRODUCTION_MINUTES, f"Introduction: type the class's text in the sidebar, read {output}")], \
        INTRODUCTION_MINUTES
    steps = [step_for(s.number, task) for s in STEPS]
    for step in steps:
        if not step.optional:
            rows.append((t, t + step.minutes, f"Step {step.number}: {step.title}"))
            t += step.minutes
    rows.append((t, t + WRAP_UP_MINUTES, "Wrap-up: what surprised the class; the Glossary page"))
    t += WRAP_UP_MINUTES
    for step in steps:
        if step.optional:   # past the 50 minutes
            rows.append((t, t + step.minutes, f"Optional, for a longer class: step {step.number}: {step.title}"))
            t += step.minutes
    rows.append((t, t + 2 * QUIZ_MINUTES, f"Optional, for the class's gain: the before quiz ({QUIZ_MINUTES} min) "
                 "before the introduction and the after quiz before the wrap-up, on the students' phones (Run a "
                 "class: Open the before quiz, Open the after quiz)"))
    return rows


def _minutes(step) -> str:
    return f"{step.minutes} min" + (", optional: for a longer class" if step.optional else "")


def class_mode(titles: Mapping[str, str]) -> str:
    return (f"Class mode: open the app's {titles['run_a_class']} page to ask these questions of the whole class. "
            "Students join on their phones with a six-character code; for each step, open voting, show the spread, "
            "let neighbours discuss, open round 2, then reveal the model's answer.")


def _cell(value, percent: bool) -> str:
    """A table's value as the page shows it: a percentage with one decimal, another number to 4 figures."""
    if isinstance(value, (float, np.floating)):
        return f"{value:.1%}" if percent else f"{value:.4g}"
    return str(value)


def _table_rows(table: Table) -> tuple[list[str], list[list[str]]]:
    """The table's header and rows as text."""
    names = list(table.columns)
    rows = [[_cell(v, name in table.percent) for name, v in zip(names, values)]
            for values in zip(*table.columns.values())]
    if table.index is not None:
        names, rows = ["", *names], [[label, *row] for label, row in zip(table.index, rows)]
    return names, rows


def _as_table(chart: Chart) -> Table | None:
    """An attention map or a mask as the numbers it is drawn from (a positional code's 64 columns stay a chart)."""
    a = chart.arguments
    if chart.figure == "weights_spec":
        rows, columns, cells = a["query_labels"], a["key_labels"], np.asarray(a["weights"])          # (Q, K)
        shown = [[f"{w:.2f}" for w in column] for column in cells.T]
    elif chart.figure == "mask_spec":
        rows, columns, cells = a["row_labels"], a["col_labels"], np.asarray(a["mask"])               # (T, T)
        shown = [["read" if allowed else "hidden" for allowed in column] for column in cells.T]
    else:
        return None
    return Table({f"{j} {label}": column for j, (label, column) in enumerate(zip(columns, shown))},
                 index=tuple(f"{i} {label}" for i, label in enumerate(rows)), heading=a.get("title", ""))


def _line(display: Display) -> str | None:
    """A display that is not a table, as one line of text; None for a chart drawn from numbers it lists itself."""
    if isinstance(display, Metric):
        return f"{display.label}: {display.value}"
    if isinstance(display, Written):
        return f"{display.label}: {display.text}"
    if isinstance(display, Side):
        return f"{_line(display.left)}; {_line(display.right)}"
    if isinstance(display, Note):
        return display.text
    if isinstance(display, Strip):
        return f"{display.title}: " + "; ".join(
            f"{name}: " + " ".join(f"{v:.2f}" for v in np.asarray(row).ravel())
            for name, row in zip(display.names, display.rows))
    if isinstance(display, Chart):
        title = display.arguments.get("title")
        return f"(a chart in the app{': ' + title if title else ''})"
    return None


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _on_screen_markdown(displays: Sequence[Display]) -> list[str]:
    lines = [f"**{ON_SCREEN}.**", ""]
    for display in displays:
        display = (isinstance(display, Chart) and _as_table(display)) or display
        if isinstance(display, Table):
            names, rows = _table_rows(display)
            lines += ([display.heading, ""] if display.heading else []) + [
                "| " + " | ".join(map(_markdown_cell, names)) + " |", "|" + "---|" * len(names),
                *("| " + " | ".join(map(_markdown_cell, row)) + " |" for row in rows), ""] + (
                [display.caption, ""] if display.caption else [])
        elif (line := _line(display)) is not None:
            lines += [f"- {line}", ""]
    return lines


def _on_screen_html(displays: Sequence[Display]) -> str:
    e, parts = html.escape, [f"<p><b>{ON_SCREEN}.</b></p>"]
    for display in displays:
        display = (isinstance(display, Chart) and _as_table(display)) or display
        if isinstance(display, Table):
            names, rows = _table_rows(display)
            parts.append((f"<p>{e(display.heading)}</p>" if display.heading else "")
                         + "<table><tr>" + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>"
                         + "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in row) + "</tr>" for row in rows)
                         + "</table>" + (f"<p>{e(display.caption)}</p>" if display.caption else ""))
        elif (line := _line(display)) is not None:
            parts.append(f"<p>{e(line)}</p>")
    return "".join(parts)


def sheet_markdown(text: str, model: str, questions: list[Question | None], titles: Mapping[str, str],
                   held: frozenset[int] = frozenset(), before: Sequence[Sequence[Display]] | None = None,
                   task: str = "reverse") -> str:
    """titles: each page id's title (explorer.pages), as the sidebar names the page a step sends the class to;
    held: the steps whose answer a class voting on this text has not seen yet, asked without it; before: each
    step's displays shown before the vote (StepView.before), which the prompts and hints point at; task: the
    model's, whose words the steps take (teaching.steps.step_for)."""
    lines = [f"# Attention explorer: a 50-minute lesson on '{text}'", "",
             f"Model: {model}. Every expected answer below was read from this model on this text; another text or "
             "model can give other answers (open the app's Lesson page to see them).", "", class_mode(titles), "",
             "## Timing", "",
             "| minutes | what |", "|---|---|"]
    lines += [f"| {a}–{b} | {what} |" for a, b, what in _schedule(task)]
    for step, question in zip((step_for(s.number, task) for s in STEPS), questions):
        lines += ["", f"## Step {step.number} · {step.title} ({_minutes(step)})", "",
                  f"**Goal.** {step.goal}", "", f"**Look for.** {step.look_for} (page: {titles[step.page]})", ""]
        if question is None:
            lines += [f"No question here for this model ({WHY_NO_QUESTION.get(step.number, '')}).", ""]
            continue
        if before is not None:
            lines += _on_screen_markdown(before[step.number - 1])
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
               held: frozenset[int] = frozenset(), before: Sequence[Sequence[Display]] | None = None,
               task: str = "reverse") -> str:
    """The same as sheet_markdown, as a page to print."""
    e = html.escape
    parts = [f"<h1>Attention explorer: a 50-minute lesson on ‘{e(text)}’</h1>",
             f"<p>Model: {e(model)}. Every expected answer below was read from this model on this text; another "
             f"text or model can give other answers.</p><p>{e(class_mode(titles))}</p>", "<h2>Timing</h2><table><tr><th>minutes</th><th>what</th>"
             "</tr>" + "".join(f"<tr><td>{a}–{b}</td><td>{e(what)}</td></tr>" for a, b, what in _schedule(task))
             + "</table>"]
    for step, question in zip((step_for(s.number, task) for s in STEPS), questions):
        parts.append(f'<section><h2>Step {step.number} · {e(step.title)} <small>({_minutes(step)})</small></h2>'
                     f"<p><b>Goal.</b> {e(step.goal)}</p><p><b>Look for.</b> {e(step.look_for)} "
                     f"(page: {e(titles[step.page])})</p>")
        if question is None:
            parts.append(f"<p>No question here for this model ({e(WHY_NO_QUESTION.get(step.number, ''))}).</p></section>")
            continue
        if before is not None:
            parts.append(_on_screen_html(before[step.number - 1]))
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
