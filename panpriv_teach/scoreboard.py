"""The student's scoreboards, as `python -m panpriv_teach check` prints them.

`render(grade)` turns one graded notebook (a `panpriv_teach.grading.NotebookGrade`) into
text: one line per exercise with its status and the cell of its check as JupyterLab
numbers it (the status bar's "Cell 5/21"; click it to go to a cell), then the
diagnosis. `progress(course)` grades every notebook in my_work/ and lists the modules not
started yet.
"""
from __future__ import annotations

from pathlib import Path

from panpriv_teach.workspace import WORK_DIR, modules

PASSED = "passed"
_MARK = {"passed": "✓", "failed": "✗", "not attempted": "·", "missing": "?", "error": "!"}


def all_passed(grade) -> bool:
    return bool(grade.results) and all(r.status == PASSED for r in grade.results)


def summary(grade) -> str:
    """"4 of 6 exercises passed" (and what the rest are)."""
    results = grade.results
    passed = sum(r.status == PASSED for r in results)
    rest = {}
    for r in results:
        if r.status != PASSED:
            rest.setdefault(r.status, []).append(r.exercise)
    detail = "; ".join(f"{status}: {', '.join(numbers)}" for status, numbers in rest.items())
    return f"{passed} of {len(results)} exercises passed" + (f" ({detail})" if detail else "")


def render(grade, path="") -> str:
    """The scoreboard of one notebook: a header, one line per exercise, the diagnoses
    indented under it, and the summary line."""
    lines = [str(path or grade.module)]
    for r in grade.results:
        where = f"cell {r.cell}" if r.cell else "no check cell"
        lines.append(f"  {_MARK.get(r.status, ' ')} {r.exercise:<5} {r.status:<14} "
                     f"{where:<14} {r.title}".rstrip())
        if r.status != PASSED and r.diagnosis:
            lines += [" " * 10 + line for line in r.diagnosis.strip().splitlines()]
    lines.append(summary(grade) if grade.results else "no exercises found")
    return "\n".join(lines)


def _grade(path, timeout):
    from panpriv_teach.grading import grade_notebook
    return grade_notebook(path, timeout=timeout)


def progress(course=".", timeout=None, out=print) -> bool:
    """Grade every my_work/NN_topic.ipynb of the course (printing each scoreboard as it
    is done), then a table of all modules, with those not started yet; True when every
    module is started and all its exercises pass."""
    course = Path(course)
    names = modules(course)
    done = {}
    for name in names:
        path = course / WORK_DIR / f"{name}.ipynb"
        if path.is_file():
            done[name] = _grade(path, timeout)
            out(render(done[name], path.relative_to(course)) + "\n")
    out("Your progress")
    for name in names:
        if name in done:
            out(f"  {name:<28} {summary(done[name])}")
        else:
            out(f"  {name:<28} not started (no {WORK_DIR}/{name}.ipynb: `make lab` or "
                f"`make workspace` creates it)")
    ok = len(done) == len(names) and all(all_passed(g) for g in done.values())
    out("All exercises of every module passed." if ok else
        f"{sum(all_passed(g) for g in done.values())} of {len(names)} modules fully passed.")
    return ok
