"""Module 05's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
from fractions import Fraction

import numpy as np

from checker_testing import Table
from panpriv_teach.counters import dyadic_intervals, nodes_containing, tree_nodes

table = Table("ppcum")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 5.1
@correct("5.1", "a loop over levels and starts")
def erased_after(t, T):
    nodes, size = set(), 1
    while size < T:
        for start in range(1, T + 1, size):
            if start + size - 1 <= t:
                nodes.add((start, start + size - 1))
        size *= 2
    return nodes


@correct("5.1", "the tree's nodes that end by t")
def _(t, T):
    return {(s, e) for s, e in tree_nodes(T) if e <= t}


@correct("5.1", "per level, the first t // 2^j nodes, as a list")
def _(t, T):
    out, j = [], 0
    while 2**j < T:
        out += [(m * 2**j + 1, (m + 1) * 2**j) for m in range(t // 2**j)]
        j += 1
    return out


@mistake("5.1", "the root included", "contains the root")
def _(t, T):
    return erased_after(t, T) | ({(1, T)} if t == T else set())


@mistake("5.1", "every node meeting [1, t] (the straddling ones too)", "sticks out past t")
def _(t, T):
    return {(s, e) for s, e in tree_nodes(T) if s <= t}


@mistake("5.1", "the nodes not intersecting [1, t] (the proof's reading)", "keeps")
def _(t, T):
    return {(s, e) for s, e in tree_nodes(T) if s > t}


@mistake("5.1", "only the nodes that end at t", "only the nodes erased at")
def _(t, T):
    return {(s, e) for s, e in tree_nodes(T) if e == t}


@mistake("5.1", "the leaves forgotten", "you forget")
def _(t, T):
    return {(s, e) for s, e in tree_nodes(T) if e <= t and s < e}


@mistake("5.1", "nodes ending before t only (e < t)", "you forget")
def _(t, T):
    return {(s, e) for s, e in tree_nodes(T) if e < t}


# ---------------------------------------------------------------- 5.2
@correct("5.2", "a loop, the containing nodes found by scanning N_I")
def view_after(x, N, N_I, T):
    S, releases = N, []
    for i, bit in enumerate(x, start=1):
        S += bit
        releases.append(S + sum(v for (s, e), v in N_I.items() if s <= i <= e))
    t = len(x)
    return releases, S, {(s, e): v for (s, e), v in N_I.items() if e > t}


@correct("5.2", "the containing node of each level by arithmetic")
def _(x, N, N_I, T):
    releases, S = [], N
    for i, bit in enumerate(x, start=1):
        S = S + bit
        noise, size = 0.0, 1
        while size < T:
            start = (i - 1) // size * size + 1
            noise += N_I[(start, start + size - 1)]
            size *= 2
        releases.append(S + noise)
    kept = {node: value for node, value in N_I.items() if node[1] > len(x)}
    return releases, S, kept


@correct("5.2", "numpy: cumulative counts plus node sums, a numpy array of releases")
def _(x, N, N_I, T):
    counts = N + np.cumsum(x)
    node_sums = np.array([sum(N_I[I] for I in nodes_containing(i, T))
                          for i in range(1, len(x) + 1)])
    kept = dict((I, v) for I, v in N_I.items() if I[1] > len(x))
    return counts + node_sums, float(counts[-1]), kept


@mistake("5.2", "S without N (the exact count in memory)", "exact count")
def _(x, N, N_I, T):
    releases, _, kept = view_after(x, N, N_I, T)
    return releases, sum(x), kept


@mistake("5.2", "releases without N", "lack n")
def _(x, N, N_I, T):
    releases, S, kept = view_after(x, N, N_I, T)
    return [r - N for r in releases], S, kept


@mistake("5.2", "the noise of [1, i]'s decomposition in release i (Cum's rule)", "release at step")
def _(x, N, N_I, T):
    S, releases = N, []
    for i, bit in enumerate(x, start=1):
        S += bit
        releases.append(S + sum(N_I[I] for I in dyadic_intervals(i, T) if I in N_I))
    return releases, S, {I: v for I, v in N_I.items() if I[1] > len(x)}


@mistake("5.2", "nodes ending at t kept (e ≥ t)", "still holds")
def _(x, N, N_I, T):
    releases, S, _ = view_after(x, N, N_I, T)
    return releases, S, {I: v for I, v in N_I.items() if I[1] >= len(x)}


@mistake("5.2", "only the nodes after t kept (s > t)", "lacks")
def _(x, N, N_I, T):
    releases, S, _ = view_after(x, N, N_I, T)
    return releases, S, {I: v for I, v in N_I.items() if I[0] > len(x)}


@mistake("5.2", "the kept noise replaced by zeros", "not the noise")
def _(x, N, N_I, T):
    releases, S, kept = view_after(x, N, N_I, T)
    return releases, S, {I: 0.0 for I in kept}


@mistake("5.2", "a list instead of a tuple", "tuple")
def _(x, N, N_I, T):
    return list(view_after(x, N, N_I, T))


# ---------------------------------------------------------------- 5.3
@correct("5.3", "N − 1 and +1 on the decomposition of [1, j − 1]")
def coupling(j, T):
    shift = {"N": -1}
    if j > 1:
        for node in dyadic_intervals(j - 1, T):
            shift[node] = 1
    return shift


@correct("5.3", "the decomposition by bits, float shifts")
def _(j, T):
    shift, start = {"N": -1.0}, 1
    for level in range(T.bit_length(), -1, -1):
        if (j - 1) >> level & 1:
            shift[(start, start + 2**level - 1)] = 1.0
            start += 2**level
    return shift


@correct("5.3", "Fractions")
def _(j, T):
    shift = {node: Fraction(1) for node in (dyadic_intervals(j - 1, T) if j > 1 else [])}
    shift["N"] = Fraction(-1)
    return shift


@mistake("5.3", "N shifted the wrong way", "wrong way")
def _(j, T):
    return {**coupling(j, T), "N": 1}


@mistake("5.3", "the nodes of [1, j] shifted", "[1, j]")
def _(j, T):
    return {"N": -1, **{node: 1 for node in dyadic_intervals(j, T)}}


@mistake("5.3", "the nodes containing j shifted", "contain j")
def _(j, T):
    return {"N": -1, **{node: 1 for node in nodes_containing(j, T)}}


@mistake("5.3", "N alone shifted", "views after", "differ")
def _(j, T):
    return {"N": -1}


@mistake("5.3", "every leaf before j shifted (valid, too costly)", "costs")
def _(j, T):
    return {"N": -1, **{(i, i): 1 for i in range(1, j)}}


@mistake("5.3", "a list of nodes instead of a dict", "should return a dict")
def _(j, T):
    return list(coupling(j, T))


# ---------------------------------------------------------------- 5.4
@correct("5.4", "conditioning on the bit")
def claim(eps):
    half = Fraction(1, 2)
    plus, minus, d1 = half + eps + eps**2 / 2, half - eps + eps**2 / 2, half + eps / 4
    return {"blank": half, "repeat": (1 - d1) * plus + d1 * minus,
            "first": half * plus + half * minus}


@correct("5.4", "a loop over the bit's law")
def _(eps):
    coin = {0: Fraction(1, 2) + eps + eps**2 / 2, 1: Fraction(1, 2) - eps + eps**2 / 2}
    laws = {"first": {0: Fraction(1, 2), 1: Fraction(1, 2)},
            "repeat": {0: Fraction(1, 2) - eps / 4, 1: Fraction(1, 2) + eps / 4}}
    out = {name: sum(law[b] * coin[b] for b in (0, 1)) for name, law in laws.items()}
    out["blank"] = Fraction(1, 2)
    return out


@correct("5.4", "the closed forms, as Fractions and an int-free dict")
def _(eps):
    return {"blank": Fraction(1, 2), "repeat": Fraction(1, 2),
            "first": Fraction(1, 2) + eps * eps / 2}


@mistake("5.4", "the coins' biases added at a first appearance", "adds the two coins")
def _(eps):
    return {**claim(eps), "first": Fraction(1, 2) + eps**2}


@mistake("5.4", "a repeat's bit taken from D0", "from d0")
def _(eps):
    return {**claim(eps), "repeat": claim(eps)["first"]}


@mistake("5.4", "floats instead of Fractions", "fraction eps")
def _(eps):
    return {k: float(v) for k, v in claim(eps).items()}


@mistake("5.4", "a first appearance taken as a fair coin", "left no trace")
def _(eps):
    return {**claim(eps), "first": Fraction(1, 2)}


@mistake("5.4", "the keys misnamed", "keys")
def _(eps):
    c = claim(eps)
    return {"blank": c["blank"], "repeated": c["repeat"], "first": c["first"]}


@mistake("5.4", "D1 at 1/2 + ε/2 for the repeat", "case \"repeat\"")
def _(eps):
    half = Fraction(1, 2)
    plus, minus, d1 = half + eps + eps**2 / 2, half - eps + eps**2 / 2, half + eps / 2
    return {**claim(eps), "repeat": (1 - d1) * plus + d1 * minus}


# ---------------------------------------------------------------- 5.5
@correct("5.5", "(ocount − t/2)/(m ε²/2)")
def estimate(ocount, t, m, eps):
    return (ocount - t / 2) / (m * eps**2 / 2)


@correct("5.5", "r_t first, then the fraction")
def _(ocount, t, m, eps):
    seen = 2 * (ocount - t / 2) / eps**2
    return seen / m


@correct("5.5", "one expression, ε·ε")
def _(ocount, t, m, eps):
    return (2 * ocount - t) / (m * eps * eps)


@mistake("5.5", "the proof sketch's ε² (half the density)", "half the density")
def _(o, t, m, e):
    return (o - t / 2) / (m * e**2)


@mistake("5.5", "the number of representatives, not a fraction", "not the density")
def _(o, t, m, e):
    return (o - t / 2) / (e**2 / 2)


@mistake("5.5", "t/2 not subtracted", "t/2 ones")
def _(o, t, m, e):
    return o / (m * e**2 / 2)


@mistake("5.5", "the sign flipped", "wrong sign")
def _(o, t, m, e):
    return (t / 2 - o) / (m * e**2 / 2)


@mistake("5.5", "divided by ε, not ε²", "not ε²")
def _(o, t, m, e):
    return (o - t / 2) / (m * e / 2)


# ---------------------------------------------------------------- from the red team's run
@mistake("5.1", "a list with duplicates (a node once per step it ends by)", "more than once")
def _(t, T):
    out = []
    for step in range(1, t + 1):
        out += [I for I in tree_nodes(T) if I[1] <= step]
    return out


@mistake("5.1", "the levels hard-coded to range(4) (right up to T = 16)", "you forget")
def _(t, T):
    return {(m * 2**j + 1, (m + 1) * 2**j) for j in range(4) if 2**j < T
            for m in range(t // 2**j)}


@mistake("5.1", "the leaves left out for T above 16", "you forget")
def _(t, T):
    out = {I for I in tree_nodes(T) if I[1] <= t}
    return {I for I in out if I[0] != I[1]} if T > 16 else out


@mistake("5.1", "the nodes ending by t + 1 at odd t", "sticks out past t")
def _(t, T):
    return {I for I in tree_nodes(T) if I[1] <= t + (t % 2)}


@correct("5.1", "a frozenset from a comprehension over the levels")
def _(t, T):
    L = T.bit_length() - 1
    return frozenset((m * 2**j + 1, (m + 1) * 2**j) for j in range(L) for m in range(t // 2**j))


@correct("5.1", "a numpy array of shape (k, 2)")
def _(t, T):
    return np.array([(s, e) for s, e in tree_nodes(T) if e <= t], dtype=np.int64).reshape(-1, 2)


@mistake("5.2", "the erased nodes deleted from the caller's N_I", "changed its argument `n_i`")
def _(x, N, N_I, T):
    X, releases = N, []
    for i, bit in enumerate(x, 1):
        X += bit
        releases.append(X + sum(v for (s, e), v in N_I.items() if s <= i <= e))
        for I in [I for I in N_I if I[1] <= i]:
            del N_I[I]
    return releases, X, N_I


@mistake("5.2", "the root kept with noise 0", "root")
def _(x, N, N_I, T):
    releases, X, kept = view_after(x, N, N_I, T)
    return releases, X, {**kept, (1, T): 0.0}


@correct("5.2", "the node of each level by arithmetic, a cumulative sum")
def _(x, N, N_I, T):
    L = T.bit_length() - 1
    counts = np.cumsum(x)
    releases = [N + counts[i - 1] + sum(N_I[(((i - 1) >> j << j) + 1,
                                             ((i - 1) >> j << j) + (1 << j))] for j in range(L))
                for i in range(1, len(x) + 1)]
    return releases, N + sum(x), {I: N_I[I] for I in N_I if I[1] > len(x)}


@correct("5.2", "a 0/1 matrix of nodes per step, a tuple back")
def _(x, N, N_I, T):
    t = len(x)
    nodes = list(N_I)
    member = np.array([[1.0 if s <= i <= e else 0.0 for s, e in nodes] for i in range(1, t + 1)])
    releases = N + np.cumsum(x) + member @ np.array([N_I[I] for I in nodes])
    return (list(releases), float(N + np.sum(x)), {I: N_I[I] for I in tree_nodes(T) if I[1] > t})


@mistake("5.3", "N shifted by −1 − 10⁻⁷", "views after")
def _(j, T):
    shift = {"N": -1 - 1e-7}
    shift.update({I: 1 for I in (dyadic_intervals(j - 1, T) if j > 1 else [])})
    return shift


@mistake("5.3", "the leaves before j when j − 1 is a power of two", "costs")
def _(j, T):
    shift = {"N": -1}
    if j > 1 and (j - 1) & (j - 2) == 0 and j - 1 > 2:
        shift.update({(i, i): 1 for i in range(1, j)})
    elif j > 1:
        shift.update({I: 1 for I in dyadic_intervals(j - 1, T)})
    return shift


@correct("5.3", "the binary digits of j − 1, Fractions")
def _(j, T):
    shift, start, rest = {"N": Fraction(-1)}, 1, j - 1
    for k in range(T.bit_length(), -1, -1):
        if rest >> k & 1:
            shift[(start, start + 2**k - 1)] = Fraction(1)
            start += 2**k
    return shift


@correct("5.3", "numpy integers")
def _(j, T):
    out = {"N": np.int64(-1)}
    out.update({I: np.int64(1) for I in (dyadic_intervals(j - 1, T) if j > 1 else [])})
    return out


@mistake("5.4", "D+ and D− swapped", "not")
def _(eps):
    h = Fraction(1, 2)
    plus, minus, d1 = h + eps + eps**2 / 2, h - eps + eps**2 / 2, h + eps / 4
    return {"blank": h, "repeat": (1 - d1) * minus + d1 * plus, "first": h * plus + h * minus}


@mistake("5.4", "eps**2 written eps*2", "not")
def _(eps):
    h = Fraction(1, 2)
    plus, minus, d1 = h + eps + eps, h - eps + eps, h + eps / 4
    return {"blank": h, "repeat": (1 - d1) * plus + d1 * minus, "first": h * plus + h * minus}


@correct("5.4", "Fractions from strings, an explicit sum over the bit")
def _(eps):
    half = Fraction("1/2")
    coin = {0: half + eps + eps * eps / 2, 1: half - eps + eps * eps / 2}
    law = {"first": {0: half, 1: half}, "repeat": {1: half + eps / 4, 0: half - eps / 4}}
    out = {"blank": Fraction(1, 2)}
    for key, bit in law.items():
        out[key] = sum((bit[b] * coin[b] for b in (0, 1)), Fraction(0))
    return out


@mistake("5.5", "the estimate clipped to [0, 1]", "clipped")
def _(ocount, t, m, eps):
    return min(max((ocount - t / 2) / (m * eps**2 / 2), 0.0), 1.0)


@mistake("5.5", "the absolute value (never negative)", "never negative")
def _(ocount, t, m, eps):
    return abs((ocount - t / 2) / (m * eps**2 / 2))


@mistake("5.5", "r_t rounded to a whole number of representatives", "round")
def _(ocount, t, m, eps):
    return round((ocount - t / 2) / (eps**2 / 2)) / m


@correct("5.5", "numpy functions")
def _(ocount, t, m, eps):
    return float(np.divide(np.subtract(ocount, t / 2), np.multiply(m, np.square(eps)) / 2))
