"""Checkers for module 01, DP basics (Dwork 2011; Dwork 2010, §2; Mironov 2012 for the
floating-point attack).

Each checker is seeded and statistical where the answer is random; the tolerances are at
least 6 standard errors, so a correct answer fails with probability below 1e-6.
"""
from __future__ import annotations

import numbers

import numpy as np

from panpriv_teach.exercises._answers import as_numpy_array, as_real, fresh_rng, looked_up
from panpriv_teach.exercises.harness import ExerciseFailed, call, expect_uses_rng, exercise

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


@exercise("1.1", "The differencing attack",
          solved_by=("panpriv_teach.attacks.differencing_attack",))
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
_QUERIES = ("count", "sum_of_ages", "histogram", "and_count", "bit_counts")


def _sensitivity(query, max_age, k):
    """How far one added or removed row moves the query's answer in L1: a single count moves
    by 1, the sum of ages by the largest age, and the k bit counts by 1 each."""
    return {"sum_of_ages": max_age, "bit_counts": k}.get(query, 1)


def _sensitivity_hint(key, got, max_age, k):
    """Why `got` is not the sensitivity of query `key` for ages 0..max_age and k bits."""
    bands = max_age // 10 + 1
    if key == "sum_of_ages":
        if got == 100 and max_age != 100:
            return ("with ages up to {max_age} the sum can move by more (or less) than 100: the "
                    "answer depends on max_age").format(max_age=max_age)
        return f"one row's age can be anything from 0 to {max_age}: how much can the sum move?"
    if key == "histogram":
        if got == bands:
            return (f"you counted the {bands} bands, but one row falls in exactly ONE band, so "
                    "only one cell changes")
        return "one row falls in exactly ONE band, so only one cell changes"
    if key == "bit_counts":
        if got == 1:
            return (f"one row can have all {k} bits set, and then all {k} counts move: measure "
                    "the change with the L1 norm (the sum of the absolute changes)")
        if got == 2 and k != 2:
            return f"with k = {k} bits there are {k} counts, and one row can move all of them"
        return f"one row can have all {k} bits set: how much do the {k} counts move together?"
    if key == "and_count":
        return "rows with all bits 1 are counted once each: it is a single count"
    return "adding or removing one row changes a count by at most one"


@exercise("1.2", "Sensitivities")
def exercise_1_2(sensitivities):
    for max_age, k in ((100, 2), (120, 5), (65, 3)):
        where = f"sensitivities({max_age}, {k})"
        answer = call(sensitivities, max_age, k)
        if not isinstance(answer, dict):
            raise ExerciseFailed(f"{where} should return a dict, got {type(answer).__name__}.")
        right = {query: _sensitivity(query, max_age, k) for query in _QUERIES}
        missing = sorted(set(right) - set(answer))
        if missing:
            raise ExerciseFailed(f"the dict of {where} lacks the keys {missing}.")
        got = {key: as_real(answer[key], f"{where}['{key}']") for key in right}
        wrong = [key for key in right if got[key] != right[key]]
        if wrong:
            raise ExerciseFailed(f"{where} is not right yet: " + "; ".join(
                f"'{key}': {_sensitivity_hint(key, got[key], max_age, k)}" for key in wrong) + ".")
    max_age, k = (int(v) for v in fresh_rng().integers((200, 2), (1000, 50)))   # not a fixed case
    answer = call(sensitivities, max_age, k)
    if not isinstance(answer, dict) or any(
            not isinstance(answer.get(query), numbers.Real) or answer[query] != _sensitivity(query, max_age, k)
            for query in _QUERIES):
        raise looked_up(f"sensitivities({max_age}, {k})")
    return "all five sensitivities are right, for every range of ages and number of bits."


# ---------------------------------------------------------------- 1.3 Laplace mechanism
_WRONG_SCALES = {  # formula for the scale → what the student probably did
    "1/ε": (lambda d, e: 1 / e, "your noise ignores the sensitivity: the scale is Δ/ε"),
    "Δ": (lambda d, e: d, "your noise ignores ε: the scale is Δ/ε"),
    "ε/Δ": (lambda d, e: e / d, "your scale is upside down (ε/Δ): it should grow as ε shrinks"),
    "Δε": (lambda d, e: d * e, "you multiplied by ε: smaller ε must mean MORE noise"),
    "Δ/ε/√2": (lambda d, e: d / e / np.sqrt(2), "your noise has standard deviation Δ/ε; "
               "the Laplace SCALE s is Δ/ε, and its standard deviation is √2·s"),
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


@exercise("1.3", "The Laplace mechanism",
          solved_by=("panpriv_teach.mechanisms.laplace_mechanism",
                     "panpriv_teach.mechanisms.laplace_mechanism_unsafe"))
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
    edges = np.append(np.arange(0, 550_001, 50_000), 600_000.0)  # the income bins of Dwork 2011
    truth = np.histogram(incomes, edges)[0]
    epsilon = 0.5
    expect_uses_rng(private_histogram, incomes, edges, epsilon,
                    convert=lambda r: as_numpy_array(r, "the histogram", shape=truth.shape))
    rng = np.random.default_rng(1044)
    releases = np.array([as_numpy_array(r, "the histogram", shape=truth.shape) for r in
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
                    convert=lambda a: as_numpy_array(a, "the answers", shape=truth.shape))
    rng = np.random.default_rng(105)
    answers = np.array([as_numpy_array(a, "the answers", shape=truth.shape) for a in
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


@exercise("1.6", "The exponential mechanism",
          solved_by=("panpriv_teach.mechanisms.exponential_mechanism",
                     "panpriv_teach.mechanisms.exponential_mechanism_probabilities"))
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
            raise ExerciseFailed("you sample ∝ exp(ε·score/Δ), as Dwork 2011 writes it: that is only "
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


# ---------------------------------------------------------------- 1.7 floating-point attack
_FP_CANDIDATES = (0.0, 1.0)


def _verdict(answer, where):
    if isinstance(answer, (bool, np.bool_)):
        return bool(answer)
    raise ExerciseFailed(f"{where} returned {type(answer).__name__} ({str(answer)[:40]}): return "
                         "True or False.")


def _unsafe_releases(epsilon, count, rng):
    """`count` releases of inputs 0 or 1 (sensitivity 1) by the unsafe sampler, and the inputs."""
    from panpriv_teach.mechanisms import laplace_mechanism_unsafe
    inputs = rng.integers(0, 2, count).astype(float)
    return inputs, [float(laplace_mechanism_unsafe(x, 1.0, epsilon, rng=rng)) for x in inputs]


@exercise("1.7", "The floating-point attack",
          solved_by=("panpriv_teach.attacks.floating_point_attack",))
def exercise_1_7(could_produce):
    from panpriv_teach.attacks import floating_point_attack   # the reference
    rng = np.random.default_rng(107)
    identified, total, accepted, wrongly_accepted, wrongly_refused = 0, 0, 0, [], []
    for epsilon, count in ((1.0, 12), (0.2, 8)):
        inputs, releases = _unsafe_releases(epsilon, count, rng)
        possible = floating_point_attack(releases, _FP_CANDIDATES, 1.0, epsilon)  # (count, 2) bools
        for x, release, row in zip(inputs, releases, possible):
            reachable = {c for c, ok in zip(_FP_CANDIDATES, row) if ok}
            said = {c: _verdict(call(could_produce, release, c, 1.0, epsilon),
                                f"could_produce({release!r}, {c:g}, 1.0, {epsilon:g})")
                    for c in _FP_CANDIDATES}
            if not said[x]:
                raise ExerciseFailed(
                    f"the release {release!r} (ε = {epsilon:g}) came from input {x:g}, yet you say "
                    f"{x:g} cannot produce it: the true input is always possible. Reproduce "
                    "numpy's arithmetic exactly: U = k/2^53 for a whole number k, the noise "
                    "scale·ln(U + U) when U < 1/2 and −scale·ln(2.0 − U − U) otherwise (math.log), "
                    "the release candidate + noise; then bisect over k.")
            total += 1
            identified += sum(said.values()) == 1
            accepted += sum(said.values())
            wrongly_accepted += [(release, c) for c in _FP_CANDIDATES if said[c] and c not in reachable]
            wrongly_refused += [(release, c) for c in _FP_CANDIDATES if not said[c] and c in reachable]
    if accepted == 2 * total and wrongly_accepted:
        raise ExerciseFailed("you say every release could come from both inputs: then the attack "
                             "learns nothing. Compare the floats exactly (==): a tolerance such as "
                             "np.isclose accepts any input near the release.")
    if wrongly_accepted:
        release, c = wrongly_accepted[0]
        raise ExerciseFailed(f"for the release {release!r} you say input {c:g} could produce it, "
                             "but no uniform k/2^53 gives exactly that float from it. Compare "
                             "exactly (==), and search the whole range of k (bisection: the release "
                             "grows with k).")
    if wrongly_refused:
        release, c = wrongly_refused[0]
        raise ExerciseFailed(f"for the release {release!r} you rule out input {c:g}, but some "
                             f"uniform k/2^53 gives exactly that float from {c:g} as well. Search "
                             "every k from 1 to 2^53 − 1 (bisection), with numpy's exact arithmetic.")
    return (f"you identified the input behind {identified} of {total} releases from the floats "
            "alone: numpy's Laplace sampler is not ε-DP in floating point.")
