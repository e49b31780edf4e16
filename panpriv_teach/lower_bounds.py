"""Lower bounds on the error of private counting (Local-mechanisms notes): Ω(log n) for counting
under continual observation, by packing (§2, "A lower bound"), and Ω(√n/ε) for counting in
the local model (§1, the homework after Thm 2).

Each bound is computed as a number for given n and ε, with the constants of its proof, so a
lecture can put it beside the error of a real mechanism (module 04's binary tree counter,
module 02's randomized response).
"""
from __future__ import annotations

import functools
import math
import warnings

import numpy as np
from scipy.stats import binom

from panpriv_teach.validation import (require_array, require_epsilon, require_int,
                                      require_probability, require_real)

__all__ = ["packing_streams", "packing_checkpoints", "packing_events", "packing_condition",
           "packing_bound", "notes_packing_shortcut", "local_bayes_bound", "local_two_point_bound"]

BASES = ("zero", "first")


# ----------------------------------------------------------------------------------------
# Ω(log n) for continual counting: the packing argument of Local-mechanisms notes, §2
# ----------------------------------------------------------------------------------------

def _renamed(**old_to_new):
    """Accept a parameter's earlier name (with a DeprecationWarning) after it was renamed to
    follow the course's notation (course/notation.md: T the stream length, w the block length)."""
    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for old, new in old_to_new.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{fn.__name__}: give {new}, or its earlier name {old}, not both")
                    warnings.warn(f"{fn.__name__}: the parameter {old} is now called {new} "
                                  "(course/notation.md)", DeprecationWarning, stacklevel=2)
                    kwargs[new] = kwargs.pop(old)
            return fn(*args, **kwargs)
        return wrapper
    return decorate


def _blocks(T, w):
    T = require_int("T", T, low=2, note="the number of time steps")
    w = require_int("w", w, low=1, high=T // 2 if T >= 2 else 1,
                    note="the block length 2a; at least two blocks must fit in T steps")
    return T, w, T // w


@_renamed(n="T", L="w")
def packing_streams(T, w) -> np.ndarray:
    """The packing of Local-mechanisms notes, §2: k = ⌊T/w⌋ + 1 streams of length T, as a (k, T) 0/1 array.

    Row 0 is the all-zero stream x⁰; row i (1 <= i <= ⌊T/w⌋) is x^i, ones exactly in block i
    (time steps (i − 1)w + 1 .. iw). The Local-mechanisms notes' block length is w = 2a. Every x^i is at
    distance w from x⁰ and 2w from x^j (j ≠ i).
    """
    T, w, k = _blocks(T, w)
    streams = np.zeros((k + 1, T), dtype=np.int64)
    for i in range(1, k + 1):
        streams[i, (i - 1) * w:i * w] = 1
    return streams


@_renamed(n="T", L="w")
def packing_checkpoints(T, w) -> np.ndarray:
    """The times t = w, 2w, ..., ⌊T/w⌋·w (1-based) at which the events T_i look."""
    T, w, k = _blocks(T, w)
    return w * np.arange(1, k + 1)


@_renamed(L="w")
def packing_events(releases, w) -> np.ndarray:
    """Which event T_i each run of releases falls in (−1: none).

    `releases` is (runs, T) (or (T,)): release t of each run, t = 1..T. At the checkpoints
    c·w (c = 1..k) the true count of x^i is 0 for c < i and w for c >= i. T_i (1 <= i <= k)
    is the event "the releases at the checkpoints before block i ends are < w/2 and those
    from there on are > w/2"; T_0 is "all of them are < w/2". The T_i are disjoint, and a
    counter whose error is below a = w/2 at every step puts x^i's releases in T_i.
    """
    releases = np.atleast_2d(require_array("releases", releases))
    if releases.ndim != 2:
        raise ValueError(f"releases must be (runs, T); got shape {releases.shape}")
    checkpoints = packing_checkpoints(releases.shape[1], w)
    above = releases[:, checkpoints - 1] > w / 2          # (runs, k)
    below = releases[:, checkpoints - 1] < w / 2
    k = len(checkpoints)
    first_above = np.where(above.any(axis=1), above.argmax(axis=1), k)   # 0-based c of the jump
    c = np.arange(k)[None, :]
    pattern = np.where(c < first_above[:, None], below, above).all(axis=1)
    index = np.where(first_above < k, first_above + 1, 0)   # the jump at c → T_(c+1); none → T_0
    return np.where(pattern, index, -1)


@_renamed(n="T", L="w")
def packing_condition(T, w, epsilon, p=0.5, base="zero") -> float:
    """The left side of the packing contradiction; > 1 means "impossible".

    Suppose an ε-DP counter has error < w/2 at every step with probability >= p on every
    input. Then P[M(x^i) ∈ T_i] >= p. With base="zero" (our version), x^i is at distance w
    from x⁰, so group privacy gives P[M(x⁰) ∈ T_i] >= e^(−εw)·p, and with P[M(x⁰) ∈ T_0]
    >= p the disjoint events give p·(1 + k·e^(−εw)) <= 1. With base="first" (the Local-mechanisms notes'
    version, comparing with x¹ at distance 2w = 4a): p·(1 + (k − 1)·e^(−2εw)) <= 1.
    Returns that left side (k = ⌊T/w⌋).
    """
    T, w, k = _blocks(T, w)
    epsilon = require_epsilon(epsilon)
    p = require_probability("p", p, note="the probability that every release is within w/2")
    if base not in BASES:
        raise ValueError(f"base must be one of {BASES}; got {base!r}")
    if base == "zero":
        return p * (1 + k * math.exp(-epsilon * w))
    return p * (1 + (k - 1) * math.exp(-2 * epsilon * w))


@_renamed(n="T")
def packing_bound(T, epsilon=1.0, p=0.5, base="zero") -> float:
    """The largest a = w/2 that the packing argument rules out (0 if none).

    For every integer block length w with `packing_condition(T, w, ε, p, base)` > 1, no
    ε-DP counter over T steps can have error < w/2 at all steps with probability >= p on
    every input: some input has, with probability > 1 − p, an error >= w/2 at some step.
    Returns the largest such w/2.

    Growth: with base="zero", ignoring the rounding of T/w, the condition is εw + ln w < ln T,
    which holds for every w below (ln T − ln(ln T/ε))/ε, so a ≈ (ln T − ln(ln T/ε))/(2ε):
    Ω(log T/ε). The Local-mechanisms notes' base ("first", distance 4a) gives half: about
    (ln T − ln(ln T/ε))/(4ε) ("a < ln T/4 − 1" at ε = 1, see `notes_packing_shortcut`).
    """
    T = require_int("T", T, low=4, note="two blocks of length >= 2 must fit")
    if packing_condition(T, 1, epsilon, p, base) <= 1:
        return 0.0
    lo, hi = 1, T // 2            # the condition falls as w grows (both factors do): bisect
    if packing_condition(T, hi, epsilon, p, base) > 1:
        return hi / 2
    while hi - lo > 1:            # invariant: condition(lo) > 1 >= condition(hi)
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if packing_condition(T, mid, epsilon, p, base) > 1 else (lo, mid)
    return lo / 2


@_renamed(n="T")
def notes_packing_shortcut(T) -> float:
    """The Local-mechanisms notes' closing claim at ε = 1, p = 1/2: the argument is a contradiction "if
    a < ln n/4 − 1" (their n is our T). Returns ln T/4 − 1.

    Check: with k = n/(2a) blocks Local-mechanisms notes needs (n/(2a))·e^(−4a)/2 > 1, i.e.
    4a + ln(4a) < ln n. If a < ln n/4 − 1 then 4a < ln n − 4, so this holds when
    ln(4a) <= 4, i.e. a <= e⁴/4 ≈ 13.6 (n up to about e^58.6): true for every n one will
    ever count, though not asymptotically. The exact condition is what `packing_bound`
    (base="first") uses.
    """
    T = require_int("T", T, low=2, note="the number of time steps (the notes' n)")
    return math.log(T) / 4 - 1


# ----------------------------------------------------------------------------------------
# Ω(√n/ε) for local counting (Local-mechanisms notes, §1, the homework)
# ----------------------------------------------------------------------------------------

def local_bayes_bound(n, epsilon) -> float:
    """A lower bound on the root-mean-square error of ANY local ε-DP count of n bits, on
    uniformly random inputs: sqrt(n e^ε/(1 + e^ε)²) (about √n/2 for small ε).

    Proof. Let the bits X_i be i.i.d. uniform. Party i publishes Y_i = M_i(X_i) with its own
    coins, so the pairs (X_i, Y_i) are independent and, given all reports Y, the X_i are
    independent with P(X_i = 1 | Y) = Q(Y_i|1)/(Q(Y_i|0) + Q(Y_i|1)), which Def 1 puts in
    [1/(1 + e^ε), e^ε/(1 + e^ε)]. So Var(Σ X_i | Y) >= n e^ε/(1 + e^ε)², and every
    estimator A(Y) has E[(A − Σ X_i)²] >= E[Var(Σ X_i | Y)]. Randomized response with
    bias tanh(ε/2) attains it with the posterior-mean estimator (on this prior only).
    This is the Ω(√n) part; the 1/ε needs inputs of different densities
    (`local_two_point_bound`).
    """
    n = require_int("n", n, low=1)
    epsilon = require_epsilon(epsilon)
    return math.sqrt(n * math.exp(epsilon)) / (1 + math.exp(epsilon))


def local_two_point_bound(n, epsilon, c) -> tuple[float, float]:
    """(α, β): every local ε-DP count of n bits errs by at least α = c√n/ε with probability
    at least β on some input (β <= 0 means the argument gives nothing at these values).

    Proof (Le Cam's two-point method). Let η = 4c/(ε√n) <= 1/2 (so nη = 4α; the shift η of
    course/notation.md) and compare
    P0: X_i i.i.d. Bernoulli(1/2) with P1: X_i i.i.d. Bernoulli(1/2 + η).
    - One party's reports: with m_b(y) = P_b(Y_i = y), m1 − m0 = η(Q(·|1) − Q(·|0)), and
      Def 1 gives |Q(y|1) − Q(y|0)| <= tanh(ε/2)(Q(y|0) + Q(y|1)) = 2 tanh(ε/2) m0(y), so
      KL(m1‖m0) <= χ²(m1‖m0) <= 4η² tanh²(ε/2). For all n parties (independent):
      KL <= 4nη² tanh²(ε/2), and Pinsker: TV(P0^Y, P1^Y) <= sqrt(2n) η tanh(ε/2)
      = 4√2 c tanh(ε/2)/ε (<= 2√2 c).
    - Test "P1" when A > n/2 + 2α. Under P0 it errs only if |A − S| >= α or
      S − n/2 >= α; under P1 only if |A − S| >= α or S < n/2 + 3α = E₁S − α. Any test errs
      with total probability >= 1 − TV, so
      P0(|A − S| >= α) + P1(|A − S| >= α) >= 1 − TV − P0(S >= n/2 + α) − P1(S < E₁S − α),
      the last two exact binomial tails (both <= e^(−2c²/ε²) by Hoeffding).
    - P0 and P1 are mixtures of inputs, so some input x has P(|A − Σx| >= α) >= β, half the
      right side.
    With c = 0.1: β = 0.359 at ε = 0.05, 0.336 at ε = 0.1, 0.200 at ε = 0.2 (n = 10⁴ to
    10⁶; Hoeffding's tails instead of the exact ones would give 0.22 at ε = 0.1). As ε grows
    the sampling tails swamp the bound (β < 0 at ε = 1): there the Ω(√n) of
    `local_bayes_bound` takes over, and √n/ε = O(√n) for ε near 1.
    """
    n = require_int("n", n, low=1)
    epsilon = require_epsilon(epsilon)
    c = require_real("c", c, low=0.0, high=math.inf, low_open=True, high_open=True,
                     note="the error α = c√n/ε, in units of √n/ε")
    alpha = c * math.sqrt(n) / epsilon
    eta = 4 * alpha / n
    if eta > 0.5:
        raise ValueError(f"c = {c} is too large for n = {n}, epsilon = {epsilon}: the proof "
                         f"needs η = 4c/(ε√n) <= 1/2 (Bernoulli(1/2 + η) must exist); got η = {eta:.3g}")
    tv = min(1.0, 4 * math.sqrt(2) * c * math.tanh(epsilon / 2) / epsilon)
    tail0 = binom.sf(math.ceil(n / 2 + alpha) - 1, n, 0.5)            # P0(S >= n/2 + α)
    tail1 = binom.cdf(math.ceil(n / 2 + 3 * alpha) - 1, n, 0.5 + eta)  # P1(S < n/2 + 3α)
    return alpha, float((1 - tv - tail0 - tail1) / 2)

