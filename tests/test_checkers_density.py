"""Module 03's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math
import time

import numpy as np
import pytest

from panpriv_teach.exercises import density as check
from panpriv_teach.exercises.harness import ExerciseNotAttempted
from checker_testing import fails_with, never_returns, raises
from panpriv_teach.strawmen import keyed_hash


# 3.1 / 3.2 ------------------------------------------------------------------------
def bit_privacy_loss(epsilon):
    p0, p1 = 0.5, 0.5 + epsilon / 4
    return max(abs(math.log(p1 / p0)), abs(math.log((1 - p1) / (1 - p0))))


def where_claim_fails():
    lo, hi = 0.5, 1.99
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bit_privacy_loss(mid) <= mid else (lo, mid)
    return lo


def test_claim_4_1_answers_pass(capsys):
    check.exercise_3_1(bit_privacy_loss)
    check.exercise_3_2(where_claim_fails)
    out = capsys.readouterr().out
    assert "✓ Exercise 3.1 passed" in out and "✓ Exercise 3.2 passed" in out


@pytest.mark.parametrize("wrong, words", [
    (lambda e: math.log(1 + e / 2), ["b = 0"]),
    (lambda e: e / 2, ["bound from the text"]),
    (lambda e: e, ["bound from the text"]),
    (lambda e: math.log(1 - e / 2), ["negative"]),
    (lambda e: -math.log10(1 - e / 2), ["log10"]),
    (lambda e: -math.log(1 - e / 4), ["not the largest"]),
])
def test_claim_4_1_mistakes_are_named(wrong, words):
    fails_with(check.exercise_3_1, wrong, *words)


@pytest.mark.parametrize("answer, words", [
    (0.5, ["stated"]), (2.0, ["stops being a distribution"]), (1.0, ["still holds"]),
    (1.7, ["already fails"]), (3.0, ["not an ε"]),
])
def test_where_claim_fails_mistakes_are_named_without_the_answer(answer, words):
    error = fails_with(check.exercise_3_2, lambda: answer, *words)
    assert "1.59" not in str(error)


# 3.3 ------------------------------------------------------------------------------
def update_table(M, b, stream, epsilon, rng):
    b = b.copy()
    for x in stream:
        i = np.searchsorted(M, x)
        if i < len(M) and M[i] == x:
            b[i] = rng.random() < 0.5 + epsilon / 4
    return b


def vectorised_update_table(M, b, stream, epsilon, rng):
    b = b.copy()
    hit = np.isin(M, stream)
    b[hit] = rng.random(hit.sum()) < 0.5 + epsilon / 4
    return b


@pytest.mark.parametrize("answer", [update_table, vectorised_update_table])
def test_d1_update_passes(answer, capsys):
    check.exercise_3_3(answer)
    assert "passed" in capsys.readouterr().out


def with_draw(p_of):
    """An update that sets b_x for arrivals x ∈ M by a rule p_of(old bit, epsilon, rng)."""
    def answer(M, b, stream, epsilon, rng):
        b = b.copy()
        for x in stream:
            i = np.searchsorted(M, x)
            if i < len(M) and M[i] == x:
                b[i] = p_of(b[i], epsilon, rng)
        return b
    return answer


def test_d1_update_mistakes_are_named():
    fails_with(check.exercise_3_3, with_draw(lambda old, e, rng: 1), "exact")
    fails_with(check.exercise_3_3, with_draw(lambda old, e, rng: rng.random() < 0.5), "that is d0")
    fails_with(check.exercise_3_3, with_draw(lambda old, e, rng: rng.random() < 0.5 + e / 2), "1/2 + ε/2")
    fails_with(check.exercise_3_3, with_draw(lambda old, e, rng: 1 - old if rng.random() < 0.9 else old),
               "depends on the old one")
    fails_with(check.exercise_3_3, with_draw(lambda old, e, rng: old | (rng.random() < 0.25)),
               "depends on the old one")

    def counts_arrivals(M, b, stream, epsilon, rng):   # P(1) grows with the number of arrivals
        b = b.copy()
        arrivals = np.array([np.sum(stream == x) for x in M])
        hit = arrivals > 0
        b[hit] = rng.random(hit.sum()) < 1 - (0.5 - epsilon / 4) ** arrivals[hit]
        return b
    fails_with(check.exercise_3_3, counts_arrivals, "arrive once")

    def everyone(M, b, stream, epsilon, rng):   # redraws the whole table
        return (rng.random(len(b)) < 0.5 + epsilon / 4).astype(int)
    fails_with(check.exercise_3_3, everyone, "never arrived")
    fails_with(check.exercise_3_3, lambda M, b, s, e, rng: b * 2, "bits")
    fails_with(check.exercise_3_3, lambda M, b, s, e, rng: update_table(M, b, s, e, np.random.default_rng()),
               "same seeded rng")


# 3.4 ------------------------------------------------------------------------------
def release(b, epsilon, rng):
    m = len(b)
    return 4 * (np.mean(b) + rng.laplace(0, 1 / (epsilon * m)) - 0.5) / epsilon


def test_release_passes(capsys):
    check.exercise_3_4(release)
    assert "passed" in capsys.readouterr().out


@pytest.mark.parametrize("wrong, words", [
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 1 / (e * len(b))), ["as the seeds write it"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e, ["no noise"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 4 / (e * len(b))), ["ignores ε"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 1 / len(b)), ["ignores ε"]),
    (lambda b, e, rng: 4 * np.mean(b) / e + rng.laplace(0, 4 / (e * e * len(b))), ["subtract 1/2"]),
    (lambda b, e, rng: np.mean(b) - 0.5 + rng.laplace(0, 4 / (e * e * len(b))), ["scale it by 4/ε"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 2 / (e * e * len(b))), ["divided by ε"]),
    (lambda b, e, rng: release(b, e, np.random.default_rng()), ["same seeded rng"]),
])
def test_release_mistakes_are_named(wrong, words):
    fails_with(check.exercise_3_4, wrong, *words)


# 3.5 ------------------------------------------------------------------------------
def roth_m(epsilon, alpha, beta):
    return math.ceil(200 * math.log(1 / beta) / (epsilon ** 2 * alpha ** 2))


def test_roth_m_passes_and_reports_the_empirical_check(capsys):
    check.exercise_3_5(roth_m)
    out = capsys.readouterr().out
    assert "m = 46,052" in out and "0 of 100 runs" in out


@pytest.mark.parametrize("wrong, words", [
    (lambda e, a, b: 200 * math.log(1 / b) / (e ** 2 * a ** 2), ["round up"]),
    (lambda e, a, b: math.floor(200 * math.log(1 / b) / (e ** 2 * a ** 2)), ["round up"]),
    (lambda e, a, b: 200 * math.log10(1 / b) / (e ** 2 * a ** 2), ["log10"]),
    (lambda e, a, b: 200 * math.log2(1 / b) / (e ** 2 * a ** 2), ["log2"]),
    (lambda e, a, b: math.ceil(200 * math.log(1 / b) / (e ** 2 * a)), ["squared"]),
    (lambda e, a, b: math.ceil(300 * math.log(1 / b) / (e ** 2 * a ** 2)), ["does not follow"]),
])
def test_roth_m_mistakes_are_named(wrong, words):
    fails_with(check.exercise_3_5, wrong, *words)


# 3.6 ------------------------------------------------------------------------------
def who_visited(state, universe_size):
    ids = np.arange(universe_size)
    return ids[np.isin(keyed_hash(state["key"], ids), state["hashes"])]


def test_dictionary_attack_passes(capsys):
    check.exercise_3_6(who_visited)
    assert "passed" in capsys.readouterr().out


def test_dictionary_attack_mistakes_are_named():
    fails_with(check.exercise_3_6, lambda s, n: s["hashes"], "hash values")
    fails_with(check.exercise_3_6, lambda s, n: who_visited(s, n // 2), "missed")
    fails_with(check.exercise_3_6, lambda s, n: np.arange(n), "never visited")
    fails_with(check.exercise_3_6, lambda s, n: np.array([], int), "found nobody")
    fails_with(check.exercise_3_6, lambda s, n: who_visited(s, n) + 0.5, "whole numbers")


# broken code ----------------------------------------------------------------------
@pytest.mark.parametrize("checker, broken, words", [
    (check.exercise_3_1, raises, ["raised KeyError", "oops"]),
    (check.exercise_3_1, lambda e: None, ["should be a number", "return"]),
    (check.exercise_3_1, lambda e: float("nan"), ["nan"]),
    (check.exercise_3_2, lambda: "1.6", ["should be a number"]),
    (check.exercise_3_3, lambda *a, **k: None, ["none"]),
    (check.exercise_3_3, lambda M, b, s, e, rng: np.full(len(b), np.nan), ["nan"]),
    (check.exercise_3_3, lambda M, b, s, e, rng: b[:3], ["shape"]),
    (check.exercise_3_4, lambda b, e, rng: [1.0, 2.0], ["should be a number"]),
    (check.exercise_3_5, raises, ["raised KeyError"]),
    (check.exercise_3_6, lambda s, n: "everyone", ["array of numbers"]),
    (check.exercise_3_6, lambda s, n: np.zeros((2, 2)), ["1-d"]),
    (check.exercise_3_4, 42, ["expected a function"]),
])
def test_broken_code_gets_a_diagnosis(checker, broken, words):
    fails_with(checker, broken, *words)


def test_code_that_never_returns_is_stopped_with_a_diagnosis():
    start = time.monotonic()
    fails_with(check.exercise_3_4, never_returns, "did not finish")
    assert time.monotonic() - start < 15


def test_the_stub_reads_not_attempted():
    def stub(*args, **kwargs):
        raise NotImplementedError("Exercise 3.3: write your code here")
    for checker in (check.exercise_3_1, check.exercise_3_3, check.exercise_3_6):
        with pytest.raises(ExerciseNotAttempted):
            checker(stub)
