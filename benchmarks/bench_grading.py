"""Benchmark: grading a class with integrity, every notebook in its sandbox, against merely
executing its notebooks.

A class of STUDENTS students (default 60) each hands in the 7 exercise notebooks. Each
student-notebook is one of five kinds, in turn (student i, module j → kind (i + j) mod 5),
generated from solutions/ and exercises/:
- correct: the solution notebook's answers (solution-only cells dropped, as in exercises/);
- wrong: every answer block replaced by `return 0`;
- broken: every answer block replaced by `return undefined_name` (a NameError), plus a cell
  with a SyntaxError;
- endless: the correct notebook, but the first exercise's answer never returns;
- cheating: the exercise notebook's stubs, each check cell wrapped in try/except that prints
  the pass line, and the checker module's exercise_N_k replaced by a lambda first.

Measured in the same run, on the same submissions, each with JOBS parallel jobs:
- grading: `panpriv_teach.classroom.grading.grade_submissions(SUBMISSIONS, OUT, jobs=JOBS)`
  with its bubblewrap sandbox, which runs each notebook in sandboxed worker processes and
  the real checkers in the grader's jobs, and writes grades.csv, grades.json and the
  feedback files (the check of the sources against their manifest is timed apart: the
  shared working tree this runs in need not match its last commit);
- baseline: executing every notebook with nbclient
  (`panpriv_teach.classroom.notebooks.execute_copy`, a fresh kernel per notebook, errors
  allowed, as a check command would), JOBS at a time;
- the sandbox's own cost: starting a worker (until it answers "ready") and ending it, in
  the sandbox and as a plain process, SAMPLES times each, one at a time: every notebook
  starts at least one worker;
- writing a module's library views (CPU seconds, every module in turn): cold, as the first
  module of a process (the library parsed and compiled afresh), and warm, in a process that
  has written another module's views (the parse and the code of unchanged files reused).
Printed: both wall times, the ratio grading / baseline (target: <= 2), the time per notebook,
the sandbox's cost per worker, and whether every kind got the statuses it should (correct
→ all passed; endless → the never-ending exercise failed (and those whose answers call
it), the others passed; wrong, broken, cheating → none passed).

Run: .venv/bin/python benchmarks/bench_grading.py [--students N] [--jobs J]
"""
from __future__ import annotations

import argparse
import copy
import csv
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat

from panpriv_teach.classroom.grading import grade_submissions
from panpriv_teach.classroom.grading.manifest import source_problems
from panpriv_teach.classroom.grading.session import Worker
from panpriv_teach.classroom.notebooks import SOLUTION_ONLY, _replace_blocks, execute_copy
from panpriv_teach.classroom.sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent
KINDS = ("correct", "wrong", "broken", "endless", "cheating")
TARGET = 2.0
SAMPLES = 20


def _answers_replaced(solution, body) -> nbformat.NotebookNode:
    """The solution notebook without its solution-only cells, each answer block replaced by
    `body(indent, number)` (None keeps the block)."""
    nb = copy.deepcopy(solution)
    nb.cells = [c for c in nb.cells if SOLUTION_ONLY not in c.metadata.get("tags", [])]
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and "### BEGIN SOLUTION" in cell.source:
            lines = cell.source.split("\n")
            begin = next(i for i, line in enumerate(lines) if line.strip() == "### BEGIN SOLUTION")
            end = next(i for i, line in enumerate(lines) if line.strip() == "### END SOLUTION")
            indent = lines[begin][:len(lines[begin]) - len(lines[begin].lstrip())]
            replacement = body(indent, index)
            if replacement is not None:
                cell.source = _replace_blocks(cell.source, index, lambda *_: replacement)
            else:
                cell.source = "\n".join(lines[:begin] + lines[begin + 1:end] + lines[end + 1:])
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    return nb


def variants(module: str) -> dict:
    solution = nbformat.read(ROOT / "solutions" / f"{module}.ipynb", as_version=4)
    exercise = nbformat.read(ROOT / "exercises" / f"{module}.ipynb", as_version=4)
    first = []

    def endless(indent, index):
        if first and first[0] != index:
            return None
        first.append(index)
        return f"{indent}while True:\n{indent}    pass"

    broken = _answers_replaced(solution, lambda indent, _: f"{indent}return undefined_name")
    broken.cells.insert(2, nbformat.v4.new_code_cell("def oops(:\n    pass"))
    cheating = copy.deepcopy(exercise)
    for cell in cheating.cells:
        if cell.cell_type == "code" and "check.exercise_" in cell.source:
            call = cell.source.strip()
            function = call.split("(")[0]
            cell.source = (f"{function} = lambda *a, **k: print('✓ passed')\n"
                           f"try:\n    {call}\nexcept Exception:\n    print('✓ passed')")
    return {"correct": _answers_replaced(solution, lambda *_: None),
            "wrong": _answers_replaced(solution, lambda indent, _: f"{indent}return 0"),
            "broken": broken, "endless": _answers_replaced(solution, endless),
            "cheating": cheating}


def make_class(folder: Path, students: int) -> dict:
    """Write the submissions; {(student, module): kind}."""
    modules = sorted(p.stem for p in (ROOT / "solutions").glob("0*.ipynb"))
    made = {module: variants(module) for module in modules}
    kinds = {}
    for i in range(students):
        student = f"student{i:02d}"
        (folder / student).mkdir(parents=True)
        for j, module in enumerate(modules):
            kind = KINDS[(i + j) % len(KINDS)]
            nbformat.write(made[module][kind], folder / student / f"{module}.ipynb")
            kinds[student, module] = kind
    return kinds


def baseline(paths: list, jobs: int) -> float:
    start = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda p: execute_copy(p, timeout=120), paths))
    return time.perf_counter() - start


def worker_start(sandbox) -> float:
    """Median seconds to start a worker (until it is ready) and end it."""
    times = []
    for _ in range(SAMPLES):
        start = time.perf_counter()
        Worker({"checkers": {}}, sandbox=sandbox).close()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def view_writing(folder: Path) -> tuple[float, float]:
    """CPU seconds to write every module's views, cold and warm (see the module docstring)."""
    from panpriv_teach.classroom.grading import library_view
    from panpriv_teach.classroom.grading.course import checker_modules, course_module
    modules = [course_module(m) for m in sorted(checker_modules())]
    for module in modules:      # import what the views' targets need, outside the timing
        library_view.write_views(module, folder / "imports" / module.name)
    cold = warm = 0.0
    for module in modules:
        library_view._PARSED.clear()
        library_view._CODE.clear()
        start = time.process_time()
        library_view.write_views(module, folder / "cold" / module.name)
        cold += time.process_time() - start
    library_view._PARSED.clear()
    library_view._CODE.clear()
    library_view.write_views(modules[-1], folder / "warm-up")    # then each after another
    for module in modules:
        start = time.process_time()
        library_view.write_views(module, folder / "warm" / module.name)
        warm += time.process_time() - start
    return cold, warm


def check_statuses(out: Path, kinds: dict) -> list:
    """Problems: a notebook whose statuses do not fit its kind (see the module docstring)."""
    with open(out / "grades.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    modules = {m: m[:2].lstrip("0") for _, m in kinds}
    problems = []
    for (student, module), kind in kinds.items():
        got = Counter(r["status"] for r in rows if r["student"] == student
                      and r["exercise"].split(".")[0] == modules[module])
        if kind == "correct" and set(got) != {"passed"}:
            problems.append(f"{student} {module} (correct): {dict(got)}")
        if kind == "endless" and (not got["failed"] or got["passed"] == sum(got.values())):
            problems.append(f"{student} {module} (endless): {dict(got)}")
        if kind in ("wrong", "broken", "cheating") and got["passed"]:
            problems.append(f"{student} {module} ({kind}): {dict(got)}")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as tmp:
        subs, out = Path(tmp) / "submissions", Path(tmp) / "out"
        kinds = make_class(subs, args.students)
        n = len(kinds)
        print(f"{args.students} students x 7 notebooks = {n} notebooks "
              f"({', '.join(f'{k}: {c}' for k, c in Counter(kinds.values()).items())}), "
              f"{args.jobs} jobs, {os.cpu_count()} cores")
        start = time.perf_counter()
        source_problems(ROOT)
        verified = time.perf_counter() - start
        start = time.perf_counter()
        code = grade_submissions(subs, out, jobs=args.jobs, verify=False)
        graded = time.perf_counter() - start
        executed = baseline(sorted(subs.glob("*/*.ipynb")), args.jobs)
        problems = check_statuses(out, kinds)
        cold, warm = view_writing(Path(tmp) / "views")
    sandboxed, plain = worker_start(Sandbox.find(hidden=[ROOT])), worker_start(None)
    ratio = graded / executed
    print(f"grading (grade_submissions, sandboxed): {graded:8.1f} s  "
          f"({graded / n:.2f} s per notebook)")
    print(f"baseline (nbclient execution):          {executed:8.1f} s  "
          f"({executed / n:.2f} s per notebook)")
    print(f"ratio grading / baseline: {ratio:.2f} (target <= {TARGET:g}): "
          f"{'met' if ratio <= TARGET else 'NOT met'}")
    print(f"the sandbox's own cost: a worker starts and ends in {sandboxed:.3f} s sandboxed, "
          f"{plain:.3f} s plain (medians of {SAMPLES}): {sandboxed - plain:+.3f} s per worker")
    print(f"checking the sources against their manifest: {verified:.3f} s")
    print(f"writing the 7 modules' library views: {cold:.2f} s of CPU cold (each in a fresh "
          f"process), {warm:.2f} s warm (one process): {cold / warm:.1f}x")
    for problem in problems:
        print(f"! unexpected statuses: {problem}")
    print(f"statuses as expected for every kind: {'yes' if not problems else 'NO'}; "
          f"grade_submissions exit code {code}")
    return 0 if ratio <= TARGET and not problems and code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
