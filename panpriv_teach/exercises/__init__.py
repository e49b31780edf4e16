"""Exercise checkers: one module per course module (`dp_basics` for 01, ...).

In a notebook: `from panpriv_teach.exercises import dp_basics as check`, then
`check.exercise_1_1(my_answer)` prints a pass line or explains what is wrong.
"""
