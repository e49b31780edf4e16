"""Benchmark: the time to execute each notebook, against DESIGN.md's 60 s budget.

Every notebook in lectures/ and solutions/ is executed from start to end in a fresh kernel,
with the project's own nbclient set-up (`panpriv_teach.classroom.notebooks.notebook_client`, as `execute`
and `check` use: kernel "python3", cwd = the notebook's folder, quiet kernel log). The
notebooks are read into memory and executed there; nothing is written back to disk. The
time is wall-clock, kernel start and shutdown included.

Baselines, measured in the same run (best of BASELINE_REPEATS each): an empty notebook (kernel
start and shutdown only) and a one-cell notebook holding the course's setup cell (the first
code cell of lectures/00_welcome.ipynb: numpy, matplotlib, panpriv_teach's plots, streams
and widgets). For each notebook the table gives its time, its time minus the empty notebook
(the notebook's own work), its time minus the setup notebook (the work after the imports) and
the ratio of its time to the budget. (The last can be negative: the solution and exercise
notebooks import less than the lectures' setup cell does.)

The exercise notebooks (exercises/) stop working at their first stub: they are executed with
allow_errors, as `python -m panpriv_teach check` runs a student's copy, and reported with
the time to their first error and the time of the whole run; every error must be a stub's
(NotImplementedError or ExerciseNotAttempted). The budget applies to them for information only.

Target: every lecture and solution notebook runs without error in under 60 s (on 2 cores).

Run: .venv/bin/python benchmarks/bench_notebooks.py [--only PATTERN]
(PATTERN: a substring of the notebook's path, e.g. `lectures/`, `05_` or `solutions/03`.)
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from panpriv_teach.classroom.notebooks import notebook_client

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("lectures", "solutions", "exercises")
SETUP_FROM = ROOT / "lectures" / "00_welcome.ipynb"
BUDGET = 60.0             # seconds per lecture or solution notebook (DESIGN.md, "Budgets")
CELL_TIMEOUT = 300        # seconds per cell before nbclient gives up
BASELINE_REPEATS = 2
STUB_ERRORS = {"NotImplementedError", "ExerciseNotAttempted", "ProgressIncomplete"}  # the summary cell raises too


def run(nb, path: Path, allow_errors: bool = False) -> dict:
    """Execute `nb` (in memory) as if it were the file `path`; the seconds it took, the
    seconds to its first error, and its errors [(cell index, ename)]."""
    errors, start, first_error = [], time.perf_counter(), None

    def on_error(cell, cell_index, execute_reply):
        nonlocal first_error
        if first_error is None:
            first_error = time.perf_counter() - start
        errors.append((cell_index, execute_reply["content"].get("ename", "?")))

    client = notebook_client(nb, path, CELL_TIMEOUT, allow_errors=allow_errors)
    client.on_cell_error = on_error
    try:
        client.execute()
    except CellExecutionError:
        pass                      # recorded by on_error; the kernel is shut down already
    except Exception as exc:      # a dead kernel, a cell timeout
        errors.append((None, f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"))
    return {"seconds": time.perf_counter() - start, "first_error": first_error, "errors": errors}


def baseline(cells: list) -> float:
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    times = []
    for _ in range(BASELINE_REPEATS):
        result = run(nb, SETUP_FROM)
        if result["errors"]:
            raise RuntimeError(f"the baseline notebook failed: {result['errors']}")
        times.append(result["seconds"])
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", metavar="PATTERN",
                        help="run only the notebooks whose path (e.g. lectures/05_ppcum.ipynb) "
                             "contains PATTERN")
    only = parser.parse_args().only
    paths = [path for folder in FOLDERS for path in sorted((ROOT / folder).glob("*.ipynb"))
             if not only or only in path.relative_to(ROOT).as_posix()]
    if not paths:
        print(f"no notebook matches {only!r}")
        return 1

    setup_nb = nbformat.read(SETUP_FROM, as_version=4)
    setup_source = next(c.source for c in setup_nb.cells if c.cell_type == "code")
    empty = baseline([])
    setup = baseline([nbformat.v4.new_code_cell(setup_source)])
    print(f"Notebook execution, each in a fresh kernel; budget {BUDGET:g} s per lecture and "
          f"solution notebook")
    print(f"baselines (best of {BASELINE_REPEATS}): empty notebook (kernel start + shutdown) "
          f"{empty:.2f} s; setup cell of {SETUP_FROM.name} alone {setup:.2f} s")
    header = (f"{'notebook':38s} {'time s':>7s} {'- empty':>8s} {'- setup':>8s} "
              f"{'/budget':>8s}  status")
    print(header)
    print("-" * len(header))

    ok, measured = True, []
    for path in paths:
        name = path.relative_to(ROOT).as_posix()
        exercise = path.parent.name == "exercises"
        nb = nbformat.read(path, as_version=4)
        result = run(nb, path, allow_errors=exercise)
        seconds, errors = result["seconds"], result["errors"]
        if exercise:
            unexpected = [(i, e) for i, e in errors if e not in STUB_ERRORS]
            first = "—" if result["first_error"] is None else f"{result['first_error']:.1f} s"
            status = (f"{len(errors)} stub errors, first after {first}" if not unexpected else
                      f"UNEXPECTED errors {unexpected} (first error after {first})")
            ok &= not unexpected
        elif errors:
            index, ename = errors[0]
            status, ok = f"FAILED: cell {index} raised {ename} (after {seconds:.1f} s)", False
        elif seconds >= BUDGET:
            status, ok = "OVER BUDGET", False
        else:
            status = "ok"
        print(f"{name:38s} {seconds:7.1f} {seconds - empty:8.1f} {seconds - setup:8.1f} "
              f"{seconds / BUDGET:8.2f}  {status}", flush=True)
        measured.append((seconds, name, exercise))

    print("-" * len(header))
    for folder in FOLDERS:
        times = [s for s, name, _ in measured if name.startswith(folder + "/")]
        if times:
            print(f"{folder + '/':12s} {len(times):2d} notebooks, {sum(times):7.1f} s in all, "
                  f"{sum(times) - len(times) * empty:7.1f} s without kernel starts")
    budgeted = [(s, name) for s, name, exercise in measured if not exercise]
    if budgeted:
        seconds, name = max(budgeted)
        print(f"slowest lecture/solution: {name}, {seconds:.1f} s ({seconds / BUDGET:.0%} of "
              f"the budget); {sum(s >= 0.75 * BUDGET for s, _ in budgeted)} at 75% of it or more")
    print(f"total {sum(s for s, _, _ in measured):.1f} s for {len(measured)} notebooks")
    print(f"target: every lecture and solution notebook without error in under {BUDGET:g} s: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
