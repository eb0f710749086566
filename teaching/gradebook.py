"""A class's gradebook: one row per student (seat, nickname, when they joined, every voted step's rounds right or
wrong, the two quizzes and the gain), under a header block naming the class; the per-item analysis (each step's
rounds, each quiz item) and every vote on their own tables. As CSV files, and as one spreadsheet with a sheet
for each. Streamlit-free: the Run a class page hands it what the store and the model say."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openpyxl import Workbook

from .class_mode import round_result, safe_cell
from .questions import Question
from .quiz import Quiz
from .quiz_results import ClassReport, gain


@dataclass(frozen=True)
class Roster:
    number: int
    nickname: str
    joined_at: float          # seconds since the epoch


@dataclass(frozen=True)
class Vote:
    step: int
    round: int
    number: int               # the seat
    option: str


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[object]]


@dataclass(frozen=True)
class Gradebook:
    header: list[tuple[str, str]]    # (what, value): the class's code, the date, its text, model and task
    students: Table                  # a row per seat
    items: Table                     # a row per step and round, then per quiz form and item
    votes: Table                     # a row per vote, right or wrong


def when(seconds: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(seconds))


def _right(question: Question | None, option: str | None) -> str:
    if option is None:
        return ""
    return "" if question is None else ("right" if question.grade(option) else "wrong")


def gradebook(code: str, text: str, model: str, task: str, made_at: float, roster: Sequence[Roster],
              questions: Mapping[int, Question], votes: Sequence[Vote], quizzes: Mapping[str, Quiz] | None = None,
              quiz_answers: Sequence[tuple[str, int, int, str]] = (), report: ClassReport | None = None) -> Gradebook:
    """`questions`: each voted step's question as the model answers it on the class's text (None-free);
    `quiz_answers`: (form, seat, item, option) as handed in; `report`: the quizzes' class report."""
    header = [("class code", code), ("made at", when(made_at)), ("text", text), ("model", model), ("task", task),
              ("students", str(len(roster)))]
    rounds = sorted({(v.step, v.round) for v in votes if v.step in questions})
    picked = {(v.number, v.step, v.round): v.option for v in votes}
    taken: dict[tuple[str, int], dict[int, str]] = {}
    for form, number, item, option in quiz_answers:
        taken.setdefault((form, number), {})[item] = option
    columns = ["seat", "nickname", "joined at", *(f"step {s} round {r}" for s, r in rounds), "votes cast",
               "votes right"]
    if quizzes:
        n = len(quizzes["after"].items)
        columns += [f"quiz before (of {n})", f"quiz after (of {n})", "gain (normalised)"]
    students = []
    for seat in roster:
        marks = [_right(questions.get(s), picked.get((seat.number, s, r))) for s, r in rounds]
        row: list[object] = [seat.number, seat.nickname, when(seat.joined_at), *marks,
                             sum(m != "" for m in marks), marks.count("right")]
        if quizzes:
            scores = []
            for form in ("before", "after"):
                answers = taken.get((form, seat.number))
                quiz = quizzes[form]
                scores.append(None if answers is None else
                              sum(quiz.marks([answers.get(i) for i in range(len(quiz.items))])))
            both = None not in scores
            g = gain(scores[0] / n, scores[1] / n) if both else None
            row += ["" if s is None else s for s in scores] + ["" if g is None else round(g, 3)]
        students.append(row)
    items = []
    for s, r in rounds:
        question = questions[s]
        counts: dict[str, int] = {}
        for v in votes:
            if (v.step, v.round) == (s, r):
                counts[v.option] = counts.get(v.option, 0) + 1
        result = round_result(question, r, counts)
        items.append([f"step {s}", r, question.prompt, question.answer, result.votes,
                      "" if result.share_right is None else round(result.share_right, 3), ""])
    if quizzes and report is not None:
        for form in (report.before, report.after):
            quiz = quizzes[form.form]
            for item, stats in zip(quiz.items, form.items):
                items.append([f"quiz {form.form}", stats.index + 1, item.question.prompt, item.question.answer,
                              stats.students, "" if stats.share_right is None else round(stats.share_right, 3),
                              "" if stats.discrimination is None else round(stats.discrimination, 3)])
    nicknames = {seat.number: seat.nickname for seat in roster}
    vote_rows = [[v.step, v.round, v.number, nicknames.get(v.number, ""), v.option,
                  _right(questions.get(v.step), v.option)] for v in votes]
    return Gradebook(header, Table(columns, students),
                     Table(["what", "round or item", "question", "model's answer", "answers", "share right",
                            "discrimination"], items),
                     Table(["step", "round", "seat", "nickname", "option", "right or wrong"], vote_rows))


def _cell(value: object) -> object:
    """A number as a number; text made safe for a spreadsheet (class_mode.safe_cell)."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else safe_cell(value)


def table_csv(table: Table, header: Sequence[tuple[str, str]] = ()) -> str:
    """One table, under the header block's rows (what, value) and a blank row when there is one."""
    out = io.StringIO()
    writer = csv.writer(out)
    for what, value in header:
        writer.writerow([what, safe_cell(value)])
    if header:
        writer.writerow([])
    writer.writerow(table.columns)
    writer.writerows([[_cell(v) for v in row] for row in table.rows])
    return out.getvalue()


def gradebook_xlsx(book: Gradebook) -> bytes:
    """The gradebook (header block, then a row per student), Items and Votes, each a sheet. Every text cell is
    stored as text: openpyxl would store one beginning with '=' as a formula."""
    workbook = Workbook()
    sheets = [("Gradebook", book.students, book.header), ("Items", book.items, ()), ("Votes", book.votes, ())]
    for index, (title, table, header) in enumerate(sheets):
        sheet = workbook.active if index == 0 else workbook.create_sheet()
        sheet.title = title
        lines = [*([what, value] for what, value in header), *([[]] if header else []), table.columns, *table.rows]
        for r, line in enumerate(lines, start=1):
            for c, value in enumerate(line, start=1):
                cell = sheet.cell(r, c)
                cell.value = value
                if isinstance(value, str):
                    cell.data_type = "s"
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()
