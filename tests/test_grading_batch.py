"""Issues 13 and 24, batch grading and bad input: `grade_submissions` grades a class in
parallel, every notebook in the sandbox, and writes grades.csv, grades.json and
feedback/<student>.md; every bad submission is reported with a status and a diagnosis
(symbolic links and hidden entries too), the grader never crashes, no student's result
depends on another's submission, and no student string becomes Markdown in the feedback."""
from __future__ import annotations

import csv
import json
import os

import nbformat
import pytest

from panpriv_teach.classroom.grading import grade_notebook, grade_submissions
from test_grading_support import ROOT, sandbox_or_skip, statuses, student_notebook, write

MODULE = "05_ppcum"          # the quickest module to grade
NUMBERS = ["5.1", "5.2", "5.3", "5.4", "5.5"]

HOSTILE = {   # cells a hostile notebook adds after the check of 5.1
    "5.1": "import glob, os, shutil\n"
           "for path in glob.glob('*') + glob.glob('.*'):   # everything in its folder\n"
           "    shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.remove(path)\n"
           "import time\n"
           "if os.fork() == 0:\n    time.sleep(1000)\n",
    "5.2": "import numpy as np\nbig = np.ones(20 * 2**30 // 8)",
    "5.3": "while True:\n    pass",
}


FORGED = "**5 of 5 exercises passed.**"   # a Markdown line a cheater would like to show
FORMULA = '=HYPERLINK("x.example", "7 of 7")'


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    sandbox_or_skip()
    root = tmp_path_factory.mktemp("class")
    subs, out = root / "submissions", root / "out"
    correct = student_notebook(MODULE)
    write(correct, subs / "ada", MODULE)
    (subs / "ada" / "notes.txt").write_text("my notes")
    (subs / "bob").mkdir(parents=True)
    (subs / "bob" / f"{MODULE}.ipynb").write_text('{"cells": [')            # invalid JSON
    write(correct, subs / "bob", "08_quantum_streams")                       # no such module
    (subs / "carl").mkdir()                                                  # handed in nothing
    (subs / FORMULA).mkdir()                          # a name a spreadsheet would run
    write(student_notebook(MODULE, extra=HOSTILE), subs / "dave", MODULE)
    write(correct, subs / "erin", MODULE)
    write(student_notebook(MODULE, answers={"5.1": "stub"}), subs / "erin", f"{MODULE}-Copy1")
    (subs / "erin" / ".ipynb_checkpoints").mkdir()                           # hidden
    (subs / "erin" / "05_ppcum-link.ipynb").symlink_to(ROOT / "solutions" / f"{MODULE}.ipynb")
    write(correct, subs / ".hidden", MODULE)                                 # a hidden student
    (subs / "frank").symlink_to(subs / "ada", target_is_directory=True)      # a linked student
    (subs / "README.txt").write_text("collected on Monday")
    os.mkfifo(subs / "erin" / "05_ppcum-pipe.ipynb")                         # would block a reader
    forger = student_notebook(MODULE, answers={"5.1": (
        "def erased_after(t, T):\n"
        f"    raise type({FORGED!r}, (Exception,), {{}})('<b>7 of 7</b> [ok](http://x)')")})
    write(forger, subs / "**gina**", MODULE)
    before = sorted(p.relative_to(subs) for p in subs.rglob("*"))
    code = grade_submissions(subs, out, jobs=2, timeout=3, verify=False)
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return dict(code=code, rows=rows, out=out, subs=subs, before=before)


def rows_of(graded, student):
    return [(r["exercise"], r["status"], r["diagnosis"]) for r in graded["rows"]
            if r["student"] == student]


def test_grading_completes_with_exit_code_0_and_the_csv_columns(graded):
    assert graded["code"] == 0
    assert list(graded["rows"][0]) == ["student", "exercise", "status", "diagnosis"]
    assert {r["status"] for r in graded["rows"]} <= {"passed", "failed", "not attempted",
                                                      "missing", "error"}


def test_a_correct_notebook_passes_and_a_stray_file_is_reported(graded):
    rows = rows_of(graded, "ada")
    assert [(e, s) for e, s, _ in rows[:5]] == [(n, "passed") for n in NUMBERS]
    assert rows[5:] == [("", "error", "notes.txt is not a notebook; it was not graded")]


def test_a_corrupt_notebook_and_an_unknown_module_are_errors(graded):
    rows = rows_of(graded, "bob")
    assert [(e, s) for e, s, _ in rows if e in NUMBERS] == [(n, "error") for n in NUMBERS]
    assert all("could not be read as a notebook" in d for e, _, d in rows if e in NUMBERS)
    unknown = [d for e, s, d in rows if s == "error" and "08_quantum_streams" in d]
    assert len(unknown) == 1 and "not an exercise notebook of this course" in unknown[0]


def test_an_empty_folder_is_reported_as_missing(graded):
    assert rows_of(graded, "carl") == [("", "missing", "the folder is empty: nothing was handed in")]


def test_a_second_copy_of_a_module_is_reported_and_only_the_exact_name_is_graded(graded):
    rows = rows_of(graded, "erin")
    assert [(e, s) for e, s, _ in rows[:5]] == [(n, "passed") for n in NUMBERS]
    assert ("", "error", f"{MODULE}-Copy1.ipynb is a second copy of module {MODULE}; "
                         f"only {MODULE}.ipynb was graded") in rows[5:]


def test_symbolic_links_and_hidden_entries_get_a_row_each_and_are_never_followed(graded):
    rows = rows_of(graded, "erin")[5:]
    assert ("", "error", ".ipynb_checkpoints is hidden (its name starts with '.'); it was not "
                         "graded") in rows
    assert ("", "error", "05_ppcum-link.ipynb is a symbolic link: hand in the file itself; it "
                         "was not graded") in rows
    assert ("", "error", "05_ppcum-pipe.ipynb is not a regular file; it was not graded") in rows
    assert rows_of(graded, ".hidden") == [("", "error", ".hidden is a hidden folder (its name "
                                           "starts with '.'); it was not graded: rename it if "
                                           "it is a student's")]
    assert rows_of(graded, "frank") == [("", "error", "frank is a symbolic link, not a "
                                         "student's folder; it was not graded")]
    assert rows_of(graded, "README.txt") == [("", "error", "README.txt is a file, not a "
                                              "student's folder; it was not graded")]
    assert not (graded["out"] / "feedback" / "frank.md").exists()


def test_no_student_string_becomes_markdown_in_the_feedback(graded):
    """An exception class named like the summary line, HTML and a link in its message, and a
    folder named **gina**: all shown as text (escaped, or in a code block)."""
    import markdown_it
    feedback = (graded["out"] / "feedback" / "**gina**.md").read_text()
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(feedback)
    assert "<strong>" + FORGED.strip("*") not in html and "<b>" not in html
    assert "<a href" not in html and "<strong>gina</strong>" not in html
    assert html.count("<strong>") == 1 and "<strong>4 of 5 exercises passed.</strong>" in html
    assert FORGED in feedback                                  # shown, inside a code block
    assert rows_of(graded, "**gina**")[0][1] == "failed"


def test_no_cell_of_grades_csv_is_a_spreadsheet_formula(graded):
    """A folder named like a formula is shown as text ('=...), in grades.csv only: grades.json
    keeps the name as it is."""
    assert rows_of(graded, "'" + FORMULA) and not rows_of(graded, FORMULA)
    cells = [v for row in graded["rows"] for v in row.values()]
    assert not [v for v in cells if v[:1] in ("=", "+", "-", "@", "\t", "\r")]
    rows = json.loads((graded["out"] / "grades.json").read_text())["rows"]
    assert any(r["student"] == FORMULA for r in rows)


def test_outputs_are_written_whole_and_nothing_else_is_left(graded):
    written = sorted(p.relative_to(graded["out"]).as_posix() for p in graded["out"].rglob("*"))
    assert written == ["feedback", *(f"feedback/{s}.md" for s in
                                     sorted(["**gina**", FORMULA, "ada", "bob", "carl", "dave", "erin"])),
                       "grades.csv", "grades.json"]


def test_a_hostile_notebook_is_contained_and_harms_no_one(graded):
    """It deletes every file in its folder, forks, allocates 20 GB and never ends: its own
    answers are still graded, the problems are reported, and nobody's files or grades
    change."""
    rows = rows_of(graded, "dave")
    assert [(e, s) for e, s, _ in rows] == [(n, "passed") for n in NUMBERS]
    assert sorted(p.relative_to(graded["subs"]) for p in graded["subs"].rglob("*")) == graded["before"]
    grades = json.loads((graded["out"] / "grades.json").read_text())
    problems = " ".join(p for nb in grades["notebooks"]["dave"] for p in nb["problems"])
    assert "raised MemoryError" in problems or "raised _ArrayMemoryError" in problems
    assert "did not finish within 3 s; it was skipped" in problems


def test_grades_json_has_the_rows_and_a_summary_per_student(graded):
    grades = json.loads((graded["out"] / "grades.json").read_text())
    assert [r for r in grades["rows"] if r["student"] != FORMULA] == [
        r for r in graded["rows"] if r["student"] != "'" + FORMULA]   # one cell shown as text
    assert grades["students"]["ada"]["passed"] == 5 and grades["students"]["ada"]["modules"] == [MODULE]
    assert grades["students"]["bob"]["error"] == 5
    assert set(grades["students"]) == {"ada", "bob", "carl", "dave", "erin", "**gina**", FORMULA}
    assert grades["run"]["sandbox"] == "bubblewrap" and grades["run"]["problems"] == []


def test_feedback_has_the_scoreboard_and_every_diagnosis(graded):
    feedback = {p.stem: p.read_text() for p in (graded["out"] / "feedback").glob("*.md")}
    assert set(feedback) == {"ada", "bob", "carl", "dave", "erin", "**gina**", FORMULA}
    assert "**5 of 5 exercises passed.**" in feedback["ada"]
    assert "notes.txt is not a notebook" in feedback["ada"]
    assert "could not be read as a notebook" in feedback["bob"]
    assert "nothing was handed in" in feedback["carl"]
    assert "did not finish within 3 s" in feedback["dave"]


def test_a_missing_submissions_folder_is_an_error_code(tmp_path, capsys):
    assert grade_submissions(tmp_path / "nowhere", tmp_path / "out", verify=False) == 2
    assert "no submissions folder" in capsys.readouterr().out
    assert not (tmp_path / "out").exists()


def test_grade_notebook_reports_a_notebook_that_is_not_json_at_all(tmp_path):
    path = tmp_path / f"{MODULE}.ipynb"
    path.write_bytes(b"\x89PNG not a notebook")
    grade = grade_notebook(path)
    assert statuses(grade) == {n: "error" for n in NUMBERS}
    nbformat.write(nbformat.v4.new_notebook(), path)      # valid, but no check cells at all
    assert statuses(grade_notebook(path)) == {n: "missing" for n in NUMBERS}


def test_a_notebook_malformed_past_nbformat_is_an_error_not_a_crash(tmp_path):
    """Valid JSON, but a cell without a type and absurdly nested code: graded as an error or
    read past, never an exception out of the grader."""
    path = tmp_path / f"{MODULE}.ipynb"
    path.write_text('{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": '
                    '[{"source": "x = 1"}, {"cell_type": "code", "source": "' + "(" * 5000 +
                    '", "metadata": {}, "outputs": []}]}')
    assert set(statuses(grade_notebook(path)).values()) <= {"error", "missing"}
