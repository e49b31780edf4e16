"""Cropped first moment with counters modulo 2τ (Alg 2), and the heavy-hitters count built on
it (Alg 3), for fully dynamic streams of updates (i, d).

Mir et al. 2011, §3.2 (T'(τ), Claim 1 / Claim 2 of
Appendix A.1, Lemmas 4-5, the noise distribution 𝒩 (eq. 2), Alg 2, Thm 7) and §3.3 (Alg 3,
Lemmas 6-7, Thm 8). Corrections to Mir et al. 2011 are listed in the class docstrings.
`noise_pdf` and `sample_noise` are the real-valued law 𝒩 of the paper; the algorithms hold
their state on an integer grid and draw its discrete twin (`noise.ArcNoise`), so that their
privacy holds for the floating-point program (CroppedSum docstring).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.noise import ArcNoise, LaplaceNoise
from panpriv_teach.stable import _totals, _update_args
from panpriv_teach.validation import (require_array, require_epsilon, require_int,
                                      require_real)

__all__ = ["noise_pdf", "sample_noise", "cropped_moment", "modular_moment",
           "expected_modular_term", "heavy_hitters", "CroppedSum", "HeavyHittersCount"]


# ----------------------------------------------------------------------------------------
# The noise distribution 𝒩 (eq. 2) and the statistics
# ----------------------------------------------------------------------------------------

def _check_noise(tau, epsilon, window):
    tau = require_real("tau", tau, low=0.5, high=1e300,
                       note="𝒩 lives on [0, 2τ) and needs 2τ >= 1, a finite number")
    epsilon = require_epsilon(epsilon, high=700.0, note="K = 2τ − L + L·e^ε must be finite")
    window = require_real("window", window, low=0.0, high=2 * tau, low_open=True, high_open=True,
                          note=f"the high-density arc [0, L] of 𝒩 lies inside [0, 2τ) = [0, {2 * tau:g})")
    return tau, epsilon, window


def noise_pdf(x, tau, epsilon, window=1.0):
    """The density of 𝒩 (eq. 2): e^ε/K on [0, L], 1/K on (L, 2τ), K = 2τ − L + L·e^ε.

    Mir et al. 2011 has L = 1 (K = 2τ − 1 + e^ε); `window` = L generalises it (see CroppedSum).
    """
    tau, epsilon, window = _check_noise(tau, epsilon, window)
    x = np.asarray(x, dtype=float)
    K = 2 * tau - window + window * math.exp(epsilon)
    inside = (x >= 0) & (x < 2 * tau)
    return np.where(inside, np.where(x <= window, math.exp(epsilon), 1.0) / K, 0.0)


def sample_noise(tau, epsilon, size=None, rng=None, window=1.0):
    """Draws from 𝒩: with probability L·e^ε/K uniform on [0, L], otherwise uniform on (L, 2τ)."""
    tau, epsilon, window = _check_noise(tau, epsilon, window)
    rng = as_rng(rng)
    K = 2 * tau - window + window * math.exp(epsilon)
    low = rng.random(size) < window * math.exp(epsilon) / K
    x = np.where(low, rng.uniform(0.0, window, size), rng.uniform(window, 2 * tau, size))
    return float(x) if size is None else x


def _state_vector(a):
    """A state vector a (a_i >= 0 in the fully dynamic model, §2.1), as floats."""
    a = require_array("a", a, ndim=1).astype(float)
    if np.any(a < 0):
        raise ValueError(f"each entry of a must be >= 0 (a state vector of the fully dynamic model, "
                         f"§2.1); got {a[a < 0][0]!r}")
    return a


def _positive_tau(tau):
    return require_real("tau", tau, low=0.0, high=math.inf, low_open=True, high_open=True)


def cropped_moment(a, tau) -> float:
    """T_1(τ) = Σ_i min(a_i, τ), for a state vector with a_i >= 0."""
    a = _state_vector(a)
    return float(np.minimum(a, _positive_tau(tau)).sum())


def modular_moment(a, w, tau) -> float:
    """T'(τ) = Σ_i (w_i a_i mod 2τ) (§3.2)."""
    a = require_array("a", a, ndim=1).astype(float)
    w = require_array("w", w, ndim=1).astype(float)
    if w.shape != a.shape:
        raise ValueError(f"w must have one weight per entry of a, shape {a.shape}; got shape {w.shape}")
    return float(np.mod(w * a, 2 * _positive_tau(tau)).sum())


def _G(x, tau, window):
    """∫_0^x g(t mod 2τ) dt for g(u) = u − (2τ/L)(u + L − 2τ)_+ (L = None: g(u) = u)."""
    period = 2 * tau
    n, y = np.floor_divide(x, period), np.mod(x, period)
    if window is None:
        return n * period**2 / 2 + y**2 / 2
    loss = lambda v: (tau / window) * np.maximum(v + window - period, 0.0) ** 2
    return n * (period**2 / 2 - loss(period)) + y**2 / 2 - loss(y)


def expected_modular_term(a, tau, window=None) -> np.ndarray:
    """E_w[g(w a mod 2τ)] for w ~ U[1, 2], per entry of a (closed form, exact).

    window=None: g(u) = u, so this is E[w a mod 2τ] (Claim 1, Lemma 4: Σ of it is E[T']).
    window=L: g(u) = u − (2τ/L)(u + L − 2τ)_+, the part of u that Alg 2's estimator
    recovers in expectation (CroppedSum docstring), so Σ of it is E[T̃_1] over the w's.
    CroppedSum draws w from the midpoints of 2^20 equal cells of [1, 2]; the average over
    them is this midpoint rule, exact where w ↦ g(wa mod 2τ) is linear on a cell. Its error
    is at most (a + 2τ)h/2 for window=None (at most a/(2τ) + 1 cells hold a jump of 2τ, each
    costing <= 2τ·h/2) and (a + 2τ)·a·h²/(4L) for window=L (g is continuous; at most
    (a + 2τ)/τ cells hold a kink where the slope in w changes by 2τa/L, each costing
    <= h²·2τa/(8L)), h = 2^-20.
    """
    a = np.abs(require_array("a", a).astype(float))
    tau = require_real("tau", tau, low=0.5, high=1e150,
                       note="𝒩 needs 2τ >= 1; (2τ)² must be a finite float")
    if window is not None:
        window = require_real("window", window, low=tau * 1e-300, high=2 * tau, high_open=True,
                              note=f"an arc inside [0, 2τ) = [0, {2 * tau:g}), with τ/L finite")
    out = np.zeros_like(a)
    positive = a > 0
    ap = a[positive]
    out[positive] = (_G(2 * ap, tau, window) - _G(ap, tau, window)) / ap
    return out


def heavy_hitters(a, k, F1=None) -> int:
    """HH(k) = |{i : a_i >= F1/k}| with F1 = Σ a_i unless given."""
    a = _state_vector(a)
    k = require_real("k", k, low=0.0, high=math.inf, low_open=True, high_open=True,
                     note="heavy hitters hold at least F1/k")
    F1 = a.sum() if F1 is None else require_real("F1", F1, low=0.0, high=math.inf, high_open=True)
    return int(np.sum(a >= F1 / k)) if F1 > 0 else 0


# ----------------------------------------------------------------------------------------
# Alg 2
# ----------------------------------------------------------------------------------------

WEIGHT_BITS = 20                   # w_i = 1 + (j + 1/2)/2^20, j uniform in {0, ..., 2^20 - 1}
STEP = 2.0 ** -(WEIGHT_BITS + 1)   # Λ = 2^-21: w_i, τ (times 2) and the arc are multiples of it
MAX_TAU = 2.0**31                  # 2τ/Λ <= 2^53: counters and their float views are exact
_FEW_IDS = 8                       # `process` updates at most this many IDs one by one


def _grid_count(name, value, step, note):
    """value/step as an int, or ValueError when value is not a multiple of step (a power of 2)."""
    units = value / step                                   # exact: step is a power of two
    if units != math.floor(units):
        raise ValueError(f"{name} must be a multiple of 2^{math.frexp(step)[1] - 1} ({note}); "
                         f"got {name}={value!r} (nearest valid: {round(units) * step!r})")
    return int(units)


def _mulmod(weights, x, modulus):
    """(weights·x) mod modulus, exactly, for int64 arrays with 0 < weights < 2^22 and
    0 <= x < modulus <= 2^53: the weights in two 11-bit halves, so that no product passes
    2^64 (computed in uint64)."""
    W, x, M = weights.astype(np.uint64), x.astype(np.uint64), np.uint64(modulus)
    high = (x * (W >> np.uint64(11))) % M
    high = (high << np.uint64(11)) % M
    low = (x * (W & np.uint64(2047))) % M
    return ((high + low) % M).astype(np.int64)


class CroppedSum(StreamAlgorithm):
    """Alg 2: the cropped first moment T_1(τ) = Σ min(a_i, τ) from counters modulo 2τ, with
    its state held as exact integers.

    The algorithm (Mir et al. 2011, §3.2): for every ID i, c_i ~ 𝒩 and w_i ~ U[1, 2]; an update
    (i, d) sets c_i ← (c_i + w_i·d) mod 2τ; the output is T̃ from σ̃ = Σ c_i + Lap(2τ/ε). So
    c_i = (N_i + u_i) mod 2τ with u_i = w_i a_i mod 2τ: a function of a_i only.
    𝒩 (eq. 2): density e^ε/K on the arc [0, L], 1/K on (L, 2τ), K = 2τ − L + L·e^ε.

    On an integer grid (what runs here). Real-valued counters cannot be kept in floating point
    without the rounding depending on the data (Mironov 2012, §3, for the same problem in the
    Laplace mechanism), so every quantity of the state lives on the grid Λ = 2^-21 (`STEP`):
    - w_i = W_i·Λ with W_i = 2^21 + 2j + 1, j uniform on {0, ..., 2^20 − 1} (`WEIGHT_BITS`):
      the midpoints of 2^20 equal cells of [1, 2], a discrete U[1, 2];
    - τ must be a multiple of Λ/2 = 2^-22 in [1/2, 2^31], the arc L = `window` a multiple of
      Λ in (0, 2τ) (ValueError otherwise), so M = 2τ/Λ and A = L/Λ are integers, M <= 2^53;
    - the counters are int64 C_i in {0, ..., M − 1} (c_i = C_i·Λ), started at a draw of
      `noise.ArcNoise(M, A, ε)`: uniform on the arc {0, ..., A − 1} with mass p, uniform on
      the rest with mass 1 − p, point masses α = p/A and β = (1 − p)/(M − A) in the exact
      ratio ρ = α/β ∈ [e^-ε, e^ε] (ρ = e^ε to about 2^-64/(p(1 − p)) relative; `ratio`);
    - an update (i, d) (d an integer, as the fully dynamic model has it, §2.1) sets
      C_i ← (C_i + W_i·d) mod M in exact integer arithmetic; `process` adds W_i·(net change of
      i) mod M, the same integer (exactly equal to repeated `update`).
    `c` and `w` show the state in real units (exact floats: C_i·Λ, W_i·Λ; read-only).

    Privacy (of the program as it runs). C_i = (N_i + U_i) mod M with U_i = W_i a_i mod M, and
    P(C_i = x | a_i) is α or β for every x, so for two values of a_i every state value has
    probabilities in ratio at most max(ρ, 1/ρ) <= e^ε, exactly (the weights are drawn
    independently of the data). With Dwork et al.'s neighbours (one ID's updates added or
    removed) the state is ε-DP, exactly; with Def 4's user-level neighbours (the updates of
    i moved to j ≠ i) two counters change: 2ε. The release rounds σ = Λ·Σ C_i (an exact
    integer sum) to the grid of `noise.LaplaceNoise(2τ, ε)` and adds its discrete Laplace
    noise: one ID moves σ by less than 2τ, so the output is (ε + η, δ)-DP with η < 1e-8,
    δ < 1e-20 (`output_guarantee`). Against one intrusion: (2ε + η, δ)-pan-private with
    Dwork et al.'s neighbours (Thm 7's 2ε), (4ε + 2η, 2δ) with Def 4's. (Derivation: the
    state's law is computed exactly from the sampler's integer threshold, see
    `noise.ArcNoise`; the output's float cost is `noise.DiscreteLaplace`'s, after
    Canonne, Kamath, Steinke 2020.)

    Estimates: T'(τ) = Σ (w_i a_i mod 2τ), and through it T_1(τ) (Lemma 4: E[T'] is within
    [T_1/2, 2T_1]). Exactly, for the grid law (sum α·((n + U) mod M) over the M points n,
    the arc's A points wrapping (U + A − M)_+ times):
        E[c_i | u_i] = E[N] + κ·g(u_i),   g(u) = u − (2τ/L)·(u + L − 2τ)_+,
        E[N] = Λ·(β·M(M − 1)/2 + (α − β)·A(A − 1)/2),   κ = (α − β)·A,
    and T̃ = (σ̃ − m·E[N])/κ has E[T̃ | w] = Σ_i g(u_i) = T' − (2τ/L)Σ(u_i + L − 2τ)_+
    (`expected_output`), which lies in [T' − Σ_{u_i > 2τ−L} u_i, T'] (the proof sketch of
    Thm 7) and equals T' when no u_i exceeds 2τ − L. Against the continuous law: with ρ in
    place of e^ε, K = 2τ − L + Lρ gives κ = (ρ − 1)L/K exactly and E[N] = 2τ²/K +
    (ρ − 1)L²/(2K) − Λ/2 (the grid's points are the left ends of its cells): the lecture's
    E[c_i | u_i] = 2τ²/K + (e^ε − 1)/K·(L u_i + L²/2 − 2τ(u_i + L − 2τ)_+) holds up to −Λ/2
    and the relative 2^-64/(p(1 − p)) of ρ. The only inexact steps of the output are the
    rounding of σ to the noise grid s, a bias of at most s/(2κ) (`mean_error_bound`; s <=
    2^-12·2τ/ε, so at most 2^-13 of the noise scale 2τ/(εκ)), and float64 rounding in the
    final division (relative 1e-15).
    Accuracy (Thm 7, with constants): given w, the sd of T̃ is at most
    sqrt(mτ² + Var(output noise))/κ (`std_bound`; about K/((e^ε − 1)L)·sqrt(mτ² + 8τ²/ε²)).
    Source: Mir et al. 2011, §3.2, eq. (2), Alg 2, Claim 1, Lemmas 4-5, Thm 7.
    Corrections:
    - The debiasing constant: Alg 2 subtracts τ²m/K; the mean of σ on the empty stream is
      m·E[𝒩] = m(2τ²/K + (e^ε − 1)/(2K)) (L = 1), so it must subtract 2τ²m/K. Mir et al.
      2011's formula is biased by τ²m/(e^ε − 1) (measured in the tests and the lecture).
    - The additive error: with Mir et al. 2011's arc of length L = 1, each c_i is almost uniform on
      [0, 2τ) (sd ≈ τ/√3) while its mean moves with u_i only at the rate (e^ε − 1)/K ≈ ε/(2τ),
      so the error of T̃ is about K/(e^ε − 1)·τ·sqrt(m/3) = Θ(τ²√m/ε), not Thm 7's
      O(τ√m/ε). An arc of length L = λτ (`window`) restores O(τ√m/ε + τ/ε²), the last term
      the output's Laplace noise (same privacy: the
      density ratio is still e^ε) at the price of a smaller multiplicative lower factor
      (items with u_i > 2τ − L are recovered only in part). window=1 is Mir et al. 2011's algorithm.
    - Thm 7's upper additive term "O(τ√m ε)" is a typo for O(τ√m/ε).

    `update(i, delta)` applies one update (also `update((i, delta))`); `process(updates)`
    applies a (k, 2) array of them at once.
    """

    def __init__(self, universe_size, tau, epsilon, rng=None, window=1.0):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.tau = require_real("tau", tau, low=0.5, high=MAX_TAU,
                                note="2τ >= 1 holds 𝒩's arc; the counters are integers modulo "
                                "2τ/Λ <= 2^53, Λ = 2^-21")
        self.epsilon = require_epsilon(epsilon, high=700.0, note="e^ε must be a finite float")
        self.window = require_real(
            "window", window, low=0.0, high=2 * self.tau, low_open=True, high_open=True,
            note=f"the arc [0, L] of 𝒩 lies inside [0, 2τ) = [0, {2 * self.tau:g})")
        self.modulus = _grid_count("tau", self.tau, STEP / 2, "M = 2τ/Λ, Λ = 2^-21, is the "
                                   "counters' modulus")                        # M
        self.arc = _grid_count("window", self.window, STEP, "the arc holds A = L/Λ points")
        self._rng = as_rng(rng)
        self.noise, self._release, self.gain, self.noise_mean = _grid_laws(
            self.modulus, self.arc, self.epsilon)
        self.counters = self.noise.sample(self.universe_size, self._rng)
        self.weights = (1 << (WEIGHT_BITS + 1)) + 1 + 2 * self._rng.integers(
            0, 1 << WEIGHT_BITS, self.universe_size, dtype=np.int64)

    # -- the state in real units -------------------------------------------------------
    @property
    def c(self) -> np.ndarray:
        """The counters c_i = C_i·Λ in [0, 2τ) (exact floats; read-only)."""
        return _read_only(self.counters * STEP)

    @property
    def w(self) -> np.ndarray:
        """The weights w_i = W_i·Λ in (1, 2) (exact floats; read-only)."""
        return _read_only(self.weights * STEP)

    @property
    def ratio(self) -> float:
        """ρ: the arc's point probability over the rest's (e^ε, to 2^-64/(p(1 − p)) relative)."""
        return float(self.noise.ratio)

    # -- stream ------------------------------------------------------------------------
    def update(self, i, delta=None) -> None:
        """C_i ← (C_i + W_i·d) mod M (Python integers: exact for any d)."""
        i, delta = _update_args(i, delta, self.universe_size)
        self.counters[i] = (int(self.counters[i]) + int(self.weights[i]) * delta) % self.modulus

    def process(self, updates) -> None:
        """Apply a (k, 2) array of updates: C ← (C + W·(net change per ID)) mod M (exact while
        each ID's net change fits int64, as `_totals` sums it). A few IDs are updated in
        Python integers, as `update` does (the same exact integers, without numpy's per-call
        costs: an audit runs thousands of short streams)."""
        totals = _totals(updates, self.universe_size)
        touched = np.flatnonzero(totals)
        if touched.size <= _FEW_IDS:
            for i in touched.tolist():
                self.counters[i] = ((int(self.counters[i]) + int(self.weights[i]) * int(totals[i]))
                                    % self.modulus)
            return
        shift = _mulmod(self.weights[touched], totals[touched] % self.modulus, self.modulus)
        self.counters[touched] = (self.counters[touched] + shift) % self.modulus

    # -- output ------------------------------------------------------------------------
    def debias(self, sigma) -> float:
        """T̃ = (σ̃ − m·E[N])/κ (corrected; see the class docstring)."""
        return float((sigma - self.universe_size * self.noise_mean) / self.gain)

    def debias_as_printed(self, sigma) -> float:
        """Mir et al. 2011's formula with L = 1: (σ̃ − τ²m/K)·K/(e^ε − 1) − m/2 (biased)."""
        m = self.universe_size
        K = 2 * self.tau - 1 + math.exp(self.epsilon)
        return float((sigma - self.tau**2 * m / K) * K / math.expm1(self.epsilon) - m / 2)

    def output(self) -> float:
        """σ̃ = Λ·Σ C_i + discrete Laplace noise of scale ≈ 2τ/ε (fresh each call), debiased
        into an estimate of T'."""
        low = self.counters & ((1 << 26) - 1)                 # an exact sum: no int64 overflow
        total = (int((self.counters >> 26).sum()) << 26) + int(low.sum())
        sigma = self._release.release_exact(total, -(WEIGHT_BITS + 1), self._rng)
        return self.debias(sigma)

    def output_guarantee(self) -> tuple[float, float]:
        """(ε + η, δ) of one release (the state's ε is exact: `noise.guarantee()`)."""
        return self._release.guarantee()

    def state(self) -> dict:
        """What is held, in real units: the counters c and the weights w (public randomness)."""
        return {"c": self.c.copy(), "w": self.w.copy()}

    # -- analysis ----------------------------------------------------------------------
    def expected_terms(self, a) -> np.ndarray:
        """g(u_i) = u_i − (2τ/L)(u_i + L − 2τ)_+ per ID, u_i = w_i a_i mod 2τ computed exactly
        on the grid (a: integer states, any sign)."""
        a = require_array("a", a, ndim=1, integer=True)
        if a.shape != (self.universe_size,):
            raise ValueError(f"a must hold one state per ID, shape ({self.universe_size},); "
                             f"got shape {a.shape}")
        u = _mulmod(self.weights, a % self.modulus, self.modulus) * STEP
        return u - 2 * self.tau / self.window * np.maximum(u + self.window - 2 * self.tau, 0.0)

    def expected_output(self, a) -> float:
        """E[T̃ | w] for state vector a: T' − (2τ/L)·Σ(u_i + L − 2τ)_+, u_i = w_i a_i mod 2τ,
        up to `mean_error_bound()` (the rounding of σ to the output noise's grid)."""
        return float(self.expected_terms(a).sum())

    def mean_error_bound(self) -> float:
        """s/(2κ): how far E[T̃ | w] can be from `expected_output` (s the noise grid)."""
        return self._release.step / (2 * self.gain)

    def std_bound(self) -> float:
        """An upper bound on the sd of T̃ given w: sqrt(mτ² + Var(noise))/κ.

        Var(c_i) <= τ² (a variable in an interval of length 2τ); Var(noise) is the discrete
        Laplace variance, at most 2(1 + 2^-12)²(2τ/ε)².
        """
        return math.sqrt(self.universe_size * self.tau**2 + self._release.variance) / self.gain

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "tau": self.tau, "epsilon": self.epsilon,
                "window": self.window}


@functools.lru_cache(maxsize=256)
def _grid_laws(modulus, arc, epsilon):
    """(noise, release, κ, E[N]) of a CroppedSum with M = `modulus`, A = `arc` and this ε:
    the counters' law `noise.ArcNoise(M, A, ε)`, the release's `noise.LaplaceNoise(2τ, ε)`
    (2τ = MΛ), κ = (α − β)·A and E[N] = Λ·(β·M(M − 1)/2 + (α − β)·A(A − 1)/2) from the exact
    point probabilities α, β. Computed once per parameters and shared: the samplers hold no
    generator, and the exact fractions cost more than the rest of a small sum's setup."""
    noise = ArcNoise(modulus, arc, epsilon)
    on, off = noise.point_probabilities()
    gain = float((on - off) * arc)
    mean = float((off * modulus * (modulus - 1) + (on - off) * arc * (arc - 1)) / 2
                 * Fraction(STEP))
    return noise, LaplaceNoise(modulus * STEP, epsilon), gain, mean


def _read_only(array):
    array.flags.writeable = False
    return array


# ----------------------------------------------------------------------------------------
# Alg 3
# ----------------------------------------------------------------------------------------

class HeavyHittersCount(StreamAlgorithm):
    """Alg 3: the number of heavy hitters HH(k) = |{i : a_i >= F1/k}|, by hashing to [h].

    The algorithm (§3.3): a random function f : U → [h] (drawn for the whole universe, so
    the state holds no IDs); the stream (f(i), d) feeds two cropped sums (Alg 2) over the
    universe [h], at τ1 = F1/k and τ2 = F1/(ck); output (x1 − x2)/(τ1 − τ2).
    Estimates: with N_j = Σ_{f(i) = j} a_i, a bucket contributes
    φ(N_j) = (E g_1(N_j) − E g_2(N_j))/(τ1 − τ2) to the mean (`expected_output`): 0 when
    N_j <= τ2 − ω2/2 (ω2 the second sum's arc, `x2.window`: below it both sums see 1.5·N_j),
    between `factors()[0]` and `factors()[1]` when N_j >= τ1, at most `factors()[1]` in
    between (up to 0.083 for N_j just below τ2). So E[HH̃] lies between
    factors()[0]·|{j : N_j >= F1/k}| and factors()[1]·|{j : N_j > τ2 − ω2/2}| (the proof of
    Thm 8, which counts N_j >= F1/(ck) and so misses the buckets in (τ2 − ω2/2, τ2); Mir et
    al. 2011's factors 1/2 and 2). Lemma 6: |{j : N_j >= F1/k}| >= (1 − k/(δh))·HH(k)
    w.p. 1 − δ; Lemma 7: buckets without an item >= δF1/(2c²k²) stay below F1/(ck) w.p.
    1 − δ for h = Θ(k), so |{j : N_j >= F1/(ck)}| <= HH(2c²k²/δ).
    On the grid: each cropped sum holds exact integers (see CroppedSum), so τ1 is F1/k rounded
    up, τ2 is F1/(ck) rounded down to a multiple of 2^-22 (so τ2 < τ1 for every c > 1), and
    each arc λτ is rounded down to a multiple of 2^-21 (changes below 5e-7, kept in `tau1`,
    `tau2` and the sums' `window`, which every formula here uses). The weights are the 2^20 midpoints of [1, 2], so the mean
    over w (`contribution`, `factors`) is the continuous U[1, 2] average of
    `expected_modular_term` up to its stated O(2^-40 N²/L) error.
    Privacy: with Def 4's neighbours (the streams of two IDs i, j exchanged; F1 is public
    and fixes the thresholds), (8ε + 4η)-pan-private: each cropped sum is (4ε + 2η)-pan-
    private (two buckets change, unless f(i) = f(j); per bucket 2ε for the state, exactly:
    the floating-point program holds integers whose law is computed exactly, and 2(ε + η)
    for the output, η < 1e-8, δ < 2e-20), and the two sums run on the same stream, so the
    losses add (Thm 3). Nothing is claimed for neighbours that add or remove one ID's
    updates: they change F1, hence τ1 and τ2 (Mir et al. 2011, §2.3). Mir et al. 2011,
    Thm 8 says 2ε
    ("by the ε-pan privacy of the cropped sum estimators and composition"), but Thm 7 makes
    each cropped sum 2ε-pan-private per changed bucket, so composition gives 4ε when one
    bucket changes and 8ε under Def 4's neighbours, which change two: an upper bound on the
    privacy loss (the true loss may be smaller), and the guarantee this class claims.
    Accuracy: given w and f, the sd of HH̃ around its mean given w (on the bucket loads,
    (x1.expected_output − x2.expected_output)/(τ1 − τ2)) is at most (std_bound of x1 +
    std_bound of x2)/(τ1 − τ2) = O(√h/ε + 1/ε²) when the arcs are L = λτ (`std_bound`);
    `expected_output` also averages over w, a spread this bound does not cover.
    Correction: with Mir et al. 2011's unit arcs (window_fraction=None) the sd of x1 is
    Θ(τ1²√h/ε) (see CroppedSum), so the additive error of HH̃ is Θ(F1√h/(kε)), not O(√k/ε);
    the default window_fraction=1/4 gives arcs of length τ/4.
    Source: Mir et al. 2011, §3.3, Alg 3, Lemmas 6-7, Thm 8.

    Parameters
    ----------
    universe_size : m.   k : the heavy-hitter threshold F1/k.   c : > 1, the second level F1/(ck).
    h : the number of buckets.   epsilon : each cropped sum's ε.   F1 : the public Σ a_i at query time.
    window_fraction : λ, the arc of each cropped sum is L = λτ (None: Mir et al. 2011's L = 1).
    """

    def __init__(self, universe_size, k, c, h, epsilon, F1, rng=None, window_fraction=0.25):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.k = require_real("k", k, low=1.0, high=math.inf, high_open=True)
        self.c = require_real("c", c, low=1.0, high=math.inf, low_open=True, high_open=True,
                              note="Alg 3 needs F1/(ck) < F1/k")
        self.h = require_int("h", h, low=1, note="the number of buckets of f : U → [h]")
        self.epsilon = require_epsilon(epsilon)
        self.F1 = require_real("F1", F1, low=0.0, high=math.inf, low_open=True, high_open=True,
                               note="the public first moment Σ a_i at query time")
        self.window_fraction = None if window_fraction is None else require_real(
            "window_fraction", window_fraction, low=0.0, high=2.0, low_open=True, high_open=True)
        if self.F1 / self.k > MAX_TAU:
            raise ValueError(f"F1/k must be at most 2^31 (the cropped sums' τ, see CroppedSum); "
                             f"got F1={self.F1:g}, k={self.k:g}, F1/k={self.F1 / self.k:g}")
        if self.F1 / (self.c * self.k) < 0.5:
            raise ValueError(f"F1/(ck) must be >= 1/2 (𝒩 needs 2τ >= 1); got F1={self.F1:g}, "
                             f"c={self.c:g}, k={self.k:g}, F1/(ck)={self.F1 / (self.c * self.k):g}")
        half = STEP / 2                # τ on CroppedSum's grid, τ2 rounded down and τ1 up
        self.tau1 = math.ceil(self.F1 / self.k / half) * half
        self.tau2 = math.floor(self.F1 / (self.c * self.k) / half) * half
        rng = as_rng(rng)
        self.f = rng.integers(0, self.h, size=self.universe_size)
        self.x1 = CroppedSum(self.h, self.tau1, self.epsilon, rng, self._window(self.tau1))
        self.x2 = CroppedSum(self.h, self.tau2, self.epsilon, rng, self._window(self.tau2))

    def _window(self, tau):
        if self.window_fraction is None:
            if 2 * tau <= 1:
                raise ValueError(f"Mir et al. 2011's unit arc needs 2τ > 1; got τ = {tau:g}")
            return 1.0
        return max(math.floor(self.window_fraction * tau / STEP), 1) * STEP   # on the grid

    def update(self, i, delta=None) -> None:
        """Feed (f(i), d) to both cropped sums."""
        i, delta = _update_args(i, delta, self.universe_size)
        self.x1.update(int(self.f[i]), delta)
        self.x2.update(int(self.f[i]), delta)

    def process(self, updates) -> None:
        """Feed the hashed stream f(S) to both cropped sums."""
        totals = _totals(updates, self.universe_size)
        buckets = np.zeros(self.h, dtype=np.int64)
        np.add.at(buckets, self.f, totals)
        hashed = np.column_stack([np.arange(self.h), buckets])[buckets != 0]
        self.x1.process(hashed)
        self.x2.process(hashed)

    def output(self) -> float:
        """(x1 − x2)/(F1/k − F1/(ck)), with fresh Laplace noise in x1 and x2."""
        return (self.x1.output() - self.x2.output()) / (self.tau1 - self.tau2)

    def state(self) -> dict:
        """What is held: f (public randomness) and both cropped sums' counters and weights."""
        return {"f": self.f.copy(), "c1": self.x1.c.copy(), "w1": self.x1.w.copy(),
                "c2": self.x2.c.copy(), "w2": self.x2.w.copy()}

    # -- analysis ----------------------------------------------------------------------
    def bucket_loads(self, a) -> np.ndarray:
        """N_j = Σ_{f(i) = j} a_i."""
        a = require_array("a", a, ndim=1).astype(float)
        return np.bincount(self.f, weights=a, minlength=self.h)

    def contribution(self, N) -> np.ndarray:
        """φ(N): a bucket's contribution to E[HH̃], averaged over the weights w."""
        N = np.asarray(N, dtype=float)
        g1 = expected_modular_term(N, self.tau1, self.x1.window)
        g2 = expected_modular_term(N, self.tau2, self.x2.window)
        return (g1 - g2) / (self.tau1 - self.tau2)

    def expected_output(self, a) -> float:
        """E[HH̃] over the weights and the noise, for this f."""
        return float(self.contribution(self.bucket_loads(a)).sum())

    def factors(self, grid=4000) -> tuple[float, float]:
        """(min φ(N) over N >= τ1, max φ(N) over N >= 0), on a fine grid up to 20τ1."""
        N = np.concatenate([np.linspace(0, self.tau1, grid), np.linspace(self.tau1, 20 * self.tau1, 5 * grid)])
        phi = self.contribution(N)
        return float(phi[N >= self.tau1].min()), float(phi.max())

    def std_bound(self) -> float:
        """sd(HH̃ | w, f) <= (sd bound of x1 + sd bound of x2)/(τ1 − τ2)."""
        return (self.x1.std_bound() + self.x2.std_bound()) / (self.tau1 - self.tau2)

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "k": self.k, "c": self.c, "h": self.h,
                "epsilon": self.epsilon, "F1": self.F1}
