"""Module 04's checkers beyond the mutation table (tests/checker_tables/
continual_counting.py): the library's own decomposition passes, and crashing code is
diagnosed with the student's line."""
import pytest

from checker_testing import fails_with, passes
from panpriv_teach.counters import dyadic_intervals
from panpriv_teach.exercises import continual_counting as check
from panpriv_teach.exercises.harness import exercises_of


def test_the_librarys_decomposition_passes(capsys):
    passes(check.exercise_4_2, dyadic_intervals, capsys)


def crashes(*args, **kwargs):
    return 1 / 0


@pytest.mark.parametrize("checker", exercises_of(check).values(), ids=lambda c: c.exercise)
def test_crashing_code_is_diagnosed_with_its_line(checker):
    fails_with(checker, crashes, "ZeroDivisionError", "line", "of your code", "return 1 / 0")
