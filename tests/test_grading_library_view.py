"""Issue 24, the worker's library holds no answers: in the view a notebook of a module is
graded with, each `solved_by` function of the module is a stub naming its exercise (its code
is nowhere in the view), the private helpers behind it are gone, everything else is the
library line for line, and the checkers are absent. A module's tools (solved_by functions
its handout gives the student) come in a second view, used only after their exercises."""
from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from panpriv_teach import attacks, counters, ppcum, reconstruction
from panpriv_teach.classroom.grading.course import checker_modules, course_module
from panpriv_teach.classroom.grading.library_view import (PACKAGE, library_files,
                                                          library_view, write_views)
from panpriv_teach.classroom.sandbox import site_paths


def run_in(view, code: str) -> str:
    """Run `code` in a fresh Python whose library is the view (as the worker does)."""
    done = subprocess.run([sys.executable, "-I", "-S", "-c",
                           "import os, sys; sys.path[:0] = sys.argv[1].split(os.pathsep)\n" + code,
                           os.pathsep.join([str(view), *site_paths()])],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(scope="module")
def views(tmp_path_factory):
    folder = tmp_path_factory.mktemp("views")
    return {m: write_views(course_module(m), folder / m) for m in
            ("01_dp_basics", "04_continual_counting", "05_ppcum", "07_lower_bounds")}


def source_of(view, module: str) -> str:
    return (Path(view) / "panpriv_teach" / f"{module}.py").read_text()


def body_lines(function) -> list:
    """The statements of a library function's body (not its docstring), as source lines."""
    lines, _ = inspect.getsourcelines(function)
    return [line.strip() for line in lines[1:] if line.strip() and not line.strip().startswith(
        ('"""', "#")) and len(line.strip()) > 25]


def test_a_solved_by_function_is_a_stub_naming_its_exercise(views):
    view = views["05_ppcum"].first
    got = run_in(view, "from panpriv_teach import ppcum\n"
                       "try:\n    ppcum.erased_nodes(3, 8)\n"
                       "except RuntimeError as e:\n    print(e)")
    assert got == ("panpriv_teach.ppcum.erased_nodes is not available while grading: "
                   "exercise 5.1 asks you to write it")
    text = source_of(view, "ppcum")
    code = body_lines(ppcum.erased_nodes) + body_lines(ppcum.coupling_shift)
    assert len(code) >= 4 and not [line for line in code if line in text]


def test_every_other_line_keeps_its_number(views):
    """Stubs and removals are padded: a traceback into the library shows the right line."""
    original = (PACKAGE / "ppcum.py").read_text().split("\n")
    viewed = source_of(views["05_ppcum"].first, "ppcum").split("\n")
    assert len(viewed) == len(original)
    _, line = inspect.getsourcelines(ppcum.min_shift_cost)   # below every stub
    assert viewed[line - 1] == original[line - 1]
    assert viewed[line - 1].startswith("def min_shift_cost(")


def test_the_private_helpers_behind_an_answer_are_gone(views):
    """floating_point_attack (1.7) is the only user of attacks._can_produce and
    _unsafe_release: both go; helpers still used elsewhere stay."""
    text = source_of(views["01_dp_basics"].first, "attacks")
    tree = ast.parse(text)
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    assert {"_can_produce", "_unsafe_release"} <= set(vars(attacks))
    assert not {"_can_produce", "_unsafe_release"} & defined
    assert {"dictionary_attack", "floating_point_attack"} <= defined    # kept; a stub


def test_an_inherited_method_is_stubbed_on_the_declared_class_only(views):
    """4.1 declares SimpleCounter.step, which SimpleCounter inherits from ContinualCounter:
    SimpleCounter's is a stub, BinaryTreeCounter's still works."""
    got = run_in(views["04_continual_counting"].first,
                 "from panpriv_teach.counters import BinaryTreeCounter, SimpleCounter\n"
                 "print(type(BinaryTreeCounter(8, 1.0, rng=1).step(1)).__name__)\n"
                 "try:\n    SimpleCounter(1.0, rng=1).step(1)\n"
                 "except RuntimeError as e:\n    print(e)")
    assert got.split("\n") == ["float", "panpriv_teach.counters.SimpleCounter.step is not "
                               "available while grading: exercise 4.1 asks you to write it"]
    assert "step" not in vars(counters.SimpleCounter)       # the library itself is untouched


def test_the_checkers_and_the_grader_are_not_in_the_view(views):
    files = {p.as_posix() for p in library_files()}
    assert "exercises/harness.py" in files and "classroom/grading/worker.py" in files
    assert not {"exercises/ppcum.py", "exercises/density.py", "classroom/grading/notebook.py",
                "classroom/release.py", "__main__.py"} & files
    view = Path(views["05_ppcum"].first) / "panpriv_teach"
    assert not (view / "exercises" / "ppcum.py").exists()


def test_a_modules_tools_come_in_a_second_view_after_their_exercise(views):
    """Lecture 07's handout imports reconstruct_lp (the answer of 7.2) for 7.4 and 7.6."""
    lower = views["07_lower_bounds"]
    assert lower.after == ("7.2",) and lower.later is not None
    code = ("from panpriv_teach import reconstruction\n"
            "print('def reconstruct_lp' in open(reconstruction.__file__).read() and "
            "'linprog' in open(reconstruction.__file__).read())\n"
            "try:\n    reconstruction.reconstruct_lp([[1]], [1])\n    print('runs')\n"
            "except RuntimeError as e:\n    print('stub')")
    assert run_in(lower.first, code).split("\n")[-1] == "stub"
    assert run_in(lower.later, code).split("\n")[-1] == "runs"
    assert views["05_ppcum"].later is None


IMPORT_EVERY_VIEW = """\
import importlib, json, sys, traceback
found = {}
for module, view in json.loads(sys.argv[1]).items():
    for name in [n for n in sys.modules if n.split(".")[0] == "panpriv_teach"]:
        del sys.modules[name]                       # the previous view's library
    sys.path.insert(0, view)
    try:
        names = json.loads(sys.argv[2])[module]
        loaded = [importlib.import_module("panpriv_teach." + n) for n in names]
        outside = [m.__name__ for m in loaded if not m.__file__.startswith(view + "/")]
        found[module] = f"not from the view: {outside}" if outside else "ok"
    except Exception:
        found[module] = traceback.format_exc()
    sys.path.remove(view)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """Every module's view imported whole, one view after the other in one fresh Python (the
    library's modules are dropped from sys.modules between two views, numpy and the other
    dependencies stay): {module: "ok" or what failed}."""
    folder = tmp_path_factory.mktemp("whole")
    views, names = {}, {}
    for module in sorted(checker_modules()):
        view = library_view(course_module(module), folder / module)
        views[module] = str(view)
        names[module] = sorted(p.stem for p in (view / "panpriv_teach").glob("*.py")
                               if p.stem not in ("__init__", "widgets"))
    done = subprocess.run([sys.executable, "-I", "-S", "-c",
                           "import sys; sys.path[:0] = " + repr(site_paths()) + "\n"
                           + IMPORT_EVERY_VIEW, json.dumps(views), json.dumps(names)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("module", sorted(checker_modules()))
def test_every_modules_view_imports_whole(module, imported):
    """No stub or removal breaks an import: every module of the view loads (from the view)."""
    assert imported[module] == "ok", imported[module]
    assert reconstruction.reconstruct_lp.__name__ == "reconstruct_lp"
