"""The Laplace test of the checkers (`_laws.laplace_fits`) against float-safe noise: noise
on a fine grid repeats grid values by design, and is the Laplace law all the same; noise
clipped at a bound, or rounded to a coarse grid, repeats values because it is not.

Fixed random seeds; each `laplace_fits` call at ALPHA = 1e-7 wrongly rejects Laplace noise
with probability below 1e-7, so the 24 calls on correct noise below fail by chance with
probability below 3e-6."""
import numpy as np
import pytest

from panpriv_teach.exercises import _laws
from panpriv_teach.mechanisms import laplace_mechanism
from panpriv_teach.noise import LaplaceNoise

# (Δ, ε): grids of 2^-12 to 2^-13 of the scale, one not a power of two (Δ = 3), and the
# finest steps (ε = 0.1: 2.4e-5 of the scale) where the grid's step must be measured finely
CASES = [(1.0, 1.0), (2.0, 0.5), (3.0, 1.0), (1.0, 2.0), (1.0, 0.1), (10.0, 0.3)]


@pytest.mark.parametrize("sensitivity, epsilon", CASES)
def test_the_librarys_float_safe_noise_fits_the_laplace_law(sensitivity, epsilon):
    rng = np.random.default_rng(12)
    scale = sensitivity / epsilon
    noise = LaplaceNoise(sensitivity, epsilon)
    assert _laws.laplace_fits(noise.noise(12_000, rng) / scale, _laws.ALPHA)
    for true in (0.3, 1e6 + 0.3):   # off the grid: the grid is shifted by the rounding
        released = noise.release(np.full(3_000, true), rng)
        assert _laws.on_fine_grid((released - true) / scale)
        assert _laws.laplace_fits((released - true) / scale, _laws.ALPHA)
    released = np.array([laplace_mechanism(52_000.0, sensitivity, epsilon, rng)
                         for _ in range(3_000)])
    assert _laws.laplace_fits((released - 52_000.0) / scale, _laws.ALPHA)


@pytest.mark.parametrize("sensitivity, epsilon", CASES)
def test_noise_clipped_at_4_scales_fails_on_a_grid_or_not(sensitivity, epsilon):
    rng = np.random.default_rng(13)
    scale = sensitivity / epsilon
    for noise in (rng.laplace(0, scale, 3_000),
                  LaplaceNoise(sensitivity, epsilon).noise(3_000, rng)):
        z = np.clip(noise, -4 * scale, 4 * scale) / scale
        assert not _laws.laplace_fits(z, _laws.ALPHA)
        assert _laws.laplace_misfit(z, 1.0, _laws.ALPHA).kind == "clipped"


@pytest.mark.parametrize("true", [0.0, 100.0, -3.5, 0.3])
@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 1.0), (2.0, 0.5), (3.0, 1.0),
                                                  (1.0, 2.0), (1.0, 0.1)])
def test_a_release_rounded_to_2_decimals_fails_at_the_checkers_scales(true, sensitivity,
                                                                      epsilon):
    """At scales 0.5 to 10 (those of the checkers' cases) the grid 0.01 is 1/1000 of the
    scale or coarser: values repeat far more than on a fine grid. (At a scale of 33 the
    same rounding is a grid of 1/3300 of the scale, finer than the 2^-10 allowed, and
    passes: it is then as good as the library's own grid.)"""
    rng = np.random.default_rng(14)
    scale = sensitivity / epsilon
    z = (np.round(true + rng.laplace(0, scale, 3_000), 2) - true) / scale
    assert not _laws.on_fine_grid(z)
    assert not _laws.laplace_fits(z, _laws.ALPHA)
    assert _laws.laplace_misfit(z, 1.0, _laws.ALPHA).kind in ("rounded", "partly exact")


def test_continuous_draws_lie_on_no_grid_and_grids_are_found_whatever_their_offset():
    rng = np.random.default_rng(15)
    assert not _laws.on_fine_grid(rng.laplace(size=3_000))
    k = rng.integers(-40_000, 40_000, 3_000)
    for step in (2.0**-12, 2.0**-13 / 3, 1e-5):
        assert _laws.on_fine_grid(0.123 + k * step)
    assert not _laws.on_fine_grid(k * 2.0**-9)    # coarser than 2^-10: not a fine grid
