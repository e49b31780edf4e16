"""Module 03's checkers beyond the mutation table (tests/checker_tables/density.py):
diagnoses that do not give the answer away, 3.3's check on the task's own example, and
what the pass line of 3.5 reports."""
import numpy as np
import pytest

from checker_tables.density import roth_m, where_claim_fails
from checker_testing import fails_with
from panpriv_teach.exercises import density as check


@pytest.mark.parametrize("answer", [lambda c: 0.5, lambda c: 1.0, lambda c: 1.7,
                                    lambda c: where_claim_fails(c / 2 + 0.5)])
def test_where_claim_fails_diagnoses_never_print_the_crossing(answer):
    error = fails_with(check.exercise_3_2, answer)
    assert "1.59" not in str(error) and "1.16" not in str(error)


def test_an_update_wrong_only_on_the_tasks_example_fails_there():
    def rewrites_a_neighbour_of_7(M, b, stream, epsilon, rng):   # right except for 7
        b = b.copy()
        for x in stream:
            i = np.searchsorted(M, x)
            if i < len(M) and (M[i] == x or x == 7):
                b[i] = rng.random() < 0.5 + epsilon / 4
        return b
    fails_with(check.exercise_3_3, rewrites_a_neighbour_of_7, "task's example", "7 is not in M")


def test_roth_m_reports_the_empirical_check(capsys):
    check.exercise_3_5(roth_m, strict=True)
    out = " ".join(capsys.readouterr().out.split())     # the pass line is wrapped at 88
    assert "m = 46,052" in out and "of 100 runs" in out


@pytest.mark.parametrize("answer", [[0.5, 0.7], (0.5,), np.array([0.5])])
def test_a_list_or_one_element_array_is_named_not_a_missing_return(answer):
    error = fails_with(check.exercise_3_4, lambda b, e, rng: answer, "single number")
    assert "forget" not in str(error).lower()
