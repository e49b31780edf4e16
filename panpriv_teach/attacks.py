"""Attacks that show why privacy needs a definition: what goes wrong without one.

Defined here: the differencing attack of Dwork 2011 ("How" is hard: large query sets), with
the averaging that defeats naive fresh noise; the dictionary attack of an intruder on a
streaming algorithm's memory (Mir et al. 2011, §1); the floating-point attack on the textbook
Laplace sampler (Mironov 2012, §3). Re-exported from their own modules (module 07): Dwork 2011,
Thm 1's exhaustive reconstruction and LP decoding (`panpriv_teach.reconstruction`), and the
intrusion + noisy-decoding attack of Mir et al. 2011, §4 (`panpriv_teach.intrusion`).
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.intrusion import intrusion_decoding_attack
from panpriv_teach.reconstruction import reconstruct_exhaustive, reconstruct_lp
from panpriv_teach.validation import require_array, require_int

__all__ = ["differencing_attack", "dictionary_attack", "floating_point_attack", "reconstruct_exhaustive",
           "reconstruct_lp", "intrusion_decoding_attack"]


def differencing_attack(answer, n: int, target: int, repeats: int = 1) -> float:
    """Estimate row `target`'s bit from two "large" counting queries (Dwork 2011, "How" is hard).

    `answer(mask)` returns a (possibly noisy) count of the ones among the rows selected by
    the boolean `mask` of length n. The attack asks "how many rows have the trait?" and
    "how many rows, not named `target`, have the trait?", `repeats` times each, and returns
    the average difference: exactly the target's bit when answers are exact, and close to it
    when fresh zero-mean noise is averaged away (the naive-noise failure of Dwork 2011).
    """
    n = require_int("n", n, low=1)
    target = require_int("target", target, low=0, high=n - 1)
    repeats = require_int("repeats", repeats, low=1)
    everyone = np.ones(n, dtype=bool)
    all_but_target = everyone.copy()
    all_but_target[target] = False
    differences = [float(answer(everyone)) - float(answer(all_but_target)) for _ in range(repeats)]
    return float(np.mean(differences))


def dictionary_attack(state, universe) -> np.ndarray:
    """Who appeared in the stream, according to an intruder's snapshot `state` of memory.

    The intruder knows the algorithm (the code is not secret) and tries every candidate ID
    of `universe` (an int N for 0..N-1, or an array of candidate IDs: the "dictionary"):
    - {"ids"} (strawmen.ExactSet): the candidates in the list;
    - {"key", "hashes"} (strawmen.HashedIDs): hash each candidate with the key read from
      memory and look it up (Mir et al. 2011, §1);
    - {"counters", "a", "b"} (sketches.CountMinSketch): rebuild the hash functions from
      their parameters; a candidate is flagged when all its counters are positive (every
      user who appeared is flagged; others only when they collide in every row);
    - {"M", "b"} (strawmen.SampledBits, density.DensityEstimator): the representatives x
      with b_x = 1. For SampledBits this is exactly the sampled users who appeared. For the
      pan-private DensityEstimator it is the best guess from one bit, and a poor one: the
      likelihood ratio of a bit is at most 1 + ε/2 (Claim 4.1), so about half of the flagged
      users never appeared.
    Returns the sorted array of flagged candidates.
    """
    if isinstance(universe, (int, np.integer)) and not isinstance(universe, bool):
        candidates = np.arange(require_int("universe", universe, low=1), dtype=np.int64)
    else:
        candidates = np.unique(require_array("universe", universe, integer=True, ndim=1))
    if not isinstance(state, dict):
        raise TypeError(f"state must be a dict (an algorithm's state()); got {type(state).__name__}")
    keys = set(state)
    if "ids" in keys:
        flagged = np.isin(candidates, state["ids"])
    elif {"key", "hashes"} <= keys:
        from panpriv_teach.strawmen import keyed_hash
        flagged = np.isin(keyed_hash(state["key"], candidates), state["hashes"])
    elif {"counters", "a", "b"} <= keys:
        from panpriv_teach.sketches import CountMinSketch
        sketch = CountMinSketch.from_state(state)
        inside = (candidates >= 0) & (candidates < sketch.universe_size)
        flagged = np.zeros(len(candidates), dtype=bool)
        flagged[inside] = sketch.estimate(candidates[inside]) > 0
    elif {"M", "b"} <= keys:
        flagged = np.isin(candidates, np.asarray(state["M"])[np.asarray(state["b"]) == 1])
    else:
        raise ValueError("state must hold 'ids', or 'key' and 'hashes', or 'counters' with the "
                         f"hash parameters 'a' and 'b', or 'M' and 'b'; got keys {sorted(keys)}")
    return candidates[flagged]


_UNIFORMS = 2**53   # numpy's uniform doubles: k 2^-53, k = 0 .. 2^53 - 1


def _unsafe_release(value: float, scale: float, k: int) -> float:
    """What `laplace_mechanism_unsafe` releases for `value` when numpy's uniform is k 2^-53:
    numpy's random_laplace computes loc - scale log(2 - U - U) for U >= 1/2 and
    loc + scale log(U + U) otherwise (loc = 0), in IEEE doubles with the C library's log,
    which is math.log's; the mechanism then adds `value`."""
    u = k / _UNIFORMS
    noise = 0.0 - scale * math.log(2.0 - u - u) if u >= 0.5 else 0.0 + scale * math.log(u + u)
    return value + noise


def _can_produce(release: float, value: float, scale: float) -> bool:
    """Whether some uniform k in 1 .. 2^53 - 1 (numpy rejects 0) makes the unsafe sampler
    output exactly `release` from `value`. The output is non-decreasing in k (log, the
    products and the sum are monotone in IEEE arithmetic), so a bisection for the least k
    whose output is >= release decides it exactly in 53 steps."""
    lo, hi = 1, _UNIFORMS - 1
    if not _unsafe_release(value, scale, lo) <= release <= _unsafe_release(value, scale, hi):
        return False
    while lo < hi:
        mid = (lo + hi) // 2
        if _unsafe_release(value, scale, mid) < release:
            lo = mid + 1
        else:
            hi = mid
    return _unsafe_release(value, scale, lo) == release


def floating_point_attack(releases, candidates, sensitivity, epsilon) -> np.ndarray:
    """Which candidate inputs could have produced each release of `laplace_mechanism_unsafe`.

    The textbook sampler releases value + scale·log(2U) (or −scale·log(2 − 2U)) with U one of
    the 2^53 uniform doubles numpy draws, scale = sensitivity/epsilon. Only about 2^53 doubles
    can come out for a given value, and which ones depends on the value: a release that one
    candidate can produce and another cannot names the input outright, whatever epsilon says
    (Mironov 2012, §3). The test is exact: a bisection over the 2^53 uniforms.

    Parameters
    ----------
    releases : array-like of floats, the released values (any shape; flattened).
    candidates : array-like of floats, the inputs the attacker considers (e.g. [0, 1]).
    sensitivity, epsilon : the mechanism's parameters (the attacker knows the code).

    Returns
    -------
    A boolean array of shape (len(releases), len(candidates)): entry [i, j] is True when
    candidate j can produce release i exactly. A row with a single True identifies the input;
    the float-safe `laplace_mechanism` releases grid points, which give nothing away.
    """
    from panpriv_teach.mechanisms import _laplace_parameters, _real_array
    sensitivity, epsilon = _laplace_parameters(sensitivity, epsilon)
    releases = _real_array("releases", releases).astype(float).ravel()
    candidates = _real_array("candidates", candidates, nonempty=True).astype(float).ravel()
    scale = sensitivity / epsilon
    return np.array([[_can_produce(float(y), float(x), scale) for x in candidates]
                     for y in releases], dtype=bool).reshape(len(releases), len(candidates))
