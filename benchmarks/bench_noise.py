"""Benchmark: the float-safe Laplace sampler against numpy's Generator.laplace, 10^6 draws.

The safe sampler (`noise.LaplaceNoise.noise`, discrete Laplace on a power-of-two grid drawn
from uniform 64-bit integers, the default of `mechanisms.laplace_mechanism`) must cost at
most 5x numpy's one-uniform inverse-CDF sampler (which leaks its input through floating
point, Mironov 2012). Also times the whole `laplace_mechanism` on 10^6 values and the
float-safe discrete Gaussian of `gaussian_mechanism` against Generator.normal, and the exact
`exponential_mechanism` against its `exact=False` (numpy's choice) on lecture 01's candidate
sets and on one good candidate among 10^4 poor ones (reference only, no target).
Scalar row: `laplace_mechanism` on one number (validation, the sampler's cache, one draw)
must cost at most 2x the library's own one-draw path (`LaplaceNoise.noise(None, rng)`, which
`update` and `step` use), with numpy's scalar `Generator.laplace` for reference.
Short-run row (reference, no target): 16 draws at once, what a T = 16 counter's `run` draws,
against 16 one-draw calls and numpy's `Generator.laplace(size=16)`.
Word rows (reference, no target): one `DiscreteLaplace.draw` and 4 draws at once (what a
cascading counter's `run` of 4 steps draws), whose uniforms come from `random_raw` for
numpy's default PCG64, against the earlier way on the same rng (the words from
`Generator.integers(0, 2^64)`; `sample(4)` through the array sampler, which the earlier
`sample` took for any size), same draws checked.
Best of REPEATS, measured alternately after one warm-up, so other load on the machine
affects both alike. Run: .venv/bin/python benchmarks/bench_noise.py
"""
from __future__ import annotations

import sys
from unittest.mock import patch

import numpy as np

from panpriv_teach.mechanisms import (exponential_mechanism, gaussian_mechanism, gaussian_guarantee,
                                      laplace_mechanism)
from panpriv_teach.noise import LaplaceNoise

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from bench_counters import best_seconds  # noqa: E402

N = 10**6
REPEATS = 15
TARGET_RATIO = 5.0
SCALAR_CALLS = 2000            # one timing = this many calls on one number
SCALAR_TARGET = 2.0


def main() -> int:
    rng = np.random.default_rng(1)
    values = np.zeros(N)
    worst = 0.0
    for epsilon in (0.1, 1.0, 5.0):
        sampler = LaplaceNoise(1.0, epsilon)
        safe, mechanism, unsafe = best_seconds(lambda: sampler.noise(N, rng),
                                               lambda: laplace_mechanism(values, 1.0, epsilon, rng),
                                               lambda: rng.laplace(0.0, 1.0 / epsilon, N),
                                               repeats=REPEATS)
        worst = max(worst, safe / unsafe)
        print(f"epsilon = {epsilon:g}: numpy Generator.laplace {unsafe * 1e3:6.1f} ms; float-safe "
              f"noise {safe * 1e3:6.1f} ms (ratio {safe / unsafe:.2f}, target <= "
              f"{TARGET_RATIO:g}); laplace_mechanism on 10^6 values {mechanism * 1e3:6.1f} ms "
              f"(ratio {mechanism / unsafe:.2f})")
    sigma = gaussian_guarantee(1.0, 1.0, 1e-6)[2]
    gauss, normal = best_seconds(lambda: gaussian_mechanism(values, 1.0, 1.0, 1e-6, rng),
                                 lambda: rng.normal(0.0, sigma, N), repeats=5)
    print(f"gaussian_mechanism (epsilon 1, delta 1e-6) on 10^6 values {gauss * 1e3:6.1f} ms; "
          f"numpy Generator.normal {normal * 1e3:6.1f} ms (ratio {gauss / normal:.2f}, reference)")
    candidate_sets = {"5 symptoms (lecture 01)": np.array([412.0, 398, 250, 120, 95]),
                      "330 synthetic data sets": -np.random.default_rng(2).integers(44, 400, 330).astype(float),
                      "1 good among 10^4 poor": np.r_[0.0, np.full(10_000, -20.0)]}
    for name, scores in candidate_sets.items():
        exact, choice = best_seconds(
            *(lambda exact=exact: [exponential_mechanism(range(len(scores)), scores, 1, 1.0, rng, exact=exact)
                                   for _ in range(100)] for exact in (True, False)), repeats=5)
        print(f"exponential_mechanism, {name}: exact {exact * 1e4:7.1f} µs a draw; numpy's choice "
              f"{choice * 1e4:6.1f} µs (ratio {exact / choice:.2f}, reference)")
    short_row(rng)
    word_rows(rng)
    scalar = scalar_row(rng)
    met = worst <= TARGET_RATIO and scalar <= SCALAR_TARGET
    print(f"worst Laplace ratio {worst:.2f} (target <= {TARGET_RATIO:g}), scalar ratio "
          f"{scalar:.2f} (target <= {SCALAR_TARGET:g}): targets {'met' if met else 'MISSED'}")
    return 0 if met else 1


def short_row(rng) -> None:
    """Print the 16-draw row: per-call costs, not throughput, decide a short run's time."""
    sampler = LaplaceNoise(1.0, 0.5)
    at_once, one_by_one, numpy = best_seconds(
        lambda: [sampler.noise(16, rng) for _ in range(SCALAR_CALLS)],
        lambda: [[sampler.noise(None, rng) for _ in range(16)] for _ in range(SCALAR_CALLS)],
        lambda: [rng.laplace(0.0, 2.0, 16) for _ in range(SCALAR_CALLS)], repeats=5)
    micro = 1e6 / SCALAR_CALLS
    print(f"16 draws (epsilon 0.5): noise(16) {at_once * micro:5.1f} µs; 16 one-draw calls "
          f"{one_by_one * micro:5.1f} µs (ratio {at_once / one_by_one:.2f}); numpy's "
          f"Generator.laplace(size=16) {numpy * micro:5.2f} µs (reference)")


def word_rows(rng) -> None:
    """Print one draw and 4 draws at once against the earlier way (integers' words, the array
    sampler for any size), after checking that both give the same draws."""
    sampler = LaplaceNoise(1.0, 0.5).integer
    words = sampler._words

    def earlier_draw(rng):
        return sampler._from_words(rng.integers(0, 2**64, size=words, dtype=np.uint64).tolist())

    def earlier_four(rng):   # the array sampler with its own words (as the earlier sample did)
        with patch("panpriv_teach.noise._FEW", 0):
            return sampler.sample(4, rng)

    one, two = np.random.default_rng(5), np.random.default_rng(5)
    assert [sampler.draw(one) for _ in range(100)] == [earlier_draw(two) for _ in range(100)]
    assert all(np.array_equal(sampler.sample(4, one), earlier_four(two)) for _ in range(100))
    draw, earlier, four, earlier_4 = best_seconds(
        lambda: [sampler.draw(rng) for _ in range(SCALAR_CALLS)],
        lambda: [earlier_draw(rng) for _ in range(SCALAR_CALLS)],
        lambda: [sampler.sample(4, rng) for _ in range(SCALAR_CALLS)],
        lambda: [earlier_four(rng) for _ in range(SCALAR_CALLS)], repeats=5)
    micro = 1e6 / SCALAR_CALLS
    print(f"one draw (epsilon 0.5): {draw * micro:5.1f} µs; with Generator.integers' words "
          f"{earlier * micro:5.1f} µs (ratio {draw / earlier:.2f}, reference); 4 draws at once "
          f"{four * micro:5.1f} µs; through the array sampler {earlier_4 * micro:5.1f} µs "
          f"(ratio {four / earlier_4:.2f}, reference)")


def scalar_row(rng) -> float:
    """Print the one-number row; return laplace_mechanism's time over the one-draw path's."""
    sampler = LaplaceNoise(1.0, 0.5)

    def calls(fn):
        return lambda: [fn() for _ in range(SCALAR_CALLS)]

    mechanism, one_draw, numpy = best_seconds(
        calls(lambda: laplace_mechanism(3.0, 1.0, 0.5, rng)), calls(lambda: sampler.noise(None, rng)),
        calls(lambda: rng.laplace(0.0, 2.0)), repeats=REPEATS)
    micro = 1e6 / SCALAR_CALLS
    print(f"one number (epsilon 0.5): laplace_mechanism {mechanism * micro:5.1f} µs; one-draw path "
          f"{one_draw * micro:5.1f} µs (ratio {mechanism / one_draw:.2f}, target <= "
          f"{SCALAR_TARGET:g}); numpy's scalar Generator.laplace {numpy * micro:5.2f} µs "
          f"(laplace_mechanism {mechanism / numpy:.0f}x, reference)")
    return mechanism / one_draw


if __name__ == "__main__":
    sys.exit(main())
