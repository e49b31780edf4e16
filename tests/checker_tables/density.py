"""Module 03's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
import math

import numpy as np
from scipy.optimize import brentq

from checker_testing import Table
from panpriv_teach.strawmen import keyed_hash

table = Table("density")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 3.1
@correct("3.1", "the larger of the two log-ratios")
def bit_privacy_loss(epsilon):
    p0, p1 = 0.5, 0.5 + epsilon / 4
    return max(abs(math.log(p1 / p0)), abs(math.log((1 - p1) / (1 - p0))))


@correct("3.1", "the closed form −ln(1 − ε/2)")
def _(epsilon):
    return -math.log1p(-epsilon / 2)


@correct("3.1", "numpy over both bits")
def _(epsilon):
    d0 = np.array([0.5, 0.5])
    d1 = np.array([0.5 - epsilon / 4, 0.5 + epsilon / 4])
    return float(np.max(np.abs(np.log(d1) - np.log(d0))))


@mistake("3.1", "the ratio at b = 1 only (Roth's proof)", "b = 1 only", "understate")
def _(e):
    return math.log(1 + e / 2)


@mistake("3.1", "the bound ε/2 from the text", "bound from the text")
def _(e):
    return e / 2


@mistake("3.1", "the bound ε itself", "bound from the text")
def _(e):
    return e


@mistake("3.1", "a negative loss (no absolute value)", "negative")
def _(e):
    return math.log(1 - e / 2)


@mistake("3.1", "log10", "log10")
def _(e):
    return -math.log10(1 - e / 2)


@mistake("3.1", "D1 misread as 1/2 + ε/8 around 1/2 (ratio of 1 − ε/4)", "not the largest")
def _(e):
    return -math.log(1 - e / 4)


# ---------------------------------------------------------------- 3.2
@correct("3.2", "bisection")
def where_claim_fails(c):
    lo, hi = 1e-9, 2 - 1e-9
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bit_privacy_loss(mid) <= c * mid else (lo, mid)
    return lo


@correct("3.2", "scipy's brentq")
def _(c):
    return brentq(lambda e: -math.log(1 - e / 2) - c * e, 1e-6, 2 - 1e-12)


@correct("3.2", "a grid scan, then the first crossing")
def _(c):
    grid = np.linspace(1e-6, 2 - 1e-9, 200_001)
    loss = -np.log1p(-grid / 2)
    return float(grid[np.argmax(loss > c * grid)])


@mistake("3.2", "1/2, where Claim 3.1 is stated", "stated")
def _(c):
    return 0.5


@mistake("3.2", "2, where D1 stops being a distribution", "stops being a distribution")
def _(c):
    return 2.0


@mistake("3.2", "the loss of b = 1 only, so no crossing is found", "stops being a distribution")
def _(c):
    lo, hi = 1e-9, 2.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if math.log(1 + mid / 2) <= c * mid else (lo, mid)
    return hi


@mistake("3.2", "a point where the bound still holds", "still holds")
def _(c):
    return where_claim_fails(c) / 2


@mistake("3.2", "a point where the bound already fails", "already fails")
def _(c):
    return (where_claim_fails(c) + 2) / 2


@mistake("3.2", "the number found once for c = 1, typed", "whatever c is")
def _(c):
    return 1.5936242600400401


@mistake("3.2", "an ε outside (0, 2)", "not an ε")
def _(c):
    return 3.0


# ---------------------------------------------------------------- 3.3
@correct("3.3", "a loop with searchsorted and a membership check")
def update_table(M, b, stream, epsilon, rng):
    b = np.array(b, copy=True)
    for x in stream:
        i = np.searchsorted(M, x)
        if i < len(M) and M[i] == x:
            b[i] = rng.random() < 0.5 + epsilon / 4
    return b


@correct("3.3", "vectorised: one draw per representative that arrived")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    hit = np.isin(M, stream)
    b[hit] = rng.random(hit.sum()) < 0.5 + epsilon / 4
    return b


@correct("3.3", "a dict from ID to position, a draw at the first arrival only")
def _(M, b, stream, epsilon, rng):
    position = {int(x): i for i, x in enumerate(M)}
    out, drawn = list(b), set()
    for x in stream:
        i = position.get(int(x))
        if i is not None and i not in drawn:
            out[i] = int(rng.binomial(1, 0.5 + epsilon / 4))
            drawn.add(i)
    return np.array(out)


@correct("3.3", "all arrivals' draws at once, the last one kept")
def _(M, b, stream, epsilon, rng):
    stream = np.asarray(stream)
    i = np.clip(np.searchsorted(M, stream), 0, len(M) - 1)
    member = M[i] == stream
    draws = rng.random(member.sum()) < 0.5 + epsilon / 4
    out = b.copy()
    out[i[member]] = draws          # numpy keeps the last assignment of a repeated index
    return out


@mistake("3.3", "searchsorted without the membership check (a neighbour's bit rewritten)",
         "never arrived")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    for x in stream:
        i = min(np.searchsorted(M, x), len(M) - 1)
        b[i] = rng.random() < 0.5 + epsilon / 4
    return b


@mistake("3.3", "b changed in place", "in place")
def _(M, b, stream, epsilon, rng):
    hit = np.isin(M, stream)
    b[hit] = rng.random(hit.sum()) < 0.5 + epsilon / 4
    return b


@mistake("3.3", "b_x = 1 at every arrival (the exact table)", "exact")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    b[np.isin(M, stream)] = 1
    return b


@mistake("3.3", "D0 instead of D1", "that is d0")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    hit = np.isin(M, stream)
    b[hit] = rng.random(hit.sum()) < 0.5
    return b


@mistake("3.3", "D1 at 1/2 + ε/2", "1/2 + ε/2")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    hit = np.isin(M, stream)
    b[hit] = rng.random(hit.sum()) < 0.5 + epsilon / 2
    return b


@mistake("3.3", "the bit OR-ed with the draw", "depends on the old one")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    hit = np.isin(M, stream)
    b[hit] |= rng.random(hit.sum()) < 0.5 + epsilon / 4
    return b


@mistake("3.3", "the bit flipped at each arrival with probability 1/2 + ε/4",
         "depends on the old one")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    for x in stream:
        i = np.searchsorted(M, x)
        if i < len(M) and M[i] == x and rng.random() < 0.5 + epsilon / 4:
            b[i] = 1 - b[i]
    return b


@mistake("3.3", "the bias growing with each arrival (arrivals counted)", "counts arrivals")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    arrivals = np.array([np.sum(stream == x) for x in M])
    hit = arrivals > 0
    b[hit] = rng.random(hit.sum()) < np.minimum(0.5 + arrivals[hit] * epsilon / 16, 1)
    return b


@mistake("3.3", "one draw shared by every arrival", "not independent")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    b[np.isin(M, stream)] = rng.random() < 0.5 + epsilon / 4
    return b


@mistake("3.3", "the ID used as a position", "raised IndexError")
def _(M, b, stream, epsilon, rng):
    b = b.copy()
    for x in stream:
        if x in M:
            b[x] = rng.random() < 0.5 + epsilon / 4
    return b


# ---------------------------------------------------------------- 3.4
@correct("3.4", "Laplace noise on θ, then scaled")
def release(b, epsilon, rng):
    m = len(b)
    return 4 * (np.mean(b) + rng.laplace(0.0, 1 / (epsilon * m)) - 0.5) / epsilon


@correct("3.4", "scaled first, then Lap(4/(ε²m))")
def _(b, epsilon, rng):
    m = len(b)
    return 4 * (sum(b) / m - 0.5) / epsilon + rng.laplace(0, 4 / (epsilon**2 * m))


@correct("3.4", "a random sign times an exponential")
def _(b, epsilon, rng):
    theta = float(np.mean(b))
    noise = rng.exponential(1 / (epsilon * len(b))) * (1 if rng.random() < 0.5 else -1)
    return 4 * (theta + noise - 0.5) / epsilon


@mistake("3.4", "Roth 2011's Lap(1/(εm)) added after scaling", "as roth 2011 writes it")
def _(b, e, rng):
    return 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 1 / (e * len(b)))


@mistake("3.4", "no noise", "no noise was added")
def _(b, e, rng):
    return 4 * (np.mean(b) - 0.5) / e


@mistake("3.4", "the D0 rate 1/2 not subtracted", "off by 2/ε")
def _(b, e, rng):
    return 4 * (np.mean(b) + rng.laplace(0, 1 / (e * len(b)))) / e


@mistake("3.4", "θ − 1/2 not rescaled", "θ − 1/2")
def _(b, e, rng):
    return np.mean(b) + rng.laplace(0, 1 / (e * len(b))) - 0.5


@mistake("3.4", "the sensitivity 4/(εm) not divided by ε", "not divided by ε")
def _(b, e, rng):
    return 4 * (np.mean(b) - 0.5) / e + rng.laplace(0, 4 / (e * len(b)))


@mistake("3.4", "Gaussian noise", "gaussian")
def _(b, e, rng):
    return 4 * (np.mean(b) + rng.normal(0, np.sqrt(2) / (e * len(b))) - 0.5) / e


@mistake("3.4", "noise on half of the releases only", "only sometimes")
def _(b, e, rng):
    noise = rng.laplace(0, 1 / (e * len(b))) if rng.random() < 0.5 else 0.0
    return 4 * (np.mean(b) + noise - 0.5) / e


@mistake("3.4", "the bits sorted in place", "in place")
def _(b, e, rng):
    b.sort()
    return release(b, e, rng)


# ---------------------------------------------------------------- 3.5
@correct("3.5", "math.ceil of the formula")
def roth_m(epsilon, alpha, beta):
    return math.ceil(200 * math.log(1 / beta) / (epsilon ** 2 * alpha ** 2))


@correct("3.5", "numpy's ceil, a float")
def _(epsilon, alpha, beta):
    return np.ceil(-200 * np.log(beta) / (epsilon * alpha) ** 2)


@correct("3.5", "integer ceiling by floor division")
def _(epsilon, alpha, beta):
    return int(-(-200 * math.log(1 / beta) // (epsilon ** 2 * alpha ** 2)))


@mistake("3.5", "rounded down", "rounded m down")
def _(e, a, b):
    return math.floor(200 * math.log(1 / b) / (e ** 2 * a ** 2))


@mistake("3.5", "log10", "log10")
def _(e, a, b):
    return math.ceil(200 * math.log10(1 / b) / (e ** 2 * a ** 2))


@mistake("3.5", "log2", "log2")
def _(e, a, b):
    return math.ceil(200 * math.log2(1 / b) / (e ** 2 * a ** 2))


@mistake("3.5", "ε not squared", "1/ε")
def _(e, a, b):
    return math.ceil(200 * math.log(1 / b) / (e * a ** 2))


@mistake("3.5", "α not squared", "1/α")
def _(e, a, b):
    return math.ceil(200 * math.log(1 / b) / (e ** 2 * a))


@mistake("3.5", "log(1/β) left out", "log(1/β)")
def _(e, a, b):
    return math.ceil(200 / (e ** 2 * a ** 2))


@mistake("3.5", "another constant than 200", "constant in front")
def _(e, a, b):
    return math.ceil(100 * math.log(1 / b) / (e ** 2 * a ** 2))


@mistake("3.5", "the first case's m, typed", "look up answers")
def _(e, a, b):
    return {(0.5, 0.2, 0.1): 46052, (0.5, 0.1, 0.05): 239659, (0.25, 0.3, 0.01): 163740,
            (0.1, 0.5, 0.2): 128756, (0.13, 0.11, 0.05): 2929955}.get((e, a, b), 46052)


# ---------------------------------------------------------------- 3.6
@correct("3.6", "hash the whole universe, keep the hashes in the table")
def who_visited(state, universe_size):
    ids = np.arange(universe_size)
    return ids[np.isin(keyed_hash(state["key"], ids), state["hashes"])]


@correct("3.6", "a loop with a set of hashes")
def _(state, universe_size):
    table_hashes = set(int(h) for h in state["hashes"])
    hashes = keyed_hash(state["key"], np.arange(universe_size))
    return np.array([i for i, h in enumerate(hashes) if int(h) in table_hashes])


@correct("3.6", "sorted hashes and searchsorted")
def _(state, universe_size):
    stored = np.sort(state["hashes"])
    hashes = keyed_hash(state["key"], np.arange(universe_size))
    i = np.clip(np.searchsorted(stored, hashes), 0, len(stored) - 1)
    return np.flatnonzero(stored[i] == hashes)


@mistake("3.6", "the hashes returned instead of the IDs", "hash values")
def _(state, n):
    return np.asarray(state["hashes"])


@mistake("3.6", "a boolean mask instead of the IDs", "mask")
def _(state, n):
    return np.isin(keyed_hash(state["key"], np.arange(n)), state["hashes"])


@mistake("3.6", "the last ID of the universe never tried", "never tried")
def _(state, n):
    ids = np.arange(n - 200)
    return ids[np.isin(keyed_hash(state["key"], ids), state["hashes"])]


@mistake("3.6", "every ID accused", "never visited")
def _(state, n):
    return np.arange(n)


@mistake("3.6", "hashed without the key (a public hash)", "found nobody")
def _(state, n):
    ids = np.arange(n)
    return ids[np.isin(keyed_hash(b"", ids), state["hashes"])]


@mistake("3.6", "a list instead of a numpy array", "numpy array")
def _(state, n):
    return list(who_visited(state, n))


# ---------------------------------------------------------------- from the red team's run
@correct("3.1", "the loss at b = 0, which is the larger")
def _(epsilon):
    return abs(math.log(1 - epsilon / 2))


@correct("3.1", "numpy over both outputs")
def _(epsilon):
    p0, p1 = np.array([0.5, 0.5]), np.array([0.5 + epsilon / 4, 0.5 - epsilon / 4])
    return np.max(np.abs(np.log(p1) - np.log(p0)))


@mistake("3.1", "the average of the two log-ratios", "not the largest")
def _(epsilon):
    return (math.log1p(epsilon / 2) - math.log1p(-epsilon / 2)) / 2


def _drawn(M, b, hit, epsilon, rng):
    out = np.array(b, copy=True)
    out[hit] = rng.random(int(np.sum(hit))) < 0.5 + epsilon / 4
    return out


@mistake("3.3", "the last arrival skipped (a loop over stream[:-1])", "last arrival")
def _(M, b, stream, epsilon, rng):
    out = np.array(b, copy=True)
    for x in stream[:-1]:
        i = np.searchsorted(M, x)
        if i < len(M) and M[i] == x:
            out[i] = rng.random() < 0.5 + epsilon / 4
    return out


@mistake("3.3", "only the arrivals of the first half of the stream", "skips some arrivals")
def _(M, b, stream, epsilon, rng):
    s = np.asarray(stream)
    return _drawn(M, b, np.isin(M, s[: len(s) // 2]), epsilon, rng)


@mistake("3.3", "membership within a tolerance of 1 (a neighbouring ID counts)",
         "never arrived")
def _(M, b, stream, epsilon, rng):
    out = np.array(b, copy=True)
    for x in stream:
        i = int(np.argmin(np.abs(M - x)))
        if abs(M[i] - x) <= 1:
            out[i] = rng.random() < 0.5 + epsilon / 4
    return out


@mistake("3.3", "the exact table on short streams (fewer than 5 arrivals)", "short stream")
def _(M, b, stream, epsilon, rng):
    hit = np.isin(M, stream)
    if len(stream) < 5:
        out = np.array(b, copy=True)
        out[hit] = 1
        return out
    return _drawn(M, b, hit, epsilon, rng)


@mistake("3.3", "D1 nudged by ±0.03 after the old bit", "depends on the old one")
def _(M, b, stream, epsilon, rng):
    out = np.array(b, copy=True)
    hit = np.isin(M, stream)
    p = np.where(out[hit] == 1, 0.53, 0.47) + epsilon / 4
    out[hit] = rng.random(int(hit.sum())) < p
    return out


@correct("3.3", "a set of arrivals, draws in reverse order of M")
def _(M, b, stream, epsilon, rng):
    out = np.asarray(b).copy()
    arrived = set(np.asarray(stream).tolist())
    for i in reversed(range(len(M))):
        if int(M[i]) in arrived:
            out[i] = int(rng.binomial(1, 0.5 + epsilon / 4))
    return out


@correct("3.3", "one draw per arrival into a bool table")
def _(M, b, stream, epsilon, rng):
    out = np.array(b, dtype=bool)
    position = {int(m): i for i, m in enumerate(M)}
    for x in stream:
        i = position.get(int(x))
        u = rng.random()
        if i is not None:
            out[i] = u < 0.5 + epsilon / 4
    return out


@mistake("3.4", "the release clipped to [0, 1]", "clipped to [0, 1]")
def _(b, epsilon, rng):
    return float(np.clip(release(b, epsilon, rng), 0, 1))


@mistake("3.4", "0.85 of the noise", "0.8", "less noise")
def _(b, epsilon, rng):
    return 4 * (np.mean(b) + rng.laplace(0, 0.85 / (epsilon * len(b))) - 0.5) / epsilon


@mistake("3.4", "5 % of the releases nearly exact", "within 0.001 scales")
def _(b, epsilon, rng):
    tiny = 1e-6 if rng.random() < 0.05 else 1.0
    return 4 * (np.mean(b) + rng.laplace(0, tiny / (epsilon * len(b))) - 0.5) / epsilon


@mistake("3.4", "m taken as at least 100 (less noise on small tables)", "less noise")
def _(b, epsilon, rng):
    m = max(len(b), 100)
    return 4 * (np.mean(b) + rng.laplace(0, 1 / (epsilon * m)) - 0.5) / epsilon


@correct("3.4", "the noise as a difference of exponentials, after scaling")
def _(b, epsilon, rng):
    m = np.size(b)
    s = 4 / (epsilon**2 * m)
    return 4 * (np.count_nonzero(b) / m - 0.5) / epsilon + rng.exponential(s) - rng.exponential(s)


@correct("3.4", "the inverse cdf of a uniform, a 0-d array")
def _(b, epsilon, rng):
    m, u = len(b), rng.random() - 0.5
    noise = -np.sign(u) * np.log1p(-2 * abs(u)) / (epsilon * m)
    return np.asarray(4 * (b.sum() / m + noise - 0.5) / epsilon)


@mistake("3.5", "ε²α² rounded to 6 decimals on the way", "does not follow roth")
def _(epsilon, alpha, beta):
    return math.ceil(200 * math.log(1 / beta) / round(epsilon**2 * alpha**2, 6))


@correct("3.5", "np.ceil to an int64")
def _(epsilon, alpha, beta):
    return np.ceil(200 * np.log(1 / beta) / (epsilon * alpha) ** 2).astype(np.int64)


@correct("3.5", "an integer ceiling by -(-x // 1)")
def _(epsilon, alpha, beta):
    return int(-(-(200 * -math.log(beta) / epsilon**2 / alpha**2) // 1))


@mistake("3.6", "the universe hard-coded to 2,000 IDs", "never tried")
def _(state, universe_size):
    ids = np.arange(2_000)
    return ids[np.isin(keyed_hash(state["key"], ids), state["hashes"])]


@mistake("3.6", "every ID found twice", "more than once")
def _(state, universe_size):
    found = who_visited(state, universe_size)
    return np.concatenate([found, found])


@mistake("3.6", "the key popped from the stolen state", "changed its argument `state`")
def _(state, universe_size):
    key = state.pop("key")
    ids = np.arange(universe_size)
    return ids[np.isin(keyed_hash(key, ids), state["hashes"])]


@correct("3.6", "a dict from hash to ID, floats back")
def _(state, universe_size):
    table = dict(zip(keyed_hash(state["key"], np.arange(universe_size)).tolist(),
                     range(universe_size)))
    return np.array(sorted(table[h] for h in state["hashes"].tolist() if h in table),
                    dtype=float)


@correct("3.6", "hashing in chunks, the IDs in reverse order")
def _(state, universe_size):
    found, hashes = [], set(state["hashes"].tolist())
    for start in range(universe_size - 1, -1, -500):
        ids = np.arange(max(0, start - 499), start + 1)
        found += [int(i) for i, h in zip(ids, keyed_hash(state["key"], ids).tolist())
                  if h in hashes]
    return np.array(found[::-1])
