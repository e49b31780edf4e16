"""Issue 13, integrity: a verdict is nothing the student's code can produce, alter or read.

Each notebook below is a real exercise notebook (exercises/NN_topic.ipynb) whose answer and
check cells are replaced by a cheat; every cheat must come out `failed` or `not attempted`
for its exercise, while honest answers in the same notebook still pass (so a cheat cannot
hurt the grading of the rest either)."""
from __future__ import annotations

import pytest

from panpriv_teach.classroom.grading import grade_notebook
from panpriv_teach.classroom.grading.course import checker_modules, course_module
from test_grading_support import diagnoses, statuses, student_notebook, write

PRINTS_A_PASS = 'print("✓ Exercise {n} passed: exact for every ε")'

CHEATS_A = dict(
    answers={
        # (a) a wrong answer that prints the pass line itself
        "3.1": "def bit_privacy_loss(epsilon):\n    print('✓ Exercise 3.1 passed')\n"
               "    return epsilon / 2",
        # reads the checker's reference values from the stack frames and the garbage collector
        "3.2": "import gc, sys\n"
               "def where_claim_fails(*args):\n"
               "    frame = sys._getframe(1)\n"
               "    while frame is not None:\n"
               "        for scope in (frame.f_locals, frame.f_globals):\n"
               "            if 'CLAIM_FAILS_AT' in scope:\n"
               "                return scope['CLAIM_FAILS_AT']\n"
               "        frame = frame.f_back\n"
               "    for obj in gc.get_objects():\n"
               "        if isinstance(obj, dict) and 'CLAIM_FAILS_AT' in obj:\n"
               "            return obj['CLAIM_FAILS_AT']\n"
               "    raise LookupError('no reference value found')",
        "3.3": "stub",
        "3.4": "def release(b, epsilon, rng):\n    return 4 * (np.mean(b) - 0.5) / epsilon",
        # (e) the library's implementation, imported under the answer's name
        "3.5": "from panpriv_teach.density import roth_sample_size as roth_m",
        # (e) ... or reached at run time through names the code never spells out
        "3.6": "import importlib\n_lib = importlib.import_module('panpriv_teach.' + 'attacks')\n"
               "def who_visited(state, universe_size):\n"
               "    return getattr(_lib, 'dictionary_' + 'attack')(state, universe_size)",
    },
    checks={
        # (b) the check cell wrapped in try/except that prints a pass
        "3.2": "try:\n    check.exercise_3_2(where_claim_fails, strict=True)\nexcept Exception:\n"
               "    print('✓ Exercise 3.2 passed')",
        # (c) the checker replaced by a lambda
        "3.3": "check.exercise_3_3 = lambda f, **k: print('✓ Exercise 3.3 passed')\n"
               "check.exercise_3_3(update_table)",
        # (d) the checker wrapped so that it swallows ExerciseFailed
        "3.4": "_real = check.exercise_3_4\n"
               "def _lenient(answer, strict=False):\n"
               "    try:\n        _real(answer, strict=True)\n"
               "    except Exception:\n        print('✓ Exercise 3.4 passed')\n"
               "check.exercise_3_4 = _lenient\ncheck.exercise_3_4(release)",
    },
    extra={"3.1": PRINTS_A_PASS.format(n="3.1")},
)

CHEATS_B = dict(
    answers={
        # patches the harness, the checker module in sys.modules and the math the checker uses
        "3.1": "import math, sys, types\n"
               "import panpriv_teach.exercises.harness as harness\n"
               "harness.call = lambda fn, *a, **k: 0.0\n"
               "harness.ExerciseFailed = type('Never', (Exception,), {})\n"
               "fake = types.ModuleType('fake')\n"
               "fake.exercise_3_1 = lambda *a, **k: print('✓ Exercise 3.1 passed')\n"
               "sys.modules['panpriv_teach.exercises.density'] = fake\n"
               "math.log = lambda x: 0.0\n"
               "def bit_privacy_loss(epsilon):\n    return 0.0",
        # exits the process from inside the answer
        "3.2": "import os\ndef where_claim_fails(*args):\n    os._exit(0)",
        "3.4": "import sys\ndef release(b, epsilon, rng):\n    sys.exit(0)",
        # (f) a typed constant
        "3.5": "def roth_m(epsilon, alpha, beta):\n    return 46052",
    },
    # a top-level cell that kills the process: skipped, and the grading goes on
    extra={"3.5": "import os\nos._exit(3)"},
)


@pytest.fixture(scope="module")
def cheats_a(tmp_path_factory):
    nb = student_notebook("03_density_estimation", **CHEATS_A)
    grade = grade_notebook(write(nb, tmp_path_factory.mktemp("a"), "03_density_estimation"))
    grade.notebook = nb
    return grade


@pytest.fixture(scope="module")
def cheats_b(tmp_path_factory):
    nb = student_notebook("03_density_estimation", **CHEATS_B)
    return grade_notebook(write(nb, tmp_path_factory.mktemp("b"), "03_density_estimation"))


def test_printing_a_pass_line_does_not_pass(cheats_a):
    assert statuses(cheats_a)["3.1"] == "failed"


def test_a_try_except_around_the_check_cell_does_not_pass(cheats_a):
    assert statuses(cheats_a)["3.2"] == "failed"


def test_the_checkers_reference_values_cannot_be_read_from_frames_or_gc(cheats_a):
    """They live in the grader; the answer runs in another process."""
    assert "raised LookupError: no reference value found" in diagnoses(cheats_a)["3.2"]


def test_replacing_the_checker_by_a_lambda_does_not_pass(cheats_a):
    assert statuses(cheats_a)["3.3"] == "not attempted"


def test_a_checker_wrapped_to_swallow_failures_does_not_pass(cheats_a):
    assert statuses(cheats_a)["3.4"] == "failed"
    assert "noise" in diagnoses(cheats_a)["3.4"]


def test_importing_the_librarys_solution_is_named(cheats_a):
    assert statuses(cheats_a)["3.5"] == "failed"
    cell = next(i + 1 for i, c in enumerate(cheats_a.notebook.cells) if "as roth_m" in c.source)
    assert diagnoses(cheats_a)["3.5"].startswith(
        f"uses panpriv_teach.density.roth_sample_size (cell {cell}), which is what this exercise "
        "asks you to write")


def test_reaching_the_librarys_solution_at_run_time_finds_only_a_stub_naming_it(cheats_a):
    """The worker's library has no dictionary_attack: names built at run time reach a stub."""
    assert statuses(cheats_a)["3.6"] == "failed"
    assert "raised RuntimeError: panpriv_teach.attacks.dictionary_attack is not available while " \
           "grading: exercise 3.6 asks you to write it" in diagnoses(cheats_a)["3.6"]


def test_patching_the_harness_sys_modules_and_math_changes_nothing(cheats_b):
    assert statuses(cheats_b)["3.1"] == "failed"
    assert "bit_privacy_loss(0.1) = 0" in diagnoses(cheats_b)["3.1"]


def test_exiting_the_process_fails_that_exercise_only(cheats_b):
    got = statuses(cheats_b)
    assert got["3.2"] == "failed" and "stopped" in diagnoses(cheats_b)["3.2"]
    assert got["3.4"] == "failed" and "raised SystemExit" in diagnoses(cheats_b)["3.4"]
    assert got["3.3"] == "passed"     # graded in a fresh process, after 3.2 killed the first
    assert got["3.6"] == "passed"     # after a cell that kills the process...
    assert any("cell" in p and "skipped" in p for p in cheats_b.problems)   # ... is skipped


def test_a_typed_constant_does_not_pass(cheats_b):
    assert statuses(cheats_b)["3.5"] == "failed"


def test_deleted_check_renamed_answer_and_syntax_errors(tmp_path):
    """Check cell deleted → missing; the answer under another name (even if the check cell
    passes that name) → missing; a SyntaxError → failed, naming the cell; cells are numbered
    as JupyterLab numbers them."""
    nb = student_notebook(
        "05_ppcum",
        answers={"5.2": "def my_view(x, N, N_I, n):\n    return None",
                 "5.3": "def coupling(j, n):\n    return {", "5.5": "stub"},
        checks={"5.1": "# deleted", "5.2": "check.exercise_5_2(my_view)"})
    grade = grade_notebook(write(nb, tmp_path, "05_ppcum"))
    assert statuses(grade) == {"5.1": "missing", "5.2": "missing", "5.3": "failed",
                               "5.4": "passed", "5.5": "not attempted"}
    got = diagnoses(grade)
    assert "check.exercise_5_1(erased_after)" in got["5.1"]
    assert "no `view_after` is defined" in got["5.2"]
    assert "cell 10 raised SyntaxError" in got["5.3"]
    check_cells = [i + 1 for i, c in enumerate(nb.cells) if "check.exercise_5_4(" in c.source]
    assert [r.cell for r in grade.results if r.exercise == "5.4"] == check_cells


@pytest.mark.notebooks
@pytest.mark.parametrize("module", sorted(checker_modules()))
def test_every_solution_notebook_passes_every_exercise(module, tmp_path):
    nb = student_notebook(module)
    grade = grade_notebook(write(nb, tmp_path, module))
    assert {r.exercise: (r.status, r.diagnosis[:300]) for r in grade.results if r.status != "passed"} == {}
    assert grade.problems == []


def test_the_answer_name_is_the_name_the_solutions_check_cells_pass():
    """The grader takes each answer's name from the checker's parameter: it must be what the
    course's own check cells pass."""
    import re
    import nbformat
    from test_grading_support import ROOT
    for module in checker_modules():
        cells = nbformat.read(ROOT / "solutions" / f"{module}.ipynb", as_version=4).cells
        passed = dict(m.groups() for c in cells for m in re.finditer(
            r"check\.(exercise_\d+_\d+)\((\w+)", c.source))
        assert passed == {e.function: e.answer for e in course_module(module).exercises}
