"""The course as an nbgrader course directory: `python -m panpriv_teach nbgrader OUT`.

OUT/nbgrader_config.py and OUT/source/NN_topic/NN_topic.ipynb for every solution
notebook, with nbgrader's cell metadata (schema 3):

- an answer cell (a code cell holding `### BEGIN SOLUTION` ... `### END SOLUTION`, the
  markers nbgrader itself uses) is an autograded answer cell; nbgrader's
  `generate_assignment` replaces each block by the stub of `ClearSolutions.code_stub`;
- a check cell `check.exercise_N_k(answer)` becomes an autograded test cell worth one
  point, calling the checker with `strict=True` so that a failed check raises (and
  nbgrader gives 0);
- a markdown answer block becomes a manually graded answer cell (0 points: the course's
  points are its checked exercises);
- every other cell is read-only; `solution-only` cells and the notebook's final
  `check.summary()` cell (a progress line for students) are left out.

The directory then works with nbgrader unmodified: `nbgrader generate_assignment NN_topic`,
collect submissions in `submitted/<student>/NN_topic/`, `nbgrader autograde NN_topic`,
`nbgrader export`. An existing OUT must be empty or an earlier export: only the files
the export wrote are replaced (never `submitted/`, `autograded/` or the gradebook).
"""
from __future__ import annotations

import ast
import copy
import json
import re
from pathlib import Path

import nbformat

from panpriv_teach.classroom.notebooks import BEGIN, SOLUTION_ONLY, _source, dumps, exercise_of_cells
from panpriv_teach.classroom.release import ReleaseError

MANIFEST = ".panpriv-nbgrader.json"
_SUMMARY = re.compile(r"^\s*check\.summary\(\s*\)\s*;?\s*$")
_CHECK_NAME = re.compile(r"^exercise_(\d+)_(\d+)$")

CONFIG = '''\
"""nbgrader configuration of the panpriv-teach course (written by
`python -m panpriv_teach nbgrader`). Run nbgrader in this folder, with the course's
environment (the checkers import panpriv_teach)."""
c = get_config()  # noqa: F821 (nbgrader defines it)

c.CourseDirectory.course_id = "panpriv-teach"
# the stub students see where an answer goes (the course's own checkers read it as
# "not attempted")
c.ClearSolutions.code_stub = {"python": 'raise NotImplementedError("write your code here")'}
c.ClearSolutions.text_stub = "*Write your answer here.*"
# the checkers are statistical and take a few seconds; a never-ending answer is
# stopped by the checker's own time limit first
c.Execute.timeout = 300
c.Autograde.create_student = True
'''


def _nbgrader(grade_id: str, *, solution=False, grade=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
            "solution": solution, "task": False}
    if grade:
        meta["points"] = points
    return meta


def strict_checks(source: str) -> tuple[str, list]:
    """The cell's source with `strict=True` added to every `check.exercise_N_k(...)` call
    that lacks it, and the exercise numbers called."""
    tree = ast.parse(source)
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and _CHECK_NAME.match(node.func.attr)
             and isinstance(node.func.value, ast.Name) and node.func.value.id == "check"]
    numbers = [".".join(_CHECK_NAME.match(c.func.attr).groups()) for c in calls]
    lines = source.split("\n")
    # insert after the last argument (or before the closing parenthesis of an empty call),
    # from the end of the source so earlier positions stay valid; ast counts UTF-8 bytes
    edits = []
    for call in calls:
        if any(k.arg == "strict" for k in call.keywords):
            continue
        arguments = [*call.args, *(k.value for k in call.keywords)]
        if arguments:
            last = max(arguments, key=lambda a: (a.end_lineno, a.end_col_offset))
            edits.append((last.end_lineno - 1, last.end_col_offset, ", strict=True"))
        else:
            edits.append((call.end_lineno - 1, call.end_col_offset - 1, "strict=True"))
    for row, col, text in sorted(edits, reverse=True):
        line = lines[row].encode("utf-8")
        lines[row] = (line[:col] + text.encode("utf-8") + line[col:]).decode("utf-8")
    return "\n".join(lines), numbers


def assignment_notebook(solution_nb) -> nbformat.NotebookNode:
    """The nbgrader source notebook of one solution notebook (the input is not modified)."""
    nb = copy.deepcopy(solution_nb)
    cells, used = [], set()

    def unique(grade_id):
        name, n = grade_id, 2
        while name in used:
            name, n = f"{grade_id}_{n}", n + 1
        used.add(name)
        return name

    for index, (cell, number) in enumerate(zip(nb.cells, exercise_of_cells(nb))):
        source = _source(cell)
        if SOLUTION_ONLY in cell.metadata.get("tags", []) or _SUMMARY.match(source):
            continue
        cell.source = source
        label = (number or "").replace(".", "_")
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
            checks = []
            if "check." in source:
                try:
                    cell.source, checks = strict_checks(source)
                except SyntaxError:
                    checks = []
            if any(line.strip() == BEGIN for line in source.split("\n")):
                meta = _nbgrader(unique(f"answer_{label}"), solution=True)
            elif checks:
                meta = _nbgrader(unique("check_" + "_".join(n.replace(".", "_") for n in checks)),
                                 grade=True, locked=True, points=len(checks))
            else:
                meta = _nbgrader(unique(f"cell_{index}"), locked=True)
        elif cell.cell_type == "markdown" and any(line.strip() == BEGIN
                                                  for line in source.split("\n")):
            meta = _nbgrader(unique(f"written_{label}"), solution=True, grade=True, points=0)
        else:
            meta = _nbgrader(unique(f"cell_{index}"), locked=True)
        cell.metadata["nbgrader"] = meta
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    nb.metadata.pop("panpriv_teach", None)
    return nb


def export(solutions_dir="solutions", out="nbgrader") -> Path:
    """Write the nbgrader course directory to `out` and return it (see the module doc)."""
    from panpriv_teach.classroom.release import _check_target
    solutions, out = Path(solutions_dir), Path(out).resolve()
    paths = sorted(solutions.glob("*.ipynb"))
    if not paths:
        raise ReleaseError(f"no solution notebooks in {solutions}/")
    earlier = _check_target(out, MANIFEST)
    files = {"nbgrader_config.py": CONFIG}
    for path in paths:
        nb = assignment_notebook(nbformat.read(path, as_version=4))
        files[f"source/{path.stem}/{path.name}"] = dumps(nb)
    out.mkdir(parents=True, exist_ok=True)
    for rel in earlier:
        if rel not in files:
            (out / rel).unlink(missing_ok=True)
    for rel, text in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text(text, encoding="utf-8")
    (out / MANIFEST).write_text(json.dumps({"files": sorted(files)}, indent=1) + "\n",
                                encoding="utf-8")
    return out
