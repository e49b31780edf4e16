"""Grading with integrity: student code runs in a worker process, verdicts are made by the
course's real checkers in the grader (see `notebook` for one notebook, `batch` for a class).

    grade_notebook(path, *, timeout=None) -> NotebookGrade
    grade_submissions(submissions, out, jobs=None) -> int   # writes grades.csv/json, feedback/

The names are imported on first use, so that the worker process (which imports
`panpriv_teach.grading.worker`) does not load the grader's dependencies.
"""
import importlib

_WHERE = {"grade_submissions": "batch", "ExerciseGrade": "notebook",
          "NotebookGrade": "notebook", "grade_notebook": "notebook"}
__all__ = sorted(_WHERE)


def __getattr__(name):
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
