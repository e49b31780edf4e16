"""Sketches from p-stable laws, and the pan-private distinct count built on them.

Mir et al. 2011: Def 6 (p-stable laws), §2.4 and Thm 5
(the sketch sk(a) = Xᵀa and its median estimator of Σ|a_i|^p), §3.1 (Alg 1: the sketch
initialised with noise from the exponential mechanism with quality −d, Lemmas 1-3, Thm 6).
Fully dynamic streams are (k, 2) int arrays of updates (i, d) (`panpriv_teach.streams`).
"""
from __future__ import annotations

import functools
import itertools
import math
import time

import numpy as np
from scipy.stats import levy_stable

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.validation import require_array, require_epsilon, require_int, require_real

__all__ = ["stable_sample", "stable_scale_factor", "lp_power", "StableSketch",
           "PanPrivateDistinctCount", "enumeration_size"]


# ----------------------------------------------------------------------------------------
# p-stable laws
# ----------------------------------------------------------------------------------------

def _require_p(p):
    p = require_real("p", p, low=0.0, high=2.0, low_open=True,
                     note="p-stable laws exist for 0 < p <= 2 (Def 6)")
    if p < 1e-300:   # the sampler divides logs (|log| < 745) by p: below, inf - inf = NaN draws
        raise ValueError(f"p must be at least 1e-300 (the sampler divides by p); got {p!r}")
    return p


def stable_sample(p, size=None, rng=None):
    """Draws of the standard symmetric p-stable law S(p) (Def 6), by Chambers–Mallows–Stuck.

    With V ~ U(−π/2, π/2) and W ~ Exp(1) independent,
        X = sin(pV) / cos(V)^(1/p) · (cos((1 − p)V) / W)^((1 − p)/p)   (p ≠ 1),
        X = tan(V)                                                      (p = 1),
    has characteristic function exp(−|t|^p): the Cauchy law at p = 1 and N(0, 2) (variance 2)
    at p = 2. Computed in log space so that small p (very heavy tails) does not overflow;
    |X| is capped at 1e300. Returns a float or an array of shape `size`.
    """
    p = _require_p(p)
    rng = as_rng(rng)
    v = rng.uniform(-np.pi / 2, np.pi / 2, size)
    w = rng.exponential(1.0, size)
    if p == 1.0:
        x = np.tan(v)
    else:
        with np.errstate(divide="ignore"):
            log_abs = (np.log(np.abs(np.sin(p * v))) - np.log(np.cos(v)) / p
                       + (1 - p) / p * (np.log(np.cos((1 - p) * v)) - np.log(w)))
        x = np.sign(v) * np.exp(np.minimum(log_abs, np.log(1e300)))
    return float(x) if size is None else x


def stable_scale_factor(p) -> float:
    """sf(p) = median |X_0|^p for X_0 ~ S(p), computed numerically (Alg 1's input).

    median |X_0| is the 3/4-quantile of the symmetric law, found by numerical inversion of
    its distribution function (scipy.stats.levy_stable, whose default parametrisation with
    β = 0 is the law of `stable_sample`). Exact values: sf(1) = 1 (Cauchy: tan(π/4));
    sf(2) = (√2 Φ⁻¹(3/4))² ≈ 0.9099.
    """
    return _stable_scale_factor(_require_p(p))   # checked before the cache hashes p


@functools.lru_cache(maxsize=None)
def _stable_scale_factor(p: float) -> float:
    if p == 1.0:
        return 1.0
    if p == 2.0:
        from scipy.stats import norm
        return float((math.sqrt(2) * norm.ppf(0.75)) ** 2)
    return float(levy_stable.ppf(0.75, p, 0.0)) ** p


def lp_power(a, p) -> float:
    """Σ_i |a_i|^p: what a p-stable sketch estimates (→ the distinct count D as p → 0)."""
    a = np.abs(require_array("a", a, ndim=1).astype(float))
    p = _require_p(p)
    return float(np.sum(a[a > 0] ** p))


# ----------------------------------------------------------------------------------------
# The p-stable sketch (§2.4, Thm 5)
# ----------------------------------------------------------------------------------------

def _update_args(i, delta, universe_size):
    """One fully dynamic update (i, delta); also accepts update((i, delta))."""
    if delta is None:
        if isinstance(i, (tuple, list, np.ndarray)) and len(i) == 2:
            i, delta = i
        else:
            raise TypeError("update takes (i, delta) — an ID and an integer change — or one pair "
                            f"(i, delta); got {i!r}")
    i = require_int("i", i, low=0, high=universe_size - 1,
                    note=f"an ID of the universe of {universe_size}")
    delta = require_int("delta", delta, note="updates (i, d) have d ∈ Z (§2.1)")
    return i, delta


def _totals(updates, universe_size) -> np.ndarray:
    """The net change of each ID over a (k, 2) array of updates (i, d)."""
    updates = require_array("updates", updates, integer=True)
    if updates.size == 0:
        return np.zeros(universe_size, dtype=np.int64)
    if updates.ndim != 2 or updates.shape[1] != 2:
        raise ValueError("updates must be a (k, 2) array of (i, delta) rows (a fully dynamic "
                         f"stream); got shape {updates.shape}")
    ids = updates[:, 0]
    if ids.min() < 0 or ids.max() >= universe_size:
        bad = ids[(ids < 0) | (ids >= universe_size)][0]
        raise ValueError(f"each ID (column 0 of updates) must be an integer in "
                         f"[0, {universe_size - 1}]; got {bad}")
    totals = np.zeros(universe_size, dtype=np.int64)
    np.add.at(totals, ids, updates[:, 1])
    return totals


class StableSketch(StreamAlgorithm):
    """The p-stable sketch sk(a) = Xᵀa and its median estimator of Σ_i |a_i|^p.

    Estimates: L_p^p = Σ_i |a_i|^p for the state vector a of a fully dynamic stream; for
    small p and 1 <= a_i <= Z this is within a factor Z^p of the distinct count D = ‖a‖₀.
    Privacy: none. The state is the public matrix X and the exact sketch Xᵀa; from them an
    intruder learns a great deal about a (module 06 lecture).
    Accuracy (Thm 5, Indyk; Cormode et al.): each sk_j is distributed as (Σ|a_i|^p)^(1/p) X_0,
    so median_j |sk_j|^p / sf(p) estimates Σ|a_i|^p. The exact law of the error is that of
    (median of r draws of |X_0|^p) / sf(p), whatever a is. Thm 5 says: with
    r = O(log(1/δ)/α²), within a factor (1 ± α)^(−p) with probability 1 − δ (Indyk 2006
    bounds the norm (Σ|a_i|^p)^(1/p) within 1 ± α); for small p that factor is nearly
    1 ∓ pα, and the O(·) hides a constant growing like 1/p² (at r = 400, δ = 0.1 the measured
    rα²/ln(1/δ) is about 2 at p = 1 and 140 at p = 0.05, lecture 06's Notes). Stated for
    Σ|a_i|^p itself: within a factor 1 ± α with probability 1 − δ once r >= C·log(1/δ)/α²,
    with C bounded as p → 0 (|X_0|^p tends in law to 1/W, W ~ Exp(1), which has a positive
    density at its median 1/ln 2; measured C below 3 for p from 1 down to 0.05).
    Source: Mir et al. 2011, Def 6, §2.4, Thm 5; Alg 1's output line.
    Correction: Alg 1 returns median_j |sk_j|^p · sf(p). With sf(p) = median|X_0|^p (as Alg 1
    defines it), Thm 5 gives median_j |sk_j|^p ≈ sf(p) Σ|a_i|^p, so one must DIVIDE by sf(p);
    multiplying is off by the factor sf(p)² (invisible at p = 1, where sf = 1; 0.83 at p = 2).

    Parameters
    ----------
    universe_size : m, the number of IDs (0 .. m − 1).
    p : the stability index, 0 < p <= 2.
    r : the number of sketch entries (columns of X).
    rng : seed or Generator for X.
    resolution : None (X real) or a positive int g: X is discretised to the grid Z/g and
        stored in grid units (int64), so updates are exact integer arithmetic (Thm 5's
        "discretised" law; entries truncated at 2^40 units). Output divides by g.
    X : optional (m, r) matrix to use instead of drawing one (in grid units if `resolution`).

    `update(i, delta)` applies one update (i, d) (also `update((i, delta))`); `process(updates)`
    a (k, 2) array of them: sk ← sk + Xᵀ(net change per ID), which equals repeated `update`
    exactly (integers) or up to rounding (reals), because the sketch is linear.
    """

    def __init__(self, universe_size, p, r, rng=None, resolution=None, X=None):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.p = _require_p(p)
        self.r = require_int("r", r, low=1, note="the number of sketch entries")
        self.resolution = None if resolution is None else require_int(
            "resolution", resolution, low=1, note="grid points per unit for the discretised X")
        shape = (self.universe_size, self.r)
        if X is None:
            X = stable_sample(self.p, shape, as_rng(rng))
            if self.resolution is not None:
                X = np.clip(np.rint(X * self.resolution), -2.0**40, 2.0**40).astype(np.int64)
        else:
            X = require_array("X", X, ndim=2, integer=self.resolution is not None)
            if X.shape != shape:
                raise ValueError(f"X must have shape (universe_size, r) = {shape}; got {X.shape}")
            X = X.astype(np.int64 if self.resolution is not None else float)
        self.X = X
        self.sk = np.zeros(self.r, dtype=X.dtype)

    # -- stream ------------------------------------------------------------------------
    def update(self, i, delta=None) -> None:
        """One update (i, d): sk_j ← sk_j + d·X_ij for every j (Alg 1's loop)."""
        i, delta = _update_args(i, delta, self.universe_size)
        self.sk += delta * self.X[i]

    def process(self, updates) -> None:
        """A (k, 2) array of updates: sk ← sk + Xᵀ(net change of each ID)."""
        totals = _totals(updates, self.universe_size)
        touched = np.flatnonzero(totals)
        self.sk += totals[touched] @ self.X[touched]

    # -- output ------------------------------------------------------------------------
    def estimate(self, sketch) -> float:
        """median_j |sk_j|^p / sf(p) for a given sketch vector (grid units if discretised)."""
        values = np.abs(np.asarray(sketch, dtype=float))
        if self.resolution is not None:
            values = values / self.resolution
        return float(np.median(values ** self.p) / stable_scale_factor(self.p))

    def output(self) -> float:
        """The estimate of Σ_i |a_i|^p from the current sketch."""
        return self.estimate(self.sk)

    def state(self) -> dict:
        """What is held: the public matrix X and the sketch sk."""
        return {"X": self.X.copy(), "sk": self.sk.copy()}

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "p": self.p, "r": self.r}


# ----------------------------------------------------------------------------------------
# Alg 1: noise calibrated to the sketch (§3.1)
# ----------------------------------------------------------------------------------------

_SHARED_CANDIDATES = 100_000   # noise tables of at most this many vectors are shared
_SHARED_LIMIT = 4              # ... and the last 4 such tables are kept
_SHARED_TABLES: dict = {}      # (X, Z, ε, cost, Δ_f) -> (table, seconds to build it)


def enumeration_size(universe_size, Z) -> int:
    """(4Z + 1)^m: the number of vectors c ∈ {−2Z, …, 2Z}^m that exact Alg 1 enumerates."""
    Z = require_int("Z", Z, low=1, note="the bound on each state a_i (§2.1)")
    return (4 * Z + 1) ** require_int("universe_size", universe_size, low=1)


def _require_cost(cost):
    if callable(cost):
        return cost
    if isinstance(cost, str) and cost in ("l0", "l1", "l2"):
        return cost
    raise ValueError(f"cost must be 'l0', 'l1', 'l2' or a callable f(c) with f(0) = 0 "
                     f"(Mir et al. 2011, §3.1's recipe); got {cost!r}")


def _row_keys(rows: np.ndarray) -> np.ndarray:
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


class PanPrivateDistinctCount(StableSketch):
    """Alg 1: a p-stable sketch initialised with noise calibrated to the sketch, EXACTLY.

    Estimates: the distinct count D = |{i : a_i ≠ 0}| of a fully dynamic stream with
    0 <= a_i <= Z, as median_j |sk_j^priv|^p / sf(p) (see StableSketch for the scale factor).

    The noise (§3.1): y is drawn from μ_ε(y) ∝ exp(−(ε/4)·d(y)), where
        d(z) = min ‖c‖₀ over integer c ∈ [−2Z, 2Z]^m with Xᵀc = z   (∞ if there is none).
    The sketch starts at y; updates are linear; before the output a second y' ~ μ_ε is added
    to the sketch (kept, as Alg 1 writes it). This class computes μ_ε exactly: it enumerates
    all (4Z + 1)^m vectors c, groups them by their sketch Xᵀc (X on an integer grid, so equal
    sketches are detected exactly), and takes the least ‖c‖₀ in each group. Cost: time and
    memory Θ(m·(4Z + 1)^m) — exponential in the universe size, as the paper says ("we need to
    sample from a space of 2^S different possible sketches"). It refuses instances with more
    than `max_candidates` vectors. There is no polynomial-time sampler here; nothing faster
    should be presented as having Alg 1's guarantee.

    The general recipe (§3.1, end): any cost f of state vectors with f(0) = 0 gives
    d_f(z) = min f(c) over the same c, and μ(y) ∝ exp(−ε·d_f(y)/(2Δ_f)), where Δ_f bounds
    |d_f(z) − d_f(z + s(X_j − X_i))| (Def 4 moves s units, |s| <= Z, from ID i to ID j).
    If f is symmetric and subadditive, d_f(z + shift) <= f(c + s(e_j − e_i)) <= d_f(z) +
    f(s(e_j − e_i)) whenever the shifted c stays in the box, so Δ_f = max f(s(e_j − e_i)):
    2 for ‖·‖₀ (Lemma 1; the default, where ε/(2Δ_f) = ε/4), 2Z for ‖·‖₁, √2·Z for ‖·‖₂.
    Correction: the paper's "Δ_q = max_{y: ‖y‖₀ = 1} |f(y)|" (one non-zero entry in
    [−2Z, 2Z]) gives 1 for ‖·‖₀, where Lemma 1 needs 2: the shift has two non-zero entries of
    size <= Z. Its L1/L2 remark ("Δ_q = 2Z ... sample from μ_ε' where ε' = ε/2Z") is right in
    substance: the noise, hence d_f(y) and the additive error, grows linearly with Z.

    Privacy (Lemmas 1-2; checked by enumeration in the tests and the lecture):
    - Lemma 1 holds where d is finite on a fine grid (every c its own sketch, e.g.
      resolution=1000 at m = 4): |d(z) − d(z + c_i X_i + c_j X_j)| <= 2 for every reachable z
      for which the shifted sketch is reachable too (Δ_f for other costs). On a coarse grid,
      where several c share a sketch, it can fail even there (|Δd| = 4 at m = 5, resolution=2).
    - Correction: Lemma 2's "ε-pan private" does not hold exactly. The noise ranges over the
      box [−2Z, 2Z]^m, so the state sk(a) + y ranges over sk(a) + (reachable set), which
      depends on a: a state whose noise sits at the edge of the box (e.g. b_i = a_i + c_i =
      3Z) is impossible for a neighbour, and the proof of Lemma 1 ("d(sk(a) − y + c_i X_i +
      c_j X_j)") silently assumes the shifted vector is still in the box. Exactly: on the
      states possible under both neighbours the probability ratio is at most
      exp((ε/4)·2) = e^(ε/2) (the normaliser of μ_ε does not depend on a), and the states
      possible under one only carry probability δ > 0 (`state_distribution` gives it).
      So the state is (ε/2, δ)-DP with δ of order P(c_i ∈ edge values), not ε-DP. Pure DP
      would need noise of unbounded support (e.g. quality −(‖c‖₀ + λ Σ(|c_i| − 2Z)_+) over
      all integer c, with Δq <= 2 + 2λZ), which has no finite enumeration.
    Floating point: X, the sketch and every update are int64, exact. Only the draw of y is
    not: μ_ε is a float vector (exp weights, normalised) sampled by `rng.choice`, which takes
    F = cumsum(μ_ε)/last, one 53-bit uniform U = k·2^−53 and returns the first j with
    U < F_j. So the program draws candidate j with probability EXACTLY N_j/2^53, N_j =
    ⌈2^53 F_j⌉ − ⌈2^53 F_{j−1}⌉ (`sampler_law`; the tests reproduce rng.choice's draws from
    it). Each N_j/2^53 differs from the real μ_ε(j) by at most η = (|R| + 8)·2^−52: one
    rounding in the cumulative-sum step F_j − F_{j−1}, two in the normalisation, one grid
    step (each <= 2^−53), plus a relative error of at most (|R| + 2 log₂|R| + 5)·2^−53 from
    the two normalising sums and exp (within 1 ulp, as glibc's and numpy's are); the tests
    measure it in 60-digit arithmetic. So on states possible under both neighbours the
    float program's ratio is at most e^(ε/2)·(p_min + η)/(p_min − η), p_min the smallest
    μ_ε(j) (`sampler_ratio_slack` gives this factor). With p_min near 2^−53·|R| (large ε·m)
    the slack is unbounded: some candidates are never drawn (more δ). The tests compute the
    float program's ratio in exact rational arithmetic on a tiny instance.
    Accuracy (Lemma 3, Thm 6): with probability 1 − δ, d(y) <= (4/ε)(ln|R| + ln(1/δ)) (R the
    reachable sketches, |R*| = 1), and sk^priv = sk(a + c + c') with ‖c‖₀ = d(y),
    ‖c'‖₀ = d(y'), so the estimate is the Thm 5 estimate for a vector whose distinct count is
    D ± (d(y) + d(y')). For a cost f the bound is (2Δ_f/ε)(ln(|R|/|R*|) + ln(1/δ)): linear in Z
    for ‖·‖₁ and ‖·‖₂.
    Correction: Thm 6's polylogarithmic additive term needs ln|R| = polylog, i.e. many c
    sharing a sketch: the coarse grids where Lemma 1 can fail. When every c has its own
    sketch (a fine grid; almost surely for a real-valued X), |R| = (4Z + 1)^m, d(y) = ‖c‖₀,
    and μ_ε(c) ∝ Π_i exp(−(ε/4)·1{c_i ≠ 0}) makes the coordinates independent: d(y) is
    Binomial(m, q), q = 4Z·e^(−ε/4)/(1 + 4Z·e^(−ε/4)) (0.757 at ε = 1, Z = 1). The additive
    error is then Θ(m) at every size, worse than Alg 2's √m.
    Source: Mir et al. 2011, §3.1, Alg 1, Lemmas 1-3, Thm 6, Thm 2 (exponential mechanism).

    Parameters
    ----------
    universe_size : m >= 2.   Z : the bound on each a_i (an int >= 1).
    epsilon : Alg 1's privacy parameter.   p, r : the sketch (default 0.5, 2).
    resolution : grid points per unit for X (default 2; coarse grids create collisions
        Xᵀc = Xᵀc', where the minimum in d matters).
    max_candidates : refuse (4Z + 1)^m above this (default 2,000,000 vectors).
    cost : the f of d_f: "l0" (default, Alg 1: the distinct count), "l1", "l2", or a
        callable taking an (n, m) int64 array of vectors c (one per row) and returning n
        finite reals >= 0, with f(0) = 0.
    sensitivity : Δ_f (default: 2, 2Z, √2·Z, or for a callable max f(s(e_j − e_i)) over
        i ≠ j and 1 <= |s| <= Z, which bounds Δ_f when f is symmetric and subadditive —
        check other costs with `state_distribution`).
    """

    def __init__(self, universe_size, Z, epsilon, p=0.5, r=2, rng=None, resolution=2,
                 X=None, max_candidates=2_000_000, cost="l0", sensitivity=None):
        universe_size = require_int("universe_size", universe_size, low=2,
                                    note="neighbours need two IDs (Def 4)")
        self.Z = require_int("Z", Z, low=1, note="the bound on each state a_i (§2.1)")
        self.epsilon = require_epsilon(epsilon)
        max_candidates = require_int("max_candidates", max_candidates, low=1)
        self.cost = _require_cost(cost)
        if sensitivity is not None:
            sensitivity = require_real("sensitivity", sensitivity, low=0.0, high=math.inf,
                                       low_open=True, high_open=True,
                                       note="Δ_f, the largest change of d_f between neighbours")
        size = enumeration_size(universe_size, self.Z)
        if size > max_candidates:
            raise ValueError(
                f"universe_size={universe_size} with Z={self.Z} needs exact enumeration of "
                f"(4Z + 1)^m = {size:,} noise vectors, more than max_candidates="
                f"{max_candidates:,}: Alg 1's exponential mechanism takes time exponential in "
                "the universe size. Use a smaller universe or Z (or raise max_candidates).")
        rng = as_rng(rng)
        super().__init__(universe_size, p, r, rng=rng,
                         resolution=2 if resolution is None else resolution, X=X)
        self._rng = rng
        self.sensitivity = (self._default_sensitivity() if sensitivity is None
                            else sensitivity)
        if not math.isfinite(self.epsilon / (2 * self.sensitivity)):
            raise ValueError(f"sensitivity must leave ε/(2Δ_f) a finite number (μ_ε's exponent); got "
                             f"sensitivity={self.sensitivity!r} with epsilon={self.epsilon!r}")
        self._set_noise_table()
        self.sk = self.sample_noise()
        self.intrusions = 0

    def _default_sensitivity(self):
        """Δ_f = max f(s(e_j − e_i)): 2 for ‖·‖₀ (Lemma 1), 2Z for ‖·‖₁, √2·Z for ‖·‖₂."""
        if not callable(self.cost):
            return {"l0": 2, "l1": 2 * self.Z, "l2": math.sqrt(2) * self.Z}[self.cost]
        m, Z = self.universe_size, self.Z
        moves = [s * (np.eye(m, dtype=np.int64)[j] - np.eye(m, dtype=np.int64)[i])
                 for i, j in itertools.permutations(range(m), 2) for s in range(-Z, Z + 1) if s]
        return float(np.max(self._cost_values(np.array(moves))))

    def _cost_values(self, c: np.ndarray) -> np.ndarray:
        """f(c) for each row of c, validated for a callable cost."""
        if self.cost == "l0":
            return np.count_nonzero(c, axis=1)
        if self.cost == "l1":
            return np.abs(c).sum(axis=1)
        if self.cost == "l2":
            return np.sqrt((c * c).sum(axis=1))
        values = np.asarray(self.cost(c.copy()))
        if values.shape != (len(c),) or not np.issubdtype(values.dtype, np.number) \
                or np.iscomplexobj(values):
            raise ValueError(f"cost must return one real number per row of its (n, m) "
                             f"argument: shape ({len(c)},); got {values.dtype} of shape "
                             f"{values.shape}")
        values = values.astype(float)
        if not np.all(np.isfinite(values)) or values.min() < 0:
            raise ValueError("cost must return finite reals >= 0; got "
                             f"{values[~np.isfinite(values) | (values < 0)][0]!r}")
        zero = np.flatnonzero(~c.any(axis=1))
        if len(zero) and values[zero[0]] != 0:
            raise ValueError(f"cost must satisfy f(0) = 0 (§3.1's recipe); got "
                             f"f(0) = {values[zero[0]]!r}")
        return values

    def _set_noise_table(self) -> None:
        """μ_ε's table (`noise_sketches`, `noise_vectors`, `noise_distance`,
        `noise_probabilities`, `n_candidates`) and `enumeration_seconds`, the time its
        enumeration took. The enumeration draws nothing, so instances with the same X, Z, ε,
        built-in cost and Δ_f have the same table: small ones (at most `_SHARED_CANDIDATES`
        vectors) are built once and shared, read-only (test_stable's check of Lemma 2 builds
        20,000 instances of one setting; a table of 625 vectors takes about 0.4 ms)."""
        key = None
        if not callable(self.cost) and enumeration_size(self.universe_size, self.Z) <= _SHARED_CANDIDATES:
            key = (self.X.tobytes(), self.X.shape, self.Z, self.epsilon, self.cost, self.sensitivity)
        if key is None or key not in _SHARED_TABLES:
            start = time.perf_counter()
            table = self._noise_table()
            seconds = time.perf_counter() - start
            if key is not None:
                for array in table.values():
                    if isinstance(array, np.ndarray):
                        array.setflags(write=False)
                if len(_SHARED_TABLES) >= _SHARED_LIMIT:
                    _SHARED_TABLES.pop(next(iter(_SHARED_TABLES)))   # the oldest
                _SHARED_TABLES[key] = table, seconds
        else:
            table, seconds = _SHARED_TABLES[key]
        self.__dict__.update(table)
        self.enumeration_seconds = seconds

    def _noise_table(self) -> dict:
        m, Z = self.universe_size, self.Z
        values = np.arange(-2 * Z, 2 * Z + 1, dtype=np.int64)
        grids = np.meshgrid(*([values] * m), indexing="ij")
        c = np.stack([g.ravel() for g in grids], axis=1)           # every c ∈ [−2Z, 2Z]^m
        sketches = c @ self.X                                       # Xᵀc, exact integers
        costs = self._cost_values(c)
        keys, first, inverse = np.unique(_row_keys(sketches), return_index=True,
                                         return_inverse=True)
        distance = np.full(len(keys), costs.max() + 1, dtype=costs.dtype)
        inverse = inverse.ravel()
        np.minimum.at(distance, inverse, costs)                     # d(z) = min f(c)
        minimisers = np.flatnonzero(costs == distance[inverse])
        argmin = np.empty(len(keys), dtype=np.int64)
        argmin[inverse[minimisers[::-1]]] = minimisers[::-1]        # one minimiser per sketch
        scale = self.epsilon / (2 * self.sensitivity)               # ε/4 for ‖·‖₀
        weights = np.exp(-scale * (distance - distance.min()))
        return {"noise_sketches": sketches[first],                  # the reachable set R
                "noise_vectors": c[argmin].astype(np.min_scalar_type(-2 * Z)),   # Xᵀc = z, f(c) = d(z)
                "noise_distance": distance,
                "_keys": keys,                                      # sorted, for lookups
                "noise_probabilities": weights / weights.sum(),     # μ_ε
                "n_candidates": len(c)}

    # -- the exponential mechanism ------------------------------------------------------
    def distance(self, z) -> np.ndarray:
        """d(z) for sketch vector(s) z (grid units), −1 meaning ∞ (ints for ‖·‖₀, ‖·‖₁)."""
        z = np.atleast_2d(np.asarray(z, dtype=np.int64))
        keys = _row_keys(z)
        pos = np.clip(np.searchsorted(self._keys, keys), 0, len(self._keys) - 1)
        found = self._keys[pos] == keys
        return np.where(found, self.noise_distance[pos], -1)

    def preimage(self, z) -> np.ndarray:
        """A vector c ∈ [−2Z, 2Z]^m with Xᵀc = z and f(c) = d(z) (z must be reachable)."""
        d = self.distance(z)
        if np.any(d < 0):
            raise ValueError("z is not a reachable sketch (d(z) = ∞)")
        keys = _row_keys(np.atleast_2d(np.asarray(z, dtype=np.int64)))
        return self.noise_vectors[np.searchsorted(self._keys, keys)].astype(np.int64).squeeze()

    def sample_noise(self, size=None) -> np.ndarray:
        """Draw y ~ μ_ε (one (r,) vector, or (size, r))."""
        index = self._rng.choice(len(self.noise_probabilities), size=size,
                                 p=self.noise_probabilities)
        return self.noise_sketches[index].copy()

    def sampler_law(self) -> np.ndarray:
        """N_j: `sample_noise` draws candidate j with probability exactly N_j / 2^53.

        rng.choice computes F = cumsum(p)/F_last in floats and returns the number of F_j <=
        U for one U = k·2^−53, k uniform on [0, 2^53); so N_j = ⌈2^53 F_j⌉ − ⌈2^53 F_{j−1}⌉
        (2^53 F_j is exact in floats). Integers, sum 2^53: the float program's exact law.
        """
        cdf = self.noise_probabilities.cumsum()
        cdf /= cdf[-1]
        edges = np.ceil(np.ldexp(cdf, 53)).astype(np.int64)
        return np.diff(edges, prepend=0)

    def sampler_ratio_slack(self) -> float:
        """(p_min + η)/(p_min − η), η = (|R| + 8)·2^−52: the float sampler's extra ratio.

        A bound on N_j/2^53 ÷ μ_ε(j) and its inverse (class docstring); ∞ if p_min <= η.
        """
        eta = (len(self.noise_probabilities) + 8) * 2.0 ** -52
        p_min = float(self.noise_probabilities.min())
        return math.inf if p_min <= eta else (p_min + eta) / (p_min - eta)

    def state_distribution(self, a) -> dict:
        """The exact law of the state for state vector a (Lemma 2): {sketch tuple: prob}.

        The state is sk(a) + y with y ~ μ_ε, so P(s) = μ_ε(s − Xᵀa) (μ_ε as computed in
        floats; `sampler_law` gives what the float sampler realises).
        """
        a = require_array("a", a, ndim=1, integer=True)
        if a.shape != (self.universe_size,):
            raise ValueError(f"a must have length universe_size = {self.universe_size}; "
                             f"got shape {a.shape}")
        states = self.noise_sketches + a @ self.X
        return {tuple(s): float(q) for s, q in zip(states.tolist(), self.noise_probabilities)}

    def lemma3_bound(self, delta) -> float:
        """(2Δ_f/ε)(ln(|R|/|R*|) + ln(1/δ)) — (4/ε)(…) for ‖·‖₀ — bounds d(y) w.p. 1 − δ (Thm 2)."""
        delta = require_real("delta", delta, low=0.0, high=1.0, low_open=True, high_open=True)
        optimal = int(np.sum(self.noise_distance == self.noise_distance.min()))
        return 2 * self.sensitivity / self.epsilon * (math.log(len(self.noise_distance) / optimal)
                                   + math.log(1 / delta))

    def announce_intrusion(self) -> dict:
        """An announced intrusion: hand over the state, then add a fresh y'' ~ μ_ε to it.

        Mir et al. 2011, §5: with announced intrusions "our results will still hold, with the
        simple fix to randomize anew after each intrusion". Without it two views differ by
        Xᵀ(a₂ − a₁) exactly, which on a fine grid reveals a₂ − a₁ (`preimage`). With it the
        difference is Xᵀ(a₂ − a₁) + y'', drawn like the state of Lemma 2 for the vector
        a₂ − a₁: e^(ε/2) on the common support plus a δ, per view, so k views and the output
        compose to (k + 1)ε/2 plus the δs. The sketch becomes that of a + c + c'' with
        ‖c''‖₀ = d(y''): each intrusion adds d(y'') to the error bound of Thm 6.
        Returns the state the intruder received; counts the intrusions in `intrusions`.
        """
        seen = self.state()
        self.sk = self.sk + self.sample_noise()
        self.intrusions += 1
        return seen

    # -- output ------------------------------------------------------------------------
    def output(self) -> float:
        """Add a fresh y' ~ μ_ε to the sketch (as Alg 1 does) and return the estimate of D."""
        self.sk = self.sk + self.sample_noise()
        return self.estimate(self.sk)

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "Z": self.Z, "epsilon": self.epsilon,
                "p": self.p, "r": self.r,
                **({} if self.cost == "l0" else {"cost": self.cost, "sensitivity": self.sensitivity})}
