"""PPCum: a binary-tree counter that stays private when its memory is seized, for the past.

Source: Local-mechanisms notes, §3 (pan-privacy for the past, Def 6; Mechanism PPCum; the n = 4
worked example; Thm 7 and its coupling proof). The dyadic tree is the one of module 04
(`panpriv_teach.counters`: `tree_levels`, `tree_nodes`, `nodes_containing`,
`dyadic_intervals`); times are 1-based, x_t = stream[t - 1], a node (s, e) is the interval
{s, ..., e}.

Besides the counter: `kept_nodes` / `erased_nodes` (what the memory holds after step t),
`coupling_shift` (Thm 7's N' = N - 1, N'_I = N_I + 1 on the decomposition of [1, j - 1]),
`ppcum_view` (the joint view of Def 6 for given noise) and `exact_past_epsilon` (the exact
privacy for the past of PPCum, by the minimum-cost noise shift).
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.core import as_rng
from panpriv_teach.noise import LaplaceNoise
from panpriv_teach.counters import (FixedHorizonCounter, as_bit, as_bit_stream, check_horizon,
                                    dyadic_intervals, nodes_containing, tree_levels, tree_nodes)
from panpriv_teach.validation import require_epsilon, require_int, require_real

__all__ = ["PanPrivateTreeCounter", "kept_nodes", "erased_nodes", "coupling_shift",
           "ppcum_view", "exact_past_epsilon", "min_shift_cost"]

def kept_nodes(t, T) -> list:
    """The nodes I whose noise N_I PPCum still holds after step t: those with I ⊄ [1, t]
    (they end after t), by level then left to right. After step 3 of n = 4:
    [(4, 4), (3, 4)]. Note that (3, 4) meets [1, 3] and is kept: it is needed at step 4."""
    T = check_horizon(T)
    t = require_int("t", t, low=0, high=T, note=f"a time step of a stream of length T = {T}")
    return [(s, e) for s, e in tree_nodes(T) if e > t]


def erased_nodes(t, T) -> list:
    """The nodes whose noise PPCum erases at step t (after releasing): those ending at t,
    i.e. the I ⊆ [1, t] not already erased before. Their union over steps 1..t is every
    node inside [1, t]."""
    T = check_horizon(T)
    t = require_int("t", t, low=1, high=T, note=f"a time step of a stream of length T = {T}")
    return [(s, e) for s, e in tree_nodes(T) if e == t]


def coupling_shift(j, T) -> dict:
    """Thm 7's coupling for neighbours that differ at step j (x_j = 0, x'_j = 1): the noise
    shift v with N' = N + v["N"] = N - 1 and N'_I = N_I + 1 for the nodes I_1..I_k of
    [1, j - 1] (`dyadic_intervals`); every other noise unchanged. Cost sum |v| = k + 1."""
    T = check_horizon(T)
    j = require_int("j", j, low=1, high=T, note=f"the step where neighbours differ, in 1..{T}")
    shift = {"N": -1.0}
    if j > 1:
        shift.update({node: 1.0 for node in dyadic_intervals(j - 1, T)})
    return shift


class PanPrivateTreeCounter(FixedHorizonCounter):
    """PPCum (Local-mechanisms notes, §3): counts the ones of a 0/1 stream at every step, and its memory after
    step t, together with the releases 1..t, is still epsilon-DP.

    Estimates: n_t = x_1 + ... + x_t at every step t = 1..T.
    Mechanism (the Local-mechanisms notes' names): X = N, N ~ Lap(1/eta); one N_I ~ Lap(1/eta) for every node
    I of the tree except the root, all drawn at the start; 1/eta = (log n + 1)/epsilon with
    log n = L = `tree_levels(T)`. At step t: X <- X + x_t; release X + sum_{I: t in I} N_I
    (the L nodes above leaf t); ERASE x_t and every N_I with I ⊆ [1, t]. The memory after
    step t is X = N + x_1 + ... + x_t and the N_I of the nodes ending after t (`state()`).
    Privacy: event-level (streams differing in one step), epsilon-differentially pan-private
    FOR THE PAST (Def 6): for every t, (releases 1..t, memory after t) is epsilon-DP. Not
    pan-private for later releases: the memory holds the noise of the future nodes, so an
    intruder who keeps watching subtracts it and reads x_s exactly for every s > t (lecture
    05 runs this attack); Def 6 fits a system that halts when an intrusion is found.
    The erasure is real: erased noise is overwritten in place and the rng is not kept (a
    numpy generator can be run backwards from its state to the draws it made); the last
    release is kept, as a public output.
    Accuracy: unbiased; release t carries L + 1 independent Lap((L + 1)/epsilon), so
    Var = 2 (L + 1)^3 / epsilon^2 at every t (`variance`), O(log^1.5 n / epsilon) standard
    deviation, against Cum's 2 (L/epsilon)^2 k(t) (k(t) <= L the nodes of [1, t]).
    Source: Local-mechanisms notes, §3, Def 6, Mechanism PPCum, Thm 7.
    Corrections:
    - Thm 7's proof says the memory holds "those N_I such that I does not intersect [1, t]";
      the mechanism and the worked example keep every I ⊄ [1, t] (N_[3,4] after step 3 of
      n = 4), which it needs to answer later steps. The coupling proof is unaffected: it
      shifts only nodes inside [1, j - 1] ⊆ [1, t], which are erased.
    - The coupling costs k + 1 <= L + 1 units of Lap(1/eta) (k = the number of 1-bits of
      j - 1), so it shows epsilon. The exact privacy is the cheapest shift
      (`exact_past_epsilon`): equal to epsilon for n <= 8, below it from n = 16 on (e.g.
      [1, 7] = [1, 8] minus {8} costs 2, not 3).
    - For T not a power of two the tree has 2^L leaves; nodes starting after T are never
      used and not drawn. For T = 1, L = 1 (as in module 04's tree): one spare node.
    """

    def __init__(self, T, epsilon, rng=None):
        self.T = check_horizon(T)
        self.epsilon = require_epsilon(epsilon)
        self.levels = tree_levels(self.T)                     # L = log n
        laplace = LaplaceNoise(self.levels + 1, self.epsilon)   # float-safe Lap((L + 1)/epsilon)
        self.scale = laplace.scale                            # 1/eta (times at most 1 + 2^-12)
        self._noise_variance = laplace.variance               # 2 scale^2, within 2^-10
        # N, then the N_I of level j = 0 .. L - 1 (node m of level j is (m 2^j + 1, (m + 1) 2^j),
        # m = 0 .. ceil(T / 2^j) - 1), in one call: n draws at once are n single draws in
        # order (`LaplaceNoise.noise`), and one call saves the sampler's per-call cost L times.
        sizes = [-(-self.T // 2**j) for j in range(self.levels)]
        noise = laplace.noise(1 + sum(sizes), as_rng(rng))    # the rng is used here only, never kept
        self._X = float(noise[0])                             # X = N
        self._N = np.split(noise[1:], np.cumsum(sizes)[:-1])
        self._t = 0

    @classmethod
    def from_noise(cls, T, epsilon, N, N_I):
        """PPCum with given noise instead of Laplace draws: N (a number) and N_I (a dict
        node -> number for every node of `tree_nodes(T)`). For worked examples and the
        coupling of Thm 7; the releases are then a deterministic function of the stream."""
        counter = cls(T, epsilon, rng=0)
        counter._X = require_real("N", N)
        nodes = tree_nodes(counter.T)
        if not isinstance(N_I, dict) or set(N_I) != set(nodes):
            raise ValueError(f"N_I must be a dict with one value per node of the tree for T = "
                             f"{counter.T} ({len(nodes)} nodes, the root excluded); got "
                             f"{type(N_I).__name__} with keys {sorted(N_I) if isinstance(N_I, dict) else '-'}")
        for s, e in nodes:
            j = (e - s + 1).bit_length() - 1
            counter._N[j][(s - 1) >> j] = require_real(f"N_I[{(s, e)}]", N_I[(s, e)])
        return counter

    def _step(self, x) -> float:
        x = as_bit(x)
        self._check_room(1)
        t = self._t + 1
        self._X += x                                                    # add x_t to X
        release = self._X + sum(float(self._N[j][(t - 1) >> j]) for j in range(self.levels))
        for j in range(self.levels):                                    # erase I ⊆ [1, t]:
            if t % 2**j == 0:                                           # the nodes ending at t
                self._N[j][t // 2**j - 1] = 0.0                         # overwritten in place
        self._t = t
        return release

    def run(self, stream) -> np.ndarray:
        """All releases at once. No randomness is drawn after the start, so this returns the
        same releases as repeated `step` (up to floating-point rounding of the sums) and
        leaves the same memory. Continues from the current step."""
        x = self._take(stream)
        n = x.size
        if n == 0:
            return np.zeros(0)
        first, t_end = self._t, self._t + n
        releases = self._X + np.cumsum(x).astype(float) + self._path_noise(first, t_end)
        for j in range(self.levels):                # erase the nodes ending in (first, t_end]
            self._N[j][first >> j:t_end >> j] = 0.0
        self._X += float(x.sum())
        self._t = t_end
        self._last_release = float(releases[-1])
        return releases

    def _path_noise(self, first, last) -> np.ndarray:
        """sum_j N_j[(t - 1) >> j] for t = first + 1 .. last: the noise of the L nodes above
        each leaf, summed top-down (each level adds its nodes to their two children's sums),
        which touches about 2 (last - first) numbers instead of L (last - first)."""
        total = np.zeros(1)                         # the root (level L): no noise
        for j in reversed(range(self.levels)):
            low, high = first >> j, (last - 1) >> j
            parents = np.repeat(total, 2)[low - 2 * (first >> (j + 1)):][:high - low + 1]
            total = self._N[j][low:high + 1] + parents
        return total

    def variance(self, t=None):
        """The exact variance of release t: L + 1 noises of variance 2 (1/eta)^2 each, so
        2 (L + 1)^3/epsilon^2 (within 2^-10 relative: the float-safe noise's exact variance),
        the same at every t (vectorised: an array shaped like t)."""
        value = (self.levels + 1) * self._noise_variance
        return value if t is None else np.full(np.shape(t), value)

    def state(self) -> dict:
        """{"t", "X", "N_I": {node: N_I}}: X = N + x_1 + ... + x_t and the noise of the nodes
        that end after t (`kept_nodes(t, T)`). Everything the algorithm holds."""
        kept = {}
        for j in range(self.levels):
            for m in range(self._t >> j, len(self._N[j])):
                kept[(m * 2**j + 1, (m + 1) * 2**j)] = float(self._N[j][m])
        return {"t": self._t, "X": self._X, "N_I": kept}


def ppcum_view(stream, T, N, N_I, t=None) -> dict:
    """Def 6's joint view after step t of PPCum on `stream` with the given noise:
    {"releases": the t releases, "memory": state() after step t}. (t defaults to len(stream);
    only stream[:t] is read.) Two views are equal iff an intruder sees the same thing."""
    x = as_bit_stream(stream)
    t = x.size if t is None else require_int("t", t, low=1, high=x.size)
    counter = PanPrivateTreeCounter.from_noise(T, 1.0, N, N_I)
    releases = np.array([counter.step(int(v)) for v in x[:t]])
    return {"releases": releases, "memory": counter.state()}


def min_shift_cost(j, t, T, erase=True) -> float:
    """The least total |shift| of the noises (N and the N_I, in units) that makes PPCum's
    view after step t on x (x_j = 0) equal to its view on x' (x'_j = 1), by linear
    programming; inf if no shift works.

    Constraints: the memory X forces v_N = -1; each kept N_I is in the memory, so v_I = 0;
    release i needs v_N + [i >= j] + sum_{I ∋ i} v_I = 0. With `erase=False` (a PPCum that
    forgets to erase) every N_I is in the memory and no shift exists when j <= t.
    For j > t the views coincide (cost 0).
    """
    from scipy.optimize import linprog

    T = check_horizon(T)
    t = require_int("t", t, low=1, high=T)
    j = require_int("j", j, low=1, high=T)
    if j > t:
        return 0.0
    if not erase:                   # every N_I is in the memory: only N can move
        return 1.0 if j == 1 else math.inf
    free = [I for I in tree_nodes(T) if I[1] <= t]                  # the erased nodes
    index = {I: k for k, I in enumerate(free)}
    A = np.zeros((t, len(free)))
    for i in range(1, t + 1):
        for I in nodes_containing(i, T):
            if I in index:
                A[i - 1, index[I]] = 1.0
    b = np.array([1.0 if i < j else 0.0 for i in range(1, t + 1)])  # sum_{I ∋ i} v_I = [i < j]
    k = len(free)
    res = linprog(np.ones(2 * k), A_eq=np.hstack([A, -A]), b_eq=b, bounds=(0, None),
                  method="highs")
    return 1.0 + res.fun if res.status == 0 else math.inf


def exact_past_epsilon(T, epsilon, t=None, erase=True) -> float:
    """The exact privacy for the past (Def 6) of PanPrivateTreeCounter(T, epsilon): the
    largest, over intrusion times t (or the given t) and neighbours differing at j <= t, of
    eta * `min_shift_cost(j, t, T)`, eta = epsilon/(L + 1).

    Why exact: the view is a linear image A z + c_x of the independent Laplace noises z;
    shifting z by v with A v = c_x' - c_x maps one view to the other, so the density ratio is
    at most e^(eta |v|_1) (the upper bound of Thm 7's proof), and far out along v the ratio
    tends to e^(eta min |v|_1), so the bound with the cheapest shift is attained.
    """
    T = check_horizon(T)
    epsilon = require_epsilon(epsilon)
    eta = epsilon / (tree_levels(T) + 1)
    times = range(1, T + 1) if t is None else [require_int("t", t, low=1, high=T)]
    return eta * max(min_shift_cost(j, s, T, erase) for s in times for j in range(1, s + 1))
