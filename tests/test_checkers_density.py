"""Module 03's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math
import time

import numpy as np
import pytest

from panpriv_teach.exercises import density as check
from panpriv_teach.exercises.harness import ExerciseNotAttempted
from checker_testing import fails_with, never_returns, passes, raises
from panpriv_teach.strawmen import keyed_hash


# 3.1 / 3.2 ------------------------------------------------------------------------
def bit_privacy_loss(epsilon):
    p0, p1 = 0.5, 0.5 + epsilon / 4
    return max(abs(math.log(p1 / p0)), abs(math.log((1 - p1) / (1 - p0))))


def where_claim_fails(c):
    lo, hi = 1e-9, 2 - 1e-9
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bit_privacy_loss(mid) <= c * mid else (lo, mid)
    return lo


def test_claim_4_1_answers_pass(capsys):
    check.exercise_3_1(bit_privacy_loss, strict=True)
    check.exercise_3_2(where_claim_fails, strict=True)
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
    (lambda c: 0.5, ["stated"]), (lambda c: 2.0, ["stops being a distribution"]),
    (lambda c: 1.0, ["still holds"]), (lambda c: 1.7, ["already fails"]), (lambda c: 3.0, ["not an ε"]),
    (lambda c: where_claim_fails(c / 2 + 0.5), ["already fails", "0.75"]),
])
def test_where_claim_fails_mistakes_are_named_without_the_answer(answer, words):
    error = fails_with(check.exercise_3_2, answer, *words)
    assert "1.59" not in str(error) and "1.16" not in str(error)


def test_a_typed_crossing_cannot_pass():
    """The answer takes c, so the number found once by hand (1.5936...) fails at the next c."""
    fails_with(check.exercise_3_2, lambda c: 1.5936242600400401, "whatever c is")


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
    passes(check.exercise_3_3, answer, capsys)


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
    passes(check.exercise_3_4, release, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 1 / (e * len(b))), ["as roth 2011 writes it"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e, ["no noise"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 4 / (e * len(b))), ["ignores ε"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 1 / len(b)), ["ignores ε"]),
    (lambda b, e, rng: 4 * np.mean(b) / e + rng.laplace(0, 4 / (e * e * len(b))), ["subtract 1/2"]),
    (lambda b, e, rng: np.mean(b) - 0.5 + rng.laplace(0, 4 / (e * e * len(b))), ["scale it by 4/ε"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 2 / (e * e * len(b))), ["divided by ε"]),
    (lambda b, e, rng: release(b, e, np.random.default_rng()), ["same seeded rng"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.normal(0, 4 / (e * e * len(b))),
     ["wrong shape", "gaussian"]),
    (lambda b, e, rng: 4 * (np.mean(b) - 0.5) / e + rng.normal(0, 4 * np.sqrt(2) / (e * e * len(b))),
     ["wrong shape", "gaussian"]),
])
def test_release_mistakes_are_named(wrong, words):
    fails_with(check.exercise_3_4, wrong, *words)


# 3.5 ------------------------------------------------------------------------------
def roth_m(epsilon, alpha, beta):
    return math.ceil(200 * math.log(1 / beta) / (epsilon ** 2 * alpha ** 2))


def test_roth_m_passes_and_reports_the_empirical_check(capsys):
    check.exercise_3_5(roth_m, strict=True)
    out = capsys.readouterr().out
    assert "m = 46,052" in out and "0 of 100 runs" in out


@pytest.mark.parametrize("wrong, words", [
    (lambda e, a, b: 200 * math.log(1 / b) / (e ** 2 * a ** 2), ["round up"]),
    (lambda e, a, b: math.floor(200 * math.log(1 / b) / (e ** 2 * a ** 2)), ["round up"]),
    (lambda e, a, b: 200 * math.log10(1 / b) / (e ** 2 * a ** 2), ["log10"]),
    (lambda e, a, b: 200 * math.log2(1 / b) / (e ** 2 * a ** 2), ["log2"]),
    (lambda e, a, b: math.ceil(200 * math.log(1 / b) / (e ** 2 * a)), ["squared"]),
    (lambda e, a, b: math.ceil(200 * math.log(1 / b) / (e * a ** 2)), ["1/ε, not 1/ε²"]),
    (lambda e, a, b: math.ceil(200 * math.log(1 / b) / (e ** 2 * a)), ["1/α, not 1/α²"]),
    (lambda e, a, b: math.ceil(200 / (e ** 2 * a ** 2)), ["log(1/β)"]),
    (lambda e, a, b: math.ceil(300 * math.log(1 / b) / (e ** 2 * a ** 2)), ["constant in front"]),
    (lambda e, a, b: math.ceil(100 * math.log(1 / b) / (e ** 2 * a ** 2)), ["0.5 times", "constant"]),
    (lambda e, a, b: math.ceil(200 * math.log(1 / b) / (e ** 2 * a ** 2)) + 7, ["does not follow"]),
])
def test_roth_m_mistakes_are_named(wrong, words):
    error = fails_with(check.exercise_3_5, wrong, *words)
    if "constant" in words:   # at ε = 0.5 a factor 1/2 looks like a missing ε: not the diagnosis
        assert "squared" not in str(error)


# 3.6 ------------------------------------------------------------------------------
def who_visited(state, universe_size):
    ids = np.arange(universe_size)
    return ids[np.isin(keyed_hash(state["key"], ids), state["hashes"])]


def test_dictionary_attack_passes(capsys):
    passes(check.exercise_3_6, who_visited, capsys)


def test_dictionary_attack_mistakes_are_named():
    fails_with(check.exercise_3_6, lambda s, n: s["hashes"], "hash values")
    fails_with(check.exercise_3_6, lambda s, n: who_visited(s, n // 2), "missed")
    fails_with(check.exercise_3_6, lambda s, n: np.arange(n), "never visited")
    fails_with(check.exercise_3_6, lambda s, n: np.array([], int), "found nobody")
    fails_with(check.exercise_3_6, lambda s, n: who_visited(s, n) + 0.5, "whole numbers")
    def mask(s, n):
        return np.isin(keyed_hash(s["key"], np.arange(n)), s["hashes"])
    fails_with(check.exercise_3_6, mask, "mask", "flatnonzero")
    fails_with(check.exercise_3_6, lambda s, n: mask(s, n).astype(int), "mask")
    fails_with(check.exercise_3_6, lambda s, n: mask(s, n).tolist(), "mask")
    fails_with(check.exercise_3_6, lambda s, n: who_visited(s, n).tolist(), "numpy array")


# broken code ----------------------------------------------------------------------
@pytest.mark.parametrize("checker, broken, words", [
    (check.exercise_3_1, raises, ["raised KeyError", "oops"]),
    (check.exercise_3_1, lambda e: None, ["should be a number", "return"]),
    (check.exercise_3_1, lambda e: float("nan"), ["nan"]),
    (check.exercise_3_2, lambda c: "1.6", ["should be a number"]),
    (check.exercise_3_3, lambda *a, **k: None, ["none"]),
    (check.exercise_3_3, lambda M, b, s, e, rng: np.full(len(b), np.nan), ["nan"]),
    (check.exercise_3_3, lambda M, b, s, e, rng: b[:3], ["shape"]),
    (check.exercise_3_4, lambda b, e, rng: [1.0, 2.0], ["single number", "list of 2"]),
    (check.exercise_3_4, lambda b, e, rng: np.array([release(b, e, rng)]), ["single number", "x[0]"]),
    (check.exercise_3_5, lambda e, a, b: [46052], ["single number", "x[0]"]),
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
            checker(stub, strict=True)


@pytest.mark.parametrize("answer", [[0.5, 0.7], (0.5,), np.array([0.5])])
def test_a_list_or_one_element_array_is_named_not_a_missing_return(answer):
    error = fails_with(check.exercise_3_4, lambda b, e, rng: answer, "single number")
    assert "forget" not in str(error).lower()
