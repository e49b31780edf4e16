"""Checkers for module 02, randomized response and the local model (Dwork 2011, "randomized
response"; Local-mechanisms notes, §1 (Warner 1965)).

Each checker is seeded and statistical where the answer is random; the tolerances are at
least 6 standard errors, so a correct answer fails with probability below 1e-6. Answers that
are deterministic functions (aggregators, exact ε, planning) are compared exactly (1e-9).
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.exercises._answers import as_numpy_array, as_real, fresh_rng, looked_up
from panpriv_teach.exercises.harness import ExerciseFailed, call, expect_uses_rng, exercise

TOL = 1e-9  # relative tolerance for deterministic answers


def _close(a, b) -> bool:
    return bool(np.allclose(a, b, rtol=TOL, atol=TOL))


# ---------------------------------------------------------------- 2.1 the randomizer
def _reports(answer, n, what="the reports"):
    reports = as_numpy_array(answer, what, shape=(n,))
    values = set(np.unique(reports).tolist())
    if values <= {0.0, 1.0}:
        raise ExerciseFailed(f"{what} are 0s and 1s: the reports of the Local-mechanisms notes are ±1, "
                             "M_i = N_i·(−1)^{x_i} with N_i in {−1, 1}.")
    if not values <= {-1.0, 1.0}:
        raise ExerciseFailed(f"{what} contain values other than −1 and 1 "
                             f"(e.g. {sorted(values - {-1.0, 1.0})[0]:g}): each report is N_i·(−1)^{{x_i}}.")
    return reports


@exercise("2.1", "The randomizer",
          solved_by=("panpriv_teach.mechanisms.RandomizedResponse.randomize",
                     "panpriv_teach.mechanisms.RandomizedResponse.report",
                     "panpriv_teach.mechanisms.warner_response"))
def exercise_2_1(randomize):
    rng = np.random.default_rng(201)
    half = 40_000  # frequencies within 6 s.e. <= 6 * 0.5/sqrt(half) = 0.015: false fail < 1e-8
    tol = 6 * 0.5 / math.sqrt(half)
    bits = np.repeat([0, 1], half)
    for bias in (0.3, 0.7):
        reports = _reports(call(randomize, bits.copy(), bias, rng=rng), len(bits))
        plus_for_0 = np.mean(reports[:half] == 1)   # should be P(N = 1) = (1 + b)/2
        plus_for_1 = np.mean(reports[half:] == 1)   # should be P(N = −1) = (1 − b)/2
        if abs(plus_for_0 - (1 + bias) / 2) < tol and abs(plus_for_1 - (1 - bias) / 2) < tol:
            continue
        if abs(plus_for_0 - (1 - bias) / 2) < tol and abs(plus_for_1 - (1 + bias) / 2) < tol:
            raise ExerciseFailed("your reports say +1 mostly for x_i = 1: in the Local-mechanisms notes the report is "
                                 "N_i·(−1)^{x_i}, so a 0 is reported as +1 unless N_i flips it, "
                                 "and a 1 as −1.")
        if abs(plus_for_0 - plus_for_1) < 2 * tol:
            raise ExerciseFailed("your reports do not depend on the bits: multiply the noise N_i "
                                 "by (−1)^{x_i}.")
        if {plus_for_0, plus_for_1} == {0.0, 1.0}:
            raise ExerciseFailed("every party reports its bit unchanged (or every one flipped): "
                                 "you drew no noise, or one N for everybody. Draw one "
                                 "independent N_i ∈ {−1, 1} per party.")
        keep = (plus_for_0 + 1 - plus_for_1) / 2  # the probability of reporting the truth
        if abs(plus_for_0 - (1 - plus_for_1)) < 2 * tol:
            if abs(keep - bias) < tol:
                raise ExerciseFailed("you report the truth with probability `bias`; in the notes "
                                     "N_i = 1 (truth) has probability (1 + bias)/2.")
            if abs(keep - (1 - bias)) < tol:
                raise ExerciseFailed("you report the truth with probability 1 − bias, as if the "
                                     "bias were a probability of lying; in the notes N_i = 1 "
                                     "(truth) has probability (1 + bias)/2.")
        raise ExerciseFailed(f"with bias {bias}, a 0 is reported as +1 in {plus_for_0:.3f} of the "
                             f"cases and a 1 as +1 in {plus_for_1:.3f}: they should be (1 + bias)/2 "
                             "and (1 − bias)/2, one independent N_i per party.")
    small = np.array([0, 1] * 50)
    expect_uses_rng(randomize, small, 0.5, convert=lambda r: _reports(r, len(small)))
    return "reports N_i·(−1)^{x_i} with P(N_i = 1) = (1 + bias)/2, reproducible from rng."


# ---------------------------------------------------------------- 2.2 the aggregator
_AGGREGATOR_MISTAKES = [  # (wrong formula of (n, S, b), diagnosis)
    (lambda n, s, b: -s / (2 * b), "you forgot the n/2 term: E[Σ M_i] = bias·(n − 2c), so "
     "solve for c."),
    (lambda n, s, b: n / 2 + s / (2 * b), "your sign is flipped: more +1 reports mean FEWER "
     "ones (a 0 is reported as +1)."),
    (lambda n, s, b: n / 2 - s / 2, "your estimate n/2 − Σ M_i/2 is the number of reports that "
     "say 1 (M_i = −1), taken at face value: it is biased towards n/2. The scale is "
     "1/(2·bias): you forgot to divide by the bias."),
    (lambda n, s, b: n / 2 - s, "the scale 1/(2·bias) is missing."),
    (lambda n, s, b: n / 2 - s / b, "your scale is 1/bias, not 1/(2·bias): the 2 is missing."),
    (lambda n, s, b: n / 2 - s / (2 * b * b), "your scale is 1/(2·bias²): divide by bias once."),
    (lambda n, s, b: 0.5 - s / (2 * b * n), "you returned a fraction of the parties; the "
     "aggregate estimates the NUMBER of ones."),
]


@exercise("2.2", "The unbiased aggregator",
          solved_by=("panpriv_teach.mechanisms.RandomizedResponse.estimate",
                     "panpriv_teach.mechanisms.warner_estimate"))
def exercise_2_2(estimate):
    rng = np.random.default_rng(202)
    for n, bias in ((1_000, 0.5), (37, 0.2), (5_000, 0.9)):
        bits = (rng.random(n) < 0.3).astype(int)
        noise = np.where(rng.random(n) < (1 + bias) / 2, 1, -1)
        reports = noise * (1 - 2 * bits)
        s = int(reports.sum())
        got = as_real(call(estimate, reports.copy(), bias), f"estimate(reports, {bias})")
        if _close(got, n / 2 - s / (2 * bias)):
            continue
        for wrong, diagnosis in _AGGREGATOR_MISTAKES:
            if _close(got, wrong(n, s, bias)):
                raise ExerciseFailed(diagnosis)
        raise ExerciseFailed(f"on {n} reports with bias {bias} your estimate is {got:g}; it should "
                             "be the unbiased n/2 − (1/(2·bias))·Σ M_i (solve E[Σ M_i] = "
                             "bias·(n − 2c) for c).")
    return "n/2 − Σ M_i/(2·bias): unbiased, since E[Σ M_i] = bias·(n − 2c)."


# ---------------------------------------------------------------- 2.3 exact epsilon
def _rr_channel(bias):
    return np.array([[(1 + bias) / 2, (1 - bias) / 2], [(1 - bias) / 2, (1 + bias) / 2]])


_AND = np.array([[15 / 16, 1 / 16], [13 / 16, 3 / 16], [13 / 16, 3 / 16], [7 / 16, 9 / 16]])
_CASES = [  # (channel, true ε, what it tests)
    (_rr_channel(0.5), math.log(3), "Warner's fair coins"),
    (np.array([[0.2, 0.8], [0.6, 0.4]]), math.log(3), "a channel whose worst ratio is P_1/P_0"),
    (np.array([[0.6, 0.3, 0.1], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]]), math.log(5),
     "three inputs, worst pair (0, 2)"),
    (_AND, math.log(9), "the AND of two randomized bits (inputs 00, 01, 10, 11)"),
    (np.array([[0.3, 0.7], [0.3, 0.7]]), 0.0, "identical rows"),
]


def _one_direction(channel):
    return max(math.log(channel[a, y] / channel[b, y]) for a in range(len(channel))
               for b in range(a + 1, len(channel)) for y in range(channel.shape[1]))


def _adjacent_rows(channel):
    return max(abs(math.log(channel[a, y] / channel[a + 1, y])) for a in range(len(channel) - 1)
               for y in range(channel.shape[1]))


def _first_two_rows(channel):
    return max(abs(math.log(channel[0, y] / channel[1, y])) for y in range(channel.shape[1]))


@exercise("2.3", "The exact ε of a randomizer",
          solved_by=("panpriv_teach.local.local_epsilon", "panpriv_teach.audit.exact_epsilon"))
def exercise_2_3(channel_epsilon):
    for channel, truth, what in _CASES:
        got = as_real(call(channel_epsilon, channel.copy()), "channel_epsilon(channel)")
        if _close(got, truth):
            continue
        if truth > 0 and _close(got, math.exp(truth)):
            raise ExerciseFailed("you returned the largest probability RATIO; ε is its natural "
                                 "logarithm.")
        if truth > 0 and _close(got, truth / math.log(10)):
            raise ExerciseFailed("you used log10: ε is a natural logarithm (np.log).")
        if _close(got, _one_direction(channel)):
            raise ExerciseFailed(f"wrong on {what}: you only looked at P(x)/P(x') for x before x'. "
                                 "The ratio can be largest the other way round: take |ln P(x) − "
                                 "ln P(x')| (or both orders).")
        if len(channel) > 2 and _close(got, _first_two_rows(channel)):
            raise ExerciseFailed(f"wrong on {what}: you compared only the first two inputs. "
                                 "Definition 2.1 asks for every pair of inputs x, x'.")
        if len(channel) > 2 and _close(got, _adjacent_rows(channel)):
            raise ExerciseFailed(f"wrong on {what}: you compared only neighbouring rows. Definition 2.1 "
                                 "asks for every pair of inputs x, x'.")
        raise ExerciseFailed(f"wrong on {what}: ε = max over inputs x, x' and outputs y of "
                             "ln(P[y | x] / P[y | x']).")
    impossible = np.array([[1.0, 0.0], [0.5, 0.5]])
    try:
        got = call(channel_epsilon, impossible.copy())
        got = float(got) if isinstance(got, (int, float, np.floating, np.integer)) else None
    except ExerciseFailed:
        got = None
    if got != math.inf:
        raise ExerciseFailed("on the channel [[1, 0], [0.5, 0.5]] the output 1 is impossible for "
                             "input 0 and possible for input 1: seeing it reveals the input, so "
                             "ε is infinite. Return math.inf (np.inf) there, without dividing by 0.")
    return "ε = max |ln P[y|x] − ln P[y|x']| over all pairs; the AND channel gives ln 9."


# ---------------------------------------------------------------- 2.4 planning
@exercise("2.4", "Pick the bias, predict the error",
          solved_by=("panpriv_teach.mechanisms.RandomizedResponse.from_epsilon",
                     "panpriv_teach.mechanisms.RandomizedResponse.std",
                     "panpriv_teach.mechanisms.RandomizedResponse.variance"))
def exercise_2_4(plan):
    for epsilon, n in ((math.log(3), 10_000), (0.1, 1_000_000), (3.0, 500)):
        answer = call(plan, epsilon, n)
        if not isinstance(answer, (tuple, list)) or len(answer) != 2:
            raise ExerciseFailed(f"plan(epsilon, n) should return a pair (bias, std), got "
                                 f"{type(answer).__name__} ({answer!r:.60}).")
        bias = as_real(answer[0], "the bias")
        std = as_real(answer[1], "the predicted std")
        right = math.tanh(epsilon / 2)
        if not _close(bias, right):
            if _close(bias, epsilon / 2):
                raise ExerciseFailed("bias = ε/2 inverts the notes' first-order '2ε + O(ε²)', not the "
                                     "exact privacy ln((1 + b)/(1 − b)): solve that equation for b.")
            if _close(bias, epsilon):
                raise ExerciseFailed("the bias is not ε: RR with bias b is ln((1 + b)/(1 − b))-private. "
                                     "Solve for b.")
            if _close(bias, (1 + right) / 2):
                raise ExerciseFailed("you returned P(N_i = 1) = e^ε/(1 + e^ε), not the bias b with "
                                     "P(N_i = 1) = (1 + b)/2.")
            if not 0 < bias < 1:
                raise ExerciseFailed(f"for ε = {epsilon:.3g} your bias is {bias:g}, outside (0, 1). "
                                     "Solve ln((1 + b)/(1 − b)) = ε for b.")
            raise ExerciseFailed(f"for ε = {epsilon:.3g} your bias gives privacy "
                                 f"{math.log((1 + bias) / (1 - bias)):.4g} (if it is in (0, 1)); it "
                                 "must give exactly ε.")
        expected = math.sqrt((1 - bias**2) * n) / (2 * bias)
        if _close(std, expected):
            continue
        if _close(std, math.sqrt(n) / (2 * bias)):
            raise ExerciseFailed("your std misses the factor √(1 − b²): Var M_i = 1 − b².")
        if _close(std, (1 - bias**2) * n / (2 * bias)**2):
            raise ExerciseFailed("you returned the variance; the standard deviation is its square root.")
        if _close(std, math.sqrt(1 - bias**2) * n / (2 * bias)):
            raise ExerciseFailed("your std grows like n; the variance of the sum grows like n, "
                                 "so the std grows like √n.")
        if _close(std, math.sqrt((1 - bias**2) * n) / bias):
            raise ExerciseFailed("your std misses the 2 of the aggregator's 1/(2b).")
        raise ExerciseFailed(f"for ε = {epsilon:.3g} and n = {n} your predicted std is off: the "
                             "estimate is n/2 − Σ M_i/(2b) and Var Σ M_i = (1 − b²) n.")
    fresh = fresh_rng()
    epsilon, n = float(fresh.uniform(0.05, 5.0)), int(fresh.integers(10, 10_000_000))
    answer = call(plan, epsilon, n)
    bias = math.tanh(epsilon / 2)
    if not (isinstance(answer, (tuple, list)) and len(answer) == 2
            and _close(as_real(answer[0], "the bias"), bias)
            and _close(as_real(answer[1], "the predicted std"),
                       math.sqrt((1 - bias**2) * n) / (2 * bias))):
        raise looked_up(f"plan({epsilon!r}, {n})")
    return "bias = tanh(ε/2) (exactly ε), std = √((1 − b²) n)/(2b)."


# ---------------------------------------------------------------- 2.5 the √n law
def _errors(simulate, bits, bias, trials, rng):
    return as_numpy_array(call(simulate, bits.copy(), bias, trials, rng=rng),
                    f"simulate_errors(bits, {bias}, {trials}, rng)", shape=(trials,))


@exercise("2.5", "Error grows like √n")
def exercise_2_5(simulate_errors):
    small = (np.arange(60) % 3 == 0).astype(int)
    expect_uses_rng(simulate_errors, small, 0.5, 20,
                    convert=lambda e: as_numpy_array(e, "the errors", shape=(20,)))
    rng = np.random.default_rng(205)
    trials, bias = 2_000, 0.5
    # s.e. of a sample std ~ std/sqrt(2 trials) = 1.6 %; 6 s.e. = 9.5 % (the estimate's excess
    # kurtosis (1 - 6pq)/(pq n), pq = (1 - b^2)/4, is below 0.02 in absolute value here)
    tol = 6 / math.sqrt(2 * trials)
    stds = {}
    for n in (40, 4_000):  # n × 100; (trials, n) arrays of at most 8e6 entries
        bits = (np.arange(n) % 4 == 0).astype(int)
        errors = _errors(simulate_errors, bits, bias, trials, rng)
        formula = math.sqrt((1 - bias**2) * n) / (2 * bias)
        if np.all(errors == errors[0]):
            raise ExerciseFailed("all your trials give the same error: draw fresh noise in every "
                                 "trial.")
        if abs(errors.mean() - bits.sum()) < 6 * formula / math.sqrt(trials):
            raise ExerciseFailed("your values centre on the true count: return the ERRORS "
                                 "(estimate − true count), not the estimates.")
        if abs(errors.mean()) > 6 * formula / math.sqrt(trials):
            raise ExerciseFailed(f"with n = {n} your errors average {errors.mean():.2f}, far from "
                                 "0: the aggregator n/2 − Σ M_i/(2b) is unbiased, so is yours?")
        stds[n] = errors.std(ddof=1)
        if abs(stds[n] / formula - 1) > tol:
            ratio = stds[n] / formula
            raise ExerciseFailed(f"with n = {n} and bias {bias} your errors have standard "
                                 f"deviation {ratio:.2f} times the formula √((1 − b²) n)/(2b). "
                                 "Check the randomizer and the aggregator (exercises 2.1, 2.2).")
    growth = stds[4_000] / stds[40]
    return f"n × 100 multiplies the error by {growth:.1f} ≈ √100 = 10."


# ---------------------------------------------------------------- 2.6 local histogram
def _krr(k, epsilon):
    weight = math.exp(epsilon)
    return weight / (weight + k - 1), 1 / (weight + k - 1)


@exercise("2.6", "A local histogram",
          solved_by=("panpriv_teach.local.DirectEncoding.estimate",))
def exercise_2_6(estimate_histogram):
    rng = np.random.default_rng(206)
    for n, k, epsilon in ((2_000, 4, math.log(3)), (500, 7, 2.0), (3_000, 3, 0.5)):
        values = rng.integers(0, k, n)
        p, q = _krr(k, epsilon)
        keep = rng.random(n) < p
        other = rng.integers(0, k - 1, n)
        other += other >= values
        reports = np.where(keep, values, other)
        counts = np.bincount(reports, minlength=k).astype(float)
        got = as_numpy_array(call(estimate_histogram, reports.copy(), k, epsilon),
                       f"estimate_histogram(reports, {k}, {epsilon:.3g})", shape=(k,))
        if _close(got, (counts - n * q) / (p - q)):
            continue
        p2 = math.exp(epsilon) / (math.exp(epsilon) + 1)
        mistakes = [
            (counts, "you returned the raw counts of the reports: they are pulled towards n/k. "
                     "Undo the randomization: E[C_v] = c_v p + (n − c_v) q."),
            (counts / (p - q), "you forgot to subtract n·q, the reports that land on v by chance."),
            (counts - n * q, "you forgot to divide by p − q."),
            ((counts - n * (1 - p2)) / (2 * p2 - 1), "you used the two-value probabilities "
             "e^ε/(e^ε + 1); with k values p = e^ε/(e^ε + k − 1) and q = 1/(e^ε + k − 1)."),
            ((counts - n * q) / p, "divide by p − q, not by p: E[C_v] = c_v (p − q) + n q."),
            ((counts - n * (1 - p) / k) / (p - (1 - p) / k), "q is the probability of one "
             "particular OTHER value: (1 − p)/(k − 1), not (1 − p)/k."),
        ]
        for wrong, diagnosis in mistakes:
            if _close(got, wrong) or _close(got, wrong / n):
                raise ExerciseFailed(diagnosis)
        if _close(got * n, (counts - n * q) / (p - q)):
            raise ExerciseFailed("you returned frequencies; the task asks for counts.")
        raise ExerciseFailed(f"on {n} reports over k = {k} values with ε = {epsilon:.3g} your "
                             "counts are off: solve E[C_v] = c_v p + (n − c_v) q for c_v.")
    return "(C_v − n q)/(p − q): an unbiased local histogram."
