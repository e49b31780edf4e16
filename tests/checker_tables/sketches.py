"""Module 06's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
import math
from fractions import Fraction

import numpy as np

from checker_testing import Table
from panpriv_teach.stable import stable_scale_factor

table = Table("sketches")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 6.1
@correct("6.1", "the CMS formula, tan V at p = 1")
def stable_sample(p, n, rng):
    v = rng.uniform(-np.pi / 2, np.pi / 2, n)
    w = rng.exponential(1.0, n)
    if p == 1:
        return np.tan(v)
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@correct("6.1", "the general formula for every p (its exponent is 0 at p = 1)")
def _(p, n, rng):
    w = rng.exponential(size=n)
    v = (rng.random(n) - 0.5) * np.pi
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@correct("6.1", "numpy's Cauchy and normal at p = 1 and 2, CMS in a loop otherwise")
def _(p, n, rng):
    if p == 1:
        return rng.standard_cauchy(n)
    if p == 2:
        return rng.normal(0, math.sqrt(2), n)
    out = np.empty(n)
    for i in range(n):
        v, w = rng.uniform(-math.pi / 2, math.pi / 2), rng.exponential()
        out[i] = (math.sin(p * v) / math.cos(v) ** (1 / p)
                  * (math.cos((1 - p) * v) / w) ** ((1 - p) / p))
    return out


@mistake("6.1", "N(0, 1) at p = 2", "n(0, 1)")
def _(p, n, rng):
    return rng.normal(size=n) if p == 2 else stable_sample(p, n, rng)


@mistake("6.1", "V uniform on (0, π/2) (one sign only)", "same sign", "symmetric")
def _(p, n, rng):
    v = rng.uniform(0, np.pi / 2, n)
    w = rng.exponential(1.0, n)
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@mistake("6.1", "the two exponents swapped", "exponents")
def _(p, n, rng):
    v = rng.uniform(-np.pi / 2, np.pi / 2, n)
    w = rng.exponential(1.0, n)
    if p == 1:
        return np.tan(v)
    return np.sin(p * v) / np.cos(v) ** ((1 - p) / p) * (np.cos((1 - p) * v) / w) ** (1 / p)


@mistake("6.1", "W uniform instead of exponential", "do not follow s(")
def _(p, n, rng):
    v = rng.uniform(-np.pi / 2, np.pi / 2, n)
    w = rng.uniform(0, 2, n)
    if p == 1:
        return np.tan(v)
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@mistake("6.1", "cos(V)^p instead of cos(V)^(1/p)", "do not follow s(")
def _(p, n, rng):
    v = rng.uniform(-np.pi / 2, np.pi / 2, n)
    w = rng.exponential(1.0, n)
    if p == 1:
        return np.tan(v)
    return np.sin(p * v) / np.cos(v) ** p * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@mistake("6.1", "draws from np.random", "somewhere other than")
def _(p, n, rng):
    return stable_sample(p, n, np.random.default_rng())


@mistake("6.1", "a list instead of a numpy array", "numpy array")
def _(p, n, rng):
    return list(stable_sample(p, n, rng))


# ---------------------------------------------------------------- 6.2
@correct("6.2", "median of |sk|^p over sf(p)")
def median_estimator(sketch, p):
    return float(np.median(np.abs(sketch) ** p) / stable_scale_factor(p))


@correct("6.2", "median of |sk|, then the power (a monotone map keeps the median)")
def _(sketch, p):
    return np.median(np.abs(sketch)) ** p / stable_scale_factor(p)


@correct("6.2", "the middle of the sorted values")
def _(sketch, p):
    values = np.sort(np.abs(sketch)) ** p
    return values[len(values) // 2] / stable_scale_factor(p)


@mistake("6.2", "multiplied by sf(p) as Alg 1 prints it", "as alg 1 prints it")
def _(sk, p):
    return float(np.median(np.abs(sk) ** p) * stable_scale_factor(p))


@mistake("6.2", "the scale factor left out", "not taken out")
def _(sk, p):
    return float(np.median(np.abs(sk) ** p))


@mistake("6.2", "the p-norm, not its p-th power", "p-norm")
def _(sk, p):
    return float(np.median(np.abs(sk)) / stable_scale_factor(p) ** (1 / p))


@mistake("6.2", "a mean instead of a median", "heavy")
def _(sk, p):
    return float(np.mean(np.abs(sk) ** p) / stable_scale_factor(p))


@mistake("6.2", "the signs kept (no absolute value)", "negative")
def _(sk, p):
    with np.errstate(invalid="ignore"):
        return float(np.median(sk ** p) / stable_scale_factor(p))


@mistake("6.2", "the sketch sorted in place", "in place")
def _(sk, p):
    sk.sort()
    return float(np.median(np.abs(sk) ** p) / stable_scale_factor(p))


# ---------------------------------------------------------------- 6.3
@correct("6.3", "a copy, Python's %")
def modular_update(c, w, i, d, tau):
    c = c.copy()
    c[i] = (c[i] + w[i] * d) % (2 * tau)
    return c


@correct("6.3", "in place, np.mod, nothing returned")
def _(c, w, i, d, tau):
    c[i] = np.mod(c[i] + w[i] * d, 2 * tau)


@correct("6.3", "fmod, then back into [0, 2τ)")
def _(c, w, i, d, tau):
    new = np.array(c, dtype=float)
    value = math.fmod(new[i] + w[i] * d, 2 * tau)
    new[i] = value + 2 * tau if value < 0 else value
    return new


@mistake("6.3", "math.fmod (negative after a deletion)", "negative")
def _(c, w, i, d, tau):
    c = c.copy()
    c[i] = math.fmod(c[i] + w[i] * d, 2 * tau)
    return c


@mistake("6.3", "modulo τ", "modulo τ")
def _(c, w, i, d, tau):
    c = c.copy()
    c[i] = (c[i] + w[i] * d) % tau
    return c


@mistake("6.3", "the weight left out", "weight w_i is missing")
def _(c, w, i, d, tau):
    c = c.copy()
    c[i] = (c[i] + d) % (2 * tau)
    return c


@mistake("6.3", "no modulus", "modulus is missing")
def _(c, w, i, d, tau):
    c = c.copy()
    c[i] = c[i] + w[i] * d
    return c


@mistake("6.3", "every counter updated", "other than c_i")
def _(c, w, i, d, tau):
    return (c + w * d) % (2 * tau)


# ---------------------------------------------------------------- 6.4
@correct("6.4", "the inverted linear map")
def debias(sigma, universe_size, tau, epsilon):
    K = 2 * tau - 1 + np.exp(epsilon)
    circle = 2 * tau**2 * universe_size / K
    return (sigma - circle) * K / (np.exp(epsilon) - 1) - universe_size / 2


@correct("6.4", "per counter: the mean of c_i solved for u_i")
def _(sigma, universe_size, tau, epsilon):
    K = 2 * tau - 1 + math.exp(epsilon)
    per_counter = sigma / universe_size            # ≈ 2τ²/K + (e^ε − 1)(u + 1/2)/K
    return universe_size * ((per_counter - 2 * tau * tau / K) * K / math.expm1(epsilon) - 0.5)


@correct("6.4", "expanded: (Kσ̃ − 2τ²|X|)/(e^ε − 1) − |X|/2")
def _(sigma, universe_size, tau, epsilon):
    K = 2 * tau - 1 + math.exp(epsilon)
    return (K * sigma - 2 * tau**2 * universe_size) / math.expm1(epsilon) - universe_size / 2


@mistake("6.4", "τ²|X|/K as Alg 2 prints it", "as alg 2 prints it")
def _(s, n, t, e):
    K = 2 * t - 1 + math.exp(e)
    return (s - t**2 * n / K) * K / math.expm1(e) - n / 2


@mistake("6.4", "the − |X|/2 forgotten", "|X|/2")
def _(s, n, t, e):
    K = 2 * t - 1 + math.exp(e)
    return (s - 2 * t**2 * n / K) * K / math.expm1(e)


@mistake("6.4", "scale K/e^ε", "your scale is k/e^ε")
def _(s, n, t, e):
    K = 2 * t - 1 + math.exp(e)
    return (s - 2 * t**2 * n / K) * K / math.exp(e) - n / 2


@mistake("6.4", "+ |X|/2 instead of − |X|/2", "not unbiased")
def _(s, n, t, e):
    K = 2 * t - 1 + math.exp(e)
    return (s - 2 * t**2 * n / K) * K / math.expm1(e) + n / 2


@mistake("6.4", "σ̃ returned unchanged", "not unbiased")
def _(s, n, t, e):
    return s


# ---------------------------------------------------------------- 6.5
@correct("6.5", "the Count-Min estimate (a minimum over rows) > 0")
def attack(table, hashes, candidates):
    rows = np.arange(table.shape[0])
    candidates = np.asarray(candidates)
    estimates = table[rows[:, None], hashes[:, candidates]].min(axis=0)
    return candidates[estimates > 0]


@correct("6.5", "a loop over candidates with all()")
def _(table, hashes, candidates):
    return [int(x) for x in candidates
            if all(table[j, hashes[j, x]] > 0 for j in range(table.shape[0]))]


@correct("6.5", "logical AND over the rows")
def _(table, hashes, candidates):
    candidates = np.asarray(candidates)
    inside = np.logical_and.reduce([table[j][hashes[j][candidates]] > 0
                                    for j in range(len(table))])
    return candidates[inside]


@mistake("6.5", "any row positive", "any of its counters")
def _(table, hashes, candidates):
    candidates = np.asarray(candidates)
    rows = np.arange(table.shape[0])
    return candidates[(table[rows[:, None], hashes[:, candidates]] > 0).any(axis=0)]


@mistake("6.5", "the first row only", "you flagged")
def _(table, hashes, candidates):
    candidates = np.asarray(candidates)
    return candidates[table[0, hashes[0, candidates]] > 0]


@mistake("6.5", "every candidate accused", "you flagged")
def _(table, hashes, candidates):
    return np.asarray(candidates)


@mistake("6.5", "counters ≥ 2 required (a visitor counted twice)", "you missed")
def _(table, hashes, candidates):
    candidates = np.asarray(candidates)
    rows = np.arange(table.shape[0])
    return candidates[table[rows[:, None], hashes[:, candidates]].min(axis=0) > 1]


@mistake("6.5", "the whole universe tested, not the dictionary", "not among the candidates")
def _(table, hashes, candidates):
    ids = np.arange(hashes.shape[1])
    rows = np.arange(table.shape[0])
    return ids[table[rows[:, None], hashes].min(axis=0) > 0]


@mistake("6.5", "a mask instead of IDs", "mask", "names the ids")
def _(table, hashes, candidates):
    rows = np.arange(table.shape[0])
    return table[rows[:, None], hashes[:, np.asarray(candidates)]].min(axis=0) > 0


# ---------------------------------------------------------------- 6.6
@correct("6.6", "the two inequalities solved")
def pick_h_and_gamma(k, beta, keep, F1, light_max):
    return math.ceil(k / (beta * (1 - keep))), math.sqrt(F1 * beta / (2 * light_max * k**2))


@correct("6.6", "h by counting up, γ by bisection (a list)")
def _(k, beta, keep, F1, light_max):
    h = 1
    while 1 - k / (beta * h) < keep - 1e-12:
        h += 1
    low, high = 0.0, 1e9
    for _ in range(200):
        middle = (low + high) / 2
        safe = light_max <= F1 * beta / (2 * middle**2 * k**2)
        low, high = (middle, high) if safe else (low, middle)
    return [h, low]


@correct("6.6", "exact h with Fractions, γ with numpy")
def _(k, beta, keep, F1, light_max):
    ratio = Fraction(k) / (Fraction(beta) * (1 - Fraction(keep)))
    h = -(-ratio.numerator // ratio.denominator)
    return int(h), float(np.sqrt(F1 * beta / (2 * light_max * k * k)))


@mistake("6.6", "h not rounded up (a fraction of a bucket)", "whole number")
def _(k, beta, keep, F1, l):
    return k / (beta * (1 - keep)) + 0.5, math.sqrt(F1 * beta / (2 * l * k**2))


@mistake("6.6", "h rounded down", "too few buckets")
def _(k, beta, keep, F1, l):
    return math.floor(k / (beta * (1 - keep)) - 1e-9), math.sqrt(F1 * beta / (2 * l * k**2))


@mistake("6.6", "keep read as the fraction lost", "too few buckets")
def _(k, beta, keep, F1, l):
    return math.ceil(k / (beta * keep)), math.sqrt(F1 * beta / (2 * l * k**2))


@mistake("6.6", "h larger than needed", "not the smallest")
def _(k, beta, keep, F1, l):
    return 2 * math.ceil(k / (beta * (1 - keep))), math.sqrt(F1 * beta / (2 * l * k**2))


@mistake("6.6", "the 2 of Lemma 6.7 forgotten (γ too large)", "no longer applies")
def _(k, beta, keep, F1, l):
    return math.ceil(k / (beta * (1 - keep))), math.sqrt(F1 * beta / (l * k**2))


@mistake("6.6", "a safe but smaller γ", "not the largest")
def _(k, beta, keep, F1, l):
    return math.ceil(k / (beta * (1 - keep))), math.sqrt(F1 * beta / (2 * l * k**2)) / 2


@mistake("6.6", "γ = 1", "must exceed 1")
def _(k, beta, keep, F1, l):
    return math.ceil(k / (beta * (1 - keep))), 1.0


@correct("6.5", "a set comprehension")
def _(table, hashes, candidates):
    return {int(x) for x in candidates if min(table[j, hashes[j, x]] for j in range(len(table))) > 0}


# ---------------------------------------------------------------- from the red team's run
def _cms(p, v, w):
    if p == 1:
        return np.tan(v)
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@mistake("6.1", "the draws scaled by 1.15 (a non-standard S(p))", "scaled by")
def _(p, n, rng):
    return 1.15 * _cms(p, rng.uniform(-np.pi / 2, np.pi / 2, n), rng.exponential(1.0, n))


@mistake("6.1", "antithetic V: the second half minus the first", "not independent")
def _(p, n, rng):
    h = (n + 1) // 2
    v, w = rng.uniform(-np.pi / 2, np.pi / 2, h), rng.exponential(1.0, h)
    return _cms(p, np.concatenate([v, -v])[:n], np.concatenate([w, w])[:n])


@mistake("6.1", "N(0, 2) for every p from 1.5 on", "n(0, 2)")
def _(p, n, rng):
    if p >= 1.5:
        return rng.normal(0, math.sqrt(2), n)
    return _cms(p, rng.uniform(-np.pi / 2, np.pi / 2, n), rng.exponential(1.0, n))


@mistake("6.1", "scipy's levy_stable without the rng for p ≠ 1", "somewhere other than")
def _(p, n, rng):
    from scipy import stats
    if p == 1:
        return np.tan(rng.uniform(-np.pi / 2, np.pi / 2, n))
    return stats.levy_stable.rvs(p, 0.0, size=n)


@mistake("6.1", "the draws clipped at ±50", "do not follow")
def _(p, n, rng):
    return np.clip(_cms(p, rng.uniform(-np.pi / 2, np.pi / 2, n), rng.exponential(1.0, n)), -50, 50)


@correct("6.1", "W = −log U, V = π(U − 1/2), the general formula at p = 1 too")
def _(p, n, rng):
    v = np.pi * (rng.random(n) - 0.5)
    w = -np.log1p(-rng.random(n))
    return np.sin(p * v) / np.cos(v) ** (1 / p) * (np.cos((1 - p) * v) / w) ** ((1 - p) / p)


@correct("6.1", "W before V, a loop with math")
def _(p, n, rng):
    out = np.empty(n)
    for k in range(n):
        w = rng.exponential()
        v = rng.uniform(-math.pi / 2, math.pi / 2)
        out[k] = math.tan(v) if p == 1 else (math.sin(p * v) / math.cos(v) ** (1 / p)
                                            * (math.cos((1 - p) * v) / w) ** ((1 - p) / p))
    return out


@mistake("6.2", "the median of the first 2,000 entries only", "every entry")
def _(sketch, p):
    return float(np.median(np.abs(sketch[:2000]) ** p) / stable_scale_factor(p))


@mistake("6.2", "an interquartile mean", "median")
def _(sketch, p):
    a = np.sort(np.abs(sketch) ** p)
    return float(a[len(a) // 4: 3 * len(a) // 4].mean() / stable_scale_factor(p))


@mistake("6.2", "sf(1) for every p", "scale factor is not taken out")
def _(sketch, p):
    return float(np.median(np.abs(sketch) ** p) / stable_scale_factor(1.0))


@correct("6.2", "np.quantile of |sk| at 0.5, then the power")
def _(sketch, p):
    return float(np.quantile(np.abs(sketch), 0.5) ** p / stable_scale_factor(p))


@correct("6.2", "statistics.median")
def _(sketch, p):
    import statistics
    return statistics.median(abs(x) ** p for x in sketch.tolist()) / stable_scale_factor(p)


@mistake("6.3", "c changed in place, unreduced, and a reduced copy returned", "either return")
def _(c, w, i, d, tau):
    c[i] += w[i] * d
    return np.mod(c, 2 * tau)


@mistake("6.3", "w[i] multiplied by d in place", "changed its argument `w`")
def _(c, w, i, d, tau):
    w[i] *= d
    c = c.copy()
    c[i] = (c[i] + w[i]) % (2 * tau)
    return c


@mistake("6.3", "a single wrap (one ±2τ correction)", "not alg 2's")
def _(c, w, i, d, tau):
    c, x = c.copy(), c[i] + w[i] * d
    c[i] = x + 2 * tau if x < 0 else x - 2 * tau if x >= 2 * tau else x
    return c


@correct("6.3", "the floor formula, a new array by np.where")
def _(c, w, i, d, tau):
    x = c[i] + w[i] * d
    x -= 2 * tau * math.floor(x / (2 * tau))
    return np.where(np.arange(len(c)) == i, x, c)


@mistake("6.4", "the estimate clipped at 0", "not unbiased")
def _(sigma, universe_size, tau, epsilon):
    return max(0.0, debias(sigma, universe_size, tau, epsilon))


@mistake("6.4", "the arc's mean taken as 1 (− |X|)", "not unbiased")
def _(sigma, universe_size, tau, epsilon):
    return debias(sigma, universe_size, tau, epsilon) - universe_size / 2


@correct("6.4", "the mean of a counter on the empty stream written out")
def _(sigma, universe_size, tau, epsilon):
    K = 2 * tau - 1 + np.exp(epsilon)
    mean_empty = (np.exp(epsilon) * 0.5 + (4 * tau**2 - 1) / 2) / K
    return (sigma - universe_size * mean_empty) / ((np.exp(epsilon) - 1) / K)


@mistake("6.5", "an ID once per row where it is positive", "more than once")
def _(table, hashes, candidates):
    out = []
    for x in candidates:
        if np.all(table[np.arange(table.shape[0]), hashes[:, x]] > 0):
            out += [int(x)] * table.shape[0]
    return out


@mistake("6.5", "the stolen table zeroed while reading", "changed its argument `table`")
def _(table, hashes, candidates):
    rows = np.arange(table.shape[0])
    inside = table[rows[:, None], hashes[:, candidates]].min(axis=0) > 0
    table[:] = 0
    return np.asarray(candidates)[inside]


@correct("6.5", "a product of booleans row by row, float IDs")
def _(table, hashes, candidates):
    c = np.asarray(candidates)
    ok = np.ones(len(c), bool)
    for j in range(table.shape[0]):
        ok &= table[j][hashes[j][c]] >= 1
    return c[ok].astype(float)


@mistake("6.6", "h = round(x) + 1", "not the smallest")
def _(k, beta, keep, F1, light_max):
    return round(k / (beta * (1 - keep))) + 1, math.sqrt(F1 * beta / (2 * light_max * k**2))


@mistake("6.6", "γ from light_max ≤ F1β/(2γk²) (γ not squared)", "lemma 6.7 no longer applies")
def _(k, beta, keep, F1, light_max):
    return math.ceil(k / (beta * (1 - keep))), F1 * beta / (2 * light_max * k**2)


@correct("6.6", "numpy scalars in a tuple")
def _(k, beta, keep, F1, light_max):
    return (np.int64(np.ceil(k / (beta * (1 - keep)))),
            np.sqrt(F1 * beta / (2 * light_max * k * k)))


@correct("6.6", "h by −(−a // b), γ by ** 0.5, a list")
def _(k, beta, keep, F1, light_max):
    return [int(-(-k // (beta * (1 - keep)))), (F1 * beta / (2 * light_max * k**2)) ** 0.5]
