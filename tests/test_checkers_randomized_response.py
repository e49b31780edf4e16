"""Module 02's checkers beyond the mutation table (tests/checker_tables/
randomized_response.py): diagnoses that do not give the answer away, the exact-ε checker's
infinite case, and what the pass line of 2.5 reports."""
import numpy as np

from checker_tables.randomized_response import channel_epsilon, simulate_errors
from checker_testing import fails_with
from panpriv_teach.exercises import randomized_response as check


def test_aggregator_diagnosis_does_not_reveal_the_answer():
    error = fails_with(check.exercise_2_2, lambda m, b: 0.0, "not unbiased")
    assert "n/2 −" not in str(error)


def test_exact_epsilon_must_be_infinite_when_an_output_is_impossible_for_one_input():
    def nan_on_zeros(channel):
        return channel_epsilon(channel) if np.all(channel > 0) else float("nan")
    fails_with(check.exercise_2_3, nan_on_zeros, "is nan")


def test_the_simulation_reports_the_growth_of_the_error(capsys):
    check.exercise_2_5(simulate_errors, strict=True)
    assert "n × 40 multiplies the error by" in capsys.readouterr().out
