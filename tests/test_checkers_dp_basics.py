"""Module 01's checkers beyond the mutation table (tests/checker_tables/dp_basics.py): what
the pass lines report, diagnoses that never give the answer away and print the failing
case, and the floating-point attack's checker against an answer that rules out too much."""
import numpy as np

from checker_tables.dp_basics import could_produce, laplace, sensitivities
from checker_testing import fails_with
from panpriv_teach.exercises import dp_basics as check
from panpriv_teach.exercises._answers import seeded
from panpriv_teach.mechanisms import laplace_mechanism_unsafe


def test_sensitivity_hints_never_state_the_right_number():
    bands = lambda a, k: {**sensitivities(a, k), "histogram": a // 10 + 1}
    error = fails_with(check.exercise_1_2, bands, "only one cell")
    assert "sum_of_ages" not in str(error) and "'histogram': 1" not in str(error)
    assert "?." not in str(error)     # the typo "move?." of issue 22


def test_a_failed_statistical_check_prints_its_case():
    gaussian = lambda t, d, e, rng: t + rng.normal(0, np.sqrt(2) * d / e)
    fails_with(check.exercise_1_3, gaussian, "true answer 100", "Δ = 2", "ε = 0.5")


def test_an_error_inside_numpy_points_to_the_students_line_not_numpys():
    def unstable(c, s, d, e, rng):
        with np.errstate(over="ignore", invalid="ignore"):
            w = np.exp(e * np.asarray(s, float) / (2 * d))
            return c[rng.choice(len(c), p=w / w.sum())]
    error = fails_with(check.exercise_1_6, unstable, "inside numpy, called from line")
    assert "rng.choice" in str(error) and ".pyx" not in str(error)


def test_the_database_is_shown_by_its_name_not_a_raw_repr():
    error = fails_with(check.exercise_1_1, lambda count, n, t: count(np.arange(n) == t),
                       "(count, ")
    assert "object at 0x" not in str(error) and "_LargeQueriesOnly" not in str(error)


def test_a_laplace_sampler_that_is_not_from_rng_is_not_reproducible():
    fails_with(check.exercise_1_3, lambda t, d, e, rng: laplace(t, d, e, np.random.default_rng()),
               "identically seeded")


def test_floating_point_attack_reports_what_it_identified(capsys):
    check.exercise_1_7(could_produce, strict=True)
    out = capsys.readouterr().out
    assert "✓ Exercise 1.7 passed" in out and "of 20 releases" in out


def test_a_floating_point_attack_that_rules_out_too_much_is_named():
    """An answer that keeps the true input (known here from the checker's seeded draws) but
    rules out the other input even where it is possible."""
    rng, truth = seeded(107), {}
    for epsilon, count in ((1.0, 12), (0.2, 8)):
        for x in rng.integers(0, 2, count).astype(float):
            truth[laplace_mechanism_unsafe(x, 1.0, epsilon, rng=rng)] = x
    only_the_truth = lambda r, c, d, e: truth.get(r) == c
    fails_with(check.exercise_1_7, only_the_truth, "you rule out input", "as well")


def test_the_librarys_exact_exponential_mechanism_passes(capsys):
    """Issue 22: a correct sampler that often repeats a candidate (the library's, by exact
    rejection) once failed the 'two seeds differ' test; the law test accepts it."""
    from panpriv_teach.mechanisms import exponential_mechanism
    check.exercise_1_6(lambda c, s, d, e, rng: exponential_mechanism(c, s, d, e, rng=rng),
                       strict=True)
    assert "✓ Exercise 1.6 passed" in capsys.readouterr().out
