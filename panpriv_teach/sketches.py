"""Sketches of a stream's frequency vector: the public home of every sketch in the course.

Defined here: the classic, non-private Count-Min sketch — what the streaming literature would
use, and what an intruder breaks with a dictionary attack (Dwork 2010, §3: "Count-Min Sketch
... cannot be pan-private"; Mir et al. 2011, §1). Re-exported from their own modules: the
p-stable sketch and Alg 1 (`panpriv_teach.stable`), the cropped sum (Alg 2) and the
heavy-hitters count (Alg 3) (`panpriv_teach.cropped`) of Mir et al. 2011.
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.validation import (require_array, require_in_universe, require_int,
                                      require_probability, require_real)

from panpriv_teach.cropped import CroppedSum, HeavyHittersCount
from panpriv_teach.stable import PanPrivateDistinctCount, StableSketch

__all__ = ["CountMinSketch", "HASH_PRIME", "StableSketch", "PanPrivateDistinctCount",
           "CroppedSum", "HeavyHittersCount"]

HASH_PRIME = 2 ** 31 - 1   # hash h(x) = ((a x + b) mod p) mod width, for x < p


class CountMinSketch(StreamAlgorithm):
    """Point queries on the frequency vector a (a_x = net count of x) of a stream.

    Algorithm (Cormode & Muthukrishnan 2005): a depth × width table of counters and one
    pairwise-independent hash h_j(x) = ((a_j x + b_j) mod p) mod width per row, p = 2^31 - 1.
    An arrival of x (or an update (x, d)) adds 1 (or d) to counters[j, h_j(x)] in every row;
    `estimate(x)` = min_j counters[j, h_j(x)].

    Accuracy: for non-negative frequencies, a_x <= estimate(x), and
    estimate(x) <= a_x + (e/width) ||a||_1 except with probability e^-depth
    (`with_accuracy(error, failure_probability)` picks width = ⌈e/error⌉,
    depth = ⌈ln(1/failure_probability)⌉).

    Privacy: NONE, not even output privacy, and NOT pan-private: the counters and the hash
    parameters are in memory (`state()`), so an intruder recomputes h_j(x) for every
    candidate x and reads whether all its counters are positive; a user who appeared always
    passes, one who did not passes only by colliding in every row (a dictionary attack:
    `attacks.dictionary_attack`). Hashing hides nothing from someone who holds the hash
    functions (Mir et al. 2011, §1).

    Parameters
    ----------
    width, depth : the table's size.
    universe_size : elements are 0..universe_size-1 (at most p = 2^31 - 1).
    rng : seed or Generator for the hash parameters.
    """

    def __init__(self, width, depth, universe_size=HASH_PRIME, rng=None):
        self.width = require_int("width", width, low=1)
        self.depth = require_int("depth", depth, low=1)
        self.universe_size = require_int("universe_size", universe_size, low=1, high=HASH_PRIME,
                                         note="the hash family works modulo p = 2^31 - 1")
        rng = as_rng(rng)
        self.a = rng.integers(1, HASH_PRIME, self.depth, dtype=np.int64)
        self.b = rng.integers(0, HASH_PRIME, self.depth, dtype=np.int64)
        self.counters = np.zeros((self.depth, self.width), dtype=np.int64)

    @classmethod
    def with_accuracy(cls, error, failure_probability, universe_size=HASH_PRIME, rng=None):
        """A sketch with estimate(x) <= a_x + error·||a||_1 except w.p. failure_probability."""
        error = require_real("error", error, low=math.e / HASH_PRIME, high=1.0, high_open=True,
                             note="the additive error as a fraction of ||a||_1; below e/p a row "
                             "would need more than p = 2^31 - 1 counters, and h_j(x) < p")
        failure_probability = require_probability("failure_probability", failure_probability)
        return cls(math.ceil(math.e / error), math.ceil(-math.log(failure_probability)),
                   universe_size, rng)

    @classmethod
    def from_state(cls, state) -> "CountMinSketch":
        """Rebuild a sketch from a snapshot (what an intruder can do with `state()`)."""
        sketch = cls.__new__(cls)
        sketch.counters = np.array(state["counters"], dtype=np.int64)
        sketch.depth, sketch.width = sketch.counters.shape
        sketch.a, sketch.b = np.array(state["a"], np.int64), np.array(state["b"], np.int64)
        sketch.universe_size = int(state["universe_size"])
        return sketch

    def buckets(self, x) -> np.ndarray:
        """h_j(x) for every row j: shape (depth,) for one x, (depth, n) for an array."""
        x = np.asarray(x, dtype=np.int64)
        a, b = (self.a, self.b) if x.ndim == 0 else (self.a[:, None], self.b[:, None])
        return (a * x + b) % HASH_PRIME % self.width

    def update(self, x, delta=1) -> None:
        """Add `delta` (default 1: an arrival) to the counters of x."""
        x = require_int("x", x, low=0, high=self.universe_size - 1,
                        note=f"the universe has {self.universe_size} elements")
        delta = require_int("delta", delta)
        self.counters[np.arange(self.depth), self.buckets(x)] += delta

    def process(self, stream) -> None:
        """A 1-D stream of arrivals, or a (k, 2) array of updates (x, d). Counters add up,
        so the result is exactly that of `update` on each element."""
        stream = require_array("stream", stream, integer=True)
        if stream.ndim == 2 and stream.shape[1] == 2:
            ids, deltas = stream[:, 0], stream[:, 1]
        elif stream.ndim == 1:
            ids, deltas = stream, None
        else:
            raise ValueError("stream must be a 1-D array of elements or a (k, 2) array of "
                             f"(element, delta) updates; got shape {stream.shape}")
        require_in_universe("stream", ids, self.universe_size)
        for j, row in enumerate(self.buckets(ids)):
            self.counters[j] += np.bincount(row, weights=deltas, minlength=self.width).astype(np.int64)

    def estimate(self, x):
        """min_j counters[j, h_j(x)]: an int for one x, an array for an array of x."""
        x = require_in_universe("x", x, self.universe_size)
        values = self.counters[np.arange(self.depth)[:, None] if x.ndim else np.arange(self.depth),
                               self.buckets(x)]
        return int(values.min()) if x.ndim == 0 else values.min(axis=0)

    def output(self) -> np.ndarray:
        """The sketch itself (a copy of the counters): what a Count-Min sketch releases, and
        what point queries are answered from. No noise: not private."""
        return self.counters.copy()

    def state(self) -> dict:
        """What an intruder sees: the counters AND the hash functions' parameters."""
        return {"counters": self.counters.copy(), "a": self.a.copy(), "b": self.b.copy(),
                "prime": HASH_PRIME, "width": self.width, "depth": self.depth,
                "universe_size": self.universe_size}

    def _params(self) -> dict:
        return {"width": self.width, "depth": self.depth}
