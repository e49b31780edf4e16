"""Benchmark: all T releases of Cum (BinaryTreeCounter.run) and of PPCum
(PanPrivateTreeCounter.run) for T = 2^20.

For each, reports releases per second and the ratio of the whole run's time (construction
included: PPCum draws all its noise when it is built) to drawing its noise alone, in one call
of the same float-safe sampler (`noise.LaplaceNoise.noise`), the least any implementation
must do: T Laplace numbers for Cum (one per step), 2^21 - 1 for PPCum (N and one N_I per node
of the tree below the root, sum over levels j < L of ceil(T / 2^j), plus one). Before timing,
each count is checked against the generator's state after a real run. Target for both:
ratio <= 2. Also prints, for reference, the time numpy's unsafe Generator.laplace takes for
the same draws. Also times the
other counters' vectorised `run` on the same stream, for reference. Timings are the best of
REPEATS runs after one warm-up, the run and the noise alone measured alternately, so that
other load on the machine affects both alike. Run: .venv/bin/python benchmarks/bench_counters.py
"""
from __future__ import annotations

import sys
import time

import numpy as np

from panpriv_teach.counters import (BinaryTreeCounter, CascadingBuffersCounter,
                                    HonakerTreeCounter, PanPrivateTreeCounter, SimpleCounter,
                                    SqrtFactorizationCounter, tree_levels)
from panpriv_teach.noise import LaplaceNoise

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


def ppcum_draws(T) -> int:
    """The Laplace numbers PPCum draws for T steps: N, and N_I for every node of levels
    0 .. L - 1 that starts by T (ceil(T / 2^j) of them at level j)."""
    return 1 + sum(-(-T // 2**j) for j in range(tree_levels(T)))


def run_against_noise(label, counter_class, sensitivity, draws, stream) -> float:
    """Time counter_class(T, EPSILON, rng).run(stream) against drawing `draws` float-safe
    Laplace numbers of its scale (sensitivity/EPSILON); print both and their ratio, and return
    the ratio. First checks that a run consumes the generator exactly as those draws do."""
    sampler = LaplaceNoise(sensitivity, EPSILON)
    used, reference = np.random.default_rng(2), np.random.default_rng(2)
    counter_class(T, EPSILON, used).run(stream)
    sampler.noise(draws, reference)
    assert used.bit_generator.state == reference.bit_generator.state, \
        f"{label} does not draw exactly {draws:,} Laplace numbers"
    rng = np.random.default_rng(1)
    run, noise, unsafe = best_seconds(lambda: counter_class(T, EPSILON, rng).run(stream),
                                      lambda: sampler.noise(draws, rng),
                                      lambda: rng.laplace(0.0, sampler.scale, draws))
    ratio = run / noise
    print(f"{label}, T = 2^{T.bit_length() - 1}: {run * 1e3:7.1f} ms, "
          f"{T / run / 1e6:6.1f} M releases/s")
    print(f"drawing its {draws:,} float-safe Laplace numbers alone: {noise * 1e3:7.1f} ms "
          f"(numpy's unsafe Generator.laplace: {unsafe * 1e3:.1f} ms)")
    print(f"ratio run / noise: {ratio:.2f} (target <= {TARGET_RATIO:g})")
    return ratio


def main() -> int:
    stream = (np.random.default_rng(0).random(T) < 0.3).astype(np.int64)
    L = tree_levels(T)
    ratios = [run_against_noise(label, cls, sensitivity, draws, stream)
              for label, cls, sensitivity, draws in [
                  ("Cum (BinaryTreeCounter.run)", BinaryTreeCounter, L, T),
                  ("PPCum (PanPrivateTreeCounter.run)", PanPrivateTreeCounter, L + 1,
                   ppcum_draws(T))]]
    rng = np.random.default_rng(1)
    others = {
        "SimpleCounter": lambda: SimpleCounter(EPSILON, rng).run(stream),
        "HonakerTreeCounter": lambda: HonakerTreeCounter(T, EPSILON, rng).run(stream),
        "SqrtFactorizationCounter": lambda: SqrtFactorizationCounter(T, EPSILON, 1e-6, rng).run(stream),
        "CascadingBuffersCounter.from_T": lambda: CascadingBuffersCounter.from_T(T, EPSILON, rng).run(stream),
    }
    for name, fn in others.items():
        [seconds] = best_seconds(fn, repeats=5)
        print(f"{name + '.run':36s} {seconds * 1e3:8.1f} ms, {T / seconds / 1e6:6.2f} M releases/s")
    return 0 if max(ratios) <= TARGET_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
