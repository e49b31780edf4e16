"""The density of a stream at every time step, with user-level pan-privacy: the table of
bits of Fig 1 drives an event-level counter through biased coins (Dwork 2010, §7, Fig 3,
Claim 7.1, Thm 7.1).

Sources: Dwork 2010, §7; §4 for D0, D1 and the table; §5 for blank steps; §6 and
Local-mechanisms notes, §3 for the counters it plugs in.
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.core import ContinualCounter, StreamAlgorithm, as_rng
from panpriv_teach.density import BLANK, D0, sample_representatives, use_universe_table
from panpriv_teach.noise import implemented_probability
from panpriv_teach.ppcum import PanPrivateTreeCounter
from panpriv_teach.validation import require_array, require_epsilon, require_int

__all__ = ["ContinualDensityEstimator", "counter_input_probabilities", "claim_7_1",
           "max_epsilon", "BLANK"]

MAX_EPSILON = math.sqrt(2) - 1     # D+ = 1/2 + eps + eps^2/2 <= 1 needs eps <= sqrt(2) - 1


def max_epsilon() -> float:
    """The largest epsilon for which D+ (P(1) = 1/2 + eps + eps^2/2) is a distribution:
    sqrt(2) - 1 ≈ 0.414 (Dwork 2010 states no condition)."""
    return MAX_EPSILON


def counter_input_probabilities(epsilon) -> dict:
    """P(y = 1) under Fig 3's three coins and the table's two: {"D0": 1/2,
    "D+": 1/2 + eps + eps^2/2, "D-": 1/2 - eps + eps^2/2, "D1": 1/2 + eps/4}, as floats
    (D+ capped at 1: at eps = MAX_EPSILON its float sum is 1 + 2^-52)."""
    e = require_epsilon(epsilon, high=MAX_EPSILON, note="D+ = 1/2 + eps + eps^2/2 must be <= 1")
    return {"D0": D0, "D+": min(0.5 + e + e * e / 2, 1.0), "D-": 0.5 - e + e * e / 2,
            "D1": 0.5 + e / 4}


def claim_7_1(epsilon, exact=False, implemented=False) -> dict:
    """Claim 7.1: P(y_t = 1) in its three cases, computed from the coins (not assumed):
    (i) blank or x ∉ M: D0; (ii) a repeat of x ∈ M (b_x ~ D1): P(b=0) P_D+ + P(b=1) P_D-;
    (iii) a first appearance (b_x ~ D0): the same with P(b = 1) = 1/2.
    The claim: 1/2, 1/2, 1/2 + eps^2/2. With `exact=True` and a Fraction epsilon the
    arithmetic is exact (rational). With `implemented=True`: exactly (in Fractions) what
    `ContinualDensityEstimator` draws, each coin `rng.random() < p` for the float p of
    `counter_input_probabilities` having probability `noise.implemented_probability(p)`."""
    if exact and implemented:
        raise ValueError("exact (the real-number law) and implemented (the floating-point "
                         "program's law) are two different laws: give at most one")
    if implemented:
        p = {name: implemented_probability(value)
             for name, value in counter_input_probabilities(epsilon).items()}
    elif exact:
        from fractions import Fraction
        e = Fraction(epsilon)
        if not 0 < e <= Fraction(41421, 100000):
            raise ValueError(f"epsilon must be in (0, sqrt(2) - 1] (D+ must be a distribution); "
                             f"got {epsilon!r}")
        half = Fraction(1, 2)
        p = {"D0": half, "D+": half + e + e * e / 2, "D-": half - e + e * e / 2, "D1": half + e / 4}
    else:
        p = counter_input_probabilities(epsilon)
    repeat = (1 - p["D1"]) * p["D+"] + p["D1"] * p["D-"]
    first = (1 - p["D0"]) * p["D+"] + p["D0"] * p["D-"]
    return {"blank or not in M": p["D0"], "repeat appearance": repeat, "first appearance": first}


def _by_representative_then_time(rep) -> np.ndarray:
    """The stable argsort of `rep` (occurrences in time order): sorting the unique keys
    rep * n + position with numpy's default sort gives the same order, several times faster
    than its stable sort."""
    n = rep.size
    if n and int(rep.max()) < 2**62 // n:
        return np.argsort(rep * n + np.arange(n))
    return np.argsort(rep, kind="stable")


class ContinualDensityEstimator(StreamAlgorithm):
    """The density d_t = |{x ∈ X : x appears in x_1..x_t}| / |X| of a stream over
    X = {0, .., N-1} (BLANK = -1 means "nothing happened"), released at every step t.

    Algorithm (Fig 3, Dwork 2010's names): a sample M of m representatives and a table of
    bits b_x ~ D0 (Fig 1); an event-level counter fed with y_t ∈ {0, 1}: y_t ~ D0 if x_t is
    blank or not in M, y_t ~ D+ (P(1) = 1/2 + eps + eps^2/2) if x_t ∈ M and b_x = 0,
    y_t ~ D- (P(1) = 1/2 - eps + eps^2/2) if b_x = 1; then b_x is redrawn from D1
    (P(1) = 1/2 + eps/4). Claim 7.1: y_t is a fair coin except at the first appearance of
    an x ∈ M, where P(y_t = 1) = 1/2 + eps^2/2. So with ocount the counter's release,
    E[ocount_t] = t/2 + (eps^2/2) k_t, k_t = |{x ∈ M seen by t}|, and the release
        (ocount_t - t/2) / (m eps^2/2)
    is an unbiased estimate of d_t (k_t/m is unbiased for d_t over the sample M).
    Privacy: user-level (§5 adjacency: some occurrences of one symbol replaced by another,
    same length). A user moves the table by one bit (Claim 4.1: epsilon against the
    intrusion) and the counter's input only at a first appearance (Claim 7.1: however
    often the user comes, one significant event), so the counter's event-level privacy
    covers it (two events when the replacement x' is also in M): O(eps) user-level
    pan-privacy, Thm 7.1. In floating point: each coin is `rng.random() < p` for the float p
    of `counter_input_probabilities`; D0, D1 and D+ are multiples of 2^-53 and drawn exactly
    (the table bits as in `DensityEstimator`), D- (below 1/2) is rounded up by less than
    2^-53. So a repeat's y_t is a fair coin only up to 2^-52 (`claim_7_1(implemented=True)`
    gives the laws exactly; tests bound them), and each occurrence of a user beyond its first
    adds at most 2^-49 to the privacy loss: below 2^-19 even over 2^30 steps.
    What "pan-private" means is the counter's: with
    `CascadingBuffersCounter` (Fig 2, Cor 6.1, Dwork 2010's choice) one intrusion at any time
    plus all releases; with the default `PanPrivateTreeCounter` (PPCum) pan-privacy for the
    past (Local-mechanisms notes, Def 6: releases up to the intrusion and the memory; the system halts when an
    intrusion is found). The counter's epsilon is `epsilon` unless a counter is given.
    Accuracy (Thm 7.1: O((sqrt t + alpha)/eps^2) on the count scale): Var(release - d_t) =
    d(1-d)/m (N-m)/(N-1) + [t/4 - k eps^4/4 + Var(counter)] / (m eps^2/2)^2 with
    E k = m d_t (`error_sd`): the fair coins alone give sd sqrt(t)/(m eps^2).
    With PPCum (or any unbiased counter) the release is unbiased; the cascading buffers
    counter holds back the ones waiting in its buffers, so its release is biased low.
    As in `DensityEstimator`, the source of fresh coins is not part of the state (the
    sources' model); a deployment would draw them from a source an intruder cannot rewind.
    Source: Dwork 2010, §7, Fig 3, Claim 7.1, Thm 7.1.
    Corrections:
    - Output scale. Fig 3 releases (ocount - t/2)/(eps^2/2), the proof sketch
      (ocount - t/2)/eps^2: they differ by a factor of 2. From Claim 7.1,
      E[ocount - t/2] = (eps^2/2) k_t, so Fig 3's formula is the unbiased one for k_t (a
      count of representatives, not a density); the proof's is half of it. Dividing by m
      gives a fraction of the universe, like `DensityEstimator.output`. (Tests and lecture
      05 check the expectation.)
    - D+ is a distribution only for eps <= sqrt(2) - 1 ≈ 0.414, tighter than Claim 4.1's
      eps <= 1/2; the constructor requires it.
    - Fig 3 says "update x's entry" even for blank or x ∉ M, which have no entry: only
      x ∈ M redraws its bit.

    Parameters
    ----------
    universe_size : N = |X|; elements 0..N-1, BLANK (-1) for "nothing happened".
    epsilon : in (0, sqrt(2) - 1].
    m : the number of representatives, 1 <= m <= N.
    T : the number of steps served (the counter's horizon).
    counter : None (a fresh PanPrivateTreeCounter(T, epsilon)) or a fresh ContinualCounter
        at step 0 that accepts 0/1 inputs (e.g. CascadingBuffersCounter.from_T(T, epsilon)).
    rng : seed or Generator (for M, the bits, the coins and the default counter).
    """

    def __init__(self, universe_size, epsilon, m, T, counter=None, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1, high=2**63 - 1,
                                         note="elements are stored as int64")
        self.epsilon = require_epsilon(epsilon, high=MAX_EPSILON,
                                       note="D+ = 1/2 + eps + eps^2/2 must be a probability")
        self.m = require_int("m", m, low=1, high=self.universe_size,
                             note="M holds m distinct representatives of the universe")
        self.T = require_int("T", T, low=1, note="the number of steps the estimator serves")
        self._rng = as_rng(rng)
        p = counter_input_probabilities(self.epsilon)
        self._p_plus, self._p_minus, self._p1 = p["D+"], p["D-"], p["D1"]
        if counter is None:
            counter = PanPrivateTreeCounter(self.T, self.epsilon, self._rng)
        elif not isinstance(counter, ContinualCounter):
            raise TypeError("counter must be None or a ContinualCounter (e.g. "
                            "PanPrivateTreeCounter or CascadingBuffersCounter); got "
                            f"{type(counter).__name__}")
        elif getattr(counter, "_t", 0) != 0:
            raise ValueError(f"counter must be fresh (at step 0); got one at step {counter._t}")
        if getattr(counter, "T", self.T) < self.T:
            raise ValueError(f"counter serves T = {counter.T} steps, fewer than T = {self.T}")
        self.counter = counter
        self.M = sample_representatives(self.universe_size, self.m, self._rng)
        self.b = (self._rng.random(self.m) < D0).astype(np.uint8)       # b_x ~ D0
        self._t = 0
        self._ocount = 0.0
        self._last = 0.0

    @property
    def scale(self) -> float:
        """m eps^2/2: the expected rise of ocount - t/2 per representative seen."""
        return self.m * self.epsilon**2 / 2

    def _check_room(self, steps):
        if self._t + steps > self.T:
            raise ValueError(f"T = {self.T} is the number of steps this estimator serves; got "
                             f"step t = {self._t + steps} ({self.T - self._t} left)")

    def _release(self, ocount, t):
        return (ocount - t / 2) / self.scale

    # ------------------------------------------------------------------ one step
    def step(self, x) -> float:
        """Fig 3, one step: x_t (an element or BLANK); returns the density estimate at t."""
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
            raise TypeError(f"x must be an integer element of [0, {self.universe_size - 1}] or "
                            f"BLANK = -1 (nothing happened, Dwork 2010, §7); got {type(x).__name__} {x!r}")
        x = require_int("x", x, low=BLANK, high=self.universe_size - 1,
                        note="an element of the universe, or BLANK = -1 (nothing happened)")
        self._check_room(1)
        i = int(np.searchsorted(self.M, x))
        if x != BLANK and i < self.m and self.M[i] == x:
            p = self._p_minus if self.b[i] else self._p_plus     # D- if b_x = 1, D+ if b_x = 0
            y = int(self._rng.random() < p)
            self.b[i] = self._rng.random() < self._p1           # b_x ~ D1
        else:
            y = int(self._rng.random() < D0)                    # a fair coin
        self._t += 1
        self._ocount = self.counter.step(y)
        self._last = self._release(self._ocount, self._t)
        return self._last

    def update(self, x) -> None:
        self.step(x)

    # ------------------------------------------------------------------ many steps
    def run(self, stream) -> np.ndarray:
        """The density estimates at every step of `stream`, vectorised. Same distribution as
        repeated `step`: an occurrence of x ∈ M meets the bit left by x's previous
        occurrence (a D1 draw) or, at the first, the table's bit; so draw one D1 bit per
        occurrence at once, and look the previous one up by sorting the occurrences by
        element. The table keeps the last draw of each element that occurred."""
        x = require_array("stream", stream, integer=True, ndim=1)
        n = x.size
        if n == 0:
            return np.zeros(0)
        if x.min() < BLANK or x.max() >= self.universe_size:
            bad = x[(x < BLANK) | (x >= self.universe_size)][0]
            raise ValueError(f"each element of stream must be in [0, {self.universe_size - 1}] or "
                             f"BLANK = -1 (nothing happened); got {bad.item()!r}")
        self._check_room(n)
        if use_universe_table(n, self.universe_size):      # M's index of each element, or -1
            index = np.full(self.universe_size + 1, -1)     # (the last slot answers BLANK = -1)
            index[self.M] = np.arange(self.m)
            i = index[x]
            pos = np.flatnonzero(i >= 0)             # occurrences of representatives
        else:
            i = np.minimum(np.searchsorted(self.M, x), self.m - 1)
            pos = np.flatnonzero((x != BLANK) & (self.M[i] == x))
        rep = i[pos]
        order = _by_representative_then_time(rep)
        rep_sorted = rep[order]
        new_bits = self._rng.random(pos.size) < self._p1            # b_x ~ D1 after each
        first = np.ones(pos.size, dtype=bool)
        first[1:] = rep_sorted[1:] != rep_sorted[:-1]
        before = np.empty(pos.size, dtype=bool)                      # b_x met by the occurrence
        before_sorted = np.empty(pos.size, dtype=bool)
        before_sorted[first] = self.b[rep_sorted[first]].astype(bool)
        before_sorted[~first] = new_bits[order][:-1][~first[1:]] if pos.size > 1 else []
        before[order] = before_sorted
        p = np.full(n, D0)
        p[pos] = np.where(before, self._p_minus, self._p_plus)
        y = (self._rng.random(n) < p).astype(np.int64)
        last = np.ones(pos.size, dtype=bool)
        last[:-1] = rep_sorted[1:] != rep_sorted[:-1]
        self.b[rep_sorted[last]] = new_bits[order][last]
        ocount = self.counter.run(y)
        t = self._t + np.arange(1, n + 1)
        self._t += n
        self._ocount = float(ocount[-1])
        releases = self._release(ocount, t)
        self._last = float(releases[-1])
        return releases

    def process(self, stream) -> None:
        self.run(stream)

    def output(self) -> float:
        """The latest density estimate (0 before the first step)."""
        return self._last

    # ------------------------------------------------------------------ analysis
    def error_sd(self, t, density, universe_size=None) -> float:
        """The exact standard deviation of release t minus the true density d_t (see the
        class docstring), for an unbiased counter whose `variance(t)` is known (PPCum); for
        another counter only the sample and coin parts (a lower bound)."""
        n = self.universe_size
        d = float(density)
        sample = d * (1 - d) / self.m * ((n - self.m) / (n - 1) if n > 1 else 0.0)
        coins = t / 4 - self.m * d * self.epsilon**4 / 4
        counter = float(self.counter.variance(t)) if hasattr(self.counter, "variance") and \
            isinstance(self.counter, PanPrivateTreeCounter) else 0.0
        return math.sqrt(sample + (coins + counter) / self.scale**2)

    def state(self) -> dict:
        """What an intruder sees: M, the table b, and the counter's memory (the step t and
        the public parameters too)."""
        return {"t": self._t, "M": self.M.copy(), "b": self.b.copy(),
                "counter": self.counter.state(), "epsilon": self.epsilon, "m": self.m,
                "universe_size": self.universe_size}

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "epsilon": self.epsilon, "m": self.m,
                "T": self.T}
