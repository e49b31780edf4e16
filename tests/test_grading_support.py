"""Helpers for the grading tests (no tests here): real student notebooks built from the
course's exercise notebooks, with the solutions' answers or with given code."""
from __future__ import annotations

import os
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _stub_of(cell) -> str | None:
    found = re.search(r'Exercise (\d+\.\d+): write your code here', cell.source)
    return found and found[1]


def student_notebook(module: str, answers: dict | None = None, checks: dict | None = None,
                     extra: dict | None = None):
    """exercises/<module>.ipynb with every answer cell replaced by the solution's cell of the
    same id (a correct notebook), then: `answers` {number: source} replaces the answer cell
    of that exercise ("stub" keeps the stub), `checks` {number: source} its check cell,
    `extra` {number: source} adds a code cell right after its check cell."""
    answers, checks, extra = answers or {}, checks or {}, extra or {}
    nb = nbformat.read(ROOT / "exercises" / f"{module}.ipynb", as_version=4)
    solved = {c.get("id"): c.source for c in
              nbformat.read(ROOT / "solutions" / f"{module}.ipynb", as_version=4).cells}
    cells = []
    for cell in nb.cells:
        number = _stub_of(cell) if cell.cell_type == "code" else None
        check = re.search(r"check\.exercise_(\d+)_(\d+)\(", cell.source) if cell.cell_type == "code" else None
        check = check and f"{check[1]}.{check[2]}"
        if number:
            given = answers.get(number)
            cell.source = cell.source if given == "stub" else given or solved[cell.get("id")]
        if check and check in checks:
            cell.source = checks[check]
        cells.append(cell)
        if check and check in extra:
            cells.append(nbformat.v4.new_code_cell(extra[check]))
    nb.cells = cells
    return nb


def write(nb, folder: Path, name: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.ipynb"
    nbformat.write(nb, path)
    return path


def statuses(grade) -> dict:
    return {r.exercise: r.status for r in grade.results}


def diagnoses(grade) -> dict:
    return {r.exercise: r.diagnosis for r in grade.results}


def sandbox_or_skip():
    """The grading sandbox (bubblewrap): the test is skipped without it, except under CI=true,
    where it fails (.ci/run installs it)."""
    from panpriv_teach.classroom.sandbox import Sandbox, SandboxUnavailable
    try:
        return Sandbox.find(hidden=[ROOT])
    except SandboxUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{exc} (CI=true: a missing sandbox is a failure)", pytrace=False)
        pytest.skip(str(exc))
