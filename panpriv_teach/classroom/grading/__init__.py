"""Grading with integrity: student code runs in a worker process, verdicts are made by the
course's real checkers in the grader (see `notebook` for one notebook, `batch` for a class).

    grade_notebook(path, *, timeout=None) -> NotebookGrade
    grade_submissions(submissions, out, jobs=None) -> int   # writes grades.csv/json, feedback/

What the grader prevents: a verdict made, altered or read by the student's code (it runs in
another process, which holds no checker and no reference value and can send back only
plain data); a notebook that never ends, exits, crashes, forks or eats memory stopping the
grading (time limits kill the process, memory and CPU time are capped, and in the sandbox
the number of processes, each notebook has its own process); and, when a class is graded, the student's code reaching
anything but its own notebook: every worker runs in a bubblewrap sandbox
(`classroom.sandbox`: an unprivileged user of its own, no network, a read-only Python
environment and library, its own /tmp and PID namespace, no other submission, no
solutions, no output folder). Without a working sandbox, grading is refused, unless the
instructor passes --no-sandbox (`sandbox=False`) for code they trust: then the student's
code runs as the grading user, with that user's files and network.

The names are imported on first use, so that the worker process (which imports
`panpriv_teach.classroom.grading.worker`) does not load the grader's dependencies.
"""
import importlib

_WHERE = {"grade_submissions": "batch", "ExerciseGrade": "notebook",
          "NotebookGrade": "notebook", "grade_notebook": "notebook"}
__all__ = sorted(_WHERE)


def __getattr__(name):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
