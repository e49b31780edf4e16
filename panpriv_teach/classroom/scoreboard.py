"""The student's scoreboards, as `python -m panpriv_teach check` prints them.

`render(grade)` turns one graded notebook (a `panpriv_teach.classroom.grading.NotebookGrade`)
into text: what went wrong outside the exercises (a setup cell that raised), then one line
per exercise with its status and the cell of its check as JupyterLab numbers it (the
status bar's "Cell 5/21"; click it to go to a cell), then the diagnosis.
`progress(course)` grades every notebook in my_work/ and lists the modules not started
yet.
"""
from __future__ import annotations

import os
from pathlib import Path

from panpriv_teach.classroom.workspace import WORK_DIR, modules

PASSED = "passed"
_MARK = {"passed": "✓", "failed": "✗", "not attempted": "·", "missing": "?", "error": "!",
         "over budget": "⏱"}


def all_passed(grade) -> bool:
    """Every exercise passed and nothing else went wrong (no setup cell raised)."""
    return (bool(grade.results) and all(r.status == PASSED for r in grade.results)
            and not grade.problems)


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
    lines += [f"  ! {line}" if i == 0 else f"    {line}" for problem in grade.problems
              for i, line in enumerate(str(problem).strip().splitlines())]
    for r in grade.results:
        where = f"cell {r.cell}" if r.cell else "no check cell"
        lines.append(f"  {_MARK.get(r.status, ' ')} {r.exercise:<5} {r.status:<14} "
                     f"{where:<14} {r.title}".rstrip())
        if r.status != PASSED and r.diagnosis:
            lines += [" " * 10 + line for line in r.diagnosis.strip().splitlines()]
    lines.append(summary(grade) if grade.results else "no exercises found")
    return "\n".join(lines)


def _grade(path, timeout):
    from panpriv_teach.classroom.grading import grade_notebook
    return grade_notebook(path, timeout=timeout)


def _graded(paths: list, timeout, jobs):
    """Yield the grade of each path, in order; several at once when jobs > 1."""
    if jobs == 1 or len(paths) < 2:
        yield from (_grade(path, timeout) for path in paths)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(_grade, path, timeout) for path in paths]
        yield from (future.result() for future in futures)


def progress(course=".", timeout=None, out=print, jobs=None) -> bool:
    """Grade every my_work/NN_topic.ipynb of the course (`jobs` at once, default: the
    number of cores), print the scoreboard of each module begun but not passed (module
    order), then a table of all modules, with those not started yet; True when every
    module is started and all its exercises pass."""
    course = Path(course)
    names = modules(course)
    started = [n for n in names if (course / WORK_DIR / f"{n}.ipynb").is_file()]
    paths = [course / WORK_DIR / f"{n}.ipynb" for n in started]
    jobs = jobs or min(len(paths), os.cpu_count() or 1) or 1
    done = {}
    for name, path, grade in zip(started, paths, _graded(paths, timeout, jobs)):
        done[name] = grade
        begun = grade.problems or any(r.status != "not attempted" for r in grade.results)
        if begun and not all_passed(grade):       # the details that need the student
            out(render(grade, path.relative_to(course)) + "\n")
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
