"""Measuring privacy loss: the exact ε of a small discrete mechanism on one pair of inputs,
an honest lower confidence bound on ε from samples (in the style of DP-Sniper, Bichsel et al. 2021), and an audit
of pan-privacy against one intrusion (Roth 2011, Defs 2-3).

A lower bound can show that a mechanism is NOT ε-private; it can never prove that it is.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, replace
from typing import Callable

import numpy as np
from scipy.stats import beta

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.validation import require_array, require_int, require_probability

MIN_SAMPLES = 100   # per side: half choose the event, half test it
MAX_OUTCOMES = 64   # 1-D samples with at most this many distinct values are treated as discrete
_THRESHOLDS = 80    # quantile levels per tail for 1-D threshold events
_ATOMS = 20         # most frequent repeated values tried as events {x = v}


# ----------------------------------------------------------------------------- exact ε

def exact_epsilon(pmf_a, pmf_b) -> float:
    """The exact ε of a mechanism on one pair of neighbouring inputs, from its two output pmfs.

    ε = max over outcomes o of |ln P_a(o) - ln P_b(o)|. For pure DP this equals the max over
    all events S of |ln P_a(S) - ln P_b(S)|, because a ratio of sums is at most the largest
    ratio of its terms. Returns math.inf when the supports differ (an outcome possible under
    one input only). The ε of the mechanism is the max of this over all neighbouring pairs.

    Parameters
    ----------
    pmf_a, pmf_b : dicts outcome -> probability (an outcome missing from one dict has
        probability 0 there), or equal-length 1-D arrays over a common support. Each must be
        non-negative and sum to 1 within 1e-9.
    """
    if isinstance(pmf_a, dict) != isinstance(pmf_b, dict):
        raise TypeError("pmf_a and pmf_b must both be dicts (outcome -> probability) or both "
                        f"arrays; got {type(pmf_a).__name__} and {type(pmf_b).__name__}")
    if isinstance(pmf_a, dict):
        outcomes = list(pmf_a) + [o for o in pmf_b if o not in pmf_a]
        pmf_a = [pmf_a.get(o, 0.0) for o in outcomes]
        pmf_b = [pmf_b.get(o, 0.0) for o in outcomes]
    p, q = _pmf("pmf_a", pmf_a), _pmf("pmf_b", pmf_b)
    if p.shape != q.shape:
        raise ValueError("pmf_a and pmf_b must be over the same support (equal lengths); "
                         f"got lengths {p.size} and {q.size}")
    if np.any((p > 0) != (q > 0)):
        return math.inf
    both = p > 0
    return float(np.max(np.abs(np.log(p[both]) - np.log(q[both]))))


def _pmf(name, values) -> np.ndarray:
    if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
           for v in np.asarray(values, dtype=object).ravel()):
        raise TypeError(f"{name} must hold real probabilities; got {values!r}")
    p = require_array(name, np.asarray(values, dtype=float), ndim=1, nonempty=True)
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative; got {p[p < 0][0]!r}")
    if abs(p.sum() - 1) > 1e-9:
        raise ValueError(f"{name} must sum to 1 within 1e-9; got sum {p.sum()!r}")
    return p


# ----------------------------------------------------------------------------- the result

@dataclass(frozen=True)
class AuditResult:
    """A lower confidence bound on ε: with probability >= `confidence`, ε >= `epsilon_lower`.

    `event` is the event E (chosen on one half of the samples); `favours` is the side ('a' or
    'b') where E is more likely; `freq_a`, `freq_b` are E's frequencies on the held-out halves;
    `prob_lower` <= P_favoured(E) and `prob_upper` >= P_other(E) are the Clopper–Pearson bounds,
    so epsilon_lower = max(0, ln(prob_lower / prob_upper)).
    """
    epsilon_lower: float
    event: str
    favours: str
    freq_a: float
    freq_b: float
    prob_lower: float
    prob_upper: float
    n_a: int
    n_b: int
    confidence: float
    intrusion_time: int | None = None

    def __repr__(self) -> str:
        when = "" if self.intrusion_time is None else f", intrusion_time={self.intrusion_time}"
        return (f"AuditResult(epsilon_lower={self.epsilon_lower:.4g}, confidence={self.confidence:g}"
                f", event={self.event!r}, n_a={self.n_a}, n_b={self.n_b}{when})")

    def __str__(self) -> str:
        other = "b" if self.favours == "a" else "a"
        when = "" if self.intrusion_time is None else f" (intrusion at t = {self.intrusion_time})"
        head = f"ε ≥ {self.epsilon_lower:.4f} at {self.confidence:.0%} confidence{when}"
        if self.epsilon_lower == 0:
            head += ": no evidence of privacy loss (which does not prove privacy)"
        ha, hb = self.n_a - self.n_a // 2, self.n_b - self.n_b // 2
        return "\n".join([
            head,
            f"  event E: {self.event}  (chosen on the other half of the samples)",
            f"  held-out frequency of E: {self.freq_a:.4g} ({round(self.freq_a * ha):,} of {ha:,}) "
            f"in samples_a, {self.freq_b:.4g} ({round(self.freq_b * hb):,} of {hb:,}) in samples_b",
            f"  Clopper–Pearson: P_{self.favours}(E) ≥ {self.prob_lower:.4g} and "
            f"P_{other}(E) ≤ {self.prob_upper:.4g}"])


# ----------------------------------------------------------------------------- estimate ε

def estimate_epsilon(samples_a, samples_b, *, confidence=0.95, rng=None,
                     bins=None) -> AuditResult:
    """A lower confidence bound on the ε of a mechanism, from its outputs on two neighbours.

    Each sample set is split at random in two halves. On the first half, candidate events E
    are scored: for 1-D samples, thresholds {x > t} and {x < t} at pooled quantiles (dense in
    the tails) and the most frequent repeated values {x = v}; for 1-D samples with at most 64
    distinct values, and for (n, d) samples binned per coordinate into joint cells (`bins`
    pooled-quantile bins; coordinates with few values keep them), unions of the top-j
    outcomes/cells ranked by empirical ratio (the Neyman–Pearson shape). In each direction
    (E likelier under a, or under b) the best-scoring event is then tested ONCE on the
    held-out half: Clopper–Pearson bounds P_fav(E) >= L and P_other(E) <= U, each at level
    (1 - confidence)/4 (Bonferroni over 2 directions x 2 bounds), and
    epsilon_lower = max(0, ln(L / U)), the larger of the two directions.

    Why it is a valid lower bound for ANY mechanism: the events are fixed by data independent
    of the held-out half, so the four bounds hold together with probability >= confidence,
    and then ε >= ln(P_fav(E) / P_other(E)) >= ln(L / U) (Def 1 applied to the event E).
    Samples within each set must be i.i.d. runs of the mechanism; a and b independent.

    References: DP-Sniper (Bichsel et al. 2021); the Clopper–Pearson audit (Jagielski, Ullman,
    Oprea 2020).

    Parameters
    ----------
    samples_a, samples_b : 1-D arrays (numbers, or strings as discrete outcomes) or (n, d)
        numeric arrays with equal d; at least 100 samples each; finite.
    confidence : the probability, in (0, 1), that the bound holds.
    rng : seed or Generator for the random split.
    bins : bins per coordinate for (n, d) samples (default: about (n / 100)^(1/d), in [2, 10]).
    """
    confidence = require_probability("confidence", confidence)
    a, b = _samples("samples_a", samples_a), _samples("samples_b", samples_b)
    if a.shape[1:] != b.shape[1:] or (a.dtype.kind in "US") != (b.dtype.kind in "US"):
        raise ValueError("samples_a and samples_b must have the same kind and dimension; got "
                         f"shapes {a.shape} and {b.shape}, dtypes {a.dtype} and {b.dtype}")
    if bins is not None:
        bins = require_int("bins", bins, low=2, high=1000)
    rng = as_rng(rng)
    (a1, a2), (b1, b2) = _split(a, rng), _split(b, rng)
    if a.ndim == 1:
        candidates = _events_1d(a1, b1)
    else:
        if bins is None:
            bins = int(np.clip(((len(a1) + len(b1)) / 100) ** (1 / a.shape[1]), 2, 10))
        candidates = _events_cells(a1, b1, bins)
    alpha = (1 - confidence) / 4
    halves = {"a": (a1, a2, candidates.k_a), "b": (b1, b2, candidates.k_b)}
    best = None
    for fav, other in (("a", "b"), ("b", "a")):
        (f1, f2, k_fav), (o1, o2, k_oth) = halves[fav], halves[other]
        score = _log_ratio_bound(k_fav, len(f1), k_oth, len(o1), alpha)
        description, member = candidates.build(int(np.argmax(score)))
        h = {"a": int(member(a2).sum()), "b": int(member(b2).sum())}   # the one held-out test
        lower = float(_cp_lower(h[fav], len(f2), alpha))
        upper = float(_cp_upper(h[other], len(o2), alpha))
        eps = max(0.0, math.log(lower / upper)) if lower > 0 else 0.0
        if best is None or eps > best.epsilon_lower:
            best = AuditResult(eps, description, fav, h["a"] / len(a2), h["b"] / len(b2),
                               lower, upper, len(a), len(b), confidence)
    return best


def _samples(name, values) -> np.ndarray:
    array = np.asarray(values)
    if array.dtype.kind in "US":
        if array.ndim != 1:
            raise ValueError(f"{name}: string outcomes must form a 1-D array; got shape {array.shape}")
    else:
        array = require_array(name, values)
        if array.dtype == bool:
            array = array.astype(np.int64)
        if array.ndim == 2 and array.shape[1] == 1:
            array = array[:, 0]
        if array.ndim not in (1, 2) or array.ndim == 2 and array.shape[1] == 0:
            raise ValueError(f"{name} must be 1-D (n,) or 2-D (n, d) with d >= 1; got shape {array.shape}")
    if len(array) < MIN_SAMPLES:
        raise ValueError(f"{name} needs at least {MIN_SAMPLES} samples (half choose the event, "
                         f"half test it; thousands give useful bounds); got {len(array)}")
    return array


def _split(x, rng):
    order = rng.permutation(len(x))
    return x[order[:len(x) // 2]], x[order[len(x) // 2:]]


def _cp_lower(k, n, alpha):
    """One-sided Clopper–Pearson: P(p < bound) <= alpha."""
    k = np.asarray(k, dtype=float)
    return np.where(k > 0, beta.ppf(alpha, np.maximum(k, 1), n - k + 1), 0.0)


def _cp_upper(k, n, alpha):
    """One-sided Clopper–Pearson: P(p > bound) <= alpha."""
    k = np.asarray(k, dtype=float)
    return np.where(k < n, beta.ppf(1 - alpha, k + 1, np.maximum(n - k, 1)), 1.0)


def _log_ratio_bound(k_num, n_num, k_den, n_den, alpha):
    """ln(lower(P_num) / upper(P_den)): the score of each candidate, -inf when k_num = 0."""
    with np.errstate(divide="ignore"):
        return np.log(_cp_lower(k_num, n_num, alpha)) - np.log(_cp_upper(k_den, n_den, alpha))


@dataclass
class _Candidates:
    k_a: np.ndarray   # count of each candidate event on the selection half of a
    k_b: np.ndarray
    build: Callable   # index -> (description, membership function on an array of samples)


def _fmt(v) -> str:
    return f"{v:.4g}" if isinstance(v, (float, np.floating)) else str(v)


def _events_1d(a1, b1) -> _Candidates:
    sa, sb = np.sort(a1), np.sort(b1)
    pool = np.sort(np.concatenate([sa, sb]))
    starts = np.flatnonzero(np.r_[True, pool[1:] != pool[:-1]])
    values, counts = pool[starts], np.diff(np.r_[starts, len(pool)])

    def count(s, v):
        return np.searchsorted(s, v, "right") - np.searchsorted(s, v, "left")

    if len(values) <= MAX_OUTCOMES:   # discrete: unions of outcomes
        def describe(chosen):
            shown = ", ".join(_fmt(v) for v in values[chosen[:6]])
            return f"x ∈ {{{shown}{', …' if len(chosen) > 6 else ''}}}", \
                lambda x: np.isin(x, values[chosen])
        return _unions(count(sa, values), count(sb, values), len(sa), len(sb), describe)

    tail = np.geomspace(1 / len(pool), 0.5, _THRESHOLDS)
    index = np.round(np.r_[tail, 1 - tail] * (len(pool) - 1)).astype(int)
    t = np.unique(pool[index])
    atoms = values[counts >= 2][np.argsort(-counts[counts >= 2], kind="stable")[:_ATOMS]]
    k_a = np.r_[len(sa) - np.searchsorted(sa, t, "right"), np.searchsorted(sa, t), count(sa, atoms)]
    k_b = np.r_[len(sb) - np.searchsorted(sb, t, "right"), np.searchsorted(sb, t), count(sb, atoms)]

    def build(i):
        if i < len(t):
            return f"x > {_fmt(t[i])}", lambda x: x > t[i]
        if i < 2 * len(t):
            return f"x < {_fmt(t[i - len(t)])}", lambda x: x < t[i - len(t)]
        v = atoms[i - 2 * len(t)]
        return f"x = {_fmt(v)}", lambda x: x == v
    return _Candidates(k_a, k_b, build)


def _unions(k_a, k_b, n_a, n_b, describe) -> _Candidates:
    """Unions of the top-j outcomes by empirical ratio P_a/P_b (descending, then ascending)."""
    ratio = ((k_a + 0.5) / n_a) / ((k_b + 0.5) / n_b)
    orders = [np.argsort(-ratio, kind="stable"), np.argsort(ratio, kind="stable")]
    cum_a = np.concatenate([np.cumsum(k_a[o]) for o in orders])
    cum_b = np.concatenate([np.cumsum(k_b[o]) for o in orders])

    def build(i):
        order, j = orders[i // len(k_a)], i % len(k_a) + 1
        return describe(np.sort(order[:j]))
    return _Candidates(cum_a, cum_b, build)


def _events_cells(a1, b1, bins) -> _Candidates:
    pool = np.concatenate([a1, b1])
    edges, labels = [], []
    for col in pool.T:
        distinct = np.unique(col)
        if len(distinct) <= bins:   # few values: one cell per value
            edges.append(distinct[1:])
            labels.append([f"= {_fmt(v)}" for v in distinct])
        else:                       # pooled-quantile bins
            e = np.unique(np.quantile(col, np.linspace(0, 1, bins + 1)[1:-1]))
            edges.append(e)
            ends = [-np.inf, *e, np.inf]
            labels.append([f"∈ [{_fmt(lo)}, {_fmt(hi)})" for lo, hi in zip(ends[:-1], ends[1:])])
    sizes = [len(e) + 1 for e in edges]

    def cell_ids(x):
        codes = np.stack([np.searchsorted(e, c, "right") for e, c in zip(edges, x.T)], axis=1)
        if math.prod(sizes) < 2 ** 62:   # mixed-radix integer id
            return codes @ np.cumprod([1, *sizes[:-1]]).astype(np.int64), codes
        codes = np.ascontiguousarray(codes, dtype=np.int64)   # too many cells: compare rows as bytes
        return codes.view(np.dtype((np.void, 8 * codes.shape[1]))).ravel(), codes

    held_out = {}   # cell ids of each held-out half, computed once for both directions

    def member_ids(x):
        if id(x) not in held_out:
            held_out[id(x)] = (x, cell_ids(x)[0])
        return held_out[id(x)][1]

    ids, codes = cell_ids(pool)
    cells, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    k_a = np.bincount(inverse[:len(a1)], minlength=len(cells))
    k_b = np.bincount(inverse[len(a1):], minlength=len(cells))

    def describe(chosen):
        def cell(c):
            return "(" + ", ".join(f"x[{j}] {labels[j][code]}"
                                   for j, code in enumerate(codes[first[c]])) + ")"
        text = " or ".join(cell(c) for c in chosen[:3])
        if len(chosen) > 3:
            text += f" or … ({len(chosen)} of {len(cells)} cells)"
        return text, lambda x: np.isin(member_ids(x), cells[chosen])
    return _unions(k_a, k_b, len(a1), len(b1), describe)


# ----------------------------------------------------------------------------- pan-privacy

def audit_pan_privacy(make_algorithm, stream_a, stream_b, intrusion_time, n_runs,
                      features=None, *, confidence=0.95, rng=None) -> AuditResult:
    """A lower confidence bound on the ε of pan-privacy against one intrusion at `intrusion_time`.

    Roth 2011, Def 3: M is ε-pan-private against one intrusion if, for every i, the pair
    (state after σ[:i], final output) is ε-DP. For each run, `alg = make_algorithm(rng_i)`
    (rng_i an independent child of `rng`) processes stream[:intrusion_time], an intruder copies
    `alg.state()`, the algorithm processes the rest, and `alg.output()` is released;
    `features(snapshot, output)` maps the pair to a 1-D vector of numbers (default: every
    numeric leaf of the state, flattened in order, then the output). `estimate_epsilon` is
    applied to the features of n_runs runs on each stream, so the bound is valid at the
    stated confidence for any algorithm; it is a lower bound on the pan-privacy ε for this
    pair of streams (user-level neighbours, Def 2, when one is the other minus a user) and
    this intrusion time. A state that stores many numbers needs a `features` function that
    keeps what an intruder would look at (the default bins every coordinate).
    """
    if not callable(make_algorithm):
        raise TypeError("make_algorithm must be a callable rng -> StreamAlgorithm; "
                        f"got {type(make_algorithm).__name__}")
    if features is not None and not callable(features):
        raise TypeError("features must be None or a callable (snapshot, output) -> numbers; "
                        f"got {type(features).__name__}")
    streams = {"stream_a": _stream("stream_a", stream_a), "stream_b": _stream("stream_b", stream_b)}
    lengths = {name: len(s) for name, s in streams.items()}
    t = require_int("intrusion_time", intrusion_time, low=0, high=min(lengths.values()),
                    note=f"len(stream_a) = {lengths['stream_a']}, len(stream_b) = {lengths['stream_b']}")
    n_runs = require_int("n_runs", n_runs, low=MIN_SAMPLES,
                         note="runs per stream: half choose the event, half test it")
    confidence = require_probability("confidence", confidence)
    rng = as_rng(rng)
    seeds = iter(np.random.SeedSequence(rng.integers(2 ** 63, size=4)).spawn(2 * n_runs))
    features = features or _default_features
    rows = {name: [] for name in streams}
    for name, stream in streams.items():
        for run in range(n_runs):
            alg = make_algorithm(np.random.Generator(np.random.PCG64(next(seeds))))   # as
            # default_rng(seed) builds it (numpy's docs; tested), without its set-up costs
            if not isinstance(alg, StreamAlgorithm):
                raise TypeError("make_algorithm must return a StreamAlgorithm; "
                                f"got {type(alg).__name__}")
            alg.process(stream[:t])
            snapshot = alg.state()
            alg.process(stream[t:])
            row = np.asarray(features(snapshot, alg.output()), dtype=float).ravel()
            first = rows["stream_a"][0] if rows["stream_a"] else row
            if row.size == 0 or row.size != first.size:
                raise ValueError(f"features must return the same positive number of values in "
                                 f"every run; got {first.size} in the first run and {row.size} "
                                 f"in run {run} on {name} (pass features= for a state of varying size)")
            rows[name].append(row)
    result = estimate_epsilon(np.array(rows["stream_a"]), np.array(rows["stream_b"]),
                              confidence=confidence, rng=rng)
    return replace(result, intrusion_time=t)


def _stream(name, stream):
    if isinstance(stream, (list, tuple, np.ndarray)):
        return stream
    if isinstance(stream, (str, bytes)) or not hasattr(stream, "__iter__"):
        raise TypeError(f"{name} must be a sequence of stream elements; got {type(stream).__name__}")
    return list(stream)


def _default_features(snapshot, output) -> np.ndarray:
    return np.concatenate(_numeric_leaves(snapshot, "state") + _numeric_leaves(output, "output"))


def _numeric_leaves(obj, path) -> list:
    if isinstance(obj, dict):
        return [leaf for k, v in obj.items() for leaf in _numeric_leaves(v, f"{path}[{k!r}]")]
    if isinstance(obj, (list, tuple)):
        return [leaf for i, v in enumerate(obj) for leaf in _numeric_leaves(v, f"{path}[{i}]")]
    if isinstance(obj, numbers.Real) or isinstance(obj, np.ndarray) and obj.dtype.kind in "biuf":
        return [np.asarray(obj, dtype=float).ravel()]
    raise TypeError(f"{path} is a {type(obj).__name__}, not numbers: the default features use "
                    "only numeric leaves; pass features=(snapshot, output) -> numbers")
