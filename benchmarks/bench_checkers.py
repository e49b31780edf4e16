"""Benchmark: every exercise checker, called on the correct answer.

The correct answers are the solution notebooks' own (solutions/0N_*.ipynb): each one's code
cells are executed in-process, in order, in a fresh namespace (cwd = solutions/, matplotlib's
Agg backend), except cells tagged `solution-only` (demos the exercise notebooks drop, so no
answer depends on them), widget cells (display only) and the closing `check.summary()`. A check cell
`check.exercise_N_k(answer)` is not executed but measured: the checker is called on the
answer REPEATS times, and the first call (what a student waits for; the first in this
process) and the best of the REPEATS are reported. As a baseline measured in the same run,
one more check records the input the checker first gives the answer, how often it calls
the answer, and the time spent inside it (as a share of that check's time, and per call);
then one call of the answer on that first input is timed (best of REPEATS, on fresh copies).
`check / answer` is thus the checker's cost in units of one call of the student's code, and
"in answer" how much of a check is the student's code at all.

Target: every checker under 2 s on the correct answer (the slower of its first call and
its best). DESIGN.md asks for "about a second", so the ratio to 1 s is printed too.

Run: .venv/bin/python benchmarks/bench_checkers.py [--only PATTERN]
(PATTERN: a substring of `notebook/N.k`, e.g. `density`, `06_` or `/3.4`; every solution
notebook is still executed, only the matching checkers are measured.)
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import functools
import io
import os
import sys
import time
from pathlib import Path

os.environ["MPLBACKEND"] = "Agg"   # before anything imports matplotlib

import nbformat  # noqa: E402

from panpriv_teach.exercises.harness import ExerciseFailed, exercises_of  # noqa: E402
from panpriv_teach.classroom.notebooks import SOLUTION_ONLY, _CHECK_CALL, checker_module_name  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
REPEATS = 3
TARGET, NOMINAL = 2.0, 1.0   # seconds: the target, and DESIGN.md's "about a second"


class Recorder:
    """The answer, unchanged in behaviour, keeping a copy of its first call's arguments,
    the number of calls and the time spent inside it."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn, self.first_args, self.calls, self.seconds = fn, None, 0, 0.0

    def __call__(self, *args, **kwargs):
        if self.first_args is None:
            self.first_args = copy.deepcopy((args, kwargs))
        self.calls += 1
        start = time.perf_counter()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def check_call(source: str):
    """(number, answer expression) if the cell is exactly `check.exercise_N_k(expr)`."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return None
    call = tree.body[0].value
    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and isinstance(call.func.value, ast.Name) and call.func.value.id == "check"
            and call.func.attr.startswith("exercise_") and len(call.args) == 1 and not call.keywords):
        return call.func.attr[len("exercise_"):].replace("_", "."), ast.unparse(call.args[0])
    return None


def is_widget_cell(source: str) -> bool:
    return "ipywidgets" in source or "widgets." in source or "interact(" in source


def timed_check(checker, answer):
    """(seconds, None) if the checker passes the answer, else (seconds, the diagnosis).
    `checker.verdict` is the check without its display (what a check cell shows)."""
    start = time.perf_counter()
    try:
        checker.verdict(answer)
    except ExerciseFailed as exc:
        return time.perf_counter() - start, str(exc).splitlines()[0]
    return time.perf_counter() - start, None


def best_answer_time(fn, args_kwargs) -> float:
    times = []
    for _ in range(REPEATS):
        args, kwargs = copy.deepcopy(args_kwargs)   # a fresh copy: answers may modify inputs
        start = time.perf_counter()
        fn(*args, **kwargs)
        times.append(time.perf_counter() - start)
    return min(times)


def measure(number, checker, answer) -> dict:
    row = {"exercise": number, "answer": None, "calls": 0, "inside": None, "per_call": None}
    times, failure = [], None
    for _ in range(REPEATS):
        seconds, failure = timed_check(checker, answer)
        times.append(seconds)
        if failure:
            break
    row.update(first=times[0], best=min(times), failure=failure)
    if failure is None and callable(answer):
        recorder = Recorder(answer)
        seconds, failure = timed_check(checker, recorder)
        row.update(failure=failure, calls=recorder.calls, inside=recorder.seconds / seconds,
                   per_call=recorder.seconds / max(recorder.calls, 1))
        if recorder.first_args is not None:
            row["answer"] = best_answer_time(answer, recorder.first_args)
    return row


def run_notebook(path: Path, only: str | None) -> tuple[str, list, list]:
    """(checker module, measured rows, problems) for one solution notebook."""
    nb = nbformat.read(path, as_version=4)
    module_name = checker_module_name(nb) or "?"
    namespace = {"__name__": "__main__"}
    rows, problems, checked = [], [], set()
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        for index, cell in enumerate(nb.cells):
            if cell.cell_type != "code" or SOLUTION_ONLY in cell.metadata.get("tags", []):
                continue
            if is_widget_cell(cell.source) or cell.source.strip() == "check.summary()":
                continue   # display only; the summary would report the measured checks as unrun
            found = check_call(cell.source)
            if found is None and _CHECK_CALL.search(cell.source):
                problems.append(f"cell {index}: a check cell of an unexpected shape, not measured")
                continue
            if found is None:
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        exec(compile(cell.source, f"{path.name}, cell {index}", "exec"), namespace)
                except Exception as exc:
                    problems.append(f"cell {index} raised {type(exc).__name__}: {exc}; "
                                    "the rest of the notebook is not measured")
                    break
                continue
            number, expression = found
            checked.add(number)
            if only and only not in f"{path.stem}/{number}":
                continue
            checker = getattr(namespace["check"], f"exercise_{number.replace('.', '_')}")
            rows.append(measure(number, checker, eval(expression, namespace)))
    finally:
        os.chdir(cwd)
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    if "check" in namespace:
        for number in exercises_of(namespace["check"]):
            if number not in checked:
                problems.append(f"checker {number} has no check cell, not measured")
    return module_name.rpartition(".")[2], rows, problems


def ms(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1e3:,.1f}"


def us(seconds) -> str:
    return "—" if seconds is None else f"{seconds * 1e6:,.1f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", metavar="PATTERN",
                        help="measure only the checkers whose `notebook/N.k` contains PATTERN")
    only = parser.parse_args().only

    print(f"Exercise checkers on the solutions' answers: check time = first call and best of "
          f"{REPEATS}; answer = one call of the answer on the checker's first input "
          f"(best of {REPEATS}); mean call = time in the answer per call during a check; "
          f"target < {TARGET:g} s")
    header = (f"{'module':19s} {'ex.':4s} {'first ms':>8s} {'best ms':>8s} {'answer µs':>10s} "
              f"{'calls':>6s} {'mean call µs':>12s} {'in answer':>9s} {'check/answer':>12s} "
              f"{'best/1s':>7s}  status")
    print(header)
    print("-" * len(header))
    ok, everything, all_problems = True, [], []
    for path in sorted(SOLUTIONS.glob("0*.ipynb")):
        module, rows, problems = run_notebook(path, only)
        for row in rows:
            slowest = max(row["first"], row["best"])
            if row["failure"]:
                status, ok = f"FAILED: {row['failure']}", False
            elif slowest >= TARGET:
                status, ok = f"SLOW (>= {TARGET:g} s)", False
            else:
                status = "ok"
            ratio = "—" if not row["answer"] else f"{row['best'] / row['answer']:,.0f}"
            inside = "—" if row["inside"] is None else f"{row['inside']:.0%}"
            print(f"{module:19s} {row['exercise']:4s} {ms(row['first']):>8s} {ms(row['best']):>8s} "
                  f"{us(row['answer']):>10s} {row['calls']:>6d} {us(row['per_call']):>12s} "
                  f"{inside:>9s} {ratio:>12s} {row['best'] / NOMINAL:7.2f}  {status}")
            everything.append((row["best"], row["first"], module, row["exercise"]))
        all_problems += [f"{path.name}: {problem}" for problem in problems]
    for problem in all_problems:
        print(f"! {problem}")
    ok &= not all_problems and bool(everything)
    if everything:
        best, first, module, number = max(everything)
        total = sum(row[0] for row in everything)
        over = sum(max(row[:2]) >= NOMINAL for row in everything)
        print(f"{len(everything)} checkers, {total:.1f} s in all (best times); slowest: "
              f"{module} {number}, best {best:.2f} s (first call {first:.2f} s); "
              f"{over} over {NOMINAL:g} s")
    print(f"target: every checker under {TARGET:g} s on the correct answer: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
