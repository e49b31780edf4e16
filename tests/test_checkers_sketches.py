"""Module 06's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math
import time

import numpy as np
import pytest

from panpriv_teach.exercises import sketches as check
from panpriv_teach.exercises.harness import ExerciseFailed, ExerciseNotAttempted
from checker_testing import fails_with, passes
from panpriv_teach.stable import stable_scale_factor



# 6.1 -------------------------------------------------------------------------------
def cms(p, n, rng):
    v = rng.uniform(-np.pi / 2, np.pi / 2, n)
    w = rng.exponential(1.0, n)
    if p == 1:
        return np.tan(v)
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


def test_6_1_correct_sampler_passes(capsys):
    passes(check.exercise_6_1, cms, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda p, n, rng: cms(p, n, rng) if p < 2 else rng.normal(0, 1, n), ["n(0, 1)"]),
    (lambda p, n, rng: rng.standard_cauchy(n) if p != 1 else rng.normal(0, 1, n), ["p = 1"]),
    (lambda p, n, rng: cms(p, n, rng) if p == 1 else
     np.sin(p * (v := rng.uniform(-np.pi / 2, np.pi / 2, n))) / np.cos(v) ** (1 / p)
     * (np.cos((1 - p) * v) / rng.exponential(1.0, n)) ** p, ["exponents"]),
    (lambda p, n, rng: cms(p, n, np.random.default_rng()), ["same seeded rng"]),
])
def test_6_1_mistakes_are_named(wrong, words):
    fails_with(check.exercise_6_1, wrong, *words)


# 6.2 -------------------------------------------------------------------------------
def median_estimator(sketch, p):
    return np.median(np.abs(sketch) ** p) / stable_scale_factor(p)


def test_6_2_correct_estimator_passes(capsys):
    passes(check.exercise_6_2, median_estimator, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda sk, p: np.median(np.abs(sk) ** p) * stable_scale_factor(p), ["multiplied by sf(p)"]),
    (lambda sk, p: np.median(np.abs(sk) ** p), ["divide the median by the scale factor"]),
    (lambda sk, p: np.median(np.abs(sk)) / stable_scale_factor(p) ** (1 / p), ["p-norm"]),
    (lambda sk, p: np.mean(np.abs(sk) ** p) / stable_scale_factor(p), ["a mean is ruined"]),
    (lambda sk, p: np.median(sk) / stable_scale_factor(p), ["negative"]),
])
def test_6_2_mistakes_are_named(wrong, words):
    fails_with(check.exercise_6_2, wrong, *words)


# 6.3 -------------------------------------------------------------------------------
def modular_update(c, w, i, d, tau):
    c = c.copy()
    c[i] = (c[i] + w[i] * d) % (2 * tau)
    return c


def in_place(c, w, i, d, tau):
    c[i] = (c[i] + w[i] * d) % (2 * tau)


def test_6_3_correct_update_passes_returned_or_in_place(capsys):
    passes(check.exercise_6_3, modular_update, capsys)
    passes(check.exercise_6_3, in_place, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda c, w, i, d, t: np.r_[c[:i], (c[i] + w[i] * d) % t, c[i + 1:]], ["modulo τ"]),
    (lambda c, w, i, d, t: np.r_[c[:i], (c[i] + d) % (2 * t), c[i + 1:]], ["weight w_i"]),
    (lambda c, w, i, d, t: np.r_[c[:i], c[i] + w[i] * d, c[i + 1:]], ["negative"]),
    (lambda c, w, i, d, t: np.r_[c[:i], math.fmod(c[i] + w[i] * d, 2 * t), c[i + 1:]], ["fmod"]),
    (lambda c, w, i, d, t: (c + w * d) % (2 * t), ["other than c_i"]),
])
def test_6_3_mistakes_are_named(wrong, words):
    fails_with(check.exercise_6_3, wrong, *words)


# 6.4 -------------------------------------------------------------------------------
def debias(sigma, m, tau, epsilon):
    K = 2 * tau - 1 + np.exp(epsilon)
    return (sigma - 2 * tau**2 * m / K) * K / (np.exp(epsilon) - 1) - m / 2


def test_6_4_correct_debiasing_passes(capsys):
    check.exercise_6_4(debias, strict=True)
    out = capsys.readouterr().out
    assert "passed" in out and "empty stream" in out


@pytest.mark.parametrize("wrong, words", [
    (lambda s, m, t, e: (s - t**2 * m / (2 * t - 1 + np.exp(e))) * (2 * t - 1 + np.exp(e))
     / (np.exp(e) - 1) - m / 2, ["as alg 2 prints it", "2τ²m/k"]),
    (lambda s, m, t, e: debias(s, m, t, e) + m / 2, ["− m/2"]),
    (lambda s, m, t, e: (s - 2 * t**2 * m / (2 * t - 1 + np.exp(e))) * (2 * t - 1 + np.exp(e))
     / np.exp(e) - m / 2, ["k/(e^ε − 1)"]),
    (lambda s, m, t, e: s, ["not unbiased"]),
])
def test_6_4_mistakes_are_named(wrong, words):
    fails_with(check.exercise_6_4, wrong, *words)


# 6.5 -------------------------------------------------------------------------------
def attack(table, hashes, candidates):
    rows = np.arange(table.shape[0])
    return [x for x in candidates if np.all(table[rows, hashes[:, x]] > 0)]


def test_6_5_correct_attack_passes(capsys):
    passes(check.exercise_6_5, attack, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda t, h, c: [x for x in c if np.any(t[np.arange(t.shape[0]), h[:, x]] > 0)], ["any"]),
    (lambda t, h, c: [x for x in c if t[0, h[0, x]] > 1], ["you missed"]),
    (lambda t, h, c: list(range(500)), ["not among the candidates"]),
    (lambda t, h, c: 3.5, ["should return a list"]),
])
def test_6_5_mistakes_are_named(wrong, words):
    fails_with(check.exercise_6_5, wrong, *words)


# 6.6 -------------------------------------------------------------------------------
def pick_h_and_c(k, delta, beta, F1, light_max):
    return math.ceil(k / (delta * beta)), math.sqrt(F1 * delta / (2 * light_max * k**2))


def test_6_6_correct_choice_passes(capsys):
    passes(check.exercise_6_6, pick_h_and_c, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda k, d, b, F1, l: (k, pick_h_and_c(k, d, b, F1, l)[1]), ["lemma 6.6"]),
    (lambda k, d, b, F1, l: (10 * pick_h_and_c(k, d, b, F1, l)[0], pick_h_and_c(k, d, b, F1, l)[1]),
     ["not the smallest"]),
    (lambda k, d, b, F1, l: (pick_h_and_c(k, d, b, F1, l)[0], 2 * pick_h_and_c(k, d, b, F1, l)[1]),
     ["lemma 6.7"]),
    (lambda k, d, b, F1, l: (pick_h_and_c(k, d, b, F1, l)[0], 1.01), ["not the largest"]),
    (lambda k, d, b, F1, l: (pick_h_and_c(k, d, b, F1, l)[0] + 0.5, 2.0), ["integer"]),
    (lambda k, d, b, F1, l: 7, ["pair"]),
])
def test_6_6_mistakes_are_named(wrong, words):
    fails_with(check.exercise_6_6, wrong, *words)


# broken code -----------------------------------------------------------------------
CHECKERS = [check.exercise_6_1, check.exercise_6_2, check.exercise_6_3, check.exercise_6_4,
            check.exercise_6_5, check.exercise_6_6]


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.exercise)
def test_broken_answers_are_diagnosed_not_crashed(checker):
    def stub(*args, **kwargs):
        raise NotImplementedError("Exercise: write your code here")

    def raises(*args, **kwargs):
        raise ZeroDivisionError("boom")

    def returns_nan(*args, **kwargs):
        return float("nan")

    def returns_none(*args, **kwargs):
        return None

    with pytest.raises(ExerciseNotAttempted):
        checker(stub, strict=True)
    fails_with(checker, raises, "ZeroDivisionError")
    for answer in (returns_nan, returns_none, "not a function"):
        with pytest.raises(ExerciseFailed):
            checker(answer, strict=True)


def test_code_that_never_returns_is_stopped(monkeypatch):
    import panpriv_teach.exercises.harness as harness
    original = harness.call

    def quick(fn, *args, **kwargs):
        kwargs["seconds"] = 0.5
        return original(fn, *args, **kwargs)

    monkeypatch.setattr(check, "call", quick)

    def forever(*args, **kwargs):
        while True:
            pass

    start = time.monotonic()
    fails_with(check.exercise_6_3, forever, "did not finish")
    assert time.monotonic() - start < 5


@pytest.mark.parametrize("checker, answer", [
    (check.exercise_6_1, cms), (check.exercise_6_2, median_estimator),
    (check.exercise_6_3, modular_update), (check.exercise_6_4, debias),
    (check.exercise_6_5, attack), (check.exercise_6_6, pick_h_and_c)],
    ids=lambda x: getattr(x, "exercise", ""))
def test_each_checker_runs_in_about_a_second(checker, answer, capsys):
    start = time.monotonic()
    checker(answer, strict=True)
    assert time.monotonic() - start < 3
