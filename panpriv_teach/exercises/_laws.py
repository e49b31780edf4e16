"""Is a sample drawn from the law an exercise asks for? Goodness-of-fit tests for the
checkers, with false-rejection bounds that hold at every sample size (no normal
approximation), so that a correct answer fails with probability below `ALPHA`:

- any law given by its cdf: the Dvoretzky–Kiefer–Wolfowitz inequality with Massart's
  constant, P(sup_x |F_n(x) − F(x)| > t) ≤ 2 exp(−2 n t²);
- counts: exact binomial tails, the categories or bands of one test Bonferroni-corrected;
- a scale: the mean of n Exp(s) variables is s·Gamma(n, 1/n), exactly.

A KS distance alone needs tens of thousands of draws to tell Laplace from Gaussian noise
(their distance is 0.04 to 0.06); the band counts of `laplace_misfit` (how often |noise|
falls below 0.3·s, above 3·s, ...) tell them apart with a few thousand.

`laplace_misfit` also says HOW a sample misses the Laplace law (no noise, noise on some
calls only, few values, one-sided, off-centre, wrong scale, Gaussian, another shape), so a
checker can name the mistake.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from scipy import stats

# The false-failure budget of one exercise: the statistical tests deciding its verdict
# share it (Bonferroni), so a correct answer fails with probability below 1e-7 < 1e-6.
ALPHA = 1e-7

# Bands of the standardised noise z = noise / s for the Laplace test: the centre and the
# tails are where Gaussian, uniform and two-point counterfeits differ from Lap(1).
_BANDS = np.array([-np.inf, -3.0, -1.0, -0.3, 0.0, 0.3, 1.0, 3.0, np.inf])


def dkw_radius(n: int, alpha: float) -> float:
    """The t with 2 exp(−2 n t²) = alpha: sup |F_n − F| exceeds it w.p. at most alpha."""
    return math.sqrt(math.log(2 / alpha) / (2 * n))


def ks_distance(sample, cdf) -> float:
    """sup_x |F_n(x) − F(x)| for the empirical cdf F_n of `sample` and a continuous `cdf`."""
    x = np.sort(np.asarray(sample, dtype=float))
    n = len(x)
    F = cdf(x)
    i = np.arange(1, n + 1)
    return float(max(np.max(i / n - F), np.max(F - (i - 1) / n)))


def fits_cdf(sample, cdf, alpha: float) -> bool:
    """Whether `sample` is consistent with `cdf` (a false rejection has probability ≤ alpha)."""
    return ks_distance(sample, cdf) <= dkw_radius(len(sample), alpha)


def fits_discrete(sample, support, pmf, alpha: float) -> bool:
    """Whether `sample` is consistent with the discrete law putting mass pmf[i] on
    support[i] (sorted): the DKW test, with both cdfs compared at the support points (where
    they jump). A value off the support rejects at once."""
    sample = np.asarray(sample, dtype=float)
    support = np.asarray(support, dtype=float)
    index = np.searchsorted(support, sample)
    inside = (index < len(support)) & (support[np.minimum(index, len(support) - 1)] == sample)
    if not np.all(inside):
        return False
    empirical = np.cumsum(np.bincount(index, minlength=len(support))) / len(sample)
    return float(np.max(np.abs(empirical - np.cumsum(pmf)))) <= dkw_radius(len(sample), alpha)


def count_fits(k: int, n: int, p_low: float, p_high: float | None = None,
               alpha: float = ALPHA) -> bool:
    """Whether k successes in n trials are consistent with some success probability in
    [p_low, p_high] (exact binomial tails, alpha/2 each)."""
    p_high = p_low if p_high is None else p_high
    too_few = stats.binom.cdf(k, n, min(max(p_low, 0.0), 1.0)) <= alpha / 2
    too_many = stats.binom.sf(k - 1, n, min(max(p_high, 0.0), 1.0)) <= alpha / 2
    return not (too_few or too_many)


def counts_fit(counts, probabilities, alpha: float) -> bool:
    """Whether category counts are consistent with their probabilities (each category an
    exact binomial test at alpha / the number of categories)."""
    counts = np.asarray(counts)
    n, share = int(counts.sum()), alpha / len(counts)
    return all(count_fits(int(k), n, float(p), alpha=share)
               for k, p in zip(counts, probabilities))


def scale_interval(n: int, alpha: float) -> tuple[float, float]:
    """The interval holding mean(|X|)/s w.p. 1 − alpha for n draws X of Lap(s): |X| is
    Exp(s), so the mean is s·Gamma(n, 1/n)."""
    law = stats.gamma(n, scale=1 / n)
    return float(law.ppf(alpha / 2)), float(law.isf(alpha / 2))


def laplace_cdf(x, scale: float = 1.0):
    z = np.asarray(x, dtype=float) / scale
    half_tail = 0.5 * np.exp(-np.abs(z))
    return np.where(z < 0, half_tail, 1 - half_tail)


def difference_cdf(x, scale: float = 1.0):
    """The cdf of X − Y for independent X, Y ~ Lap(scale): the law of the difference of two
    cells' noise when each cell has its own draw."""
    z = np.abs(np.asarray(x, dtype=float)) / scale
    tail = (2 + z) * np.exp(-z) / 4
    return np.where(np.asarray(x) < 0, tail, 1 - tail)


def _band_probabilities(ratio_low: float, ratio_high: float):
    """For each band of z = noise/ŝ, the range of its probability when the true scale s has
    ŝ/s in [ratio_low, ratio_high] (z ~ Lap(s/ŝ)); ratio 1 for a known scale."""
    grid = np.linspace(ratio_low, ratio_high, 41)
    probs = np.diff(laplace_cdf(_BANDS[None, :] * grid[:, None]), axis=1)
    return probs.min(axis=0), probs.max(axis=0)


def laplace_fits(z, alpha: float, ratio=(1.0, 1.0)) -> bool:
    """Whether the standardised noise z is consistent with Lap(1): a KS test (alpha/2) and
    exact binomial tests of the eight bands (alpha/2 between them). `ratio`: the range of
    ŝ/s when z was standardised by an estimated scale ŝ (then z ~ Lap(s/ŝ))."""
    z = np.asarray(z, dtype=float)
    n = len(z)
    if np.count_nonzero(z == 0) >= 2:   # exactly 0 has probability < 1e-14 per Laplace draw
        return False
    low, high = _band_probabilities(*ratio)
    counts = np.histogram(z, _BANDS)[0]
    if not all(count_fits(int(k), n, p0, p1, alpha=alpha / 2 / len(counts))
               for k, p0, p1 in zip(counts, low, high)):
        return False
    # the cdf of Lap(s/ŝ) is within `slack` of Lap(1)'s for every ŝ/s in the range
    slack = max(float(np.max(np.abs(laplace_cdf(_GRID * r) - laplace_cdf(_GRID))))
                for r in ratio)
    return ks_distance(z, laplace_cdf) <= dkw_radius(n, alpha / 2) + slack


_GRID = np.linspace(-12, 12, 2401)


class Misfit(NamedTuple):
    """How a sample of noise misses Lap(s). kind: "none" (no noise at all), "constant"
    (the same non-zero value every time), "whole numbers" (rounded or discrete noise),
    "partly exact" (exactly 0 on some calls),
    "few values", "one-sided", "off-centre", "scale", "gaussian" or "shape". `share`: the
    fraction exactly 0; `ratio`: mean|noise|/s; `shift`: median(noise)/s; `values`: how
    many distinct values; `tail`: the fraction with |noise| > 3s (Laplace: e^−3 = 5.0 %)."""

    kind: str
    share: float
    ratio: float
    shift: float
    values: int
    tail: float


def laplace_misfit(noise, scale: float, alpha: float) -> Misfit | None:
    """None if `noise` is consistent with independent Lap(scale) draws (a false rejection
    has probability ≤ alpha), else how it differs, the clearest feature first."""
    noise = np.asarray(noise, dtype=float).ravel()
    z = noise / scale
    if len(z) and laplace_fits(z, alpha):
        return None
    n = len(z)
    share = float(np.mean(z == 0))
    ratio = float(np.mean(np.abs(z)))
    shift = float(np.median(z))
    values = len(np.unique(z[:5_000]))
    tail = float(np.mean(np.abs(z) > 3))

    def misfit(kind):
        return Misfit(kind, share, ratio, shift, values, tail)

    if values == 1:
        return misfit("none" if z[0] == 0 else "constant")
    if values > 20 and np.all(noise == np.round(noise)):
        return misfit("whole numbers")
    if np.count_nonzero(z == 0) >= 2:
        return misfit("partly exact")
    if values <= 20:
        return misfit("few values")
    positive = int(np.sum(z > 0))
    if positive <= 0.01 * n or positive >= 0.99 * n:
        return misfit("one-sided")
    if not count_fits(positive, n, 0.5, alpha=alpha):
        return misfit("off-centre")
    # Scale-free shape: median|z|/mean|z| is ln 2 = 0.69 for Laplace, 0.85 for Gaussian
    # noise, 1 for uniform noise; P(|z| > 2 mean|z|) is 0.135, 0.11 and 0 for them.
    shape = float(np.median(np.abs(z))) / ratio
    beyond = float(np.mean(np.abs(z) > 2 * ratio))
    if abs(shape - math.log(2)) > 0.05:
        return misfit("gaussian" if 0.78 < shape < 0.92 and 0.07 < beyond < 0.15 else "shape")
    low, high = scale_interval(n, alpha)
    if not low <= ratio <= high:
        return misfit("scale")
    return misfit("shape")


def describe_misfit(misfit: Misfit, what: str, scale_name: str) -> str:
    """A diagnosis of `misfit` for noise added to `what` ("the true answer"), the asked
    scale being named `scale_name` ("Δ/ε"): the mistake, then what it breaks."""
    kind = misfit.kind
    if kind == "none":
        return (f"your release is exactly {what}: no noise was added, so anyone reading it "
                "learns the private value (no privacy at all).")
    if kind == "constant":
        return (f"your release is {what} shifted by the same amount on every call: that is "
                "not random noise, and the release gives the private value away (no privacy).")
    if kind == "whole numbers":
        return ("your noise takes whole-number values only (rounded, or drawn from a discrete "
                "law): that is not the Laplace law the task asks for, and a discrete law needs "
                "its own calibration to be ε-DP.")
    if kind == "partly exact":
        return (f"on {misfit.share:.1%} of the calls your release is {what} exactly: noise "
                "was added only sometimes, and each exact release gives the private value "
                "away (no privacy).")
    if kind == "few values":
        return (f"your noise takes only {misfit.values} different values (a coin-flip "
                "offset, not Laplace noise): the release lands on a handful of points around "
                f"{what}, which gives it away (not ε-DP).")
    if kind == "one-sided":
        return ("your noise is always on the same side (never negative, or never positive): "
                "one-sided noise biases every release (accuracy), and the privacy argument "
                "needs the two-sided Laplace law.")
    if kind == "off-centre":
        return (f"your noise is not centred on zero (its median is {misfit.shift:+.2f} times "
                f"{scale_name}): the releases are biased away from {what} (accuracy).")
    if kind == "scale":
        side = ("less noise than ε-DP needs (privacy is lost)" if misfit.ratio < 1 else
                "more noise than needed (accuracy is lost)")
        return (f"your noise has the Laplace shape but {misfit.ratio:.2f} times the scale "
                f"{scale_name}: {side}.")
    if kind == "gaussian":
        return ("your noise is Gaussian, not Laplace: its tails are too light (|noise| > 3 "
                f"scales in {misfit.tail:.1%} of the calls, Laplace: 5.0 %), and Gaussian "
                "noise gives (ε, δ)-DP at best, not the ε-DP the task asks for.")
    return (f"your noise does not follow the Laplace law Lap({scale_name}): |noise| exceeds 3 "
            f"scales in {misfit.tail:.1%} of the calls (Laplace: 5.0 %), and its mean |noise| "
            f"is {misfit.ratio:.2f} scales (Laplace: 1). ε-DP as proved needs Laplace noise.")
