"""Density estimators that are NOT pan-private: the natural ideas that a single intrusion
breaks (Dwork 2010, §3: "Count-Min Sketch and subsampling, cannot be pan-private"; Dwork 2011,
"Pan-privacy"; Mir et al. 2011, §1: keeping IDs, hashing or encrypting them, a random
sample, sketches). Each releases a differentially private OUTPUT where it has one: what fails
is the state. `attacks.dictionary_attack` reads who appeared from each one's `state()`.
"""
from __future__ import annotations

import hashlib

import numpy as np

from panpriv_teach.core import StreamAlgorithm, as_rng
from panpriv_teach.density import sample_representatives
from panpriv_teach.mechanisms import laplace_mechanism
from panpriv_teach.sketches import CountMinSketch
from panpriv_teach.validation import (require_array, require_epsilon, require_in_universe,
                                      require_int)

__all__ = ["ExactSet", "HashedIDs", "SampledBits", "CountMinSketch", "keyed_hash", "STRAWMEN"]


def _stream(stream, universe_size):
    return require_in_universe("stream", require_array("stream", stream, integer=True, ndim=1),
                               universe_size)


def _element(x, universe_size):
    return require_int("x", x, low=0, high=universe_size - 1,
                       note=f"the universe has {universe_size} elements")


class ExactSet(StreamAlgorithm):
    """The density from the exact set of IDs seen; output density + Lap(1/(εN)).

    Privacy: the output is ε-DP (one user moves the count by 1, the density by 1/N). The
    state is the list of everyone who appeared: an intrusion reveals every user, so it is
    not ε-pan-private for any ε (Mir et al. 2011, §1: "Maintaining a list of IDs on-site
    will not work").
    """

    def __init__(self, universe_size, epsilon, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.epsilon = require_epsilon(epsilon)
        self._rng = as_rng(rng)
        self.ids = np.zeros(0, dtype=np.int64)

    def update(self, x) -> None:
        self.ids = np.union1d(self.ids, [_element(x, self.universe_size)])

    def process(self, stream) -> None:
        self.ids = np.union1d(self.ids, _stream(stream, self.universe_size))

    def output(self) -> float:
        return laplace_mechanism(len(self.ids) / self.universe_size, 1 / self.universe_size,
                                 self.epsilon, self._rng)

    def state(self) -> dict:
        return {"ids": self.ids.copy()}


def keyed_hash(key: bytes, ids) -> np.ndarray:
    """BLAKE2b keyed with `key` (a MAC), truncated to 64 bits, of each ID: uint64 array."""
    if not isinstance(key, bytes) or len(key) > 64:
        raise TypeError(f"key must be bytes of length at most 64 (a BLAKE2b key); got "
                        f"{type(key).__name__} {key!r}")
    ids = np.atleast_1d(require_array("ids", ids, integer=True))
    if ids.dtype.kind == "u" and ids.size and ids.max() > 2**63 - 1:
        raise ValueError(f"each entry of ids must fit int64 (hashed as 8 signed little-endian "
                         f"bytes); got {ids.max()!r}")
    # Each ID's 8 bytes go into a copy of the keyed hash's initial state (the same digest
    # as a fresh keyed BLAKE2b, without processing the key block again).
    keyed, data = hashlib.blake2b(key=key, digest_size=8), ids.astype("<i8").tobytes()
    digests = []
    for start in range(0, len(data), 8):
        h = keyed.copy()
        h.update(data[start:start + 8])
        digests.append(h.digest())
    return np.frombuffer(b"".join(digests), dtype="<u8").astype(np.uint64)


class HashedIDs(StreamAlgorithm):
    """The density from the set of keyed hashes of the IDs seen; output + Lap(1/(εN)).

    The IDs are hashed with a cryptographic keyed hash (BLAKE2b with a random 16-byte key), so
    the memory holds no ID in the clear. Privacy: the output is ε-DP; the state is not
    pan-private: the key is in memory too (the algorithm needs it to hash new arrivals), and
    an intruder who reads it hashes every possible ID and looks each one up: a dictionary
    attack over a universe of N IDs costs N hashes (Mir et al. 2011, §1; Dwork 2011 on
    token-based hashing of query logs). Encrypting the IDs fails the same way.
    """

    def __init__(self, universe_size, epsilon, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1)
        self.epsilon = require_epsilon(epsilon)
        self._rng = as_rng(rng)
        self.key = self._rng.bytes(16)
        self.hashes = np.zeros(0, dtype=np.uint64)

    def update(self, x) -> None:
        self.hashes = np.union1d(self.hashes, keyed_hash(self.key, _element(x, self.universe_size)))

    def process(self, stream) -> None:
        self.hashes = np.union1d(self.hashes, keyed_hash(self.key, np.unique(_stream(stream, self.universe_size))))

    def output(self) -> float:
        return laplace_mechanism(len(self.hashes) / self.universe_size, 1 / self.universe_size,
                                 self.epsilon, self._rng)

    def state(self) -> dict:
        return {"key": self.key, "hashes": self.hashes.copy()}


class SampledBits(StreamAlgorithm):
    """The density of a random sample M of m users, each with an EXACT bit "appeared".

    This is Fig 1 without randomized response (D0 = always 0, D1 = always 1), i.e.
    subsampling. Output: the fraction of ones + Lap(1/(εm)), ε-DP (one user moves it by 1/m).
    Privacy: not pan-private: the intruder reads M and the bits, and learns exactly whether
    each sampled user appeared. Sampling does not help the sampled (Dwork 2010, §3:
    "subsampling ... cannot be pan-private"; Mir et al. 2011, §1: "it compromises the
    sampled IDs"); the event "x ∈ M and b_x = 1" has probability m/N > 0 with x and 0
    without, so no ε works.
    """

    def __init__(self, universe_size, m, epsilon, rng=None):
        self.universe_size = require_int("universe_size", universe_size, low=1, high=2**63 - 1,
                                         note="elements are stored as int64")
        self.m = require_int("m", m, low=1, high=self.universe_size)
        self.epsilon = require_epsilon(epsilon)
        self._rng = as_rng(rng)
        self.M = sample_representatives(self.universe_size, self.m, self._rng)
        self.b = np.zeros(self.m, dtype=np.uint8)

    def update(self, x) -> None:
        self.b[np.isin(self.M, [_element(x, self.universe_size)])] = 1

    def process(self, stream) -> None:
        self.b[np.isin(self.M, _stream(stream, self.universe_size))] = 1

    def output(self) -> float:
        return laplace_mechanism(float(self.b.mean()), 1 / self.m, self.epsilon, self._rng)

    def state(self) -> dict:
        return {"M": self.M.copy(), "b": self.b.copy()}


STRAWMEN = (ExactSet, HashedIDs, SampledBits, CountMinSketch)
