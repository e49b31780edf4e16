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


@mistake("1.4", "np.digitize − 1 and bincount: values below the first edge crash it",
         "no negative elements")
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


# ---------------------------------------------------------------- from the red team's run
@mistake("1.1", "the mask one entry short, the last row always counted", "last row",
         "one entry for every")
def _(count, n, target):
    others = [i != target for i in range(n - 1)] + [True]
    return count([True] * n) - count(others)


@mistake("1.1", "target 0 taken for 'no target' (if target:)", "target = 0", "no target")
def _(count, n, target):
    everyone = np.ones(n, bool)
    others = everyone.copy()
    if target:
        others[target] = False
    return count(everyone) - count(others)


@mistake("1.1", "answers kept in a cache per (n, target) between calls", "cache")
def _(count, n, target, _cache={}):
    if (n, target) not in _cache:
        _cache[n, target] = reveal(count, n, target)
    return _cache[n, target]


@mistake("1.1", "reading the database's bits (count.bits) instead of asking", "no attribute")
def _(count, n, target):
    count(np.ones(n, bool))
    return int(count.bits[target])


@correct("1.1", "uint8 masks: all ones minus a row of the identity")
def _(count, n, target):
    return count(np.ones(n, dtype=np.uint8)) - count(1 - np.eye(n, dtype=np.uint8)[target])


@correct("1.1", "a half with and without the target, its complement when too small")
def _(count, n, target):
    half = np.zeros(n, bool)
    half[: (n + 1) // 2 + 1] = True
    half[target] = True
    with_target = count(half)
    half[target] = False
    if half.sum() >= n / 2:
        return with_target - count(half)
    other = ~half
    with_target = count(other)
    other[target] = False
    return with_target - count(other)


@mistake("1.2", "bit counts: min(k, 2) (only two counts thought to move)", "can move all")
def _(max_age, k):
    return {**sensitivities(max_age, k), "bit_counts": min(k, 2)}


@correct("1.2", "numpy 0-d arrays")
def _(max_age, k):
    return {q: np.array(v) for q, v in sensitivities(max_age, k).items()}


@correct("1.2", "numpy values computed, and an extra key")
def _(max_age, k):
    return {"count": np.int64(1), "sum_of_ages": np.max(np.arange(max_age + 1)),
            "histogram": np.eye(max_age // 10 + 1)[0].sum(), "and_count": 1.0,
            "bit_counts": np.ones(k).sum(), "note": "L1"}


@mistake("1.3", "noise clipped at ±4 scales", "clipped", "not ε-dp")
def _(t, d, e, rng):
    s = d / e
    return t + float(np.clip(rng.laplace(0, s), -4 * s, 4 * s))


@mistake("1.3", "noise clipped at ±5 scales", "clipped")
def _(t, d, e, rng):
    s = d / e
    return t + float(np.clip(rng.laplace(0, s), -5 * s, 5 * s))


@mistake("1.3", "a tiny scale (1e-9) on 5 % of the calls", "within 0.001 scales", "no privacy")
def _(t, d, e, rng):
    return t + rng.laplace(0, d / e * (1e-9 if rng.random() < 0.05 else 1.0))


@mistake("1.3", "a scale that grows with the answer: max(Δ, |x|/100)/ε", "depends on the data")
def _(t, d, e, rng):
    return t + rng.laplace(0, max(d, abs(t) / 100) / e)


@mistake("1.3", "less noise for large answers: Δ/ε/(1 + |x|/10⁴)", "depends on the data")
def _(t, d, e, rng):
    return t + rng.laplace(0, d / e / (1 + abs(t) / 1e4))


@mistake("1.3", "large answers (1,000 and more) released exactly", "no noise was added")
def _(t, d, e, rng):
    return float(t) if abs(t) >= 1000 else t + rng.laplace(0, d / e)


@mistake("1.3", "the release computed in float32", "float32")
def _(t, d, e, rng):
    return np.float32(t) + np.float32(rng.laplace(0, d / e))


@mistake("1.3", "logistic noise of scale Δ/ε", "does not follow the laplace law")
def _(t, d, e, rng):
    return t + rng.logistic(0, d / e)


@correct("1.3", "a child generator seeded from rng")
def _(true_answer, sensitivity, epsilon, rng):
    child = np.random.default_rng(rng.integers(2**63))
    return float(true_answer + child.laplace(scale=sensitivity / epsilon))


@correct("1.3", "the log-ratio of two uniforms")
def _(true_answer, sensitivity, epsilon, rng):
    u, v = rng.random(2)
    return true_answer + sensitivity / epsilon * math.log((1 - u) / (1 - v))


@correct("1.3", "an exponential times a sign from rng.choice, drawn second")
def _(true_answer, sensitivity, epsilon, rng):
    e = rng.exponential(sensitivity / epsilon)
    return true_answer + e * rng.choice([-1.0, 1.0])


@correct("1.3", "a 0-d numpy array")
def _(true_answer, sensitivity, epsilon, rng):
    return np.asarray(true_answer) + rng.laplace(0, sensitivity / epsilon, size=())


@correct("1.3", "float-safe: discrete Laplace noise on a grid of 2^-12 of the scale")
def _(true_answer, sensitivity, epsilon, rng):
    scale = sensitivity / epsilon            # the library's way (Mironov 2012), by hand:
    step = 2.0 ** (math.floor(math.log2(scale)) - 12)   # values and noise on one grid
    p = 1 - math.exp(-step / scale)          # two geometric draws: Lap(scale) on the grid
    z = int(rng.geometric(p)) - int(rng.geometric(p))
    return (round(true_answer / step) + z) * step


@mistake("1.3", "the release rounded to 2 decimals", "rounded")
def _(t, d, e, rng):
    return round(t + rng.laplace(0, d / e), 2)


@mistake("1.4", "values outside the range counted in the edge bins (digitize and clip)",
         "outside the range")
def _(values, bin_edges, epsilon, rng):
    k = len(bin_edges) - 1
    idx = np.clip(np.digitize(values, bin_edges) - 1, 0, k - 1)
    return np.bincount(idx, minlength=k) + rng.laplace(0, 1 / epsilon, k)


@mistake("1.4", "bins closed on the right (a value on an edge goes left)", "to its left")
def _(values, bin_edges, epsilon, rng):
    k = len(bin_edges) - 1
    idx = np.searchsorted(bin_edges, values, side="left") - 1
    counts = np.bincount(idx[(idx >= 0) & (idx < k)], minlength=k)
    return counts + rng.laplace(0, 1 / epsilon, k)


@mistake("1.4", "the values rounded before binning", "rounded before")
def _(values, bin_edges, epsilon, rng):
    counts = np.histogram(np.round(values), bin_edges)[0]
    return counts + rng.laplace(0, 1 / epsilon, counts.shape)


@mistake("1.4", "noise re-centred to sum 0 (the total released exactly)", "re-centred",
         "total")
def _(values, bin_edges, epsilon, rng):
    counts = np.histogram(values, bin_edges)[0]
    noise = rng.laplace(0, 1 / epsilon, counts.shape)
    return counts + noise - noise.mean()


@mistake("1.4", "noisy counts clipped at −1", "clipped")
def _(values, bin_edges, epsilon, rng):
    return np.maximum(private_histogram(values, bin_edges, epsilon, rng), -1.0)


@mistake("1.4", "half the noise in bins of 100 values or more", "depends on the counts")
def _(values, bin_edges, epsilon, rng):
    counts = np.histogram(values, bin_edges)[0]
    return counts + rng.laplace(0, np.where(counts >= 100, 0.5, 1.0) / epsilon)


@mistake("1.4", "0.85 of the noise in bins of 50 values or more", "depends on the counts")
def _(values, bin_edges, epsilon, rng):
    counts = np.histogram(values, bin_edges)[0]
    return counts + rng.laplace(0, np.where(counts >= 50, 0.85, 1.0) / epsilon)


@mistake("1.4", "the values sorted in place", "changed its argument `values`")
def _(values, bin_edges, epsilon, rng):
    values.sort()
    return private_histogram(values, bin_edges, epsilon, rng)


@correct("1.4", "searchsorted and bincount, a loop of exponential differences")
def _(values, bin_edges, epsilon, rng):
    values, edges = np.asarray(values), np.asarray(bin_edges)
    k = len(edges) - 1
    idx = np.searchsorted(edges, values, side="right") - 1
    idx[values == edges[-1]] = k - 1
    counts = np.bincount(idx[(idx >= 0) & (idx < k)], minlength=k).astype(float)
    for j in range(k):
        counts[j] += rng.exponential(1 / epsilon) - rng.exponential(1 / epsilon)
    return counts


@correct("1.4", "a matrix of comparisons, noise drawn first by the inverse cdf")
def _(values, bin_edges, epsilon, rng):
    edges = np.asarray(bin_edges, float)
    k = len(edges) - 1
    u = rng.uniform(-0.5, 0.5, k)
    noise = -np.sign(u) * np.log(1 - 2 * np.abs(u)) / epsilon
    v = np.asarray(values)[:, None]
    inside = (v >= edges[None, :-1]) & (v < edges[None, 1:])
    inside[:, -1] |= v[:, 0] == edges[-1]
    return inside.sum(axis=0) + noise


@mistake("1.5", "the budget split by the true answers (ε_i ∝ 1/|a_i|)", "depends on the data")
def _(t, s, e, rng):
    a = np.asarray(t, float)
    share = (1 / np.abs(a)) / np.sum(1 / np.abs(a))
    return a + rng.laplace(0, np.asarray(s) / (share * e))


@mistake("1.5", "the noises re-centred to sum 0", "not independent")
def _(t, s, e, rng):
    noise = rng.laplace(0, np.sum(s) / e, len(t))
    return np.asarray(t, float) + noise - noise.mean()


@mistake("1.5", "the noise added into true_answers in place", "changed its argument")
def _(t, s, e, rng):
    t += rng.laplace(0, np.sum(s) / e, len(t))
    return t


@mistake("1.5", "every query nearly exact on 3 % of the calls", "only sometimes")
def _(t, s, e, rng):
    scale = np.sum(s) / e * (1e-9 if rng.random() < 0.03 else 1.0)
    return np.asarray(t, float) + rng.laplace(0, scale, len(t))


@correct("1.5", "scales ∝ Δ_i^(2/3), costs summing to ε")
def _(truth, sensitivities, epsilon, rng):
    d = np.asarray(sensitivities, float)
    w = d ** (2 / 3)
    return np.asarray(truth, float) + rng.laplace(0, w * np.sum(d / w) / epsilon)


@correct("1.5", "a loop backwards, differences of exponentials")
def _(truth, sensitivities, epsilon, rng):
    out = np.empty(len(truth))
    scale = float(sum(sensitivities)) / epsilon
    for i in reversed(range(len(truth))):
        out[i] = truth[i] + rng.exponential(scale) - rng.exponential(scale)
    return out


@mistake("1.6", "report noisy max with one-sided exponential noise (another law)",
         "frequencies")
def _(candidates, scores, sensitivity, epsilon, rng):
    s = np.asarray(scores, float)
    return candidates[int(np.argmax(s + rng.exponential(2 * sensitivity / epsilon, len(s))))]


@mistake("1.6", "ε·score/2·Δ (a precedence slip)", "frequencies")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / 2 * sensitivity
    w = np.exp(logits - logits.max())
    return candidates[rng.choice(len(w), p=w / w.sum())]


@mistake("1.6", "weights linear in the score", "frequencies")
def _(candidates, scores, sensitivity, epsilon, rng):
    s = np.asarray(scores, float)
    w = (s - s.min() + 1) ** (epsilon / (2 * sensitivity))
    return candidates[rng.choice(len(w), p=w / w.sum())]


@mistake("1.6", "the smallest score taken out (overflow for scores far apart)", "thousands")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    with np.errstate(over="ignore", invalid="ignore"):
        w = np.exp(logits - logits.min())
        return candidates[rng.choice(len(w), p=w / w.sum())]


@mistake("1.6", "the chosen candidate popped from the caller's list",
         "changed its argument `candidates`")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    w = np.exp(logits - logits.max())
    return candidates.pop(rng.choice(len(candidates), p=w / w.sum()))


@mistake("1.6", "the scores sorted in place", "changed its argument `scores`")
def _(candidates, scores, sensitivity, epsilon, rng):
    pick = exponential(candidates, scores, sensitivity, epsilon, rng)
    scores.sort()
    return pick


@correct("1.6", "scipy's softmax and rng.choice")
def _(candidates, scores, sensitivity, epsilon, rng):
    from scipy.special import softmax
    p = softmax(epsilon * np.asarray(scores, float) / (2 * sensitivity))
    return candidates[int(rng.choice(len(candidates), p=p))]


@correct("1.6", "Gumbel noise from -log(-log U), a Python loop")
def _(candidates, scores, sensitivity, epsilon, rng):
    best, pick = -math.inf, None
    for c, s in zip(candidates, scores):
        g = epsilon * s / (2 * sensitivity) - math.log(-math.log(rng.random()))
        if g > best:
            best, pick = g, c
    return pick


@correct("1.6", "rng.choice over an object array, a numpy scalar back")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    w = np.exp(logits - np.logaddexp.reduce(logits))
    return rng.choice(np.array(candidates, dtype=object), p=w / w.sum())


@correct("1.6", "sequential coins: P(i | none before)")
def _(candidates, scores, sensitivity, epsilon, rng):
    logits = epsilon * np.asarray(scores, float) / (2 * sensitivity)
    w = np.exp(logits - logits.max())
    rest = w.sum()
    for i in range(len(w) - 1):
        if rng.random() * rest < w[i]:
            return candidates[i]
        rest -= w[i]
    return candidates[-1]


def _released(k, candidate, scale, upper):
    """numpy's Laplace release for the uniform k/2^53, the upper branch written `upper`."""
    u = k / 2**53
    if u < 0.5:
        return candidate + scale * math.log(u + u)
    return candidate - scale * math.log(upper(u))


def _bisected(release, candidate, scale, upper, target=None):
    low, high = 1, 2**53 - 1
    target = release if target is None else target
    while low < high:
        m = (low + high) // 2
        if _released(m, candidate if target is release else 0.0, scale, upper) < target:
            low = m + 1
        else:
            high = m
    return _released(low, candidate if target is release else 0.0, scale, upper) == target


@mistake("1.7", "2·(1 − u) for numpy's 2.0 − u − u", "differs from numpy")
def _(release, candidate, sensitivity, epsilon):
    return _bisected(release, candidate, sensitivity / epsilon, lambda u: 2 * (1 - u))


@mistake("1.7", "the noise (release − candidate) searched instead of the release",
         "differs from numpy")
def _(release, candidate, sensitivity, epsilon):
    return _bisected(release, candidate, sensitivity / epsilon, lambda u: 2.0 - u - u,
                     target=release - candidate)


@mistake("1.7", "the inverse cdf's j rounded and checked alone", "misses some j")
def _(release, candidate, sensitivity, epsilon):
    scale = sensitivity / epsilon
    z = (release - candidate) / scale
    u = math.exp(z) / 2 if z < 0 else 1 - math.exp(-z) / 2
    k = round(u * 2**53)
    return 1 <= k < 2**53 and _released(k, candidate, scale, lambda u: 2.0 - u - u) == release


@correct("1.7", "the inverse cdf, then a scan of j ± 64")
def _(release, candidate, sensitivity, epsilon):
    scale = sensitivity / epsilon
    z = (release - candidate) / scale
    u = math.exp(z) / 2 if z < 0 else 1 - math.exp(-z) / 2
    k0 = round(u * 2**53)
    return any(_released(k, candidate, scale, lambda u: 2.0 - u - u) == release
               for k in range(max(1, k0 - 64), min(2**53 - 1, k0 + 64) + 1))
