"""Modular incidence counts, pan-privately: the fraction of users who appear i times modulo k.

Dwork 2010, §3, lists (modular) incidence counts among the problems DNPRY 2010 solves
pan-privately, without giving an algorithm; neither does any text this course follows. The
estimator here is the course's own, built on the idea of the density estimator (Dwork 2010,
§4, Fig. 1): keep, for a sample of representatives, a state whose law barely depends on what
its user did, and undo the known randomization in the output. Derivations are in the class
docstring and in lecture 03's "Going deeper".
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.density import _arrivals, sample_representatives
from panpriv_teach.mechanisms import laplace_guarantee, laplace_mechanism
from panpriv_teach.noise import ArcNoise
from panpriv_teach.validation import (require_array, require_epsilon, require_int, require_probability,
                                      require_real)

__all__ = ["modular_incidence", "ModularIncidenceEstimator"]


def modular_incidence(stream, universe_size, k) -> np.ndarray:
    """The exact answer: for i = 0..k-1, the fraction of X = {0..N-1} appearing i times mod k.

    With k larger than every count, entry i is the plain incidence count: the fraction of X
    appearing exactly i times (entry 0 includes everyone absent from the stream).
    """
    universe_size = require_int("universe_size", universe_size, low=1)
    k = require_int("k", k, low=2, note="counts modulo k need at least two residues")
    stream = require_array("stream", stream, integer=True, ndim=1)
    if stream.size and (stream.min() < 0 or stream.max() >= universe_size):
        raise ValueError(f"stream elements must lie in 0..{universe_size - 1} (the universe); got "
                         f"values from {stream.min()} to {stream.max()}")
    counts = np.bincount(stream, minlength=universe_size)
    return np.bincount(counts % k, minlength=k) / universe_size


class ModularIncidenceEstimator(StreamAlgorithm):
    """For i = 0..k-1, the fraction of users of X = {0..N-1} who appear i times modulo k.

    Algorithm: sample a set M of m representatives; keep one counter c_x ∈ {0..k-1} per
    x ∈ M, started at a random value N_x with P(N_x = 0) = e^ε/K and P(N_x = j) = 1/K for
    each j ≠ 0 (K = e^ε + k - 1); each arrival of x ∈ M sets c_x ← c_x + 1 mod k. So
    c_x = (N_x + n_x) mod k, n_x the number of arrivals of x: its law is that of N_x turned by
    n_x, with the heavy value at n_x mod k. Output: C_i = |{x ∈ M : c_x = i}| plus Laplace
    noise of scale 2/ε on each i, θ_i = C̃_i/m, and f̂_i = (K θ_i - 1)/(e^ε - 1), because
    E[C_i/m] = (f_i e^ε + (1 - f_i))/K for f_i the fraction of M with n_x ≡ i (mod k).
    With k larger than every count, f_i is the incidence count "exactly i times".

    Privacy (user-level, X-adjacent streams; Dwork 2010, §3): the state is ε-DP against one
    intrusion at any time: a user outside M changes nothing; a user in M changes only the
    turn of c_x's law, and any two turns of it differ by a factor at most e^ε at every value.
    The output changes C by at most 1 in two entries (L1 sensitivity 2), so with the Laplace
    noise the pair (state, output) is 2ε-DP. In floating point: N_x is drawn by
    `noise.ArcNoise(k, 1, ε)` (integer draws only; point probabilities p_on at 0 and p_off
    elsewhere known as exact fractions, with p_on/p_off <= e^ε exactly), so `state_epsilon`
    = ln(p_on/p_off) <= ε; the output uses the float-safe `laplace_mechanism` on the integer
    counts, (ε + 2η, 2δ) with η, δ from `laplace_guarantee` (each of the two changed entries
    counts them once). The estimate inverts the implemented law,
    f̂_i = (θ_i - p_off)/(p_on - p_off), which is the formula above up to the sampler's
    relative 2^-32.
    Accuracy: f̂_i is unbiased for f_i, with standard deviation `error_sd(f_i)`; with
    probability at least 1 - β, |f̂_i - f_i| <= `error_bound(beta)` (Hoeffding for C_i, the
    Laplace tail for its noise, β/2 each). M estimates X's fractions like a sample of m
    (as in the density estimator; Roth 2011, Thm 6).
    The price of the modulus: the factor K/(e^ε - 1) grows linearly in k, so counting exact
    incidences up to a large count needs many more representatives.

    Parameters
    ----------
    universe_size : N = |X|.   k : the modulus, k >= 2.   epsilon : > 0.
    m : the number of representatives, 1 <= m <= N.   rng : seed or Generator.
    """

    def __init__(self, universe_size, k, epsilon, m, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1, high=2**62)
        self.k = require_int("k", k, low=2, high=2**20, note="counts modulo k need at least two "
                             "residues; the output lists all k of them")
        self.epsilon = require_epsilon(epsilon, high=700.0, note="e^ε must be a finite float")
        self.m = require_int("m", m, low=1, high=self.universe_size,
                             note="M holds m distinct representatives of the universe")
        self._rng = as_rng(rng)
        self.noise = ArcNoise(self.k, 1, self.epsilon)       # N_x: the heavy value is 0
        on, off = self.noise.point_probabilities()
        self.p_on, self.p_off = float(on), float(off)
        self.M = sample_representatives(self.universe_size, self.m, self._rng)
        self.c = self._start(self.m)

    def _start(self, size) -> np.ndarray:
        return self.noise.sample(size, self._rng)

    # ------------------------------------------------------------------ the exact law
    def start_law(self) -> list[Fraction]:
        """The implemented law of N_x, exactly: P(N_x = j) for j = 0..k-1."""
        on, off = self.noise.point_probabilities()
        return [on] + [off] * (self.k - 1)

    @property
    def state_epsilon(self) -> float:
        """ln of the largest ratio P(c_x = j | n) / P(c_x = j | n') of the implemented law."""
        return self.noise.guarantee()

    def output_guarantee(self) -> tuple[float, float]:
        """(ε', δ') of the release given the state, in floating point: (ε + 2η, 2δ)."""
        eps, delta = laplace_guarantee(2, self.epsilon)
        return self.epsilon + 2 * (eps - self.epsilon), 2 * delta

    # ------------------------------------------------------------------ processing
    def update(self, x) -> None:
        """One arrival: if x ∈ M, c_x ← c_x + 1 mod k."""
        x = require_int("x", x, low=0, high=self.universe_size - 1,
                        note=f"the universe has {self.universe_size} elements")
        i = int(np.searchsorted(self.M, x))
        if i < self.m and self.M[i] == x:
            self.c[i] = (self.c[i] + 1) % self.k

    def process(self, stream) -> None:
        """Many arrivals at once: every c_x moves by its number of arrivals, mod k (no coins,
        so this is exactly repeated `update`)."""
        arrivals = np.bincount(_arrivals(self.M, stream, self.universe_size), minlength=self.m)
        self.c = (self.c + arrivals) % self.k

    # ------------------------------------------------------------------ releases
    def output(self) -> np.ndarray:
        """f̂_0..f̂_{k-1}: the estimated fractions appearing i times mod k (fresh noise per call)."""
        noisy = laplace_mechanism(np.bincount(self.c, minlength=self.k).astype(float), 2.0,
                                  self.epsilon, self._rng)
        return (noisy / self.m - self.p_off) / (self.p_on - self.p_off)

    def error_sd(self, fraction) -> float:
        """The standard deviation of f̂_i when a fraction f_i of M has n_x ≡ i (mod k)."""
        fraction = require_real("fraction", fraction, low=0.0, high=1.0)
        p = fraction * self.p_on + (1 - fraction) * self.p_off
        variance = p * (1 - p) / self.m + 2 * (2 / (self.epsilon * self.m)) ** 2
        return math.sqrt(variance) / (self.p_on - self.p_off)

    def error_bound(self, beta) -> float:
        """α with P(|f̂_i - f_i| > α) <= β for each i: 1/(p_on - p_off) ≈ K/(e^ε - 1) times
        sqrt(ln(4/β)/(2m)) (Hoeffding, β/2) plus (2/(εm)) ln(2/β) (Laplace tail, β/2)."""
        beta = require_probability("beta", beta)
        spread = math.sqrt(math.log(4 / beta) / (2 * self.m)) + 2 / (self.epsilon * self.m) * math.log(2 / beta)
        return spread / (self.p_on - self.p_off)

    def state(self) -> dict:
        """What an intruder sees: M (drawn independently of the data) and the counters."""
        return {"M": self.M.copy(), "c": self.c.copy(), "k": self.k}

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "k": self.k, "epsilon": self.epsilon, "m": self.m}
