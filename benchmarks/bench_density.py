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

Run: .venv/bin/python benchmarks/bench_density.py
"""
from __future__ import annotations

import time

import numpy as np

from panpriv_teach.density import DensityEstimator, roth_sample_size
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


def main() -> None:
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


if __name__ == "__main__":
    main()
