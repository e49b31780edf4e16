"""Module 01's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
import bisect
import math

import numpy as np

from checker_testing import Table

table = Table("dp_basics")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 1.1
@correct("1.1", "everyone minus everyone but the target")
def reveal(count, n, target):
    everyone = np.ones(n, dtype=bool)
    others = everyone.copy()
    others[target] = False
    return count(everyone) - count(others)


@correct("1.1", "the complement of a one-hot mask")
def _(count, n, target):
    alone = np.arange(n) == target
    return count(np.ones(n, bool)) - count(~alone)


@correct("1.1", "a comparison of the two counts (a bool)")
def _(count, n, target):
    return count([True] * n) > count([i != target for i in range(n)])


@correct("1.1", "integer masks of 0s and 1s")
def _(count, n, target):
    mask = np.ones(n, dtype=int)
    with_target = count(mask)
    mask[target] = 0
    return with_target - count(mask)


@mistake("1.1", "subtracting the two counts the wrong way round", "other way round")
def _(count, n, target):
    return -reveal(count, n, target)


@mistake("1.1", "returning one large count instead of a difference", "count of many rows")
def _(count, n, target):
    return count(np.ones(n, bool))


@mistake("1.1", "asking about the target alone (the database refuses small queries)",
         "refused", "1 of the")
def _(count, n, target):
    return count(np.arange(n) == target)


@mistake("1.1", "the first half with and without the target (the second query is too small)",
         "refused")
def _(count, n, target):
    half = (np.arange(n) < (n + 1) // 2) | (np.arange(n) == target)
    without = half.copy()
    without[target] = False
    return count(half) - count(without)


@mistake("1.1", "never asking the database (a guess)", "never asked")
def _(count, n, target):
    return 0


@mistake("1.1", "removing the row after the target (an off-by-one)", "row after the target")
def _(count, n, target):
    others = np.ones(n, bool)
    others[target + 1] = False
    return count(np.ones(n, bool)) - count(others)


@mistake("1.1", "passing row numbers instead of a boolean mask", "boolean mask", "length")
def _(count, n, target):
    return count(np.arange(n)) - count(np.delete(np.arange(n), target))


# ---------------------------------------------------------------- 1.2
def sensitivities(max_age, k):
    return {"count": 1, "sum_of_ages": max_age, "histogram": 1, "and_count": 1, "bit_counts": k}


correct("1.2", "a dict literal")(sensitivities)


@correct("1.2", "built by a rule per query")
def _(max_age, k):
    moves = {"sum_of_ages": max_age, "bit_counts": k}
    return {q: moves.get(q, 1) for q in ("count", "sum_of_ages", "histogram", "and_count",
                                         "bit_counts")}


@correct("1.2", "numpy numbers and floats")
def _(max_age, k):
    return {"count": np.int64(1), "sum_of_ages": float(max_age), "histogram": 1.0,
            "and_count": np.float64(1), "bit_counts": np.int32(k)}


@mistake("1.2", "histogram: the number of bands", "only one cell", "11 bands")
def _(max_age, k):
    return {**sensitivities(max_age, k), "histogram": max_age // 10 + 1}


@mistake("1.2", "histogram: 2 (a changed row, not an added one)", "changed", "only one cell")
def _(max_age, k):
    return {**sensitivities(max_age, k), "histogram": 2}


@mistake("1.2", "bit counts: 1 (the largest single change, not the L1 norm)", "all 2 counts",
         "l1")
def _(max_age, k):
    return {**sensitivities(max_age, k), "bit_counts": 1}


@mistake("1.2", "bit counts: √k (the L2 norm)", "l2 norm", "l1")
def _(max_age, k):
    return {**sensitivities(max_age, k), "bit_counts": math.sqrt(k)}


@mistake("1.2", "sum of ages: 100 whatever max_age is (a typed dict)", "depends on max_age")
def _(max_age, k):
    return {**sensitivities(100, 2), "bit_counts": k}


@mistake("1.2", "sum of ages: max_age + 1 (the number of possible ages)", "possible ages")
def _(max_age, k):
    return {**sensitivities(max_age, k), "sum_of_ages": max_age + 1}


@mistake("1.2", "AND count: k (one per bit)", "single count")
def _(max_age, k):
    return {**sensitivities(max_age, k), "and_count": k}


@mistake("1.2", "a list instead of a dict", "should return a dict")
def _(max_age, k):
    return [1, max_age, 1, 1, k]


# ---------------------------------------------------------------- 1.3
@correct("1.3", "numpy's Laplace sampler")
def laplace(true_answer, sensitivity, epsilon, rng):
    return true_answer + rng.laplace(0.0, sensitivity / epsilon)


@correct("1.3", "the difference of two exponentials")
def _(true_answer, sensitivity, epsilon, rng):
    scale = sensitivity / epsilon
    return true_answer + rng.exponential(scale) - rng.exponential(scale)


@correct("1.3", "the inverse cdf of a uniform")
def _(true_answer, sensitivity, epsilon, rng):
    u = rng.uniform(-0.5, 0.5)
    return true_answer - sensitivity / epsilon * math.copysign(math.log1p(-2 * abs(u)), u)


@correct("1.3", "a random sign times an exponential (two rng calls, sign first)")
def _(true_answer, sensitivity, epsilon, rng):
    sign = 1.0 if rng.random() < 0.5 else -1.0
    return true_answer + sign * rng.exponential(sensitivity / epsilon)


@correct("1.3", "numpy's sampler centred on the true answer")
def _(true_answer, sensitivity, epsilon, rng):
    return rng.laplace(true_answer, sensitivity / epsilon)


@mistake("1.3", "scale 1/ε (the sensitivity ignored)", "ignores the sensitivity")
def _(t, d, e, rng):
    return t + rng.laplace(0, 1 / e)


@mistake("1.3", "scale Δ (ε ignored)", "ignores ε")
def _(t, d, e, rng):
    return t + rng.laplace(0, d)


@mistake("1.3", "scale ε/Δ (upside down)", "upside down")
def _(t, d, e, rng):
    return t + rng.laplace(0, e / d)


@mistake("1.3", "scale Δ·ε", "multiplied")
def _(t, d, e, rng):
    return t + rng.laplace(0, d * e)


@mistake("1.3", "standard deviation Δ/ε used as the scale", "standard deviation")
def _(t, d, e, rng):
    return t + rng.laplace(0, d / e / np.sqrt(2))


@mistake("1.3", "scale 2Δ/ε", "twice")
def _(t, d, e, rng):
    return t + rng.laplace(0, 2 * d / e)


@mistake("1.3", "Gaussian noise with the Laplace standard deviation", "gaussian", "ε-dp")
def _(t, d, e, rng):
    return t + rng.normal(0, np.sqrt(2) * d / e)


@mistake("1.3", "Gaussian noise with standard deviation Δ/ε", "gaussian")
def _(t, d, e, rng):
    return t + rng.normal(0, d / e)


@mistake("1.3", "one-sided (exponential) noise", "same side", "biases")
def _(t, d, e, rng):
    return t + rng.exponential(d / e)


@mistake("1.3", "noise on half of the calls only (the true answer otherwise)",
         "only sometimes", "no privacy")
def _(t, d, e, rng):
    return t + (rng.laplace(0, d / e) if rng.random() < 0.5 else 0.0)


@mistake("1.3", "a coin-flip offset ±Δ/ε (a two-point law)", "2 different values")
def _(t, d, e, rng):
    return t + d / e * rng.choice([-1.0, 1.0])


@mistake("1.3", "uniform noise", "does not follow the laplace law")
def _(t, d, e, rng):
    return t + rng.uniform(-2 * d / e, 2 * d / e)


@mistake("1.3", "returning the noise alone", "noise alone")
def _(t, d, e, rng):
    return rng.laplace(0, d / e)


@mistake("1.3", "the true answer, no noise", "no noise was added")
def _(t, d, e, rng):
    return t


@mistake("1.3", "noise from np.random, not from rng", "somewhere other than")
def _(t, d, e, rng):
    return t + np.random.laplace(0, d / e)


@mistake("1.3", "a list of one number", "single number", "list of 1")
def _(t, d, e, rng):
    return [t + rng.laplace(0, d / e)]


# ---------------------------------------------------------------- 1.4
@correct("1.4", "np.histogram and one vector of noise")
def private_histogram(values, bin_edges, epsilon, rng):
    counts = np.histogram(values, bin_edges)[0]
    return counts + rng.laplace(0.0, 1.0 / epsilon, counts.shape)


@correct("1.4", "a loop over the bins, one draw each")
def _(values, bin_edges, epsilon, rng):
    values = np.asarray(values)
    out = []
    for low, high in zip(bin_edges[:-1], bin_edges[1:]):
        count = np.sum((values >= low) & (values < high))
        out.append(count + rng.laplace(0, 1 / epsilon))
    return np.array(out, dtype=float)


@correct("1.4", "np.digitize, bincount and differences of exponentials")
def _(values, bin_edges, epsilon, rng):
    k = len(bin_edges) - 1
    counts = np.bincount(np.digitize(values, bin_edges) - 1, minlength=k)[:k]
    return counts + rng.exponential(1 / epsilon, k) - rng.exponential(1 / epsilon, k)


@mistake("1.4", "paying ε/bins per bin (a separate query per bin)", "separate counting query")
def _(values, edges, eps, rng):
    return private_histogram(values, edges, eps / (len(edges) - 1), rng)


@mistake("1.4", "the same noise draw in every bin", "not independent", "same sign")
def _(values, edges, eps, rng):
    return np.histogram(values, edges)[0] + rng.laplace(0, 1 / eps)


@mistake("1.4", "densities instead of counts", "off on average")
def _(values, edges, eps, rng):
    density = np.histogram(values, edges, density=True)[0]
    return density + rng.laplace(0, 1 / eps, len(edges) - 1)


@mistake("1.4", "noisy counts clipped at 0", "clipped", "biases")
def _(values, edges, eps, rng):
    return np.maximum(private_histogram(values, edges, eps, rng), 0)


@mistake("1.4", "noise only in the non-empty bins", "come out exact", "privacy lost")
def _(values, edges, eps, rng):
    counts = np.histogram(values, edges)[0].astype(float)
    full = counts > 0
    counts[full] += rng.laplace(0, 1 / eps, full.sum())
    return counts


@mistake("1.4", "sensitivity 2 (a changed value, not an added one)", "sensitivity 2")
def _(values, edges, eps, rng):
    return private_histogram(values, edges, eps / 2, rng)


@mistake("1.4", "Gaussian noise", "gaussian")
def _(values, edges, eps, rng):
    counts = np.histogram(values, edges)[0]
    return counts + rng.normal(0, np.sqrt(2) / eps, counts.shape)


@mistake("1.4", "rounding the noisy counts", "whole numbers")
def _(values, edges, eps, rng):
    return np.round(private_histogram(values, edges, eps, rng))


@mistake("1.4", "bins counted one place off (np.digitize without the −1)", "off on average")
def _(values, edges, eps, rng):
    k = len(edges) - 1
    counts = np.bincount(np.digitize(values, edges), minlength=k + 1)[:k]
    return counts + rng.laplace(0, 1 / eps, k)


@mistake("1.4", "a list instead of a numpy array", "numpy array")
def _(values, edges, eps, rng):
    return list(private_histogram(values, edges, eps, rng))


# ---------------------------------------------------------------- 1.5
@correct("1.5", "Dwork 2011's even split: Lap(ΣΔ/ε) on each")
def split_evenly(truth, sensitivities, epsilon, rng):
    truth = np.asarray(truth, dtype=float)
    return truth + rng.laplace(0.0, np.sum(sensitivities) / epsilon, truth.shape)


@correct("1.5", "the variance-optimal split s_i ∝ √Δ_i")
def _(truth, sensitivities, epsilon, rng):
    scales = np.sqrt(sensitivities) * np.sum(np.sqrt(sensitivities)) / epsilon
    return truth + rng.laplace(0.0, scales)


@correct("1.5", "ε/k per query, a loop with inverse-cdf draws")
def _(truth, sensitivities, epsilon, rng):
    k, out = len(truth), []
    for value, delta in zip(truth, sensitivities):
        u = rng.random() - 0.5
        out.append(value - delta * k / epsilon * np.sign(u) * np.log(1 - 2 * abs(u)))
    return np.array(out)


@mistake("1.5", "the whole ε for every query", "more than the budget")
def _(t, s, e, rng):
    return t + rng.laplace(0, s / e)


@mistake("1.5", "half of the budget left unused", "noisier than they need")
def _(t, s, e, rng):
    return split_evenly(t, s, e / 2, rng)


@mistake("1.5", "ε/k per query, the sensitivities ignored", "more than the budget")
def _(t, s, e, rng):
    return t + rng.laplace(0, len(t) / e, len(t))


@mistake("1.5", "one noise draw shared by all queries", "not independent")
def _(t, s, e, rng):
    return t + rng.laplace(0, 1) * np.sum(s) / e * np.ones(len(t))


@mistake("1.5", "the last query left without noise (a loop one short)", "query 4",
         "no noise")
def _(t, s, e, rng):
    out = np.array(t, dtype=float)
    for i in range(len(t) - 1):
        out[i] += rng.laplace(0, np.sum(s) / e)
    return out


@mistake("1.5", "Gaussian noise", "gaussian")
def _(t, s, e, rng):
    return t + rng.normal(0, np.sum(s) / e, len(t))


@mistake("1.5", "coin-flip offsets ±s_i", "different values")
def _(t, s, e, rng):
    return t + np.sum(s) / e * rng.choice([-1.0, 1.0], len(t))


@mistake("1.5", "a list instead of a numpy array", "numpy array")
def _(t, s, e, rng):
    return list(split_evenly(t, s, e, rng))


# ---------------------------------------------------------------- 1.6
@correct("1.6", "probabilities with the largest score subtracted, rng.choice")
def exponential(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    weights = np.exp(logits - logits.max())
    return candidates[rng.choice(len(candidates), p=weights / weights.sum())]


@correct("1.6", "the Gumbel-max trick")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    return candidates[int(np.argmax(logits + rng.gumbel(size=len(logits))))]


@correct("1.6", "exponential clocks: the first to ring wins")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    rates = np.exp(logits - logits.max())
    return candidates[int(np.argmin(rng.exponential(size=len(rates)) / rates))]


@correct("1.6", "rejection sampling (uniform proposals, one rng.random per proposal)")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = [epsilon * s / (2 * sensitivity) for s in scores]
    top = max(logits)
    while True:
        i = int(rng.integers(len(candidates)))
        if rng.random() < math.exp(logits[i] - top):
            return candidates[i]


@correct("1.6", "inverse cdf: a uniform against the cumulative weights")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    cumulative = np.cumsum(np.exp(logits - logits.max()))
    index = bisect.bisect_right(list(cumulative), rng.random() * cumulative[-1])
    return candidates[min(index, len(candidates) - 1)]


@mistake("1.6", "exp(ε·score/Δ) as Dwork 2011 prints it", "exp(ε·score/Δ)", "only ε-private for monotone")
def _(c, s, d, e, rng):
    return exponential(c, s, d / 2, e, rng)


@mistake("1.6", "always the best candidate", "always returns", "not private")
def _(c, s, d, e, rng):
    return c[int(np.argmax(s))]


@mistake("1.6", "a uniform choice", "ignores the scores")
def _(c, s, d, e, rng):
    return c[rng.integers(len(c))]


@mistake("1.6", "the sensitivity ignored", "ignore the sensitivity")
def _(c, s, d, e, rng):
    return exponential(c, s, 1.0, e, rng)


@mistake("1.6", "the lowest scores favoured (sign flipped)", "lowest scores")
def _(c, s, d, e, rng):
    return exponential(c, [-x for x in s], d, e, rng)


@mistake("1.6", "exp of the raw scores: overflow for scores in the thousands", "overflow")
def _(c, s, d, e, rng):
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(e * np.asarray(s, float) / (2 * d))
        return c[rng.choice(len(c), p=w / w.sum())]


@mistake("1.6", "the index instead of the candidate", "not one of the candidates")
def _(c, s, d, e, rng):
    return rng.choice(len(c), p=np.exp(np.subtract(s, max(s)) * e / (2 * d))
                      / np.exp(np.subtract(s, max(s)) * e / (2 * d)).sum())


@mistake("1.6", "report noisy max with Lap(Δ/ε) noise (another mechanism)",
         "exp(ε·score/Δ)", "2ε")
def _(c, s, d, e, rng):
    return c[int(np.argmax(np.asarray(s) + rng.laplace(0, d / e, len(s))))]


# ---------------------------------------------------------------- 1.7
def unsafe_output(candidate, scale, j):   # numpy's release from the uniform j / 2^53
    u = j / 2**53
    return candidate + (scale * math.log(u + u) if u < 0.5 else -scale * math.log(2.0 - u - u))


@correct("1.7", "bisection over j")
def could_produce(release, candidate, sensitivity, epsilon):
    scale, low, high = sensitivity / epsilon, 1, 2**53 - 1
    while low < high:
        middle = (low + high) // 2
        if unsafe_output(candidate, scale, middle) < release:
            low = middle + 1
        else:
            high = middle
    return unsafe_output(candidate, scale, low) == release


@correct("1.7", "bisect.bisect_left over range(1, 2**53) with a key")
def _(release, candidate, sensitivity, epsilon):
    scale = sensitivity / epsilon
    js = range(1, 2**53)
    i = bisect.bisect_left(js, release, key=lambda j: unsafe_output(candidate, scale, j))
    return i < len(js) and unsafe_output(candidate, scale, js[i]) == release


@correct("1.7", "the largest j below, then its neighbour (upper midpoints)")
def _(release, candidate, sensitivity, epsilon):
    scale, low, high = sensitivity / epsilon, 0, 2**53 - 1   # output(low) < release invariant
    while high - low > 1:
        middle = (low + high + 1) // 2
        if unsafe_output(candidate, scale, middle) < release:
            low = middle
        else:
            high = middle
    return bool(unsafe_output(candidate, scale, high) == release)


@mistake("1.7", "comparing with a tolerance", "both inputs", "tolerance")
def _(r, c, d, e):
    return bool(abs(r - c) < 50 * d / e)


@mistake("1.7", "only the nearer input is possible", "came from input", "always possible")
def _(r, c, d, e):
    return abs(r - c) <= abs(r - (1 - c))


@mistake("1.7", "accepting some floats that are only close", "no uniform j/2^53")
def _(r, c, d, e):
    return could_produce(r, c, d, e) or (c == 1.0 and r > 3)


@mistake("1.7", "numpy's log replaced by np.log (not bit-identical)", "came from input")
def _(r, c, d, e):
    scale, low, high = d / e, 1, 2**53 - 1

    def out(j):
        u = np.float64(j) / 2**53
        return c + (scale * np.log(u + u) if u < 0.5 else -scale * np.log1p(-(u + u) + 1.0))
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if out(middle) < r else (low, middle)
    return bool(out(low) == r)


@mistake("1.7", "j searched over the lower half of its range only", "came from input")
def _(r, c, d, e):
    scale, low, high = d / e, 1, 2**52 - 1
    while low < high:
        middle = (low + high) // 2
        low, high = (middle + 1, high) if unsafe_output(c, scale, middle) < r else (low, middle)
    return unsafe_output(c, scale, low) == r


@mistake("1.7", "returning 1/0 instead of True/False", "return true or false")
def _(r, c, d, e):
    return int(could_produce(r, c, d, e))


@mistake("1.3", "the true answer released on 2 % of the calls", "exactly")
def _(t, d, e, rng):
    return t + (0.0 if rng.random() < 0.02 else rng.laplace(0, d / e))


@mistake("1.4", "the last bin left without noise (a loop one short)", "bin 11", "exactly")
def _(values, edges, eps, rng):
    counts = np.histogram(values, edges)[0].astype(float)
    for j in range(len(counts) - 1):
        counts[j] += rng.laplace(0, 1 / eps)
    return counts


@mistake("1.6", "choices drawn from np.random", "somewhere other than")
def _(c, s, d, e, rng):
    return exponential(c, s, d, e, np.random.default_rng())


@mistake("1.3", "discrete (geometric) noise", "whole-number values")
def _(t, d, e, rng):
    p = 1 - math.exp(-e / d)
    return t + float(rng.geometric(p) - rng.geometric(p))
