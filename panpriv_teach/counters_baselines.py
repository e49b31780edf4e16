"""Two modern continual counters beyond the course's sources, as baselines for Cum (Local-mechanisms notes, §2):
Honaker's re-weighted tree (the same noisy nodes, combined better: same privacy, lower
variance) and the square-root factorization counter ((epsilon, delta)-DP with Gaussian noise,
NOT comparable to pure epsilon-DP without saying so). Both are re-exported by
`panpriv_teach.counters`.

References: J. Honaker, "Efficient use of differentially private binary trees" (TPDP 2015);
H. Fichtenberger, M. Henzinger, J. Upadhyay, "Constant matters: fine-grained error bound on
differentially private continual observation" (ICML 2023); M. Henzinger, J. Upadhyay,
S. Upadhyay, "Almost tight error bounds on differentially private continual counting"
(SODA 2023); B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising" (ICML 2018); C. L. Canonne, G. Kamath, T. Steinke,
"The discrete Gaussian for differential privacy" (NeurIPS 2020), for the square-root counter's
floating-point guarantee.
"""
from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from panpriv_teach.core import as_rng
from panpriv_teach.counters import (FixedHorizonCounter, _lowest_level, _ones_through, _popcount,
                                    _prefix_over_nodes, as_bit, as_bit_stream, check_horizon,
                                    dyadic_intervals, tree_levels)
from panpriv_teach.mechanisms import analytic_gaussian_sigma   # re-exported here
from panpriv_teach.noise import MAX_GRID_STEPS, DiscreteGaussian, LaplaceNoise, grid_step
from panpriv_teach.validation import (require_epsilon, require_int, require_probability,
                                      require_real)

__all__ = ["HonakerTreeCounter", "SqrtFactorizationCounter", "analytic_gaussian_sigma",
           "honaker_node_variances", "sqrt_coefficients", "zcdp_delta", "zcdp_rho"]


# ----------------------------------------------------------------------------------------
# Honaker's re-weighted tree
# ----------------------------------------------------------------------------------------

def honaker_node_variances(L: int, node_variance: float) -> np.ndarray:
    """V_j, the variance of the bottom-up estimate of a node of level j = 0..L-1 when every
    node's own noise has variance `node_variance` (sigma^2): V_0 = sigma^2 and
    1/V_j = 1/sigma^2 + 1/(2 V_{j-1}) (inverse-variance weighting of the node's own value and
    the sum of its two children's estimates). V_j decreases to sigma^2/2."""
    L = require_int("L", L, low=1, note="the number of noisy levels of the tree")
    node_variance = require_real("node_variance", node_variance, low=0.0, high=math.inf,
                                 low_open=True, high_open=True)
    V = np.empty(L)
    V[0] = node_variance
    for j in range(1, L):
        V[j] = 1.0 / (1.0 / node_variance + 1.0 / (2.0 * V[j - 1]))
    return V


class HonakerTreeCounter(FixedHorizonCounter):
    """Honaker's re-weighted binary tree: Cum's noisy nodes, combined optimally online.

    Estimates: q_t = x_1 + ... + x_t at every step t = 1..T.
    Mechanism: the noisy nodes of `BinaryTreeCounter` (all nodes of levels 0..L-1 that end by
    T, each X_I = sum_I x + Lap(L/epsilon)); each complete node's count is re-estimated
    bottom-up, E_I = w_j X_I + (1 - w_j)(E_left + E_right), w_j = V_j / sigma^2 (inverse
    variance weights, `honaker_node_variances`), and release t = sum of E_I over
    `dyadic_intervals(t, T)`. E_I is the best linear unbiased estimate of I's count from the
    nodes inside I; the nodes complete at t are exactly those inside [1, t]'s nodes, so the
    release is the best linear unbiased estimate from everything known at t.
    Privacy: the same as Cum, epsilon-DP for all T releases, event-level, against the
    releases only (post-processing of the same node values; here every node is drawn, since
    the right children are now used). Not pan-private (exact sums in the state).
    Accuracy: unbiased, variance sum of V_level over the nodes of [1, t] (`variance`), between
    1/2 and 1 times Cum's (the leaves gain nothing, high nodes almost 1/2).
    Reference: Honaker 2015 (the bottom-up pass of its efficient estimator), beyond the course's sources.
    Implementation: `step` draws the noise of the nodes ending at t, leaf first; `run`
    draws the same numbers in the same order (same rng, same releases).
    """

    def __init__(self, T, epsilon, rng=None):
        self.T = check_horizon(T)
        self.epsilon = require_epsilon(epsilon)
        self.levels = tree_levels(self.T)
        self.scale = self.levels / self.epsilon
        if not 1e-150 < self.scale < 1e150:   # 2 scale^2 must be a positive finite float
            raise ValueError(f"epsilon must give a node noise scale L/epsilon in (1e-150, 1e150), "
                             f"L = {self.levels} levels (the weights divide by the variance "
                             f"2 (L/epsilon)^2); got {epsilon!r}")
        self._laplace = LaplaceNoise(self.levels, self.epsilon)   # float-safe Lap(L/epsilon)
        self.scale = self._laplace.scale
        sigma2 = self._laplace.variance
        self.node_variances = honaker_node_variances(self.levels, sigma2)   # V_j
        self.weights = self.node_variances / sigma2                           # w_j (w_0 = 1)
        self._rng = as_rng(rng)
        self._t = 0
        self._exact = {}      # node -> exact count, for the nodes of [1, t]
        self._estimate = {}   # node -> E_I, same nodes

    def _step(self, x) -> float:
        x = as_bit(x)
        self._check_room(1)
        t = self._t + 1
        for j in range(_lowest_level(t, self.levels) + 1):   # the nodes ending at t, leaf first
            if j == 0:
                exact, child_sum = x, None
            else:  # children: the held left sibling and the level j - 1 node just made
                left = (t - 2**j + 1, t - 2**(j - 1))
                exact += self._exact.pop(left)
                child_sum = estimate + self._estimate.pop(left)
            noisy = exact + self._laplace.noise(None, self._rng)
            w = self.weights[j]
            estimate = noisy if j == 0 else w * noisy + (1 - w) * child_sum
        node = (t - 2**j + 1, t)
        self._exact[node], self._estimate[node] = exact, estimate
        self._t = t
        return sum(self._estimate.values())

    def run(self, stream) -> np.ndarray:
        """All releases, vectorised level by level (continues from the current step)."""
        x = self._take(stream)
        n = x.size
        if n == 0:
            return np.zeros(0)
        t0, t_end, L = self._t, self._t + n, self.levels
        times = np.arange(t0 + 1, t_end + 1)
        # nodes ending at t: levels 0 .. min(v2(t), L - 1); draws in time order, leaf first
        per_step = np.minimum(_popcount((times & -times) - 1), L - 1) + 1
        offset = np.concatenate(([0], np.cumsum(per_step))).astype(np.int64)
        draws = self._laplace.noise(int(offset[-1]), self._rng)
        counts = np.cumsum(x)

        def ones_through(k):  # ones in [1, k] for an array of k (k >= t0 or a held boundary)
            return _ones_through(k, t0, self._exact, counts)

        estimates = np.zeros(t_end + 1)   # estimates[e]: E of the used node ending at e
        level_est = None                  # E of the level j - 1 nodes, by node number m
        for j in range(L):
            size = 2**j
            m_max = t_end // size
            if m_max == 0:
                break
            est = np.zeros(m_max + 1)
            for (s, e), value in self._estimate.items():   # held nodes of this level
                if e - s + 1 == size:
                    est[e // size] = value
            m_new = np.arange(t0 // size + 1, m_max + 1)   # nodes of level j ending after t0
            if m_new.size:
                ends = m_new * size
                noisy = (ones_through(ends) - ones_through(ends - size)
                         + draws[offset[ends - t0 - 1] + j])
                if j == 0:
                    est[m_new] = noisy
                else:
                    w = self.weights[j]
                    est[m_new] = w * noisy + (1 - w) * (level_est[2 * m_new - 1] + level_est[2 * m_new])
            level_est = est
            # the used node ending at e has level min(v2(e), L - 1): odd m below the top level
            used = np.arange(1, m_max + 1, 2) if j < L - 1 else np.arange(1, m_max + 1)
            estimates[used * size] = est[used]
        releases = _prefix_over_nodes(estimates, t_end, L)[t0 + 1:]
        exact, estimate = {}, {}
        for s, e in dyadic_intervals(t_end, self.T):
            if (s, e) in self._exact:
                exact[(s, e)], estimate[(s, e)] = self._exact[(s, e)], self._estimate[(s, e)]
            else:
                exact[(s, e)] = int(ones_through(np.array([e]))[0] - ones_through(np.array([s - 1]))[0])
                estimate[(s, e)] = float(estimates[e])
        self._exact, self._estimate, self._t = exact, estimate, t_end
        self._last_release = float(releases[-1])
        return releases

    def variance(self, t):
        """The exact variance of release t: the sum of V_level over the nodes of [1, t] (one
        node of level j per 1-bit j of t; two of level L - 1 at t = T = 2^L). Vectorised."""
        t = np.asarray(t, dtype=np.int64)
        out = np.zeros(t.shape)
        for j, V in enumerate(self.node_variances):
            out += V * ((t >> j) & 1)
        return np.where(t == 2**self.levels, 2 * self.node_variances[-1], out)

    def state(self) -> dict:
        """{"t", "exact": {node: count}, "estimate": {node: E_I}} for the nodes of [1, t]."""
        return {"t": self._t, "exact": dict(self._exact), "estimate": dict(self._estimate)}


# ----------------------------------------------------------------------------------------
# The square-root factorization counter, (epsilon, delta)-DP with Gaussian noise
# ----------------------------------------------------------------------------------------

BIAS_FRACTION = 2.0**-12  # the coefficients' rounding moves a release by less than this times sigma
_FFT_EXACT = 2.0**40      # n bits convolved with integers below 2^b, n 2^b <= this: exact by FFT
_INT64_LIMIT = 2**62      # C_hat x + noise, in grid steps, must stay exact in int64


def sqrt_coefficients(T) -> np.ndarray:
    """c_0 .. c_{T-1}, the coefficients of (1 - x)^(-1/2) = sum_k binom(2k, k)/4^k x^k:
    c_0 = 1, c_k = c_{k-1} (2k - 1)/(2k). The lower-triangular Toeplitz matrix C with first
    column c squares to the all-ones lower-triangular matrix A (the prefix sums), since
    ((1 - x)^(-1/2))^2 = 1/(1 - x) = sum_k x^k. c_k ~ 1/sqrt(pi k)."""
    T = check_horizon(T)
    k = np.arange(1, T)
    return np.concatenate(([1.0], np.cumprod((2 * k - 1) / (2 * k))))


def _zcdp_log_delta(rho: float, epsilon: float) -> float:
    """ln of `zcdp_delta`: alpha = 1 + e^u found by bisection on u (the slope below increases
    with alpha); any alpha gives a valid bound, so the bisection's precision costs nothing."""
    def slope(alpha):   # the derivative in alpha of the log of the bound
        return (2 * alpha - 1) * rho - epsilon + math.log1p(-1 / alpha)

    low, high = -40 * math.log(2), math.log((epsilon + 1) / (2 * rho) + 2)
    for _ in range(100):
        middle = (low + high) / 2
        if slope(1 + math.exp(middle)) < 0:
            low = middle
        else:
            high = middle
    alpha = 1 + math.exp(high)
    log_delta = ((alpha - 1) * (alpha * rho - epsilon) + alpha * math.log1p(-1 / alpha)
                 - math.log(alpha - 1))
    return min(0.0, log_delta)


def zcdp_delta(rho, epsilon) -> float:
    """The delta for which rho-zCDP implies (epsilon, delta)-DP: the infimum over alpha > 1 of
    exp((alpha - 1)(alpha rho - epsilon)) (1 - 1/alpha)^alpha / (alpha - 1) (Canonne, Kamath,
    Steinke 2020, their conversion from concentrated DP; the optimal alpha solves (2 alpha - 1) rho - epsilon +
    ln(1 - 1/alpha) = 0). At most 1; tighter than Bun and Steinke's exp(-(epsilon - rho)^2/(4 rho))."""
    rho = require_real("rho", rho, low=0.0, high=math.inf, low_open=True, high_open=True)
    epsilon = require_epsilon(epsilon)
    return math.exp(_zcdp_log_delta(rho, epsilon))


def zcdp_rho(epsilon, delta) -> float:
    """The largest rho (to relative 1e-12, rounded down) for which rho-zCDP implies
    (epsilon, delta)-DP by `zcdp_delta`: bisection on ln rho (delta grows with rho)."""
    return _zcdp_rho(require_epsilon(epsilon), require_probability("delta", delta))


@functools.lru_cache(maxsize=64)
def _zcdp_rho(epsilon: float, delta: float) -> float:
    target = math.log(delta)
    low, high = math.log(1e-300), math.log(max(1.0, epsilon))
    while _zcdp_log_delta(math.exp(high), epsilon) <= target and high < math.log(1e15):
        high += math.log(4)
    for _ in range(200):
        middle = (low + high) / 2
        if _zcdp_log_delta(math.exp(middle), epsilon) <= target:
            low = middle
        else:
            high = middle
    return math.exp(low)


def _power_of_two_below(value: float) -> float:
    return math.ldexp(1.0, math.frexp(value)[1] - 1)


class _SqrtPlan(NamedTuple):
    grid: float                  # Λ
    grid_coefficients: np.ndarray  # c_hat_k = rint(c_k / Λ), int64
    squared_sensitivity: int     # sum_k c_hat_k^2, exactly
    rho: float
    sampler: DiscreteGaussian    # N_Z(0, s^2), s in grid steps
    guarantee: tuple
    rounding_bias: float


@functools.lru_cache(maxsize=16)
def _sqrt_plan(T: int, epsilon: float, delta: float) -> _SqrtPlan:
    """The grid, the integer coefficients, the noise and the guarantee of the counter."""
    c = sqrt_coefficients(T)
    rho = _zcdp_rho(epsilon, delta)
    sigma = math.sqrt(math.fsum(c * c) / (2 * rho))                     # for the real-valued C
    weight = 0.5 * math.fsum(c * np.arange(T, 0, -1))                   # sum_j c_j (T - j)/2
    if 7.9 * sigma <= 1.01:   # the sampler's float analysis needs 6.9 s + s^2/t > c_hat_0 + 1
        raise ValueError(f"epsilon={epsilon!r} and delta={delta!r} give sigma = {sigma:.3g}: the "
                         f"discrete Gaussian's floating-point guarantee needs sigma > 1.01/7.9 "
                         f"(its tail bound must reach past a shift of one count); epsilon (or "
                         f"delta) must be smaller")
    grid = min(grid_step(1.0, sigma), _power_of_two_below(BIAS_FRACTION * sigma / weight))
    if sigma / grid > MAX_GRID_STEPS / 2:   # s is sigma/Λ to within 1e-9
        raise ValueError(f"epsilon={epsilon!r} and delta={delta!r} need noise of "
                         f"{sigma / grid:.3g} grid steps of 2^{math.frexp(grid)[1] - 1} (at most "
                         f"2^49): epsilon (or delta) must be larger")
    if (math.fsum(c) + 128 * sigma) / grid + 128 > _INT64_LIMIT:   # |Y| < 2^J <= 100 s + 102
        raise ValueError(f"T = {T} is too long for exact int64 arithmetic on the grid "
                         f"2^{math.frexp(grid)[1] - 1} that epsilon={epsilon!r}, delta={delta!r} "
                         f"need (C x + noise above 2^62 grid steps); use a shorter T or a smaller "
                         f"epsilon")
    grid_coefficients = np.rint(c / grid).astype(np.int64)              # exact: Λ is 2^-k
    squared = sum(v * v for v in grid_coefficients.tolist())            # Python integers
    s = math.sqrt(squared / (2 * rho)) * (1 + 2.0**-40)   # rounded up: squared/(2 s^2) <= rho
    sampler = DiscreteGaussian(s)
    eta, delta_float = sampler.float_cost(int(grid_coefficients[0]))
    spread = T * eta   # the T-dimensional law is within e^spread of the exact one; void from 1 on
    guarantee = (epsilon + 2 * spread,
                 min(1.0, math.exp(spread) * delta + T * delta_float) if spread < 1 else 1.0)
    return _SqrtPlan(grid, grid_coefficients, squared, rho, sampler, guarantee, grid * weight)


def _integer_convolution(coefficients: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """sum_{k <= t} coefficients[k] bits[t - k] for t < len(bits), exactly, as int64.

    Non-negative int64 coefficients and 0/1 bits; by FFT, the coefficients cut into limbs of
    b bits with n 2^b <= 2^40 (n = len(bits)). Each limb's convolution has integer entries
    below 2^40, and the floating-point FFT convolution of vectors u, v errs by at most about
    ||u||_2 ||v||_2 (3 log2(size) + 5) 2^-53 <= 2^40 * 100 * 2^-53 < 2^-6 per entry (the
    standard error bound of FFT convolution with accurate twiddles, size <= 2^31), so
    rounding returns every entry exactly. Checked: an entry farther than 1/8 from an
    integer raises."""
    n = bits.size
    size = 1 << (2 * n - 1).bit_length()
    limb = max(1, math.floor(math.log2(_FFT_EXACT / n)))
    spectrum = np.fft.rfft(bits.astype(float), size)
    coefficients = coefficients[:n]
    out = np.zeros(n, dtype=np.int64)
    for shift in range(0, int(coefficients.max()).bit_length(), limb):
        part = ((coefficients >> shift) & ((1 << limb) - 1)).astype(float)
        values = np.fft.irfft(np.fft.rfft(part, size) * spectrum, size)[:n]
        rounded = np.rint(values)
        if np.max(np.abs(values - rounded)) > 0.125:
            raise RuntimeError("the FFT convolution is not within 1/8 of the integers: its "
                               "error bound failed (please report this)")
        out += rounded.astype(np.int64) << shift
    return out


class SqrtFactorizationCounter(FixedHorizonCounter):
    """The square-root factorization counter: (epsilon, delta)-DP, Gaussian noise.

    Estimates: q_t = x_1 + ... + x_t at every step t = 1..T.
    Mechanism (real numbers): factor the prefix-sum matrix A (all-ones lower triangular) as
    A = C C with C = A^(1/2), the lower-triangular Toeplitz matrix of the coefficients c_k of
    (1 - x)^(-1/2) (`sqrt_coefficients`); release C (C x + z), z_s i.i.d. N(0, sigma^2), i.e.
    release t = q_t + sum_{k < t} c_k z_{t-k}, online. C x + z is the Gaussian mechanism on
    C x, whose L2 sensitivity is the largest column norm of C, sqrt(sum_k c_k^2) (column 1).
    Henzinger, Upadhyay, Upadhyay 2023; Fichtenberger, Henzinger, Upadhyay 2023 (who
    approximate the squared norm by 1 + ln(T)/pi, which understates it: 3.273 against 3.206
    at T = 2^10; a true bound is 1 + (ln T + 0.5773)/pi, from c_k <= 1/sqrt(pi k)).
    Beyond the course's sources.

    The floating-point program, privatised on a grid and then post-processed:
    1. Grid Λ = 2^-k and integer coefficients c_hat_k = rint(c_k/Λ) (`grid_coefficients`).
       Λ is the smaller of `noise.grid_step(1, sigma)` and the power of two that keeps the
       rounding bias below sigma/4096 (`rounding_bias`, below).
    2. y = C_hat x + Y, Y_s i.i.d. discrete Gaussian N_Z(0, s^2) (s = sigma/Λ grid steps,
       `noise.DiscreteGaussian`): integer arithmetic only. C_hat x is computed exactly: by an
       int64 dot product in `step`, by an FFT convolution in limbs that is exact after
       rounding in `run` (`grid_query`; its error bound is checked at every entry).
    3. Release t = Λ sum_{k < t} c_k y_{t-k}, in floating point: a post-processing of y.
    Sensitivity of the float computation: neighbouring streams (one bit flipped at step i)
    change C_hat x by exactly ±(c_hat_0, ..., c_hat_{T-i}) from step i on and not at all
    before, so ||C_hat x - C_hat x'||_2^2 <= sum_k c_hat_k^2 = `grid_sensitivity`^2, an
    integer computed exactly. There is no rounding slack and no float error to add: the
    rounding is in the coefficients, which are public, and C_hat x is exact. (Rounding
    fl(C x) instead would need one grid step of slack per coordinate, L2 slack up to
    sqrt(T - i + 1) steps.) `sensitivity` = Λ `grid_sensitivity`, within about Λ sqrt(T)/2
    of sqrt(sum_k c_k^2).
    Privacy, and how it is derived:
    - The exact law: adding i.i.d. N_Z(0, s^2) to an integer vector query of L2 sensitivity
      D is rho-zCDP with rho = D^2/(2 s^2), in any dimension (Canonne, Kamath, Steinke 2020,
      the multivariate discrete Gaussian's concentrated-DP theorem: the same rho as the
      continuous Gaussian). rho-zCDP implies (epsilon, delta)-DP for delta =
      `zcdp_delta(rho, epsilon)` (their conversion). s is the smallest with
      D^2/(2 s^2) <= `zcdp_rho(epsilon, delta)` (`rho`). This is conservative: Balle & Wang
      2018's exact calibration (`analytic_gaussian_sigma`) is for the continuous Gaussian,
      and it does not carry over by itself: the discrete Gaussian's exact delta can exceed
      the continuous one's (0.603 against 0.510 at s = 0.5, a shift of 1, epsilon = 1;
      tested), while its concentrated-DP bound is the same in every dimension. The
      price: sigma about 7 % above the analytic calibration at epsilon = 1, delta = 1e-6.
    - The sampler: on each coordinate its implemented law is within a factor e^eta of the
      exact one where every shift up to c_hat_0 = 1/Λ steps keeps the outcome reachable,
      and the rest has mass at most delta_f ((eta, delta_f) = `DiscreteGaussian.float_cost`).
      Coordinate by coordinate, the T-dimensional law is within e^(T eta) of the exact one
      outside mass T delta_f; replace each probability by the exact one, apply the exact
      guarantee, replace back: the floating-point program is
      (epsilon + 2 T eta, e^(T eta) delta + T delta_f)-DP for all T releases, event-level,
      against the releases only (`guarantee()`; eta is about 1.2e-8, so 2 T eta is 1.6e-3
      at T = 2^16 and 0.55 at T = 2^24). For sigma below about 1 (epsilon above about 10 at
      delta = 1e-6) the sampler's tail term grows and delta' with it: read `guarantee()`;
      sigma <= 1.01/7.9, where that analysis no longer applies, is refused.
      Not pan-private: the state holds the stream and the exact count.
    Accuracy: release t - q_t = Λ sum_k c_k Y_{t-k} + b_t with the deterministic b_t =
    (C (Λ C_hat - C) x)_t, |b_t| <= (Λ/2) sum_{j < t} c_j (t - j) <= `rounding_bias` <=
    sigma/4096. The noise has mean 0 and variance sigma^2 (c_0^2 + ... + c_{t-1}^2)
    (`variance`; sigma = s Λ), O(log T) against Cum's O(log^3 T): several times smaller
    than Cum's at T = 2^16 (a comparison that also changes the privacy notion; say so).
    Implementation: `step` draws one Y and computes (C_hat x)_t and the release by dot
    products (O(t)); `run` draws its Y's at once (the same law, not the same numbers: the
    rejection sampler draws in rounds) and convolves by FFT. With the same Y's both give
    the same y exactly and the same releases to float rounding (tested).
    """

    def __init__(self, T, epsilon, delta, rng=None):
        self.T = check_horizon(T)
        self.epsilon = require_epsilon(epsilon)
        self.delta = require_probability("delta", delta, note="(epsilon, delta)-DP: the "
                                         "probability of failure, e.g. 1e-6 or 1/T^2")
        plan = _sqrt_plan(self.T, self.epsilon, self.delta)
        self.coefficients = sqrt_coefficients(self.T)                      # c_k
        self.grid = plan.grid                                              # Λ
        self.grid_coefficients = plan.grid_coefficients                    # c_hat_k
        self.grid_sensitivity = math.sqrt(plan.squared_sensitivity)        # ||c_hat||_2, steps
        self.sensitivity = self.grid_sensitivity * self.grid
        self.rho = plan.rho
        self.sigma = plan.sampler.sigma * self.grid
        self.rounding_bias = plan.rounding_bias
        self._plan = plan
        self._rng = as_rng(rng)
        self._t = 0
        self._count = 0
        self._x = np.zeros(self.T, dtype=np.int64)
        self._y = np.zeros(self.T, dtype=np.int64)

    def _params(self) -> dict:
        return {**super()._params(), "delta": self.delta}

    def guarantee(self) -> tuple[float, float]:
        """(epsilon', delta'): the privacy of the floating-point program for all T releases
        (see the class docstring): (epsilon + 2 T eta, e^(T eta) delta + T delta_f)."""
        return self._plan.guarantee

    def grid_query(self, stream) -> np.ndarray:
        """C_hat x for a whole stream from step 1 (at most T bits): the exact integers the
        noise is added to, computed as `run` computes them."""
        x = as_bit_stream(stream)
        if x.size > self.T:
            raise ValueError(f"stream must have at most T = {self.T} bits; got {x.size}")
        if x.size == 0:
            return np.zeros(0, dtype=np.int64)
        return _integer_convolution(self.grid_coefficients, x)

    def _step(self, x) -> float:
        x = as_bit(x)
        self._check_room(1)
        t = self._t
        self._x[t] = x
        exact = int(np.dot(self.grid_coefficients[:t + 1], self._x[t::-1]))   # int64, exact
        self._y[t] = exact + int(self._plan.sampler.sample(1, self._rng)[0])
        self._count += x
        self._t = t + 1
        return self.grid * float(np.dot(self.coefficients[:t + 1], self._y[t::-1]))

    def run(self, stream) -> np.ndarray:
        """All releases: the same y as repeated `step` for the same Y's, convolved by FFT."""
        x = self._take(stream)
        n = x.size
        if n == 0:
            return np.zeros(0)
        t0, t_end = self._t, self._t + n
        self._x[t0:t_end] = x
        exact = _integer_convolution(self.grid_coefficients, self._x[:t_end])[t0:]
        self._y[t0:t_end] = exact + self._plan.sampler.sample(n, self._rng)
        size = 1 << (2 * t_end - 1).bit_length()
        noisy = np.fft.irfft(np.fft.rfft(self.coefficients[:t_end], size)
                             * np.fft.rfft(self._y[:t_end] * self.grid, size), size)
        releases = noisy[t0:t_end]
        self._count += int(x.sum())
        self._t = t_end
        self._last_release = float(releases[-1])
        return releases

    def variance(self, t):
        """The variance of release t: sigma^2 (c_0^2 + ... + c_{t-1}^2), sigma = s Λ.
        Exact: N_Z(0, s^2) has variance s^2 (1 - r) with 0 <= r <= 8 pi^2 s^2 e^(-2 pi^2 s^2)
        (Poisson summation), which is 0 in float64 here (s >= 4000). Vectorised."""
        cumulative = np.cumsum(self.coefficients**2)
        return self.sigma**2 * cumulative[np.asarray(t, dtype=np.int64) - 1]

    def state(self) -> dict:
        """{"t", "count", "x", "y"}: the exact count, the bits so far and the noisy grid
        values y_1..y_t (integers)."""
        return {"t": self._t, "count": self._count, "x": self._x[:self._t].copy(),
                "y": self._y[:self._t].copy()}
