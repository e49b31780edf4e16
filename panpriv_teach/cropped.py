"""Cropped first moment with counters modulo 2τ (Alg 2), and the heavy-hitters count built on
it (Alg 3), for fully dynamic streams of updates (i, d).

Mir et al. 2011, §3.2 (T'(τ), Claim 1 / Claim 2 of
Appendix A.1, Lemmas 4-5, the noise distribution 𝒩 (eq. 2), Alg 2, Thm 7) and §3.3 (Alg 3,
Lemmas 6-7, Thm 8). Corrections to Mir et al. 2011 are listed in the class docstrings.
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.mechanisms import laplace_mechanism
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

class CroppedSum(StreamAlgorithm):
    """Alg 2: the cropped first moment T_1(τ) = Σ min(a_i, τ) from counters modulo 2τ.

    The algorithm (§3.2): for every ID i, c_i ~ 𝒩 and w_i ~ U[1, 2]; an update (i, d) sets
    c_i ← (c_i + w_i·d) mod 2τ; the output is T̃ from σ̃ = Σ c_i + Lap(2τ/ε). So
    c_i = (N_i + u_i) mod 2τ with u_i = w_i a_i mod 2τ: a function of a_i only.

    Estimates: T'(τ) = Σ (w_i a_i mod 2τ), and through it T_1(τ) (Lemma 4: E[T'] is within
    [T_1/2, 2T_1]). Exactly (derivation in the lecture): with K = 2τ − L + L·e^ε,
        E[c_i | u_i] = 2τ²/K + (e^ε − 1)/K · (L·u_i + L²/2 − 2τ·(u_i + L − 2τ)_+),
    so T̃ = (σ̃ − 2τ²m/K) · K/((e^ε − 1)L) − mL/2 has E[T̃ | w] = T' − (2τ/L)Σ(u_i + L − 2τ)_+,
    which lies in [T' − Σ_{u_i > 2τ−L} u_i, T'] (the proof sketch of Thm 7), and equals T'
    when no u_i exceeds 2τ − L (the empty stream, small a_i).
    Privacy: each c_i has density e^ε/K or 1/K, so changing one ID's updates changes the
    state's density by a factor <= e^ε; the release adds Lap(2τ/ε) to σ, which one ID moves by
    < 2τ. With Dwork et al.'s neighbours (one ID's updates added or removed): ε for the state,
    ε for the output, 2ε-pan-private against one intrusion (Thm 7). With Def 4's user-level
    neighbours (the updates of i moved to j ≠ i) two counters change: 2ε for the state, 2ε
    for the output, 4ε in all.
    In floating point: the output's Laplace noise is float-safe (`laplace_mechanism`, ε plus
    less than 1e-8). The state's counters are NOT: 𝒩 and w are floats and c_i is updated by
    float arithmetic mod 2τ, so the state guarantee above is proven for real numbers only (a
    float-safe version would draw 𝒩 and w on a power-of-two grid and keep c_i as integers
    mod 2τ/Λ).
    Accuracy (Thm 7, with constants): given w, the sd of T̃ is at most
    K/((e^ε − 1)L) · sqrt(mτ² + 8τ²/ε²) (`std_bound`); Lemma 4-5 place its mean.
    Source: Mir et al. 2011, §3.2, eq. (2), Alg 2, Claim 1, Lemmas 4-5, Thm 7.
    Corrections:
    - The debiasing constant: Alg 2 subtracts τ²m/K; the mean of σ on the empty stream is
      m·E[𝒩] = m(2τ²/K + (e^ε − 1)/(2K)), so it must subtract 2τ²m/K. Mir et al. 2011's formula is
      biased by τ²m/(e^ε − 1) (measured in the tests and the lecture).
    - The additive error: with Mir et al. 2011's arc of length L = 1, each c_i is almost uniform on
      [0, 2τ) (sd ≈ τ/√3) while its mean moves with u_i only at the rate (e^ε − 1)/K ≈ ε/(2τ),
      so the error of T̃ is about K/(e^ε − 1)·τ·sqrt(m/3) = Θ(τ²√m/ε), not Thm 7's
      O(τ√m/ε). An arc of length L = λτ (`window`) restores O(τ√m/ε) (same privacy: the
      density ratio is still e^ε) at the price of a smaller multiplicative lower factor
      (items with u_i > 2τ − L are recovered only in part). window=1 is Mir et al. 2011's algorithm.
    - Thm 7's upper additive term "O(τ√m ε)" is a typo for O(τ√m/ε).

    `update(i, delta)` applies one update (also `update((i, delta))`); `process(updates)`
    adds w_i·(net change of i) to each counter at once, the same map modulo 2τ (equal to
    repeated `update` up to floating-point rounding).
    """

    def __init__(self, universe_size, tau, epsilon, rng=None, window=1.0):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.tau, self.epsilon, self.window = _check_noise(tau, epsilon, window)
        self._rng = as_rng(rng)
        self.c = sample_noise(self.tau, self.epsilon, self.universe_size, self._rng, self.window)
        self.w = self._rng.uniform(1.0, 2.0, self.universe_size)

    @property
    def K(self) -> float:
        """The normaliser of 𝒩: 2τ − L + L·e^ε (2τ − 1 + e^ε in Mir et al. 2011)."""
        return 2 * self.tau - self.window + self.window * math.exp(self.epsilon)

    def _wrap(self, values):
        out = np.mod(values, 2 * self.tau)
        return np.where(out >= 2 * self.tau, 0.0, out)  # rounding can give exactly 2τ

    # -- stream ------------------------------------------------------------------------
    def update(self, i, delta=None) -> None:
        """c_i ← (c_i + w_i·d) mod 2τ."""
        i, delta = _update_args(i, delta, self.universe_size)
        self.c[i] = float(self._wrap(self.c[i] + self.w[i] * delta))

    def process(self, updates) -> None:
        """Apply a (k, 2) array of updates: c ← (c + w·(net change per ID)) mod 2τ."""
        totals = _totals(updates, self.universe_size)
        touched = np.flatnonzero(totals)
        self.c[touched] = self._wrap(self.c[touched] + self.w[touched] * totals[touched])

    # -- output ------------------------------------------------------------------------
    def debias(self, sigma) -> float:
        """T̃ = (σ̃ − 2τ²m/K)·K/((e^ε − 1)L) − mL/2 (corrected; see the class docstring)."""
        m, L = self.universe_size, self.window
        return float((sigma - 2 * self.tau**2 * m / self.K) * self.K
                     / (math.expm1(self.epsilon) * L) - m * L / 2)

    def debias_seed(self, sigma) -> float:
        """Mir et al. 2011's formula with L = 1: (σ̃ − τ²m/K)·K/(e^ε − 1) − m/2 (biased)."""
        m = self.universe_size
        K = 2 * self.tau - 1 + math.exp(self.epsilon)
        return float((sigma - self.tau**2 * m / K) * K / math.expm1(self.epsilon) - m / 2)

    def output(self) -> float:
        """σ̃ = Σ c_i + Lap(2τ/ε) (fresh each call), debiased into an estimate of T'."""
        sigma = laplace_mechanism(float(self.c.sum()), 2 * self.tau, self.epsilon, self._rng)
        return self.debias(sigma)

    def state(self) -> dict:
        """What is held: the counters c and the weights w (public randomness)."""
        return {"c": self.c.copy(), "w": self.w.copy()}

    # -- analysis ----------------------------------------------------------------------
    def expected_output(self, a) -> float:
        """E[T̃ | w] for state vector a: T' − (2τ/L)·Σ(u_i + L − 2τ)_+, u_i = w_i a_i mod 2τ."""
        a = require_array("a", a, ndim=1).astype(float)
        u = np.mod(self.w * a, 2 * self.tau)
        loss = 2 * self.tau / self.window * np.maximum(u + self.window - 2 * self.tau, 0.0)
        return float(np.sum(u - loss))

    def std_bound(self) -> float:
        """An upper bound on the sd of T̃ given w: K/((e^ε−1)L)·sqrt(mτ² + 8τ²/ε²).

        Var(c_i) <= τ² (a variable in an interval of length 2τ), Var(Lap(b)) = 2b².
        """
        scale = self.K / (math.expm1(self.epsilon) * self.window)
        return scale * self.tau * math.sqrt(self.universe_size + 8 / self.epsilon**2)

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "tau": self.tau, "epsilon": self.epsilon,
                "window": self.window}


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
    N_j is light (both sums see 1.5·N_j), between `factors()[0]` and `factors()[1]` when
    N_j >= τ1, at most `factors()[1]` in between. So E[HH̃] lies between
    factors()[0]·|{j : N_j >= F1/k}| and factors()[1]·|{j : N_j >= F1/(ck)}| (the proof of
    Thm 8; Mir et al. 2011's factors 1/2 and 2). Lemma 6: |{j : N_j >= F1/k}| >= (1 − k/(δh))·HH(k)
    w.p. 1 − δ; Lemma 7: buckets without an item >= δF1/(2c²k²) stay below F1/(ck) w.p.
    1 − δ for h = Θ(k), so |{j : N_j >= F1/(ck)}| <= HH(2c²k²/δ).
    Privacy: F1 is public (Def 4 preserves it). Each cropped sum is as in CroppedSum; the
    two run on the same stream, so the privacy losses add (Thm 3): with Dwork et al.'s
    neighbours 2ε for the state, 2ε for the output, 4ε-pan-private; with Def 4's
    neighbours (two buckets change, unless f(i) = f(j)) 8ε. Mir et al. 2011, Thm 8 says 2ε
    ("by the ε-pan privacy of the cropped sum estimators and composition"), but Thm 7 makes
    each cropped sum 2ε-pan-private, so composition gives 4ε: an upper bound on the privacy
    loss (the true loss may be smaller), and the guarantee this class claims.
    Accuracy: additive error sd <= (std_bound of x1 + std_bound of x2)/(τ1 − τ2) = O(√h/ε)
    when the arcs are L = λτ. Correction: with Mir et al. 2011's unit arcs (window_fraction=None)
    the sd of x1 is Θ(τ1²√h/ε) (see CroppedSum), so the additive error of HH̃ is Θ(F1√h/(kε)),
    not O(√k/ε); the default window_fraction=1/4 gives arcs of length τ/4.
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
        self.tau1, self.tau2 = self.F1 / self.k, self.F1 / (self.c * self.k)
        if self.tau1 > 1e300:
            raise ValueError(f"F1/k must be at most 1e300 (the cropped sums' τ, with 2τ a finite "
                             f"float); got F1={self.F1:g}, k={self.k:g}")
        if self.tau2 < 0.5:
            raise ValueError(f"F1/(ck) must be >= 1/2 (𝒩 needs 2τ >= 1); got F1={self.F1:g}, "
                             f"c={self.c:g}, k={self.k:g}, F1/(ck)={self.tau2:g}")
        rng = as_rng(rng)
        self.f = rng.integers(0, self.h, size=self.universe_size)
        self.x1 = CroppedSum(self.h, self.tau1, self.epsilon, rng, self._window(self.tau1))
        self.x2 = CroppedSum(self.h, self.tau2, self.epsilon, rng, self._window(self.tau2))

    def _window(self, tau):
        if self.window_fraction is None:
            if 2 * tau <= 1:
                raise ValueError(f"Mir et al. 2011's unit arc needs 2τ > 1; got τ = {tau:g}")
            return 1.0
        return self.window_fraction * tau

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
