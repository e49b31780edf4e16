"""Grade a whole class: SUBMISSIONS/<student>/NN_topic.ipynb → OUT/grades.csv, grades.json
and feedback/<student>.md.

Every (student, notebook) pair is graded by its own job (a process of a pool of `jobs`,
default one per core) with its own worker process, so no submission can affect another's
result. What cannot be graded is reported, never raised: a file that is not a notebook of
the course, a second copy of a module, an empty folder, a notebook that cannot be read or
run (status "error"), a module not handed in (not listed: the gradebook has one row per
exercise of every module the student handed in).
"""
from __future__ import annotations

import csv
import json
import multiprocessing
import os
import re
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from panpriv_teach.classroom.grading.course import checker_modules, course_module
from panpriv_teach.classroom.grading.notebook import ExerciseGrade, NotebookGrade, STATUSES, grade_notebook

COPY = re.compile(r"^(?P<number>\d\d)_")


def _plan(student: Path, modules) -> tuple[list, list]:
    """(notebooks to grade, rows for files that will not be graded) for one student folder."""
    by_number = {name[:2]: name for name in modules}
    entries = sorted(p for p in student.iterdir() if not p.name.startswith("."))
    notebooks, rows = [], []
    claims: dict[str, list] = {}
    for entry in entries:
        if entry.is_dir():
            rows.append(("", "error", f"{entry.name}/ is a folder: hand in notebooks directly "
                                      "in your own folder; it was not graded"))
        elif entry.suffix != ".ipynb":
            rows.append(("", "error", f"{entry.name} is not a notebook; it was not graded"))
        elif entry.stem in modules:
            claims.setdefault(entry.stem, []).insert(0, entry)      # the exact name first
        elif COPY.match(entry.name) and entry.name[:2] in by_number:
            claims.setdefault(by_number[entry.name[:2]], []).append(entry)
        else:
            rows.append(("", "error", f"{entry.name} is not an exercise notebook of this course "
                                      f"(they are: {', '.join(n + '.ipynb' for n in modules)}); "
                                      "it was not graded"))
    for module, files in sorted(claims.items()):
        exact = [f for f in files if f.stem == module]
        if exact or len(files) == 1:
            chosen = (exact or files)[0]
            notebooks.append((module, chosen))
            for other in files:
                if other != chosen:
                    rows.append(("", "error", f"{other.name} is a second copy of module {module}; "
                                              f"only {chosen.name} was graded"))
        else:
            names = ", ".join(f.name for f in files)
            rows.append(("", "error", f"{names} are copies of module {module} and none is named "
                                      f"{module}.ipynb: hand in exactly one; none was graded"))
    if not entries:
        rows.append(("", "missing", "the folder is empty: nothing was handed in"))
    return notebooks, rows


def _grade_one(path: str, timeout) -> NotebookGrade:
    return grade_notebook(path, timeout=timeout)


def _feedback(student: str, rows: list, grades: list) -> str:
    lines = [f"# Feedback for {student}", ""]
    passed = sum(r["status"] == "passed" for r in rows)
    counted = sum(1 for r in rows if r["exercise"])
    lines += [f"**{passed} of {counted} exercises passed.**", ""]
    for grade in grades:
        lines += [f"## {grade.module}", "", "| exercise | status | cell |", "|---|---|---|"]
        lines += [f"| {r.exercise} {r.title} | {r.status} | {r.cell or ''} |" for r in grade.results]
        lines.append("")
        for r in grade.results:
            if r.diagnosis and r.status != "passed":
                text = r.diagnosis.replace("\n", "\n  ")
                lines.append(f"- **{r.exercise}** ({r.status}): {text}")
        for problem in grade.problems:
            lines.append(f"- **notebook**: {problem}")
        lines.append("")
    other = [r for r in rows if not r["exercise"]]
    if other:
        lines += ["## Files", ""] + [f"- {r['status']}: {r['diagnosis']}" for r in other] + [""]
    return "\n".join(lines)


def grade_submissions(submissions, out, jobs: int | None = None, *, timeout=None) -> int:
    """Grade every notebook of every student folder of `submissions` with `jobs` parallel
    jobs (default: the number of cores), write OUT/grades.csv (`student,exercise,status,
    diagnosis`), OUT/grades.json (the same rows, the notebooks' grades and a summary per
    student) and OUT/feedback/<student>.md. Returns 0 once grading completed, whatever the
    scores; 2 if `submissions` is not a folder (nothing is written then)."""
    submissions, out = Path(submissions), Path(out)
    if not submissions.is_dir():
        print(f"no submissions folder {str(submissions)!r}")
        return 2
    modules = checker_modules()
    students = sorted(p for p in submissions.iterdir() if p.is_dir() and not p.name.startswith("."))
    plans = {s.name: _plan(s, modules) for s in students}
    work = [(s, module, str(path)) for s, (notebooks, _) in plans.items() for module, path in notebooks]
    jobs = max(1, jobs or os.cpu_count() or 1)
    results: dict = {}
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = {(s, m): pool.submit(_grade_one, p, timeout) for s, m, p in work}
        for (student, module), future in futures.items():
            try:
                results[student, module] = future.result()
            except Exception as exc:  # the grader itself failed on this notebook
                results[student, module] = NotebookGrade(module, "", [ExerciseGrade(
                    e.number, e.title, "error", f"the grader failed on this notebook "
                                                f"({type(exc).__name__}: {exc})")
                    for e in course_module(module).exercises])
    return _write(out, plans, results)


def _write(out: Path, plans: dict, results: dict) -> int:
    (out / "feedback").mkdir(parents=True, exist_ok=True)
    all_rows, summary, notebooks = [], {}, {}
    for student, (planned, other) in plans.items():
        grades = [results[student, module] for module, _ in planned]
        rows = [dict(student=student, exercise=r.exercise, status=r.status,
                     diagnosis=r.diagnosis if r.status != "passed" else "")
                for g in grades for r in g.results]
        rows += [dict(student=student, exercise=g.module, status="error", diagnosis=p)
                 for g in grades if not g.results for p in g.problems]
        rows += [dict(student=student, exercise="", status=s, diagnosis=d) for _, s, d in other]
        all_rows += rows
        summary[student] = {status: sum(r["status"] == status for r in rows if r["exercise"])
                            for status in STATUSES}
        summary[student]["modules"] = [g.module for g in grades]
        notebooks[student] = [g.to_dict() for g in grades]
        (out / "feedback" / f"{student}.md").write_text(_feedback(student, rows, grades),
                                                        encoding="utf-8")
    with open(out / "grades.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, ["student", "exercise", "status", "diagnosis"])
        writer.writeheader()
        writer.writerows(all_rows)
    (out / "grades.json").write_text(json.dumps(
        {"rows": all_rows, "students": summary, "notebooks": notebooks}, indent=1,
        ensure_ascii=False), encoding="utf-8")
    return 0
