"""Counters under continual observation: at every step t, release an estimate of the number
of ones among x_1, ..., x_t of a 0/1 stream, privately with respect to each single event.

Sources: Local-mechanisms notes, §2 (the binary tree mechanism Cum, Thms 3-5, the Omega(log n) lower
bound) and Dwork 2010, §5-6 (adjacency with time, the simple solution, the cascading
buffers counter of Fig. 2, Thm 6.1, Claims 6.1-6.2, Cor 6.1). Comparison baselines beyond
the course's sources (Honaker's re-weighted tree, the square-root factorization) live in
`panpriv_teach.counters_baselines`, PPCum (Local-mechanisms notes, §3) in `panpriv_teach.ppcum`; both are
re-exported here.

Neighbouring streams (event-level, Dwork 2010, §1: "the presence or absence of a single event";
`streams.event_neighbours`): two streams of the same length that differ in one time step. (§5's
adjacency changes some occurrences of one symbol: user-level, not event-level.) Times are 1-based as in the sources: x_t is the
t-th element, stream[t - 1].

The dyadic tree is described once, by small public functions (`tree_levels`, `tree_nodes`,
`dyadic_intervals`, `nodes_containing`, `decomposition_sizes`, `node_level`), for Cum,
Honaker's estimator and PPCum (Local-mechanisms notes, §3). A node is a pair (s, e): the interval
{s, s + 1, ..., e} of time steps, with e - s + 1 a power of two and s - 1 a multiple of it.
"""
from __future__ import annotations

import math
import numbers
from fractions import Fraction

import numpy as np

from panpriv_teach.core import ContinualCounter, as_rng
from panpriv_teach.mechanisms import _smallest_where
from panpriv_teach.noise import LaplaceNoise, exp_lower_bound, threshold_below
from panpriv_teach.validation import (require_array, require_epsilon, require_int,
                                      require_probability, require_real)

__all__ = ["as_bit", "as_bit_stream", "check_horizon", "FixedHorizonCounter", "tree_levels", "tree_nodes", "dyadic_intervals", "nodes_containing",
           "decomposition_sizes", "node_level", "SimpleCounter", "BinaryTreeCounter",
           "CascadingBuffersCounter", "HonakerTreeCounter", "SqrtFactorizationCounter",
           "analytic_gaussian_sigma", "PanPrivateTreeCounter"]

_LAZY = {"HonakerTreeCounter": "counters_baselines", "SqrtFactorizationCounter": "counters_baselines",
         "analytic_gaussian_sigma": "counters_baselines",
         "PanPrivateTreeCounter": "ppcum"}   # module 05 (Local-mechanisms notes, §3), built on the helpers below


def __getattr__(name):
    """Re-export lazily the counters that live in modules importing the dyadic helpers from
    this one (the baselines, and PPCum of module 05)."""
    if name in _LAZY:
        import importlib
        try:
            module = importlib.import_module(f"panpriv_teach.{_LAZY[name]}")
        except ModuleNotFoundError:
            raise AttributeError(f"{name} lives in panpriv_teach.{_LAZY[name]}, which is not "
                                 "installed") from None
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------------------
# Input checks
# ----------------------------------------------------------------------------------------

_BIT_NOTE = "a counter's input: 0 = nothing happened, 1 = the event (Dwork 2010, §5)"


def as_bit(x) -> int:
    """One stream element: 0 or 1 (bools and 0.0/1.0 accepted)."""
    if isinstance(x, (bool, np.bool_)):
        return int(x)
    if not isinstance(x, numbers.Real):
        raise TypeError(f"x must be 0 or 1 ({_BIT_NOTE}); got {type(x).__name__} {x!r}")
    if x != 0 and x != 1:
        raise ValueError(f"x must be 0 or 1 ({_BIT_NOTE}); got {x!r}")
    return int(x)


def as_bit_stream(stream) -> np.ndarray:
    """A 1-D 0/1 stream as an int64 array (checked in one vectorised pass)."""
    array = require_array("stream", stream, ndim=1)
    if array.dtype == bool:
        return array.astype(np.int64)
    if array.dtype.kind == "c":
        raise TypeError(f"stream must hold 0/1 numbers; got complex dtype {array.dtype}")
    bad = (array != 0) & (array != 1)
    if bad.any():
        index = int(np.argmax(bad))
        raise ValueError(f"each entry of stream must be 0 or 1 ({_BIT_NOTE}); got "
                         f"{array[index].item()!r} at index {index}")
    return array.astype(np.int64, copy=False)


def check_horizon(T) -> int:
    """T, the number of time steps a counter serves (the leaves of a tree counter)."""
    return require_int("T", T, low=1, note="the number of time steps the counter serves")


# ----------------------------------------------------------------------------------------
# The dyadic tree (Local-mechanisms notes, §2), shared with PPCum (Local-mechanisms notes, §3)
# ----------------------------------------------------------------------------------------

def tree_levels(T) -> int:
    """L, the number of noisy levels of the tree for a stream of length T: ceil(log2 T), and 1
    for T = 1.

    The tree has 2^L >= T leaves; its levels 0 (leaves) .. L - 1 carry noise; the root (level
    L, the interval [1, 2^L]) is never needed: [1, t] for t < 2^L is a union of nodes below
    it, and at t = T = 2^L we use its two children. So each x_i lies in exactly L noisy nodes.
    """
    T = check_horizon(T)
    return max(1, (T - 1).bit_length())


def node_level(node) -> int:
    """The level j of a node (s, e) of size e - s + 1 = 2^j (0 for a leaf)."""
    try:
        s, e = node
        s, e = require_int("s", s, low=1), require_int("e", e, low=1)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"node must be a pair (s, e) of time steps >= 1; got {node!r} ({exc})") from None
    size = e - s + 1
    if size < 1 or size & (size - 1) or (s - 1) % size:
        raise ValueError(f"node must be a dyadic interval (s, e): e - s + 1 = 2^j and s - 1 a "
                         f"multiple of 2^j; got {node!r}")
    return size.bit_length() - 1


def tree_nodes(T) -> list:
    """Every noisy node of the tree for a stream of length T: all dyadic intervals
    (m 2^j + 1, (m + 1) 2^j) at levels j = 0 .. L - 1 that start at or before T, by level
    then left to right. For T a power of two, the 2T - 2 nodes of the full tree minus the root.

    A node may end after T when T is not a power of two (e.g. (5, 8) for T = 5): Cum never
    completes it, PPCum uses its noise (Local-mechanisms notes, §3: "for each node I of T except the root").
    """
    L = tree_levels(T)
    return [(m * 2**j + 1, (m + 1) * 2**j) for j in range(L) for m in range(-(-T // 2**j))]


def dyadic_intervals(t, T) -> list:
    """The nodes whose disjoint union is [1, t], left to right (largest first).

    Local-mechanisms notes, §2: "Follow the leftmost path until you reach the first interval contained in [1, t],
    take this interval, then recurse on the subtree rooted by its sibling": one node per
    1-bit of t (the node of level j ends at the prefix of t's bits down to bit j). The one
    exception is t = T = 2^L, whose rule would take the root: we take the root's two
    children instead (see `tree_levels`). Example: dyadic_intervals(11, 16) =
    [(1, 8), (9, 10), (11, 11)]; dyadic_intervals(16, 16) = [(1, 8), (9, 16)].
    """
    L = tree_levels(T)
    t = require_int("t", t, low=1, high=T, note=f"a time step of a stream of length T = {T}")
    if t == 2**L:  # only when T = 2^L: the root's two children
        return [(1, t // 2), (t // 2 + 1, t)]
    nodes, start = [], 1
    for j in range(L - 1, -1, -1):
        if t >> j & 1:
            nodes.append((start, start + 2**j - 1))
            start += 2**j
    return nodes


def nodes_containing(i, T) -> list:
    """The L noisy nodes that contain time step i, from its leaf {i} up to level L - 1 (the
    ancestors of leaf i, without the root; Local-mechanisms notes, §3's "I: t in I")."""
    L = tree_levels(T)
    i = require_int("i", i, low=1, high=T, note=f"a time step of a stream of length T = {T}")
    return [(((i - 1) >> j << j) + 1, ((i - 1) >> j << j) + 2**j) for j in range(L)]


def decomposition_sizes(T) -> np.ndarray:
    """k(t) = len(dyadic_intervals(t, T)) for t = 1..T, vectorised: the number of 1-bits of
    t, and 2 at t = T = 2^L. (An int64 array of length T.)"""
    L = tree_levels(T)
    k = _popcount(np.arange(1, T + 1, dtype=np.int64))
    if T == 2**L:
        k[-1] = 2
    return k


def _popcount(values: np.ndarray) -> np.ndarray:
    """The number of 1-bits of each non-negative int64 (np.bitwise_count on numpy >= 2)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(values).astype(np.int64)
    values, count = values.copy(), np.zeros(values.shape, dtype=np.int64)
    while values.any():
        count += values & 1
        values >>= 1
    return count


def _lowest_level(t: int, L: int) -> int:
    """The level of the one node that Cum completes at step t: v2(t), the number of trailing
    zero bits of t, capped at L - 1 (at t = 2^L the root's right child)."""
    return min((t & -t).bit_length() - 1, L - 1)


def _prefix_over_nodes(values: np.ndarray, t_end: int, L: int, shift: int = 0) -> np.ndarray:
    """C[t] = sum of v(e) over the ends e of the nodes of dyadic_intervals(t, T), for
    t = 0 .. t_end (C[0] = 0), where v(e) = values[e - shift] belongs to the node of level
    `_lowest_level(e, L)` that ends at e (so `values` covers e = shift .. t_end).

    The nodes of [1, t] end at t, t - lowbit(t), ..., so C[t] = C[t & (t - 1)] + v(t)
    (a Fenwick-tree prefix). Computed coarse to fine: the positions that are odd multiples of
    2^j get C of the position 2^j before them plus their own value; O(t_end) in all, with
    no copy of `values`. The exception t = 2^L (= T) takes the root's children:
    C[T] = C[T/2] + v(T).
    """
    top = 2**L
    C = np.empty(t_end + 1)
    C[0] = 0.0
    last = min(t_end, top - 1)                 # positions below 2^L follow the recurrence
    for j in range(max(last.bit_length() - 1, 0), -1, -1):
        s = 1 << j
        count = (last // s + 1) // 2           # odd multiples of s up to `last`
        if count:
            np.add(C[0:2 * s * count:2 * s], values[s - shift::2 * s][:count],
                   out=C[s::2 * s][:count])
    if t_end == top:
        C[top] = C[top // 2] + values[top - shift]
    return C

def _ones_through(k, t0: int, held: dict, cumulative: np.ndarray) -> np.ndarray:
    """Ones in [1, k] for an int array k, in a run that continues after step t0
    (`cumulative` = np.cumsum of the run's elements): for k >= t0 the held total plus the
    ones among the run's first k - t0 elements; for k < t0, k must end a held node of
    [1, t0] (`held`: node -> exact count), as the start - 1 of every node that straddles t0
    does."""
    k = np.asarray(k, dtype=np.int64)
    total = sum(held.values())
    out = np.empty(k.shape, dtype=np.int64)
    late = k >= t0
    steps = k[late] - t0
    out[late] = total + np.where(steps > 0, cumulative[np.maximum(steps, 1) - 1], 0)
    if not late.all():
        through, running = {0: 0}, 0
        for (s, e), value in sorted(held.items()):
            running += value
            through[e] = running
        out[~late] = [through[int(v)] for v in k[~late]]
    return out

# ----------------------------------------------------------------------------------------
# The simple solution (Dwork 2010, §6)
# ----------------------------------------------------------------------------------------

class FixedHorizonCounter(ContinualCounter):
    """A counter that serves a known number T of steps (the tree counters): its releases are
    calibrated to T, so it refuses step T + 1 rather than answer with the wrong noise."""

    T: int
    epsilon: float
    _t: int = 0

    def _params(self) -> dict:
        return {"T": self.T, "epsilon": self.epsilon}

    def _take(self, stream) -> np.ndarray:
        """`stream` as 0/1 int64, after checking the counter has room for all of it."""
        x = as_bit_stream(stream)
        self._check_room(x.size)
        return x

    def _check_room(self, steps: int) -> None:
        if self._t + steps > self.T:
            raise ValueError(f"T = {self.T} is the number of steps this counter serves; got step "
                             f"t = {self._t + steps} (valid steps: 1..{self.T}; "
                             f"{self.T - self._t} left)")


class SimpleCounter(ContinualCounter):
    """The simple solution of Dwork 2010, §6: noise every step, release the running sum.

    Estimates: n_t = x_1 + ... + x_t at every step t.
    mechanism="laplace" (the default): at step t add x_t + Lap(1/epsilon) to the output, so
    release_t = n_t + Y_1 + ... + Y_t with Y_s i.i.d. Lap(1/epsilon).
    mechanism="randomized_response" (Dwork 2010, §6's variant with the bits of §4): at step t draw
    y_t from D_0 = Bernoulli(1/2) if x_t = 0 and D_1 = Bernoulli((1 + bias)/2) if x_t = 1 (the
    course's one convention for a bias b: a coin favours one side with probability (1 + b)/2),
    keep the running sum of the y's and release the unbiased estimate
    2 (y_1 + ... + y_t - t/2) / bias.

    Privacy: event-level (streams differing in one step), epsilon-DP for all T releases
    together, and pan-private against any number of intrusions: each x_t touches exactly one
    noisy term, used once; the state is the running sum of noisy terms, already public.
    For randomized response the exact privacy is ln max(P(y | x = 1)/P(y | x = 0), ...) =
    -ln(1 - bias) (the outcome y = 0: (1/2)/((1 - bias)/2)); `epsilon` given, bias =
    1 - e^-epsilon; `bias` given, epsilon = -ln(1 - bias). Dwork 2010's D_1 = 1/2 + epsilon/4
    of §4 is bias = epsilon/2, hence privacy -ln(1 - epsilon/2), about epsilon/2.
    In floating point: y_t = 1 for x_t = 1 when numpy's uniform (a multiple of 2^-53) is below
    t_1, (1 + bias)/2 rounded DOWN onto that grid, with 1/(2(1 - t_1)) <= e^epsilon checked in
    fractions (against 1/(1 - bias) when `bias` is given, a lower bound of e^epsilon when
    `epsilon` is), so the privacy is exactly `implemented_epsilon` <= epsilon. (Comparing with
    the float (1 + bias)/2 gave up to epsilon + 0.31 near epsilon = 35, and epsilon = ∞ from
    epsilon ≈ 36.3, where (1 + bias)/2 rounds to 1.) The releases keep the real-number bias.
    Accuracy: unbiased; the error at t is a sum of t independent terms, so
    Var = 2t/epsilon^2 (Laplace) and t/bias^2 - n_t (randomized response), both about
    t/epsilon^2 up to a constant: Dwork 2010's "O(sqrt(t)/epsilon)" is this standard deviation,
    sqrt(2t)/epsilon, and by the central limit theorem the error is about Gaussian with it
    for large t (`variance`). The error does not depend on the number of ones: on a sparse
    stream (n_t << sqrt(t)/epsilon) the count is drowned in noise.
    Source: Dwork 2010, §6, "A Simple Solution".
    """

    def __init__(self, epsilon=None, rng=None, *, mechanism="laplace", bias=None):
        if mechanism not in ("laplace", "randomized_response"):
            raise ValueError("mechanism must be 'laplace' or 'randomized_response' (Dwork 2010, §6's two "
                             f"simple solutions); got {mechanism!r}")
        self.mechanism = mechanism
        if mechanism == "laplace":
            if bias is not None:
                raise ValueError("bias is a parameter of mechanism='randomized_response' only; "
                                 f"got bias={bias!r} with mechanism='laplace'")
            self.epsilon = require_epsilon(epsilon)
            self.bias = None
        elif (epsilon is None) == (bias is None):
            raise ValueError("randomized response needs exactly one of epsilon (the privacy) and "
                             f"bias (P(y = 1 | x = 1) = (1 + bias)/2); got epsilon={epsilon!r}, "
                             f"bias={bias!r}")
        elif bias is not None:
            self.bias = require_real("bias", bias, low=0.0, high=1.0, low_open=True,
                                     high_open=True, note="D_1 = Bernoulli((1 + bias)/2) must "
                                     "differ from D_0 = Bernoulli(1/2) and not be a point mass")
            self.epsilon = -math.log1p(-self.bias)
            self._one = threshold_below((1 + Fraction(self.bias)) / 2)   # P(y = 1 | 1)
        else:
            self.epsilon = require_epsilon(epsilon)
            self.bias = -math.expm1(-self.epsilon)
            e_epsilon = exp_lower_bound(self.epsilon)                                # <= e^ε
            self._one = threshold_below(1 - 1 / (2 * e_epsilon))
        self._rng = as_rng(rng)
        if mechanism == "laplace":
            self._laplace = LaplaceNoise(1.0, self.epsilon)   # float-safe Lap(1/epsilon)
        self._t = 0
        self._sum = 0.0   # Laplace: the noisy running sum; RR: the number of y's equal to 1

    @property
    def implemented_epsilon(self) -> float:
        """Randomized response: the privacy the code really has, -ln(2(1 - t_1)) with
        t_1 = P(y = 1 | x = 1) exactly (the ratio at y = 0; at y = 1 it is 2 t_1, smaller).
        Laplace: `epsilon` (its noise is float-safe, `noise.LaplaceNoise`)."""
        if self.mechanism == "laplace":
            return self.epsilon
        return abs(math.log(2 * (1 - Fraction(self._one))))

    def _params(self) -> dict:
        params = {"epsilon": self.epsilon, "mechanism": self.mechanism}
        if self.bias is not None:
            params["bias"] = self.bias
        return params

    def _release(self, total, t):
        if self.mechanism == "laplace":
            return total
        return 2 * (total - t / 2) / self.bias

    def _step(self, x) -> float:
        x = as_bit(x)
        self._t += 1
        if self.mechanism == "laplace":
            self._sum += x + self._laplace.noise(None, self._rng)
        else:
            self._sum += int(self._rng.random() < (self._one if x else 0.5))
        return self._release(self._sum, self._t)

    def run(self, stream) -> np.ndarray:
        """All releases, vectorised. It draws the same numbers in the same order as repeated
        `step` (one Laplace or one uniform per element), so with the same rng it returns the
        same releases (up to floating-point rounding of the running sum)."""
        x = as_bit_stream(stream)
        if x.size == 0:
            return np.zeros(0)
        if self.mechanism == "laplace":
            totals = self._sum + np.cumsum(x + self._laplace.noise(x.size, self._rng))
        else:
            ones = self._rng.random(x.size) < np.where(x == 1, self._one, 0.5)
            totals = self._sum + np.cumsum(ones)
        times = self._t + np.arange(1, x.size + 1)
        self._t += x.size
        self._sum = float(totals[-1]) if self.mechanism == "laplace" else int(totals[-1])
        releases = self._release(totals.astype(float), times)
        self._last_release = float(releases[-1])
        return releases

    def variance(self, t, n_t=0):
        """The exact variance of release t: 2t/epsilon^2 (Laplace) or t/bias^2 - n_t
        (randomized response, n_t = the number of ones among x_1..x_t). Vectorised."""
        t = np.asarray(t, dtype=float)
        if self.mechanism == "laplace":
            return 2 * t / self.epsilon**2
        return t / self.bias**2 - np.asarray(n_t, dtype=float)

    def state(self) -> dict:
        """{"t", "noisy_sum"} (Laplace: the last release) or {"t", "ones_reported"} (RR)."""
        key = "noisy_sum" if self.mechanism == "laplace" else "ones_reported"
        return {"t": self._t, key: self._sum}


# ----------------------------------------------------------------------------------------
# The binary tree mechanism Cum (Local-mechanisms notes, §2)
# ----------------------------------------------------------------------------------------

def _laplace_sum_tail(lam, m, b):
    """The Chernoff bound P[Y_1 + ... + Y_m >= lam] <= min_s exp(-s lam) (1 - s^2 b^2)^-m for
    i.i.d. Lap(b) (E exp(sY) = 1/(1 - s^2 b^2), |s| < 1/b), at the optimal
    s = (sqrt(m^2 b^2 + lam^2) - m b) / (lam b). Vectorised over lam and m."""
    lam = np.asarray(lam, dtype=float)
    m = np.asarray(m, dtype=float)
    s = (np.sqrt(m**2 * b**2 + lam**2) - m * b) / (lam * b)
    return np.exp(-s * lam - m * np.log1p(-(s * b) ** 2))


class BinaryTreeCounter(FixedHorizonCounter):
    """Cum, the binary tree mechanism (Local-mechanisms notes, §2).

    Estimates: q_t = x_1 + ... + x_t at every step t = 1..T, online.
    Mechanism: every node I of the dyadic tree below the root (L = `tree_levels(T)` =
    ceil(log2 T) levels) gets X_I = sum_{i in I} x_i + N_I with N_I i.i.d. Lap(L/epsilon);
    release t = sum of X_I over `dyadic_intervals(t, T)` (at most L nodes, 2 for T = 2;
    all complete at t).
    Privacy: epsilon-DP for all T releases together, event-level neighbours (streams in
    {0, 1}^T differing in one step; Dwork 2010, §1), against the releases only (Thm 3): the releases
    are computed from the X_I, and x_i lies in exactly L nodes (one per level), so the node
    vector has L1 sensitivity L and Lap(L/epsilon) per node makes it epsilon-DP. NOT
    pan-private: the state holds exact sums (`state`); PPCum (Local-mechanisms notes, §3) is the pan-private one.
    Accuracy: release t is unbiased with variance 2 (L/epsilon)^2 k(t), k(t) =
    `decomposition_sizes(T)[t - 1]` <= L (`variance`); with probability >= 1 - beta all T
    releases are within `error_bound(beta)` = O(L^(3/2) sqrt(log(T/beta)) / epsilon) =
    O(log^2 T / epsilon) for beta = 1/T (Thms 4-5).
    Source: Local-mechanisms notes, §2, "Mechanism Cum(x)", Thms 3-5.
    Corrections:
    - "the full binary tree with n nodes" has n leaves and 2n - 1 nodes.
    - Thm 3's proof counts "exactly log n + 1 outputs ... (including {i} itself but not the
      root)" and concludes "log n-Lipschitz". A leaf has log n + 1 ancestors including
      itself and the root, log n without the root. The decomposition rule of §2 takes the
      root at t = n, so Cum as written has sensitivity log n + 1 and is only
      (1 + 1/log n) epsilon-DP. Here the root is never noised: at t = T = 2^L we use its two
      children, so each x_i is in exactly L noisy nodes and Lap(L/epsilon) pays for exactly
      that (tests count it, and compute the exact epsilon of all releases).
    - n need not be a power of two: the tree over 2^L >= T leaves has L = ceil(log2 T) noisy
      levels; the root is not needed since t <= T < 2^L.
    - Thm 4 (from Chan, Shi, Song 2011, Lemma 2.8) holds for 0 < d < 2 sqrt(2m), not
      "d < b sqrt(m)"; the union bound of Thm 5 needs d ~ sqrt(8 ln(2T/beta)), outside that
      range whenever ln(2T/beta) > log2 T: always for Thm 5's beta = 1/T, and for T below
      about 2^12 at beta = 0.05. `error_bound` uses the exact Chernoff bound from the Laplace
      moment generating function instead, valid for every deviation.
    Implementation: the only nodes any release uses are those of `dyadic_intervals`, and
    exactly one of them ends at each step t (the node of level min(v2(t), L - 1) ending at t,
    v2 = the number of trailing zero bits). The other nodes (right children) would never be
    used, so their noise is not drawn: the releases have the same distribution. `step`
    draws one Laplace number per step; the vectorised `run` draws the same numbers in the
    same order, so both give the same releases from the same rng.
    """

    def __init__(self, T, epsilon, rng=None):
        self.T = check_horizon(T)
        self.epsilon = require_epsilon(epsilon)
        self.levels = tree_levels(self.T)           # L
        self._laplace = LaplaceNoise(self.levels, self.epsilon)   # float-safe Lap(L/epsilon)
        self.scale = self._laplace.scale            # b ≈ L / epsilon, the Laplace scale per node
        self._rng = as_rng(rng)
        self._t = 0
        self._exact = {}   # node -> exact sum, for the nodes of dyadic_intervals(t, T)
        self._noisy = {}   # node -> X_I = exact sum + N_I, same nodes

    def _step(self, x) -> float:
        x = as_bit(x)
        self._check_room(1)
        t = self._t + 1
        j = _lowest_level(t, self.levels)
        node = (t - 2**j + 1, t)
        # The held nodes inside `node` are [1, t-1]'s nodes of levels < j: node = them + {t}.
        inside = [I for I in self._exact if I[0] >= node[0]]
        exact = x + sum(self._exact.pop(I) for I in inside)
        for I in inside:
            del self._noisy[I]
        self._exact[node] = exact
        self._noisy[node] = exact + self._laplace.noise(None, self._rng)
        self._t = t
        return sum(self._noisy.values())

    def run(self, stream) -> np.ndarray:
        """All releases, vectorised: one Laplace draw per step (as `step`), the noise of each
        release summed over its nodes by `_prefix_over_nodes` in O(T), plus the exact
        prefix counts. Continues from the current step, like repeated `step`."""
        x = self._take(stream)
        n = x.size
        if n == 0:
            return np.zeros(0)
        t0, t_end = self._t, self._t + n
        draws = self._laplace.noise(n, self._rng)            # N of the node ending at t0 + 1, ...
        if t0 == 0:
            noise, shift = draws, 1                           # noise of the node ending at e: draws[e - 1]
        else:
            noise, shift = np.zeros(t_end + 1), 0
            for (s, e), value in self._noisy.items():         # the held nodes' noise
                noise[e] = value - self._exact[(s, e)]
            noise[t0 + 1:] = draws
        counts = np.cumsum(x)                                 # counts[k - 1] = ones in x[:k]
        releases = _prefix_over_nodes(noise, t_end, self.levels, shift)[t0 + 1:]
        releases += counts
        if self._exact:
            releases += sum(self._exact.values())
        # The state after step t_end: the nodes of [1, t_end] with their exact and noisy sums.
        nodes = dyadic_intervals(t_end, self.T)
        new = [(s, e) for s, e in nodes if (s, e) not in self._exact]
        through = _ones_through(np.array([s - 1 for s, _ in new] + [e for _, e in new]), t0,
                                self._exact, counts).tolist()   # all new nodes in one call
        new_exact = dict(zip(new, (b - a for a, b in zip(through, through[len(new):]))))
        exact, noisy = {}, {}
        for s, e in nodes:
            if (s, e) in self._exact:
                exact[(s, e)], noisy[(s, e)] = self._exact[(s, e)], self._noisy[(s, e)]
            else:
                exact[(s, e)] = new_exact[(s, e)]
                noisy[(s, e)] = exact[(s, e)] + float(noise[e - shift])
        self._exact, self._noisy, self._t = exact, noisy, t_end
        self._last_release = float(releases[-1])
        return releases

    def variance(self, t):
        """The exact variance of release t: V k(t), k(t) the number of nodes of [1, t] and V
        the variance of one node's float-safe noise, 2 (L/epsilon)^2 within 2^-10 relative
        (a sum of k(t) independent draws). Vectorised over t in 1..T."""
        t = np.asarray(t)
        k = decomposition_sizes(self.T)[np.asarray(t, dtype=np.int64) - 1]
        return self._laplace.variance * k

    def error_bound(self, beta):
        """lambda such that, with probability >= 1 - beta, |release_t - q_t| <= lambda for
        all t = 1..T at once (Thm 5 with explicit constants).

        A union bound over t and the two signs of the Chernoff bound `_laplace_sum_tail`
        (Markov's inequality on the exponential, with the exact Laplace moment-generating
        function; the Local-mechanisms notes' Thm 4 without its approximations) for the k(t)
        node noises of release t: sum_t 2 P[sum of k(t) Lap(b) >= lambda] <= beta, solved by bisection.
        It grows like L^(3/2) sqrt(log(T/beta)) / epsilon: O(log^2 T/epsilon) at beta = 1/T.
        """
        beta = require_probability("beta", beta)
        sizes, counts = np.unique(decomposition_sizes(self.T), return_counts=True)
        b = self.scale

        def failure(lam):
            return float(np.sum(2 * counts * _laplace_sum_tail(lam, sizes, b)))

        return _smallest_where(lambda lam: failure(lam) > beta, start=b, floor=1e-9 * b,
                              iterations=100)

    def state(self) -> dict:
        """{"t", "exact": {node: exact sum}, "noisy": {node: X_I}} for the nodes of [1, t]:
        everything Cum keeps to answer later steps. The exact sums are why Cum is not
        pan-private."""
        return {"t": self._t, "exact": dict(self._exact), "noisy": dict(self._noisy)}


# ----------------------------------------------------------------------------------------
# The cascading buffers counter (Dwork 2010, §6, Fig. 2)
# ----------------------------------------------------------------------------------------

class CascadingBuffersCounter(ContinualCounter):
    """The cascading buffers counter of Dwork 2010, Fig. 2: a counter whose noise grows with
    the number of ones, not with time.

    Estimates: n_t = x_1 + ... + x_t at every step t (the release is ocount).
    Mechanism (Fig. 2, with the paper's names): d levels, each with an accumulator a_i (the
    count of ones since level i's last flush, initialised and reset to Lap(1/epsilon)), a
    buffer b_i (a noisy count that decides WHEN to flush) and u_i (updates since the last
    flush). Each x_t is added to every a_i, and b_1 <- b_1 + x_t + Lap(1/epsilon). A buffer
    update of level i with input x adds x + Lap(1/epsilon) to b_i and 1 to u_i; then if
    b_i >= ell or u_i >= (ell epsilon / (4 kappa))^2 (`max_updates`), level i flushes: it
    sends a_i as a buffer update to level i + 1 (for i = d: ocount <- ocount + a_d +
    Lap(1/epsilon)), and resets a_i <- Lap(1/epsilon), b_i <- 0, u_i <- 0. The buffer decides
    when, the accumulator what.
    Privacy: (2d + 1) epsilon event-level pan-privacy (Thm 6.1): one intrusion at any time
    plus all releases, for streams differing in one step. x_t enters b_1 with its own noise
    (epsilon) and the d accumulators, each protected by its initial noise in the state
    (d epsilon) and by fresh noise whenever it is released (d epsilon). `total_epsilon` =
    (2d + 1) epsilon; `from_T` divides a target epsilon by 2d + 1.
    Accuracy (Thm 6.1): error O(d ell + sqrt(t)/(ell epsilon/4 kappa)^d + ...) with
    probability 1 - exp(-kappa): at most about d ell ones are trapped in the buffers, and
    ocount gets one pair of Lap(1/epsilon) per output update. Claim 6.2: |b_i - n_i| <= 2 i ell
    (n_i = ones since level i's last flush). Claim 6.1: the number of flushes of level i is
    at most B_i = T/U^i + 2n/ell * U/(U - 1) (U = `max_updates`, n = ones in the stream;
    see the correction below).
    Source: Dwork 2010, §6, Fig. 2, Thm 6.1, Claims 6.1-6.2, Cor 6.1.
    Corrections and readings:
    - "u_i = (ell epsilon/4 kappa)^2" is a real number that u_i may never equal; we flush when
      u_i >= (ell epsilon/4 kappa)^2 (so every update flushes when it is below 1).
    - The input of a buffer update at level i >= 2 is the accumulator a_{i-1}, a real number
      (it carries its Laplace initialisation), not an element of {0, 1, ...}.
    - Claim 6.1's proof bounds the buffer-overflow flushes of each level by 2n/U (U =
      (ell epsilon/4 kappa)^2). An overflow needs at least ell/2 ones when the noise stays
      below ell/2 (Claim 6.2's invariant), so the right count is 2n/ell; the two agree in
      the regime of Cor 6.1 (ell >> U) but 2n/U is wrong when U > ell (tests measure it).
    - Cor 6.1 sets epsilon' = epsilon/log T with d = O(log T): the privacy (2d + 1) epsilon'
      is epsilon only if 2d + 1 <= log T. `from_T` uses epsilon' = epsilon/(2d + 1).
    Implementation: `step` follows Fig. 2 line by line. `run` is vectorised along level 1
    (its buffer increments x_t + Lap are drawn at once and the next flush found by a search
    of their running sum); the rarer flushes go through the same `_flush` as `step`. It
    draws the same kinds of noise for the same events, in a different order, so its releases
    have the same distribution. `flushes` counts the flushes of each level (bookkeeping for
    experiments, not part of Fig. 2's memory, and not in `state()`).
    """

    def __init__(self, epsilon, d, ell, kappa, rng=None):
        self.epsilon = require_epsilon(epsilon, note="the epsilon of every Laplace draw of Fig. 2")
        self.d = require_int("d", d, low=1, note="Fig. 2 has d >= 1 levels of buffers")
        self.ell = require_real("ell", ell, low=0.0, high=math.inf, low_open=True, high_open=True,
                                note="the flush threshold of the buffers, Fig. 2")
        self.kappa = require_real("kappa", kappa, low=0.0, high=math.inf, low_open=True,
                                  high_open=True, note="Thm 6.1's confidence exp(-kappa)")
        ratio = self.ell * self.epsilon / (4 * self.kappa)
        self.max_updates = ratio ** 2 if ratio < 1e150 else math.inf   # U (inf: never by count)
        self.total_epsilon = (2 * self.d + 1) * self.epsilon
        self._rng = as_rng(rng)
        self._laplace = LaplaceNoise(1.0, self.epsilon)   # float-safe Lap(1/epsilon)
        # a_i <- Lap(1/epsilon): d single draws, the same numbers as one array of d, without
        # the array sampler's per-call cost (about 10 single draws)
        self._a = [self._laplace.noise(None, self._rng) for _ in range(self.d)]
        self._b = [0.0] * self.d
        self._u = [0] * self.d
        self._ocount = 0.0
        self._t = 0
        self.flushes = np.zeros(self.d, dtype=np.int64)

    @classmethod
    def from_T(cls, T, epsilon, rng=None):
        """The counter for streams of length <= T with total privacy `epsilon`, in the shape
        of Cor 6.1 (d = O(log T), ell = O(log^3 T / epsilon), kappa = O(log^2 T)) with
        constants chosen by experiment (lecture 04; a grid over T = 2^10 .. 2^18, sparse and
        dense streams, minimising the error on sparse streams while never doing worse than
        the simple counter on dense ones), with lg = log2 T (at least 4):
            d = ceil(lg / 10),  epsilon' = epsilon / (2d + 1),
            ell = lg^3 / (24 epsilon),  kappa = lg^2 / 256,
        so that U = (ell epsilon' / 4 kappa)^2 = (8 lg / (3 (2d + 1)))^2 (about 73 at
        T = 2^16). Privacy: exactly `epsilon` (Thm 6.1 with epsilon'). kappa is below 1 for
        T < 2^16: Thm 6.1's exp(-kappa) is then no guarantee, and the accuracy is what the
        experiments measure.
        """
        T = check_horizon(T)
        epsilon = require_epsilon(epsilon)
        lg = max(math.log2(T), 4.0)
        d = math.ceil(lg / 10)
        each, ell = epsilon / (2 * d + 1), lg**3 / (24 * epsilon)
        if not (each > 0 and 0 < ell < math.inf):
            raise ValueError(f"epsilon must give positive finite epsilon' = epsilon/(2d + 1) and "
                             f"ell = log2(T)^3/(24 epsilon) (about 1e-300 < epsilon < 1e300); got "
                             f"epsilon={epsilon!r} (epsilon' = {each!r}, ell = {ell!r})")
        return cls(each, d, ell, lg**2 / 256, rng)

    def _params(self) -> dict:
        return {"epsilon": self.epsilon, "d": self.d, "ell": self.ell, "kappa": self.kappa}

    def _accumulator_noise(self) -> float:
        """The Lap(1/epsilon) an accumulator starts from (what makes a_i pan-private)."""
        return self._laplace.noise(None, self._rng)

    def _buffer_update(self, i: int, x: float) -> None:
        """Fig. 2, "Buffer update for level i, input x" (levels are 0-based here)."""
        self._b[i] += x + self._laplace.noise(None, self._rng)
        self._u[i] += 1
        if self._b[i] >= self.ell or self._u[i] >= self.max_updates:
            self._flush(i)

    def _flush(self, i: int) -> None:
        if i == self.d - 1:
            self._ocount += self._a[i] + self._laplace.noise(None, self._rng)
        else:
            self._buffer_update(i + 1, self._a[i])
        self._a[i] = self._accumulator_noise()
        self._b[i] = 0.0
        self._u[i] = 0
        self.flushes[i] += 1

    def _step(self, x) -> float:
        x = as_bit(x)
        self._t += 1
        for i in range(self.d):
            self._a[i] += x
        self._buffer_update(0, x)
        return self._ocount

    def run(self, stream) -> np.ndarray:
        """All releases; level 1 vectorised (see the class docstring). Continues from the
        current state, like repeated `step`."""
        x = as_bit_stream(stream)
        n = x.size
        releases = np.empty(n)
        if n == 0:
            return releases
        counts = np.concatenate(([0], np.cumsum(x)))                # ones in x[:k]
        level1 = np.concatenate(([0.0], np.cumsum(x + self._laplace.noise(n, self._rng))))
        base = list(self._a)     # a_i = base[i] + counts[k] - counts[since[i]] after k elements
        since = [0] * self.d
        pos = 0                  # elements processed so far
        while pos < n:
            # Level 1 flushes at the first k > pos where b_1 + (level1[k] - level1[pos]) >= ell,
            # or when u_1 reaches max_updates, at k = pos + forced.
            left = self.max_updates - self._u[0]     # (inf when U is: no forced flush)
            forced = max(1, math.ceil(left)) if left <= n else n + 1   # n + 1: not in this run
            last = min(n, pos + forced)
            need = self.ell - self._b[0] + level1[pos]
            k = _first_at_least(level1, pos + 1, last, need)
            if k is None and pos + forced > n:      # no flush before the end of the stream
                releases[pos:] = self._ocount
                self._b[0] += level1[n] - level1[pos]
                self._u[0] += n - pos
                pos = n
                break
            k = last if k is None else k
            releases[pos:k - 1] = self._ocount
            for i in range(self.d):                 # the accumulators at step k
                self._a[i] = base[i] + counts[k] - counts[since[i]]
            self._b[0] += level1[k] - level1[pos]
            self._u[0] += k - pos
            self._flush(0)
            base, since = list(self._a), [k] * self.d
            releases[k - 1] = self._ocount
            pos = k
        for i in range(self.d):
            self._a[i] = float(base[i] + counts[n] - counts[since[i]])
        self._t += n
        self._last_release = float(releases[-1])
        return releases

    def state(self) -> dict:
        """{"a", "b", "u", "ocount"}: the accumulators a_i, buffers b_i, update counts u_i
        (lists over the levels i = 1..d) and the output counter: Fig. 2's whole memory."""
        return {"a": [float(v) for v in self._a], "b": [float(v) for v in self._b],
                "u": [int(v) for v in self._u], "ocount": float(self._ocount)}


def _first_at_least(values: np.ndarray, lo: int, hi: int, threshold: float):
    """The first index k in [lo, hi] with values[k] >= threshold, or None; scans in doubling
    chunks, so the cost is proportional to the distance to the answer."""
    size = 64
    while lo <= hi:
        top = min(hi, lo + size - 1)
        hits = values[lo:top + 1] >= threshold
        if hits.any():
            return lo + int(np.argmax(hits))
        lo, size = top + 1, size * 2
    return None
