"""Grade a whole class: SUBMISSIONS/<student>/NN_topic.ipynb → OUT/grades.csv, grades.json
and feedback/<student>.md.

Before anything runs, the grader finds a working sandbox (bubblewrap; without one it
refuses, unless told the code is trusted: `sandbox=False`, said in the run's summary) and
checks the course's sources against their manifest (`manifest`). Each (student, notebook)
pair is then graded by one of `jobs` grading processes (`jobs`), each notebook with its own
sandboxed workers, its own library view and its own `Budget`; the whole class may have a
budget too (`class_seconds`): notebooks it leaves no time for are "over budget".

Submissions are data: a symbolic link (file or folder) is refused, and every entry gets a
row or a reason (hidden ones too): a file that is not a notebook of the course, a second
copy of a module, an empty folder, a notebook that cannot be read or run (status "error"),
a module not handed in (not listed: the gradebook has one row per exercise of every module
the student handed in).

The outputs are written once every job and worker has ended, from the grader's own
records, each file atomically (written aside, then renamed). Feedback shows every string
that came from a student (names, messages, diagnoses) as text, never as Markdown. A run in
which a process was killed by something other than its own limits names the notebook and
returns 1.
"""
from __future__ import annotations

import csv
import io
import json
import os
import queue
import re
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path

from panpriv_teach.classroom.grading.course import ROOT, checker_modules, course_module
from panpriv_teach.classroom.grading.jobs import GRADER_MEMORY, Job, JobDied, cap_memory
from panpriv_teach.classroom.grading.library_view import write_views
from panpriv_teach.classroom.grading.manifest import source_problems
from panpriv_teach.classroom.grading.notebook import (CELL_SECONDS, NOTEBOOK_SECONDS,
                                                      STATUSES, ExerciseGrade, NotebookGrade)
from panpriv_teach.classroom.sandbox import Sandbox, SandboxUnavailable, site_paths

COPY = re.compile(r"^(?P<number>\d\d)_")
MAX_NOTEBOOK = 100 * 2**20    # bytes: a larger file is reported, not graded
SLACK = 120.0     # seconds a job may take beyond a notebook's budget before it is killed


def _plan(student: Path, modules) -> tuple[list, list]:
    """(notebooks to grade, rows for entries that will not be graded) for one student folder."""
    by_number = {name[:2]: name for name in modules}
    entries = sorted(student.iterdir())
    notebooks, rows = [], []
    claims: dict[str, list] = {}
    for entry in entries:
        if entry.is_symlink():
            rows.append(("", "error", f"{entry.name} is a symbolic link: hand in the file "
                                      "itself; it was not graded"))
        elif entry.name.startswith("."):
            rows.append(("", "error", f"{entry.name} is hidden (its name starts with '.'); it "
                                      "was not graded"))
        elif entry.is_dir():
            rows.append(("", "error", f"{entry.name}/ is a folder: hand in notebooks directly "
                                      "in your own folder; it was not graded"))
        elif not entry.is_file():
            rows.append(("", "error", f"{entry.name} is not a regular file; it was not graded"))
        elif entry.suffix != ".ipynb":
            rows.append(("", "error", f"{entry.name} is not a notebook; it was not graded"))
        elif entry.stat().st_size > MAX_NOTEBOOK:
            rows.append(("", "error", f"{entry.name} is larger than {MAX_NOTEBOOK // 2**20} MB; "
                                      "it was not graded"))
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


def _class_plan(submissions: Path, modules) -> tuple[dict, list]:
    """({student: plan}, rows for the entries of `submissions` that are no student folder)."""
    plans, others = {}, []
    for entry in sorted(submissions.iterdir()):
        if entry.is_symlink():
            others.append((entry.name, "is a symbolic link, not a student's folder; it was not "
                                       "graded"))
        elif not entry.is_dir():
            others.append((entry.name, "is a file, not a student's folder; it was not graded"))
        elif entry.name.startswith("."):
            others.append((entry.name, "is a hidden folder (its name starts with '.'); it was "
                                       "not graded: rename it if it is a student's"))
        else:
            plans[entry.name] = _plan(entry, modules)
    return plans, others


# ---------------------------------------------------------------- feedback, as text

def escape(text) -> str:
    """`text` on one line, with every Markdown and HTML character escaped."""
    text = " ".join(str(text).split())
    return re.sub(r"([\\`*_{}\[\]()<>#+\-.!|~&])", r"\\\1", text)


def _block(text) -> list:
    """`text` as a fenced code block that no backtick in it can close."""
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall(r"`+", str(text))), default=0))
    return [fence + "text", *str(text).splitlines(), fence]


def _feedback(student: str, rows: list, grades: list) -> str:
    lines = [f"# Feedback for {escape(student)}", ""]
    passed = sum(r["status"] == "passed" for r in rows)
    counted = sum(1 for r in rows if r["exercise"])
    lines += [f"**{passed} of {counted} exercises passed.**", ""]
    for grade in grades:        # module, exercise, title, status: the course's own words
        lines += [f"## {grade.module}", "", "| exercise | status | cell |", "|---|---|---|"]
        lines += [f"| {r.exercise} {r.title} | {r.status} | {r.cell or ''} |"
                  for r in grade.results]
        lines.append("")
        for r in grade.results:
            if r.diagnosis and r.status != "passed":
                lines += [f"### {r.exercise} ({r.status})", "", *_block(r.diagnosis), ""]
        if grade.problems:
            lines += ["### The notebook", "", *_block("\n".join(grade.problems)), ""]
    other = [r for r in rows if not r["exercise"]]
    if other:
        lines += ["## Files", "", *_block("\n".join(f"{r['status']}: {r['diagnosis']}"
                                                     for r in other)), ""]
    return "\n".join(lines)


def _write_atomically(path: Path, text: str) -> None:
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


# ---------------------------------------------------------------- running the jobs

class _Run:
    """The notebooks of a class, handed to `jobs` job processes by one thread each."""

    def __init__(self, work: list, options: dict, views: dict, timeout, notebook_seconds,
                 class_seconds):
        self.todo: queue.Queue = queue.Queue()
        for item in work:
            self.todo.put(item)
        self.options, self.views, self.results, self.failures = options, views, {}, []
        self.timeout, self.notebook_seconds = timeout or CELL_SECONDS, notebook_seconds
        self.deadline = time.monotonic() + (class_seconds or float("inf"))

    def request(self, module: str, path: Path) -> dict:
        return {"path": str(path), "views": asdict(self.views[module]), "timeout": self.timeout,
                "wall": self.notebook_seconds, "cpu": self.notebook_seconds,
                "class_left": min(self.deadline - time.monotonic(), 10**9)}

    def worker_thread(self) -> None:
        job = None
        while True:
            try:
                student, module, path = self.todo.get_nowait()
            except queue.Empty:
                break
            if time.monotonic() >= self.deadline:
                self.results[student, module] = _over_class_budget(module, path)
                continue
            try:
                job = job or Job(self.options)
                grade = NotebookGrade.from_dict(job.grade(self.request(module, path),
                                                          self.notebook_seconds + SLACK))
            except (JobDied, OSError) as died:
                job = None
                why = (f"the grader's process grading it {died}" if isinstance(died, JobDied)
                       else f"the grader could not start a grading process ({died})")
                grade = _whole(module, path, "error", f"not graded: {why}")
                grade.outside.append(why)
            self.results[student, module] = grade
            for why in grade.outside:
                self.failures.append(f"{student}/{Path(path).name}: {why}")
        if job is not None:
            job.close()


def _whole(module: str, path, status: str, diagnosis: str) -> NotebookGrade:
    return NotebookGrade(module, str(path), [ExerciseGrade(e.number, e.title, status, diagnosis)
                                             for e in course_module(module).exercises])


def _over_class_budget(module: str, path) -> NotebookGrade:
    grade = _whole(module, path, "over budget", "not graded: the class's budget ran out before "
                                                "this notebook's turn")
    grade.over_budget = "the class's budget ran out before its turn"
    return grade


def grade_submissions(submissions, out, jobs: int | None = None, *, timeout=None,
                      sandbox: bool = True, notebook_seconds: float = NOTEBOOK_SECONDS,
                      class_seconds: float | None = None, verify: bool = True) -> int:
    """Grade every notebook of every student folder of `submissions` with `jobs` parallel
    grading processes (default: the number of cores), then write OUT/grades.csv
    (`student,exercise,status,diagnosis`), OUT/grades.json (the same rows, the notebooks'
    grades, a summary per student and the run's settings) and OUT/feedback/<student>.md,
    and print a summary.

    `timeout`: seconds a cell may run; `notebook_seconds`: each notebook's budget (wall
    and CPU seconds, replays included); `class_seconds`: the whole class's (None: no
    limit); `sandbox=False` runs the students' code without a sandbox (trusted code only);
    `verify`: check the course's sources against their manifest first.

    Returns 0 when every notebook was graded; 1 when the class's budget ran out or a
    process was killed from outside (the summary names the notebooks); 2 when nothing was
    graded: `submissions` is not a folder, there is no sandbox, or the sources do not match
    their manifest (nothing is written then)."""
    submissions, out = Path(submissions), Path(out)
    if not submissions.is_dir():
        print(f"no submissions folder {str(submissions)!r}")
        return 2
    if submissions.resolve() in out.resolve().parents:
        print(f"error: the output folder {str(out)!r} is inside the submissions folder: "
              "choose one outside it", file=sys.stderr)
        return 2
    found = None
    if sandbox:
        try:
            found = Sandbox.find(hidden=[ROOT, submissions, out])
        except SandboxUnavailable as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    problems = source_problems(ROOT) if verify else []
    if problems:
        print("error: the course's sources do not match their manifest, so the checkers "
              "cannot be trusted; nothing was graded:\n  " + "\n  ".join(problems[:20]),
              file=sys.stderr)
        return 2
    started = time.monotonic()
    modules = checker_modules()
    plans, others = _class_plan(submissions, modules)
    work = [(s, module, path) for s, (notebooks, _) in plans.items() for module, path in notebooks]
    options = {"bwrap": found.bwrap if found else None, "path": site_paths(),
               "hidden": [str(ROOT), str(submissions.resolve()), str(out.resolve())]}
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(work) or 1))
    with tempfile.TemporaryDirectory(prefix="panpriv-views-") as folder:
        views = {m: write_views(course_module(m), Path(folder) / m)
                 for m in sorted({m for _, m, _ in work})}
        run = _Run(work, options, views, timeout, notebook_seconds, class_seconds)
        threads = [threading.Thread(target=run.worker_thread, name=f"panpriv-job-{i}")
                   for i in range(jobs)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    settings = {"sandbox": "bubblewrap" if found else "none (--no-sandbox: trusted code only)",
                "jobs": jobs, "cell_seconds": timeout or CELL_SECONDS,
                "notebook_seconds": notebook_seconds, "class_seconds": class_seconds,
                "seconds": round(time.monotonic() - started, 1), "problems": run.failures}
    _write(out, plans, others, run.results, settings)
    return _summary(out, run.results, others, settings)


def _write(out: Path, plans: dict, others: list, results: dict, settings: dict) -> None:
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
        _write_atomically(out / "feedback" / f"{student}.md", _feedback(student, rows, grades))
    all_rows += [dict(student=name, exercise="", status="error", diagnosis=f"{name} {why}")
                 for name, why in others]
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, ["student", "exercise", "status", "diagnosis"])
    writer.writeheader()
    writer.writerows({k: _spreadsheet_safe(v) for k, v in row.items()} for row in all_rows)
    _write_atomically(out / "grades.csv", text.getvalue())
    _write_atomically(out / "grades.json", json.dumps(
        {"rows": all_rows, "students": summary, "notebooks": notebooks, "run": settings},
        indent=1, ensure_ascii=False))


def _spreadsheet_safe(value: str) -> str:
    """A CSV cell a spreadsheet shows as text: one starting with =, +, -, @, a tab or a
    carriage return (a formula when grades.csv is opened) gets a leading apostrophe."""
    return f"'{value}" if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value


def _summary(out: Path, results: dict, others: list, settings: dict) -> int:
    students = {s for s, _ in results}
    print(f"graded {len(results)} notebook(s) of {len(students)} student(s) in "
          f"{settings['seconds']:g} s with {settings['jobs']} job(s); sandbox: "
          f"{settings['sandbox']}")
    if not settings["sandbox"].startswith("bubblewrap"):
        print("WITHOUT A SANDBOX: the students' code ran as your user, with your files and "
              "network. Use --no-sandbox for code you trust only.")
    over = [(s, g) for (s, _), g in sorted(results.items()) if g.over_budget]
    for student, grade in over:
        print(f"over budget: {student}/{Path(grade.path).name}: {grade.over_budget} "
              f"({grade.seconds:g} s, {grade.cpu:g} s of CPU)")
    for name, why in others:
        print(f"not graded: {name} {why}")
    for failure in settings["problems"]:
        print(f"FAILED: {failure}")
    print(f"wrote {out / 'grades.csv'}, {out / 'grades.json'} and {out / 'feedback'}/")
    class_over = any(g.over_budget.startswith("the class") for _, g in over)
    return 1 if settings["problems"] or class_over else 0


def command(options: dict) -> int:
    """`python -m panpriv_teach grade`, in a process started by boot.py (see __main__)."""
    cap_memory(GRADER_MEMORY)
    return grade_submissions(options["submissions"], options["out"], options["jobs"],
                             timeout=options["timeout"], sandbox=options["sandbox"],
                             notebook_seconds=options["notebook_seconds"] or NOTEBOOK_SECONDS,
                             class_seconds=options["class_seconds"])
