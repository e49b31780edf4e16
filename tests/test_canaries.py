"""Issue 9, canaries: an algorithm that claims pan-privacy keeps no copy of a user's ID, nor of
how often the user came, anywhere in its memory, and the same check catches every strawman.

Each algorithm processes a stream in which a canary user appears many times; the whole object
is then pickled (everything it holds, not just `state()`: the rng, caches, bookkeeping) and the
bytes are searched for the canary's encodings: as int64, int32 and float64 (little-endian, as
numpy stores them) and as a decimal string (bounded by non-digits, in a binary pickle and in a
protocol-0 pickle, which writes Python ints and floats in decimal). Canaries:
- ID = 987_654_321, the canary's identifier (in universes large enough to hold it);
- OCCURRENCES = 3_517, how often it appears (an algorithm keeping per-user counts would hold it);
- ONES = 12_345, the exact number of ones seen by a counter at the intrusion.
An ID that is part of the algorithm's public sample (DensityEstimator's M, ...) is public by
design: the canaries are chosen outside it (asserted), except where a strawman is shown to be
broken precisely because of it (SampledBits).

False positives. The values differ from every parameter (N, m, T, seeds, lengths) and from
each other, and are asserted to be outside the public samples. What remains is chance: B bytes
of (pseudo)random data contain a given 4-byte pattern with probability <= B/2^32 (the largest
pair of pickles here, PPCum's 0.5 MB + 3.1 MB, gives < 1e-3 for its one int32 pattern; the
others are far smaller), an 8-byte pattern with probability <= B/2^64; a
decimal string of d digits bounded by non-digits is rarer still (random floats written by
protocol 0 have 16-17 digits, so they match a 4-digit canary only if the digits after the point
are exactly it). Everything is seeded, so a chance match would fail the same way on every run
(then pick another seed): it can never make the test flaky.
"""
import pickle
import re
import struct

import numpy as np
import pytest

from panpriv_teach import continual, counters, cropped, density, stable, strawmen
from panpriv_teach.core import StreamAlgorithm
from panpriv_teach.sketches import CountMinSketch

ID = 987_654_321
OCCURRENCES = 3_517
ONES = 12_345
N = 10**10                       # a universe holding ID
T = 2**15                        # counters: intrusion at t = 2^14, all ONES before it
INTRUSION = 2**14


def encodings(value) -> dict:
    """The byte patterns that would betray `value` (an int) in a pickle."""
    out = {"int64": struct.pack("<q", value), "float64": struct.pack("<d", float(value)),
           "decimal": re.compile(rb"(?<![0-9])" + str(value).encode() + rb"(?![0-9])")}
    if -2**31 <= value < 2**31:
        out["int32"] = struct.pack("<i", value)
    if 0 <= value < 2**64:
        out["uint64"] = struct.pack("<Q", value)
    return out


def found(obj, values) -> list:
    """'value:encoding' for every canary value whose encoding occurs in a pickle of `obj`."""
    blobs = [pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), pickle.dumps(obj, protocol=0)]
    hits = set()
    for value in values:
        for kind, pattern in encodings(value).items():
            for blob in blobs:
                if (pattern.search(blob) if kind == "decimal" else pattern in blob):
                    hits.add(f"{value}:{kind}")
    return sorted(hits)


def id_stream(seed, universe=N, others=2_000) -> np.ndarray:
    """`others` random visitors and the canary ID, OCCURRENCES times, shuffled."""
    rng = np.random.default_rng(seed)
    visitors = rng.integers(0, universe, others)
    visitors = visitors[visitors != ID]
    stream = np.concatenate([visitors, np.full(OCCURRENCES, ID)])
    return rng.permutation(stream)


def bit_stream(seed) -> np.ndarray:
    """T bits: exactly ONES ones, all among the first INTRUSION steps."""
    bits = np.zeros(T, dtype=np.int64)
    bits[np.random.default_rng(seed).choice(INTRUSION, ONES, replace=False)] = 1
    return bits


def dynamic_updates(seed, universe, canary, others=200, alternate=False) -> np.ndarray:
    """(i, d) updates: `canary` OCCURRENCES times (+1 each, or alternately +1/-1 so that its
    state stays in {0, 1}), and `others` +1 updates of other IDs, interleaved."""
    rng = np.random.default_rng(seed)
    deltas = np.where(np.arange(OCCURRENCES) % 2 == 1, -1, 1) if alternate else np.ones(OCCURRENCES, int)
    rest = rng.choice(np.setdiff1d(np.arange(universe), [canary]), others)
    canary_rows = np.column_stack([np.full(OCCURRENCES, canary), deltas])
    rest_rows = np.column_stack([rest, np.ones(others, int)])
    # keep the canary's own updates in order (a prefix sum stays >= 0), interleave the rest
    where = np.sort(rng.choice(OCCURRENCES + others, OCCURRENCES, replace=False))
    rows = np.empty((OCCURRENCES + others, 2), dtype=np.int64)
    mask = np.zeros(len(rows), bool)
    mask[where] = True
    rows[mask], rows[~mask] = canary_rows, rest_rows
    return rows


# ------------------------------------------------------------------ pan-private: nothing found

def _density_estimator():
    est = density.DensityEstimator(N, 0.5, m=1_000, rng=11)
    assert ID not in est.M and OCCURRENCES not in est.M   # canaries outside the public sample
    stream = id_stream(1)
    est.process(stream[:-50])
    for x in stream[-50:]:            # the slow path too
        est.update(int(x))
    return est, (ID, OCCURRENCES)


def _distinct_count():
    est = density.DistinctCountEstimator(2**31 - 1, 1.0, 256, 0.1, rng=13)
    # Every level i samples 256 representatives of its hashed universe X_i, |X_i| = 2^i, so
    # small numbers such as 3517 are in some level's public M with probability about 12 %
    # (with seed 12 they are): the canary values must be outside every public sample.
    # (h_i(ID) < 2^i is a small bucket number, possibly in that level's M: public by design.)
    for level in est.levels:
        assert ID not in level.M and OCCURRENCES not in level.M
    est.process(id_stream(2, universe=2**31 - 1))
    est.update(ID)
    return est, (ID, OCCURRENCES)


def _continual_density(counter=None):
    est = continual.ContinualDensityEstimator(N, 0.4, 500, 8_192, counter=counter, rng=13)
    assert ID not in est.M and OCCURRENCES not in est.M
    stream = id_stream(3)
    est.run(stream[:-20])
    for x in stream[-20:]:
        est.step(int(x))
    return est, (ID, OCCURRENCES)


def _ppcum(t):
    counter = counters.PanPrivateTreeCounter(T, 1.0, rng=14)
    counter.run(bit_stream(4)[:t])
    return counter, (ONES,)


def _cascading():
    counter = counters.CascadingBuffersCounter.from_T(T, 1.0, rng=15)
    counter.run(bit_stream(5)[:INTRUSION])
    return counter, (ONES,)


def _simple():
    counter = counters.SimpleCounter(1.0, rng=16)
    counter.run(bit_stream(6)[:INTRUSION])
    return counter, (ONES,)


def _cropped_sum():
    # a universe of 1000 IDs: every ID is a position of the public weights w, so the ID itself
    # is public; the canary is its number of updates, a_7 = OCCURRENCES
    est = cropped.CroppedSum(1_000, 50.0, 1.0, rng=17, window=12.5)
    est.process(dynamic_updates(7, 1_000, canary=7))
    est.update(7, 1)
    est.update(7, -1)
    return est, (OCCURRENCES,)


def _heavy_hitters():
    updates = dynamic_updates(8, 1_000, canary=7)
    est = cropped.HeavyHittersCount(1_000, 4, 2.0, 16, 1.0, float(updates[:, 1].sum()), rng=18)
    est.process(updates)
    return est, (OCCURRENCES,)


def _pan_private_distinct_count():
    # a tiny instance (2 IDs, exact enumeration): both IDs are public rows of X; the canary is
    # how often ID 1 was inserted and deleted (OCCURRENCES updates, its state ends at 1 <= Z)
    est = stable.PanPrivateDistinctCount(2, 1, 1.0, rng=19)
    est.process(dynamic_updates(9, 2, canary=1, others=1, alternate=True))
    return est, (OCCURRENCES,)


PAN_PRIVATE = {
    "DensityEstimator": _density_estimator,
    "DistinctCountEstimator": _distinct_count,
    "ContinualDensityEstimator (PPCum)": _continual_density,
    "ContinualDensityEstimator (cascading buffers)": lambda: _continual_density(
        counters.CascadingBuffersCounter.from_T(8_192, 0.4, rng=20)),
    "SkipBlanks(DensityEstimator) on a blanked stream": lambda: _skip_blanks(),
    "PanPrivateTreeCounter at the intrusion": lambda: _ppcum(INTRUSION),
    "PanPrivateTreeCounter after its whole stream": lambda: _ppcum(T),
    "CascadingBuffersCounter": _cascading,
    "SimpleCounter": _simple,
    "CroppedSum": _cropped_sum,
    "HeavyHittersCount": _heavy_hitters,
    "PanPrivateDistinctCount (tiny)": _pan_private_distinct_count,
}


def _skip_blanks():
    est = density.SkipBlanks(density.DensityEstimator(N, 0.5, m=1_000, rng=21))
    assert ID not in est.algorithm.M and OCCURRENCES not in est.algorithm.M
    stream = id_stream(10)
    est.process(density.blank_out(stream, int(stream[0]) if stream[0] != ID else int(stream[1])))
    return est, (ID, OCCURRENCES)


@pytest.mark.parametrize("case", list(PAN_PRIVATE))
def test_pan_private_memory_holds_no_copy_of_the_canary(case):
    algorithm, canaries = PAN_PRIVATE[case]()
    assert isinstance(algorithm, StreamAlgorithm)
    assert found(algorithm, canaries) == []


# ------------------------------------------------------------------ the check catches strawmen

def test_the_check_flags_exact_set_by_the_id_itself():
    store = strawmen.ExactSet(N, 1.0, rng=31)
    store.process(id_stream(31))
    assert {f"{ID}:int64", f"{ID}:int32"} <= set(found(store, (ID, OCCURRENCES)))


def test_the_check_flags_hashed_ids_by_the_canary_hash():
    """The raw ID is not in memory, but its keyed hash is, and so is the key: an intruder
    computes keyed_hash(key, ID) and searches for it (the dictionary attack, one entry)."""
    store = strawmen.HashedIDs(N, 1.0, rng=32)
    store.process(id_stream(32))
    assert found(store, (ID, OCCURRENCES)) == []             # hashing hides the raw bytes ...
    canary_hash = int(strawmen.keyed_hash(store.key, ID)[0])
    assert f"{canary_hash}:uint64" in found(store, (canary_hash,))   # ... not the canary


def test_the_check_flags_sampled_bits_whose_sampled_canary_sits_next_to_an_exact_bit():
    """SampledBits keeps M, like DensityEstimator, so a canary outside M is safe; a canary in
    M is found (M is public in both), and here that is fatal: its bit is exact, 1 iff it came,
    where DensityEstimator's is a D1 coin (P(1) = 1/2 + ε/4 against 1/2 for one who did not)."""
    outside = strawmen.SampledBits(N, 1_000, 1.0, rng=33)
    assert ID not in outside.M
    outside.process(id_stream(33))
    assert found(outside, (ID, OCCURRENCES)) == []             # an unsampled canary: safe
    store = strawmen.SampledBits(N, 1_000, 1.0, rng=33)
    canary = int(store.M[123])                                # a sampled user
    stream = id_stream(33)
    stream[stream == ID] = canary
    store.process(stream)
    assert f"{canary}:int64" in found(store, (canary,))
    assert store.b[123] == 1
    absent = strawmen.SampledBits(N, 1_000, 1.0, rng=33)
    absent.process(stream[stream != canary])
    assert absent.b[123] == 0                                 # the bit says whether she came


def test_the_check_flags_count_min_by_the_canary_count():
    """Count-Min stores no ID, but the canary's row counters hold its exact count whenever its
    bucket has no collision (each of 4 rows of 4096 with ~2000 other arrivals: some row is
    clean except with probability (1 - e^(-2000/4096))^4 ≈ 0.02; seeded, so fixed)."""
    sketch = CountMinSketch(4_096, 4, universe_size=2**31 - 1, rng=34)
    sketch.process(id_stream(34, universe=2**31 - 1))
    assert f"{ID}:int64" not in found(sketch, (ID,))
    assert f"{OCCURRENCES}:int64" in found(sketch, (OCCURRENCES,))


@pytest.mark.parametrize("make", [
    lambda: counters.BinaryTreeCounter(T, 1.0, rng=35),          # exact node sums
    lambda: counters.SqrtFactorizationCounter(T, 1.0, 1e-6, rng=36),   # the exact count
    lambda: counters.HonakerTreeCounter(T, 1.0, rng=37),         # exact node sums
], ids=["BinaryTreeCounter", "SqrtFactorizationCounter", "HonakerTreeCounter"])
def test_the_check_flags_counters_that_keep_exact_counts(make):
    """Counters private only for their releases keep exact sums: at t = 2^14 of a tree over
    2^15 steps, [1, t] is one node, whose exact sum is the number of ones."""
    counter = make()
    counter.run(bit_stream(35)[:INTRUSION])
    assert f"{ONES}:int64" in found(counter, (ONES,)) or f"{ONES}:decimal" in found(counter, (ONES,))


class _Logger(StreamAlgorithm):
    """A strawman that writes a log line per arrival (the decimal encoding)."""

    def __init__(self):
        self.log = []

    def update(self, x):
        self.log.append(f"visit from {x}")

    def output(self):
        return len(self.log)

    def state(self):
        return {"log": list(self.log)}


class _Int32Table(StreamAlgorithm):
    """A strawman that keeps the IDs as int32 (the int32 encoding)."""

    def __init__(self):
        self.ids = np.zeros(0, dtype=np.int32)

    def update(self, x):
        self.ids = np.union1d(self.ids, np.array([x], dtype=np.int32))

    def output(self):
        return len(self.ids)

    def state(self):
        return {"ids": self.ids.copy()}


@pytest.mark.parametrize("strawman, kind", [(_Logger, "decimal"), (_Int32Table, "int32")])
def test_every_encoding_of_the_check_can_fire(strawman, kind):
    store = strawman()
    store.process(id_stream(38, universe=2**31 - 1)[:500].tolist() + [ID])
    assert f"{ID}:{kind}" in found(store, (ID,))
    assert f"{ID}:int64" not in found(store, (ID,))
