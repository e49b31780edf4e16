"""Synthetic data streams and the neighbouring relations that privacy is defined by.

A stream is a 1-D int array of elements of the universe X = {0, ..., universe_size - 1},
or a fully dynamic stream: a (k, 2) int array of updates (i, d) (Mir et al. 2011, §2.1).
Adjacency: Dwork 2010, §3 (X-adjacency) and §5 (continual observation);
Roth 2011, Def 2; Mir et al. 2011, Def 4 and §5 (event-level neighbours).
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.core import as_rng
from panpriv_teach.validation import (require_array, require_in_universe, require_int,
                                      require_real)

__all__ = ["zipf_probabilities", "zipf_visitors", "bit_stream", "sparse_bit_stream",
           "dynamic_stream", "frequencies", "remove_user", "user_neighbours",
           "event_neighbours"]


# ----------------------------------------------------------------------------------------
# Generators
# ----------------------------------------------------------------------------------------

def zipf_probabilities(universe_size, exponent=1.1) -> np.ndarray:
    """The truncated Zipf law over ranks 1..universe_size: P(rank r) ∝ r^-exponent."""
    universe_size = require_int("universe_size", universe_size, low=1)
    exponent = require_real("exponent", exponent, low=0.0, high=math.inf, high_open=True)
    weights = np.arange(1, universe_size + 1, dtype=float) ** -exponent
    return weights / weights.sum()


def zipf_visitors(n, universe_size, exponent=1.1, rng=None, return_ranking=False):
    """n visits (IDs in [0, universe_size)) drawn i.i.d. from a truncated Zipf law.

    Rank r has probability ∝ r^-exponent (`zipf_probabilities`); ranks are mapped to IDs
    by a uniformly random permutation, so an ID says nothing about its popularity.
    Returns an int64 array of length n; with `return_ranking=True` also
    `ids_by_rank` (ids_by_rank[r - 1] is the ID of rank r).
    """
    n = require_int("n", n, low=0)
    probabilities = zipf_probabilities(universe_size, exponent)
    rng = as_rng(rng)
    ids_by_rank = rng.permutation(len(probabilities)).astype(np.int64)
    visits = ids_by_rank[rng.choice(len(probabilities), size=n, p=probabilities)]
    return (visits, ids_by_rank) if return_ranking else visits


def bit_stream(T, density, rng=None) -> np.ndarray:
    """T i.i.d. Bernoulli(`density`) bits: the input of a counter (Dwork 2010, §5-6)."""
    T = require_int("T", T, low=0)
    density = require_real("density", density, low=0.0, high=1.0)
    return (as_rng(rng).random(T) < density).astype(np.int64)


def sparse_bit_stream(T, n_ones, rng=None) -> np.ndarray:
    """T bits with exactly `n_ones` ones at uniformly random positions."""
    T = require_int("T", T, low=0)
    n_ones = require_int("n_ones", n_ones, low=0, high=T, note="at most T ones fit in T steps")
    bits = np.zeros(T, dtype=np.int64)
    bits[as_rng(rng).choice(T, size=n_ones, replace=False)] = 1
    return bits


def dynamic_stream(universe_size, n_users, rng=None, leave_probability=0.5, max_visits=1):
    """A fully dynamic stream of visits: (i, +1) when user i enters, (i, -1) when she leaves.

    Model (Mir et al. 2011, §2.1): an update is (i, d) ∈ U × Z; after t updates the state
    of ID i is a_i = sum_{j <= t: i_j = i} d_j, and in the fully dynamic model
    a_i >= 0 at all times. Here `n_users` distinct IDs, chosen uniformly from U, each enter
    V times (V uniform in {1, ..., max_visits}); each entry is followed, at a later time,
    by a matching exit with probability `leave_probability`. Events are interleaved at
    random times, so every prefix has a_i >= 0, and a_i <= Z = max_visits.
    Returns an int64 array of shape (k, 2), one (i, d) row per update in time order.
    """
    universe_size = require_int("universe_size", universe_size, low=1)
    n_users = require_int("n_users", n_users, low=0, high=universe_size,
                          note="users have distinct IDs in the universe")
    leave_probability = require_real("leave_probability", leave_probability, low=0.0, high=1.0)
    max_visits = require_int("max_visits", max_visits, low=1)
    rng = as_rng(rng)
    users = rng.choice(universe_size, size=n_users, replace=False)
    entries = np.repeat(users, rng.integers(1, max_visits + 1, size=n_users))
    leaves = rng.random(len(entries)) < leave_probability
    times = rng.random((2, len(entries)))
    enter_time, leave_time = times.min(axis=0), times.max(axis=0)  # an exit follows its entry
    ids = np.concatenate([entries, entries[leaves]])
    deltas = np.concatenate([np.ones(len(entries), np.int64), -np.ones(leaves.sum(), np.int64)])
    order = np.argsort(np.concatenate([enter_time, leave_time[leaves]]), kind="stable")
    return np.column_stack([ids[order], deltas[order]]).astype(np.int64)


def frequencies(updates, universe_size) -> np.ndarray:
    """The state vector a: a_i = sum of the updates to i (Mir et al. 2011, §2.1).

    `updates` is a (k, 2) array of (i, d) rows, or a 1-D stream of IDs (each counts +1).
    Returns an int64 array of length universe_size.
    """
    universe_size = require_int("universe_size", universe_size, low=1)
    updates, dynamic = _stream("updates", updates, universe_size)
    counts = np.zeros(universe_size, dtype=np.int64)
    if dynamic:
        np.add.at(counts, updates[:, 0], updates[:, 1])
    else:
        counts += np.bincount(updates, minlength=universe_size)
    return counts


# ----------------------------------------------------------------------------------------
# Neighbouring streams
# ----------------------------------------------------------------------------------------

def _stream(name, stream, universe_size=None):
    """(int64 copy of a stream, is it a (k, 2) dynamic stream?); IDs checked >= 0 / in X."""
    array = require_array(name, stream, integer=True)
    if array.ndim == 2 and array.shape[1] == 2:
        ids, dynamic = array[:, 0], True
    elif array.ndim == 1:
        ids, dynamic = array, False
    else:
        raise ValueError(f"{name} must be a 1-D stream of IDs or a (k, 2) array of (id, delta) "
                         f"updates; got shape {array.shape}")
    if universe_size is not None:
        require_in_universe(f"{name} (its IDs, column 0)" if dynamic else name, ids, universe_size)
    elif ids.size and ids.min() < 0:
        raise ValueError(f"the IDs of {name} must be non-negative integers; got {ids.min()}")
    return array.astype(np.int64), dynamic


def _element(name, value, universe_size):
    high = None if universe_size is None else universe_size - 1
    return require_int(name, value, low=0, high=high)


def _optional_universe(universe_size):
    return None if universe_size is None else require_int("universe_size", universe_size, low=1)


def _random_other(current, universe_size, rng, name):
    """A uniform element of the universe other than `current`."""
    if universe_size is None or universe_size < 2:
        raise ValueError(f'{name}="random" needs universe_size >= 2 (to draw from); '
                         f"got universe_size={universe_size!r}")
    other = int(as_rng(rng).integers(universe_size - 1))
    return other + (other >= current)


def remove_user(stream, x, universe_size=None) -> np.ndarray:
    """σ^{-x}: the stream with every occurrence of user x removed (Roth 2011, Def 2).

    For a (k, 2) dynamic stream, every update (x, d) is removed. (σ, σ^{-x}) is the
    canonical pair of user-level neighbours: x opts in or out, however often x appears.
    """
    universe_size = _optional_universe(universe_size)
    stream, dynamic = _stream("stream", stream, universe_size)
    x = _element("x", x, universe_size)
    ids = stream[:, 0] if dynamic else stream
    return stream[ids != x]


def user_neighbours(stream, x, replacement=None, rng=None, universe_size=None) -> np.ndarray:
    """A user-level neighbour of `stream` with respect to user x.

    Dwork 2010, §3: "S and S' are X-adjacent if they differ only in the presence or absence
    of any number of occurrences of a single element x ∈ X. That is, the stream[s] obtained
    by deleting all occurrences of x from S and S' are identical." (Roth 2011, Def 2:
    σ^{-x} = σ'^{-x}.) So X-adjacency allows adding or removing occurrences of x only;
    `replacement=None` returns the extreme such neighbour, σ^{-x} (as `remove_user`).

    Changing x into another element x' is NOT X-adjacent (it also changes the occurrences
    of x'); it is two X-adjacency steps (remove x, then add x'), so by group privacy an
    epsilon X-adjacent guarantee gives 2 epsilon for it. It is, however, the adjacency of
    Dwork 2010, §5 ("change some of the instances of x in S to instances of x'"), which
    keeps the length (time) fixed, and Mir et al. 2011, Def 4 for dynamic streams (the
    updates of ID i replaced by updates of j ≠ i with the same total). `replacement=x'`
    (an element ≠ x) returns the stream with ALL occurrences of x changed to x'; with
    `replacement="random"` x' is drawn uniformly from the rest of the universe (needs
    `universe_size`). For a (k, 2) stream the IDs change and the deltas are kept.
    """
    universe_size = _optional_universe(universe_size)
    stream, dynamic = _stream("stream", stream, universe_size)
    x = _element("x", x, universe_size)
    if replacement is None:
        return remove_user(stream, x)
    if isinstance(replacement, str) and replacement == "random":
        replacement = _random_other(x, universe_size, rng, "replacement")
    replacement = _element("replacement", replacement, universe_size)
    if replacement == x:
        raise ValueError(f"replacement must differ from x (x' ≠ x); got {replacement!r}")
    ids = stream[:, 0] if dynamic else stream
    ids[ids == x] = replacement  # `stream` is a copy, `ids` a view of it
    return stream


def event_neighbours(stream, t, value=None, rng=None, universe_size=None) -> np.ndarray:
    """An event-level neighbour of `stream`: the same stream with only time step t changed.

    Dwork 2010, §5 defines Adj(S, S') iff "∃ x, x' ∈ X and ∃ T ⊆ [|S|] such that
    S|_{T: x → x'} = S'" (some instances of one x changed to x'; lengths stay equal).
    With T = all the instances of x this is user-level adjacency at fixed length
    (`user_neighbours(..., replacement=x')`); the counters of §6-7 and Local-mechanisms notes, Thm 7 protect a
    single event, i.e. |T| = 1: streams that differ in one time step. That is what this
    returns: a copy with element t (0-based; time t + 1 in the sources) set to `value`:
    - value=None flips a bit (the stream must be 0/1: a counter's input, where 0 means
      "nothing happened");
    - value=an element ≠ stream[t], or "random" (uniform over the other elements of the
      universe; needs `universe_size`).
    For a (k, 2) dynamic stream, update t = (i_t, d_t) becomes (value, d_t) with
    value ≠ i_t, the event-level neighbours of Mir et al. 2011, §5. (Neither source requires
    the neighbour to keep a_i >= 0: check with `frequencies` if it matters.)
    """
    universe_size = _optional_universe(universe_size)
    stream, dynamic = _stream("stream", stream, universe_size)
    if len(stream) == 0:
        raise ValueError("stream must not be empty (an event-level neighbour changes one step)")
    t = require_int("t", t, low=0, high=len(stream) - 1, note="a 0-based time step of stream")
    ids = stream[:, 0] if dynamic else stream
    current = int(ids[t])
    if value is None:
        if dynamic or not np.isin(stream, (0, 1)).all():
            raise ValueError("value=None flips a bit, so stream must be a 1-D 0/1 stream; "
                             "give value (an element, or 'random') for other streams")
        value = 1 - current
    elif isinstance(value, str) and value == "random":
        value = _random_other(current, universe_size, rng, "value")
    value = _element("value", value, universe_size)
    if value == current:
        raise ValueError(f"value must differ from stream[t] = {current} (an event-level "
                         f"neighbour changes step t); got {value!r}")
    ids[t] = value
    return stream
