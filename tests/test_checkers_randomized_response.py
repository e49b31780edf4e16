"""Module 02's checkers: a correct answer passes, each typical mistake gets its own
diagnosis, and broken code (raising, wrong type, NaN, never returning) is reported, never
crashes the checker. The checkers are seeded, so these outcomes are deterministic."""
import math
import time

import numpy as np
import pytest

from panpriv_teach.exercises import randomized_response as check
from panpriv_teach.exercises.harness import ExerciseFailed, ExerciseNotAttempted
from checker_testing import fails_with, never_returns, passes, raises


def stub(*args, **kwargs):
    raise NotImplementedError("Exercise 2.k: write your code here")


# 2.1 -------------------------------------------------------------------------------
def randomize(bits, bias, rng):
    noise = np.where(rng.random(len(bits)) < (1 + bias) / 2, 1, -1)
    return noise * (1 - 2 * np.asarray(bits))


def test_randomizer_passes(capsys):
    check.exercise_2_1(randomize, strict=True)
    assert "✓ Exercise 2.1 passed" in capsys.readouterr().out


def test_randomizer_with_the_library_passes(capsys):
    from panpriv_teach.mechanisms import RandomizedResponse
    passes(check.exercise_2_1, lambda bits, bias, rng: RandomizedResponse(bias).randomize(bits, rng), capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda x, b, rng: -randomize(x, b, rng), ["+1 mostly for x_i = 1"]),
    (lambda x, b, rng: (randomize(x, b, rng) + 1) // 2, ["0s and 1s", "±1"]),
    (lambda x, b, rng: np.where(rng.random(len(x)) < (1 + b) / 2, 1, -1), ["do not depend on the bits"]),
    (lambda x, b, rng: np.where(rng.random(len(x)) < b, 1, -1) * (1 - 2 * x), ["probability `bias`"]),
    (lambda x, b, rng: np.where(rng.random(len(x)) < 1 - b, 1, -1) * (1 - 2 * x), ["1 − bias"]),
    (lambda x, b, rng: np.where(rng.random() < (1 + b) / 2, 1, -1) * (1 - 2 * x), ["one n for everybody"]),
    (lambda x, b, rng: (1 - 2 * x) * np.where(np.random.random(len(x)) < (1 + b) / 2, 1, -1),
     ["same seeded rng"]),
    (lambda x, b, rng: 1 - 2 * x, ["no noise"]),
    (lambda x, b, rng: randomize(x, b, rng) * 2, ["other than −1 and 1"]),
])
def test_randomizer_mistakes_are_named(wrong, words):
    fails_with(check.exercise_2_1, wrong, *words)


# 2.2 -------------------------------------------------------------------------------
def estimate(reports, bias):
    return len(reports) / 2 - np.sum(reports) / (2 * bias)


def test_aggregator_passes(capsys):
    passes(check.exercise_2_2, estimate, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda m, b: -np.sum(m) / (2 * b), ["forgot the n/2 term"]),
    (lambda m, b: len(m) / 2 - np.sum(m) / 2, ["biased towards n/2", "divide by the bias"]),
    (lambda m, b: len(m) / 2 - np.sum(m), ["1/(2·bias) is missing"]),
    (lambda m, b: len(m) / 2 - np.sum(m) / b, ["the 2 is missing"]),
    (lambda m, b: len(m) / 2 + np.sum(m) / (2 * b), ["sign is flipped"]),
    (lambda m, b: np.sum(np.asarray(m) == -1), ["biased towards n/2"]),
    (lambda m, b: 0.5 - np.mean(m) / (2 * b), ["fraction"]),
    (lambda m, b: len(m) / 2 - np.sum(m) / (2 * b) + 1, ["should be the unbiased"]),
])
def test_aggregator_mistakes_are_named(wrong, words):
    fails_with(check.exercise_2_2, wrong, *words)


def test_aggregator_diagnosis_does_not_reveal_the_answer():
    error = fails_with(check.exercise_2_2, lambda m, b: 0.0, "should be")
    reports_sum_free = str(error)
    assert "500" not in reports_sum_free  # no expected value is printed


# 2.3 -------------------------------------------------------------------------------
def channel_epsilon(channel):
    channel = np.asarray(channel, dtype=float)
    worst = 0.0
    for a in range(len(channel)):
        for b in range(len(channel)):
            for y in range(channel.shape[1]):
                if (channel[a, y] == 0) != (channel[b, y] == 0):
                    return math.inf
                if channel[a, y] > 0:
                    worst = max(worst, math.log(channel[a, y] / channel[b, y]))
    return worst


def test_exact_epsilon_passes(capsys):
    passes(check.exercise_2_3, channel_epsilon, capsys)


def test_exact_epsilon_with_the_library_passes(capsys):
    from panpriv_teach.local import local_epsilon
    passes(check.exercise_2_3, local_epsilon, capsys)


def one_direction(channel):
    return max(math.log(channel[a, y] / channel[b, y]) for a in range(len(channel))
               for b in range(a + 1, len(channel)) for y in range(channel.shape[1]))


def vectorised_without_zero_handling(channel):
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(channel)
        return float(np.nanmax(np.abs(logs[:, None, :] - logs[None, :, :])))


@pytest.mark.parametrize("wrong, words", [
    (lambda c: math.exp(channel_epsilon(c)), ["ratio", "logarithm"]),
    (lambda c: channel_epsilon(c) / math.log(10), ["log10"]),
    (one_direction, ["other way round"]),
    (lambda c: float(np.max(np.abs(np.log(c[0] / c[1])))), ["first two inputs"]),
    (lambda c: float(max(np.max(np.abs(np.log(c[i] / c[i + 1]))) for i in range(len(c) - 1))),
     ["neighbouring rows"]),
    (lambda c: 1.0, ["warner"]),
])
def test_exact_epsilon_mistakes_are_named(wrong, words):
    fails_with(check.exercise_2_3, wrong, *words)


def test_exact_epsilon_must_be_infinite_when_an_output_is_impossible_for_one_input():
    def nan_on_zeros(channel):
        with np.errstate(divide="ignore", invalid="ignore"):
            return channel_epsilon(channel) if np.all(channel > 0) else float("nan")
    fails_with(check.exercise_2_3, nan_on_zeros, "infinite", "math.inf")

    def divides_by_zero(channel):   # log(0) raises ValueError, 0/0 is nan
        with np.errstate(divide="ignore", invalid="ignore"):
            return max(abs(math.log(channel[a, y] / channel[b, y])) for a in range(len(channel))
                       for b in range(len(channel)) for y in range(channel.shape[1]))
    fails_with(check.exercise_2_3, divides_by_zero, "infinite")
    # a numpy version that gets inf naturally passes
    check.exercise_2_3(vectorised_without_zero_handling, strict=True)


# 2.4 -------------------------------------------------------------------------------
def plan(epsilon, n):
    bias = math.tanh(epsilon / 2)
    return bias, math.sqrt((1 - bias**2) * n) / (2 * bias)


def test_plan_passes(capsys):
    passes(check.exercise_2_4, plan, capsys)


def with_bias(bias_of, std_of=lambda b, n: math.sqrt((1 - b**2) * n) / (2 * b)):
    return lambda e, n: (bias_of(e), std_of(bias_of(e), n))


@pytest.mark.parametrize("wrong, words", [
    (with_bias(lambda e: e / 2), ["first-order"]),
    (lambda e, n: (e, 1.0), ["bias is not ε"]),
    (with_bias(lambda e: math.exp(e) / (1 + math.exp(e))), ["p(n_i = 1)"]),
    (with_bias(lambda e: math.tanh(e)), ["must give exactly ε"]),
    (with_bias(lambda e: math.tanh(e / 2), lambda b, n: math.sqrt(n) / (2 * b)), ["√(1 − b²)"]),
    (with_bias(lambda e: math.tanh(e / 2), lambda b, n: (1 - b**2) * n / (4 * b * b)), ["variance"]),
    (with_bias(lambda e: math.tanh(e / 2), lambda b, n: math.sqrt(1 - b**2) * n / (2 * b)), ["like √n"]),
    (with_bias(lambda e: math.tanh(e / 2), lambda b, n: math.sqrt((1 - b**2) * n) / b), ["the 2"]),
    (with_bias(lambda e: math.tanh(e / 2), lambda b, n: 1.0), ["std is off"]),
    (lambda e, n: math.tanh(e / 2), ["pair (bias, std)"]),
])
def test_plan_mistakes_are_named(wrong, words):
    fails_with(check.exercise_2_4, wrong, *words)


# 2.5 -------------------------------------------------------------------------------
def simulate_errors(bits, bias, trials, rng):
    bits = np.asarray(bits)
    noise = np.where(rng.random((trials, len(bits))) < (1 + bias) / 2, 1, -1)
    reports = noise * (1 - 2 * bits)
    return len(bits) / 2 - reports.sum(axis=1) / (2 * bias) - bits.sum()


def test_simulation_passes(capsys):
    check.exercise_2_5(simulate_errors, strict=True)
    out = capsys.readouterr().out
    assert "passed" in out and "≈ √100 = 10" in out


def test_simulation_with_a_python_loop_over_trials_passes(capsys):
    from panpriv_teach.mechanisms import RandomizedResponse

    def looped(bits, bias, trials, rng):
        rr = RandomizedResponse(bias)
        return np.array([rr.estimate(rr.randomize(bits, rng)) - np.sum(bits) for _ in range(trials)])
    passes(check.exercise_2_5, looped, capsys)


@pytest.mark.parametrize("wrong, words", [
    (lambda x, b, t, rng: simulate_errors(x, b, t, rng) + np.sum(x), ["not the estimates"]),
    (lambda x, b, t, rng: np.full(t, simulate_errors(x, b, 1, rng)[0]), ["same error"]),
    (lambda x, b, t, rng: rng.laplace(0, 1 / np.log((1 + b) / (1 - b)), t), ["times the formula"]),
    (lambda x, b, t, rng: simulate_errors(x, b, t, rng) * 2, ["times the formula"]),
    (lambda x, b, t, rng: simulate_errors(x, b, t, rng) + 5, ["far from 0"]),
    (lambda x, b, t, rng: simulate_errors(x, b, t, rng)[:-1], ["shape"]),
])
def test_simulation_mistakes_are_named(wrong, words):
    fails_with(check.exercise_2_5, wrong, *words)


# 2.6 -------------------------------------------------------------------------------
def estimate_histogram(reports, k, epsilon):
    p = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    q = 1 / (math.exp(epsilon) + k - 1)
    counts = np.bincount(reports, minlength=k)
    return (counts - len(reports) * q) / (p - q)


def test_histogram_passes(capsys):
    passes(check.exercise_2_6, estimate_histogram, capsys)


def test_histogram_with_the_library_passes(capsys):
    from panpriv_teach.local import DirectEncoding
    passes(check.exercise_2_6, lambda r, k, e: DirectEncoding(k, e).estimate(r), capsys)


def _pq(k, e):
    return math.exp(e) / (math.exp(e) + k - 1), 1 / (math.exp(e) + k - 1)


@pytest.mark.parametrize("wrong, words", [
    (lambda r, k, e: np.bincount(r, minlength=k), ["raw counts"]),
    (lambda r, k, e: np.bincount(r, minlength=k) / (_pq(k, e)[0] - _pq(k, e)[1]), ["subtract n·q"]),
    (lambda r, k, e: np.bincount(r, minlength=k) - len(r) * _pq(k, e)[1], ["divide by p − q"]),
    (lambda r, k, e: (np.bincount(r, minlength=k) - len(r) * _pq(2, e)[1])
     / (_pq(2, e)[0] - _pq(2, e)[1]), ["two-value"]),
    (lambda r, k, e: (np.bincount(r, minlength=k) - len(r) * _pq(k, e)[1]) / _pq(k, e)[0], ["not by p"]),
    (lambda r, k, e: estimate_histogram(r, k, e) / len(r), ["frequencies"]),
    (lambda r, k, e: estimate_histogram(r, k, e)[::-1], ["counts are off"]),
    (lambda r, k, e: estimate_histogram(r, k, e)[:-1], ["shape"]),
])
def test_histogram_mistakes_are_named(wrong, words):
    fails_with(check.exercise_2_6, wrong, *words)


# broken code, every checker ---------------------------------------------------------
CHECKERS = [check.exercise_2_1, check.exercise_2_2, check.exercise_2_3, check.exercise_2_4,
            check.exercise_2_5, check.exercise_2_6]


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.exercise)
@pytest.mark.parametrize("broken, words", [
    (raises, ["raised KeyError", "oops"]),
    (lambda *a, **k: None, ["none|should be", "return"]),
    (lambda *a, **k: float("nan"), ["nan|should be|pair|shape"]),
    (lambda *a, **k: "text", ["should be|should return"]),
    (42, ["expected a function"]),
])
def test_broken_code_gets_a_diagnosis_from_every_checker(checker, broken, words):
    with pytest.raises(ExerciseFailed) as info:
        checker(broken, strict=True)
    message = str(info.value).lower()
    for word in words:
        assert any(w in message for w in word.lower().split("|")), f"{word!r} not in: {message}"


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda c: c.exercise)
def test_the_stub_reads_not_attempted(checker):
    with pytest.raises(ExerciseNotAttempted):
        checker(stub, strict=True)


def test_code_that_never_returns_is_stopped_with_a_diagnosis():
    start = time.monotonic()
    fails_with(check.exercise_2_2, never_returns, "did not finish")
    assert time.monotonic() - start < 15


def test_every_checker_takes_about_a_second_on_a_correct_answer():
    answers = [randomize, estimate, channel_epsilon, plan, simulate_errors, estimate_histogram]
    for checker, answer in zip(CHECKERS, answers):
        start = time.monotonic()
        checker(answer, strict=True)
        assert time.monotonic() - start < 3, checker.exercise
