"""Checkers for module 01, DP basics (Dwork 2011; Dwork 2010, §2; Mironov 2012 for the
floating-point attack).

Random answers are checked by their law (`_laws`): the noise of 1.3-1.5 against the
Laplace law, the choices of 1.6 against the exponential mechanism's probabilities, on a few
thousand seeded draws each, with a false-failure probability below `_laws.ALPHA` = 1e-7 per
exercise (its tests share it). Deterministic answers are compared exactly.
"""
from __future__ import annotations

import numpy as np

from panpriv_teach.exercises import _laws
from panpriv_teach.exercises._answers import (as_numpy_array, as_numpy_arrays, as_real,
                                              as_reals, fresh_answer, fresh_rng, seeded)
from panpriv_teach.exercises.harness import ExerciseFailed, call, exercise, expect_reproducible


# ---------------------------------------------------------------- 1.1 differencing attack
class _LargeQueriesOnly:
    """A counting oracle that, like a naive 'large query sets only' policy, refuses
    queries selecting fewer than half of the rows; it counts the queries asked. The bits
    are held in a closure, not in an attribute: the answer learns them by asking."""

    def __init__(self, bits):
        self.n, self.queries = len(bits), 0
        bits = np.array(bits)

        def count(mask):
            return int(bits[mask].sum())

        self._count = count

    def __repr__(self):
        return "count"

    def __call__(self, mask):
        n = self.n
        mask = np.asarray(mask)
        if mask.shape != (n,) or mask.dtype.kind not in "bui":
            raise ValueError(f"count(mask) takes a boolean mask with one entry per row (length "
                             f"{n}); got {mask.dtype} values of shape {mask.shape}")
        mask = mask.astype(bool)
        self.queries += 1
        if mask.sum() < n / 2:
            raise PermissionError(f"query refused: it selects {mask.sum()} of the {n} rows, and "
                                  "this database answers only queries about at least half of them")
        return self._count(mask)


def _bit(value, where):
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    return as_real(value, where)


def _databases(rng):
    """(n, bits, target) for 1.1: databases of random sizes with targets inside; then the
    first and the last row as targets; then a database of the same size and target as the
    one before, whose target bit differs (an answer that remembers an earlier result gets
    one of the two wrong)."""
    cases = []
    for trial in range(20):
        n = int(rng.integers(10, 200))
        cases.append((n, rng.integers(0, 2, n), int(rng.integers(1, n - 1))))
    for target in (0, -1):   # with bit 1: a mask that keeps the target then shows
        n = int(rng.integers(10, 200))
        bits = rng.integers(0, 2, n)
        bits[target] = 1
        cases.append((n, bits, target % n))
    n, bits, target = cases[-1]
    cases.append((n, np.where(np.arange(n) == target, 1 - bits, bits), target))
    return cases


def _reveal_all(reveal, cases, asking=True):
    """(n, bits, target, guess) for each case; `asking`: fail an answer that asks nothing."""
    out = []
    for n, bits, target in cases:
        count = _LargeQueriesOnly(bits)
        guess = _bit(call(reveal, count, n, target), f"reveal(count, {n}, {target})")
        if asking and count.queries == 0:
            raise ExerciseFailed("your function never asked the database anything: its answer is "
                                 "a guess, not an attack. The attack learns the bit from the "
                                 "database's answers.")
        out.append((n, bits, target, guess))
    return out


@exercise("1.1", "The differencing attack",
          solved_by=("panpriv_teach.attacks.differencing_attack",))
def exercise_1_1(reveal):
    databases = _databases(seeded(101))
    cases = _reveal_all(reveal, databases[:20])
    wrong = [(n, bits, t, g) for n, bits, t, g in cases if g != bits[t]]
    if wrong:
        n, bits, target, guess = wrong[0]
        if all(g == -bits[t] for _, bits, t, g in cases):
            raise ExerciseFailed("you get minus the target's bit: your two counts are subtracted "
                                 "the other way round.")
        if abs(guess) > 1:
            raise ExerciseFailed(f"reveal(count, {n}, {target}) returned {guess:g}, a count of "
                                 "many rows, not one person's bit: a single large count hides "
                                 "the individual.")
        for step, side in ((1, "after"), (-1, "before")):
            if all(g == bits[t + step] for _, bits, t, g in cases):
                raise ExerciseFailed(f"you found the bit of the row {side} the target: rows are "
                                     "numbered from 0, and `target` is the position of the row "
                                     "in the mask.")
        raise ExerciseFailed(f"on a database of {n} rows, row {target}'s bit is not {guess:g}: "
                             "the two counts you compare must differ by exactly that one row.")
    first, last, again = _reveal_all(reveal, databases[20:], asking=False)
    if first[3] == first[1][first[2]] and last[3] == last[1][last[2]] and (
            again[3] != again[1][again[2]]):
        raise ExerciseFailed(f"two databases of {again[0]} rows whose row {again[2]} differs got "
                             "the same answer from you: does your function keep answers from an "
                             "earlier call (a cache)? The bit must come from THIS database's "
                             "answers.")
    for (n, bits, target, guess), words in ((first, "the first row (target = 0): is target 0 "
                                             "taken for 'no target' (`if target:` is False for "
                                             "0)?"),
                                            (last, "the last row (target = n − 1): does your "
                                             "mask have one entry for every one of the n rows?")):
        if guess != bits[target]:
            raise ExerciseFailed(f"reveal(count, {n}, {target}) is wrong: your attack fails on "
                                 + words)
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
            return (f"with ages up to {max_age} the sum can move by more (or less) than 100: the "
                    "answer depends on max_age")
        if got == max_age + 1:
            return (f"you counted the {max_age + 1} possible ages; the sum moves by the AGE of the "
                    "one row added or removed")
        return f"one row's age can be anything from 0 to {max_age}: how far can the sum move"
    if key == "histogram":
        if got == bands:
            return (f"you counted the {bands} bands, but one row falls in exactly ONE band, so "
                    "only one cell changes")
        if got == 2:
            return ("2 is the sensitivity when a row is CHANGED (it leaves one band and joins "
                    "another); here neighbours add or remove a row, so only one cell changes")
        return "one row falls in exactly ONE band, so only one cell changes"
    if key == "bit_counts":
        if got == 1:
            return (f"one row can have all {k} bits set, and then all {k} counts move: measure "
                    "the change with the L1 norm (the sum of the absolute changes)")
        if abs(got - k ** 0.5) < 1e-9:
            return ("you measured the change with the L2 norm; the Laplace mechanism is "
                    "calibrated to the L1 norm (the sum of the absolute changes)")
        if got == 2 and k != 2:
            return f"with k = {k} bits there are {k} counts, and one row can move all of them"
        return f"one row can have all {k} bits set: how much do the {k} counts move together"
    if key == "and_count":
        return ("rows with all bits 1 are counted once each: it is a single count, whatever k "
                "is")
    return "adding or removing one row changes a count by at most one"


def _judge_sensitivities(answer, max_age, k, where):
    """Raise the diagnosis of `answer`, the dict returned by sensitivities(max_age, k)."""
    if not isinstance(answer, dict):
        raise ExerciseFailed(f"{where} should return a dict, got {type(answer).__name__}.")
    right = {query: _sensitivity(query, max_age, k) for query in _QUERIES}
    missing = sorted(set(right) - set(answer))
    if missing:
        raise ExerciseFailed(f"the dict of {where} lacks the keys {missing}.")
    got = {key: as_real(answer[key], f"{where}['{key}']") for key in right}
    wrong = [key for key in right if got[key] != right[key]]
    if wrong:
        raise ExerciseFailed(f"{where} is not right yet. " + " ".join(
            f"'{key}': {_sensitivity_hint(key, got[key], max_age, k)}." for key in wrong)
            + " A wrong sensitivity calibrates the noise wrongly: too small loses privacy, "
              "too large loses accuracy.")


@exercise("1.2", "Sensitivities")
def exercise_1_2(sensitivities):
    fixed = []
    for max_age, k in ((100, 2), (120, 5), (65, 3)):
        where = f"sensitivities({max_age}, {k})"
        fixed.append(call(sensitivities, max_age, k))
        _judge_sensitivities(fixed[-1], max_age, k, where)
    max_age, k = (int(v) for v in fresh_rng("1.2").integers((200, 2), (1000, 50)))
    where = f"sensitivities({max_age}, {k})"
    fresh_answer(sensitivities, (max_age, k), fixed, where,
                 lambda got: _judge_sensitivities(got, max_age, k, where))
    return "all five sensitivities are right, for every range of ages and number of bits."


# ---------------------------------------------------------------- 1.3 Laplace mechanism
# (true, Δ, ε): a large true answer too, where a scale that follows the data shows
_LAPLACE_CASES = ((100.0, 2.0, 0.5), (-3.5, 1.0, 2.0), (0.0, 3.0, 1.0), (52_000.0, 1.0, 1.0))
_DRAWS = 3_000   # per case: bands to ±3 %; pooled, mean|noise| within ±5.5 % w.p. 1 - 5e-8

_WRONG_SCALES = (  # (the scale a slip gives, as a function of (Δ, ε), what the slip is)
    (lambda d, e: 1 / e, "your noise ignores the sensitivity Δ: for Δ > 1 it is too little "
     "noise, and the query is not ε-DP"),
    (lambda d, e: d, "your noise ignores ε: its scale must grow as ε shrinks, or a small ε "
     "promises privacy the noise does not give"),
    (lambda d, e: e / d, "your scale is upside down (ε/Δ): smaller ε gives LESS noise, and "
     "the privacy promise is broken"),
    (lambda d, e: d * e, "you multiplied Δ by ε: smaller ε gives LESS noise, and the privacy "
     "promise is broken"),
    (lambda d, e: d / e / np.sqrt(2), "your noise has STANDARD DEVIATION Δ/ε, but Lap(s)'s "
     "parameter s is its scale (its standard deviation is √2·s): too little noise for ε-DP"),
    (lambda d, e: np.sqrt(2) * d / e, "your noise has √2 times the Laplace scale (a standard "
     "deviation used as the scale): more noise than ε-DP needs"),
    (lambda d, e: 2 * d / e, "your noise is twice as wide as Lap(Δ/ε) needs: accuracy lost"),
    (lambda d, e: d / (2 * e), "your noise is half as wide as Lap(Δ/ε) needs: only 2ε-DP"),
    (lambda d, e: d / e ** 2, "your scale is Δ/ε²: the noise does not match ε"),
)


def _case(true, sensitivity, epsilon) -> str:
    return f"(case: true answer {true:g}, Δ = {sensitivity:g}, ε = {epsilon:g})"


def _scale_slip(ratios, cases, slips) -> str | None:
    """The slip whose scale explains every case's measured scale ratio (within 10 %)."""
    for scale, words in slips:
        if all(abs(r * d / e / scale(d, e) - 1) < 0.1 for r, (_, d, e) in zip(ratios, cases)):
            return words
    return None


def _data_dependent(ratios, values, name) -> str | None:
    """The diagnosis of a noise scale that changes with the data (the measured scale
    `ratios` of the asked one at the `values` of the cases), if it does."""
    low, high = int(np.argmin(ratios)), int(np.argmax(ratios))
    if ratios[high] < 1.25 * ratios[low]:
        return None
    return (f"your noise scale depends on the data: {ratios[low]:.2f} times {name} when "
            f"{values[low]}, {ratios[high]:.2f} times when {values[high]}. The scale may "
            "depend on the sensitivity and ε only: one that follows the data reveals it "
            "(privacy lost).")


@exercise("1.3", "The Laplace mechanism",
          solved_by=("panpriv_teach.mechanisms.laplace_mechanism",
                     "panpriv_teach.mechanisms.laplace_mechanism_unsafe",
                     "panpriv_teach.noise.LaplaceNoise"))
def exercise_1_3(laplace_mechanism):
    expect_reproducible(laplace_mechanism, 100.0, 1.0, 0.5,
                        convert=lambda v: as_real(v, "the output"))
    rng = seeded(103)
    alpha = _laws.ALPHA / 2 / len(_LAPLACE_CASES)   # the cases; the pooled test: ALPHA / 2
    misfits, ratios, standard = [], [], []
    for true, d, e in _LAPLACE_CASES:
        out = as_reals(call(laplace_mechanism, true, d, e, rng=rng, repeat=_DRAWS), "the output")
        misfit = _laws.laplace_misfit(out - true, d / e, alpha)
        if misfit and true != 0 and _laws.laplace_misfit(out, d / e, alpha) is None:
            raise ExerciseFailed(f"your outputs are centred on 0, not on the true answer: you "
                                 f"return the noise alone, which says nothing about the data "
                                 f"(accuracy lost). {_case(true, d, e)}")
        misfits.append(misfit)
        ratios.append(float(np.mean(np.abs(out - true))) / (d / e))
        standard.append((out - true) / (d / e))
    pooled = None
    if not any(misfits):   # each case fits; all of them together pin the scale down
        pooled = _laws.laplace_misfit(np.concatenate(standard), 1.0, _laws.ALPHA / 2)
        if pooled is None:
            return "releases true answer + Lap(Δ/ε): the law of the Laplace mechanism."
    if all(m is None or m.kind == "scale" for m in misfits + [pooled]):
        slip = _scale_slip(ratios, _LAPLACE_CASES, _WRONG_SCALES)
        if slip:
            raise ExerciseFailed(slip + ".")
        follows = _data_dependent(ratios, [f"the true answer is {t:g}" for t, _, _ in
                                            _LAPLACE_CASES], "Δ/ε")
        if follows:
            raise ExerciseFailed(follows)
    if pooled:
        raise ExerciseFailed(_laws.describe_misfit(pooled, "the true answer", "Δ/ε")
                             + f" (the {len(ratios)} cases together)")
    i = next(i for i, m in enumerate(misfits) if m)
    raise ExerciseFailed(_laws.describe_misfit(misfits[i], "the true answer", "Δ/ε") + " "
                         + _case(*_LAPLACE_CASES[i]))


# ---------------------------------------------------------------- 1.4 histogram
def _histogram_cases():
    """(values, bin edges, ε): incomes in the bins of Dwork 2011 (the top bins empty, some
    nearly so); small numbers in unit bins with empty bins between full ones; and values on
    inner edges and outside the range, with six bins full (50 values or more) and one
    empty. (No value lies on the last edge, which np.histogram counts in the last bin and a
    half-open bin [a, b) would not: the task leaves that open.)"""
    rng = seeded(104)
    incomes = np.minimum(rng.lognormal(np.log(60_000), 0.5, 300), 599_999)
    income_edges = np.append(np.arange(0, 550_001, 50_000), 600_000.0)
    small = np.concatenate([rng.uniform(0, 1, 9), rng.uniform(2, 3, 3), rng.uniform(4, 5, 1),
                            rng.uniform(7, 8, 20)])
    edges = np.arange(0.0, 11.0)
    edged = np.concatenate([rng.uniform(j, j + 1, int(rng.integers(55, 120))) for j in range(6)]
                           + [[1.0, 3.0, 5.0, 7.0, 7.5, 8.0, 8.0, 9.5, 9.9],
                              [-1.5, -0.2, 10.5, 12.0]])   # bin 6 empty; outside the range
    return [(incomes, income_edges, 0.5), (small, np.arange(0.0, 11.0), 2.0),
            (rng.permutation(edged), edges, 1.0)]


_HISTOGRAM_RUNS = 400
_FULL = 50   # a bin with this many values is "full": its noise must not be smaller

_WRONG_HISTOGRAM_SCALES = (  # (scale as a function of (bins, ε), the slip)
    (lambda k, e: k / e, "you paid for each bin as a separate counting query (scale "
     "bins/ε), but the histogram as a whole has sensitivity 1: one value changes one cell. "
     "The noise is far larger than needed (accuracy lost)"),
    (lambda k, e: 2 / e, "your noise is calibrated to sensitivity 2, the sensitivity when a "
     "value is CHANGED; here neighbours add or remove one value, so one cell moves by 1 "
     "(twice the noise needed)"),
    (lambda k, e: 1.0, "your noise ignores ε: it must grow as ε shrinks"),
    (lambda k, e: e, "your scale grows with ε: smaller ε gives LESS noise, and the privacy "
     "promise is broken"),
    (lambda k, e: 1 / e / np.sqrt(2), "your noise has standard deviation 1/ε, but Lap(s)'s "
     "parameter s is its scale: too little noise for ε-DP"),
)


def _binned(values, edges, side="right", clip=False):
    """Counts per bin when a value x goes to the bin i with edges[i] <= x < edges[i + 1]
    (side "right"; "left": edges[i] < x <= edges[i + 1]), and values outside the range to
    the edge bins if `clip` (else nowhere)."""
    k = len(edges) - 1
    index = np.searchsorted(edges, values, side=side) - 1
    if clip:
        index = np.clip(index, 0, k - 1)
    return np.bincount(index[(index >= 0) & (index < k)], minlength=k)


_BINNING_SLIPS = (  # (counts a slip gives, of (values, edges); the slip)
    (lambda v, e: _binned(v, e, clip=True), "values outside the range of the edges are counted "
     "in the first or last bin (np.digitize and a clip?); np.histogram drops them"),
    (lambda v, e: _binned(v, e, side="left"), "a value on an edge is counted in the bin to its "
     "LEFT; np.histogram's bins hold their left edge: [a, b)"),
    (lambda v, e: np.histogram(np.round(v), e)[0], "the values are rounded before they are "
     "binned, which moves some into the next bin"),
)


def _histogram_case(truth, epsilon):
    return f"(case: {len(truth)} bins, true counts {truth.tolist()}, ε = {epsilon:g})"


def _histogram_releases(private_histogram, values, edges, epsilon, rng):
    bins = len(edges) - 1
    return as_numpy_arrays(call(private_histogram, values, edges, epsilon, rng=rng,
                                repeat=_HISTOGRAM_RUNS), "the histogram", (bins,))


def _histogram_shape(releases, truth, values, edges, epsilon, alpha):
    """Raise the diagnosis of one case's releases whose noise is missing, clipped, rounded,
    off-centre or dependent between cells (alpha: this case's share)."""
    noise = releases - truth
    bins, scale, where = len(truth), 1 / epsilon, _histogram_case(truth, epsilon)
    empty = truth == 0                       # every case has empty bins
    if empty.any() and np.all(noise[:, empty] == 0) and not np.all(noise[:, ~empty] == 0):
        raise ExerciseFailed("the bins with no values come out exact (no noise there): an "
                             "observer sees which bins are empty, and adding one value to an "
                             f"empty bin changes its release from exactly 0 (privacy lost). {where}")
    exact = [j for j in range(bins) if np.all(noise[:, j] == 0)]
    if exact and len(exact) < bins:
        j = exact[0]
        raise ExerciseFailed(f"bin {j} ([{edges[j]:g}, {edges[j + 1]:g})) is released exactly, "
                             "with no noise: its count is given away, and adding one value "
                             f"to it changes the release for certain (privacy lost). {where}")
    if empty.any() and np.all(releases[:, empty] >= 0) and np.any(noise[:, ~empty] < 0):
        raise ExerciseFailed("your counts are never negative where the true count is 0: "
                             "you clipped (or cut) the noisy counts at 0, which biases every "
                             f"small count upward (accuracy lost; the task asks for unbiased "
                             f"counts). {where}")
    if np.all(noise == np.round(noise)) and np.any(noise != 0):
        raise ExerciseFailed("your noisy counts are whole numbers: rounding is post-processing "
                             "(still private), but the task asks for the Laplace mechanism's "
                             f"counts themselves. {where}")
    per_bin = [_laws.laplace_misfit(noise[:, j], scale, alpha / 3 / bins) for j in range(bins)]
    shifted = [j for j, m in enumerate(per_bin) if m and m.kind == "off-centre"]
    if shifted:
        centre, spread = releases.mean(axis=0), 6 * np.sqrt(2) * scale / np.sqrt(len(noise))
        for counts, slip in _BINNING_SLIPS:
            if np.all(np.abs(centre - counts(values, edges)) < spread):
                raise ExerciseFailed(f"your counts are off in some bins: {slip}. A count off "
                                     f"by one is an inaccurate histogram. {where}")
        j = shifted[0]
        raise ExerciseFailed(f"your counts are off on average in bin {j} ([{edges[j]:g}, "
                             f"{edges[j + 1]:g})): they average {releases[:, j].mean():.2f} "
                             f"where {truth[j]} values fall. Count the values of each bin "
                             f"(not a density or a fraction), then add zero-mean noise. {where}")
    if np.sum(np.abs(noise.sum(axis=1)) < 1e-9 * scale * bins) >= 3:
        raise ExerciseFailed("the total of your noisy counts equals the true total in "
                             f"{np.mean(np.abs(noise.sum(axis=1)) < 1e-9 * scale * bins):.0%} "
                             "of the calls: the noise is re-centred (its sum taken out), so "
                             "the number of values is released exactly and the cells' noises "
                             f"are not independent (privacy lost). {where}")
    if _laws.column_dependence(noise, alpha / 3) is not None:
        raise ExerciseFailed("the cells' noises are not independent (two cells' noise has the "
                             "same sign far more, or less, often than half of the time: the "
                             "same draw in several cells?): then the differences between "
                             "cells are exact, and so is the histogram's shape (privacy "
                             f"lost). {where}")
    misfit = next((m for m in per_bin if m), None)
    if misfit and misfit.kind == "scale":   # a wrong scale: judged with every case
        return misfit
    if misfit:
        raise ExerciseFailed(_laws.describe_misfit(misfit, "the true count", "1/ε") + " " + where)
    differences = (noise[:, 1:] - noise[:, :-1]).ravel()   # of two cells' own draws
    if not _laws.fits_cdf(differences, lambda x: _laws.difference_cdf(x, scale), alpha / 3):
        raise ExerciseFailed("each cell's noise is Laplace, but the cells' noises are not "
                             "independent: their differences do not have the law of the "
                             "difference of two independent draws, so combining cells "
                             f"cancels part of the noise (privacy lost). {where}")
    return None


@exercise("1.4", "A private histogram")
def exercise_1_4(private_histogram):
    cases = _histogram_cases()
    values, edges, epsilon = cases[0]
    bins = len(edges) - 1
    expect_reproducible(private_histogram, values, edges, epsilon,
                        convert=lambda r: as_numpy_array(r, "the histogram", shape=(bins,)))
    rng = seeded(1044)
    standard, ratios, misfits = [], [], []
    for values, edges, epsilon in cases:   # each case: half of ALPHA, shared
        truth = np.histogram(values, edges)[0]
        releases = _histogram_releases(private_histogram, values, edges, epsilon, rng)
        misfits.append(_histogram_shape(releases, truth, values, edges, epsilon,
                                        _laws.ALPHA / 2 / len(cases)))
        standard.append(((releases - truth) * epsilon, truth))
        ratios.append(float(np.mean(np.abs(standard[-1][0]))))
    # all cases together (the other half of ALPHA): the scale of all the noise, and of the
    # noise of full bins and of empty bins, each by the exact law of its mean |noise|
    z = np.concatenate([noise.ravel() for noise, _ in standard])
    groups = [np.concatenate([noise[:, test(truth)].ravel() for noise, truth in standard])
              for test in (lambda t: t >= _FULL, lambda t: t == 0)]
    pooled = _laws.laplace_misfit(z, 1.0, _laws.ALPHA / 4)
    if not any(misfits) and pooled is None and all(_laws.scale_fits(g, _laws.ALPHA / 8)
                                                   for g in groups):
        return "sensitivity 1: independent Lap(1/ε) on every bin, empty ones included."
    full, empty = (float(np.mean(np.abs(g))) for g in groups)
    if abs(full - empty) > 0.1 * max(full, empty):
        raise ExerciseFailed(f"your noise scale depends on the counts: {full:.2f} times 1/ε in "
                             f"bins with {_FULL} values or more, {empty:.2f} times in empty "
                             "bins. The scale may depend on the sensitivity and ε only: one "
                             "that follows the data reveals it (privacy lost).")
    for scale, words in _WRONG_HISTOGRAM_SCALES:   # a slip that explains every case
        if all(abs(r / e / scale(len(c) - 1, e) - 1) < 0.1
               for r, (_, c, e) in zip(ratios, cases)):
            raise ExerciseFailed(f"{words}. (all {len(cases)} cases)")
    i = next((i for i, m in enumerate(misfits) if m), None)
    if i is not None:
        truth = np.histogram(*cases[i][:2])[0]
        raise ExerciseFailed(_laws.describe_misfit(misfits[i], "the true count", "1/ε") + " "
                             + _histogram_case(truth, cases[i][2]))
    pooled = pooled or _laws.Misfit("scale", 0.0, float(np.mean(np.abs(z))), 0.0, 0, 0.0)
    raise ExerciseFailed(_laws.describe_misfit(pooled, "the true count", "1/ε")
                         + f" (the {len(cases)} cases together)")


# ---------------------------------------------------------------- 1.5 budget splitting
# Two sets of true answers with the same sensitivities: how the budget is split may depend
# on the sensitivities and ε only, so the two must get noise of the same scales.
_QUERY_TRUTHS = (np.array([50.0, 120.0, 7.0, 300.0, 12.0]),
                 np.array([3.0, 900.0, 45.0, 12.0, 250.0]))
_QUERY_SENSITIVITY = np.array([1.0, 2.0, 1.0, 5.0, 0.5])
_SPLIT_RUNS = 5_000


def _split_noise(answer_queries, truth, sensitivity, epsilon, rng, where):
    """The noise of _SPLIT_RUNS calls (runs × queries), each query's a Laplace law."""
    k = len(truth)
    answers = as_numpy_arrays(call(answer_queries, truth, sensitivity, epsilon, rng=rng,
                                   repeat=_SPLIT_RUNS), "the answers", (k,))
    noise = answers - truth
    alpha = _laws.ALPHA / 8 / k     # a quarter of each case's half of ALPHA
    for i in range(k):
        if np.all(noise[:, i] == 0):
            raise ExerciseFailed(f"the answer to query {i} (true answer {truth[i]:g}) carries no "
                                 "noise at all: it is released exactly, and gives the data away "
                                 f"(no privacy). {where}")
    scales = np.mean(np.abs(noise), axis=0)
    low, high = _laws.scale_interval(_SPLIT_RUNS, alpha)
    for i in range(k):   # each query's law: Laplace with its own (estimated) scale
        misfit = _laws.laplace_misfit(noise[:, i], scales[i], alpha)
        if misfit and misfit.kind != "scale" and not _laws.laplace_fits(
                noise[:, i] / scales[i], alpha, ratio=(low, high)):
            raise ExerciseFailed(f"query {i} (Δ = {sensitivity[i]:g}): "
                                 + _laws.describe_misfit(misfit, "the true answer", "its scale")
                                 + " " + where)
    pair = _laws.column_dependence(noise, _laws.ALPHA / 8)
    if pair is not None:
        i, j = pair
        agree = np.mean(np.sign(noise[:, i]) == np.sign(noise[:, j]))
        raise ExerciseFailed(f"the noises of queries {i} and {j} are not independent (they "
                             f"have the same sign in {agree:.0%} of the calls: one draw shared "
                             "between queries, or noise re-centred?). Dependent noise can be "
                             f"cancelled by combining the answers (privacy lost). {where}")
    return noise


@exercise("1.5", "Splitting a privacy budget")
def exercise_1_5(answer_queries):
    sensitivity, epsilon = _QUERY_SENSITIVITY, 1.0
    k = len(sensitivity)
    expect_reproducible(answer_queries, _QUERY_TRUTHS[0], sensitivity, epsilon,
                        convert=lambda a: as_numpy_array(a, "the answers", shape=(k,)))
    rng = seeded(105)
    noises = []
    for truth in _QUERY_TRUTHS:
        where = (f"(case: true answers {truth.tolist()}, sensitivities {sensitivity.tolist()}, "
                 f"ε = {epsilon:g})")
        noises.append(_split_noise(answer_queries, truth, sensitivity, epsilon, rng, where))
    for i in range(k):   # the other half of ALPHA: the scales agree, then the budget
        if not _laws.same_scale(noises[0][:, i], noises[1][:, i], _laws.ALPHA / 4 / k):
            a, b = (float(np.mean(np.abs(n[:, i]))) for n in noises)
            raise ExerciseFailed(f"query {i}'s noise scale depends on the data: {a:.3g} when the "
                                 f"true answers are {_QUERY_TRUTHS[0].tolist()}, {b:.3g} when "
                                 f"they are {_QUERY_TRUTHS[1].tolist()}. How the budget is split "
                                 "may depend on the sensitivities and ε only: a split that "
                                 "follows the data reveals it (privacy lost).")
    noise = np.concatenate(noises)
    scales = np.mean(np.abs(noise), axis=0)
    low, high = _laws.scale_interval(len(noise), _laws.ALPHA / 4 / k)
    spent = float(np.sum(sensitivity / scales))   # query i with Lap(s_i) costs Δ_i / s_i
    where = f"(sensitivities {sensitivity.tolist()}, ε = {epsilon:g})"
    if spent * low > epsilon:
        raise ExerciseFailed(f"your answers together spend ε ≈ {spent:.2f}, more than the budget "
                             f"{epsilon:g}: by composition the costs Δ_i/s_i of the queries add "
                             f"up, so the set of answers is not {epsilon:g}-DP. {where}")
    if spent * high < epsilon:
        raise ExerciseFailed(f"your answers spend only ε ≈ {spent:.2f} of the budget {epsilon:g}: "
                             f"they are noisier than they need to be (accuracy lost). {where}")
    return (f"the five answers spend ε ≈ {spent:.2f} in total (measured from their noise): "
            f"the budget {epsilon:g}, all of it.")


# ---------------------------------------------------------------- 1.6 exponential mechanism
_COLOURS = ["red", "green", "blue", "yellow"]
# (candidates, scores, Δ, ε, draws): 4,000 draws where report-noisy-max with one-sided
# noise (another law) is furthest from the exponential mechanism's (0.535 against 0.455
# for the best candidate: 10 standard deviations); scores in the thousands, near each other
# and 3,000 apart (exp overflows unless the largest score is taken out first)
_EXP_CASES = (
    (_COLOURS, [0.0, 1.0, 2.0, 3.0], 1.0, 1.0, 4_000),
    (_COLOURS, [0.0, 1.0, 2.0, 3.0], 3.0, 2.0, 1_000),
    ([10, 20, 30, 40], [-5.0, 0.0, -1.0, -30.0], 2.0, 4.0, 600),
    (["a", "b", "c"], [2000.0, 2001.0, 1999.0], 1.0, 1.0, 600),
    (["w", "x", "y", "z"], [0.0, 3000.0, 3001.0, 2999.0], 1.0, 1.0, 600),
)
_WRONG_FACTORS = (  # (the factor in exp(factor·score) a slip gives, of (Δ, ε); the slip)
    (lambda d, e: e / d, "your choices follow exp(ε·score/Δ), the formula Dwork 2011 prints: "
     "that is only ε-private for monotone scores, 2ε-private in general (privacy lost)"),
    (lambda d, e: e / 2, "your probabilities ignore the sensitivity Δ: for Δ > 1 the "
     "mechanism is not ε-private"),
    (lambda d, e: 1 / (2 * d), "your probabilities ignore ε: the privacy does not follow the "
     "budget"),
    (lambda d, e: 1.0, "you sample ∝ exp(score) (a softmax of the scores): neither ε nor Δ "
     "calibrates it, so the privacy is whatever the scores' scale makes it"),
    (lambda d, e: -e / (2 * d), "your mechanism favours the LOWEST scores: the sign of the "
     "exponent is flipped (accuracy lost)"),
    (lambda d, e: 0.0, "your mechanism ignores the scores: every candidate comes out equally "
     "often (private, but useless: accuracy lost)"),
)


def _weights(scores, factor):
    logits = factor * np.asarray(scores, float)
    w = np.exp(logits - logits.max())
    return w / w.sum()


def _is_candidate(pick, candidates) -> bool:
    try:
        return np.ndim(pick) == 0 and not isinstance(pick, (bool, np.bool_)) and bool(
            pick in candidates)
    except Exception:  # e.g. an object whose comparison fails: not one candidate
        return False


def _picks(mechanism, candidates, scores, d, e, rng, draws):
    picks = call(mechanism, list(candidates), list(scores), d, e, rng=rng, repeat=draws)
    index = {c: i for i, c in enumerate(candidates)}
    for pick in picks:
        if not _is_candidate(pick, candidates):
            shown = repr(pick) if len(repr(pick)) <= 40 else repr(pick)[:37] + "..."
            raise ExerciseFailed(f"your mechanism returned {shown}, which is not one of the "
                                 f"candidates {candidates}: return the candidate itself, not its "
                                 "position or its score.")
    return np.bincount([index[p.item() if isinstance(p, np.generic) else p] for p in picks],
                       minlength=len(candidates))


@exercise("1.6", "The exponential mechanism",
          solved_by=("panpriv_teach.mechanisms.exponential_mechanism",
                     "panpriv_teach.mechanisms.exponential_mechanism_probabilities",
                     "panpriv_teach.mechanisms.exponential_mechanism_implemented_law"))
def exercise_1_6(exponential_mechanism):
    expect_reproducible(exponential_mechanism, _COLOURS, [0.0, 1.0, 2.0, 3.0], 1.0, 1.0,
                        draws=20)   # four possible answers: 20 draws repeat by chance w.p. < 1e-10
    rng = seeded(106)
    alpha = _laws.ALPHA / len(_EXP_CASES)
    seen = []
    for candidates, scores, d, e, draws in _EXP_CASES:
        where = f"(case: scores {scores}, Δ = {d:g}, ε = {e:g})"
        try:
            counts = _picks(exponential_mechanism, candidates, scores, d, e, rng, draws)
        except ExerciseFailed as failure:
            if max(scores) < 1000:
                raise
            raise ExerciseFailed("with scores in the thousands your mechanism fails: "
                                 "exp(ε·score/(2Δ)) overflows to infinity there, and the "
                                 f"probabilities become NaN. {where}\n({failure.diagnosis})") from None
        if np.count_nonzero(counts) == 1 and np.argmax(counts) == np.argmax(scores):
            best = candidates[int(np.argmax(counts))]
            raise ExerciseFailed(f"your mechanism always returns {best!r}: a deterministic choice "
                                 "gives the best candidate away, which is not private (no "
                                 f"privacy). {where}")
        seen.append((counts, scores, d, e, where))
    wrong = [(c, s, d, e, w) for c, s, d, e, w in seen
             if not _laws.counts_fit(c, _weights(s, e / (2 * d)), alpha)]
    if not wrong:
        return "probabilities ∝ exp(ε·score/(2Δ)), stable for large scores."
    for factor, words in _WRONG_FACTORS:   # a slip that explains every case
        if all(_laws.counts_fit(c, _weights(s, factor(d, e)), alpha) for c, s, d, e, _ in seen):
            raise ExerciseFailed(f"{words}. {wrong[0][4]}")
    counts, scores, d, e, where = wrong[0]
    if max(scores) > 1000:
        raise ExerciseFailed("with scores in the thousands your frequencies are wrong: "
                             f"exp(ε·score/(2Δ)) overflows there. {where}")
    raise ExerciseFailed(f"your frequencies are {np.round(counts / counts.sum(), 3).tolist()} "
                         f"over {counts.sum()} draws; the exponential mechanism's are "
                         f"{np.round(_weights(scores, e / (2 * d)), 3).tolist()}. {where}")




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
    rng = seeded(107)
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
                    f"{x:g} cannot produce it: the true input is always possible, so your attack "
                    "would accuse the wrong input. Your arithmetic differs from numpy's somewhere "
                    "(the uniform j/2^53, the log, the order of the operations), or your search "
                    "misses some j.")
            total += 1
            identified += sum(said.values()) == 1
            accepted += sum(said.values())
            wrongly_accepted += [(release, c) for c in _FP_CANDIDATES if said[c] and c not in reachable]
            wrongly_refused += [(release, c) for c in _FP_CANDIDATES if not said[c] and c in reachable]
    if accepted == 2 * total and wrongly_accepted:
        raise ExerciseFailed("you say every release could come from both inputs: then the attack "
                             "learns nothing. A tolerance (np.isclose, abs(...) < tol) accepts any "
                             "input near the release; the attack works on the exact floats.")
    if wrongly_accepted:
        release, c = wrongly_accepted[0]
        raise ExerciseFailed(f"for the release {release!r} you say input {c:g} could produce it, "
                             "but no uniform j/2^53 gives exactly that float from it: your test "
                             "accepts floats that are only close, so the attack identifies fewer "
                             "inputs than it could.")
    if wrongly_refused:
        release, c = wrongly_refused[0]
        raise ExerciseFailed(f"for the release {release!r} you rule out input {c:g}, but some "
                             f"uniform j/2^53 gives exactly that float from {c:g} as well: your "
                             "search misses part of the range of j (1 to 2^53 − 1).")
    return (f"you identified the input behind {identified} of {total} releases from the floats "
            "alone: numpy's Laplace sampler is not ε-DP in floating point.")
