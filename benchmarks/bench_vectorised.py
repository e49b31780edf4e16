"""Benchmark: the vectorised path of every stream algorithm against its per-element path.

For each algorithm with both, times the vectorised call (`process(stream)` for a
StreamAlgorithm, `run(stream)` for a ContinualCounter) against the per-element loop
(`for x in stream: obj.update(x)`, `obj.update(i, d)` for the fully dynamic algorithms whose
stream is a (k, 2) array of updates (i, d), `obj.step(x)` for the counters) on the same input,
and prints each one's time, elements per second and the speed-up (per-element / vectorised).
Every measurement uses a fresh object built (outside the timer) from the same seed; the two
paths are run once each first (which asserts that both run on the input), then measured
alternately, best of REPEATS, so that other load on the machine affects both alike.

Input: LENGTH elements (0/1 bits for the counters; IDs of a universe of UNIVERSE, a fifth of
them BLANK where the algorithm accepts blanks; ID toggles (i, +1), (i, -1), ... for the
fully dynamic ones, so that every a_i stays in {0, 1}), except SHORT elements for ExactSet
and HashedIDs, whose `update` rebuilds the whole sorted set of IDs (O(n) per element).
PanPrivateDistinctCount enumerates its noise over all of [-2Z, 2Z]^m, so its universe is 4.

Target: the vectorised path at least TARGET_SPEEDUP = 10 times faster on every row, except
counters.CascadingBuffersCounter (target CASCADING_SPEEDUP = 5): its `run` is vectorised
along level 1 only and goes through Python once per level-1 flush, which happens at least
every U = `max_updates` steps (printed in its label; about 58 at T = 20,000), so its
speed-up is bounded by about U times the ratio of a step's cost to a flush's.
Rows whose speed-up depends on n (the ratio is not a constant of the algorithm): ExactSet and
HashedIDs, whose `update` rebuilds the sorted set (O(n) per element), and
SqrtFactorizationCounter, whose `step` sums O(t) terms; all three grow with n. HashedIDs'
`process` is itself a Python loop (one keyed BLAKE2b hash per distinct ID), so its
vectorised rate stays near 10^6 elements/s; its speed-up comes from the set rebuilds saved.
Rows marked (strawman) are the course's counter-examples, not pan-private; CountMinSketch is
not private at all. The long-stream throughput of the fast paths is measured by
bench_density.py (10^7 elements) and bench_counters.py (T = 2^20).

Run: .venv/bin/python benchmarks/bench_vectorised.py
"""
from __future__ import annotations

import sys
import time
from typing import Callable, NamedTuple

import numpy as np

from panpriv_teach.continual import ContinualDensityEstimator
from panpriv_teach.counters import (BinaryTreeCounter, CascadingBuffersCounter,
                                    HonakerTreeCounter, PanPrivateTreeCounter, SimpleCounter,
                                    SqrtFactorizationCounter)
from panpriv_teach.cropped import CroppedSum, HeavyHittersCount
from panpriv_teach.density import (BLANK, DensityEstimator, DistinctCountEstimator,
                                   SkipBlanks)
from panpriv_teach.intrusion import AccurateDistinctCount
from panpriv_teach.sketches import CountMinSketch
from panpriv_teach.stable import PanPrivateDistinctCount, StableSketch
from panpriv_teach.strawmen import ExactSet, HashedIDs, SampledBits

LENGTH = 20_000          # elements per input (per-element paths take ~1-50 µs each)
SHORT = 2_000            # for ExactSet and HashedIDs (update is O(n) per element)
UNIVERSE = 10**5
REPEATS = 3
SEED = 7
TARGET_SPEEDUP = 10.0
CASCADING_SPEEDUP = 5.0  # see the docstring
SMALL_UNIVERSE = 4       # PanPrivateDistinctCount: (4Z + 1)^m noise vectors enumerated


class Row(NamedTuple):
    label: str
    factory: Callable      # seed -> a fresh object
    data: np.ndarray       # the input, the same for both paths
    kind: str              # a key of PATHS
    target: float = TARGET_SPEEDUP


# kind -> (vectorised path, per-element path); each takes (object, array, the array as a list)
PATHS = {
    "elements": (lambda obj, data, items: obj.process(data),
                 lambda obj, data, items: [obj.update(x) for x in items]),
    "updates": (lambda obj, data, items: obj.process(data),
                lambda obj, data, items: [obj.update(i, d) for i, d in items]),
    "releases": (lambda obj, data, items: obj.run(data),
                 lambda obj, data, items: [obj.step(x) for x in items]),
}


def toggles(ids) -> np.ndarray:
    """The (k, 2) updates (i, +1), (i, -1), (i, +1), ... along `ids`: each a_i stays in {0, 1}."""
    seen = {}
    deltas = []
    for i in ids.tolist():
        seen[i] = -seen.get(i, -1)
        deltas.append(seen[i])
    return np.column_stack([ids, deltas]).astype(np.int64)


def rows() -> list:
    rng = np.random.default_rng(0)
    ids = rng.integers(0, UNIVERSE, LENGTH)
    blanks = np.where(rng.random(LENGTH) < 0.2, BLANK, ids)
    bits = (rng.random(LENGTH) < 0.3).astype(np.int64)
    updates = toggles(rng.integers(0, UNIVERSE, LENGTH))
    small_updates = toggles(rng.integers(0, SMALL_UNIVERSE, LENGTH))
    F1 = float(updates[:, 1].sum())            # the public sum of a_i after the stream
    U = CascadingBuffersCounter.from_T(LENGTH, 1.0, 0).max_updates
    return [
        Row("density.DensityEstimator", lambda s: DensityEstimator(UNIVERSE, 0.5, m=10**4, rng=s),
            ids, "elements"),
        Row("density.DistinctCountEstimator",
            lambda s: DistinctCountEstimator(UNIVERSE, 1.0, m=1000, alpha=0.1, rng=s), ids, "elements"),
        Row("density.SkipBlanks(DensityEstimator)",
            lambda s: SkipBlanks(DensityEstimator(UNIVERSE, 0.5, m=10**4, rng=s)), blanks, "elements"),
        Row("continual.ContinualDensityEstimator run/step",
            lambda s: ContinualDensityEstimator(UNIVERSE, 0.4, 1000, LENGTH, rng=s), blanks, "releases"),
        Row("continual.ContinualDensityEstimator process/update",
            lambda s: ContinualDensityEstimator(UNIVERSE, 0.4, 1000, LENGTH, rng=s), blanks, "elements"),
        Row("sketches.CountMinSketch (not private)",
            lambda s: CountMinSketch(1000, 5, UNIVERSE, rng=s), ids, "elements"),
        Row("stable.StableSketch", lambda s: StableSketch(UNIVERSE, 0.5, 16, rng=s), updates, "updates"),
        Row(f"stable.PanPrivateDistinctCount (m = {SMALL_UNIVERSE}, Z = 1)",
            lambda s: PanPrivateDistinctCount(SMALL_UNIVERSE, 1, 1.0, rng=s), small_updates, "updates"),
        Row("cropped.CroppedSum", lambda s: CroppedSum(UNIVERSE, 50.0, 1.0, rng=s), updates, "updates"),
        Row("cropped.HeavyHittersCount",
            lambda s: HeavyHittersCount(UNIVERSE, 10, 2.0, 100, 1.0, F1, rng=s), updates, "updates"),
        Row("intrusion.AccurateDistinctCount (strawman)",
            lambda s: AccurateDistinctCount(UNIVERSE, 1.0, rng=s), ids, "elements"),
        Row("strawmen.ExactSet (strawman)", lambda s: ExactSet(UNIVERSE, 1.0, rng=s), ids[:SHORT],
            "elements"),
        Row("strawmen.HashedIDs (strawman)", lambda s: HashedIDs(UNIVERSE, 1.0, rng=s), ids[:SHORT],
            "elements"),
        Row("strawmen.SampledBits (strawman)", lambda s: SampledBits(UNIVERSE, 1000, 1.0, rng=s), ids,
            "elements"),
        Row("counters.SimpleCounter", lambda s: SimpleCounter(1.0, s), bits, "releases"),
        Row("counters.BinaryTreeCounter", lambda s: BinaryTreeCounter(LENGTH, 1.0, s), bits, "releases"),
        Row(f"counters.CascadingBuffersCounter.from_T (U = {U:.0f})",
            lambda s: CascadingBuffersCounter.from_T(LENGTH, 1.0, s), bits, "releases",
            target=CASCADING_SPEEDUP),
        Row("counters_baselines.HonakerTreeCounter",
            lambda s: HonakerTreeCounter(LENGTH, 1.0, s), bits, "releases"),
        Row("counters_baselines.SqrtFactorizationCounter",
            lambda s: SqrtFactorizationCounter(LENGTH, 1.0, 1e-6, s), bits, "releases"),
        Row("ppcum.PanPrivateTreeCounter",
            lambda s: PanPrivateTreeCounter(LENGTH, 1.0, s), bits, "releases"),
    ]


def best_pair(row: Row) -> tuple:
    """Best seconds of (vectorised, per-element) on fresh objects, after one run of each."""
    items = row.data.tolist()
    times = ([], [])
    for repeat in range(REPEATS + 1):                  # repeat 0: the check, not timed
        for path, record in zip(PATHS[row.kind], times):
            obj = row.factory(SEED)
            start = time.perf_counter()
            path(obj, row.data, items)
            if repeat:
                record.append(time.perf_counter() - start)
    return min(times[0]), min(times[1])


def main() -> int:
    print(f"vectorised path vs per-element loop, best of {REPEATS} (fresh objects, seed {SEED}); "
          f"target speed-up >= {TARGET_SPEEDUP:g} unless stated")
    print(f"{'algorithm':52s} {'n':>6s} {'vector ms':>10s} {'loop ms':>9s} {'speed-up':>9s} "
          f"{'vector el/s':>12s} {'loop el/s':>10s}  target")
    ok = True
    for row in rows():
        vector, loop = best_pair(row)
        n, speedup = len(row.data), loop / vector
        met = speedup >= row.target
        ok &= met
        print(f"{row.label:52s} {n:6d} {vector * 1e3:10.2f} {loop * 1e3:9.1f} {speedup:8.1f}x "
              f"{n / vector:12,.0f} {n / loop:10,.0f}  >= {row.target:g}x {'met' if met else 'NOT met'}")
    print(f"targets: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
