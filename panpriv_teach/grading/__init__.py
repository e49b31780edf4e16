"""Grading with integrity: student code runs in a worker process, verdicts are made by the
course's real checkers in the grader (see `notebook` for one notebook, `batch` for a class).

    grade_notebook(path, *, timeout=None) -> NotebookGrade
    grade_submissions(submissions, out, jobs=None) -> int   # writes grades.csv/json, feedback/
"""
from panpriv_teach.grading.batch import grade_submissions
from panpriv_teach.grading.notebook import ExerciseGrade, NotebookGrade, grade_notebook

__all__ = ["ExerciseGrade", "NotebookGrade", "grade_notebook", "grade_submissions"]
