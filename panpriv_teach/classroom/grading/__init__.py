"""Grading with integrity: student code runs in a worker process, verdicts are made by the
course's real checkers in the grader (see `notebook` for one notebook, `batch` for a class).

    grade_notebook(path, *, timeout=None) -> NotebookGrade
    grade_submissions(submissions, out, jobs=None) -> int   # writes grades.csv/json, feedback/

What the grader prevents: a verdict made, altered or read by the student's code (it runs in
another process, which holds no checker and no reference value and can send back only
plain data); a notebook that never ends, exits, crashes, forks or eats memory stopping the
grading (time limits kill the process, memory is capped, each notebook has its own
process, and its relative paths reach only a temporary folder). What it does NOT prevent:
the student's code runs as the user who grades, so it can read any file that user can read
(other submissions, solutions/), write or delete files by absolute path, use the network,
and run shell commands (`!cmd`). Grade an untrusted class inside a container (read-only
submissions, no network); see the instructor guide.

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
