"""Checkers for module 01, DP basics (seed 002; seed 000 §2).

Each checker is seeded and statistical where the answer is random; the tolerances are at
least 6 standard errors, so a correct answer fails with probability below 1e-6.
"""
from __future__ import annotations

import numpy as np

from panpriv_teach.exercises.harness import (ExerciseFailed, as_array, as_real, call,
                                             exercise, expect_uses_rng)

SAMPLES = 20_000  # draws per statistical check: scale estimates within 0.7 % (1 s.e.)


# ---------------------------------------------------------------- 1.1 differencing attack
class _LargeQueriesOnly:
    """A counting oracle that, like a naive 'large query sets only' policy, refuses
    queries selecting fewer than half of the rows; it records the queries asked."""

    def __init__(self, bits):
        self.bits = bits
        self.queries = 0

    def __call__(self, mask):
        mask = np.asarray(mask, dtype=bool)
        if mask.shape != self.bits.shape:
            raise ValueError(f"the query mask must have shape {self.bits.shape}, got {mask.shape}")
        self.queries += 1
        if mask.sum() < len(self.bits) / 2:
            raise PermissionError("query refused: it selects fewer than half of the rows")
        return int(self.bits[mask].sum())


@exercise("1.1", "The differencing attack")
def exercise_1_1(reveal):
    rng = np.random.default_rng(101)
    for trial in range(20):
        n = int(rng.integers(10, 200))
        bits = rng.integers(0, 2, n)
        target = int(rng.integers(0, n))
        count = _LargeQueriesOnly(bits)
        guess = call(reveal, count, n, target)
        if count.queries == 0:
            raise ExerciseFailed("your function never asked the database anything: call "
                                 "count(mask) with boolean masks of length n.")
        guess = as_real(guess, f"reveal(count, {n}, {target})")
        if guess == -bits[target] and bits[target]:
            raise ExerciseFailed("you get minus the target's bit: subtract the other way round.")
        if guess > 1:
            raise ExerciseFailed(f"reveal returned {guess:g}, a count of many rows, not one bit: "
                                 "take the difference of two counts.")
        if guess != bits[target]:
            raise ExerciseFailed(f"on a database of {n} rows, the bit of row {target} is not "
                                 f"{guess:g}. Compare everyone with everyone except the target.")
    return "two large queries give away one person's bit — no small query was needed."


# ---------------------------------------------------------------- 1.2 sensitivities
_SENSITIVITY_HINTS = {
    "count": "adding or removing one row changes a count by at most one",
    "sum_of_ages": "one row's age can be anything from 0 to 100: how much can the sum move?",
    "histogram": "one row falls in exactly ONE bin, so only one cell changes",
    "and_count": "rows with both bits 1 are counted once each: it is a single count",
    "two_counts": "one row can satisfy both P and Q, so both counts can move (L1 norm)",
}
_SENSITIVITIES = {"count": 1, "sum_of_ages": 100, "histogram": 1, "and_count": 1, "two_counts": 2}


@exercise("1.2", "Sensitivities")
def exercise_1_2(sensitivities):
    answer = call(sensitivities)
    if not isinstance(answer, dict):
        raise ExerciseFailed(f"sensitivities() should return a dict, got {type(answer).__name__}.")
    missing = sorted(set(_SENSITIVITIES) - set(answer))
    if missing:
        raise ExerciseFailed(f"the dict lacks the keys {missing}.")
    wrong = [key for key, value in _SENSITIVITIES.items()
             if as_real(answer[key], f"answer['{key}']") != value]
    if wrong:
        raise ExerciseFailed("not right yet: " + "; ".join(
            f"'{key}': {_SENSITIVITY_HINTS[key]}" for key in wrong) + ".")
    return "all five sensitivities are right."


# ---------------------------------------------------------------- 1.3 Laplace mechanism
_WRONG_SCALES = {  # formula for the scale → what the student probably did
    "1/ε": (lambda d, e: 1 / e, "your noise ignores the sensitivity: the scale is Δ/ε"),
    "Δ": (lambda d, e: d, "your noise ignores ε: the scale is Δ/ε"),
    "ε/Δ": (lambda d, e: e / d, "your scale is upside down (ε/Δ): it should grow as ε shrinks"),
    "Δε": (lambda d, e: d * e, "you multiplied by ε: smaller ε must mean MORE noise"),
    "Δ/ε/√2": (lambda d, e: d / e / np.sqrt(2), "your noise has standard deviation Δ/ε; "
               "the Laplace SCALE b is Δ/ε, and its standard deviation is √2·b"),
    "2Δ/ε": (lambda d, e: 2 * d / e, "your noise is twice too wide: the scale is Δ/ε"),
}


def _output(value):
    return as_real(value, "the output")


def _laplace_scale(mechanism, true, sensitivity, epsilon, rng):
    outputs = np.array([_output(v) for v in
                        call(mechanism, true, sensitivity, epsilon, rng=rng, repeat=SAMPLES)])
    noise = outputs - true
    scale = np.abs(noise).mean()  # E|Lap(b)| = b, with s.e. b/√n
    if abs(noise.mean()) > 6 * np.sqrt(2) * scale / np.sqrt(SAMPLES):
        raise ExerciseFailed(f"with true answer {true:g} your outputs average "
                             f"{outputs.mean():.3f}: the noise must have mean zero "
                             "(add it to the true answer, do not replace the answer).")
    return noise, scale


@exercise("1.3", "The Laplace mechanism")
def exercise_1_3(laplace_mechanism):
    expect_uses_rng(laplace_mechanism, 100.0, 1.0, 0.5, convert=_output)
    rng = np.random.default_rng(103)
    configs = [(2.0, 0.5), (1.0, 2.0)]
    measured = [_laplace_scale(laplace_mechanism, 100.0, d, e, rng) for d, e in configs]
    for (d, e), (noise, scale) in zip(configs, measured):
        shape = noise.std() / scale  # √2 for Laplace, √(π/2) ≈ 1.25 for Gaussian noise
        if abs(shape - np.sqrt(2)) > 0.04:
            raise ExerciseFailed(f"your noise does not have the Laplace shape (std / mean|noise| "
                                 f"= {shape:.3f}; Laplace gives 1.414, Gaussian 1.253): use rng.laplace.")
        if abs(scale / (d / e) - 1) > 0.05:
            for formula, hint in _WRONG_SCALES.values():
                if all(abs(s / formula(dd, ee) - 1) < 0.05 for (dd, ee), (_, s) in zip(configs, measured)):
                    raise ExerciseFailed(hint + ".")
            raise ExerciseFailed(f"with sensitivity {d:g} and ε = {e:g} your noise has mean "
                                 f"absolute value {scale:.3f}; for the Laplace mechanism it is Δ/ε.")
    return "unbiased, scale Δ/ε, Laplace-shaped, and reproducible from rng."


# ---------------------------------------------------------------- 1.4 histogram
@exercise("1.4", "A private histogram")
def exercise_1_4(private_histogram):
    data_rng = np.random.default_rng(104)
    incomes = np.minimum(data_rng.lognormal(np.log(60_000), 0.6, 1_000), 599_999)
    edges = np.append(np.arange(0, 550_001, 50_000), 600_000.0)  # the 11 bins of seed 002
    truth = np.histogram(incomes, edges)[0]
    epsilon = 0.5
    expect_uses_rng(private_histogram, incomes, edges, epsilon,
                    convert=lambda r: as_array(r, "the histogram", shape=truth.shape))
    rng = np.random.default_rng(1044)
    releases = np.array([as_array(r, "the histogram", shape=truth.shape) for r in
                         call(private_histogram, incomes, edges, epsilon, rng=rng, repeat=4_000)])
    noise = releases - truth
    scale = np.abs(noise).mean()
    if np.abs(noise.mean(axis=0)).max() > 6 * np.sqrt(2) * scale / np.sqrt(len(releases)):
        raise ExerciseFailed("your released counts are off on average: count the values in each "
                             "bin with np.histogram(values, bin_edges)[0], then add zero-mean noise.")
    bins = len(truth)
    if abs(scale * epsilon / bins - 1) < 0.05:
        raise ExerciseFailed(f"you paid for {bins} separate counting queries, but the histogram "
                             "as a whole has sensitivity 1: one row changes only one cell.")
    if abs(scale * epsilon - 1) > 0.05:
        raise ExerciseFailed(f"your noise has mean absolute value {scale:.3f} per cell; "
                             "a sensitivity-1 query at this ε needs scale 1/ε.")
    correlation = np.corrcoef(noise.T)[np.triu_indices(bins, 1)]
    if np.abs(correlation).max() > 0.15:  # independent cells: |r| < 0.1 with prob > 1 - 1e-9
        raise ExerciseFailed("the noise in different cells is correlated (the same draw in every "
                             "cell?): draw independent noise for each cell.")
    return "sensitivity 1, independent Lap(1/ε) per cell."


# ---------------------------------------------------------------- 1.5 budget splitting
@exercise("1.5", "Splitting a privacy budget")
def exercise_1_5(answer_queries):
    truth = np.array([50.0, 120.0, 7.0, 300.0])
    sensitivities = np.array([1.0, 2.0, 1.0, 5.0])
    epsilon = 1.0
    expect_uses_rng(answer_queries, truth, sensitivities, epsilon,
                    convert=lambda a: as_array(a, "the answers", shape=truth.shape))
    rng = np.random.default_rng(105)
    answers = np.array([as_array(a, "the answers", shape=truth.shape) for a in
                        call(answer_queries, truth, sensitivities, epsilon, rng=rng, repeat=SAMPLES)])
    noise = answers - truth
    scales = np.abs(noise).mean(axis=0)
    if np.any(np.abs(noise.mean(axis=0)) > 6 * np.sqrt(2) * scales / np.sqrt(SAMPLES)):
        raise ExerciseFailed("some answers are biased: add zero-mean noise to each true answer.")
    correlation = np.corrcoef(noise.T)[np.triu_indices(len(truth), 1)]
    if np.abs(correlation).max() > 0.1:  # independent: |r| < 0.05 with prob > 1 - 1e-9
        raise ExerciseFailed("the noise of different queries is correlated: draw independent "
                             "noise for each query.")
    spent = float(np.sum(sensitivities / scales))  # query i at Lap(b_i) costs Δ_i / b_i
    if spent > 1.05 * epsilon:
        raise ExerciseFailed(f"your answers together spend ε ≈ {spent:.2f}, more than the budget "
                             f"{epsilon:g}: by composition the costs Δ_i/b_i of the queries add up.")
    if spent < 0.95 * epsilon:
        raise ExerciseFailed(f"your answers spend only ε ≈ {spent:.2f} of the budget {epsilon:g}: "
                             "they are noisier than they need to be.")
    return f"the four answers spend ε ≈ {spent:.3f} in total, within the budget."


# ---------------------------------------------------------------- 1.6 exponential mechanism
def _is_candidate(pick, candidates) -> bool:
    try:
        return bool(pick in candidates)
    except Exception:  # e.g. an array, compared elementwise: not one candidate
        return False


def _one_candidate(candidates):
    """`convert` for expect_uses_rng: the answer must be one of the candidates."""
    def convert(pick):
        if not _is_candidate(pick, candidates):
            shown = repr(pick) if len(repr(pick)) <= 40 else repr(pick)[:37] + "..."
            raise ExerciseFailed(f"your mechanism returned {shown}, which is not one of the "
                                 f"candidates {candidates}: return a candidate, not an index or "
                                 "a score.")
        return pick
    return convert


def _frequencies(mechanism, candidates, scores, sensitivity, epsilon, rng, draws):
    picks = call(mechanism, candidates, scores, sensitivity, epsilon, rng=rng, repeat=draws)
    for pick in picks:
        _one_candidate(candidates)(pick)
    return np.array([sum(p == c for p in picks) for c in candidates]) / draws


def _weights(scores, factor):
    w = np.exp(factor * (np.asarray(scores, float) - np.max(scores)))
    return w / w.sum()


@exercise("1.6", "The exponential mechanism")
def exercise_1_6(exponential_mechanism):
    candidates, scores = ["red", "green", "blue", "yellow"], [0.0, 1.0, 2.0, 3.0]
    expect_uses_rng(exponential_mechanism, candidates, scores, 1.0, 1.0,
                    convert=_one_candidate(candidates))
    rng = np.random.default_rng(106)
    draws = 10_000  # a frequency is within 6 s.e. ≤ 0.03 of its probability w.p. > 1 - 1e-8
    for sensitivity, epsilon in [(1.0, 1.0), (3.0, 2.0)]:
        seen = _frequencies(exponential_mechanism, candidates, scores, sensitivity, epsilon, rng, draws)
        expected = _weights(scores, epsilon / (2 * sensitivity))
        if np.all(np.abs(seen - expected) <= 0.03):
            continue
        if seen[-1] == 1.0:
            raise ExerciseFailed("your mechanism always returns the best candidate: a deterministic "
                                 "choice is not private. Sample with probabilities ∝ exp(ε·score/(2Δ)).")
        if np.all(np.abs(seen - 0.25) <= 0.03):
            raise ExerciseFailed("your mechanism ignores the scores: every candidate comes out "
                                 "equally often.")
        if np.all(np.abs(seen - _weights(scores, epsilon / sensitivity)) <= 0.03):
            raise ExerciseFailed("you sample ∝ exp(ε·score/Δ), as seed 002 writes it: that is only "
                                 "ε-private for monotone scores, in general 2ε. Use ε/(2Δ).")
        if np.all(np.abs(seen - _weights(scores, epsilon / 2)) <= 0.03):
            raise ExerciseFailed("your probabilities ignore the sensitivity Δ.")
        raise ExerciseFailed(f"with Δ = {sensitivity:g}, ε = {epsilon:g} and scores {scores}, your "
                             f"frequencies are {np.round(seen, 3).tolist()}; they should be "
                             "proportional to exp(ε·score/(2Δ)).")
    big = [2000.0, 2001.0, 1999.0]
    overflow = ("with scores near 2000 your mechanism goes wrong: exp(1000) overflows. "
                "Subtract the largest score before exponentiating.")
    try:
        seen = _frequencies(exponential_mechanism, ["a", "b", "c"], big, 1.0, 1.0, rng, 2_000)
    except ExerciseFailed as failure:
        raise ExerciseFailed(f"{overflow}\n({failure.diagnosis})") from None
    if np.any(np.abs(seen - _weights(big, 0.5)) > 0.07):  # 6 s.e. at 2,000 draws
        raise ExerciseFailed(overflow)
    return "probabilities ∝ exp(ε·score/(2Δ)), stable for large scores."
