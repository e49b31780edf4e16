"""Is a sample drawn from the law an exercise asks for? Goodness-of-fit tests for the
checkers, with false-rejection bounds that hold at every sample size (no normal
approximation), so that a correct answer fails with probability below `ALPHA`:

- any law given by its cdf: the Dvoretzky–Kiefer–Wolfowitz inequality with Massart's
  constant, P(sup_x |F_n(x) − F(x)| > t) ≤ 2 exp(−2 n t²);
- counts: exact binomial tails, the categories or bands of one test Bonferroni-corrected;
- a scale: the mean of n Exp(s) variables is s·Gamma(n, 1/n), exactly.

A KS distance alone needs tens of thousands of draws to tell Laplace from Gaussian noise
(their distance is 0.04 to 0.06); the band counts of `laplace_fits` (how often |noise|
falls below 0.001·s, below 0.3·s, above 3·s, ...) tell them apart with a few thousand, and
catch noise left out on a few per cent of the calls; a value drawn three times or more
(noise clipped at ±4s lands there again and again) rejects at once, unless the draws lie on
a fine grid (float-safe Laplace noise), and so does a wrong scale, when it is known, by the
exact law of the mean |noise|.

`laplace_misfit` also says HOW a sample misses the Laplace law (no noise, noise on some
calls only, clipped, few values, one-sided, off-centre, wrong scale, Gaussian, another
shape), so a checker can name the mistake. `pairs_agree` tests the independence of draws
that should be independent, beyond neighbouring ones.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from scipy import stats

# The false-failure budget of one exercise: the statistical tests deciding its verdict
# share it (Bonferroni), so a correct answer fails with probability below 1e-7 < 1e-6.
ALPHA = 1e-7

# Bands of the standardised noise z = noise / s for the Laplace test: the centre and the
# tails are where Gaussian, uniform and two-point counterfeits differ from Lap(1); the
# narrow bands |z| < 0.001 (probability 0.1 %) catch releases left (nearly) exact.
_NARROW = 0.001
_BANDS = np.array([-np.inf, -3.0, -1.0, -0.3, -_NARROW, 0.0, _NARROW, 0.3, 1.0, 3.0, np.inf])
# A value drawn 3 times or more: for float64 draws of a continuous law, at most 10^5 of them,
# the chance is below 1e-12 (a triple needs two coincidences of probability ~1e-13 each),
# while clipped noise, or noise left out, repeats one value again and again.
_REPEATS = 3


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


def counts_fit_each(k, n: int, p_low, p_high=None, alpha: float = ALPHA) -> np.ndarray:
    """`count_fits` for arrays of counts `k` (and of probabilities), element by element:
    one call of scipy's binomial law for all of them (the same tails, computed at once)."""
    p_high = p_low if p_high is None else p_high
    k = np.asarray(k)
    too_few = stats.binom.cdf(k, n, np.clip(p_low, 0.0, 1.0)) <= alpha / 2
    too_many = stats.binom.sf(k - 1, n, np.clip(p_high, 0.0, 1.0)) <= alpha / 2
    return ~(too_few | too_many)


def count_fits(k: int, n: int, p_low: float, p_high: float | None = None,
               alpha: float = ALPHA) -> bool:
    """Whether k successes in n trials are consistent with some success probability in
    [p_low, p_high] (exact binomial tails, alpha/2 each)."""
    return bool(counts_fit_each(k, n, p_low, p_high, alpha))


def counts_fit(counts, probabilities, alpha: float) -> bool:
    """Whether category counts are consistent with their probabilities (each category an
    exact binomial test at alpha / the number of categories)."""
    counts = np.asarray(counts)
    n, share = int(counts.sum()), alpha / len(counts)
    return bool(np.all(counts_fit_each(counts, n, np.asarray(probabilities, dtype=float),
                                       alpha=share)))


@functools.lru_cache(maxsize=256)
def scale_interval(n: int, alpha: float) -> tuple[float, float]:
    """The interval holding mean(|X|)/s w.p. 1 − alpha for n draws X of Lap(s): |X| is
    Exp(s), so the mean is s·Gamma(n, 1/n). (Remembered: the checkers ask for the same few
    intervals again and again.)"""
    law = stats.gamma(n, scale=1 / n)
    return float(law.ppf(alpha / 2)), float(law.isf(alpha / 2))


@functools.lru_cache(maxsize=64)
def _f_interval(n: int, m: int, alpha: float) -> tuple[float, float]:
    """The interval holding an F(2n, 2m) variable w.p. 1 − alpha (remembered)."""
    law = stats.f(2 * n, 2 * m)
    return law.ppf(alpha / 2), law.isf(alpha / 2)


def same_scale(x, y, alpha: float) -> bool:
    """Whether two samples of centred Laplace noise are consistent with one scale: then
    2n·mean|x|/s is χ²(2n), so mean|x|/mean|y| has the F(2n, 2m) law, exactly."""
    low, high = _f_interval(len(x), len(y), alpha)
    ratio = float(np.mean(np.abs(x))) / float(np.mean(np.abs(y)))
    return low <= ratio <= high


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


@functools.lru_cache(maxsize=64)
def _band_probabilities(ratio_low: float, ratio_high: float):
    """For each band of z = noise/ŝ, the range of its probability when the true scale s has
    ŝ/s in [ratio_low, ratio_high] (z ~ Lap(s/ŝ)); ratio 1 for a known scale. (Remembered,
    read-only.)"""
    grid = np.linspace(ratio_low, ratio_high, 41)
    probs = np.diff(laplace_cdf(_BANDS[None, :] * grid[:, None]), axis=1)
    low, high = probs.min(axis=0), probs.max(axis=0)
    low.setflags(write=False)
    high.setflags(write=False)
    return low, high


@functools.lru_cache(maxsize=64)
def _cdf_slack(ratio_low: float, ratio_high: float) -> float:
    """How far the cdf of Lap(s/ŝ) can lie from Lap(1)'s for ŝ/s at either end of the range
    (remembered)."""
    return max(float(np.max(np.abs(laplace_cdf(_GRID * r) - laplace_cdf(_GRID))))
               for r in (ratio_low, ratio_high))


def most_repeated(x) -> tuple[float, int]:
    """(the value of `x` drawn most often, how often)."""
    values, counts = np.unique(np.asarray(x, dtype=float).ravel(), return_counts=True)
    i = int(np.argmax(counts))
    return float(values[i]), int(counts[i])


def on_fine_grid(z) -> bool:
    """Whether the standardised draws z all lie on one grid z_0 + h·Z of step h at most
    2^-10 (a float-safe Laplace sampler, like the library's, snaps its noise to a grid of
    step s·2^-12 or finer, shifted when the true value is off the grid): its repeated values
    are then the grid's, not atoms. Continuous draws are on no such grid (their residuals
    are 10^-6 steps at most only by a chance below 10^-6 per draw)."""
    z = np.unique(np.asarray(z, dtype=float))
    if z.size < 2:
        return False
    offsets = z - z[0]
    gap = float(np.min(np.diff(z)))
    for parts in range(1, 9):   # the smallest gap may span several steps of the grid:
        k = np.round(offsets / (gap / parts))     # the coarsest grid holding every draw
        h = float(np.dot(k, offsets) / np.dot(k, k))   # least squares: the gap's rounding
        if np.all(np.abs(offsets - k * h) < 1e-6 * h):   # error would grow with k
            return h <= 2**-10
    return False


def _atoms(z) -> tuple[float, int]:
    """(the value drawn most often, how often), when that is an atom: drawn _REPEATS times or
    more, and not merely a point of a fine grid (a value at the sample's edge always is one:
    noise clipped at a bound); (that value, 0) when it is a fine-grid point not at the
    sample's edge; else (that value, how often)."""
    atom, times = most_repeated(z)
    if times >= _REPEATS and on_fine_grid(z) and not any(
            math.isclose(atom, end, rel_tol=1e-9, abs_tol=1e-12)
            for end in (float(np.min(z)), float(np.max(z)))):
        return atom, 0
    return atom, times


def scale_fits(z, alpha: float) -> bool:
    """Whether mean(|z|) is consistent with z ~ Lap(1) (exact: a Gamma law)."""
    low, high = scale_interval(len(z), alpha)
    return low <= float(np.mean(np.abs(z))) <= high


def laplace_fits(z, alpha: float, ratio=(1.0, 1.0)) -> bool:
    """Whether the standardised noise z is consistent with Lap(1): no value drawn
    `_REPEATS` times; exact binomial tests of the ten bands, a KS test and, when the scale
    is known, the exact test of mean |z| (alpha shared between them). `ratio`: the range
    of ŝ/s when z was standardised by an estimated scale ŝ (then z ~ Lap(s/ŝ))."""
    z = np.asarray(z, dtype=float)
    n = len(z)
    if _atoms(z)[1] >= _REPEATS:
        return False
    known = tuple(ratio) == (1.0, 1.0)
    share = alpha / (3 if known else 2)
    if known and not scale_fits(z, share):
        return False
    low, high = _band_probabilities(*ratio)
    counts = np.histogram(z, _BANDS)[0]
    if not np.all(counts_fit_each(counts, n, low, high, alpha=share / len(counts))):
        return False
    # the cdf of Lap(s/ŝ) is within `slack` of Lap(1)'s for every ŝ/s in the range
    slack = _cdf_slack(*map(float, ratio))
    return ks_distance(z, laplace_cdf) <= dkw_radius(n, share) + slack


def column_dependence(x, alpha: float) -> tuple[int, int] | None:
    """For noise that should be independent and symmetric in every column of `x` (runs ×
    columns, the runs independent): the first pair of columns whose signs agree in a number
    of runs a Binomial(runs, 1/2) makes unlikely, or None. Pairs tested: every pair of
    neighbours, every pair half the width apart, and 20 pairs drawn at random (a fixed
    draw), so noise reused at any distance is caught; alpha is shared between them."""
    x = np.asarray(x, dtype=float)
    runs, k = x.shape
    pairs = [(j, j + 1) for j in range(k - 1)] + [(j, j + k // 2) for j in range(k - k // 2)
                                                   if k // 2 > 1]
    if k > 2:
        drawn = np.random.default_rng(k).integers(0, k, (20, 2))
        pairs += [(int(a), int(b)) for a, b in drawn if a != b]
    pairs = list(dict.fromkeys(pairs))
    if not pairs:
        return None
    signs = np.sign(x)
    first, second = np.array(pairs).T
    agree = np.sum(signs[:, first] == signs[:, second], axis=0)
    misfits = np.flatnonzero(~counts_fit_each(agree, runs, 0.5, alpha=alpha / len(pairs)))
    return pairs[misfits[0]] if misfits.size else None


def sequence_dependence(x, alpha: float, p: float = 0.5, agree=None) -> int | None:
    """For a sequence of draws that should be independent: the first lag (1, n/10 or n/2)
    at which they are not, or None. At each lag the pairs (i, i + lag) are disjoint (each
    draw in one pair at most), so the number of pairs that agree is exactly Binomial(pairs,
    p): by default they agree when they have the same sign (p = 1/2 for a symmetric
    continuous law); `agree(a, b)` and its probability `p` otherwise (equality of discrete
    draws: p = Σ pmf²). alpha is shared between the lags."""
    x = np.asarray(x)
    n = len(x)
    agree = agree or (lambda a, b: np.sign(a) == np.sign(b))
    lags = sorted({lag for lag in (1, n // 10, n // 2) if 1 <= lag < n})
    for lag in lags:
        i = np.arange(n - lag)
        i = i[(i // lag) % 2 == 0]
        if not count_fits(int(np.sum(agree(x[i], x[i + lag]))), len(i), p,
                          alpha=alpha / len(lags)):
            return lag
    return None


_GRID = np.linspace(-12, 12, 2401)


class Misfit(NamedTuple):
    """How a sample of noise misses Lap(s). kind: "none" (no noise at all), "constant"
    (the same non-zero value every time), "whole numbers" (rounded or discrete noise),
    "partly exact" (exactly or nearly 0 on some calls), "clipped" (the largest or smallest
    value drawn again and again), "rounded" (another value drawn again and again, off a
    fine grid), "few values", "one-sided", "off-centre", "scale", "gaussian" or "shape".
    `share`: the fraction within 0.001·s of 0 (or at the clipped value);
    `ratio`: mean|noise|/s; `shift`: median(noise)/s; `values`: how many distinct values;
    `tail`: the fraction with |noise| > 3s (Laplace: e^−3 = 5.0 %); `atom`: the value
    drawn most often, over s."""

    kind: str
    share: float
    ratio: float
    shift: float
    values: int
    tail: float
    atom: float = 0.0


def laplace_misfit(noise, scale: float, alpha: float) -> Misfit | None:
    """None if `noise` is consistent with independent Lap(scale) draws (a false rejection
    has probability ≤ alpha), else how it differs, the clearest feature first."""
    noise = np.asarray(noise, dtype=float).ravel()
    z = noise / scale
    if len(z) and laplace_fits(z, alpha):
        return None
    n = len(z)
    ratio = float(np.mean(np.abs(z)))
    near = int(np.sum(np.abs(z) < _NARROW))
    atom, times = _atoms(z)
    values = len(np.unique(z[:5_000]))

    def misfit(kind, share=near / n):
        return Misfit(kind, share, ratio, float(np.median(z)), values,
                      float(np.mean(np.abs(z) > 3)), atom)

    if values == 1:
        return misfit("none" if z[0] == 0 else "constant")
    if values > 20 and np.all(noise == np.round(noise)):
        return misfit("whole numbers")
    # more draws near 0 than even a Laplace law of half the sample's own scale gives
    if (times >= _REPEATS and atom == 0) or not count_fits(
            near, n, 0.0, 1 - math.exp(-2 * _NARROW / max(ratio, 1e-300)), alpha=alpha):
        return misfit("partly exact")
    if times >= _REPEATS and values > 20:   # at the edge of the sample: a bound; else a grid
        edge = any(math.isclose(atom, end, rel_tol=1e-9, abs_tol=1e-12)
                   for end in (float(np.min(z)), float(np.max(z))))
        return misfit("clipped" if edge else "rounded", times / n)
    if values <= 20:
        return misfit("few values")
    positive = int(np.sum(z > 0))
    if positive <= 0.01 * n or positive >= 0.99 * n:
        return misfit("one-sided")
    if not count_fits(positive, n, 0.5, alpha=alpha):
        return misfit("off-centre")
    # Scale-free shape: median|z|/mean|z| is ln 2 = 0.69 for Laplace, 0.85 for Gaussian
    # noise, 1 for uniform noise; P(|z| > 2 mean|z|) is 0.135, 0.11 and 0 for them; the
    # kurtosis is 6 for Laplace, 3 for Gaussian and 4.2 for logistic noise. The ratio's
    # standard deviation for n Laplace draws is about 0.72/√n: 0.05 or 4.5 of them.
    shape = float(np.median(np.abs(z))) / ratio
    beyond = float(np.mean(np.abs(z) > 2 * ratio))
    if abs(shape - math.log(2)) > max(0.05, 3.2 / math.sqrt(n)):
        gaussian = (0.78 < shape < 0.92 and 0.07 < beyond < 0.15
                    and abs(stats.kurtosis(z, fisher=False) - 3) < 0.6)
        return misfit("gaussian" if gaussian else "shape")
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
        return (f"on {misfit.share:.1%} of the calls your release is {what} exactly, or "
                "within 0.001 scales of it: noise was added only sometimes (or with a tiny "
                "scale), and each such release gives the private value away (no privacy).")
    if kind == "clipped":
        return (f"your noise takes the same value, {misfit.atom:+.3g} times {scale_name}, on "
                f"{misfit.share:.1%} of the calls: it is clipped (cut off at a bound). Clipped "
                "noise is not ε-DP: a release at the bound is far likelier from one input than "
                "from its neighbour.")
    if kind == "rounded":
        return ("your noise repeats the same values again and again (one of them on "
                f"{misfit.share:.1%} of the calls): it is rounded to a grid, or computed in "
                "low precision (float32?), so it is not the continuous Laplace law the task "
                "asks for, and a grid needs its own calibration to be ε-DP.")
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
    tails = ("lighter" if misfit.tail < 0.05 else "heavier")
    return (f"your noise does not follow the Laplace law Lap({scale_name}): its tails are "
            f"{tails} (|noise| exceeds 3 scales in {misfit.tail:.1%} of the calls, Laplace: "
            f"5.0 %), and its mean |noise| is {misfit.ratio:.2f} scales (Laplace: 1). ε-DP as "
            "proved needs Laplace noise.")
