"""Checkers for module 06, sketches on fully dynamic streams (Mir et al. 2011, §2.4 and §3).

6.1's draws are checked by their law: exact binomial tests of bands of |Y| between the
law's quantiles, Kolmogorov–Smirnov distances with the DKW bound against the Cauchy and
N(0, 2) cdfs and against large reference samples at p = 0.5 and 1.5, and the independence of
draws near and far apart (`_laws`, false-failure probability below `_laws.ALPHA` = 1e-7).
The other answers are compared exactly (6.2's median estimator, on an odd number of
entries, is one entry of the sketch).
"""
from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

from panpriv_teach.exercises import _laws
from panpriv_teach.exercises._answers import (as_numpy_array, as_pair, as_real, fresh_answer,
                                              fresh_rng, seeded)
from panpriv_teach.exercises.harness import ExerciseFailed, call, exercise, expect_reproducible
from panpriv_teach.stable import stable_sample as _reference_sample, stable_scale_factor


# ---------------------------------------------------------------- 6.1 the CMS sampler
def _draws(sampler, p, n, rng):
    return as_numpy_array(call(sampler, p, n, rng=rng), f"stable_sample({p:g}, {n})", shape=(n,))


_REFERENCE = 40_000   # reference draws of S(p) from the library, per p
_DRAWN = 10_000       # draws per p: the share of |Y| below its median within ±0.03
                      # (at the test's alpha)
# Quantiles of |Y| (Y ~ S(p)) at which the draws are counted: the median shows a wrong scale
# (1.15 times the draws moves 6 % of them across it), the far tail the wrong family (N(0, 2)
# puts almost nothing beyond S(1.5)'s 0.99 quantile).
_LEVELS = np.array([0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999])
_LEVEL_SLACK = 2e-4   # numerical error allowed in the level of a quantile (scipy's ppf)


@functools.lru_cache(maxsize=8)
def _abs_quantiles(p):
    """The quantiles _LEVELS of |Y|, Y ~ S(p): exact at p = 1 (Cauchy) and 2 (N(0, 2)),
    else scipy's levy_stable (the same law: characteristic function exp(−|t|^p))."""
    if p == 1:
        return np.tan(np.pi * _LEVELS / 2)
    if p == 2:
        return math.sqrt(2) * stats.norm.ppf(0.5 + _LEVELS / 2)
    return stats.levy_stable(p, 0.0).ppf(0.5 + _LEVELS / 2)


def _stable_fits(draws, p, alpha):
    """Whether draws are consistent with S(p): binomial tests of how many |Y| fall below
    each quantile of _LEVELS (alpha/2, shared), and a KS test (alpha/2): against the exact
    cdf at p = 1 (Cauchy) and p = 2 (N(0, 2)), else against a reference sample (two DKW
    radii)."""
    below = np.sum(np.abs(draws)[:, None] <= _abs_quantiles(p)[None, :], axis=0)
    if not all(_laws.count_fits(int(k), len(draws), u - _LEVEL_SLACK, u + _LEVEL_SLACK,
                                alpha=alpha / 2 / len(_LEVELS))
               for k, u in zip(below, _LEVELS)):
        return False
    if p == 1:
        return _laws.fits_cdf(draws, stats.cauchy.cdf, alpha / 2)
    if p == 2:
        return _laws.fits_cdf(draws, stats.norm(scale=math.sqrt(2)).cdf, alpha / 2)
    reference = _reference_sample(p, _REFERENCE, seeded(6010 + int(10 * p)))
    distance = stats.ks_2samp(draws, reference).statistic
    return distance <= _laws.dkw_radius(len(draws), alpha / 4) + _laws.dkw_radius(
        _REFERENCE, alpha / 4)


@exercise("6.1", "Sampling p-stable laws (Chambers–Mallows–Stuck)",
          solved_by=("panpriv_teach.stable.stable_sample",))
def exercise_6_1(stable_sample):
    for p in (1.0, 2.0, 0.5, 1.5):
        expect_reproducible(stable_sample, p, 5,
                            convert=lambda x, p=p: as_numpy_array(x, f"stable_sample({p:g}, 5)",
                                                                  shape=(5,)))
    rng = seeded(601)
    alpha = _laws.ALPHA / 4 / 2     # four laws; each its fit and its independence
    for p in (1.0, 2.0, 0.5, 1.5):
        draws = _draws(stable_sample, p, _DRAWN, rng)
        where = f"(case: p = {p:g}, {_DRAWN} draws)"
        if _stable_fits(draws, p, alpha):
            lag = _laws.sequence_dependence(draws, alpha)
            if lag is None:
                continue
            raise ExerciseFailed(f"at p = {p:g} each draw follows S({p:g}), but the draws are "
                                 f"not independent (draws {lag} apart have the same sign far "
                                 "more, or less, often than half of the time: V or W reused, "
                                 "or one half mirrored?). A sketch built on dependent draws "
                                 "does not estimate the norm. " + where)
        if p == 2 and _laws.fits_cdf(draws, stats.norm.cdf, alpha):
            raise ExerciseFailed("at p = 2 your draws look like N(0, 1). The standard 2-stable "
                                 "law (characteristic function e^(−t²)) is N(0, 2): a sketch "
                                 "built on N(0, 1) misreads the norm by √2. " + where)
        if np.all(draws >= 0) or np.all(draws <= 0):
            raise ExerciseFailed(f"at p = {p:g} your draws all have the same sign: S(p) is "
                                 "symmetric, and a one-signed sketch cannot cancel the deletions "
                                 "of a fully dynamic stream. Is V drawn on (−π/2, π/2)? " + where)
        if p == 1 and np.median(np.abs(draws)) < 0.5:
            raise ExerciseFailed("at p = 1 your draws are too concentrated for the standard "
                                 f"Cauchy law (median |Y| = {np.median(np.abs(draws)):.3g}, the "
                                 "law has 1): is V drawn on (−π/2, π/2)? " + where)
        median = float(_abs_quantiles(p)[2])
        ratio = float(np.median(np.abs(draws))) / median
        if abs(ratio - 1) > 0.03 and _stable_fits(draws / ratio, p, alpha):
            raise ExerciseFailed(f"at p = {p:g} your draws are S({p:g}) scaled by {ratio:.3g}: "
                                 "the standard law has median |Y| = "
                                 f"{median:.3g}, and a sketch built on a scaled law misreads "
                                 "the norm by that factor. " + where)
        if p == 1.5 and _stable_fits(draws, 2.0, alpha):
            raise ExerciseFailed("at p = 1.5 your draws are N(0, 2), the 2-stable law: its "
                                 "tails are far lighter than S(1.5)'s (|Y| > 12 in "
                                 f"{np.mean(np.abs(draws) > 12):.2%} of the draws; S(1.5): 1 %), "
                                 "and a sketch built on it estimates the 2-norm. " + where)
        raise ExerciseFailed(f"at p = {p:g} your draws do not follow S({p:g}) (median |Y| = "
                             f"{np.median(np.abs(draws)):.3g}, the law has {median:.3g}; "
                             f"{np.mean(np.abs(draws) > _abs_quantiles(p)[5]):.2%} beyond its "
                             "0.99 quantile): a sketch built on them estimates the wrong norm. "
                             "Compare the exponents and the laws of V and W with the formula. "
                             + where)
    return "Cauchy at p = 1, N(0, 2) at p = 2, and the right laws at p = 0.5 and 1.5."


# ---------------------------------------------------------------- 6.2 median estimator
@exercise("6.2", "The median estimator of Σ|a_i|^p",
          solved_by=("panpriv_teach.stable.StableSketch.estimate",))
def exercise_6_2(median_estimator):
    rng = seeded(602)
    r = 20_001   # odd: the median of |sk_j|^p is one entry, and (median |sk_j|)^p is the same
    for p, lp in [(1.0, 12.0), (0.5, 40.0), (0.25, 25.0), (2.0, 30.0)]:
        sketch = lp ** (1 / p) * _reference_sample(p, r, rng)
        where = f"median_estimator(<sketch of length {r}>, {p:g})"
        estimate = as_real(call(median_estimator, sketch, p), where)
        sf = stable_scale_factor(p)
        exact = float(np.median(np.abs(sketch) ** p)) / sf
        if math.isclose(estimate, exact, rel_tol=1e-6):
            continue
        if estimate < 0:
            raise ExerciseFailed("your estimate is negative: the sketch entries can be "
                                 "negative, and their signs carry no information about Σ|a_i|^p.")
        if p != 1 and math.isclose(estimate, exact * sf**2, rel_tol=1e-6):
            raise ExerciseFailed(f"at p = {p:g} your estimate is sf(p)² = {sf**2:.3f} times "
                                 "the estimator's: you multiplied by sf(p) as Alg 1 prints it, "
                                 "but median|sk_j|^p is already about sf(p)·Σ|a_i|^p (biased).")
        if p != 1 and math.isclose(estimate, exact * sf, rel_tol=1e-6):
            raise ExerciseFailed(f"at p = {p:g} your estimate is sf(p) = {sf:.3f} times the "
                                 "estimator's: the median of |sk_j|^p is about sf(p)·Σ|a_i|^p, "
                                 "and the scale factor is not taken out (biased).")
        if p != 1 and math.isclose(estimate, exact ** (1 / p), rel_tol=1e-6):
            raise ExerciseFailed(f"at p = {p:g} your estimate is near the p-norm "
                                 "(Σ|a_i|^p)^(1/p), not Σ|a_i|^p: the power p is missing.")
        if math.isclose(estimate, float(np.mean(np.abs(sketch) ** p)) / sf, rel_tol=1e-6) or (
                estimate > 2 * lp):
            raise ExerciseFailed(f"at p = {p:g} your estimate is {estimate:.4g} for a true "
                                 f"Σ|a_i|^p of {lp:g}: a mean of |sk_j|^p is ruined by the heavy "
                                 "tails of p-stable laws (its expectation is infinite for p < 2); "
                                 "the estimator is a median.")
        raise ExerciseFailed(f"at p = {p:g} the true Σ|a_i|^p is {lp:g} and your estimate is "
                             f"{estimate:.4g}, {abs(estimate / exact - 1):.1%} away from the "
                             f"median estimator of these {r:,} entries: does it use every entry, "
                             "and the median of |sk_j|^p divided by sf(p) (Alg 1)?")
    return "median_j |sk_j|^p / sf(p) recovers Σ|a_i|^p within a few per cent, for p from 1/4 to 2."


# ---------------------------------------------------------------- 6.3 modular update
@exercise("6.3", "The modular counter update of Alg 2",
          solved_by=("panpriv_teach.cropped.CroppedSum.update",
                     "panpriv_teach.cropped.CroppedSum.process"))
def exercise_6_3(modular_update):
    rng = seeded(603)
    wrong = []
    for trial in range(30):
        m, tau = int(rng.integers(3, 10)), float(rng.choice([2.0, 3.5, 10.0]))
        c = rng.uniform(0, 2 * tau, m)
        w = rng.uniform(1, 2, m)
        i, d = int(rng.integers(m)), int(rng.choice([-7, -3, -1, 1, 2, 5, 13]))
        original = c.copy()    # the task lets the answer change c (and only c) in place
        result = call(modular_update, c, w, i, d, tau, may_change=(0,))
        new = c if result is None else as_numpy_array(result, "the new counters", shape=(m,))
        expected = original.copy()
        expected[i] = np.mod(original[i] + w[i] * d, 2 * tau)
        if result is not None and not np.array_equal(c, original) and not np.allclose(
                c, expected, atol=1e-9):
            raise ExerciseFailed("you changed the caller's c in place AND returned new "
                                 "counters, and the c left behind is not the updated one (its "
                                 f"c_i is {c[i]:.4f}, not reduced mod 2τ = {2 * tau:g}?): either "
                                 "return a new array and leave c alone, or update c in place "
                                 "and return nothing.")
        if not np.allclose(new, expected, atol=1e-9):
            wrong.append((original, w, i, d, tau, new))
    if not wrong:
        return "c_i ← (c_i + w_i·d) mod 2τ, and nothing else moves."
    if any(not np.allclose(np.delete(new, i), np.delete(c, i)) for c, w, i, d, tau, new in wrong):
        raise ExerciseFailed("counters other than c_i changed: an update (i, d) touches "
                             "only counter i, and the others' users would be misreported "
                             "(accuracy).")
    slips = (
        (lambda c, w, i, d, tau: c[i] + w[i] * d,
         "your counter leaves [0, 2τ): the modulus is missing, so the counter shows how many "
         "updates arrived (no pan-privacy)."),
        (lambda c, w, i, d, tau: math.fmod(c[i] + w[i] * d, 2 * tau),
         "a counter became negative after a deletion: the counters live in [0, 2τ), and a "
         "remainder that keeps the sign of its dividend (math.fmod, C's %) leaves it negative."),
        (lambda c, w, i, d, tau: np.mod(c[i] + w[i] * d, tau),
         "you reduced modulo τ; Alg 2's counters live modulo 2τ, and its noise and debiasing "
         "assume it."),
        (lambda c, w, i, d, tau: np.mod(c[i] + d, 2 * tau),
         "the weight w_i is missing from the update: Alg 2's counter holds u_i = w_i·a_i mod "
         "2τ, and its debiasing assumes it (accuracy)."),
    )
    for formula, words in slips:   # the slip that explains every wrong update
        if all(np.isclose(new[i], formula(c, w, i, d, tau)) for c, w, i, d, tau, new in wrong):
            raise ExerciseFailed(words)
    c, w, i, d, tau, new = wrong[0]
    raise ExerciseFailed(f"with c_i = {c[i]:.3f}, w_i = {w[i]:.3f}, d = {d}, τ = {tau:g} "
                         f"your new c_i is {new[i]:.4f}, not Alg 2's (c_i + w_i·d) mod 2τ.")




# ---------------------------------------------------------------- 6.4 debiasing
def _right(sigma, size, tau, eps):
    K = 2 * tau - 1 + math.exp(eps)
    return (sigma - 2 * tau**2 * size / K) * K / math.expm1(eps) - size / 2


_WRONG_DEBIAS = [
    (lambda s, n, t, e: (s - t**2 * n / (2 * t - 1 + math.exp(e))) * (2 * t - 1 + math.exp(e))
     / math.expm1(e) - n / 2,
     "you subtract τ²|X|/K as Alg 2 prints it, but on the empty stream E[σ̃] = |X|·E[𝒩] is "
     "larger than that: Alg 2's printed formula is biased by τ²|X|/(e^ε − 1) (accuracy)."),
    (lambda s, n, t, e: (s - 2 * t**2 * n / (2 * t - 1 + math.exp(e))) * (2 * t - 1 + math.exp(e))
     / math.expm1(e),
     "you forgot the − |X|/2: each counter's high-density arc [0, 1] has mean 1/2, which adds "
     "(e^ε − 1)/(2K) per ID, so your estimate is biased by |X|/2."),
    (lambda s, n, t, e: (s - 2 * t**2 * n / (2 * t - 1 + math.exp(e))) * (2 * t - 1 + math.exp(e))
     / math.exp(e) - n / 2,
     "your scale is K/e^ε: the mean of c_i moves with u_i at the rate of the arc's EXTRA "
     "density over the baseline, not of its whole density, so the estimate is biased."),
]


@exercise("6.4", "Debiasing Alg 2", solved_by=("panpriv_teach.cropped.CroppedSum.debias",))
def exercise_6_4(debias):
    rng = seeded(604)
    cases = [(float(rng.uniform(0, 400)), int(rng.integers(10, 200)), float(rng.choice([2.0, 5.0, 12.0])),
              float(rng.choice([0.3, 1.0, 2.0]))) for _ in range(12)]
    for sigma, size, tau, eps in cases:
        got = as_real(call(debias, sigma, size, tau, eps),
                      f"debias({sigma:.1f}, {size}, {tau:g}, {eps:g})")
        if math.isclose(got, _right(sigma, size, tau, eps), rel_tol=1e-7, abs_tol=1e-6):
            continue
        for wrong, hint in _WRONG_DEBIAS:
            if math.isclose(got, wrong(sigma, size, tau, eps), rel_tol=1e-7, abs_tol=1e-6):
                raise ExerciseFailed(hint)
        raise ExerciseFailed(f"debias({sigma:.1f}, universe_size={size}, τ={tau:g}, ε={eps:g}) = "
                             f"{got:.4g} is not unbiased. Compute E[σ̃] on the empty stream (each "
                             "c_i ~ 𝒩) and on a stream with T' = Σ u_i (no wrap), and invert that "
                             "linear map.")
    # the empty-stream experiment the exercise asks for, with the student's function:
    # 400 runs, sd of each estimate <= K/(e^ε−1)·τ·sqrt(|X| + 8/ε²) ≈ 100: an illustration
    # (the exact checks above decided the verdict).
    size, tau, eps, runs = 100, 3.0, 1.0, 400
    K = 2 * tau - 1 + math.exp(eps)
    low = rng.random((runs, size)) < math.exp(eps) / K
    c = np.where(low, rng.uniform(0, 1, (runs, size)), rng.uniform(1, 2 * tau, (runs, size)))
    sigmas = c.sum(axis=1) + rng.laplace(0, 2 * tau / eps, runs)
    # the answer is affine in σ (it passed the exact checks), so its mean over the runs is
    # its value at the mean σ, and its spread is its slope times σ's
    mean = as_real(call(debias, float(np.mean(sigmas)), size, tau, eps), "debias(...)")
    se = abs(K / math.expm1(eps)) * float(np.std(sigmas)) / math.sqrt(runs)
    return (f"unbiased: on the empty stream (|X| = {size}, τ = {tau:g}, ε = {eps:g}) your "
            f"estimator averages {mean:.1f} over {runs} runs (standard error {se:.1f}).")


# ---------------------------------------------------------------- 6.5 dictionary attack
def _count_min(rng, universe, present, depth=4, width=64):
    hashes = rng.integers(0, width, size=(depth, universe))
    table = np.zeros((depth, width), dtype=np.int64)
    for j in range(depth):
        np.add.at(table[j], hashes[j, present], 1)
    return table, hashes


@exercise("6.5", "A dictionary attack on a Count-Min sketch",
          solved_by=("panpriv_teach.attacks.dictionary_attack",
                     "panpriv_teach.sketches.CountMinSketch.estimate"))
def exercise_6_5(attack):
    rng = seeded(605)
    universe = 500
    for trial in range(5):
        present = rng.choice(universe, size=12, replace=False)
        table, hashes = _count_min(rng, universe, present)
        candidates = rng.permutation(universe)[:200]
        candidates = np.unique(np.r_[candidates, present[:8]])
        guess = call(attack, table.copy(), hashes.copy(), candidates.copy())
        if isinstance(guess, np.ndarray) and guess.dtype.kind == "b" and \
                guess.shape == candidates.shape:
            raise ExerciseFailed("you returned a mask, one True/False per candidate; the attack "
                                 "names the IDs that may be inside.")
        if isinstance(guess, (set, frozenset)):    # a set of IDs is an answer too
            guess = sorted(guess, key=repr)
        try:
            if np.ndim(guess) != 1:
                raise TypeError
            ids = np.asarray(guess)
            if ids.size and (ids.dtype.kind not in "iuf" or not np.all(np.isfinite(ids))
                             or np.any(ids != np.round(ids))):   # not whole numbers: int()
                raise TypeError                                   # would truncate or drop a part
            if len(set(ids.ravel().tolist())) < ids.size:
                raise ExerciseFailed("your answer names some IDs more than once: each ID that "
                                     "may be inside is listed once.")
            guess = {int(x) for x in ids.ravel()}
        except (TypeError, ValueError):
            raise ExerciseFailed(f"attack should return a list or array of IDs; got "
                                 f"{type(guess).__name__}.") from None
        truth = set(present.tolist()) & set(candidates.tolist())
        possible = {int(x) for x in candidates if np.all(table[np.arange(4), hashes[:, x]] > 0)}
        if not guess <= set(candidates.tolist()):
            raise ExerciseFailed("you returned IDs that are not among the candidates: the "
                                 "dictionary attack tests the dictionary's IDs only.")
        if not truth <= guess:
            raise ExerciseFailed(f"you missed {len(truth - guess)} of the {len(truth)} visitors in "
                                 "the dictionary: a visitor inside makes all of her counters "
                                 "positive (one per row), and your test rules some of them out.")
        if guess != possible:
            any_row = {int(x) for x in candidates if np.any(table[np.arange(4), hashes[:, x]] > 0)}
            if guess == any_row:
                raise ExerciseFailed("you flag an ID when ANY of its counters is positive; a "
                                     "present ID has ALL its counters positive, so you accuse "
                                     "many IDs that are not inside.")
            raise ExerciseFailed(f"you flagged {len(guess)} IDs; exactly {len(possible)} candidates "
                                 "have all their counters positive.")
    return "every present visitor in the dictionary is found (plus the rare colliding IDs)."


# ---------------------------------------------------------------- 6.6 choosing h and γ
# Lecture 06's letters: β the failure probability, γ the ratio of the two thresholds (Mir et
# al. 2011 write δ and c); `keep` is the fraction of heavy hitters kept in distinct buckets.
def _cases():
    return [dict(k=10, beta=0.1, keep=0.7, F1=1e5, light_max=2.0),
            dict(k=25, beta=0.05, keep=0.85, F1=4e5, light_max=1.0),
            dict(k=4, beta=0.2, keep=0.4, F1=1e3, light_max=3.0),
            dict(k=17, beta=0.1, keep=0.7, F1=1e6, light_max=1.0)]   # k/(β(1 − keep)) = 566.7


def _fewest_buckets(k, beta, keep):
    """The smallest whole h with 1 − k/(βh) ≥ keep (Lemma 6.6)."""
    return math.ceil(k / (beta * (1 - keep)))


def _largest_gamma(k, beta, F1, light):
    """The largest γ with light ≤ F1·β/(2γ²k²) (Lemma 6.7's hypothesis)."""
    return math.sqrt(F1 * beta / (2 * light * k**2))


def _judge_h_and_gamma(answer, k, beta, keep, F1, light):
    """Raise the diagnosis of pick_h_and_gamma(k, beta, keep, F1, light) = answer."""
    answer = as_pair(answer, "pick_h_and_gamma should return a pair (h, γ)")
    h = as_real(answer[0], "h")
    gamma = as_real(answer[1], "γ")
    h_min = _fewest_buckets(k, beta, keep)
    gamma_max = _largest_gamma(k, beta, F1, light)
    shown = f"(k={k}, β={beta:.4g}, keep={keep:.4g}, F1={F1:g}, light items <= {light:.4g})"
    if h != int(h):
        raise ExerciseFailed("h is a number of buckets, a whole number; yours is not.")
    if h < h_min:
        raise ExerciseFailed(f"{shown}: with h = {h:g} Lemma 6.6 only guarantees "
                             f"k̃/HH(k) >= {1 - k / (beta * h):.3f} w.p. 1 − β, less than "
                             "keep: too few buckets for the guarantee you want.")
    if h > h_min:
        raise ExerciseFailed(f"{shown}: h = {h:g} works but is not the smallest; more buckets "
                             "cost more noise (the additive error grows like √h).")
    if gamma <= 1:
        raise ExerciseFailed("γ must exceed 1: the second level is F1/(γk) < F1/k.")
    if gamma > gamma_max * (1 + 1e-9):
        raise ExerciseFailed(f"{shown}: with γ = {gamma:.4g} the light items are not below "
                             "F1·β/(2γ²k²), so Lemma 6.7 no longer applies: buckets of light "
                             "items could pass F1/(γk).")
    if gamma < gamma_max * (1 - 1e-6):
        raise ExerciseFailed(f"{shown}: γ = {gamma:.4g} is safe but not the largest allowed; "
                             "a larger γ separates the two levels more (the factors of "
                             "Theorem 6.4 get closer to 1/2 and 2).")


@exercise("6.6", "Picking h and γ for a heavy-hitter count")
def exercise_6_6(pick_h_and_gamma):
    fixed = []
    for case in _cases():
        args = tuple(case[key] for key in ("k", "beta", "keep", "F1", "light_max"))
        fixed.append(call(pick_h_and_gamma, *args))
        _judge_h_and_gamma(fixed[-1], *args)
    fresh = fresh_rng("6.6")   # F1 large enough that the largest γ exceeds 1
    args = (int(fresh.integers(2, 50)), float(fresh.uniform(0.01, 0.5)),
            float(fresh.uniform(0.1, 0.95)), float(fresh.uniform(1e7, 1e9)),
            float(fresh.uniform(0.5, 5.0)))
    where = "pick_h_and_gamma({}, {!r}, {!r}, {!r}, {!r})".format(*args)
    fresh_answer(pick_h_and_gamma, args, fixed, where,
                 lambda got: _judge_h_and_gamma(got, *args))
    return "h from Lemma 6.6 and the largest γ that Lemma 6.7 allows."
