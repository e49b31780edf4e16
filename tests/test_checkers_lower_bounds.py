"""Module 07's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from panpriv_teach.exercises import lower_bounds as check
from panpriv_teach.exercises.harness import ExerciseNotAttempted
from checker_testing import fails_with, passes
from panpriv_teach.intrusion import clone_with_fresh_coins
from panpriv_teach.reconstruction import (bounded_noise, fraction_correct, random_queries,
                                          reconstruct_lp, subset_sums)



# 7.1 -------------------------------------------------------------------------------
def subsets_of(n):
    return (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1


def exhaustive_attack(answer, n, E):
    subsets = subsets_of(n)
    responses = np.array([answer(S) for S in subsets])
    for c in subsets:
        if np.all(np.abs(subsets @ c - responses) <= E):
            return c


def test_exhaustive_attack_passes(capsys):
    passes(check.exercise_7_1, exhaustive_attack, capsys)


def strict(answer, n, E):                        # rules out errors of exactly E
    subsets = subsets_of(n)
    responses = np.array([answer(S) for S in subsets])
    for c in subsets:
        if np.all(np.abs(subsets @ c - responses) < E):
            return c


def one_sided(answer, n, E):                     # forgets the absolute value
    subsets = subsets_of(n)
    responses = np.array([answer(S) for S in subsets])
    for c in subsets:
        if np.all(subsets @ c - responses <= E):
            return c


def test_exhaustive_attack_mistakes_are_named():
    fails_with(check.exercise_7_1, strict, "returned none", "<=")
    fails_with(check.exercise_7_1, one_sided, "ruled out", "absolute")
    fails_with(check.exercise_7_1, lambda answer, n, E: np.zeros(n, int), "never asked")
    fails_with(check.exercise_7_1, lambda answer, n, E: np.array([answer(np.ones(n, int))] * n), "only 0s and 1s")
    fails_with(check.exercise_7_1, lambda answer, n, E: exhaustive_attack(answer, n, E).tolist(), "numpy array")
    fails_with(check.exercise_7_1, lambda answer, n, E: (answer(np.ones(n, int)), np.ones(n, int))[1],
               "ruled out")
    fails_with(check.exercise_7_1, lambda answer, n, E: np.full(n, 0.5), "only 0s and 1s")
    fails_with(check.exercise_7_1, lambda answer, n, E: np.zeros(n + 1), "length n")
    fails_with(check.exercise_7_1, lambda answer, n, E: answer([0, 1]), "raised valueerror",
               "0/1 vector of length n")


# 7.2 -------------------------------------------------------------------------------
def decode(queries, answers):
    t, n = queries.shape
    cost = np.zeros(n + 1)
    cost[-1] = 1.0
    column = -np.ones((t, 1))
    A = np.vstack([np.hstack([queries, column]), np.hstack([-queries, column])])
    b = np.concatenate([answers, -answers])
    result = linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)], method="highs")
    return (result.x[:n] > 0.5).astype(int)


def test_lp_decoding_passes(capsys):
    passes(check.exercise_7_2, decode, capsys)
    passes(check.exercise_7_2, lambda q, a: reconstruct_lp(q, a, method="l1"), capsys)


def whole_solution(queries, answers):
    t, n = queries.shape
    cost = np.zeros(n + 1)
    cost[-1] = 1.0
    column = -np.ones((t, 1))
    A = np.vstack([np.hstack([queries, column]), np.hstack([-queries, column])])
    b = np.concatenate([answers, -answers])
    return linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)], method="highs").x


def test_lp_decoding_mistakes_are_named():
    fails_with(check.exercise_7_2, whole_solution, "slack variables")
    fails_with(check.exercise_7_2, lambda q, a: reconstruct_lp(q, a, fractional=True) * 0.9,
               "round it")
    fails_with(check.exercise_7_2, lambda q, a: 1 - decode(q, a), "complement")
    fails_with(check.exercise_7_2, lambda q, a: np.ones(q.shape[1], int), "wrong in")
    fails_with(check.exercise_7_2, lambda q, a: None, "return")


# 7.3 -------------------------------------------------------------------------------
def private_answers(database, queries, epsilon, rng):
    t = len(queries)
    return queries @ database + rng.laplace(0.0, t / epsilon, t)


def test_composition_passes_with_t_over_epsilon_and_with_the_exact_sensitivity(capsys):
    passes(check.exercise_7_3, private_answers, capsys)
    exact = lambda d, q, e, rng: q @ d + rng.laplace(0.0, q.sum(axis=0).max() / e, len(q))
    passes(check.exercise_7_3, exact, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda d, q, e, rng: q @ d + rng.laplace(0.0, 1 / e, len(q)), ["whole budget", "share"]),
    (lambda d, q, e, rng: q @ d + rng.laplace(0.0, e / len(q), len(q)), ["too little", "more noise"]),
    (lambda d, q, e, rng: q @ d + rng.laplace(0.0, 3 * len(q) / e, len(q)), ["more than composition"]),
    (lambda d, q, e, rng: q @ d + rng.laplace(0.0, len(q) / e), ["correlated"]),
    (lambda d, q, e, rng: q @ d + rng.normal(0.0, len(q) / e, len(q)), ["laplace shape"]),
    (lambda d, q, e, rng: q @ d + rng.exponential(len(q) / e, len(q)), ["off on average"]),
    (lambda d, q, e, rng: q @ d + np.random.laplace(0.0, len(q) / e, len(q)), ["same seeded rng"]),
    (lambda d, q, e, rng: (q @ d)[:3], ["shape"]),
])
def test_composition_mistakes_are_named(wrong, words):
    fails_with(check.exercise_7_3, wrong, *words)


# 7.4 -------------------------------------------------------------------------------
def decoding_success(n, t, c, rng):
    d = rng.integers(0, 2, n)
    q = random_queries(n, t, rng)
    noise = bounded_noise(q, d, c * math.sqrt(n), "toward", rng)
    return fraction_correct(reconstruct_lp(q, subset_sums(d, q) + noise), d)


def test_where_decoding_breaks_passes(capsys):
    passes(check.exercise_7_4, decoding_success, capsys)


def no_sqrt_n(n, t, c, rng):
    d = rng.integers(0, 2, n)
    q = random_queries(n, t, rng)
    return fraction_correct(reconstruct_lp(q, subset_sums(d, q)
                                           + bounded_noise(q, d, c, "toward", rng)), d)


def test_where_decoding_breaks_mistakes_are_named():
    fails_with(check.exercise_7_4, no_sqrt_n, "c·√n")
    fails_with(check.exercise_7_4, lambda n, t, c, rng: n * decoding_success(n, t, c, rng), "fraction")
    fails_with(check.exercise_7_4, lambda n, t, c, rng: rng.random() * 0.5, "small noise")
    fails_with(check.exercise_7_4, lambda n, t, c, rng: 1.0, "c·√n")
    shared = np.random.default_rng(1)   # a generator of its own, not the rng given: fixed outcome
    fails_with(check.exercise_7_4, lambda n, t, c, rng: decoding_success(n, t, c, shared),
               "same seeded rng")
    constant_at_1 = lambda n, t, c, rng: decoding_success(n, t, c, rng) if c < 1 else 0.5
    fails_with(check.exercise_7_4, constant_at_1, "different rng seeds")


# 7.5 -------------------------------------------------------------------------------
def packing_bound(n, epsilon):
    best = 0.0
    for L in range(1, n // 2 + 1):
        if 0.5 * (1 + (n // L) * math.exp(-epsilon * L)) > 1:
            best = L / 2
    return best


def test_packing_bound_passes(capsys):
    passes(check.exercise_7_5, packing_bound, capsys)


def seed_version(n, epsilon):
    best = 0.0
    for L in range(1, n // 2 + 1):
        if 0.5 * (1 + (n // L - 1) * math.exp(-2 * epsilon * L)) > 1:
            best = L / 2
    return best


def test_packing_bound_mistakes_are_named():
    fails_with(check.exercise_7_5, lambda n, e: 2 * packing_bound(n, e), "twice too large")
    fails_with(check.exercise_7_5, seed_version, "first block stream")
    fails_with(check.exercise_7_5, lambda n, e: math.log(n) / (2 * e), "multiple of 1/2")
    fails_with(check.exercise_7_5, lambda n, e: packing_bound(n, e) + (n == 1000), "for n = 1000")


# 7.6 -------------------------------------------------------------------------------
def intrusion_attack(algorithm, n_queries, rng, complement=True):
    m = algorithm.universe_size
    q = rng.integers(0, 2, (n_queries, m))
    values = np.empty(n_queries)
    for j in range(n_queries):
        copy = clone_with_fresh_coins(algorithm, rng)
        copy.process(np.flatnonzero(q[j]))
        values[j] = copy.output() - q[j].sum()
    return reconstruct_lp(1 - q if complement else q, values, method="l1")


def test_intrusion_attack_passes(capsys):
    passes(check.exercise_7_6, intrusion_attack, capsys)


def on_the_original(algorithm, n_queries, rng):
    m = algorithm.universe_size
    q = rng.integers(0, 2, (n_queries, m))
    values = []
    for row in q:
        algorithm.process(np.flatnonzero(row))
        values.append(algorithm.output() - row.sum())
    return reconstruct_lp(1 - q, np.array(values), method="l1")


def without_complement(algorithm, n_queries, rng):
    return intrusion_attack(algorithm, n_queries, rng, complement=False)


def test_intrusion_attack_mistakes_are_named():
    fails_with(check.exercise_7_6, on_the_original, "memory changed")
    fails_with(check.exercise_7_6, without_complement, "complement")
    fails_with(check.exercise_7_6, lambda alg, t, rng: 1 - intrusion_attack(alg, t, rng),
               "complement of the users")


# broken code -----------------------------------------------------------------------
CHECKERS = [check.exercise_7_1, check.exercise_7_2, check.exercise_7_3, check.exercise_7_4,
            check.exercise_7_5, check.exercise_7_6]


@pytest.mark.parametrize("checker", CHECKERS)
def test_stubs_are_reported_as_not_attempted(checker):
    def stub(*args, **kwargs):
        raise NotImplementedError("write your code here")
    with pytest.raises(ExerciseNotAttempted):
        checker(stub, strict=True)


@pytest.mark.parametrize("checker", CHECKERS)
def test_broken_code_is_diagnosed_not_crashed(checker):
    fails_with(checker, lambda *args, **kwargs: 1 / 0, "zerodivisionerror")
    fails_with(checker, lambda *args, **kwargs: "text", "should be")
    fails_with(checker, lambda *args, **kwargs: float("nan"), "nan")
    fails_with(checker, 42, "expected a function")


def test_code_that_never_returns_is_stopped():
    def forever(*args, **kwargs):
        while True:
            pass
    fails_with(check.exercise_7_5, forever, "did not finish")
