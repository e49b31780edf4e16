"""Benchmark: all T releases of Cum (BinaryTreeCounter.run) for T = 2^20.

Reports releases per second and the ratio of the run's time to drawing its noise alone
(T Laplace numbers, the least any implementation must do): the target is <= 2. Also times
the other counters' vectorised `run` on the same stream, for reference. Timings are the best
of REPEATS runs after one warm-up, the run and the noise alone measured alternately, so that
other load on the machine affects both alike. Run: .venv/bin/python benchmarks/bench_counters.py
"""
from __future__ import annotations

import sys
import time

import numpy as np

from panpriv_teach.counters import (BinaryTreeCounter, CascadingBuffersCounter,
                                    HonakerTreeCounter, SimpleCounter, SqrtFactorizationCounter)

T = 2**20
EPSILON = 1.0
REPEATS = 15
TARGET_RATIO = 2.0


def best_seconds(*fns, repeats=REPEATS) -> list:
    """The best time of each function, measured alternately (after one warm-up each)."""
    for fn in fns:
        fn()
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, record in zip(fns, times):
            start = time.perf_counter()
            fn()
            record.append(time.perf_counter() - start)
    return [min(record) for record in times]


def main() -> int:
    stream = (np.random.default_rng(0).random(T) < 0.3).astype(np.int64)
    rng = np.random.default_rng(1)
    scale = BinaryTreeCounter(T, EPSILON).scale
    cum, noise = best_seconds(lambda: BinaryTreeCounter(T, EPSILON, rng).run(stream),
                              lambda: rng.laplace(0.0, scale, T))
    ratio = cum / noise
    print(f"Cum (BinaryTreeCounter.run), T = 2^20: {cum * 1e3:7.1f} ms, "
          f"{T / cum / 1e6:6.1f} M releases/s")
    print(f"drawing its T Laplace numbers alone:    {noise * 1e3:7.1f} ms")
    print(f"ratio run / noise: {ratio:.2f} (target <= {TARGET_RATIO:g})")
    others = {
        "SimpleCounter": lambda: SimpleCounter(EPSILON, rng).run(stream),
        "HonakerTreeCounter": lambda: HonakerTreeCounter(T, EPSILON, rng).run(stream),
        "SqrtFactorizationCounter": lambda: SqrtFactorizationCounter(T, EPSILON, 1e-6, rng).run(stream),
        "CascadingBuffersCounter.from_T": lambda: CascadingBuffersCounter.from_T(T, EPSILON, rng).run(stream),
    }
    for name, fn in others.items():
        [seconds] = best_seconds(fn, repeats=5)
        print(f"{name + '.run':36s} {seconds * 1e3:8.1f} ms, {T / seconds / 1e6:6.2f} M releases/s")
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
