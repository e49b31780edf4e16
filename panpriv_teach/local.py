"""The local model (Local-mechanisms notes, §1, Def 1): every party randomizes its own row and
publishes only the result, so no curator has to be trusted.

- `local_epsilon`: the exact ε of a local randomizer, by Def 1 (enumerating its channel).
- The logical AND of Dwork 2011 ("randomized response"): each bit randomized with ln 3, the
  AND of the randomized bits only ln 9 (`warner_and_distribution`, `warner_and_epsilon`).
- Frequency estimation over a small domain, the natural next step after counting one bit:
  `DirectEncoding` (k-ary randomized response) and `UnaryEncoding` (one randomized response
  per value). Beyond the course's sources; names and analysis from Wang, Blocki, Li and Jha,
  "Locally Differentially Private Protocols for Frequency Estimation" (USENIX Security 2017).

Randomized response for one bit lives in `panpriv_teach.mechanisms` (`RandomizedResponse`,
`warner_response`).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from panpriv_teach.audit import exact_epsilon
from panpriv_teach.core import as_rng
from panpriv_teach.mechanisms import warner_response
from panpriv_teach.noise import exp_lower_bound, threshold_for_ratio
from panpriv_teach.validation import (require_array, require_epsilon, require_int,
                                      require_probability)

__all__ = ["local_epsilon", "warner_pair_distribution", "warner_and_distribution",
           "warner_and", "warner_and_epsilon", "DirectEncoding", "UnaryEncoding",
           "OptimizedUnaryEncoding"]

MAX_UNARY_ENUMERATION = 12  # UnaryEncoding.report_distribution lists 2^k outcomes


# ----------------------------------------------------------------------------- Def 1

def local_epsilon(channel) -> float:
    """The exact ε of a local randomizer M_i (Local-mechanisms notes, §1, Def 1):

        ε = max over inputs x, x' and outputs y of ln( P[M_i(x) = y] / P[M_i(x') = y] ),

    math.inf if some output is possible on one input and impossible on another. Because the
    parties use independent randomness, this is also the ε of the joint release of all n
    reports on databases differing in one row (the probabilities of the other rows cancel).

    Parameters
    ----------
    channel : dict input -> pmf (a dict outcome -> probability), or a 2-D array whose row x
        is the pmf of M_i(x) over a common list of outputs. Every pmf sums to 1.
    """
    if isinstance(channel, dict):
        rows = list(channel.values())
        if not rows:
            raise ValueError("channel must list at least one input; got an empty dict")
    else:
        array = require_array("channel", channel, ndim=2, nonempty=True,
                              note="one row per input, one column per output")
        rows = list(array.astype(float))
    for x, row in zip(channel if isinstance(channel, dict) else range(len(rows)), rows):
        try:
            exact_epsilon(row, row)   # checks that the row is a pmf
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"channel[{x!r}] must be a pmf, non-negative probabilities summing "
                            f"to 1: {exc}") from None
    return max((exact_epsilon(a, b) for a, b in itertools.combinations(rows, 2)), default=0.0)


# ----------------------------------------------------------------------------- the AND

def _bit_probabilities(row, truth_probability):
    p = require_probability("truth_probability", truth_probability)
    row = require_array("row", row, ndim=1, allowed={0, 1}, nonempty=True,
                        note="the respondent's bits, e.g. (1, 1)")
    # P(r_j = 1 | x_j): (1 + p)/2 for a 1, (1 - p)/2 for a 0 (truth w.p. p, else a fair coin)
    return np.where(row == 1, (1 + p) / 2, (1 - p) / 2)


def warner_pair_distribution(row, truth_probability=0.5) -> dict:
    """The exact law of the randomized row: each bit of `row` through `warner_response`
    independently. Returns {(r_1, ..., r_m): probability} over all 2^m reports.

    Dwork 2011 randomizes a row of two bits this way; each bit is ln 3-private, the pair of
    reports (by composition, and exactly, see `warner_and_epsilon`) ln 9.
    """
    ones = _bit_probabilities(row, truth_probability)
    return {report: float(np.prod(np.where(np.array(report) == 1, ones, 1 - ones)))
            for report in itertools.product((0, 1), repeat=len(ones))}


def warner_and_distribution(row, truth_probability=0.5) -> dict:
    """The exact law of the AND of the randomized bits of `row`: {0: P, 1: P}.

    Dwork 2011: "consider the query: what is the logical-AND of the bits in the row of
    respondent i (after randomization)?" With fair coins, P(AND = 1) is (3/4)^2 = 9/16 for the
    row 11 and (1/4)^2 = 1/16 for 00: a ratio of 9.
    """
    one = float(np.prod(_bit_probabilities(row, truth_probability)))
    return {0: 1.0 - one, 1: one}


def warner_and(rows, rng=None, truth_probability=0.5) -> np.ndarray:
    """Simulate Dwork 2011's AND: randomize every bit of `rows` (shape (..., m), last axis =
    one respondent's bits) with `warner_response`, then AND along the last axis.
    Returns 0/1 ints of shape rows.shape[:-1]."""
    rows = require_array("rows", rows, allowed={0, 1}, nonempty=True)
    if rows.ndim < 1:
        raise ValueError(f"rows must have a last axis of bits; got shape {rows.shape}")
    reports = warner_response(rows, rng=rng, truth_probability=truth_probability)
    return reports.min(axis=-1).astype(np.int64)


def warner_and_epsilon(truth_probability=0.5, bits=2, release="and") -> float:
    """The exact local ε of releasing, for a row of `bits` bits each randomized by Warner's
    protocol, either the AND of the randomized bits (`release="and"`) or all of them
    (`release="row"`), by enumeration over every pair of rows (`local_epsilon`).

    Fair coins and two bits (Dwork 2011): ln 9 for both, against ln 3 for one bit. In general
    m ln((1 + p)/(1 - p)): the AND attains the composition bound at the rows 0...0 and 1...1.
    This is the real-number protocol; in floating point each coin is off by less than 2^-53
    (`warner_response`) and the ε by at most m 2^-51 (p >= 1/2: not at all).
    """
    bits = require_int("bits", bits, low=1, high=MAX_UNARY_ENUMERATION)
    if release not in ("and", "row"):
        raise ValueError(f"release must be 'and' or 'row'; got {release!r}")
    law = warner_and_distribution if release == "and" else warner_pair_distribution
    rows = itertools.product((0, 1), repeat=bits)
    return local_epsilon({row: law(row, truth_probability) for row in rows})


# ----------------------------------------------------------------------------- frequency oracles

def _values(values, k, name="values"):
    values = require_array(name, values, integer=True, nonempty=True)
    if values.min() < 0 or values.max() >= k:
        bad = values[(values < 0) | (values >= k)].flat[0]
        raise ValueError(f"each entry of {name} must be an integer in [0, {k - 1}] (the domain "
                         f"has k = {k} values); got {bad.item()!r}")
    return values


def _log_ratio(ratio: Fraction) -> float:
    """|ln ratio| for a positive Fraction (rounded once)."""
    return abs(math.log(ratio))


def _require_signal(p, q, epsilon):
    """The estimators divide by p - q: it must not round to 0 (epsilon below about 1e-15)."""
    if not p > q:
        raise ValueError(f"epsilon must be at least about 1e-15: below it p = q in floating point "
                         f"and the reports carry no information (the estimates divide by p - q); "
                         f"got {epsilon!r}")


class DirectEncoding:
    """k-ary randomized response: each party reports its value v in {0, ..., k-1} truthfully
    with probability p = e^ε/(e^ε + k - 1), and otherwise a uniformly random OTHER value
    (each with probability q = 1/(e^ε + k - 1)). Estimates how many parties hold each value.

    Privacy: local ε-DP (Local-mechanisms notes, Def 1: any two values of one party): every report has
    probability p or q, and p/q = e^ε.
    Accuracy: the estimate (C_v - n q)/(p - q), C_v the number of reports equal to v, is
    unbiased, with variance (c_v p(1 - p) + (n - c_v) q(1 - q))/(p - q)^2 for c_v holders of
    v (`std`); about n (e^ε + k - 2)/(e^ε - 1)^2 for rare values: it grows with k.
    For k = 2 it is `RandomizedResponse(bias=tanh(ε/2))` (p = (1 + bias)/2).
    In floating point: a party keeps its value when numpy's uniform (a multiple of 2^-53) is
    below t, p rounded DOWN onto that grid with t(k - 1)/(1 - t) <= e^ε checked exactly, and
    otherwise draws an exactly uniform other value (`rng.integers`), so the privacy is exactly
    `implemented_epsilon` = |ln(t(k - 1)/(1 - t))| <= ε (ε below about k 2^-52, where
    the grid is too coarse for that, is refused). (Comparing with p itself gave up to
    ε + 0.51, and ε = ∞ from ε ≈ 36.7 for k = 2, 43.7 for k = 1000, where p rounds to 1.)
    `p`, `q` and the estimates keep the real-number law, off by less than 2^-52.
    Sources: the one-bit protocols of Dwork 2011 and Local-mechanisms notes, §1, generalised; "direct encoding" in Wang,
    Blocki, Li and Jha (USENIX Security 2017), after Warner 1965.
    """

    def __init__(self, k, epsilon):
        self.k = require_int("k", k, low=2, note="the domain {0, ..., k-1} needs two values")
        self.epsilon = require_epsilon(epsilon)
        weight = math.exp(min(self.epsilon, 700.0))
        self.p = weight / (weight + self.k - 1)   # P(report = v | value v)
        self.q = 1.0 / (weight + self.k - 1)      # P(report = u | value v), u != v
        _require_signal(self.p, self.q, epsilon)
        self._keep = threshold_for_ratio(self.epsilon, self.k - 1)   # P(keep), exactly
        t = Fraction(self._keep)
        # t(k - 1)/(1 - t) <= e^ε by construction (exactly: |ln| of it may round above ε by an
        # ulp); the grid is too coarse when it falls below e^-ε
        if t * (self.k - 1) / (1 - t) * exp_lower_bound(self.epsilon) < 1:
            raise ValueError(f"epsilon must be at least about {self.k * 2.0**-52:.1g} for "
                             f"k = {self.k}: below it numpy's uniform (a multiple of 2^-53) "
                             f"cannot make P(keep)(k - 1)/(1 - P(keep)) close enough to e^ε "
                             f"(privacy {self.implemented_epsilon:.3g}); got {epsilon!r}")

    @property
    def implemented_epsilon(self) -> float:
        """The privacy the code really has: |ln(t(k - 1)/(1 - t))|, t = P(keep) exactly."""
        t = Fraction(self._keep)
        return _log_ratio(t * (self.k - 1) / (1 - t))

    def report_distribution(self, value) -> np.ndarray:
        """The exact law of one report for `value`: an array over 0..k-1."""
        value = require_int("value", value, low=0, high=self.k - 1)
        law = np.full(self.k, self.q)
        law[value] = self.p
        return law

    def report(self, value, rng=None) -> int:
        """One party's report, step by step (slow; `randomize` is the vectorised version)."""
        value = require_int("value", value, low=0, high=self.k - 1)
        rng = as_rng(rng)
        if rng.random() < self._keep:
            return value
        others = [u for u in range(self.k) if u != value]
        return int(others[rng.integers(self.k - 1)])

    def randomize(self, values, rng=None) -> np.ndarray:
        """The reports of parties holding `values` (ints in 0..k-1, any shape).

        Same law as `report` per party: keep with probability p; otherwise u uniform in
        0..k-2, shifted past the true value (u + [u >= v]), which is uniform on the others.
        """
        values = _values(values, self.k)
        rng = as_rng(rng)
        keep = rng.random(values.shape) < self._keep
        other = rng.integers(0, self.k - 1, size=values.shape)
        other += other >= values
        return np.where(keep, values, other).astype(np.int64)

    def counts(self, reports) -> np.ndarray:
        """C_v, the number of reports equal to v, per row: shape (..., k) for (..., n)."""
        reports = np.atleast_1d(_values(reports, self.k, "reports"))
        flat = reports.reshape(-1, reports.shape[-1])
        offsets = (np.arange(len(flat)) * self.k)[:, None]
        found = np.bincount((flat + offsets).ravel(), minlength=len(flat) * self.k)
        return found.reshape(reports.shape[:-1] + (self.k,))

    def estimate(self, reports) -> np.ndarray:
        """The unbiased counts (C_v - n q)/(p - q), v = 0..k-1: shape (..., k) for reports
        of shape (..., n). E[C_v] = c_v p + (n - c_v) q, solved for c_v."""
        reports = np.atleast_1d(_values(reports, self.k, "reports"))
        n = reports.shape[-1]
        return (self.counts(reports) - n * self.q) / (self.p - self.q)

    def std(self, n, count=0) -> float:
        """The standard deviation of one estimated count, for `count` of the n parties holding
        the value: sqrt(c p(1 - p) + (n - c) q(1 - q))/(p - q)."""
        n = require_int("n", n, low=1)
        count = require_int("count", count, low=0, high=n)
        variance = count * self.p * (1 - self.p) + (n - count) * self.q * (1 - self.q)
        return math.sqrt(variance) / (self.p - self.q)

    def __repr__(self) -> str:
        return f"DirectEncoding(k={self.k}, epsilon={self.epsilon!r})"


class UnaryEncoding:
    """Symmetric unary encoding: a party with value v writes the one-hot vector e_v of length
    k and sends each of its k bits through randomized response, keeping it with probability
    p = e^(ε/2)/(e^(ε/2) + 1) and flipping it with probability q = 1 - p. Estimates how many
    parties hold each value.

    Privacy: local ε-DP (Local-mechanisms notes, Def 1): two values' one-hot vectors differ in exactly two bits,
    each costing ln(p/q) = ε/2; every other bit has the same law. Each bit is
    `RandomizedResponse(bias=p - q)`, bias = tanh(ε/4), whose privacy is ε/2.
    Accuracy: the estimate (Y_v - n q)/(p - q), Y_v the number of 1s reported in position v,
    is unbiased with variance n p q/(p - q)^2 = n e^(ε/2)/(e^(ε/2) - 1)^2 whatever the data
    and whatever k (`std`): better than `DirectEncoding` (for rare values) exactly when
    k > e^(3ε/2) + e^ε + e^(ε/2) + 2 (equate the two variances; 5 as ε -> 0).
    In floating point: bit j is 1 when numpy's uniform (a multiple of 2^-53) is below t_p (j
    the value) or t_q (otherwise): t_p is p rounded DOWN onto that grid with t_p/(1 - t_p) <=
    e^(ε/2) checked exactly, and t_q = 1 - t_p, so the privacy is exactly
    `implemented_epsilon` = 2 ln(t_p/(1 - t_p)) <= ε. (Comparing with p and q gave up to
    ε + 0.44, and ε = ∞ from ε ≈ 74, where p rounds to 1.) `p`, `q` and the estimates keep
    the real-number law, off by less than 2^-52.
    Sources: the randomized response of Dwork 2011 and Local-mechanisms notes, §1, once per value; "symmetric unary
    encoding" in Wang, Blocki, Li and Jha (USENIX Security 2017), which is the one-time basic
    RAPPOR of Erlingsson, Pihur and Korolova (CCS 2014).
    """

    def __init__(self, k, epsilon):
        self.k = require_int("k", k, low=2, note="the domain {0, ..., k-1} needs two values")
        self.epsilon = require_epsilon(epsilon)
        self.bias = math.tanh(self.epsilon / 4)   # of each bit's randomized response
        self.p = (1 + self.bias) / 2              # P(report 1 | bit 1): the bit kept
        self.q = (1 - self.bias) / 2              # P(report 1 | bit 0): the bit flipped
        _require_signal(self.p, self.q, epsilon)
        self._one = threshold_for_ratio(self.epsilon / 2, 1)   # P(report 1 | bit 1), exactly
        self._flip = 1 - self._one                            # P(report 1 | bit 0), exactly

    @property
    def implemented_epsilon(self) -> float:
        """The privacy the code really has: ln(t_p (1 - t_q)/((1 - t_p) t_q)), the largest
        ratio over reports of two values (whose one-hot vectors differ in two bits), with
        t_p = P(report 1 | bit 1) and t_q = P(report 1 | bit 0) exactly."""
        t_p, t_q = Fraction(self._one), Fraction(self._flip)
        return _log_ratio(t_p * (1 - t_q) / ((1 - t_p) * t_q))

    def report_distribution(self, value) -> dict:
        """The exact law of one report for `value`: {bit tuple of length k: probability}
        over all 2^k reports (k <= 12)."""
        value = require_int("value", value, low=0, high=self.k - 1)
        if self.k > MAX_UNARY_ENUMERATION:
            raise ValueError(f"report_distribution lists 2^k reports: k must be at most "
                             f"{MAX_UNARY_ENUMERATION}; got k = {self.k}")
        one = np.where(np.arange(self.k) == value, self.p, self.q)   # P(bit j reported 1)
        return {report: float(np.prod(np.where(np.array(report) == 1, one, 1 - one)))
                for report in itertools.product((0, 1), repeat=self.k)}

    def report(self, value, rng=None) -> np.ndarray:
        """One party's report, bit by bit (slow; `randomize` is the vectorised version)."""
        value = require_int("value", value, low=0, high=self.k - 1)
        rng = as_rng(rng)
        return np.array([int(rng.random() < (self._one if j == value else self._flip))
                         for j in range(self.k)], dtype=np.int64)

    def randomize(self, values, rng=None) -> np.ndarray:
        """The reports of parties holding `values` (ints in 0..k-1, any shape): 0/1 ints of
        shape values.shape + (k,), bit j = 1 with probability p if j is the value, else q."""
        values = _values(values, self.k)
        one = np.where(values[..., None] == np.arange(self.k), self._one, self._flip)
        return (as_rng(rng).random(one.shape) < one).astype(np.int64)

    def estimate(self, reports) -> np.ndarray:
        """The unbiased counts (Y_v - n q)/(p - q): shape (..., k) for reports of shape
        (..., n, k). E[Y_v] = c_v p + (n - c_v) q, solved for c_v."""
        reports = require_array("reports", reports, allowed={0, 1}, nonempty=True)
        if reports.ndim < 2 or reports.shape[-1] != self.k:
            raise ValueError(f"reports must have shape (..., n, k) with k = {self.k} (one row of "
                             f"k bits per party); got shape {reports.shape}")
        n = reports.shape[-2]
        return (reports.sum(axis=-2) - n * self.q) / (self.p - self.q)

    std = DirectEncoding.std   # sqrt(n p q)/(p - q) whatever the count, as p(1 - p) = q(1 - q)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(k={self.k}, epsilon={self.epsilon!r})"


class OptimizedUnaryEncoding(UnaryEncoding):
    """Optimized unary encoding (OUE): like `UnaryEncoding`, one randomized bit per value, but
    the 1 of the one-hot vector is reported as 1 with probability p = 1/2 and every 0 as 1 with
    probability q = 1/(e^ε + 1) (Wang et al. 2017, §4.4). Estimates how many parties hold each
    value, with the interface of `UnaryEncoding`.

    Privacy: local ε-DP (Local-mechanisms notes, §1, Def 1): two values' one-hot vectors differ in
    two bits; a report r changes probability by (p/q)^(r_v) ((1 - p)/(1 - q))^(1 - r_v) at the
    true value's bit and the inverse at the other's, at most p(1 - q)/((1 - p) q) = e^ε.
    Accuracy: the estimate (Y_v - n q)/(p - q) is unbiased with variance
    (c p(1 - p) + (n - c) q(1 - q))/(p - q)^2 for c holders (`std`); for rare values (c << n)
    n q(1 - q)/(p - q)^2 = 4 n e^ε/(e^ε - 1)^2, since q(1 - q) = e^ε/(e^ε + 1)^2 and
    p - q = (e^ε - 1)/(2(e^ε + 1)): Wang et al. 2017's formula 4e^ε/(n (e^ε - 1)^2) for the
    estimated FREQUENCY c/n (divide by n^2). Smaller than symmetric unary encoding's
    n e^(ε/2)/(e^(ε/2) - 1)^2 for every ε > 0 (Wang et al. choose p, q to minimise it), and
    smaller than `DirectEncoding`'s for rare values when k > 3e^ε + 2.
    In floating point: t_p = 1/2 is on numpy's 2^-53 grid, and t_q is q rounded UP onto it with
    (1 - t_q)/t_q <= e^ε checked exactly, so `implemented_epsilon` <= ε (for ε above about
    36.7, t_q = 2^-53 and the privacy is ln(2^53 - 1), below ε).
    """

    def __init__(self, k, epsilon):
        self.k = require_int("k", k, low=2, note="the domain {0, ..., k-1} needs two values")
        self.epsilon = require_epsilon(epsilon)
        self.p = 0.5                                          # P(report 1 | bit 1)
        self.q = 1.0 / (math.exp(min(self.epsilon, 700.0)) + 1)   # P(report 1 | bit 0)
        _require_signal(self.p, self.q, epsilon)
        self._one = 0.5
        self._flip = 1 - threshold_for_ratio(self.epsilon, 1)      # q rounded up, exactly
