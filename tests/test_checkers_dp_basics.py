"""Module 01's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math
import time

import numpy as np
import pytest

from panpriv_teach.exercises import dp_basics as check
from panpriv_teach.exercises.harness import ExerciseNotAttempted
from panpriv_teach.mechanisms import laplace_mechanism_unsafe
from checker_testing import fails_with, never_returns, passes, raises


# 1.1 -------------------------------------------------------------------------------
def reveal(count, n, target):
    everyone = np.ones(n, bool)
    others = everyone.copy()
    others[target] = False
    return count(everyone) - count(others)


def test_differencing_attack_passes(capsys):
    check.exercise_1_1(reveal, strict=True)
    assert "✓ Exercise 1.1 passed" in capsys.readouterr().out


def test_differencing_attack_mistakes_are_named():
    fails_with(check.exercise_1_1, lambda c, n, t: -reveal(c, n, t), "other way round")
    fails_with(check.exercise_1_1, lambda c, n, t: c(np.ones(n, bool)), "count of many rows")
    small = lambda c, n, t: c(np.arange(n) == t)  # asks about the target alone
    fails_with(check.exercise_1_1, small, "refused")
    fails_with(check.exercise_1_1, lambda c, n, t: 0, "never asked")


# 1.2 -------------------------------------------------------------------------------
def sensitivities(max_age, k):
    return {"count": 1, "sum_of_ages": max_age, "histogram": 1, "and_count": 1, "bit_counts": k}


def test_sensitivities_pass(capsys):
    passes(check.exercise_1_2, sensitivities, capsys)


def test_sensitivity_mistakes_get_the_matching_hint_without_the_number():
    bands = lambda a, k: {**sensitivities(a, k), "histogram": a // 10 + 1}
    error = fails_with(check.exercise_1_2, bands, "only one cell", "11 bands")
    assert "sum_of_ages" not in str(error)
    fails_with(check.exercise_1_2, lambda a, k: {**sensitivities(a, k), "bit_counts": 1}, "all 2 counts", "l1")
    fails_with(check.exercise_1_2, lambda a, k: {"count": 1}, "lacks the keys")
    fails_with(check.exercise_1_2, lambda a, k: [1, 100, 1, 1, 2], "should return a dict")
    fails_with(check.exercise_1_2, lambda a, k: {**sensitivities(a, k), "count": "one"}, "should be a number")


def test_typed_sensitivities_cannot_pass():
    """The answer takes the age range and the number of bits, so the dict that is right for
    (100, 2) fails at the next case, with the reason."""
    typed = lambda a, k: {"count": 1, "sum_of_ages": 100, "histogram": 1, "and_count": 1, "bit_counts": 2}
    fails_with(check.exercise_1_2, typed, "sensitivities(120, 5)", "depends on max_age",
                       "with k = 5 bits")


# 1.3 -------------------------------------------------------------------------------
def laplace(true, sensitivity, epsilon, rng):
    return true + rng.laplace(0.0, sensitivity / epsilon)


def test_laplace_passes(capsys):
    passes(check.exercise_1_3, laplace, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda t, d, e, rng: t + rng.laplace(0, 1 / e), ["ignores the sensitivity"]),
    (lambda t, d, e, rng: t + rng.laplace(0, e / d), ["upside down"]),
    (lambda t, d, e, rng: t + rng.laplace(0, d * e), ["multiplied by ε"]),
    (lambda t, d, e, rng: t + rng.laplace(0, d / e / np.sqrt(2)), ["standard deviation"]),
    (lambda t, d, e, rng: t + rng.normal(0, np.sqrt(2) * d / e), ["laplace shape"]),
    (lambda t, d, e, rng: t + rng.exponential(d / e), ["mean zero"]),
    (lambda t, d, e, rng: t + np.random.laplace(0, d / e), ["same seeded rng"]),
])
def test_laplace_mistakes_are_named(wrong, words):
    fails_with(check.exercise_1_3, wrong, *words)


@pytest.mark.parametrize("broken, words", [
    (raises, ["raised KeyError", "oops"]),
    (lambda *a, **k: None, ["should be a number", "return"]),
    (lambda *a, **k: float("nan"), ["nan"]),
    (lambda *a, **k: "100", ["should be a number"]),
    (lambda t, d, e, rng: [t + rng.laplace(0, d / e)], ["single number", "list of 1", "x[0]"]),
    (lambda t, d, e, rng: np.array([t, t]), ["single number", "numpy array of 2"]),
    (42, ["expected a function"]),
])
def test_broken_code_gets_a_diagnosis(broken, words):
    fails_with(check.exercise_1_3, broken, *words)


def test_code_that_never_returns_is_stopped_with_a_diagnosis():
    start = time.monotonic()
    fails_with(check.exercise_1_3, never_returns, "did not finish")
    assert time.monotonic() - start < 15


def test_the_stub_reads_not_attempted():
    def stub(*args, **kwargs):
        raise NotImplementedError("Exercise 1.3: write your code here")
    with pytest.raises(ExerciseNotAttempted):
        check.exercise_1_3(stub, strict=True)


# 1.4 -------------------------------------------------------------------------------
def histogram(values, edges, epsilon, rng):
    counts = np.histogram(values, edges)[0]
    return counts + rng.laplace(0.0, 1 / epsilon, counts.shape)


def test_histogram_passes(capsys):
    passes(check.exercise_1_4, histogram, capsys)


def test_histogram_mistakes_are_named():
    per_cell = lambda v, e, eps, rng: histogram(v, e, eps / (len(e) - 1), rng)
    fails_with(check.exercise_1_4, per_cell, "sensitivity 1")
    same = lambda v, e, eps, rng: np.histogram(v, e)[0] + rng.laplace(0, 1 / eps)
    fails_with(check.exercise_1_4, same, "correlated")
    density = lambda v, e, eps, rng: np.histogram(v, e, density=True)[0] + rng.laplace(0, 1 / eps, len(e) - 1)
    fails_with(check.exercise_1_4, density, "off on average")
    fails_with(check.exercise_1_4, lambda v, e, eps, rng: rng.laplace(0, 1, 3), "shape")
    fails_with(check.exercise_1_4, lambda v, e, eps, rng: list(histogram(v, e, eps, rng)), "numpy array")


# 1.5 -------------------------------------------------------------------------------
def split_evenly(truth, sensitivities, epsilon, rng):
    return truth + rng.laplace(0.0, np.sum(sensitivities) / epsilon, len(truth))


def split_optimally(truth, sensitivities, epsilon, rng):
    # costs Δ_i/b_i with b_i ∝ √Δ_i minimise the total variance; any valid split passes
    scales = np.sqrt(sensitivities) * np.sum(np.sqrt(sensitivities)) / epsilon
    return truth + rng.laplace(0.0, scales)


@pytest.mark.parametrize("answer", [split_evenly, split_optimally])
def test_every_valid_budget_split_passes(answer, capsys):
    passes(check.exercise_1_5, answer, capsys)


def test_budget_mistakes_are_named():
    each_full = lambda t, s, e, rng: t + rng.laplace(0, s / e)
    fails_with(check.exercise_1_5, each_full, "more than the budget")
    wasteful = lambda t, s, e, rng: split_evenly(t, s, e / 2, rng)
    fails_with(check.exercise_1_5, wasteful, "noisier than they need")
    shared = lambda t, s, e, rng: t + rng.laplace(0, np.sum(s) / e) * np.ones(len(t))
    fails_with(check.exercise_1_5, shared, "correlated")


# 1.6 -------------------------------------------------------------------------------
def exponential(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    weights = np.exp(logits - logits.max())
    return candidates[rng.choice(len(candidates), p=weights / weights.sum())]


def test_exponential_mechanism_passes(capsys):
    passes(check.exercise_1_6, exponential, capsys)


def test_exponential_mechanism_mistakes_are_named():
    no_half = lambda c, s, d, e, rng: exponential(c, s, d / 2, e, rng)
    fails_with(check.exercise_1_6, no_half, "only ε-private for monotone")
    fails_with(check.exercise_1_6, lambda c, s, d, e, rng: c[int(np.argmax(s))], "same answer")
    uniform = lambda c, s, d, e, rng: c[rng.integers(len(c))]
    fails_with(check.exercise_1_6, uniform, "ignores the scores")
    no_delta = lambda c, s, d, e, rng: exponential(c, s, 1.0, e, rng)
    fails_with(check.exercise_1_6, no_delta, "sensitivity")

    def unstable(c, s, d, e, rng):
        with np.errstate(over="ignore", invalid="ignore"):  # the overflow is the mistake
            w = np.exp(e * np.asarray(s, float) / (2 * d))
            return c[rng.choice(len(c), p=w / w.sum())]
    fails_with(check.exercise_1_6, unstable, "overflow")
    fails_with(check.exercise_1_6, lambda c, s, d, e, rng: rng.integers(len(c)), "not one of the candidates")


# 1.7 -------------------------------------------------------------------------------
def unsafe_output(candidate, scale, k):   # numpy's release from the uniform k / 2^53
    u = k / 2**53
    return candidate + (scale * math.log(u + u) if u < 0.5 else -scale * math.log(2.0 - u - u))


def could_produce(release, candidate, sensitivity, epsilon):
    scale, low, high = sensitivity / epsilon, 1, 2**53 - 1
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if unsafe_output(candidate, scale, middle) < release else (low, middle)
    return unsafe_output(candidate, scale, low) == release


def test_floating_point_attack_passes_and_reports_what_it_identified(capsys):
    check.exercise_1_7(could_produce, strict=True)
    out = capsys.readouterr().out
    assert "✓ Exercise 1.7 passed" in out and "of 20 releases" in out


def test_floating_point_attack_mistakes_are_named():
    tolerant = lambda r, c, d, e: bool(abs(r - c) < 50 * d / e)      # np.isclose-style
    fails_with(check.exercise_1_7, tolerant, "both inputs", "exactly (==)")
    nearest = lambda r, c, d, e: abs(r - c) <= abs(r - (1 - c))         # the nearer input only
    fails_with(check.exercise_1_7, nearest, "came from input", "always possible")
    too_generous = lambda r, c, d, e: could_produce(r, c, d, e) or (c == 1.0 and r > 3)
    fails_with(check.exercise_1_7, too_generous, "no uniform k/2^53 gives exactly that float")
    fails_with(check.exercise_1_7, lambda r, c, d, e: 1, "return true or false")


def test_a_floating_point_attack_that_rules_out_too_much_is_named():
    """An answer that keeps the true input (known here from the checker's seeded draws) but
    rules out the other input even where it is possible."""
    rng, truth = np.random.default_rng(107), {}
    for epsilon, count in ((1.0, 12), (0.2, 8)):
        for x in rng.integers(0, 2, count).astype(float):
            truth[laplace_mechanism_unsafe(x, 1.0, epsilon, rng=rng)] = x
    only_the_truth = lambda r, c, d, e: truth.get(r) == c
    fails_with(check.exercise_1_7, only_the_truth, "you rule out input", "as well")
