"""The intrusion decoding attack: why an accurate streaming algorithm cannot be pan-private
(Mir et al. 2011, §4: Thm 12 and Cors 1-4).

One intrusion copies the state X after a stream S with binary state vector a (a_i = 1 iff
user i appeared). The state is a "sanitization" of a: the attacker continues copies of the
algorithm from X, in simulation and with its own coins, on query streams S' (the users of a
random set q), and reads each copy's answer. For the distinct count, inclusion–exclusion
turns it into a subset sum: D(S ∪ S') = |a| + |q| − a·q, i.e. D(S ∪ S') − |q| = a·(1 − q),
a dot product with the complement of q. Thousands of such noisy subset sums decode a by LP
(`reconstruction.reconstruct_lp`, Mir et al. 2011, Thm 9). If the answers err by o(√m), most of a
comes out, which no ε-pan-private state allows; so pan-private algorithms err by Ω(√m).

Also here: `AccurateDistinctCount`, the accurate strawman (exact count, DP output, raw
state); `UnreliableCount`, an exact count that fails with a constant probability per release
(the target of Thm 13 and Cors 3-4); and the helpers to clone an algorithm with fresh coins and to read its answers as
linear measurements of a.
"""
from __future__ import annotations

import copy
import types

import numpy as np

from panpriv_teach import noise
from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.cropped import heavy_hitters
from panpriv_teach.mechanisms import laplace_mechanism
from panpriv_teach.reconstruction import query_budget, random_queries, reconstruct_lp
from panpriv_teach.stable import _totals, _update_args
from panpriv_teach.validation import (require_array, require_epsilon, require_in_universe,
                                      require_int, require_real)

__all__ = ["AccurateDistinctCount", "UnreliableCount", "UNRELIABLE_STATISTICS", "clone_with_fresh_coins", "distinct_statistic",
           "cropped_sum_statistic", "attack_model", "intrusion_measurements",
           "intrusion_decoding_attack"]


# ----------------------------------------------------------------------------------------
# The accurate strawman
# ----------------------------------------------------------------------------------------

class AccurateDistinctCount(StreamAlgorithm):
    """The number of distinct users of a stream, kept exactly; output D + Lap(1/ε).

    Privacy: the OUTPUT is ε-DP for user-level neighbours (one user moves D by at most 1).
    The state is the set of users seen (a 0/1 vector over the universe): not pan-private
    for any ε. Accuracy: error Lap(1/ε), standard deviation √2/ε, whatever the universe
    size m: far below √m. This is the "accurate" algorithm of Thm 12 / Cor 1 of Mir et al.
    2011 (Mir et al. 2011): the intrusion decoding attack recovers the stream from its state
    without reading the state's meaning, only by running copies of it.

    Parameters
    ----------
    universe_size : m; users are 0 .. m − 1.
    epsilon : the privacy of each output.
    """

    def __init__(self, universe_size, epsilon=1.0, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.epsilon = require_epsilon(epsilon)
        self._rng = as_rng(rng)
        self.seen = np.zeros(self.universe_size, dtype=np.uint8)

    def update(self, x) -> None:
        x = require_int("x", x, low=0, high=self.universe_size - 1,
                        note=f"the universe has {self.universe_size} users")
        self.seen[x] = 1

    def process(self, stream) -> None:
        """Mark every user of `stream` (the same as `update` on each: marking is idempotent)."""
        stream = require_in_universe("stream", require_array("stream", stream, integer=True, ndim=1),
                                     self.universe_size)
        self.seen[stream] = 1

    def output(self) -> float:
        """D + Lap(1/ε), fresh noise at every call."""
        return laplace_mechanism(int(self.seen.sum()), 1, self.epsilon, self._rng)

    def state(self) -> dict:
        """The users seen: {"seen": 0/1 vector over the universe}."""
        return {"seen": self.seen.copy()}

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "epsilon": self.epsilon}


UNRELIABLE_STATISTICS = ("distinct", "heavy_hitters")


class UnreliableCount(StreamAlgorithm):
    """An exact count of a fully dynamic stream that fails with probability β per release: the
    algorithm Mir et al. 2011, Thm 13 and Cors 3-4 rule out (accurate "with probability at least
    1 − δ", δ their name for β).

    Reads updates (i, d) and keeps the count vector a, raw (so it is not pan-private for any ε;
    the point is what an intruder can prove without looking at it). Each `output()` flips its
    own coin: with probability 1 − β it is the exact statistic plus Lap(1/ε) —
    `statistic="distinct"`: D = |{i : a_i ≠ 0}|; `"heavy_hitters"`: HH(k) = |{i : a_i >= F1/k}|
    (`cropped.heavy_hitters`) — and with probability β it fails: a wild answer, uniform on
    [0, universe_size], whatever the stream. Copies continued by an intruder with fresh coins
    (`clone_with_fresh_coins`) therefore fail independently, as the Chernoff step of Thm 13's
    proof assumes.

    For the attack (`attack_model`) both statistics are distinct counts of the union of the
    intruded stream and a query stream: with every count 0 or 1 before the query and each
    query user inserted once, the counts are 0, 1 or 2, F1 <= 2·universe_size, and HH(k) = D
    for k >= 2·universe_size (the reduction of Mir et al. 2011, Cor 2 and Appendix B.2, with
    weight 1: every present ID clears F1/k <= 1).
    """

    def __init__(self, universe_size, failure, statistic="distinct", k=None, epsilon=1.0, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.failure = require_real("failure", failure, low=0.0, high=1.0,
                                    note="the probability β that a release fails")
        if statistic not in UNRELIABLE_STATISTICS:
            raise ValueError(f"statistic must be one of {UNRELIABLE_STATISTICS}; got {statistic!r}")
        self.statistic = statistic
        self.k = None if statistic == "distinct" else require_real(
            "k", k, low=0.0, low_open=True, note="heavy hitters hold at least F1/k")
        self.epsilon = require_epsilon(epsilon)
        self._rng = as_rng(rng)
        self.counts = np.zeros(self.universe_size, dtype=np.int64)

    def update(self, i, delta=None) -> None:
        i, delta = _update_args(i, delta, self.universe_size)
        self.counts[i] += delta

    def process(self, updates) -> None:
        """Apply a (k, 2) array of updates (i, d): the same as `update` on each."""
        self.counts += _totals(updates, self.universe_size)

    def exact(self) -> int:
        """The statistic without noise or failure."""
        if self.statistic == "distinct":
            return int(np.count_nonzero(self.counts))
        return heavy_hitters(self.counts, self.k)

    def output(self) -> float:
        """The exact statistic + Lap(1/ε) with probability 1 − β; uniform on [0, universe_size]
        with probability β. Fresh coins at every call."""
        if self._rng.random() < self.failure:
            return float(self._rng.uniform(0, self.universe_size))
        return laplace_mechanism(self.exact(), 1, self.epsilon, self._rng)

    def state(self) -> dict:
        """The counts: {"counts": a}."""
        return {"counts": self.counts.copy()}

    def _params(self) -> dict:
        return {"universe_size": self.universe_size, "failure": self.failure,
                "statistic": self.statistic, "k": self.k, "epsilon": self.epsilon}


# ----------------------------------------------------------------------------------------
# Simulation from the intruded state
# ----------------------------------------------------------------------------------------

def _generators(obj, seen, samplers=None):
    """Every numpy Generator reachable from obj through attributes and containers; the
    samplers of `panpriv_teach.noise` met on the way (they take a generator per call and hold
    none) are appended to `samplers` when given."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, np.random.Generator):
        yield obj
        return
    if isinstance(obj, dict):
        children = list(obj.values())
    elif isinstance(obj, (list, tuple, set, frozenset)):
        children = list(obj)
    elif isinstance(obj, (type, types.ModuleType, types.FunctionType, np.ndarray)):
        return
    elif type(obj).__module__ == noise.__name__:
        if samplers is not None:
            samplers.append(obj)
        return
    elif hasattr(obj, "__dict__"):
        children = list(vars(obj).values())
    else:
        return
    for child in children:
        yield from _generators(child, seen, samplers)


def _coins(algorithm):
    """(generators, memo): the Generators `algorithm` holds, and a deepcopy memo in which its
    noise samplers stand for themselves (immutable, so a clone shares them)."""
    samplers = []
    generators = list(_generators(algorithm, set(), samplers))
    return generators, {id(sampler): sampler for sampler in samplers}


def _clone(algorithm, coins, rng):
    """`clone_with_fresh_coins` with `_coins(algorithm)` computed once for many clones."""
    generators, shared = coins
    children = rng.spawn(len(generators)) if generators else []
    memo = dict(shared)
    memo.update((id(g), child) for g, child in zip(generators, children))
    return copy.deepcopy(algorithm, memo)


def clone_with_fresh_coins(algorithm, rng=None):
    """A copy of `algorithm`'s memory that runs on the attacker's coins.

    The intruder copies the memory (everything `state()` shows, plus the public parameters)
    and knows the code; future random choices are not in the memory, so the copy draws them
    from the attacker's own generator. Implemented as a deep copy in which every numpy
    Generator the algorithm holds is replaced by an independent child of `rng`, and the
    noise samplers (which hold no generator) are shared.
    """
    if not isinstance(algorithm, StreamAlgorithm):
        raise TypeError(f"algorithm must be a StreamAlgorithm; got {type(algorithm).__name__}")
    return _clone(algorithm, _coins(algorithm), as_rng(rng))


def distinct_statistic(counts):
    """φ(k) = 1[k > 0]: the distinct count is Σ_i φ(a_i) (Cor 1)."""
    return (np.asarray(counts) > 0).astype(float)


def cropped_sum_statistic(algorithm):
    """φ_i(k) = E[what Alg 2 reports for user i | w_i, a_i = k] for a CroppedSum.

    CroppedSum's release T̃ has mean Σ_i g(w_i a_i mod 2τ), g(u) = u − (2τ/L)(u + L − 2τ)_+
    (its docstring). The weights w are in the state (public randomness) and τ, L are public,
    so the intruder knows φ. This is Mir et al. 2011's Cor 1 reduction for T_1(τ) in the form the
    algorithm actually estimates (T', wrapped modulo 2τ), with one twist: with insertions
    only, a user with w_i > 3/2 has φ_i(2) = 2φ_i(1) at τ = 1, L = 1 (2w_i wraps past 2τ),
    so her term carries no dot product. `attack_model` therefore queries with deletions
    (amount −1): φ_i(1 − q_i) − φ_i(−q_i) = ±g(w_i), informative for every user.
    """
    w = np.asarray(algorithm.w, dtype=float)
    tau, window = float(algorithm.tau), float(algorithm.window)

    def phi(counts):
        u = np.mod(w * np.asarray(counts, dtype=float), 2 * tau)
        return u - (2 * tau / window) * np.maximum(u + window - 2 * tau, 0.0)

    return phi


def attack_model(algorithm) -> dict:
    """How to query `algorithm` after an intrusion:
    {"statistic", "updates", "output_scale", "amount"}.

    statistic: φ with E[output]·output_scale ≈ Σ_i φ_i(a_i), a_i the net count of user i;
    updates: True if the algorithm takes fully dynamic updates (i, d), False for a stream of
    user IDs; output_scale: what turns the output into that sum; amount: the change each
    query stream makes to each of its users (+1: insert once; −1: delete once).
    Known: AccurateDistinctCount (distinct), UnreliableCount (distinct, updates; for HH(k) only
    with k >= 2·universe_size, where HH(k) is the distinct count), density.DensityEstimator (distinct; its output
    is a density, so × universe size; meant for m = N representatives),
    density.DistinctCountEstimator (distinct), cropped.CroppedSum (`cropped_sum_statistic`, updates), stable.PanPrivateDistinctCount
    and stable.StableSketch (distinct, updates). Anything else raises TypeError: give the
    three entries to `intrusion_measurements` yourself.
    """
    from panpriv_teach.cropped import CroppedSum
    from panpriv_teach.density import DensityEstimator, DistinctCountEstimator
    from panpriv_teach.stable import StableSketch

    if isinstance(algorithm, (AccurateDistinctCount, DistinctCountEstimator)):
        return {"statistic": distinct_statistic, "updates": False, "output_scale": 1.0,
                "amount": 1}
    if isinstance(algorithm, UnreliableCount):
        if algorithm.statistic == "heavy_hitters" and algorithm.k < 2 * algorithm.universe_size:
            raise ValueError(f"the attack reads HH(k) as a distinct count only for k >= 2·universe_size = "
                             f"{2 * algorithm.universe_size}; got k = {algorithm.k}")
        return {"statistic": distinct_statistic, "updates": True, "output_scale": 1.0, "amount": 1}
    if isinstance(algorithm, DensityEstimator):
        return {"statistic": distinct_statistic, "updates": False,
                "output_scale": float(algorithm.universe_size), "amount": 1}
    if isinstance(algorithm, CroppedSum):
        return {"statistic": cropped_sum_statistic(algorithm), "updates": True,
                "output_scale": 1.0, "amount": -1}
    if isinstance(algorithm, StableSketch):
        return {"statistic": distinct_statistic, "updates": True, "output_scale": 1.0,
                "amount": 1}
    raise TypeError(f"no attack model for {type(algorithm).__name__}: pass statistic, updates "
                    "and output_scale to intrusion_measurements")


def intrusion_measurements(algorithm, queries, *, statistic=None, updates=None,
                           output_scale=None, amount=None, rng=None):
    """Run copies of the intruded `algorithm` on the query streams; return (rows, values)
    with values ≈ rows @ a, one linear measurement of the hidden a ∈ {0,1}^m per query.

    For query q (a row of `queries`, a 0/1 vector over the universe of m users) a copy with
    fresh coins (`clone_with_fresh_coins`) processes S' = the users of q (each once; as
    updates (i, amount) if `updates`) and releases y = output()·output_scale, whose mean is
    Σ_i φ_i(a_i + r_i) with r = amount·q. For a_i ∈ {0, 1},
    φ_i(a_i + r_i) = φ_i(r_i) + a_i·(φ_i(r_i + 1) − φ_i(r_i)) exactly, so
        rows[j] = φ(r_j + 1) − φ(r_j),   values[j] = y_j − Σ_i φ_i(r_ji).
    For the distinct count (φ = 1[k > 0], amount 1) this is rows = 1 − q, values = y − |q|:
    Mir et al. 2011's inclusion–exclusion D(S ∪ S') = D(S) + D(S') − a·a' (Cor 1), written so that
    D(S) need not be estimated separately. Missing keyword arguments come from
    `attack_model`.
    """
    if not isinstance(algorithm, StreamAlgorithm):
        raise TypeError(f"algorithm must be a StreamAlgorithm; got {type(algorithm).__name__}")
    queries = require_array("queries", queries, ndim=2, allowed={0, 1})
    if queries.shape[0] == 0:
        raise ValueError("queries must hold at least one query (row)")
    if None in (statistic, updates, output_scale, amount):
        model = attack_model(algorithm)
        statistic = model["statistic"] if statistic is None else statistic
        updates = model["updates"] if updates is None else updates
        output_scale = model["output_scale"] if output_scale is None else output_scale
        amount = model["amount"] if amount is None else amount
    if not callable(statistic):
        raise TypeError(f"statistic must be a function φ(counts); got {type(statistic).__name__}")
    output_scale = require_real("output_scale", output_scale)
    amount = require_int("amount", amount, note="each query user's change: +1 inserts, −1 deletes")
    if amount == 0 or (not updates and amount != 1):
        raise ValueError(f"amount must be 1 for streams of IDs, and nonzero for updates; got "
                         f"{amount} (updates={updates})")
    size = getattr(algorithm, "universe_size", queries.shape[1])
    if queries.shape[1] != size:
        raise ValueError(f"queries must have one column per user of the universe ({size}); "
                         f"got shape {queries.shape}")
    rng = as_rng(rng)
    outputs = np.empty(len(queries))
    coins = _coins(algorithm)                         # the memory is the same for every copy
    for j, q in enumerate(queries):
        ids = np.flatnonzero(q)
        copy_ = _clone(algorithm, coins, rng)
        if ids.size:
            copy_.process(np.column_stack([ids, np.full_like(ids, amount)]) if updates else ids)
        outputs[j] = float(copy_.output()) * output_scale
    shifts = amount * queries
    base = np.asarray(statistic(shifts), dtype=float)
    rows = np.asarray(statistic(shifts + 1), dtype=float) - base
    values = outputs - base.sum(axis=1)
    return rows, values


def intrusion_decoding_attack(algorithm, n_queries=None, *, rng=None, statistic=None,
                              updates=None, output_scale=None, amount=None):
    """Mir et al. 2011's lower-bound argument (Thm 12, Cor 1) run as an attack: the guess of a.

    `algorithm` is the intruded algorithm after the stream S (its memory at the intrusion;
    it is not changed). The attacker draws `n_queries` random subsets q of the universe
    (default m log₂² m, `query_budget`), reads one simulated answer per q
    (`intrusion_measurements`) and decodes a by LP (`reconstruct_lp`, L1 decoding).
    Returns the 0/1 guess of a (length m).

    What to expect (the lecture measures it): against `AccurateDistinctCount` (error
    Lap(1/ε), far below √m) the guess is right on essentially every user. Against an
    ε'-pan-private algorithm the whole attack is post-processing of an ε'-DP state, so on a
    uniformly random a it is right on each user with probability at most e^ε'/(1 + e^ε')
    (`reconstruction.guessing_ceiling`); the pan-private estimators of modules 03 and 06
    have answer errors of order √m or more, and the attack stays near chance.
    """
    if not isinstance(algorithm, StreamAlgorithm):
        raise TypeError(f"algorithm must be a StreamAlgorithm; got {type(algorithm).__name__}")
    m = getattr(algorithm, "universe_size", None)
    if m is None:
        raise TypeError(f"{type(algorithm).__name__} has no universe_size: the attack queries "
                        "random subsets of the universe")
    n_queries = query_budget(max(int(m), 2)) if n_queries is None else require_int(
        "n_queries", n_queries, low=1, note="the number of simulated query streams")
    rng = as_rng(rng)
    queries = random_queries(int(m), n_queries, rng)
    rows, values = intrusion_measurements(algorithm, queries, statistic=statistic,
                                          updates=updates, output_scale=output_scale,
                                          amount=amount, rng=rng)
    return reconstruct_lp(rows, values, method="l1")
