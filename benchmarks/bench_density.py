"""Benchmark: DensityEstimator.process on a 10^7-element stream.

Prints the elements per second of `process` and the ratio of its time to one
membership-lookup pass over the same stream (`member[stream]`, a boolean table of the
universe: the least any algorithm must do to know whether each arrival is in M), both
measured in this run (best of REPEATS). Targets: >= 2e7 elements/s everywhere, and ratio <= 2
at m = 10^4. At Roth's m (about a quarter of the universe) the ratio is reported, not
targeted: `process` draws exactly what repeated `update` draws (one uniform per arrival in
M, so one seed gives one run however the stream is split), which needs each arrival's index
in M, not only a membership bit; that costs about 4x the bare membership pass there (2.4
million arrivals in M): on top of the pass itself (which `process` makes too, as a 1-byte
table lookup), the stream's range check, gathering the arrivals and their indices in M,
one uniform each, and scattering the draws into the bits each cost a fifth to two thirds of
it (profile in benchmarks/README.md), so numpy cannot bring the sum down to 2x.

Second part: construction plus `process` of lecture 03's DistinctCountEstimator (2^20 users,
m = 2^16, 30,000 distinct users: five levels of 2^16 to 2^20 cells) and of the audit's
DensityEstimator (N = 10^4, m = 5,000, a stream of 5,000), against the earlier way in the
same run (M sorted by `np.sort`; a universe table only for batches of at least N/16): same
random seeds, and the tables (M, b) and outputs are checked equal. Targets: ratio <= 0.6
for the DistinctCountEstimator; <= 0.85 for the audit's estimator, whose time is mostly
`rng.choice` drawing M (a shuffle of 10^4 numbers, 0.2 ms), which no sorting can save.

Run: .venv/bin/python benchmarks/bench_density.py
"""
from __future__ import annotations

import time
from contextlib import contextmanager

import numpy as np

from panpriv_teach import density
from panpriv_teach.density import DensityEstimator, DistinctCountEstimator, roth_sample_size
from panpriv_teach.streams import zipf_visitors

LENGTH = 10 ** 7
UNIVERSE = 10 ** 6
REPEATS = 5
TARGET_RATE, TARGET_RATIO = 2e7, 2.0


def best_time(fn) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> bool:
    rng = np.random.default_rng(0)
    streams = {"uniform": rng.integers(0, UNIVERSE, LENGTH),
               "Zipf(1.1)": zipf_visitors(LENGTH, UNIVERSE, rng=rng)}
    sizes = {"m = 10^4": 10 ** 4, f"Roth's m for (ε, α, β) = (0.5, 0.1, 0.05): {roth_sample_size(0.5, 0.1, 0.05):,}":
             roth_sample_size(0.5, 0.1, 0.05)}
    print(f"DensityEstimator.process: stream of {LENGTH:,} elements, universe of {UNIVERSE:,}, "
          f"best of {REPEATS}")
    ok = True
    for stream_name, stream in streams.items():
        for size_name, m in sizes.items():
            est = DensityEstimator(UNIVERSE, 0.5, m=m, rng=1)
            member = np.zeros(UNIVERSE, dtype=bool)
            member[est.M] = True
            baseline = best_time(lambda: member[stream])
            process = best_time(lambda: est.process(stream))
            rate, ratio = LENGTH / process, process / baseline
            ok &= rate >= TARGET_RATE and (ratio <= TARGET_RATIO or m != 10 ** 4)
            print(f"  {stream_name:9s} {size_name}:")
            print(f"    process        {process * 1e3:7.1f} ms  {rate:12,.0f} elements/s")
            print(f"    lookup pass    {baseline * 1e3:7.1f} ms  {LENGTH / baseline:12,.0f} elements/s")
            print(f"    ratio process / lookup = {ratio:.2f}")
    short = zipf_visitors(10 ** 5, UNIVERSE, rng=rng)
    est = DensityEstimator(UNIVERSE, 0.5, m=10 ** 4, rng=2)
    per_element = best_time(lambda: [est.update(x) for x in short.tolist()]) / len(short)
    print(f"  for comparison, update() one element at a time: {1 / per_element:,.0f} elements/s")
    print(f"targets: >= {TARGET_RATE:,.0f} elements/s, and ratio <= {TARGET_RATIO} at m = 10^4: "
          f"{'met' if ok else 'NOT met'}")
    construction_ok = construction_and_process()
    return ok and construction_ok


@contextmanager
def earlier_way():
    """The library as it was before round 3's issue 23: M sorted by np.sort, and a table over
    the universe only for batches of at least N/16 (same draws, so the same results)."""
    saved = density.sample_representatives, density.use_universe_table
    density.sample_representatives = lambda n, m, rng: np.sort(rng.choice(n, m, replace=False)).astype(np.int64)
    density.use_universe_table = lambda n, size: n * 16 >= size and size <= density._BITMAP_LIMIT
    try:
        yield
    finally:
        density.sample_representatives, density.use_universe_table = saved


def construction_and_process() -> bool:
    users = np.random.default_rng(1_000).choice(2 ** 20, 30_000, replace=False)
    audit = np.random.default_rng(21).integers(0, 10 ** 4, 5_000)
    cases = {"DistinctCountEstimator(2^20, m = 2^16), 30,000 users":
             (lambda seed: DistinctCountEstimator(2 ** 20, 0.5, 2 ** 16, 0.25, rng=seed), users, 0.6),
             "DensityEstimator(10^4, m = 5,000), 5,000 arrivals":
             (lambda seed: DensityEstimator(10 ** 4, 0.5, m=5_000, rng=seed), audit, 0.85)}
    print(f"construction + process, 20 seeds, against the earlier way (same seeds), best of {REPEATS}")
    ok = True
    for name, (make, stream, target) in cases.items():
        def run_all():
            outputs = []
            for seed in range(20):
                est = make(seed)
                est.process(stream)
                tables = [np.concatenate([level.M, level.b]) for level in getattr(est, "levels", [est])]
                outputs.append((est.output(), np.concatenate(tables).tobytes()))
            return outputs
        now = run_all()
        with earlier_way():
            before = run_all()
            earlier = best_time(run_all)
        current = best_time(run_all)
        same = now == before
        ratio = current / earlier
        ok &= same and ratio <= target
        print(f"  {name}: {current / 20 * 1e3:.2f} ms each, earlier way {earlier / 20 * 1e3:.2f} ms, "
              f"ratio {ratio:.2f} (target <= {target}); same tables and outputs: {same}")
    print(f"targets, with the same results: {'met' if ok else 'NOT met'}")
    return ok


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
