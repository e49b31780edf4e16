"""Module 04's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
import math

import numpy as np

from checker_testing import Table
from panpriv_teach.counters import tree_nodes

table = Table("continual_counting")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 4.1
@correct("4.1", "a cumulative sum of x + noise")
def simple_counter(stream, epsilon, rng):
    stream = np.asarray(stream)
    return np.cumsum(stream + rng.laplace(0.0, 1.0 / epsilon, len(stream)))


@correct("4.1", "a loop with a running total, one draw per step")
def _(stream, epsilon, rng):
    total, out = 0.0, []
    for x in stream:
        total += x + rng.laplace(0, 1 / epsilon)
        out.append(total)
    return np.array(out)


@correct("4.1", "all the noise first, as differences of exponentials")
def _(stream, epsilon, rng):
    T = len(stream)
    noise = rng.exponential(1 / epsilon, T) - rng.exponential(1 / epsilon, T)
    return np.add.accumulate(noise) + np.cumsum(stream)


@mistake("4.1", "noise only where x_t = 1", "only at the steps where x_t = 1")
def _(stream, e, rng):
    noise = rng.laplace(0, 1 / e, len(stream)) * (np.asarray(stream) == 1)
    return np.cumsum(stream + noise)


@mistake("4.1", "one noise draw for the whole stream", "drawn once")
def _(stream, e, rng):
    return np.cumsum(stream) + rng.laplace(0, 1 / e)


@mistake("4.1", "fresh noise around the exact count at each step", "fresh noise around")
def _(stream, e, rng):
    return np.cumsum(stream) + rng.laplace(0, 1 / e, len(stream))


@mistake("4.1", "the events left out (pure noise)", "pure noise")
def _(stream, e, rng):
    return np.cumsum(rng.laplace(0, 1 / e, len(stream)))


@mistake("4.1", "Gaussian noise", "gaussian")
def _(stream, e, rng):
    return np.cumsum(stream + rng.normal(0, math.sqrt(2) / e, len(stream)))


@mistake("4.1", "scale ε instead of 1/ε", "scale ε")
def _(stream, e, rng):
    return np.cumsum(stream + rng.laplace(0, e, len(stream)))


@mistake("4.1", "scale 2/ε", "scale 2/ε")
def _(stream, e, rng):
    return np.cumsum(stream + rng.laplace(0, 2 / e, len(stream)))


@mistake("4.1", "one noise per pair of steps (the same draw twice)", "not independent")
def _(stream, e, rng):
    noise = np.repeat(rng.laplace(0, 1 / e, (len(stream) + 1) // 2), 2)[:len(stream)]
    return np.cumsum(stream + noise)


@mistake("4.1", "noise with mean 0.5", "not centred")
def _(stream, e, rng):
    return np.cumsum(stream + rng.laplace(0.5, 1 / e, len(stream)))


@mistake("4.1", "one release short", "shape")
def _(stream, e, rng):
    return simple_counter(stream, e, rng)[:-1]


@mistake("4.1", "the stream overwritten with the noisy steps", "in place")
def _(stream, e, rng):
    stream += np.round(rng.laplace(0, 1 / e, len(stream))).astype(stream.dtype)
    return np.cumsum(stream + rng.laplace(0, 1 / e, len(stream)))


# ---------------------------------------------------------------- 4.2
@correct("4.2", "one node per 1-bit of t, from the highest")
def dyadic_intervals(t, T):
    L = max(1, (T - 1).bit_length())
    if t == 2**L:
        return [(1, t // 2), (t // 2 + 1, t)]
    nodes, start = [], 1
    for j in range(L - 1, -1, -1):
        if t >> j & 1:
            nodes.append((start, start + 2**j - 1))
            start += 2**j
    return nodes


@correct("4.2", "from the end: peel off the lowest set bit")
def _(t, T):
    L = max(1, (T - 1).bit_length())
    if t == 2**L:
        return [(1, t // 2), (t // 2 + 1, t)]
    nodes, end = [], t
    while end > 0:
        size = end & -end
        nodes.append((end - size + 1, end))
        end -= size
    return nodes[::-1]


@correct("4.2", "recursive descent from the root's children")
def _(t, T):
    L = max(1, (T - 1).bit_length())

    def cover(s, e):       # the nodes of [s, e] ∩ [1, t], node [s, e] of the tree
        if s > t:
            return []
        if e <= t and e - s + 1 < 2**L:
            return [[s, e]]
        middle = (s + e) // 2
        return cover(s, middle) + cover(middle + 1, e)
    return cover(1, 2**L)


@correct("4.2", "smallest node first")
def _(t, T):
    return sorted(dyadic_intervals(t, T), key=lambda node: node[1] - node[0])


@mistake("4.2", "the root used at t = T = 2^L", "used the root")
def _(t, T):
    if t == T and T & (T - 1) == 0 and T > 1:
        return [(1, T)]
    return dyadic_intervals(t, T)


@mistake("4.2", "0-based intervals", "do not cover")
def _(t, T):
    return [(s - 1, e - 1) for s, e in dyadic_intervals(t, T)]


@mistake("4.2", "every leaf on its own", "fewer")
def _(t, T):
    return [(i, i) for i in range(1, t + 1)]


@mistake("4.2", "pieces taken from the lowest bit first, from step 1", "not a node")
def _(t, T):
    L = max(1, (T - 1).bit_length())
    if t == 2**L:
        return [(1, t // 2), (t // 2 + 1, t)]
    nodes, start = [], 1
    for j in range(L):
        if t >> j & 1:
            nodes.append((start, start + 2**j - 1))
            start += 2**j
    return nodes


@mistake("4.2", "L from floor(log2 T)", "fewer")
def _(t, T):
    L = max(1, int(math.log2(T)))
    if t == 2**L:
        return [(1, t // 2), (t // 2 + 1, t)]
    return dyadic_intervals(t, T)


@mistake("4.2", "the ends computed with / (floats)", "not floats")
def _(t, T):
    return [(s / 1, e / 1) for s, e in dyadic_intervals(t, T)]


@mistake("4.2", "the last piece forgotten", "do not cover")
def _(t, T):
    nodes = dyadic_intervals(t, T)
    return nodes[:-1] if len(nodes) > 1 else nodes


# ---------------------------------------------------------------- 4.3
@correct("4.3", "counting the nodes that contain each step")
def cum_noise_scale(T, epsilon):
    nodes = tree_nodes(T)
    return max(sum(s <= i <= e for s, e in nodes) for i in range(1, T + 1)) / epsilon


@correct("4.3", "bit_length")
def _(T, epsilon):
    return max(1, (T - 1).bit_length()) / epsilon


@correct("4.3", "ceil(log2 T), at least 1")
def _(T, epsilon):
    return max(1, math.ceil(math.log2(T))) / epsilon


@mistake("4.3", "the root counted", "counted the root")
def _(T, e):
    return (max(1, (T - 1).bit_length()) + 1) / e


@mistake("4.3", "log2 T, not a whole number", "not a whole number", "privacy")
def _(T, e):
    return math.log2(T) / e


@mistake("4.3", "floor(log2 T)", "rounded log2(t) down")
def _(T, e):
    return max(1, math.floor(math.log2(T))) / e


@mistake("4.3", "one node per step", "not in one node only")
def _(T, e):
    return 1 / e


@mistake("4.3", "multiplied by ε", "multiplied by ε")
def _(T, e):
    return max(1, (T - 1).bit_length()) * e


# ---------------------------------------------------------------- 4.4
@correct("4.4", "2(L/ε)² times the number of nodes")
def cum_variance(t, T, epsilon):
    L = max(1, (T - 1).bit_length())
    nodes = 2 if t == 2**L else bin(t).count("1")
    return 2 * (L / epsilon) ** 2 * nodes


@correct("4.4", "a loop over the dyadic pieces")
def _(t, T, epsilon):
    s = max(1, (T - 1).bit_length()) / epsilon
    return sum(2 * s * s for _ in dyadic_intervals(t, T))


@correct("4.4", "popcount by shifting, the variance of Lap(s) as 2s²")
def _(t, T, epsilon):
    L = max(1, math.ceil(math.log2(T)))
    count, x = 0, t
    while x:
        count, x = count + (x & 1), x >> 1
    if t == 2**L:
        count = 2
    variance_per_node = 2 * (L / epsilon) ** 2
    return count * variance_per_node


@mistake("4.4", "the variance of Lap(s) taken as s²", "half of it")
def _(t, T, e):
    return cum_variance(t, T, e) / 2


@mistake("4.4", "the root at t = T", "the root, which cum never noises")
def _(t, T, e):
    L = max(1, (T - 1).bit_length())
    return 2 * (L / e) ** 2 * bin(t).count("1")


@mistake("4.4", "L nodes for every t", "not one node per level")
def _(t, T, e):
    L = max(1, (T - 1).bit_length())
    return 2 * (L / e) ** 2 * L


@mistake("4.4", "the standard deviation", "standard deviation")
def _(t, T, e):
    return math.sqrt(cum_variance(t, T, e))


@mistake("4.4", "log2 T as the number of levels", "log2 t")
def _(t, T, e):
    L = max(1, (T - 1).bit_length())
    nodes = 2 if t == 2**L else bin(t).count("1")
    return 2 * (math.log2(T) / e) ** 2 * nodes


@mistake("4.4", "s² and the root together", "half of it", "root")
def _(t, T, e):
    L = max(1, (T - 1).bit_length())
    return (L / e) ** 2 * bin(t).count("1")


# ---------------------------------------------------------------- 4.5
@correct("4.5", "balancing flush noise against waiting ones (ℓ⁶ ∝ T³/(ε'⁸n²))")
def choose_ell(T, n_ones, epsilon):
    eps = epsilon / 3
    return (12288 * T**3 / (eps**8 * n_ones**2)) ** (1 / 6)


@correct("4.5", "the power of two nearest the balance")
def _(T, n_ones, epsilon):
    return 2.0 ** round(math.log2(choose_ell(T, n_ones, epsilon)))


@correct("4.5", "the balance solved numerically (bisection on ℓ)")
def _(T, n_ones, epsilon):
    eps = epsilon / 3
    low, high = 1.0, 1e6     # where noise variance 32T/(ℓ²ε'⁴) meets (n/T)²(ℓε'/4)⁴/3 × 2
    for _ in range(200):
        ell = math.sqrt(low * high)
        noise = 32 * T / (ell**2 * eps**4)
        lag = (n_ones / T) ** 2 * (ell * eps / 4) ** 4 / 3
        low, high = (ell, high) if noise > 2 * lag else (low, ell)
    return ell


@mistake("4.5", "ℓ far too small", "too small")
def _(T, n, e):
    return 100.0


@mistake("4.5", "ℓ = T (the buffer never flushes)", "too large")
def _(T, n, e):
    return float(T) * 10


@mistake("4.5", "a negative ℓ", "positive")
def _(T, n, e):
    return -100.0


@mistake("4.5", "ε used for ε' in the balance", "too small")
def _(T, n, e):
    return (12288 * T**3 / (e**8 * n**2)) ** (1 / 6)


@mistake("4.5", "a constant ℓ that suits one stream only", "too small")
def _(T, n, e):
    return 330.0


# ---------------------------------------------------------------- 4.6
@correct("4.6", "2(cumsum − t/2)/b")
def rr_estimates(reports, bias):
    reports = np.asarray(reports)
    return 2 * (np.cumsum(reports) - np.arange(1, len(reports) + 1) / 2) / bias


@correct("4.6", "a loop with a running sum")
def _(reports, bias):
    total, out = 0, []
    for t, y in enumerate(reports, start=1):
        total += y
        out.append((2 * total - t) / bias)
    return np.array(out, dtype=float)


@correct("4.6", "the centred reports, accumulated")
def _(reports, bias):
    return np.add.accumulate((np.asarray(reports, dtype=float) - 0.5) * (2 / bias))


@mistake("4.6", "the t/2 chance ones not taken out", "chance ones")
def _(r, b):
    return 2 * np.cumsum(r) / b


@mistake("4.6", "scaled by 1/b instead of 2/b", "half the count")
def _(r, b):
    return (np.cumsum(r) - np.arange(1, len(r) + 1) / 2) / b


@mistake("4.6", "not rescaled at all", "not scaled")
def _(r, b):
    return np.cumsum(r) - np.arange(1, len(r) + 1) / 2


@mistake("4.6", "per-step estimates, not running counts", "each x_t")
def _(r, b):
    return 2 * (np.asarray(r) - 0.5) / b


@mistake("4.6", "t counted from 0", "one step behind")
def _(r, b):
    return 2 * (np.cumsum(r) - np.arange(len(r)) / 2) / b


@mistake("4.6", "the sign flipped", "wrong sign")
def _(r, b):
    return -rr_estimates(r, b)


@mistake("4.6", "the reports recentred in place", "in place")
def _(r, b):
    r -= 1
    return 2 * (np.cumsum(r + 1) - np.arange(1, len(r) + 1) / 2) / b


@mistake("4.1", "no noise at the first step (a loop from 1)", "at step 1", "no noise")
def _(stream, e, rng):
    noise = rng.laplace(0, 1 / e, len(stream))
    noise[0] = 0.0
    return np.cumsum(stream + noise)


# ---------------------------------------------------------------- from the red team's run
@mistake("4.1", "less noise (0.8/ε) where x_t = 0", "depends on the data")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    return np.cumsum(s + rng.laplace(0, np.where(s == 1, 1.0, 0.8) / epsilon))


@mistake("4.1", "half the noise vector used twice (np.tile)", "not independent")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    z = rng.laplace(0, 1 / epsilon, (len(s) + 1) // 2)
    return np.cumsum(s + np.tile(z, 2)[:len(s)])


@mistake("4.1", "the count one step late (release t counts x_1 .. x_(t−1))", "one step late")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    return np.cumsum(np.concatenate([[0], s[:-1]]) + rng.laplace(0, 1 / epsilon, len(s)))


@mistake("4.1", "scale 0.9/ε", "0.9", "less noise")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    return np.cumsum(s + rng.laplace(0, 0.9 / epsilon, len(s)))


@mistake("4.1", "a tiny scale on 4 % of the steps", "within 0.001 scales")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    return np.cumsum(s + rng.laplace(0, np.where(rng.random(len(s)) < 0.04, 1e-6, 1.0) / epsilon))


@mistake("4.1", "each step's noise clipped at ±4/ε", "clipped")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    return np.cumsum(s + np.clip(rng.laplace(0, 1 / epsilon, len(s)), -4 / epsilon, 4 / epsilon))


@mistake("4.1", "the noise sorted within a call", "not independent")
def _(stream, epsilon, rng):
    s = np.asarray(stream)
    return np.cumsum(s + np.sort(rng.laplace(0, 1 / epsilon, len(s))))


@correct("4.1", "built backwards: the total minus suffix sums")
def _(stream, epsilon, rng):
    s = np.asarray(stream, float)
    steps = s + rng.laplace(0, 1 / epsilon, len(s))
    return steps.sum() - np.concatenate([np.cumsum(steps[::-1])[::-1][1:], [0.0]])


@correct("4.1", "a lower-triangular matrix product, noise by the inverse cdf")
def _(stream, epsilon, rng):
    s = np.asarray(stream, float)
    u = rng.random(len(s)) - 0.5
    return np.tril(np.ones((len(s), len(s)))) @ (s - np.sign(u) * np.log(1 - 2 * np.abs(u)) / epsilon)


@mistake("4.2", "the root's children used at every power of two", "fewer")
def _(t, T):
    L = max(1, (T - 1).bit_length())
    if t & (t - 1) == 0 and t > 1:
        return [(1, t // 2), (t // 2 + 1, t)]
    out, start = [], 1
    for j in range(L - 1, -1, -1):
        if t >> j & 1:
            out.append((start, start + 2**j - 1))
            start += 2**j
    return out


@mistake("4.2", "L from T.bit_length() (one level too many)", "used the root")
def _(t, T):
    out, start = [], 1
    for j in range(T.bit_length() - 1, -1, -1):
        if t >> j & 1:
            out.append((start, start + 2**j - 1))
            start += 2**j
    return out


@correct("4.2", "greedy: the largest power of two that fits, numpy ints")
def _(t, T):
    L = max(1, (T - 1).bit_length())
    out, start, rest = [], 1, t
    while rest:
        size = 1 << (rest.bit_length() - 1)
        if size == 2**L:
            size //= 2
        out.append((np.int64(start), np.int64(start + size - 1)))
        start, rest = start + size, rest - size
    return out


@correct("4.2", "a tuple of tuples, recursing over the tree")
def _(t, T):
    L = max(1, (T - 1).bit_length())

    def go(s, e):
        if e <= t:
            return ((s, e),)
        mid = (s + e) // 2
        return go(s, mid) + (go(mid + 1, e) if mid < t else ())

    half = 2 ** (L - 1)
    return go(1, half) + (go(half + 1, 2**L) if t > half else ())


@mistake("4.3", "L = ceil(log2(T + 1))", "not right")
def _(T, epsilon):
    return math.ceil(math.log2(T + 1)) / epsilon


@mistake("4.3", "the most nodes over steps 1 .. T − 1 only", "not right")
def _(T, epsilon):
    nodes = tree_nodes(T)
    return max([sum(s <= i <= e for s, e in nodes) for i in range(1, T)] or [0]) / epsilon


@correct("4.3", "len(bin(T − 1)) − 2")
def _(T, epsilon):
    return (len(bin(T - 1)) - 2) / epsilon


@correct("4.3", "the nodes that contain step 1, numpy")
def _(T, epsilon):
    n = np.array(tree_nodes(T))
    return float(np.sum((n[:, 0] <= 1) & (1 <= n[:, 1]))) / epsilon


@mistake("4.4", "two nodes whenever t = T", "not right")
def _(t, T, epsilon):
    L = max(1, (T - 1).bit_length())
    return 2 * (L / epsilon) ** 2 * (2 if t == T and T > 1 else bin(t).count("1"))


@mistake("4.4", "L = ceil(log2 T), 0 for T = 1", "not right")
def _(t, T, epsilon):
    L = math.ceil(math.log2(T))
    return 2 * (L / epsilon) ** 2 * (2 if t == 2**L and L > 0 else bin(t).count("1"))


@mistake("4.4", "the pieces counted as floor(log2 t) + 1", "not right")
def _(t, T, epsilon):
    L = max(1, (T - 1).bit_length())
    return 2 * (L / epsilon) ** 2 * (2 if t == 2**L else int(math.log2(t)) + 1)


@correct("4.4", "popcount by int.bit_count")
def _(t, T, epsilon):
    L = max(1, (T - 1).bit_length())
    return (2 if t == 1 << L else t.bit_count()) * 2 * L * L / epsilon / epsilon


@mistake("4.5", "a constant ℓ = 300", "too small")
def _(T, n_ones, epsilon):
    return 300


@mistake("4.5", "a constant ℓ = 900", "too large")
def _(T, n_ones, epsilon):
    return 900


@mistake("4.5", "ℓ = 4√T/ε', the number of ones ignored", "too large")
def _(T, n_ones, epsilon):
    return 4 * math.sqrt(T) / (epsilon / 3)


@correct("4.5", "the balance as a numpy float")
def _(T, n_ones, epsilon):
    return np.float64(12288 * T**3 / ((epsilon / 3) ** 8 * n_ones**2)) ** (1 / 6)


@mistake("4.6", "the estimates clipped at 0", "not unbiased")
def _(reports, bias):
    r = np.asarray(reports)
    return np.maximum(2 * (np.cumsum(r) - np.arange(1, len(r) + 1) / 2) / bias, 0)


@mistake("4.6", "rounded to whole counts", "not unbiased")
def _(reports, bias):
    r = np.asarray(reports)
    return np.round(2 * (np.cumsum(r) - np.arange(1, len(r) + 1) / 2) / bias)


@mistake("4.6", "len(reports)/2 taken out at every step", "not unbiased")
def _(reports, bias):
    r = np.asarray(reports)
    return 2 * (np.cumsum(r) - len(r) / 2) / bias


@correct("4.6", "the cumulative sum of (2y − 1)/b")
def _(reports, bias):
    return np.cumsum(2 * np.asarray(reports) - 1) / bias
