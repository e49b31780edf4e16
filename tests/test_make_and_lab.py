"""`make` stays quiet where students type it.

* `make check` ends with the scoreboard's own verdict line and exits 0 once it has checked
  (an exercise not yet passed is progress, not an error: no "make: *** ... Error 1" line);
  it fails when it cannot check. `python -m panpriv_teach check` keeps the pass/fail status
  (1 while an exercise is not passed) for scripts.
* JupyterLab's terminals under `make lab` get the course's environment without make's
  variables (MAKELEVEL, MAKEFLAGS, ...): a `make` typed there prints no "make[1]: Entering
  directory" lines. Shown on the environment `lab` hands to JupyterLab (its terminals inherit
  it), against the same environment with make's variables, which does print them.

Each runs the repository's Makefile in a temporary course folder holding a copy of exercises/
(nothing started), with the repository's .venv (never reinstalled: `-o` its install stamp).
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from panpriv_teach.classroom.workspace import MAKE_VARIABLES, course_environment

ROOT = Path(__file__).resolve().parents[1]
VENV = ROOT / ".venv"
MAKE = ["make", "-f", str(ROOT / "Makefile"), f"VENV={VENV}", "-o", f"{VENV}/.installed"]


@pytest.fixture
def course(tmp_path) -> Path:
    if shutil.which("make") is None:
        pytest.skip("needs make")
    shutil.copytree(ROOT / "exercises", tmp_path / "exercises")
    return tmp_path


def make(course: Path, *args: str, env=None) -> subprocess.CompletedProcess:
    """`make` typed in a fresh terminal (by default without the variables of a `make` this
    suite may itself run under, as in `make test`)."""
    if env is None:
        env = {k: v for k, v in os.environ.items() if k not in MAKE_VARIABLES}
    return subprocess.run([*MAKE, *args], cwd=course, capture_output=True, text=True,
                          timeout=300, env=env)


def test_make_check_ends_with_its_own_verdict_and_exits_0_while_exercises_remain(course):
    modules = len(list((course / "exercises").glob("*.ipynb")))
    done = make(course, "check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == f"0 of {modules} modules fully passed.", done.stdout
    assert "make" not in done.stderr and "***" not in done.stdout + done.stderr, done.stderr


def test_make_check_fails_when_it_cannot_check_and_the_cli_keeps_a_pass_fail_status(course):
    missing = make(course, "check", "NB=my_work/99_none.ipynb")
    assert missing.returncode != 0 and "no such notebook: my_work/99_none.ipynb" in missing.stderr
    cli = subprocess.run([str(VENV / "bin" / "python"), "-m", "panpriv_teach", "check"], cwd=course,
                         capture_output=True, text=True, timeout=300)
    assert cli.returncode == 1 and cli.stdout.splitlines()[-1].endswith("modules fully passed.")


def test_lab_terminals_get_no_make_variables(course):
    inherited = {**os.environ, "MAKELEVEL": "1", "MAKEFLAGS": "w", "MFLAGS": "-w"}   # in a recipe
    leaky = make(course, "help", env=inherited)
    assert "make[1]: Entering directory" in leaky.stdout, leaky.stdout   # what students saw
    env = course_environment(inherited)
    assert not set(MAKE_VARIABLES) & set(env)
    quiet = make(course, "help", env=env)
    assert quiet.returncode == 0 and quiet.stdout.startswith("help\t"), quiet.stdout
    assert "make[" not in quiet.stdout + quiet.stderr and "Entering" not in quiet.stdout
