"""Noise that stays private in floating point: discrete Laplace and discrete Gaussian noise
on a power-of-two grid, sampled from uniform 64-bit integers only.

Why: `value + numpy.random.Generator.laplace(0, scale)` is private for real numbers, but its
floating-point results are not spread evenly: which doubles can come out depends on the
input, and the low-order bits of a release can give the input away (Mironov 2012, §3;
`panpriv_teach.attacks.floating_point_attack` mounts the attack). The remedy followed here is
the discrete one of Canonne, Kamath, Steinke 2020 (as OpenDP samples noise): round the value
to a grid Λ·Z with Λ a power of two, add integer noise, and multiply back by Λ. Every step
after the integer draw is exact in floating point, so the release is a post-processing of an
integer mechanism, and the privacy of that mechanism is what the code has.

Grid: Λ = 2^(floor(log2 min(Δ, scale)) - GRID_BITS), so Δ and the noise scale are both at least
2^12 grid steps: the noise is a Laplace (or Gaussian) law sampled at a resolution of 1/4096 of
its scale. The scale is DΛ/ε instead of Δ/ε, larger by a factor in (1, 1 + 2^-12] (exactly
1 + 2^-12 when Δ is a power of two below Δ/ε, as Δ = 1, ε <= 1), the variance by its square.
What a test of N draws can see: the mean |noise| estimates the scale with a relative standard
error of 1/√N (the sample variance estimates the variance with √5/√N), so the factor is below
one standard error for N < 1.7·10^7, and a test needs about 2.7·10^8 draws (3.4·10^8 with the
variance) to see it at 4 standard errors. The grid itself (steps of 1/4096 of the scale, each
point with probability at most 2^-13) moves the CDF by at most 2^-13, which a Kolmogorov-Smirnov
test of N draws sees at N of about 10^8. So below 10^7 draws no plot and no test of the law's
shape or scale tells the grid noise from the continuous law (only that the values lie on the
grid, by design); the exact law is `DiscreteLaplace.pmf`.

Rounding: |x - x'| <= Δ gives |rint(x/Λ) - rint(x'/Λ)| <= D = floor(Δ/Λ) + 1 grid steps (each
rounding moves by at most half a step), so the integer noise is calibrated to D, not Δ/Λ.

The integer samplers and what their floating-point implementation adds are described in
`DiscreteLaplace` and `DiscreteGaussian`; `laplace_mechanism` and `gaussian_mechanism`
(in `panpriv_teach.mechanisms`) are built on them.
"""
from __future__ import annotations

import bisect
import functools
import math
from decimal import ROUND_FLOOR, Decimal, localcontext
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from panpriv_teach.validation import require_int

__all__ = ["GRID_BITS", "grid_step", "grid_sensitivity", "DiscreteLaplace", "DiscreteGaussian",
           "LaplaceNoise", "ArcNoise", "UNIFORM_BITS", "implemented_probability",
           "threshold_below", "threshold_for_ratio", "exp_lower_bound"]

GRID_BITS = 12            # Δ and the scale are at least 2^GRID_BITS grid steps
MAX_GRID_INTEGER = 2**53  # (R + Z) Λ is exact in float64 while |R + Z| <= 2^53
MAX_GRID_STEPS = 2**50    # the largest sensitivity or noise scale, in grid steps
_TAIL_LOG2 = 70           # the integer noise's support is cut where the tail is below 2^-70
_BLOCK = 1 << 15          # samples per block (bounds the memory of the uniform draws)
_TWO64 = 1 << 64
_WORD = 32                # a Bernoulli(p) with p < 2^-32 is a product of Bernoulli(2^-32)s


def grid_step(*scales) -> float:
    """Λ = 2^(floor(log2 min(scales)) - GRID_BITS): the grid on which noise is released.

    Raises ValueError when Λ would be below the smallest normal double (scale below ~1e-304),
    where x/Λ and zΛ would no longer be exact."""
    smallest = min(scales)
    exponent = math.frexp(smallest)[1] - 1 - GRID_BITS   # floor(log2 smallest) - GRID_BITS
    if exponent < -1022:
        raise ValueError(f"the noise scale and the sensitivity must be at least 2^-1010 ≈ 1e-304 "
                         f"(the noise grid 2^-{GRID_BITS} below them must hold normal doubles); "
                         f"got {smallest!r}")
    return math.ldexp(1.0, exponent)


def grid_sensitivity(sensitivity: float, step: float) -> int:
    """D = floor(Δ/Λ) + 1: the most two values at distance <= Δ can differ, in grid steps,
    once each is rounded to the nearest multiple of Λ."""
    return math.floor(sensitivity / step) + 1


# ----------------------------------------------------------------------------------------
# Exact Bernoulli draws from uniform 64-bit integers
# ----------------------------------------------------------------------------------------

def _factors(p: Decimal) -> list[int]:
    """Integer thresholds c_1, c_2, ... with p ≈ prod_i c_i / 2^64: the Bernoulli(p) draw is
    "u_i < c_i for every i" with u_i independent uniform 64-bit integers. Every factor but the
    first is exactly 2^-32; the first is p 2^(32 (m - 1)) rounded to a multiple of 2^-64, which
    lies in [2^-32, 1], so its relative error is at most 2^-33."""
    extra = 0
    while p < Decimal(2) ** (-_WORD) and p > 0:
        p *= Decimal(2) ** _WORD
        extra += 1
    first = min(int((p * _TWO64).to_integral_value()), _TWO64 - 1)
    return [first] + [1 << (64 - _WORD)] * extra


def _implemented(factors: list[int]) -> Decimal:
    """The probability the draw of `_factors` really has: prod_i c_i / 2^64."""
    q = Decimal(1)
    for c in factors:
        q *= Decimal(c) / _TWO64
    return q


def _distortion(p: Decimal, q: Decimal) -> Decimal:
    """ln of max/min of q/p and (1 - q)/(1 - p): how much a Bernoulli(q) used in place of a
    Bernoulli(p) can move the ratio of two outcomes' probabilities."""
    ratios = (q / p, (1 - q) / (1 - p))
    return (max(ratios) / min(ratios)).ln()


# ----------------------------------------------------------------------------------------
# Discrete Laplace
# ----------------------------------------------------------------------------------------

class DiscreteLaplace:
    """Integer noise Z with P(Z = z) ∝ a^|z|, a = exp(-epsilon/D): the discrete Laplace law of
    scale t = D/epsilon (Canonne, Kamath, Steinke 2020), the noise of the geometric mechanism.

    Privacy of the exact law: adding Z to an integer query whose neighbouring values differ by at
    most D is epsilon-DP: moving z by d <= D changes its probability by a^-d <= e^epsilon.

    Sampling (vectorised, uniform 64-bit integers and integer comparisons only): Z = 0 with
    probability (1 - a)/(1 + a); otherwise Z = ±(1 + G) with a fair sign and G geometric,
    P(G = g) = (1 - a) a^g. The binary digits of a geometric variable are independent,
    P(bit j = 1) = a^(2^j)/(1 + a^(2^j)) (P(G = g) factorises over the bits of g), and so are
    blocks of consecutive bits: bits i .. i + b - 1 read as v follow P(v) ∝ r^v on
    0 .. 2^b - 1, r = a^(2^i). G has J bits, J the least with 2^J >= D + 70 ln(2) t. Its low
    bits are drawn in blocks of 12, 8, 4 or 2 bits, each by inverse CDF from one uniform
    (the first block also decides Z = 0), as long as every outcome of the block keeps
    probability >= 2^-34; the remaining high bits one by one, by comparing a uniform with an
    integer threshold (a product of such comparisons for probabilities below 2^-32).
    Every probability is computed once in 50-digit decimal arithmetic and turned into integer
    thresholds, so the implemented law is known exactly; each sample uses a fixed number of
    uniform draws, in sample order, so n draws at once equal n single draws.

    What the implementation adds (both computed exactly in `guarantee`): the thresholds are
    within 2^-29 relative of the exact probabilities, which changes any ratio of two outcome
    probabilities by a factor at most e^eta; and |Z| <= 2^J, so a shift by d <= D can move an
    outcome out of the support, with probability at most delta <= e^eta 2^-70 / (1 - a^(2^J)).
    Hence adding this Z to an integer query of sensitivity D is (epsilon + eta, delta)-DP,
    with eta < 1e-8 and delta < 1e-20 for every (D, epsilon) the library uses (tested).
    """

    def __init__(self, D: int, epsilon: float):
        self.D, self.epsilon = int(D), float(epsilon)
        self._plan = plan = _laplace_plan(self.D, self.epsilon)
        self.bits, self.eta, self.delta = plan.bits, plan.eta, plan.delta
        self._words = len(plan.wide) + len(plan.chunks) + (len(plan.narrow) + 1) // 2  # per draw

    def __deepcopy__(self, memo):
        return self   # immutable, and its tables are shared by every sampler of the same law

    @property
    def scale(self) -> float:
        """t = D/epsilon, in grid steps."""
        return self.D / self.epsilon

    def guarantee(self) -> tuple[float, float]:
        """(epsilon + eta, delta): the privacy of adding one draw to a query of sensitivity D."""
        return self.epsilon + self.eta, self.delta

    def pmf(self, z) -> np.ndarray:
        """The exact law (before the implementation's 2^-29 rounding): tanh(epsilon/(2D)) a^|z|."""
        z = np.asarray(z)
        return math.tanh(self.epsilon / (2 * self.D)) * np.exp(-np.abs(z) * self.epsilon / self.D)

    def draw(self, rng) -> int:
        """One draw, as `sample(1, rng)[0]` (the same uniforms, the same value), in plain Python
        integers: a streaming algorithm's `update` draws one number at a time, and numpy's
        per-call overhead would cost ten times more."""
        return self._from_words(_uniform_words(rng, self._words).tolist())

    def _from_words(self, u: list[int]) -> int:
        """The draw made from its uniforms `u` (`self._words` Python integers)."""
        plan = self._plan
        W, C = len(plan.wide), len(plan.chunks)
        narrow, narrow_events, wide, wide_events, flipped, shifts, cut_lists = plan.lists
        events = [False] * plan.events
        for k, (threshold, event) in enumerate(zip(narrow, narrow_events)):
            word = u[W + C + k // 2]                     # little-endian halves, as in `sample`
            events[event] = ((word >> 32) if k % 2 else (word & 0xFFFFFFFF)) < threshold
        for column, (threshold, event) in enumerate(zip(wide, wide_events)):
            events[event] = u[column] < threshold
        for column, event in plan.extra:
            events[event] = events[event] and u[column] < wide[column]
        for event in flipped:
            events[event] = not events[event]
        magnitude = sum(1 << j for j, bit in enumerate(events[2:]) if bit) << plan.low
        for i, (shift, cuts) in enumerate(zip(shifts, cut_lists)):
            v = bisect.bisect_right(cuts, u[W + i] >> 1)
            if i == 0:
                events[1] = v == 0
                v = max(v - 1, 0)
            magnitude += v << shift
        if events[1]:
            return 0
        return -(magnitude + 1) if events[0] else magnitude + 1

    def sample(self, size, rng) -> np.ndarray:
        """`size` (an int or a shape) draws, as an int64 array."""
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        n = int(math.prod(shape))
        words = self._words
        if 0 < n <= _FEW:   # one draw after another from the same uniforms (sample-major order)
            u = _uniform_words(rng, n * words).tolist()
            return np.array([self._from_words(u[i:i + words]) for i in range(0, n * words, words)],
                            dtype=np.int64).reshape(shape)
        out = np.empty(n, dtype=np.int64)
        plan = self._plan
        W, C = len(plan.wide), len(plan.chunks)
        for start in range(0, n, _BLOCK):
            stop = min(n, start + _BLOCK)
            u = _uniform_words(rng, (stop - start) * words).reshape(stop - start, words)
            wide = u[:, :W] < plan.wide
            first = 2 * (W + C)   # the narrow uniforms: the remaining words' 32-bit halves
            narrow = u.view(np.uint32)[:, first:first + len(plan.narrow)] < plan.narrow
            events = np.empty((stop - start, plan.events), dtype=bool)
            events[:, plan.narrow_events] = narrow
            events[:, plan.wide_events] = wide[:, :len(plan.wide_events)]
            for column, event in plan.extra:   # the extra 2^-32 factors of small probabilities
                events[:, event] &= wide[:, column]
            if plan.flipped.size:              # probabilities above 15/16, drawn as 1 - p
                events[:, plan.flipped] ^= True
            magnitude = _pack(events[:, 2:], plan.low)
            for i, (shift, guide, cuts) in enumerate(plan.chunks):   # the chunks of G's bits
                v = _inverse_cdf(u[:, W + i], guide, cuts)
                if i == 0:                     # outcome 0 is "Z = 0", v + 1 stands for v
                    events[:, 1] = v == 0      # (v - 1 is wrong only where Z = 0, whose
                    v -= 1                     # magnitude is not used)
                magnitude += v << shift
            sign = np.where(events[:, 0], -1, 1)
            out[start:stop] = np.where(events[:, 1], 0, sign * (magnitude + 1))
        return out.reshape(shape)


_FEW = 8   # up to this many samples, `draw`'s plain Python costs less than numpy's set-up

# Bit generators whose raw output is a 64-bit word: for them `Generator.integers(0, 2^64,
# dtype=np.uint64)` returns the words of `random_raw` (for the full range numpy takes the bit
# generator's next_uint64 directly) and leaves the same state (tested), at a tenth of the cost
# for a few words. MT19937's raw output is 32-bit words: it keeps the `integers` path.
_RAW_WORDS = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)


def _uniform_words(rng, k: int) -> np.ndarray:
    """`rng.integers(0, 2^64, size=k, dtype=np.uint64)`: k uniform 64-bit words, in order."""
    if type(rng) is np.random.Generator and type(rng.bit_generator) in _RAW_WORDS:
        return rng.bit_generator.random_raw(k)
    return rng.integers(0, _TWO64, size=k, dtype=np.uint64)


def _pack(bits: np.ndarray, low: int) -> np.ndarray:
    """sum_j bits[:, j] 2^(low + j) as int64 (bits: bool array of shape (n, J), low + J <= 62)."""
    packed = np.zeros(len(bits), dtype=np.int64)
    for j in range(bits.shape[1]):
        packed |= bits[:, j].astype(np.int64) << (low + j)
    return packed


_SEARCH = 64   # below this many keys a binary search costs less than the guide table's steps


def _inverse_cdf(u: np.ndarray, guide: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """v = the number of thresholds `cuts` (increasing; the last, 2^63, is a sentinel) that are
    <= u >> 1, a uniform 63-bit integer: a guide table on its top 16 bits gives the least
    possible v, and the few keys that share a bucket with thresholds step up one at a time
    (a plain binary search for a few keys, where numpy's per-call costs dominate)."""
    u = u >> np.uint64(1)
    if len(u) < _SEARCH:
        return np.searchsorted(cuts, u, side="right")
    v = guide[u >> np.uint64(47)].astype(np.int64)
    todo = np.flatnonzero(u >= cuts[v])
    while todo.size:
        v[todo] += 1
        todo = todo[u[todo] >= cuts[v[todo]]]
    return v


class _Plan(NamedTuple):
    """How one discrete Laplace sample is drawn. The low bits of G come in chunks of 8, 4 or 2
    bits (bits 0 .. low - 1; `chunks` = (first bit, guide, thresholds)), each
    drawn by inverse CDF from one 64-bit uniform (`chunks`: a guide table and 255 increasing
    thresholds each, see `_inverse_cdf`).
    Events: 0 the sign, 1 "Z = 0", 2.. the bits of G above the chunks. Events with probability
    >= 1/16 use one 32-bit uniform (`narrow`), the others one or more 64-bit uniforms (`wide`,
    the first factor; `extra` = (column, event) for the 2^-32 factors of the smallest;
    `flipped`: events of probability above 15/16, drawn as their complement)."""
    bits: int
    low: int
    chunks: tuple
    flipped: np.ndarray
    events: int
    narrow: np.ndarray
    narrow_events: np.ndarray
    wide: np.ndarray
    wide_events: np.ndarray
    extra: tuple
    eta: float
    delta: float

    lists: tuple     # the same as Python lists, for `DiscreteLaplace.draw`


def _chunk_table(r: Decimal, bits: int, zero: Decimal | None = None):
    """Thresholds of the law P(v) ∝ r^v on v = 0..2^bits - 1 (`bits` consecutive bits of a
    geometric variable from bit i on, r = a^(2^i)): c_v = round(2^64 F(v)), F the CDF; and the
    distortion of the implemented law (c_v - c_(v-1))/2^64. None when some value would get
    less than 2^-34 (relative error above 2^-30): then smaller chunks, or single bits.
    Drawn from 63-bit uniforms. With `zero` = P(Z = 0) the outcome 0 is "Z = 0" and v + 1 stands for v, P(v)(1 - zero)."""
    size = 1 << bits
    norm = 1 - r ** size
    probabilities = [r ** v * (1 - r) / norm for v in range(size)]
    if zero is not None:
        probabilities = [zero] + [p * (1 - zero) for p in probabilities]
    whole = _TWO64 >> 1                          # 63-bit uniforms
    cumulative, cuts = Decimal(0), []
    for p in probabilities[:-1]:
        cumulative += p
        cuts.append(int((cumulative * whole).to_integral_value()))
    edges = [0] + cuts + [whole]
    if min(b - a for a, b in zip(edges, edges[1:])) < 2**29:
        return None
    ratios = [Decimal(b - a) / whole / p
              for p, (a, b) in zip(probabilities, zip(edges, edges[1:]))]
    cuts = np.array(cuts + [whole], dtype=np.uint64)
    starts = np.arange(1 << 16, dtype=np.uint64) << np.uint64(47)   # the guide's buckets
    guide = np.searchsorted(cuts[:-1], starts, side="right").astype(np.uint16)
    return (guide, cuts), (max(ratios) / min(ratios)).ln()


@functools.lru_cache(maxsize=256)
def _laplace_plan(D: int, epsilon: float) -> _Plan:
    """The thresholds of one discrete Laplace sample, and the implementation's eta and delta."""
    with localcontext() as ctx:
        ctx.prec = 50
        rate = Decimal(epsilon) / D                  # 1/t
        a = (-rate).exp()
        t = 1 / rate
        J = math.ceil(math.log2(D + float(70 * Decimal(2).ln() * t) + 1))
        if J > 62:
            raise ValueError(f"the noise scale is too large for int64 noise: D/epsilon = "
                             f"{float(t)!r} grid steps (at most about 2^55)")
        zero = (1 - a) / (1 + a)                  # P(Z = 0), folded into the first chunk
        chunks, eta, low = [], Decimal(0), 0      # bits 0 .. low - 1 are in chunks
        while True:
            for bits in (12, 8, 4, 2):
                table = (_chunk_table(a ** (2**low), bits, None if chunks else zero)
                         if low + bits <= J else None)
                if table is not None:
                    chunks.append((low,) + table[0])
                    eta += table[1]
                    low += bits
                    break
            else:
                break
        probabilities = [Decimal(1) / 2, zero]                # the sign, P(Z = 0)
        for j in range(low, J):
            aj = a ** (2**j)
            probabilities.append(aj / (1 + aj))               # P(bit j of G = 1)
        narrow, narrow_events, wide, wide_events, extra = [], [], [], [], []
        flipped = []                                          # drawn as their complement
        for event, p in enumerate(probabilities):
            if event == 1 and chunks:
                continue                                      # drawn with the first chunk
            if Decimal(1) / 16 <= p <= Decimal(15) / 16:
                c = int((p * 2**32).to_integral_value())
                narrow.append(c)
                narrow_events.append(event)
                eta += _distortion(p, Decimal(c) / 2**32)
                continue
            if p > Decimal(15) / 16:
                flipped.append(event)
                p = 1 - p
            factors = _factors(p)
            eta += _distortion(p, _implemented(factors))
            wide.append(factors[0])
            wide_events.append(event)
            extra += [(None, event, c) for c in factors[1:]]
        extra = tuple((len(wide) + i, event) for i, (_, event, _) in enumerate(extra))
        wide += [1 << (64 - _WORD)] * len(extra)
        tail = a ** (2**J - D - 1) / (1 - a ** (2**J))   # P(G >= 2^J - D - 1), truncated law
        delta = eta.exp() * tail
    lists = (narrow, narrow_events, wide, wide_events, flipped,
             [shift for shift, _, _ in chunks], [cuts[:-1].tolist() for _, _, cuts in chunks])
    return _Plan(J, low, tuple(chunks), np.array(flipped, dtype=np.int64), len(probabilities),
                 np.array(narrow, dtype=np.uint32), np.array(narrow_events, dtype=np.int64),
                 np.array(wide, dtype=np.uint64), np.array(wide_events, dtype=np.int64), extra,
                 float(eta), float(delta), lists)


# ----------------------------------------------------------------------------------------
# Laplace noise for a real-valued release
# ----------------------------------------------------------------------------------------

class LaplaceNoise:
    """The float-safe Laplace mechanism for one (sensitivity Δ, epsilon): rounds values to the
    grid Λ = `grid_step(Δ, Δ/epsilon)` and adds Λ·Z, Z discrete Laplace calibrated to
    D = floor(Δ/Λ) + 1 grid steps. The noise has scale DΛ/epsilon, within a factor 1 + 2^-12 of
    Lap(Δ/epsilon), and variance 2a/(1 - a)^2 Λ^2 with a = exp(-epsilon/D).

    Privacy: (epsilon + eta, delta)-DP (`guarantee()`) for a scalar value of sensitivity Δ, and
    for a vector whose neighbouring values differ in one coordinate by at most Δ, or lie on the
    grid Λ·Z (integer counts do when Λ <= 1) with L1 distance at most Δ: then the rounded
    values differ by at most D grid steps in all. (For vectors off the grid that differ in c
    coordinates, rounding can add one step per coordinate: the privacy is then
    epsilon (Δ/Λ + c)/D + c eta, slightly above epsilon.) eta and delta count once per
    coordinate that differs.
    """

    def __init__(self, sensitivity: float, epsilon: float):
        self.sensitivity, self.epsilon = float(sensitivity), float(epsilon)
        if min(self.sensitivity, self.sensitivity / self.epsilon) < 2.0**-1000:
            raise ValueError(f"sensitivity and sensitivity/epsilon must be at least 2^-1000 ≈ "
                             f"9.3e-302 (the noise grid 2^-{GRID_BITS} below them must hold normal "
                             f"doubles); got sensitivity={sensitivity!r}, epsilon={epsilon!r}")
        self.step = grid_step(self.sensitivity, self.sensitivity / self.epsilon)   # Λ
        D = grid_sensitivity(self.sensitivity, self.step)
        if D > MAX_GRID_STEPS or D / self.epsilon > MAX_GRID_STEPS:
            low = grid_sensitivity(1.0, grid_step(1.0)) / MAX_GRID_STEPS
            raise ValueError(f"epsilon must be in about [{low:.2g}, 2.7e11] for float-safe Laplace "
                             f"noise (the sensitivity and the noise scale must both fit 2^50 grid "
                             f"steps of 2^-{GRID_BITS} of the smaller); got epsilon={epsilon!r} "
                             f"(sensitivity={sensitivity!r})")
        self.integer = DiscreteLaplace(D, self.epsilon)
        self.limit = (MAX_GRID_INTEGER - 2**self.integer.bits) * self.step   # largest |value|

    @property
    def scale(self) -> float:
        """The noise scale DΛ/epsilon (the nominal Δ/epsilon, times at most 1 + 2^-12)."""
        return self.integer.D * self.step / self.epsilon

    @property
    def variance(self) -> float:
        a = math.exp(-self.epsilon / self.integer.D)
        return 2 * a / (1 - a) ** 2 * self.step**2

    def guarantee(self) -> tuple[float, float]:
        return self.integer.guarantee()

    def check_range(self, array: np.ndarray, name: str = "value") -> None:
        """Raise ValueError when a value is too large to be released exactly on the grid."""
        if array.size and np.max(np.abs(array)) > self.limit:
            raise ValueError(f"each entry of {name} must be at most {self.limit:.6g} in absolute "
                             f"value for sensitivity={self.sensitivity!r} and epsilon="
                             f"{self.epsilon!r} (value + noise must be exact on the noise grid "
                             f"2^{math.frexp(self.step)[1] - 1}); got {np.max(np.abs(array))!r}")

    def noise(self, size, rng):
        """Noise alone (Λ·Z, floats on the grid), for algorithms that add it to integer counts
        or keep it in their state: an array of `size` draws, or one float for size=None.
        n draws at once equal n single draws from the same rng (sample-major order)."""
        if size is None:
            return float(self.integer.draw(rng)) * self.step
        return self.integer.sample(size, rng).astype(float) * self.step

    def release(self, array: np.ndarray, rng) -> np.ndarray:
        """rint(value/Λ)·Λ + Λ·Z, exactly, for a float array already range-checked."""
        rounded = np.rint(np.asarray(array, dtype=float) / self.step).astype(np.int64)
        return (rounded + self.integer.sample(rounded.shape, rng)).astype(float) * self.step

    def release_one(self, value: float, rng) -> float:
        """`release` of one float already range-checked: the same uniforms and the same
        result as `release(np.array([value]), rng)[0]` (Python's `round`, like `np.rint`,
        rounds halves to even; `DiscreteLaplace.draw` is `sample(1)` in plain integers),
        at the cost of one draw instead of an array sampler's setup."""
        return float(round(value / self.step) + self.integer.draw(rng)) * self.step

    def release_exact(self, numerator: int, exponent: int, rng) -> float:
        """The release of the exact value numerator·2^exponent (a Python integer, any size;
        e.g. a sum of integer counters that float64 cannot hold exactly): rounded to the
        nearest multiple of Λ in integer arithmetic, plus Λ·Z, one draw. Same guarantee as
        `release`; ValueError when the value is too large to be released exactly."""
        shift = exponent - (math.frexp(self.step)[1] - 1)     # value / Λ = numerator·2^shift
        if shift >= 0:
            rounded = numerator << shift
        else:
            rounded = (numerator + (1 << (-shift - 1))) >> -shift
        if abs(rounded) > MAX_GRID_INTEGER - 2**self.integer.bits:
            self.check_range(np.array([math.ldexp(float(numerator), exponent)]))
        return float(rounded + self.integer.draw(rng)) * self.step


# ----------------------------------------------------------------------------------------
# Discrete Gaussian
# ----------------------------------------------------------------------------------------

class DiscreteGaussian:
    """Integer noise Y with P(Y = y) ∝ exp(-y^2/(2 sigma^2)): the discrete Gaussian N_Z(0, sigma^2)
    of Canonne, Kamath, Steinke 2020, sampled by their Algorithm 3: propose Y from the discrete
    Laplace law of scale t = floor(sigma) + 1 and accept it with probability
    exp(-(|Y| - sigma^2/t)^2/(2 sigma^2)); repeat until accepted (vectorised: every rejected
    sample is redrawn in the next round).

    Privacy of the exact law: bounded by `delta_for_shift` (the hockey-stick divergence of two
    discrete Gaussians D grid steps apart, from rigorous bounds on the discrete tails).

    What the implementation adds: the acceptance test compares a uniform 64-bit integer with
    floor(p 2^64), p computed in float64. Where p >= e^-24 (|y| <= sigma^2/t + 6.9 sigma), the
    implemented acceptance probability is within 2^-64/e^-24 + 2^-45 < 2^-29 relative of p
    (numpy's exp is accurate to a few ulps; the argument's rounding costs 24 * 2^-50 relative);
    beyond, it is never larger than p(1 + 2^-45), and the exact law's mass there is at most
    tail = exp(-(reach - 1)^2/(2 sigma^2)), reach = 6.9 sigma + sigma^2/t - D (a Gaussian tail
    bound; the discrete normaliser is at least sqrt(2 pi) sigma). So on the outcomes reachable
    by every shift up to D, the implemented and the exact pmf agree within a factor e^eta,
    eta = eta_proposal + 2^-27 + tail, and the rest has mass at most e^eta tail + delta_proposal
    (`float_cost`). With the exact law (epsilon, delta)-DP, the implementation is
    (epsilon + 2 eta, e^eta delta + e^eta tail + delta_proposal)-DP (replace each probability
    by the exact one, apply the exact guarantee, and replace back).
    """

    def __init__(self, sigma: float):
        self.sigma = float(sigma)
        self.t = math.floor(self.sigma) + 1
        self.proposal = DiscreteLaplace(self.t, 1.0)   # scale t/1 = t

    def sample(self, size, rng) -> np.ndarray:
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        n = int(math.prod(shape))
        out = np.empty(n, dtype=np.int64)
        todo = np.arange(n)
        centre, two_var = self.sigma**2 / self.t, 2 * self.sigma**2
        while todo.size:
            y = self.proposal.sample(todo.size, rng)
            p = np.exp(-(np.abs(y) - centre) ** 2 / two_var)
            threshold = np.minimum(np.floor(p * 2.0**64), 2.0**64 - 2048).astype(np.uint64)
            accept = rng.integers(0, _TWO64, size=todo.size, dtype=np.uint64) < threshold
            out[todo[accept]] = y[accept]
            todo = todo[~accept]
        return out.reshape(shape)

    def log_pmf_unnormalised(self, y):
        return -np.asarray(y, dtype=float) ** 2 / (2 * self.sigma**2)

    def delta_for_shift(self, D: int, epsilon: float) -> float:
        """An upper bound, tight to about 1e-7 relative, on the exact delta of adding
        N_Z(0, sigma^2) to an integer query of sensitivity D at this epsilon:
        sum_y max(0, P(y) - e^epsilon P(y - D)) = F(n) - e^epsilon F(n - D), with F the
        discrete CDF and n = floor(D/2 - epsilon sigma^2/D) (where the privacy loss passes
        epsilon). For x = |n| > sigma + 1/2 the Gaussian is convex beyond x - 1/2, so
        sum_(k >= x) f(k) lies between int_x^inf f + f(x)/2 (trapezoids) and
        int_(x - 1/2)^inf f (midpoints), and the normaliser is sqrt(2 pi) sigma to within
        e^(-2 pi^2 sigma^2) (Poisson summation). Otherwise (tiny epsilon, huge sigma) the
        midpoint rule with its error bound."""
        from scipy.special import ndtr
        sigma = self.sigma
        n = math.floor(D / 2 - epsilon * sigma**2 / D)
        if -n - 0.5 > sigma + 1:                           # both tails in the convex region
            x, y = -n, -n + D                              # F(n): tail from x; F(n - D): from y
            upper = float(ndtr(-(x - 0.5) / sigma))
            lower = float(ndtr(-y / sigma)) + math.exp(-y * y / (2 * sigma**2)) \
                / (2 * math.sqrt(2 * math.pi) * sigma)
            return max(0.0, upper - math.exp(epsilon) * lower)
        # Otherwise the midpoint rule: each F(k) is Phi((k + 1/2)/sigma) within
        # (int |f''| + 6 max |f''|)/24 / (sqrt(2 pi) sigma) = (4 e^-1/2/sigma + 6/sigma^2)
        # / (24 sqrt(2 pi) sigma), below 3e-9 for sigma >= 4096.
        error = (4 * math.exp(-0.5) / sigma + 6 / sigma**2) / (24 * math.sqrt(2 * math.pi) * sigma)
        estimate = float(ndtr((n + 0.5) / sigma) - math.exp(epsilon) * ndtr((n - D + 0.5) / sigma))
        return max(0.0, estimate + (1 + math.exp(epsilon)) * error)

    def _delta_by_summation(self, D: int, epsilon: float) -> float:
        """The same delta summed term by term over |y| <= 40 sigma + D (small sigma only)."""
        K = int(40 * self.sigma) + D + 1
        y = np.arange(-K, K + 1, dtype=float)
        log_p = self.log_pmf_unnormalised(y)
        log_norm = np.logaddexp.reduce(log_p)
        p = np.exp(log_p - log_norm)
        q = np.exp(self.log_pmf_unnormalised(y - D) - log_norm)
        return float(np.sum(np.maximum(0.0, p - math.exp(epsilon) * q)))

    def float_cost(self, D: int) -> tuple[float, float]:
        """(eta, delta_float): what the floating-point acceptance test and the proposal's
        implementation add to the exact law's (epsilon, delta), for shifts up to D steps."""
        reach = 6.9 * self.sigma + self.sigma**2 / self.t - D   # |y| safe for every shift
        tail = math.exp(-max(reach - 1, 0.0) ** 2 / (2 * self.sigma**2))   # P(|Y| > reach)
        eta = self.proposal.eta + 2.0**-27 + tail
        return eta, math.exp(eta) * min(1.0, tail) + self.proposal.delta


# ----------------------------------------------------------------------------------------
# A uniform circle with a likelier arc (the noise of Mir et al. 2011's cropped sum)
# ----------------------------------------------------------------------------------------

class ArcNoise:
    """Integer noise N on the circle {0, ..., M - 1} (M = `size`): uniform on the arc
    {0, ..., A - 1} (A = `arc`) with total mass p, uniform on the rest with mass 1 - p, where
    p = T/2^64 for an integer threshold T chosen so that the ratio of the two point masses,
        rho = (p/A) / ((1 - p)/(M - A)) = T (M - A) / (A (2^64 - T)),
    satisfies e^-epsilon <= rho <= e^epsilon EXACTLY. It is the discrete analogue of Mir et al.
    2011's noise 𝒩 (eq. 2), whose arc is e^epsilon times denser than the rest; rho is e^epsilon
    up to a relative 2^-32 (T = floor(2^64 p*) for the exact p* = A e^epsilon/(A e^epsilon +
    M - A) >= 2^-53, then checked, and lowered if needed, against a 60-digit lower bound on
    e^epsilon in rational arithmetic): rho is below e^epsilon by a relative error of at most
    about 2^-64/(p*(1 - p*)), so below 2^-10 while 1 - p* > 2^-53, i.e. e^epsilon A/(M - A)
    < 2^53 (beyond, rho stays smaller than e^epsilon, which only adds privacy).

    Privacy: any two points have probabilities in ratio at most max(rho, 1/rho) <= e^epsilon,
    so (N + u) mod M and (N + u') mod M, for any integers u, u', have point probabilities
    within a factor e^epsilon: epsilon-DP exactly, with nothing added by the implementation.
    Sampling (vectorised, exact): the arc when a uniform 64-bit integer is below T (probability
    exactly T/2^64), then a uniform integer of the arc or of the rest from numpy's
    `Generator.integers`, which is exactly uniform (it rejects the biased draws). So the
    implemented law is the law above, with the probabilities `point_probabilities` gives as
    fractions.
    """

    def __init__(self, size: int, arc: int, epsilon: float):
        self.size, self.arc, self.epsilon = int(size), int(arc), float(epsilon)
        if not 1 <= self.arc < self.size <= MAX_GRID_INTEGER:
            raise ValueError(f"ArcNoise needs 1 <= arc < size <= 2^53; got arc={arc!r}, "
                             f"size={size!r}")
        self.threshold = _arc_threshold(self.size, self.arc, self.epsilon)   # T

    def point_probabilities(self) -> tuple[Fraction, Fraction]:
        """(P(N = x) for x on the arc, P(N = x) off it), as exact fractions."""
        p = Fraction(self.threshold, _TWO64)
        return p / self.arc, (1 - p) / (self.size - self.arc)

    @property
    def ratio(self) -> Fraction:
        """rho: the arc's point probability over the rest's, exactly."""
        on, off = self.point_probabilities()
        return on / off

    def guarantee(self) -> float:
        """ln max(rho, 1/rho) <= epsilon: the exact privacy of the implemented law."""
        return abs(math.log(self.ratio))

    def sample(self, size, rng) -> np.ndarray:
        """`size` (an int or a shape) draws, as an int64 array."""
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        n = int(math.prod(shape))
        on_arc = rng.integers(0, _TWO64, size=n, dtype=np.uint64) < np.uint64(self.threshold)
        out = np.empty(n, dtype=np.int64)
        hits = int(np.count_nonzero(on_arc))
        out[on_arc] = rng.integers(0, self.arc, size=hits, dtype=np.int64)
        out[~on_arc] = rng.integers(self.arc, self.size, size=n - hits, dtype=np.int64)
        return out.reshape(shape)


def exp_lower_bound(epsilon: float) -> Fraction:
    """A rational lower bound on e^epsilon (epsilon >= 0), at least 1: Decimal's exp is correctly
    rounded at 60 digits, so one part in 10^58 below it is below the true value. Above
    epsilon = 700 it is the bound of e^700, still below e^epsilon (and privacy-safe wherever it
    is used to cap a ratio)."""
    with localcontext() as ctx:
        ctx.prec = 60
        value = Decimal(min(epsilon, 700.0)).exp()
    return max(Fraction(value) * (1 - Fraction(1, 10**58)), Fraction(1))


def threshold_for_ratio(epsilon: float, others) -> float:
    """The largest threshold t on numpy's 2^-53 grid with t·others/(1 - t) <= e^epsilon, checked
    in fractions: `rng.random() < t` then keeps an outcome whose odds against one of `others`
    equally likely alternatives are at most e^epsilon, exactly (`threshold_below` of
    e^epsilon/(e^epsilon + others), with e^epsilon's rational lower bound)."""
    weight = exp_lower_bound(epsilon)
    return threshold_below(weight / (weight + others))


@functools.lru_cache(maxsize=256)
def _arc_threshold(size: int, arc: int, epsilon: float) -> int:
    """The largest T in [1, 2^64 - 1] with T (M - A)/(A (2^64 - T)) <= e^epsilon, checked
    exactly; ValueError if then rho < e^-epsilon (epsilon below about 2^-60: no 64-bit
    threshold reaches the band [e^-epsilon, e^epsilon])."""
    rest = size - arc
    with localcontext() as ctx:
        ctx.prec = 60
        weight = arc * Decimal(epsilon).exp()
        threshold = int((weight / (weight + rest) * _TWO64).to_integral_value(ROUND_FLOOR))
    threshold = min(max(threshold, 1), _TWO64 - 1)
    bound = exp_lower_bound(epsilon)
    while threshold > 1 and Fraction(threshold * rest, arc * (_TWO64 - threshold)) > bound:
        threshold -= 1
    if Fraction(threshold * rest, arc * (_TWO64 - threshold)) * bound < 1:
        raise ValueError(f"epsilon must be at least about 2^-60 for ArcNoise on a circle of "
                         f"{size} points (the arc's mass is a multiple of 2^-64); got "
                         f"epsilon={epsilon!r}")
    return threshold


# ----------------------------------------------------------------------------------------
# Bernoulli draws `rng.random() < p` in floating point
# ----------------------------------------------------------------------------------------

UNIFORM_BITS = 53   # numpy's Generator.random() is k 2^-53, k uniform in {0, ..., 2^53 - 1}


def _unit_fraction(name: str, p) -> Fraction:
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, float, Fraction, np.integer,
                                                             np.floating)):
        raise TypeError(f"{name} must be a real number in [0, 1]; got {type(p).__name__} {p!r}")
    if isinstance(p, (float, np.floating)) and not math.isfinite(p):
        raise ValueError(f"{name} must be a real number in [0, 1]; got {p!r}")
    value = Fraction(p)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be a real number in [0, 1]; got {p!r}")
    return value


def _uniform_bits(bits) -> int:
    return require_int("bits", bits, low=1, high=UNIFORM_BITS, note="the uniform's resolution 2^-bits")


def implemented_probability(p, bits=UNIFORM_BITS) -> Fraction:
    """The exact probability that `rng.random() < p` is true, for a numpy Generator `rng`.

    numpy's `Generator.random()` (float64) returns (w >> 11) * 2^-53 for a uniform 64-bit
    word w of its bit generator (numpy/random/_common.pxd, `uint64_to_double`; MT19937
    combines 27 + 26 bits to the same effect): k 2^-53 with k uniform in {0, ..., 2^53 - 1},
    every product exact. So `rng.random() < p` holds for the ceil(p 2^53) integers k < p 2^53,
    with probability ceil(p 2^53)/2^53: p itself when p is a multiple of 2^-53 (every double
    in [1/2, 1] is), otherwise p rounded UP to the next multiple, by less than 2^-53. The
    same holds for each entry of `rng.random(size) < p` (p scalar or array).

    A Bernoulli(p) drawn this way can thus be off by up to 2^-53 in each outcome: a relative
    error 2^-53/min(p, 1 - p) in a privacy ratio, and a positive probability 2^-53 for p as
    small as 1e-300. `threshold_below` rounds the other way.

    Parameters
    ----------
    p : a real number in [0, 1] (float, int or Fraction; a Fraction is taken exactly).
    bits : the uniform's resolution: a uniform on the multiples of 2^-bits in [0, 1) in place
        of numpy's 53 (for checking the formula by enumeration on a small grid).
    """
    p, bits = _unit_fraction("p", p), _uniform_bits(bits)
    scaled = p * 2**bits
    return Fraction(-(-scaled.numerator // scaled.denominator), 2**bits)


def threshold_below(p, bits=UNIFORM_BITS) -> float:
    """The largest float t with P(rng.random() < t) <= p: t = floor(p 2^53)/2^53 (a double),
    and then P(rng.random() < t) = t exactly (`implemented_probability`).

    Comparing with t rather than with the float nearest p rounds the event's probability DOWN,
    by less than 2^-53, and the complement's up: the private direction when the event is the
    likelier outcome of a randomized response (the rarer outcome never becomes impossible
    unless p = 1). The draws differ from `rng.random() < float(p)` only when the uniform lands
    in [t, float(p)): probability below 2^-52 per draw.

    Parameters
    ----------
    p : a real number in [0, 1]; give a Fraction to have it taken exactly (e.g. (1 + b)/2).
    bits : the uniform's resolution 2^-bits, as in `implemented_probability`.
    """
    p, bits = _unit_fraction("p", p), _uniform_bits(bits)
    return float(Fraction(math.floor(p * 2**bits), 2**bits))
