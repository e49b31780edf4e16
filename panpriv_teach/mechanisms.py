"""The basic mechanisms of differential privacy: Laplace (float-safe, and the unsafe textbook
sampler kept for the attack), Gaussian, geometric (discrete Laplace), exponential, and the
local randomized-response protocols.

Sources: Dwork 2011, Thm 2, "randomized response", "the exponential mechanism"; Dwork 2010,
§2, Thm 2.1; Mir et al. 2011, Thm 2; Local-mechanisms notes, §1, Thm 2 (Warner 1965); Mironov 2012
(floating-point attack and its remedy); Canonne, Kamath, Steinke 2020 (discrete noise);
Balle & Wang 2018 and Dwork & Roth 2014, Thm A.1 (Gaussian calibrations).
"""
from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from panpriv_teach.core import as_rng
from panpriv_teach.exp_coin import first_heads
from panpriv_teach.noise import (DiscreteGaussian, DiscreteLaplace, LaplaceNoise, exp_lower_bound,
                                 grid_sensitivity, grid_step, implemented_probability,
                                 threshold_below, threshold_for_ratio)
from panpriv_teach.validation import (require_array, require_bool, require_epsilon, require_int,
                                      require_probability, require_real)

__all__ = ["laplace_mechanism", "laplace_mechanism_unsafe", "laplace_guarantee",
           "gaussian_mechanism", "analytic_gaussian_sigma", "classic_gaussian_sigma",
           "gaussian_guarantee", "geometric_mechanism", "sample_discrete_laplace_exact",
           "discrete_laplace_pmf", "exponential_mechanism",
           "exponential_mechanism_probabilities", "exponential_mechanism_implemented_law",
           "RandomizedResponse", "warner_response",
           "warner_estimate", "warner_epsilon"]


MAX_INT_NOISE_SCALE = 2.0**56   # int64 noise: P(|noise| >= 2^62) <= 2 exp(-64) below it


def _positive(name, value, note=""):
    """A finite real number > 0."""
    return require_real(name, value, low=0.0, high=math.inf, low_open=True, high_open=True,
                        note=note)


def _invertible(name, value):
    """`value` > 0 whose reciprocal is a finite float (estimates divide by it)."""
    if 1 / value == math.inf:
        raise ValueError(f"{name} must be at least about 1e-308 (the estimate divides by it, and "
                         f"1/{name} must be a finite float); got {value!r}")
    return value


def _real_array(name, values, **kwargs):
    array = require_array(name, values, **kwargs)
    if array.dtype.kind == "c":
        raise TypeError(f"{name} must hold real numbers; got complex dtype {array.dtype}")
    return array


# ----------------------------------------------------------------------------------------
# Laplace
# ----------------------------------------------------------------------------------------

def _laplace_parameters(sensitivity, epsilon):
    sensitivity = _positive("sensitivity", sensitivity)
    epsilon = require_epsilon(epsilon)
    if not math.isfinite(sensitivity / epsilon):   # else the noise, and the release, are inf
        raise ValueError(f"sensitivity/epsilon, the Laplace scale, must be a finite number; got "
                         f"sensitivity={sensitivity!r}, epsilon={epsilon!r}")
    return sensitivity, epsilon


def laplace_mechanism(value, sensitivity, epsilon, rng=None):
    """Release `value` + Laplace noise of scale ≈ sensitivity/epsilon, safely in floating point.

    Input: a real number or an array (noise independent per coordinate); neighbouring inputs'
    values differ by at most Δ = `sensitivity` in L1.
    Output: each coordinate rounded to the grid Λ = 2^(floor(log2 min(Δ, Δ/epsilon)) - 12) plus
    Λ Z, Z discrete Laplace calibrated to D = floor(Δ/Λ) + 1 grid steps
    (`panpriv_teach.noise.LaplaceNoise`). The result is exact in float64 (an integer times a
    power of two), so nothing but Z's integer value reaches the output.
    Privacy: (epsilon + eta, delta)-DP with eta < 1e-8 and delta < 1e-20 (`laplace_guarantee`
    gives both, computed exactly), for a scalar, or a vector differing in one coordinate, or
    vectors on the grid (integer counts), each coordinate that differs counting eta and delta
    once. Derivation: rounding moves each value by at most Λ/2, so rounded neighbours differ
    by at most D steps, and the discrete Laplace law of scale D/epsilon makes that epsilon-DP
    (the proof of Dwork 2011, Thm 2, with sums in place of integrals); eta and delta are what
    the 64-bit integer sampler adds (its thresholds are within 2^-29 relative of the exact
    probabilities; its support is cut where the tail is below 2^-70): `noise.DiscreteLaplace`.
    The textbook `value + Generator.laplace(...)` is NOT private in floating point (Mironov
    2012): see `laplace_mechanism_unsafe` and `attacks.floating_point_attack`.
    Accuracy: noise mean 0, scale DΛ/epsilon <= (1 + 2^-12) Δ/epsilon, variance
    2a/(1 - a)^2 Λ^2 (a = e^(-epsilon/D)) <= 2 (DΛ/epsilon)^2; plus the rounding, at most Λ/2.
    Values must satisfy |value| <= (2^53 - 2^J) Λ (about 2^40 Δ; ValueError otherwise).
    Returns a float for a scalar `value`, else an array of the same shape.
    """
    if type(sensitivity) in (int, float) and type(epsilon) in (int, float):
        noise = _laplace_noise(sensitivity, epsilon)
    else:
        noise = LaplaceNoise(*_laplace_parameters(sensitivity, epsilon))
    if isinstance(value, float) or type(value) is int and abs(value) <= 2**53:
        value = float(value)         # one number: one draw in plain Python, no array sampler
        if not math.isfinite(value) or abs(value) > noise.limit:
            noise.check_range(_real_array("value", value))   # raises, naming the problem
        return noise.release_one(value, as_rng(rng))
    array = _real_array("value", value)
    noise.check_range(array)
    noisy = noise.release(array, as_rng(rng))
    return float(noisy) if array.ndim == 0 else noisy


@functools.lru_cache(maxsize=64, typed=True)
def _laplace_noise(sensitivity, epsilon) -> LaplaceNoise:
    """The sampler of one pair of plain numbers (Δ, epsilon), validated and built once (it
    holds no random state; an invalid pair raises every time, exceptions are not cached)."""
    return LaplaceNoise(*_laplace_parameters(sensitivity, epsilon))


def laplace_guarantee(sensitivity, epsilon) -> tuple[float, float]:
    """(epsilon', delta): the exact privacy of `laplace_mechanism` for these parameters in
    floating point, epsilon' = epsilon + eta slightly above the nominal epsilon."""
    return LaplaceNoise(*_laplace_parameters(sensitivity, epsilon)).guarantee()


def laplace_mechanism_unsafe(value, sensitivity, epsilon, rng=None):
    """The textbook sampler: `value` + numpy's `Generator.laplace(0, sensitivity/epsilon)`.

    For real numbers this is epsilon-DP (Dwork 2011, Thm 2). In floating point it is NOT:
    numpy draws one uniform U on the 2^53-point grid of [0, 1) and returns
    scale * log(2U) (or -scale * log(2 - 2U)); the doubles value + noise that can come out
    depend on `value`, so many releases could only have come from one input (Mironov 2012,
    §3). `attacks.floating_point_attack` identifies them. Kept for that lecture; use
    `laplace_mechanism` for anything released.
    """
    sensitivity, epsilon = _laplace_parameters(sensitivity, epsilon)
    array = _real_array("value", value)
    noisy = array + as_rng(rng).laplace(0.0, sensitivity / epsilon, size=array.shape)
    return float(noisy) if array.ndim == 0 else noisy


# ----------------------------------------------------------------------------------------
# Gaussian mechanism, (epsilon, delta)-DP
# ----------------------------------------------------------------------------------------

def _smallest_where(too_small, start: float, floor: float, iterations: int) -> float:
    """The threshold of a monotone test: the smallest x (to bisection precision) at which
    `too_small(x)` turns false. Doubles from `start` until the test fails, then bisects
    between the last true point (or `floor`) and the first false one `iterations` times."""
    lo, hi = floor, start
    while too_small(hi):
        lo, hi = hi, 2 * hi
    for _ in range(iterations):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if too_small(mid) else (lo, mid)
    return hi


def _gaussian_parameters(sensitivity, epsilon, delta):
    return (require_real("sensitivity", sensitivity, low=0.0, high=1e300, low_open=True),
            require_epsilon(epsilon, high=700.0, note="e^epsilon must be a finite float"),
            require_probability("delta", delta, note="(epsilon, delta)-DP: the probability "
                                "of failure, e.g. 1e-6"))


def gaussian_delta(sigma, sensitivity, epsilon) -> float:
    """The exact delta of f(x) + N(0, sigma^2 I) at epsilon, f of L2 sensitivity Δ (Balle &
    Wang 2018, Thm 8): Phi(Δ/(2 sigma) - epsilon sigma/Δ) - e^epsilon Phi(-Δ/(2 sigma) -
    epsilon sigma/Δ)."""
    from scipy.special import log_ndtr, ndtr
    a, b = sensitivity / (2 * sigma), epsilon * sigma / sensitivity
    return float(ndtr(a - b) - math.exp(epsilon + log_ndtr(-a - b)))


def analytic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """The smallest sigma for which f(x) + N(0, sigma^2 I) is (epsilon, delta)-DP when f has L2
    sensitivity `sensitivity` (Balle & Wang 2018, Thm 8: the exact condition
    `gaussian_delta(sigma, Δ, epsilon)` <= delta), found by bisection to float precision.
    Valid for every epsilon > 0; smaller than `classic_gaussian_sigma`."""
    D, epsilon, delta = _gaussian_parameters(sensitivity, epsilon, delta)
    return _smallest_where(lambda sigma: gaussian_delta(sigma, D, epsilon) > delta, start=D,
                           floor=1e-6 * D, iterations=200)


def classic_gaussian_sigma(sensitivity, epsilon, delta) -> float:
    """sigma = Δ sqrt(2 ln(1.25/delta))/epsilon: (epsilon, delta)-DP for epsilon < 1 (Dwork &
    Roth 2014, Thm A.1; the proof needs epsilon < 1, so larger epsilon is refused)."""
    D, epsilon, delta = _gaussian_parameters(sensitivity, epsilon, delta)
    if epsilon >= 1:
        raise ValueError(f"epsilon must be in (0, 1) for the classic calibration (Dwork & Roth "
                         f"2014, Thm A.1 assumes epsilon < 1; use calibration='analytic'); "
                         f"got {epsilon!r}")
    sigma = D * math.sqrt(2 * (math.log(1.25) - math.log(delta))) / epsilon
    if not math.isfinite(sigma):
        raise ValueError(f"epsilon must be large enough for a finite sigma = Δ sqrt(2 ln(1.25/delta))"
                         f"/epsilon; got epsilon={epsilon!r} (sensitivity={sensitivity!r}, "
                         f"delta={delta!r})")
    return sigma


_CALIBRATIONS = {"analytic": analytic_gaussian_sigma, "classic": classic_gaussian_sigma}


@functools.lru_cache(maxsize=64)
def _gaussian_plan(sensitivity, epsilon, delta, calibration):
    """Grid, integer sensitivity D, discrete Gaussian and its (epsilon', delta') in float."""
    sigma = _CALIBRATIONS[calibration](sensitivity, epsilon, delta)
    step = grid_step(sensitivity, sigma)
    D = grid_sensitivity(sensitivity, step)
    sigma = _CALIBRATIONS[calibration](D * step, epsilon, delta)   # for the rounded values
    if sigma / step > 2.0**45:
        raise ValueError(f"epsilon={epsilon!r} and delta={delta!r} need sigma = {sigma:.3g}, more "
                         f"than 2^33 times sensitivity={sensitivity!r}: too much noise for the "
                         f"integer grid (epsilon must be larger)")
    sampler = DiscreteGaussian(sigma / step)
    exact_delta = sampler.delta_for_shift(D, epsilon)
    for _ in range(1000):                  # the discrete law's delta can exceed the continuous
        if exact_delta <= delta:
            break
        sampler = DiscreteGaussian(sampler.sigma * (1 + 2**-20))
        exact_delta = sampler.delta_for_shift(D, epsilon)
    else:
        raise ValueError(f"delta={delta!r} is too small for the discrete Gaussian's accounting at "
                         f"epsilon={epsilon!r} (its error bound, about 1e-9/sigma^2, exceeds it)")
    eta, extra = sampler.float_cost(D)
    guarantee = (epsilon + 2 * eta, math.exp(eta) * exact_delta + extra)
    return step, sampler, guarantee


def gaussian_mechanism(value, sensitivity, epsilon, delta, rng=None, calibration="analytic"):
    """Release `value` + Gaussian noise N(0, sigma^2) per coordinate: (epsilon, delta)-DP.

    Input: a real number or an array; neighbouring inputs' values differ by at most
    Δ = `sensitivity` in L2.
    (epsilon, delta)-DP (Dwork & Roth 2014, Def 2.4): P[M(x) in S] <= e^epsilon P[M(x') in S]
    + delta for all neighbours and all sets S of outputs.
    Calibration: "analytic" (default) takes the smallest sigma that is (epsilon, delta)-DP
    (Balle & Wang 2018, Thm 8; any epsilon > 0); "classic" takes
    Δ sqrt(2 ln(1.25/delta))/epsilon (Dwork & Roth 2014, Thm A.1; epsilon < 1 only).
    Float-safe like `laplace_mechanism`: values rounded to the grid
    Λ = 2^(floor(log2 min(Δ, sigma)) - 12), plus Λ Y with Y the discrete Gaussian
    N_Z(0, (sigma/Λ)^2) (Canonne, Kamath, Steinke 2020, Alg. 3), sigma calibrated for the
    rounded sensitivity DΛ, D = floor(Δ/Λ) + 1 (at most Δ(1 + 2^-12)).
    Privacy in floating point: `gaussian_guarantee` gives (epsilon', delta') with the discrete
    Gaussian's exact delta (its hockey-stick divergence summed over the integers) and what
    the sampler adds (`noise.DiscreteGaussian`): epsilon' - epsilon < 1e-7, delta' within
    1e-10 of delta, for a scalar or a vector differing in one coordinate or lying on the grid.
    Accuracy: noise mean 0, standard deviation sigma (as the continuous mechanism's, to
    relative 1e-6 for sigma/Λ >= 4096), plus rounding by at most Λ/2.
    Returns a float for a scalar `value`, else an array of the same shape.
    """
    if calibration not in _CALIBRATIONS:
        raise ValueError(f"calibration must be 'analytic' or 'classic'; got {calibration!r}")
    sensitivity, epsilon, delta = _gaussian_parameters(sensitivity, epsilon, delta)
    step, sampler, _ = _gaussian_plan(sensitivity, epsilon, delta, calibration)
    array = _real_array("value", value)
    limit = (2**52 - 64 * sampler.sigma) * step
    if array.size and np.max(np.abs(array)) > limit:
        raise ValueError(f"each entry of value must be at most {limit:.6g} in absolute value for "
                         f"sensitivity={sensitivity!r}, epsilon={epsilon!r}, delta={delta!r} "
                         f"(value + noise must be exact on the noise grid); got "
                         f"{np.max(np.abs(array))!r}")
    rounded = np.rint(array.astype(float) / step).astype(np.int64)
    noisy = (rounded + sampler.sample(rounded.shape, as_rng(rng))).astype(float) * step
    return float(noisy) if array.ndim == 0 else noisy


def gaussian_guarantee(sensitivity, epsilon, delta, calibration="analytic"):
    """(epsilon', delta'): the privacy `gaussian_mechanism` has in floating point, and
    the sigma it uses: returns (epsilon', delta', sigma)."""
    if calibration not in _CALIBRATIONS:
        raise ValueError(f"calibration must be 'analytic' or 'classic'; got {calibration!r}")
    step, sampler, guarantee = _gaussian_plan(*_gaussian_parameters(sensitivity, epsilon, delta),
                                              calibration)
    return guarantee + (sampler.sigma * step,)


# ----------------------------------------------------------------------------------------
# Geometric mechanism = discrete Laplace noise
# ----------------------------------------------------------------------------------------

def discrete_laplace_pmf(k, scale):
    """The exact pmf of the discrete Laplace law with `scale`: P(k) ∝ exp(-|k|/scale), k ∈ Z.

    With alpha = exp(-1/scale) the normaliser is sum_k alpha^|k| = (1 + alpha)/(1 - alpha),
    so P(k) = (1 - alpha)/(1 + alpha) * alpha^|k| = tanh(1/(2 scale)) * exp(-|k|/scale).
    Vectorised: a float for scalar `k`, else an array.
    """
    scale = float(_positive("scale", scale))
    k = require_array("k", k, integer=True)
    with np.errstate(over="ignore"):   # |k|/scale = inf for a tiny scale: pmf exactly 0
        pmf = math.tanh(0.5 / scale) * np.exp(-np.abs(k) / scale)
    return float(pmf) if pmf.ndim == 0 else pmf


def geometric_mechanism(value, sensitivity, epsilon, rng=None, exact=False):
    """Release integer `value` + two-sided geometric noise, P(k) ∝ exp(-epsilon |k| / Δ).

    Δ = `sensitivity`, a positive integer; noise is drawn independently per coordinate.
    Output: integers only, so no floating-point Laplace sample, whose low-order bits can leak
    the input (Mironov 2012), is released.
    Privacy: with the exact discrete Laplace law, epsilon-DP for integer-valued queries of L1
    sensitivity Δ: moving the centre by at most Δ changes every output's probability by a
    factor of at most e^epsilon (the proof of Dwork 2011, Thm 2, with sums in place of
    integrals).
    - `exact=True` draws each noise term with `sample_discrete_laplace_exact` (rational
      arithmetic only): exactly that law, exactly epsilon-DP. Slow (pure Python).
    - The default draws with `noise.DiscreteLaplace` (vectorised, uniform 64-bit integers
      compared with integer thresholds computed in 50-digit arithmetic): a law within 2^-29
      relative of the exact one on a support cut where the tail is below 2^-70, so
      (epsilon + eta, delta)-DP with eta < 1e-8 and delta < 1e-20 (`guarantee` of the sampler;
      both computed exactly for the given parameters, per differing coordinate).
    Accuracy: noise mean 0, variance 2 alpha/(1 - alpha)^2 with alpha = exp(-epsilon/Δ),
    close to Laplace's 2(Δ/epsilon)^2 for small epsilon/Δ.
    Returns an int for a scalar `value`, else an int64 array of the same shape.
    """
    sensitivity = require_int("sensitivity", sensitivity, low=1,  # Δ
                              note="the geometric mechanism needs an integer sensitivity")
    epsilon = require_epsilon(epsilon)
    if epsilon / sensitivity > 700:   # a = e^(-epsilon/Δ) < 1e-304: no noise left to draw
        raise ValueError(f"epsilon/sensitivity must be at most 700 (beyond it the noise is 0 except "
                         f"with probability below 1e-304); got sensitivity={sensitivity!r}, "
                         f"epsilon={epsilon!r}")
    if sensitivity / epsilon > MAX_INT_NOISE_SCALE:   # int64 draws would saturate: no noise
        raise ValueError(f"sensitivity/epsilon, the noise scale, must be at most 2^56 ≈ 7.2e16 "
                         f"(the noise is an int64); got sensitivity={sensitivity!r}, "
                         f"epsilon={epsilon!r}")
    array = require_array("value", value, integer=True)
    if array.dtype.kind not in "iu":
        raise TypeError(f"value must hold integers; got dtype {array.dtype}")
    if array.size and (array.min() < -2**62 or array.max() > 2**62):
        bad = array[(array < -2**62) | (array > 2**62)].flat[0]
        raise ValueError(f"each entry of value must be an integer in [-2^62, 2^62] (value + noise "
                         f"must fit in int64); got {bad.item()!r}")
    exact = require_bool("exact", exact, note="True: the exact rational sampler")
    rng = as_rng(rng)
    if exact:
        scale = Fraction(sensitivity) / Fraction(epsilon)  # a float is an exact binary fraction
        noise = sample_discrete_laplace_exact(scale, rng, size=array.size).reshape(array.shape)
    else:
        noise = DiscreteLaplace(sensitivity, epsilon).sample(array.shape, rng)
    noisy = array.astype(np.int64) + noise
    return int(noisy) if array.ndim == 0 else noisy


def _uniform_below(n: int, rng: np.random.Generator) -> int:
    """An exactly uniform integer in {0, ..., n - 1}, for any Python int n >= 1."""
    if n < 2**63:
        return int(rng.integers(n))  # numpy's bounded integers are exact (rejection)
    bits = n.bit_length()
    words = -(-bits // 32)
    while True:  # rejection sampling on `bits` uniform bits
        value = 0
        for word in rng.integers(0, 2**32, size=words, dtype=np.uint64):
            value = (value << 32) | int(word)
        value >>= 32 * words - bits
        if value < n:
            return value


def _bernoulli(p: Fraction, rng) -> bool:
    """Bernoulli(p) for a rational p in [0, 1], exactly."""
    return _uniform_below(p.denominator, rng) < p.numerator


def _bernoulli_exp_minus(gamma: Fraction, rng) -> bool:
    """Bernoulli(exp(-gamma)) for a rational gamma >= 0, exactly (Canonne, Kamath, Steinke 2020, Algorithm 1)."""
    if gamma <= 1:
        # P(K > k) = gamma^k / k!, so P(K odd) = sum_j (-gamma)^j / j! = exp(-gamma).
        k = 1
        while _bernoulli(gamma / k, rng):
            k += 1
        return k % 2 == 1
    for _ in range(math.floor(gamma)):
        if not _bernoulli_exp_minus(Fraction(1), rng):
            return False
    return _bernoulli_exp_minus(gamma - math.floor(gamma), rng)


def sample_discrete_laplace_exact(scale, rng=None, size=None):
    """Exact discrete Laplace samples, P(z) ∝ exp(-|z|/scale), using only integer arithmetic.

    The reference sampler of Canonne, Kamath and Steinke, "The Discrete Gaussian for
    Differential Privacy" (2020), Algorithm 2 with Algorithm 1 for Bernoulli(exp(-gamma)).
    `scale` is a Fraction or a number (a float is converted to its exact binary fraction),
    so the output law is exactly the discrete Laplace pmf: no floating point anywhere.
    Slow (pure Python); used to check the fast sampler and for `exact=True`.
    Returns an int, or an int64 array of `size` samples.
    """
    _positive("scale", scale)
    scale = Fraction(scale)
    rng = as_rng(rng)
    if size is not None:
        size = require_int("size", size, low=0)
        if scale > MAX_INT_NOISE_SCALE:
            raise ValueError(f"scale must be at most 2^56 ≈ 7.2e16 when size is given (the "
                             f"samples are returned as int64); got {float(scale)!r}")
        return np.array([sample_discrete_laplace_exact(scale, rng) for _ in range(size)],
                        dtype=np.int64)
    t, s = scale.numerator, scale.denominator  # scale = t/s
    while True:
        u = _uniform_below(t, rng)
        if not _bernoulli_exp_minus(Fraction(u, t), rng):
            continue
        v = 0
        while _bernoulli_exp_minus(Fraction(1), rng):
            v += 1
        x = u + t * v  # P(x) ∝ exp(-x/t) on {0, 1, ...}
        y = x // s     # P(y) ∝ exp(-y s/t) = exp(-y/scale)
        negative = _bernoulli(Fraction(1, 2), rng)
        if negative and y == 0:
            continue   # otherwise 0 would be drawn twice as often
        return -y if negative else y


# ----------------------------------------------------------------------------------------
# Exponential mechanism
# ----------------------------------------------------------------------------------------

def _float_scores(scores) -> np.ndarray:
    """`scores` validated as a non-empty 1-D array of finite float64s (what is sampled from)."""
    scores = _real_array("scores", scores, ndim=1, nonempty=True,
                         note="one score per candidate").astype(float)
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite in float64 (at most about 1.8e308 in size); got "
                         f"{scores[~np.isfinite(scores)][0]!r} after conversion to float64")
    return scores


def exponential_mechanism_probabilities(scores, sensitivity, epsilon, monotone=False):
    """The exact output law of `exponential_mechanism`: P(r) ∝ exp(epsilon q(r) / (2 Δ)).

    Δ = `sensitivity`; with `monotone=True` the factor is epsilon q(r) / Δ. Computed
    stably (scores shifted by their maximum before exponentiating), so scores of any
    magnitude work. Returns a float array summing to 1, in the order of `scores`.
    """
    sensitivity = _positive("sensitivity", sensitivity)
    epsilon = require_epsilon(epsilon)
    monotone = require_bool("monotone", monotone,
                            note="True: the factor epsilon/Δ, for monotone utilities")
    scores = _float_scores(scores)
    factor = epsilon / (sensitivity if monotone else 2.0 * sensitivity)
    with np.errstate(over="ignore", invalid="ignore"):  # ±1e308 scores: -inf, weight 0
        gaps = scores - scores.max()
        # <= 0, and exactly 0 for the best candidates (also when factor overflows to inf:
        # the limit is the uniform law on the maximisers, not 0 * inf = NaN); a factor that
        # underflows to 0 leaves the uniform law (not -inf * 0 = NaN)
        logits = np.where((gaps == 0) | (factor == 0), 0.0, gaps * factor)
    weights = np.exp(logits)
    return weights / weights.sum()


def exponential_mechanism_implemented_law(scores, sensitivity, epsilon, monotone=False) -> list:
    """The exact output law of `exponential_mechanism(exact=False)` as numpy draws it:
    a list of Fractions, in the order of `scores`.

    numpy's `Generator.choice(k, p=probabilities)` takes the float cumulative sums
    c_i = p_0 + ... + p_i, divides them by c_{k-1}, and returns the number of c_i <= u for
    one uniform u = `rng.random()` (inverse cdf; numpy/random/_generator.pyx, checked
    against the draws in the tests). As u is a multiple of 2^-53, P(output = i) =
    I(c_i) - I(c_{i-1}), I = `noise.implemented_probability` (c_{-1} = 0).
    """
    cdf = np.cumsum(exponential_mechanism_probabilities(scores, sensitivity, epsilon, monotone))
    cdf /= cdf[-1]
    below = [Fraction(0)] + [implemented_probability(c) for c in cdf]
    return [b - a for a, b in zip(below, below[1:])]


def exponential_mechanism(candidates, scores, sensitivity, epsilon, rng=None, monotone=False,
                          exact=True):
    """Release one candidate r with probability ∝ exp(epsilon q(r) / (2 Δ)) (McSherry–Talwar).

    `scores[i]` = q(D, candidates[i]), the utility of candidate i on the data;
    Δ = `sensitivity` = max over neighbouring D, D' and over r of |q(D, r) - q(D', r)|.
    Privacy: epsilon-DP for every utility with sensitivity Δ. With `monotone=True` the
    factor is epsilon/Δ, which is epsilon-DP only when, between any two neighbours, all
    scores move in the same direction (e.g. counts).
    Accuracy: P[q(output) < max_r q(r) - (2Δ/epsilon)(ln(|R|/|R*|) + t)] <= e^-t, R* the
    maximisers (Mir et al. 2011, Thm 2, whose epsilon is our epsilon/(2Δ); Δ/epsilon for
    `monotone=True`).
    Correction: Dwork 2011, "the exponential mechanism" samples
    ∝ exp(u epsilon / Δu) and says this "ensures epsilon-DP". That holds only for monotone
    utilities: in general the numerator and the normaliser can each move by e^epsilon,
    giving 2 epsilon, as Mir et al. 2011, Thm 2 states (exp(epsilon q) is 2 epsilon Δq-DP).
    Hence the 2Δ here, and Dwork 2011's formula is `monotone=True`.
    In floating point:
    - `exact=True` (default): the law above exactly, for the scores, Δ and epsilon as given
      (as float64 numbers, each read as the binary fraction it is; integer scores above
      2^53 and Fraction arguments are rounded to float64 first). Rejection sampling: propose
      a candidate uniformly and keep it with probability exactly exp(-g), g = epsilon (max q - q(r)) / (2Δ)
      in rational arithmetic (`exp_coin.first_heads`: a uniform V < exp(-g), decided by
      rigorous float bounds and, for about 2^-40 of the coins, by correctly rounded decimals);
      a kept r has probability exactly ∝ exp(-g_r). So the program is exactly epsilon-DP
      whenever the float scores have sensitivity Δ. Expected proposals:
      |R| / sum_r exp(-g_r) <= |R|/|R*|, drawn in vectorised batches (about 100 µs a draw
      over a few candidates, 3.2-3.4x `exact=False`; benchmarks/bench_noise.py). The time
      depends on the scores, as for any rejection sampler, not the law.
    - `exact=False`: numpy's inverse-cdf `choice` on one uniform multiple of 2^-53 (exact
      law: `exponential_mechanism_implemented_law`); fast for huge |R|. Each outcome's
      probability is off by a few multiples of 2^-53, so ratios between outcomes of
      probability above 2^-40 stay within e^epsilon (1 + 2^-30) (tests compute them
      exactly), but an outcome whose probability is near 2^-53 or below can be possible on
      one input and impossible on its neighbour: (epsilon, delta)-DP with delta of order
      k 2^-52, not pure epsilon-DP.
    """
    probabilities = exponential_mechanism_probabilities(scores, sensitivity, epsilon,
                                                        monotone)
    if isinstance(candidates, (str, bytes)) or not isinstance(candidates, (Sequence, np.ndarray)):
        raise TypeError("candidates must be a sequence (list, tuple, range or array), indexed "
                        f"0, 1, ...; got {type(candidates).__name__}")
    if len(candidates) != len(probabilities):
        raise ValueError("candidates and scores must have the same length (one score per "
                         f"candidate); got {len(candidates)} candidates and "
                         f"{len(probabilities)} scores")
    exact = require_bool("exact", exact, note="True: the exact sampler; False: numpy's choice")
    rng = as_rng(rng)
    if exact:
        factor = Fraction(float(epsilon)) / Fraction(float(sensitivity)) / (1 if monotone else 2)
        index = _exponential_exact(_float_scores(scores), factor, rng,
                                   expected_proposals=len(probabilities) * probabilities.max())
    else:
        index = rng.choice(len(probabilities), p=probabilities)
    return candidates[int(index)]


def _exponential_exact(scores: np.ndarray, factor: Fraction, rng,
                       expected_proposals: float) -> int:
    """An index i with probability exactly ∝ exp(-g_i), g_i = factor (max - scores[i]) in
    rational arithmetic: uniform proposals, drawn in batches of about twice the expected
    number, each kept by an exact exp(-g) coin (`exp_coin.first_heads`)."""
    best = scores.max()
    # factor = m 2^e with m in [1, 2]: g~ = m ldexp(d~, e) has three roundings at most (d~, the
    # scaling if it lands in the subnormals, the product), or is +inf only when g > 2^1023
    e = factor.numerator.bit_length() - factor.denominator.bit_length()
    if factor < Fraction(2) ** e:
        e -= 1
    m = float(factor / Fraction(2) ** e)
    batch = int(min(2**20, max(64, 2 * expected_proposals)))
    while True:
        index = rng.integers(len(scores), size=batch)
        with np.errstate(over="ignore", under="ignore"):
            gap, shift = best - scores[index], np.zeros(batch, dtype=np.int64)
            if not np.all(np.isfinite(gap)):                 # best - s overflowed: a quarter
                shift = np.where(np.isinf(gap), 2, 0)
                gap = np.where(shift == 2, best * 0.25 - scores[index] * 0.25, gap)
            g = m * np.ldexp(gap, np.clip(e + shift, -2**30, 2**30))   # 0 where s is the best
        exact_g = lambda j: factor * (Fraction(best) - Fraction(scores[index[j]]))  # noqa: E731
        found = first_heads(g, exact_g, rng)
        if found is not None:
            return int(index[found])


# ----------------------------------------------------------------------------------------
# Randomized response (local model)
# ----------------------------------------------------------------------------------------

class RandomizedResponse:
    """Randomized response RR of Local-mechanisms notes, §1: a local mechanism for counting ones.

    Each party i with bit x_i draws N_i ∈ {-1, 1} with P(N_i = 1) = (1 + bias)/2 and
    publishes M_i = N_i (-1)^{x_i}; the aggregate estimates the number of ones as
    n/2 - (1/(2 bias)) sum_i M_i.
    Privacy: local epsilon-DP (Local-mechanisms notes, Def 1: any two values of one party's bit) with
    epsilon = ln((1 + bias)/(1 - bias)) = 2 artanh(bias) = 2 bias + O(bias^3), the exact
    value of Local-mechanisms notes, Thm 2's "2 epsilon + O(epsilon^2)". bias = 1/2 is Warner's protocol with
    fair coins (`warner_response`): epsilon = ln 3.
    Accuracy: unbiased, standard deviation sqrt((1 - bias^2) n)/(2 bias) (Local-mechanisms notes, §1), of order
    sqrt(n)/epsilon: optimal for local mechanisms up to constants (Local-mechanisms notes, §1, the Omega(sqrt(n)/
    epsilon) lower bound), against the constant sqrt(2)/epsilon of the central Laplace mechanism.
    Naming: Local-mechanisms notes calls the bias epsilon; here it is `bias`, and `.epsilon` is the privacy.
    Corrections: Local-mechanisms notes, Thm 2 gives the privacy as 2 bias + O(bias^2); the exact value above is
    2 bias + (2/3) bias^3 + ..., so the error term is even O(bias^3) (tests check both).
    Local-mechanisms notes then compares with "the standard deviation of the Laplace mechanism is 1/(2 epsilon) for
    privacy parameter 2 epsilon": 1/(2 epsilon) is the SCALE of Lap(1/(2 epsilon)); its standard
    deviation is sqrt(2)/(2 epsilon). The sqrt(n) conclusion stands; the constant is off by sqrt(2).
    Dwork 2011's "expected error sqrt(2)/ln 3" for the Laplace mechanism is likewise its standard
    deviation (E|Lap(1/epsilon)| = 1/epsilon).
    Vectorised: `randomize` and `estimate` work on arrays of any shape (last axis = parties).
    In floating point: N_i = 1 when numpy's uniform (a multiple of 2^-53) is below
    t = (1 + bias)/2 rounded DOWN to a multiple of 2^-53 (`noise.threshold_below`), so
    P(N_i = 1) = t exactly and the privacy is exactly `implemented_epsilon` = ln(t/(1 - t))
    <= ln((1 + bias)/(1 - bias)) = `epsilon` (rounding to nearest instead made it infinite at
    bias = 1 - 2^-53, where (1 + bias)/2 rounds to 1); at most 2^-51/(1 - bias) under it.
    """

    def __init__(self, bias):
        self.bias = _invertible("bias", require_real(
            "bias", bias, low=0.0, high=1.0, low_open=True, high_open=True,
            note="Local-mechanisms notes, §1: N_i = 1 with probability (1 + bias)/2"))
        self._threshold = threshold_below((1 + Fraction(self.bias)) / 2)   # P(N_i = 1)

    @classmethod
    def from_epsilon(cls, epsilon):
        """The RR whose privacy is `epsilon`: bias = tanh(epsilon/2).

        In floating point: tanh(epsilon/2) is rounded, and near 1 its rounding moves
        (1 + bias)/(1 - bias) by a relative 2^-53/(1 - bias) (+4.4 % at epsilon = 36), so the
        bias is lowered, when needed, to 2t - 1 with t the largest threshold whose ratio
        t/(1 - t) is at most a rational lower bound of e^epsilon (checked exactly): the
        privacy is at most epsilon and, for epsilon <= 20, within 4e-8 of it (tests check a
        range of epsilon).
        """
        bias = math.tanh(require_epsilon(epsilon) / 2)
        if bias <= 0.0:
            raise ValueError(f"epsilon must be at least about 1e-307 (the bias tanh(epsilon/2) "
                             f"underflows to 0: RR would report pure noise); got {epsilon!r}")
        if bias >= 1.0:
            raise ValueError(f"epsilon must be below about 38 (the bias tanh(epsilon/2) rounds "
                             f"to 1 in floating point: RR would report the truth); got {epsilon!r}")
        rr = cls(bias)
        if rr.implemented_ratio > exp_lower_bound(epsilon):
            top = threshold_for_ratio(epsilon, 1)          # 2 top - 1 is a double
            rr = cls(max(2 * top - 1, 2.0**-54))           # (threshold 1/2: ratio 1)
        return rr

    @property
    def epsilon(self) -> float:
        """The privacy RR really yields: ln((1 + bias)/(1 - bias))."""
        return math.log1p(self.bias) - math.log1p(-self.bias)

    @property
    def implemented_ratio(self) -> Fraction:
        """t/(1 - t), t = P(N_i = 1) of the floating-point program: the exact largest ratio
        P(M_i = m | x)/P(M_i = m | x') over reports m and bits x, x'."""
        return Fraction(self._threshold) / (1 - Fraction(self._threshold))

    @property
    def implemented_epsilon(self) -> float:
        """The privacy the code really has: ln of `implemented_ratio`, computed exactly and
        rounded once (<= `epsilon` up to that rounding)."""
        return math.log(self.implemented_ratio)

    def report_distribution(self, bit) -> dict:
        """The law of M_i for x_i = `bit`: {-1: P(M_i = -1), 1: P(M_i = 1)}, from (1 + bias)/2
        (the code's P(N_i = 1) is that rounded down to a multiple of 2^-53, see the class)."""
        bit = require_int("bit", bit, low=0, high=1)
        p_one = (1 + self.bias) / 2 if bit == 0 else (1 - self.bias) / 2
        return {-1: 1 - p_one, 1: p_one}

    def report(self, bit, rng=None) -> int:
        """The local algorithm M_i of one party, literally as in Local-mechanisms notes, §1: sample N_i in {-1, 1}
        with P(N_i = 1) = (1 + bias)/2 and output N_i (-1)^{x_i}. Slow; `randomize` is the
        vectorised version (one independent N_i per party, so the laws agree)."""
        bit = require_int("bit", bit, low=0, high=1)
        rng = as_rng(rng)
        n_i = 1 if rng.random() < self._threshold else -1
        return n_i * (-1) ** bit

    def randomize(self, bits, rng=None) -> np.ndarray:
        """The reports M_i = N_i (-1)^{x_i} (int array of ±1, the shape of `bits`; any shape)."""
        bits = require_array("bits", bits, allowed={0, 1}, nonempty=True)
        noise = np.where(as_rng(rng).random(bits.shape) < self._threshold, 1, -1)
        return (noise * (1 - 2 * bits)).astype(np.int64)

    def estimate(self, reports):
        """The estimate n/2 - (1/(2 bias)) sum_i M_i of the number of ones.

        Unbiased: E[M_i] = E[N_i] (-1)^{x_i} = bias (1 - 2 x_i), so
        E[sum_i M_i] = bias (n - 2 c) for c ones, and n/2 - bias (n - 2c)/(2 bias) = c.
        `reports` of shape (..., n) gives one estimate per row (a float for 1-D input).
        """
        reports = np.atleast_1d(require_array("reports", reports, allowed={-1, 1},
                                              nonempty=True))
        n = reports.shape[-1]
        estimates = n / 2 - reports.sum(axis=-1) / (2 * self.bias)
        return float(estimates) if reports.ndim <= 1 else estimates

    def variance(self, n) -> float:
        """Variance of `estimate` on n parties: (1 - bias^2) n / (2 bias)^2 (Local-mechanisms notes, §1)."""
        return self.std(n) ** 2

    def std(self, n) -> float:
        """Standard deviation of `estimate` on n parties: sqrt((1 - bias^2) n)/(2 bias).

        Var M_i = E[M_i^2] - E[M_i]^2 = 1 - bias^2 whatever x_i is; the M_i are independent,
        so Var sum_i M_i = (1 - bias^2) n and the estimate divides it by (2 bias)^2.
        """
        n = require_int("n", n, low=1)
        return math.sqrt((1 - self.bias**2) * n) / (2 * self.bias)

    def __repr__(self) -> str:
        return f"RandomizedResponse(bias={self.bias!r})"


def warner_epsilon(truth_probability=0.5) -> float:
    """The privacy of `warner_response`: ln((1 + p)/(1 - p)), p = truth_probability.

    P(report = x) = p + (1 - p)/2 = (1 + p)/2 and P(report = 1 - x) = (1 - p)/2.
    Fair coins (p = 1/2): 3/4 against 1/4, ratio 3, ln 3 (Dwork 2011).
    """
    p = require_probability("truth_probability", truth_probability)
    return math.log1p(p) - math.log1p(-p)


def warner_response(bits, rng=None, truth_probability=0.5) -> np.ndarray:
    """Warner's randomized response as in Dwork 2011, "randomized response".

    Dwork 2011's protocol (after Warner 1965): flip a fair coin; heads, answer with a second
    fair coin; tails, answer truthfully. In general the first coin says "truth" with
    probability `truth_probability` (p; Dwork 2011's is 1/2), otherwise a fresh fair coin is
    reported. Returns the 0/1 reports (int array, shape of `bits`; any shape).
    Privacy: local ln((1 + p)/(1 - p))-DP (`warner_epsilon`; Local-mechanisms notes, Def 1, any two values of one
    respondent's bit); ln 3 for fair coins. Only the reports leave the respondent, so they can
    be published: the curator need not be trusted.
    Accuracy: see `warner_estimate`: unbiased, error Theta(sqrt(n)) (Dwork 2011).
    It is `RandomizedResponse(bias=p)` with the report r in {0, 1} in place of M = 1 - 2r:
    P(r = x) = (1 + p)/2 = P(N = 1).
    In floating point: the first coin is `rng.random() < p`, true with probability
    p' = `noise.implemented_probability(p)` (p itself for p >= 1/2, else p rounded up by less
    than 2^-53) and the second is an exact fair coin (`rng.integers`), so the privacy is exactly
    ln((1 + p')/(1 - p')): `epsilon` for p >= 1/2, at most 2^-51 above it below (tests compute it).
    """
    p = require_probability("truth_probability", truth_probability)
    bits = require_array("bits", bits, allowed={0, 1}, nonempty=True)
    rng = as_rng(rng)
    truthful = rng.random(bits.shape) < p
    coins = rng.integers(0, 2, size=bits.shape)
    return np.where(truthful, bits, coins).astype(np.int64)


def warner_estimate(reports, truth_probability=0.5):
    """The unbiased estimate (sum_i r_i - (1 - p) n/2) / p of the number of ones.

    E[r_i] = p x_i + (1 - p)/2, so E[sum_i r_i] = p c + (1 - p) n/2 for c ones: solve for c.
    Each r_i is Bernoulli((1 ± p)/2) with variance (1 - p^2)/4, so the standard deviation
    is sqrt((1 - p^2) n)/(2p), as for `RandomizedResponse(p).std(n)`.
    `reports` of shape (..., n) gives one estimate per row (a float for 1-D input).
    """
    p = _invertible("truth_probability", require_probability("truth_probability", truth_probability))
    reports = np.atleast_1d(require_array("reports", reports, allowed={0, 1}, nonempty=True))
    n = reports.shape[-1]
    estimates = (reports.sum(axis=-1) - (1 - p) * n / 2) / p
    return float(estimates) if reports.ndim <= 1 else estimates
