"""`python -m panpriv_teach nbgrader OUT` writes a course directory that real nbgrader
grades unmodified: generate_assignment, autograde and export, end to end on lecture 01's
exercises with one correct and one wrong submission (about a minute: two kernels run the
checkers under nbgrader)."""
import csv
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from panpriv_teach.classroom.nbgrader_export import MANIFEST, assignment_notebook, export, strict_checks
from panpriv_teach.classroom.notebooks import BEGIN, END, _CHECK_CALL

ROOT = Path(__file__).resolve().parents[1]
ASSIGNMENT = "01_dp_basics"
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("source, expected, numbers", [
    ("check.exercise_1_3(laplace_mechanism)",
     "check.exercise_1_3(laplace_mechanism, strict=True)", ["1.3"]),
    ("check.exercise_2_1(f, seed=3)  # note", "check.exercise_2_1(f, seed=3, strict=True)  # note",
     ["2.1"]),
    ("check.exercise_4_2(\n    dyadic,\n)", "check.exercise_4_2(\n    dyadic, strict=True,\n)",
     ["4.2"]),
    ("check.exercise_3_1(lambda ε: 'ε')", "check.exercise_3_1(lambda ε: 'ε', strict=True)", ["3.1"]),
    ("check.exercise_5_1()", "check.exercise_5_1(strict=True)", ["5.1"]),
    ("check.exercise_1_1(a, strict=True)", "check.exercise_1_1(a, strict=True)", ["1.1"]),
    ("x = check.exercise_1_1(a); check.exercise_1_2(b)",
     "x = check.exercise_1_1(a, strict=True); check.exercise_1_2(b, strict=True)", ["1.1", "1.2"]),
    ("print(check)", "print(check)", []),
])
def test_strict_checks_adds_strict_to_every_check_call(source, expected, numbers):
    got, found = strict_checks(source)
    assert got == expected and sorted(found) == numbers
    compile(got, "<cell>", "exec")


def metadata(nb):
    return [cell.metadata.nbgrader for cell in nb.cells]


def test_every_course_notebook_becomes_a_valid_nbgrader_source():
    from nbgrader.nbgraderformat import MetadataValidator
    for path in sorted((ROOT / "solutions").glob("*.ipynb")):
        solution = nbformat.read(path, as_version=4)
        nb = assignment_notebook(solution)
        MetadataValidator().validate_nb(nb)
        checks = {f"{m['n']}.{m['k']}" for cell in solution.cells if cell.cell_type == "code"
                  for m in _CHECK_CALL.finditer(cell.source)}
        tests = [c for c in nb.cells if c.metadata.nbgrader["grade"]]
        assert sum(c.metadata.nbgrader["points"] for c in tests) == len(checks), path.name
        assert all("strict=True" in c.source and c.metadata.nbgrader["locked"] for c in tests)
        answers = [c for c in nb.cells if c.metadata.nbgrader["solution"]]
        assert sum(c.source.count(BEGIN) for c in answers) == sum(
            c.source.count(BEGIN) for c in solution.cells
            if "solution-only" not in c.metadata.get("tags", []))
        rest = [c for c in nb.cells if c not in tests and c not in answers]
        assert all(c.metadata.nbgrader["locked"] for c in rest)
        assert not any("solution-only" in c.metadata.get("tags", []) for c in nb.cells)
        assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code")


def test_markdown_answers_are_manually_graded_and_summary_cells_dropped():
    nb = assignment_notebook(new_notebook(cells=[
        new_markdown_cell("## Exercise 9.1: explain"),
        new_markdown_cell(f"{BEGIN}\nBecause.\n{END}"),
        new_code_cell("check.summary()"),
    ]))
    assert [c.source for c in nb.cells] == ["## Exercise 9.1: explain", f"{BEGIN}\nBecause.\n{END}"]
    assert metadata(nb)[1] == {"grade": True, "grade_id": "written_9_1", "locked": False,
                               "points": 0, "schema_version": 3, "solution": True,
                               "task": False}


def test_export_refuses_a_foreign_folder_and_updates_its_own(tmp_path):
    from panpriv_teach.classroom.release import ReleaseError
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(ReleaseError, match="not empty"):
        export(ROOT / "solutions", tmp_path / "other")
    out = export(ROOT / "solutions", tmp_path / "course")
    (out / "submitted" / "ada" / ASSIGNMENT).mkdir(parents=True)
    handed_in = out / "submitted" / "ada" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    handed_in.write_text("a student's work")
    export(ROOT / "solutions", out)                     # again: only its own files
    assert handed_in.read_text() == "a student's work" and (out / MANIFEST).is_file()


# jsonschema compiles rfc3987_syntax's IRI grammar when it loads (1.7 s of CPU in each nbgrader
# process and in the alembic process it starts); no schema they validate has an IRI format, so
# they run with a module of that name that raises ImportError, which jsonschema expects of an
# optional format checker (as course/build.py does for jupyter-book).
NO_IRI = "raise ImportError('rfc3987_syntax left out: no IRI format is validated here')\n"


def nbgrader(*args, cwd, stubs: Path):
    """`nbgrader ARGS` in `cwd`; `stubs`: a folder holding NO_IRI as rfc3987_syntax.py."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(stubs),
                                                       os.environ.get("PYTHONPATH")]))}
    env.pop("PYTEST_ADDOPTS", None)
    result = subprocess.run([str(BIN / "nbgrader"), *args], cwd=cwd, env=env, text=True,
                            capture_output=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def answer_cells(nb):
    return {c.metadata.nbgrader["grade_id"]: c for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("solution")}


def submission(released, source, wrong=()):
    """The released notebook with every answer filled in from the source notebook's
    solution, except the exercises in `wrong`, answered with a function that returns
    None (a wrong answer, not an unattempted one)."""
    nb = nbformat.read(released, as_version=4)
    solutions = answer_cells(nbformat.read(source, as_version=4))
    for grade_id, cell in answer_cells(nb).items():
        number = grade_id.removeprefix("answer_").replace("_", ".")
        if number in wrong:
            cell.source = cell.source.replace('raise NotImplementedError("write your code here")',
                                              "return None")
        else:
            cell.source = "\n".join(line for line in solutions[grade_id].source.split("\n")
                                    if line.strip() not in (BEGIN, END))
    return nb


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """Run nbgrader on the exported course: one correct (ada) and one wrong (bob)
    submission of 01_dp_basics; bob also replaced a test cell with `pass`."""
    course = export(ROOT / "solutions", tmp_path_factory.mktemp("nbgrader") / "course")
    stubs = tmp_path_factory.mktemp("stubs")
    (stubs / "rfc3987_syntax.py").write_text(NO_IRI)
    nbgrader("generate_assignment", ASSIGNMENT, "--force", cwd=course, stubs=stubs)
    released = course / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source = course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    for student, wrong in (("ada", ()), ("bob", ("1.3", "1.4"))):
        nb = submission(released, source, wrong)
        if student == "bob":
            [test] = [c for c in nb.cells if "check.exercise_1_5(" in c.source]
            test.source = "pass  # the check cell, 'fixed'"
        folder = course / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(nb, folder / f"{ASSIGNMENT}.ipynb")
    nbgrader("autograde", ASSIGNMENT, "--force", cwd=course, stubs=stubs)
    nbgrader("generate_feedback", ASSIGNMENT, "--force", cwd=course, stubs=stubs)
    nbgrader("export", cwd=course, stubs=stubs)
    with open(course / "grades.csv", newline="") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    return course, released, rows


def test_the_released_assignment_has_stubs_and_no_solution(graded):
    course, released, _ = graded
    nb = nbformat.read(released, as_version=4)
    text = "\n".join(c.source for c in nb.cells)
    assert BEGIN not in text and "write your code here" in text
    source = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for grade_id, cell in answer_cells(source).items():
        body = cell.source.split(BEGIN)[1].split(END)[0].strip()
        assert body not in text, grade_id


def test_feedback_shows_the_checkers_diagnosis(graded):
    course, _, _ = graded
    text = {}
    for student in ("ada", "bob"):
        page = (course / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html").read_text()
        page = html.unescape(re.sub(r"<[^>]+>", " ", re.sub(r"<style.*?</style>", "", page,
                                                             flags=re.DOTALL)))
        text[student] = re.sub(r"\s+", " ", page)
    assert "✗" not in text["ada"]
    # the test cell's score, then the checker's verdict and its diagnosis (some words)
    assert re.search(r"Grade cell: check_1_3 Score: 0\.0 / 1\.0 [^✗]*✗ Exercise 1\.3 [^✗]{40}",
                     text["bob"]), text["bob"]


def test_nbgrader_scores_one_point_per_passed_exercise(graded):
    course, released, rows = graded
    nb = nbformat.read(course / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    total = sum(c.metadata.nbgrader.get("points", 0) for c in nb.cells)
    assert total >= 6
    assert float(rows["ada"]["max_score"]) == total
    assert float(rows["ada"]["score"]) == total
    # bob: 1.3 and 1.4 wrong; his `pass` in place of 1.5's check cell is undone by
    # nbgrader (locked cells are restored from the gradebook), and 1.5's answer is right
    assert float(rows["bob"]["score"]) == total - 2
