"""Module 05's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checks are exact, so these outcomes are deterministic."""
import time
from fractions import Fraction

import pytest

from panpriv_teach.counters import dyadic_intervals, nodes_containing, tree_nodes
from panpriv_teach.exercises import ppcum as check
from panpriv_teach.exercises.harness import ExerciseNotAttempted
from checker_testing import fails_with, passes


# 5.1 -------------------------------------------------------------------------------
def erased_after(t, T):
    return {I for I in tree_nodes(T) if I[1] <= t}


def test_erased_after_passes(capsys):
    passes(check.exercise_5_1, erased_after, capsys)


def test_erased_after_mistakes_are_named():
    fails_with(check.exercise_5_1, lambda t, T: {I for I in tree_nodes(T) if I[0] <= t},
               "sticks out past t")                              # the proof's reading
    fails_with(check.exercise_5_1, lambda t, T: erased_after(t, T) | {(1, T)}, "root")
    fails_with(check.exercise_5_1, lambda t, T: {I for I in tree_nodes(T) if I[1] == t},
               "only the nodes erased at")
    fails_with(check.exercise_5_1, lambda t, T: {I for I in tree_nodes(T) if I[1] < t}, "forget")
    fails_with(check.exercise_5_1, lambda t, T: 3, "(start, end) pairs")


# 5.2 -------------------------------------------------------------------------------
def view_after(x, N, N_I, T):
    X, releases = N, []
    for i, bit in enumerate(x, start=1):
        X += bit
        releases.append(X + sum(v for (s, e), v in N_I.items() if s <= i <= e))
    return releases, X, {(s, e): v for (s, e), v in N_I.items() if e > len(x)}


def test_view_after_passes(capsys):
    passes(check.exercise_5_2, view_after, capsys)


def test_view_after_mistakes_are_named():
    def no_N(x, N, N_I, T):
        r, X, k = view_after(x, N, N_I, T)
        return [v - N for v in r], X, k

    def exact_X(x, N, N_I, T):
        r, X, k = view_after(x, N, N_I, T)
        return r, sum(x), k

    def keeps_all(x, N, N_I, T):
        r, X, k = view_after(x, N, N_I, T)
        return r, X, dict(N_I)

    def proof_memory(x, N, N_I, T):
        r, X, k = view_after(x, N, N_I, T)
        return r, X, {(s, e): v for (s, e), v in N_I.items() if s > len(x)}

    def leaf_only(x, N, N_I, T):
        X, releases = N, []
        for i, bit in enumerate(x, start=1):
            X += bit
            releases.append(X + N_I[(i, i)])
        return releases, X, view_after(x, N, N_I, T)[2]

    fails_with(check.exercise_5_2, no_N, "contain N")
    fails_with(check.exercise_5_2, exact_X, "exact count")
    fails_with(check.exercise_5_2, keeps_all, "erased their noise")
    fails_with(check.exercise_5_2, proof_memory, "still needed")
    fails_with(check.exercise_5_2, leaf_only, "release at step")
    fails_with(check.exercise_5_2, lambda x, N, N_I, T: None, "tuple")
    fails_with(check.exercise_5_2, lambda x, N, N_I, T: ([0.0] * len(x), float("nan"), {}), "nan")


# 5.3 -------------------------------------------------------------------------------
def coupling(j, T):
    shift = {"N": -1}
    shift.update({I: 1 for I in (dyadic_intervals(j - 1, T) if j > 1 else [])})
    return shift


def test_coupling_passes(capsys):
    passes(check.exercise_5_3, coupling, capsys)


def test_coupling_mistakes_are_named():
    fails_with(check.exercise_5_3, lambda j, T: {**coupling(j, T), "N": 1}, "other way")
    fails_with(check.exercise_5_3,
               lambda j, T: {"N": -1, **{I: 1 for I in dyadic_intervals(j, T)}}, "[1, j - 1]")
    fails_with(check.exercise_5_3, lambda j, T: {"N": -1, **{I: 1 for I in nodes_containing(j, T)}},
               "contain j")
    fails_with(check.exercise_5_3, lambda j, T: {"N": -1}, "views after")
    fails_with(check.exercise_5_3, lambda j, T: [], "dict")


def test_coupling_that_is_valid_but_expensive_is_flagged():
    def leaves(j, T):     # +1 on every leaf before j: valid, cost j
        return {"N": -1, **{(i, i): 1 for i in range(1, j)}}
    fails_with(check.exercise_5_3, leaves, "costs")


# 5.4 -------------------------------------------------------------------------------
def claim(eps):
    half = Fraction(1, 2)
    plus, minus, d1 = half + eps + eps**2 / 2, half - eps + eps**2 / 2, half + eps / 4
    return {"blank": half, "repeat": (1 - d1) * plus + d1 * minus, "first": half * (plus + minus)}


def test_claim_passes(capsys):
    passes(check.exercise_5_4, claim, capsys)


def test_claim_mistakes_are_named():
    fails_with(check.exercise_5_4, lambda e: {**claim(e), "first": Fraction(1, 2) + e**2}, "average")
    fails_with(check.exercise_5_4, lambda e: {**claim(e), "repeat": claim(e)["first"]}, "d1")
    fails_with(check.exercise_5_4, lambda e: {k: float(v) for k, v in claim(e).items()}, "fraction")
    fails_with(check.exercise_5_4, lambda e: {**claim(e), "repeat": Fraction(1, 3)}, "condition")
    fails_with(check.exercise_5_4, lambda e: [1, 2, 3], "keys")


# 5.5 -------------------------------------------------------------------------------
def estimate(ocount, t, m, eps):
    return (ocount - t / 2) / (m * eps**2 / 2)


def test_estimate_passes(capsys):
    passes(check.exercise_5_5, estimate, capsys)


def test_estimate_mistakes_are_named():
    fails_with(check.exercise_5_5, lambda o, t, m, e: (o - t / 2) / (m * e**2), "half the density")
    fails_with(check.exercise_5_5, lambda o, t, m, e: (o - t / 2) / (e**2 / 2), "divide by m")
    fails_with(check.exercise_5_5, lambda o, t, m, e: o / (m * e**2 / 2), "subtract t/2")
    fails_with(check.exercise_5_5, lambda o, t, m, e: 4 * (o / t - 0.5) / e, "solve")


# broken code -----------------------------------------------------------------------
@pytest.mark.parametrize("checker", [check.exercise_5_1, check.exercise_5_2, check.exercise_5_3,
                                     check.exercise_5_4, check.exercise_5_5])
def test_broken_code_is_reported_not_crashing(checker):
    def stub(*args):
        raise NotImplementedError("Exercise 5.k")

    def boom(*args):
        return 1 / 0

    with pytest.raises(ExerciseNotAttempted):
        checker(stub, strict=True)
    fails_with(checker, boom, "ZeroDivisionError")
    fails_with(checker, 42, "expected a function")


def test_code_that_never_returns_is_stopped():
    def forever(*args):
        while True:
            time.sleep(0.01)

    start = time.monotonic()
    fails_with(check.exercise_5_5, forever, "did not finish")
    assert time.monotonic() - start < 15
