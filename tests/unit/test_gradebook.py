"""Issue 65, problem 6: the class's files as a gradebook. A row per student with their seat, nickname, when they
joined, each voted round right or wrong, both quiz scores and the gain; a header block naming the class; the
items and every vote on tables of their own; the same in a spreadsheet of three sheets; no cell a spreadsheet
would run as a formula. The expected rows are written out by hand from the votes below."""

from __future__ import annotations

import csv
import io

import openpyxl

from teaching.gradebook import Roster, Vote, gradebook, gradebook_xlsx, table_csv, when
from teaching.questions import Question
from teaching.quiz import Quiz, QuizItem
from teaching.quiz_results import class_report

STEP_4 = Question("choice", "Which?", ("left", "right", "=SUM(A1)"), frozenset({"right"}), "hint", "why")
JOINED = 1_764_686_400.0                     # 2025-12-02 14:40 UTC


def two_item_quiz(form: str) -> Quiz:
    items = tuple(QuizItem("cross", "cross-attention", "attention", f"{form}{i}",
                           Question("choice", f"Item {i}?", ("a", "b"), frozenset({"a"}), "hint", "why"), {})
                  for i in range(2))
    return Quiz(form, 7, "reverse", items)


def book():
    roster = [Roster(1, "Ann", JOINED), Roster(2, "=HYPERLINK(\"x\")", JOINED + 60), Roster(3, "Student 3", JOINED)]
    votes = [Vote(4, 1, 1, "left"), Vote(4, 1, 2, "right"), Vote(4, 2, 1, "right"), Vote(4, 2, 2, "=SUM(A1)"),
             Vote(9, 1, 1, "whatever")]                                  # step 9: no question on this text
    quizzes = {"before": two_item_quiz("before"), "after": two_item_quiz("after")}
    answers = [("before", 1, 0, "a"), ("before", 1, 1, "b"), ("after", 1, 0, "a"), ("after", 1, 1, "a"),
               ("before", 2, 0, "b")]                                   # seat 2 left an item out: wrong
    report = class_report(quizzes["before"], quizzes["after"], answers)
    return gradebook("ABCDEF", "world", "the bundled reverser", "reverse", JOINED + 3600, roster, {4: STEP_4},
                     votes, quizzes, answers, report)


def test_a_row_per_student_under_a_header_naming_the_class():
    b = book()
    assert b.header == [("class code", "ABCDEF"), ("made at", "2025-12-02 15:40 UTC"), ("text", "world"),
                        ("model", "the bundled reverser"), ("task", "reverse"), ("students", "3")]
    assert b.students.columns == ["seat", "nickname", "joined at", "step 4 round 1", "step 4 round 2", "votes cast",
                                  "votes right", "quiz before (of 2)", "quiz after (of 2)", "gain (normalised)"]
    assert b.students.rows == [
        [1, "Ann", "2025-12-02 14:40 UTC", "wrong", "right", 2, 1, 1, 2, 1.0],
        [2, "=HYPERLINK(\"x\")", "2025-12-02 14:41 UTC", "right", "wrong", 2, 1, 0, "", ""],
        [3, "Student 3", "2025-12-02 14:40 UTC", "", "", 0, 0, "", "", ""]]
    assert when(0) == "1970-01-01 00:00 UTC"


def test_the_items_and_every_vote_have_tables_of_their_own():
    b = book()
    assert b.items.rows[:2] == [["step 4", 1, "Which?", "right", 2, 0.5, ""], ["step 4", 2, "Which?", "right", 2, 0.5, ""]]
    assert [r[:2] + r[4:6] for r in b.items.rows[2:]] == [["quiz before", 1, 2, 0.5], ["quiz before", 2, 2, 0.0],
                                                          ["quiz after", 1, 1, 1.0], ["quiz after", 2, 1, 1.0]]
    assert b.votes.columns == ["step", "round", "seat", "nickname", "option", "right or wrong"]
    assert b.votes.rows[1] == [4, 1, 2, "=HYPERLINK(\"x\")", "right", "right"]
    assert b.votes.rows[-1] == [9, 1, 1, "Ann", "whatever", ""]


def test_the_csv_is_the_header_block_then_one_table_and_runs_no_formula():
    rows = list(csv.reader(io.StringIO(table_csv(book().students, book().header))))
    assert rows[0] == ["class code", "ABCDEF"] and rows[6] == []
    assert rows[7][0] == "seat" and len(rows) == 7 + 1 + 3
    assert rows[9][:2] == ["2", "'=HYPERLINK(\"x\")"]
    assert rows[8][-3:] == ["1", "2", "1.0"]
    items = list(csv.reader(io.StringIO(table_csv(book().votes))))
    assert items[0][0] == "step" and items[4][4] == "'=SUM(A1)"
    assert not any(cell.startswith(("=", "+", "@")) for row in rows + items for cell in row)


def test_the_spreadsheet_has_three_sheets_of_the_same_cells_stored_as_text_or_numbers():
    b = book()
    workbook = openpyxl.load_workbook(io.BytesIO(gradebook_xlsx(b)))
    assert workbook.sheetnames == ["Gradebook", "Items", "Votes"]
    sheet = workbook["Gradebook"]
    assert [sheet.cell(1, 1).value, sheet.cell(1, 2).value] == ["class code", "ABCDEF"]
    table = [[c.value for c in row] for row in sheet.iter_rows(min_row=8)]
    assert table[0] == b.students.columns
    assert table[1] == [1, "Ann", "2025-12-02 14:40 UTC", "wrong", "right", 2, 1, 1, 2, 1]
    assert table[2][1] == "=HYPERLINK(\"x\")"                       # as typed, stored as text
    every = [c for ws in workbook for row in ws.iter_rows() for c in row if c.value is not None]
    assert every and not [c.coordinate for c in every if c.data_type == "f"]
    votes = [[c.value for c in row] for row in workbook["Votes"].iter_rows(min_row=2)]
    assert votes == [[v if v != "" else None for v in row] for row in b.votes.rows]
