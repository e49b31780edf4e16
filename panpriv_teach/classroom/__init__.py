"""The classroom machinery around the course's library: the notebook pipeline
(`notebooks`: exercises generated from solutions, execution), the students' copies
(`workspace`), the student release (`release`), the nbgrader export (`nbgrader_export`),
the scoreboard of `check` (`scoreboard`) and the grader (`grading`). None of it is imported
by the library itself; the commands of `python -m panpriv_teach` use it.
"""
