"""The notebook pipeline (panpriv_teach.classroom.notebooks and `python -m panpriv_teach`):
generation of exercise notebooks, staleness, execution, and the `check` command (whose
grades come from panpriv_teach.classroom.grading) against `pytest --nbval-lax`.

The fixture notebook is stored as tests/fixtures/solutions/99_demo.ipynb.json so that
`pytest --nbval tests` does not collect it; the tests copy it into a temporary course
folder as .ipynb, beside its checker module tests/fixtures/demo_checks.py. Kernel runs
are shared through module-scoped fixtures (each costs 1-2 s).
"""
import copy
import csv
import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from panpriv_teach.classroom import main_without_iri_grammar, scoreboard
from panpriv_teach.classroom.release import release
from test_grading_support import sandbox_or_skip
from panpriv_teach.__main__ import main
from panpriv_teach.classroom.notebooks import (
    _CHECK_CALL, GenerationError, cell_errors, checker_module_name, dumps, execute, execute_copy,
    exercise_of_cells, generate, make_exercise_notebook, stale_exercises, staleness)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SOLUTION_JSON = FIXTURES / "solutions" / "99_demo.ipynb.json"
CHECKS = FIXTURES / "demo_checks.py"
STUB = 'raise NotImplementedError("Exercise {}: write your code here")'


def make_course(root: Path) -> Path:
    """A miniature course in `root`: solutions/99_demo.ipynb, exercises/ generated from
    it, and the checker module beside each notebook (a kernel's cwd is its folder)."""
    for folder in ("solutions", "exercises"):
        (root / folder).mkdir(parents=True)
        shutil.copy(CHECKS, root / folder)
    shutil.copy(SOLUTION_JSON, root / "solutions" / "99_demo.ipynb")
    generate(root / "solutions", root / "exercises")
    return root


def read(path) -> nbformat.NotebookNode:
    return nbformat.read(path, as_version=4)


def cell_with(nb, text: str) -> int:
    """The index of the only cell whose source contains `text`."""
    found = [i for i, cell in enumerate(nb.cells) if text in cell.source]
    assert len(found) == 1, (text, found)
    return found[0]


@pytest.fixture(scope="module")
def course(tmp_path_factory) -> Path:
    """Shared and read-only: tests that change files make their own copy."""
    return make_course(tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="module")
def solution():
    return read(SOLUTION_JSON)


@pytest.fixture(scope="module")
def generated(solution):
    return make_exercise_notebook(solution, "solutions/99_demo.ipynb")


# ---------------------------------------------------------------- generation

def test_fixture_solution_has_outputs_and_markers(solution):
    """Sanity: the fixture exercises what generation must remove."""
    assert any(cell.get("outputs") for cell in solution.cells)
    assert sum(cell.source.count("### BEGIN SOLUTION") for cell in solution.cells) == 7


def test_code_blocks_become_stubs_with_the_exercise_number_and_indentation(generated):
    sources = [cell.source for cell in generated.cells]
    assert ('def total(xs):\n    """The sum of the numbers in xs."""\n    ' + STUB.format("99.1")
            in sources)
    mean = sources[cell_with(generated, "def mean")]
    assert mean == ('def mean(xs):\n    """The mean of a non-empty list."""\n'
                    f'    {STUB.format("99.2")}\n'
                    '    if not xs:\n'
                    '        raise ValueError("the mean of an empty list is undefined")\n'
                    f'    {STUB.format("99.2")}')
    counter = sources[cell_with(generated, "class Counter")]
    assert counter.count(f"        {STUB.format('99.3')}\n") == 2
    assert counter.endswith(f"    def output(self):\n        {STUB.format('99.3')}")
    assert not any("SOLUTION" in source or "self.count" in source or "result" in source
                   for source in sources)


def test_every_generated_code_cell_compiles(generated):
    for cell in generated.cells:
        if cell.cell_type == "code":
            compile(cell.source, "<cell>", "exec")


def test_markdown_solution_becomes_a_prompt(solution, generated):
    index = cell_with(solution, "Its output depends on the stream")
    cell_id = solution.cells[index].id
    [cell] = [c for c in generated.cells if c.id == cell_id]
    assert cell.cell_type == "markdown" and cell.source == "*Write your answer here.*"


def test_solution_only_cells_are_dropped_and_the_rest_kept_in_order(solution, generated):
    kept = [c.id for c in solution.cells if "solution-only" not in c.metadata.get("tags", [])]
    assert len(kept) == len(solution.cells) - 1
    assert [c.id for c in generated.cells] == kept
    assert "mean([1, 2, 3, 4])" not in [c.source for c in generated.cells]


def test_outputs_are_cleared_and_metadata_kept(solution, generated):
    for cell in generated.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None
    assert generated.metadata.kernelspec == solution.metadata.kernelspec
    assert generated.metadata.panpriv_teach == {"generated_from": "solutions/99_demo.ipynb"}
    assert "panpriv_teach" not in solution.metadata          # the input is not modified
    assert any(cell.get("outputs") for cell in solution.cells)
    assert dumps(solution) == SOLUTION_JSON.read_text(encoding="utf-8")


def test_generate_writes_deterministic_bytes_and_records_the_source(course, tmp_path):
    target = course / "exercises" / "99_demo.ipynb"
    first = target.read_bytes()
    assert read(target).metadata.panpriv_teach.generated_from == "solutions/99_demo.ipynb"
    other = make_course(tmp_path / "again")
    assert (other / "exercises" / "99_demo.ipynb").read_bytes() == first
    mtime = target.stat().st_mtime_ns
    assert generate(course / "solutions", course / "exercises") == [str(target)]
    assert target.read_bytes() == first and target.stat().st_mtime_ns == mtime  # untouched


def nb_of(*cells):
    return new_notebook(cells=list(cells))


def test_heading_of_cells_is_the_nearest_exercise_heading():
    nb = nb_of(new_markdown_cell("# Intro\n\nExercise 9.9 in plain text is not a heading"),
               new_code_cell("x = 1"),
               new_markdown_cell("### Exercise 2.1 (optional): warm up"),
               new_code_cell("pass"),
               new_markdown_cell("## A remark\n\n## Exercise 2.2: two headings, the last wins\n"
                                 "## Exercise 2.3"),
               new_markdown_cell("## Not an exercise heading"),
               new_code_cell("pass"))
    assert exercise_of_cells(nb) == [None, None, "2.1", "2.1", "2.3", "2.3", "2.3"]


@pytest.mark.parametrize("cells, words", [
    ([new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1\n    ### END SOLUTION")],
     ["cell 0", "no 'Exercise N.k' heading above it"]),
    ([new_markdown_cell("## Exercise 1.1"),
      new_code_cell("def f():\n    ### BEGIN SOLUTION\n    return 1")],
     ["cell 1", "never closed"]),
    ([new_markdown_cell("## Exercise 1.1"), new_code_cell("x = 1\n### END SOLUTION")],
     ["cell 1", "without a '### BEGIN SOLUTION'"]),
    ([new_markdown_cell("## Exercise 1.1"),
      new_code_cell("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n")],
     ["cell 1", "inside the block opened on line 2"]),
    ([new_markdown_cell("## Exercise 1.1"),
      new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION")],
     ["cell 1", "Exercise 1.1 is at top level", "inside a function"]),
])
def test_broken_markers_give_a_clear_error(cells, words):
    with pytest.raises(GenerationError) as info:
        make_exercise_notebook(nb_of(*cells))
    for word in words:
        assert word in str(info.value)


def test_generate_names_the_notebook_in_errors(tmp_path):
    (tmp_path / "solutions").mkdir()
    bad = nb_of(new_code_cell("def f():\n    ### BEGIN SOLUTION\n    pass\n    ### END SOLUTION"))
    nbformat.write(bad, tmp_path / "solutions" / "01_bad.ipynb")
    with pytest.raises(GenerationError, match=r"01_bad.ipynb, cell 0"):
        generate(tmp_path / "solutions", tmp_path / "exercises")
    assert main(["generate", "--solutions", str(tmp_path / "solutions"),
                 "--exercises", str(tmp_path / "exercises")]) == 1
    assert main(["generate", "--solutions", str(tmp_path / "nowhere")]) == 2


# ---------------------------------------------------------------- staleness

def test_stale_exercises_detects_edits_deletions_orphans_and_solution_changes(tmp_path, capsys):
    root = make_course(tmp_path)
    solutions, exercises = root / "solutions", root / "exercises"
    target = exercises / "99_demo.ipynb"
    assert stale_exercises(solutions, exercises) == []
    args = ["--solutions", str(solutions), "--exercises", str(exercises)]
    assert main(["stale", *args]) == 0

    nb = read(target)                                  # edited by hand
    nb.cells[0].source += "\n\nA note."
    nbformat.write(nb, target)
    assert stale_exercises(solutions, exercises) == [str(target)]
    assert main(["stale", *args]) == 1
    out = capsys.readouterr().out
    assert f"{target}: edited: changed since it was generated" in out
    assert "my_work/" in out and "make exercises BACKUP=1" in out

    target.unlink()                                    # missing
    assert stale_exercises(solutions, exercises) == [str(target)]
    assert main(["generate", *args]) == 0
    assert stale_exercises(solutions, exercises) == []

    shutil.copy(target, exercises / "98_old.ipynb")    # orphaned
    assert stale_exercises(solutions, exercises) == [str(exercises / "98_old.ipynb")]
    (exercises / "98_old.ipynb").unlink()

    nb = read(solutions / "99_demo.ipynb")             # the solution changed
    nb.cells[2].source = nb.cells[2].source.replace("Write", "Now write")
    nbformat.write(nb, solutions / "99_demo.ipynb")
    assert stale_exercises(solutions, exercises) == [str(target)]
    assert main(["stale", *args]) == 1
    assert f"{target}: out of date with" in capsys.readouterr().out
    generate(solutions, exercises)
    assert stale_exercises(solutions, exercises) == []


def test_the_course_exercises_are_up_to_date():
    """CI's guard against a forgotten `make exercises` after editing solutions/.

    Students work in my_work/ (never collected by a test), so their answers never make
    this fail. Someone who answered in exercises/ itself (as an older README said) gets a
    failure naming the file as "edited", and what to do: `make workspace` copies it to
    my_work/ as it is, `make exercises BACKUP=1` moves it to my_work/backup-<date-time>/
    and restores the handout; nothing is ever overwritten."""
    reasons = staleness(ROOT / "solutions", ROOT / "exercises")
    edited = [path for path, why in reasons.items() if why.startswith("edited")]
    assert not edited, (
        f"exercise notebooks changed in place (a student's answers?): {edited}. Students "
        "work in my_work/: run `make workspace` (copies them there, keeping the answers), "
        "then `make exercises BACKUP=1` (moves them to my_work/backup-<date-time>/ and "
        "regenerates the handout).")
    assert reasons == {}, ("exercises/ is out of date with solutions/; run `make exercises` "
                           f"(python -m panpriv_teach generate): {reasons}")


# ---------------------------------------------------------------- execution

def test_execute_stores_outputs_deterministically(tmp_path, solution, capsys):
    shutil.copy(CHECKS, tmp_path)
    path = tmp_path / "99_demo.ipynb"
    cleared = copy.deepcopy(solution)
    for cell in cleared.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    path.write_text(dumps(cleared), encoding="utf-8")
    seconds = execute([path], timeout=60)
    assert list(seconds) == [str(path)] and 0 < seconds[str(path)] < 60
    assert f"{path}: executed in" in capsys.readouterr().out
    executed = read(path)
    assert executed.cells == solution.cells    # the stored fixture's outputs and counts,
    assert all("execution" not in c.metadata for c in executed.cells)   # no timestamps


def test_execute_refuses_exercise_notebooks(course, capsys):
    target = course / "exercises" / "99_demo.ipynb"
    before = target.read_bytes()
    with pytest.raises(ValueError, match="exercises ship without outputs"):
        execute([course / "solutions" / "99_demo.ipynb", target])
    assert main(["execute", str(target)]) == 2
    assert "exercise notebook" in capsys.readouterr().err
    assert main(["execute", str(course / "nothing.ipynb")]) == 2
    assert target.read_bytes() == before


# ---------------------------------------------------------------- checks and the command line

@pytest.mark.parametrize("source, module", [
    ("from panpriv_teach.exercises import dp_basics as check", "panpriv_teach.exercises.dp_basics"),
    ("import numpy as np\nimport demo_checks as check  # the checks", "demo_checks"),
    ("import panpriv_teach.exercises.dp_basics as check", "panpriv_teach.exercises.dp_basics"),
    ("import demo_checks as checker", None),
])
def test_checker_module_name(source, module):
    assert checker_module_name(nb_of(new_code_cell(source))) == module


# ---------------------------------------------------------------- the command line

FRESH = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
PYTHON = str(ROOT / ".venv" / "bin" / "python")
MODULE = "01_dp_basics"


# `python -m pytest`, without rfc3987_syntax's IRI grammar, which jsonschema (imported by nbval's
# nbformat) compiles when it loads: 1.5 s of CPU; no notebook schema has an IRI format (the
# course's own commands do the same, see panpriv_teach/classroom/__init__.py).
PYTEST = main_without_iri_grammar("pytest")


def run(*args, cwd):
    """A command as typed in a fresh terminal: the course's .venv/bin/python, a PATH
    without it."""
    return subprocess.Popen([PYTHON, *args], cwd=cwd, env={**FRESH, "HOME": str(cwd)},
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def with_summary(nb):
    """The notebook ending with its `check.summary()` cell (added if missing)."""
    if not any(c.source.strip() == "check.summary()" for c in nb.cells):
        nb.cells.append(new_code_cell("check.summary()"))
    return nb


def nbval_results(report: Path) -> dict:
    """{folder: (cells run, cells failed, the failures' text)} of each notebook in a JUnit
    report of `pytest --nbval-lax` (one folder per notebook)."""
    import xml.etree.ElementTree as ElementTree
    found: dict = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        folder = case.get("classname").split(".")[0]
        cells, failed, text = found.get(folder, (0, 0, ""))
        bad = [c for c in case if c.tag in ("failure", "error")]
        found[folder] = (cells + 1, failed + bool(bad), text + "".join(
            f"{c.get('message', '')}\n{c.text or ''}\n" for c in bad))
    return found


@pytest.fixture(scope="module")
def commands(tmp_path_factory):
    """Every subprocess at once (they mostly wait for kernels and workers), on lecture
    01's notebooks: the solution (all pass), its generated exercise (none attempted) and
    the solution with the check cell of 1.3 deleted. name → (code, stdout, stderr); the
    notebooks' nbval runs are one pytest (one start-up for four notebooks), whose JUnit
    report gives each notebook's results: "nbval" → {name: (cells, failed, text)}."""
    folder = tmp_path_factory.mktemp("cli")
    solution = with_summary(read(ROOT / "solutions" / f"{MODULE}.ipynb"))
    deleted = copy.deepcopy(solution)
    del deleted.cells[cell_with(deleted, "check.exercise_1_3(")]
    unsummed = copy.deepcopy(deleted)
    del unsummed.cells[cell_with(unsummed, "check.summary()")]
    paths = {}
    for name, nb in (("solution", solution), ("deleted", deleted), ("unsummed", unsummed),
                     ("exercise", make_exercise_notebook(solution))):
        (folder / name).mkdir()
        paths[name] = folder / name / f"{MODULE}.ipynb"
        paths[name].write_text(dumps(nb), encoding="utf-8")
    lax = ["-c", PYTEST, "-p", "no:cacheprovider", "-q", "--nbval-lax", "--junitxml",
           str(folder / "nbval.xml")]
    started = {f"check {name}": run("-m", "panpriv_teach", "check", str(path), cwd=folder)
               for name, path in paths.items() if name != "unsummed"}
    started["nbval"] = run(*lax, *(f"{name}/{path.name}" for name, path in paths.items()),
                           cwd=folder)
    for student, name in (("ada", "solution"), ("bob", "exercise")):
        (folder / "submissions" / student).mkdir(parents=True)
        shutil.copy(paths[name], folder / "submissions" / student)
    course = release(ROOT, folder / "course")   # its manifest vouches for the sources graded
    started["grade"] = run("-m", "panpriv_teach", "grade", str(folder / "submissions"), "--out",
                           str(folder / "grades"), "--jobs", "2", cwd=course)
    started["grade nothing"] = run("-m", "panpriv_teach", "grade", "nowhere", "--out", "g",
                                   cwd=folder)
    started["check no file"] = run("-m", "panpriv_teach", "check", "nope.ipynb", cwd=folder)
    started["check nothing"] = run("-m", "panpriv_teach", "check", cwd=folder)
    before = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in paths.values()}
    done = {name: (*p.communicate(timeout=600), p.returncode) for name, p in started.items()}
    done = {name: (code, out, err) for name, (out, err, code) in done.items()}
    done["nbval results"] = nbval_results(folder / "nbval.xml")
    done["unchanged"] = all((p.read_bytes(), p.stat().st_mtime_ns) == b for p, b in before.items())
    done["exercises"] = len(_CHECK_CALL.findall("\n".join(c.source for c in solution.cells)))
    done["folder"] = folder
    return done


def test_grade_writes_the_gradebook_and_feedback(commands):
    sandbox_or_skip()
    code, out, err = commands["grade"]
    assert code == 0, out + err
    grades = commands["folder"] / "grades"
    with open(grades / "grades.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    n = commands["exercises"]
    assert [(r["student"], r["status"]) for r in rows] == \
        [("ada", "passed")] * n + [("bob", "not attempted")] * n
    assert (grades / "feedback" / "ada.md").is_file() and (grades / "grades.json").is_file()
    code, out, err = commands["grade nothing"]
    assert code == 2 and "no submissions folder 'nowhere'" in err


def test_check_passes_the_solution_and_exits_0(commands):
    code, out, err = commands["check solution"]
    assert code == 0, out + err
    assert out.rstrip().endswith(f"{commands['exercises']} of {commands['exercises']} "
                                 "exercises passed")
    assert commands["unchanged"]


def test_check_of_a_fresh_exercise_notebook_says_not_attempted(commands):
    code, out, err = commands["check exercise"]
    assert code == 1, out + err
    assert re.search(r"· 1\.3 +not attempted +cell \d+ ", out)
    assert out.rstrip().endswith(f"0 of {commands['exercises']} exercises passed (not attempted: "
                                 + ", ".join(f"1.{k}" for k in range(1, commands["exercises"] + 1))
                                 + ")")


def test_check_usage_errors(commands):
    code, out, err = commands["check no file"]
    assert code == 2 and "no such notebook" in err and "nope.ipynb" in err
    code, out, err = commands["check nothing"]       # not in a course folder
    assert code == 2 and "run `check` in the course folder" in err


def test_nbval_and_the_scoreboard_agree_when_a_check_cell_is_deleted(commands):
    """The solution passes both; the fresh exercise fails both; with 1.3's check cell
    deleted, the scoreboard says 1.3 is missing and nbval fails the notebook on the
    summary cell, whose message names 1.3."""
    code, out, err = commands["nbval"]
    assert code == 1, out + err         # failed cells (2, 3, 4, 5: it did not run them)
    results = commands["nbval results"]
    cells, failed, text = results["solution"]
    assert cells > 0 and failed == 0, text
    assert results["exercise"][1] >= 1, results["exercise"]
    code, out, err = commands["check deleted"]
    assert code == 1 and re.search(r"\? 1\.3 +missing +no check cell", out), out + err
    cells, failed, text = results["deleted"]
    assert failed == 1, text
    assert re.search(r"1\.3\b.*?(never\s+checked|not\s+checked|missing)", text, re.S), text


def test_without_its_summary_cell_nbval_misses_a_deleted_check_cell(commands):
    """The one difference README states: delete the summary cell too, and nbval passes
    (no cell raises) while the scoreboard still reports 1.3 missing (previous test)."""
    cells, failed, text = commands["nbval results"]["unsummed"]
    assert cells > 0 and failed == 0, text


def test_main_help_and_usage_errors(capsys):
    assert main(["--help"]) == 0
    assert "generate" in capsys.readouterr().out
    assert main([]) == 2
    assert main(["frobnicate"]) == 2


# ---------------------------------------------------------------- the course's exercises

EXERCISES = sorted((ROOT / "exercises").glob("*.ipynb"))


@pytest.mark.notebooks
@pytest.mark.parametrize("path", EXERCISES or [pytest.param(
    None, marks=pytest.mark.skip(reason="no exercise notebooks in exercises/ yet"))],
    ids=[p.name for p in EXERCISES] or ["none"])
def test_course_exercise_notebook_runs_to_its_stubs(path):
    """A fresh exercise notebook must run top to bottom (as Run All and nbval do) with no
    error but the last cell's: `check.summary()` raises ProgressIncomplete because no
    exercise is done (the check cells show "not attempted" without raising)."""
    nb = execute_copy(path, timeout=120)
    assert "panpriv_teach_score" not in nb.metadata, nb.metadata.get("panpriv_teach_score")
    last = max(i for i, cell in enumerate(nb.cells) if cell.cell_type == "code")
    errors = cell_errors(nb)
    assert [(i, ename) for i, ename, _ in errors] == [(last, "ProgressIncomplete")], \
        f"{path.name} is broken:\n" + "\n".join(f"cell {i}: {e}: {v}" for i, e, v in errors)
    assert nb.cells[last].source.strip() == "check.summary()"


# ---------------------------------------------------------------- the scoreboard's text

def grade_of(module, *results, problems=()):
    """A NotebookGrade as panpriv_teach.classroom.grading returns it (module, results, problems)."""
    return SimpleNamespace(module=module, problems=list(problems), results=[
        SimpleNamespace(exercise=e, title=t, status=s, diagnosis=d, cell=c)
        for e, t, s, d, c in results])


def test_scoreboard_names_cells_as_jupyterlab_counts_them_and_gives_diagnoses():
    grade = grade_of("03_density_estimation",
                     ("3.1", "Claim 4.1, exactly", "passed", "", 5),
                     ("3.2", "where it fails", "failed", "your ε is 0.49:\nlook above 1/2", 8),
                     ("3.3", "the D1 update", "not attempted", "", 11),
                     ("3.4", "the output", "missing", "its check cell was deleted", None))
    text = scoreboard.render(grade, "my_work/03_density_estimation.ipynb")
    lines = text.splitlines()
    assert lines[0] == "my_work/03_density_estimation.ipynb"
    assert re.match(r"  ✓ 3\.1 +passed +cell 5 +Claim 4\.1, exactly$", lines[1])
    assert re.match(r"  ✗ 3\.2 +failed +cell 8 +where it fails$", lines[2])
    assert lines[3:5] == [" " * 10 + "your ε is 0.49:", " " * 10 + "look above 1/2"]
    assert re.match(r"  · 3\.3 +not attempted +cell 11 +the D1 update$", lines[5])
    assert re.match(r"  \? 3\.4 +missing +no check cell +the output$", lines[6])
    assert lines[-1] == ("1 of 4 exercises passed (failed: 3.2; not attempted: 3.3; "
                         "missing: 3.4)")
    assert not scoreboard.all_passed(grade)
    assert scoreboard.all_passed(grade_of("x", ("1.1", "t", "passed", "", 3)))
    assert not scoreboard.all_passed(grade_of("x"))
    broken = grade_of("x", ("1.1", "t", "passed", "", 3),
                      problems=["cell 2 raised ImportError: no module\nnamed foo"])
    assert not scoreboard.all_passed(broken)
    assert scoreboard.render(broken).splitlines()[1:3] == [
        "  ! cell 2 raised ImportError: no module", "    named foo"]


def test_progress_lists_every_module_and_those_not_started(tmp_path, monkeypatch):
    for name in ("01_a", "02_b", "03_c"):
        (tmp_path / "exercises").mkdir(exist_ok=True)
        (tmp_path / "exercises" / f"{name}.ipynb").write_text("{}")
    (tmp_path / "my_work").mkdir()
    grades = {"01_a": grade_of("01_a", ("1.1", "t", "passed", "", 3)),
              "02_b": grade_of("02_b", ("2.1", "t", "passed", "", 3),
                               ("2.2", "u", "error", "the notebook could not run", None))}
    for name in grades:
        (tmp_path / "my_work" / f"{name}.ipynb").write_text("{}")
    monkeypatch.setattr(scoreboard, "_grade", lambda path, timeout: grades[Path(path).stem])
    lines = []
    assert scoreboard.progress(tmp_path, out=lines.append, jobs=1) is False
    assert lines[0].startswith("my_work/02_b.ipynb\n") and "2.2" in lines[0]   # only 02 begun
    assert lines[1] == "Your progress"
    table = "\n".join(lines[lines.index("Your progress"):])
    assert re.search(r"01_a +1 of 1 exercises passed\n", table)
    assert re.search(r"02_b +1 of 2 exercises passed \(error: 2\.2\)\n", table)
    assert re.search(r"03_c +not started \(no my_work/03_c\.ipynb: `make lab` or `make "
                     r"workspace` creates it\)", table)
    assert table.endswith("1 of 3 modules fully passed.")
    (tmp_path / "my_work" / "03_c.ipynb").write_text("{}")
    grades["02_b"] = grades["01_a"]
    grades["03_c"] = grades["01_a"]
    lines.clear()
    assert scoreboard.progress(tmp_path, out=lines.append, jobs=1) is True
    assert lines[-1] == "All exercises of every module passed."
