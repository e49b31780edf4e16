"""Module 04's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math

import numpy as np
import pytest

from panpriv_teach.counters import dyadic_intervals, tree_levels
from panpriv_teach.exercises import continual_counting as check
from panpriv_teach.exercises.harness import ExerciseFailed, ExerciseNotAttempted
from checker_testing import fails_with, passes


# 4.1 -------------------------------------------------------------------------------
def simple_counter(stream, epsilon, rng):
    stream = np.asarray(stream)
    return np.cumsum(stream + rng.laplace(0.0, 1.0 / epsilon, len(stream)))


def test_simple_counter_passes(capsys):
    passes(check.exercise_4_1, simple_counter, capsys)


def test_simple_counter_in_a_python_loop_passes(capsys):
    def loop(stream, epsilon, rng):
        total, out = 0.0, []
        for x in stream:
            total += x + rng.laplace(0.0, 1.0 / epsilon)
            out.append(total)
        return np.array(out)
    passes(check.exercise_4_1, loop, capsys)


def test_simple_counter_returning_a_list_is_told_to_return_a_numpy_array():
    as_list = lambda s, e, rng: np.cumsum(np.asarray(s) + rng.laplace(0, 1 / e, len(s))).tolist()
    fails_with(check.exercise_4_1, as_list, "python list", "numpy array")


@pytest.mark.parametrize("wrong, words", [
    (lambda s, e, rng: np.cumsum(rng.laplace(0, 1 / e, len(s))), ["pure noise"]),
    (lambda s, e, rng: np.cumsum(s) + rng.laplace(0, 1 / e, len(s)), ["fresh noise", "composition"]),
    (lambda s, e, rng: np.cumsum(s) + rng.laplace(0, 1 / e), ["same at every step"]),
    (lambda s, e, rng: np.cumsum(np.asarray(s) + rng.laplace(0, e, len(s))), ["scale ε"]),
    (lambda s, e, rng: np.cumsum(np.asarray(s) + rng.laplace(0, 2 / e, len(s))), ["scale 2/ε"]),
    (lambda s, e, rng: np.cumsum(np.asarray(s) + rng.normal(0, np.sqrt(2) / e, len(s))), ["not laplace", "gaussian"]),
    (lambda s, e, rng: np.cumsum(np.asarray(s) + rng.normal(0, 1 / e, len(s))), ["not laplace", "gaussian"]),
    (lambda s, e, rng: np.cumsum(np.asarray(s) + rng.laplace(0.5, 1 / e, len(s))), ["biased"]),
    (lambda s, e, rng: np.cumsum(np.asarray(s) + np.random.laplace(0, 1 / e, len(s))), ["same seeded rng"]),
    (lambda s, e, rng: np.cumsum(s)[:-1], ["shape"]),
])
def test_simple_counter_mistakes_are_named(wrong, words):
    fails_with(check.exercise_4_1, wrong, *words)


# 4.2 -------------------------------------------------------------------------------
def test_dyadic_intervals_pass(capsys):   # the library's own answer (counters.dyadic_intervals)
    passes(check.exercise_4_2, dyadic_intervals, capsys)


def test_dyadic_intervals_in_any_order_pass(capsys):
    passes(check.exercise_4_2, lambda t, T: dyadic_intervals(t, T)[::-1], capsys)


def with_root(t, T):
    return [(1, T)] if t == T and T & (T - 1) == 0 else dyadic_intervals(t, T)


def leaves(t, T):
    return [(i, i) for i in range(1, t + 1)]


def greedy_wrong(t, T):   # [1, t] cut in halves that are not nodes of the tree
    return [(1, t)] if t > 2 else dyadic_intervals(t, T)


def off_by_one(t, T):
    return [(s, e - 1) for s, e in dyadic_intervals(t, T)]


@pytest.mark.parametrize("wrong, words", [
    (with_root, ["root", "two children"]),
    (leaves, ["largest node that fits first"]),
    (greedy_wrong, ["not a node of the tree"]),
    (off_by_one, ["do not cover"]),
    (lambda t, T: [(1.0, float(t))], ["whole numbers"]),
    (lambda t, T: [1, t], ["pair (s, e)"]),
    (lambda t, T: None, ["forget a `return`"]),
])
def test_dyadic_mistakes_are_named(wrong, words):
    fails_with(check.exercise_4_2, wrong, *words)


# 4.3 -------------------------------------------------------------------------------
def cum_noise_scale(T, epsilon):
    from panpriv_teach.counters import tree_nodes
    nodes = tree_nodes(T)
    sensitivity = max(sum(s <= i <= e for s, e in nodes) for i in range(1, T + 1))
    return sensitivity / epsilon


def test_cum_noise_scale_passes(capsys):
    passes(check.exercise_4_3, cum_noise_scale, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda T, e: (tree_levels(T) + 1) / e, ["counted the root"]),
    (lambda T, e: math.log2(T) / e, ["not a power of two", "ceil"]),
    (lambda T, e: max(1, math.floor(math.log2(T))) / e, ["rounded", "down"]),
    (lambda T, e: 1 / e, ["one node per level"]),
    (lambda T, e: tree_levels(T) * e, ["multiplied by ε"]),
    (lambda T, e: 7.0, ["is not right", "divide by ε"]),
    (lambda T, e: float("nan"), ["nan"]),
])
def test_cum_noise_scale_mistakes_are_named(wrong, words):
    fails_with(check.exercise_4_3, wrong, *words)


# 4.4 -------------------------------------------------------------------------------
def cum_variance(t, T, epsilon):
    L = max(1, math.ceil(math.log2(T)))
    nodes = 2 if t == T == 2**L else bin(t).count("1")
    return 2 * (L / epsilon) ** 2 * nodes


def test_cum_variance_passes(capsys):
    passes(check.exercise_4_4, cum_variance, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda t, T, e: cum_variance(t, T, e) / 2, ["2s²"]),
    (lambda t, T, e: 2 * (tree_levels(T) / e) ** 2 * tree_levels(T), ["one per 1-bit"]),
    (lambda t, T, e: 2 * (tree_levels(T) / e) ** 2 * bin(t).count("1"), ["two children"]),
    (lambda t, T, e: cum_variance(t, T, e) * (math.log2(T) / tree_levels(T)) ** 2,
     ["not a power of two"]),
    (lambda t, T, e: "big", ["should be a number"]),
    (lambda t, T, e: math.sqrt(cum_variance(t, T, e)), ["standard deviation", "variance"]),
    (lambda t, T, e: math.sqrt(cum_variance(t, T, e) / 2), ["standard deviation", "factor 2"]),
    (lambda t, T, e: (tree_levels(T) / e) ** 2 * bin(t).count("1"), ["factor 2", "two children"]),
    (lambda t, T, e: 96.0, ["is not right", "which nodes"]),     # the example's value, typed
])
def test_cum_variance_mistakes_are_named(wrong, words):
    error = fails_with(check.exercise_4_4, wrong, *words)
    if "which nodes" not in words:   # each mistake is named, never only the generic question
        assert "which nodes" not in str(error)


# 4.5 -------------------------------------------------------------------------------
def choose_ell(T, n_ones, epsilon):
    # balance the flush noise 32 T/(ell^2 eps'^4) against the waiting ones (n/T)^2 U^2/3
    eps = epsilon / 3
    return (12288 * T**3 / (eps**8 * n_ones**2)) ** (1 / 6)


def test_choose_ell_passes(capsys):
    passes(check.exercise_4_5, choose_ell, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda T, n, e: 30 / e, ["too small", "worse than the simple counter"]),
    (lambda T, n, e: 5000.0, ["too large", "lags"]),
    (lambda T, n, e: 300.0, ["too small"]),          # right for the first stream only
    (lambda T, n, e: -1.0, ["must be positive"]),
    (lambda T, n, e: None, ["should be a number"]),
])
def test_choose_ell_mistakes_are_named(wrong, words):
    fails_with(check.exercise_4_5, wrong, *words)


# 4.6 -------------------------------------------------------------------------------
def rr_estimates(reports, bias):
    reports = np.asarray(reports)
    return 2 * (np.cumsum(reports) - np.arange(1, len(reports) + 1) / 2) / bias


def test_rr_estimates_pass(capsys):
    passes(check.exercise_4_6, rr_estimates, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda y, b: 2 * np.cumsum(y) / b, ["t/2"]),
    (lambda y, b: rr_estimates(y, b) / 2, ["by bias/2, not by bias"]),
    (lambda y, b: rr_estimates(y, b) * b / 2, ["not scaled"]),
    (lambda y, b: 2 * (np.asarray(y) - 0.5) / b, ["cumulative sum"]),
    (lambda y, b: rr_estimates(y, b) + 1, ["solve for n_t"]),
    (lambda y, b: rr_estimates(y, b)[-1], ["shape"]),
    (lambda y, b: list(rr_estimates(y, b)), ["python list", "numpy array"]),
])
def test_rr_mistakes_are_named(wrong, words):
    fails_with(check.exercise_4_6, wrong, *words)


# broken code -------------------------------------------------------------------------
CHECKERS = [check.exercise_4_1, check.exercise_4_2, check.exercise_4_3, check.exercise_4_4,
            check.exercise_4_5, check.exercise_4_6]


def stub(*args, **kwargs):
    raise NotImplementedError("Exercise 4.k: write your code here")


def crashes(*args, **kwargs):
    return 1 / 0


def returns_nan(*args, **kwargs):
    return float("nan")


@pytest.mark.parametrize("checker", CHECKERS)
def test_stubs_are_reported_as_not_attempted(checker):
    with pytest.raises(ExerciseNotAttempted):
        checker(stub, strict=True)


@pytest.mark.parametrize("checker", CHECKERS)
def test_crashing_code_is_diagnosed_with_its_line(checker):
    fails_with(checker, crashes, "ZeroDivisionError", "your code")


@pytest.mark.parametrize("checker", CHECKERS)
def test_nan_and_non_functions_are_diagnosed(checker):
    with pytest.raises(ExerciseFailed):
        checker(returns_nan, strict=True)
    fails_with(checker, 42, "expected a function")


def test_code_that_never_returns_is_stopped(monkeypatch):
    import panpriv_teach.exercises.harness as harness

    original = harness.call

    def quick(fn, *args, seconds=10.0, **kwargs):
        return original(fn, *args, seconds=0.5, **kwargs)

    monkeypatch.setattr(check, "call", quick)

    def forever(*args, **kwargs):
        while True:
            pass

    fails_with(check.exercise_4_3, forever, "did not finish")
