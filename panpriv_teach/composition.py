"""What running several private mechanisms on the same data costs: basic, advanced and optimal
composition of k mechanisms that are each epsilon0-DP.

- `basic_composition`: the epsilons add up (Dwork & Roth 2014, Thm 3.16; DMNS 2006).
- `advanced_composition`: sqrt(2k ln(1/delta')) epsilon0 + k epsilon0 (e^epsilon0 - 1), at the
  price of a delta' (Dwork, Rothblum, Vadhan 2010, Thm III.3).
- `optimal_composition`: the least epsilon any k-fold composition of epsilon0-DP mechanisms
  can be guaranteed at delta; attained by k randomized responses (Kairouz, Oh, Viswanath 2015,
  Thm 3.3), computed exactly from `composition_delta`.

Example (the three at k = 100, epsilon0 = 0.1, delta = 1e-6): 10, about 6.3, about 4.7.
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from scipy.special import gammaln, logsumexp

from panpriv_teach.validation import require_array, require_epsilon, require_int, require_real

__all__ = ["basic_composition", "advanced_composition", "composition_delta",
           "optimal_composition"]


def _delta(name, value):
    return require_real(name, value, low=0.0, high=1.0, low_open=True, high_open=True,
                        note="a probability of failure, e.g. 1e-6")


def basic_composition(epsilons: Iterable[float]) -> float:
    """The sum of the epsilons: running mechanisms that are epsilon_i-DP on the same data (each
    with fresh randomness, chosen adaptively or not) is (sum_i epsilon_i)-DP (Dwork & Roth 2014,
    Thm 3.16 with all delta_i = 0; Dwork 2011, "composition"). Exact for pure DP in the worst
    case only at delta = 0: with a small delta, `advanced_composition` and
    `optimal_composition` are smaller for large k."""
    values = require_array("epsilons", list(epsilons) if not isinstance(epsilons, np.ndarray)
                           else epsilons, ndim=1, nonempty=True, note="one epsilon per mechanism")
    if np.any(values <= 0):
        raise ValueError(f"each entry of epsilons must be > 0; got {values[values <= 0][0]!r}")
    return math.fsum(values.astype(float).tolist())


def advanced_composition(epsilon0, k, delta_prime) -> float:
    """epsilon' = sqrt(2k ln(1/delta')) epsilon0 + k epsilon0 (e^epsilon0 - 1): the k-fold
    (adaptive) composition of epsilon0-DP mechanisms is (epsilon', delta')-DP (Dwork, Rothblum,
    Vadhan 2010, Thm III.3; Dwork & Roth 2014, Thm 3.20, with delta = 0 per mechanism).
    Grows like sqrt(k) epsilon0 instead of k epsilon0; it is larger than the basic k epsilon0
    when k is small (then use the smaller of the two)."""
    epsilon0 = require_epsilon(epsilon0, name="epsilon0", high=700.0,
                               note="e^epsilon0 must be a finite float")
    k = require_int("k", k, low=1, note="the number of mechanisms composed")
    delta_prime = _delta("delta_prime", delta_prime)
    return (math.sqrt(-2 * k * math.log(delta_prime)) * epsilon0
            + k * epsilon0 * math.expm1(epsilon0))


def composition_delta(epsilon0, k, epsilon) -> float:
    """The least delta for which EVERY k-fold composition of epsilon0-DP mechanisms is
    (epsilon, delta)-DP (Kairouz, Oh, Viswanath 2015, Thm 3.3 with delta0 = 0):

        delta(epsilon) = sum_{l=0}^{k} C(k, l) max(0, e^((k-l) epsilon0) - e^epsilon e^(l epsilon0))
                         / (1 + e^epsilon0)^k,

    the hockey-stick divergence of k independent randomized responses of privacy epsilon0, whose
    privacy loss is (k - 2l) epsilon0 with l ~ Binomial(k, 1/(1 + e^epsilon0)). (KOV state it
    at epsilon = (k - 2i) epsilon0; the formula holds for every epsilon >= 0.) Computed in log
    space, so k up to 10^6 works."""
    epsilon0 = require_epsilon(epsilon0, name="epsilon0")
    k = require_int("k", k, low=1, note="the number of mechanisms composed")
    epsilon = require_real("epsilon", epsilon, low=0.0, high=math.inf, high_open=True)
    l = np.arange(k + 1)
    l = l[(k - 2 * l) * epsilon0 > epsilon]          # only positive terms
    if l.size == 0:
        return 0.0
    log_binom = gammaln(k + 1) - gammaln(l + 1) - gammaln(k - l + 1)
    log_norm = k * np.logaddexp(0.0, epsilon0)
    # e^((k-l)e0) - e^(eps + l e0) = e^((k-l)e0) (1 - e^(eps - (k - 2l)e0)), the bracket in (0, 1]
    log_terms = (log_binom + (k - l) * epsilon0
                 + np.log(-np.expm1(epsilon - (k - 2 * l) * epsilon0)) - log_norm)
    return float(np.exp(logsumexp(log_terms)))


def optimal_composition(epsilon0, k, delta) -> float:
    """The least epsilon such that every k-fold composition of epsilon0-DP mechanisms is
    (epsilon, delta)-DP: the solution of `composition_delta(epsilon0, k, epsilon) = delta`
    (Kairouz, Oh, Viswanath 2015, Thm 3.3: no smaller epsilon holds for k randomized
    responses, so no accountant can certify less). delta(epsilon) is continuous and
    decreasing, so bisection on [0, k epsilon0] finds it to 1e-12 relative; returns 0 when
    delta >= delta(0)."""
    epsilon0 = require_epsilon(epsilon0, name="epsilon0")
    k = require_int("k", k, low=1, note="the number of mechanisms composed")
    delta = _delta("delta", delta)
    lo, hi = 0.0, k * epsilon0                       # delta(k epsilon0) = 0
    if composition_delta(epsilon0, k, lo) <= delta:
        return 0.0
    while hi - lo > 1e-12 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if composition_delta(epsilon0, k, mid) > delta else (lo, mid)
    return hi
