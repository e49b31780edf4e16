"""The float-safe noise (panpriv_teach.noise), the mechanisms built on it, the floating-point
attack on the textbook sampler, the Gaussian mechanism and its calibrations."""
from __future__ import annotations

import math
from decimal import Decimal, localcontext
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chisquare

from panpriv_teach.attacks import floating_point_attack
from panpriv_teach.audit import estimate_epsilon
from panpriv_teach.mechanisms import (analytic_gaussian_sigma, classic_gaussian_sigma,
                                      gaussian_delta, gaussian_guarantee, gaussian_mechanism,
                                      laplace_guarantee, laplace_mechanism,
                                      laplace_mechanism_unsafe)
from panpriv_teach.noise import (_RAW_WORDS, UNIFORM_BITS, ArcNoise, DiscreteGaussian,
                                 DiscreteLaplace, LaplaceNoise, _uniform_words, exp_lower_bound,
                                 implemented_probability, threshold_below, threshold_for_ratio)


# ----------------------------------------------------------------------------- the attack

def identified(possible, index):
    """Releases that only candidate `index` of two can produce."""
    return possible[:, index] & ~possible[:, 1 - index]


@pytest.mark.parametrize("epsilon", [0.2, 1.0])
def test_floating_point_attack_identifies_the_input_of_the_unsafe_sampler(epsilon):
    # 1,500 releases each from inputs 0 and 1 (sensitivity 1). Mironov 2012's attack names the
    # input of about 80 % of them; the audit on "only 0 can produce it" is a 95 % lower bound
    # (deterministic with these seeds) far above epsilon (with 750 held-out releases it can
    # reach about 4.9 at most, so larger epsilons need more releases).
    rng = np.random.default_rng(int(epsilon * 10))
    n = 1_500
    zeros = floating_point_attack(laplace_mechanism_unsafe(np.zeros(n), 1, epsilon, rng), [0, 1],
                                  1, epsilon)
    ones = floating_point_attack(laplace_mechanism_unsafe(np.ones(n), 1, epsilon, rng), [0, 1],
                                 1, epsilon)
    assert zeros[:, 0].all() and ones[:, 1].all()          # the true input always fits
    assert identified(zeros, 0).mean() >= 0.5 and identified(ones, 1).mean() >= 0.5
    audit = estimate_epsilon(identified(zeros, 0).astype(int), identified(ones, 0).astype(int),
                             rng=0)
    assert audit.epsilon_lower > 3 * epsilon + 1


def test_floating_point_attack_gets_nothing_from_the_default_mechanism():
    # The same feature on the float-safe releases: a post-processing of an (epsilon + 1e-8)-DP
    # release, so its 95 % lower bound is at most epsilon (here 0: grid points carry no mark).
    rng = np.random.default_rng(5)
    n, epsilon = 1_500, 1.0
    zeros = floating_point_attack(laplace_mechanism(np.zeros(n), 1, epsilon, rng), [0, 1], 1,
                                  epsilon)
    ones = floating_point_attack(laplace_mechanism(np.ones(n), 1, epsilon, rng), [0, 1], 1,
                                 epsilon)
    audit = estimate_epsilon(identified(zeros, 0).astype(int), identified(ones, 0).astype(int),
                             rng=0)
    assert audit.epsilon_lower <= epsilon


def test_floating_point_attack_is_exact_on_hand_made_releases():
    # 0 + scale*log(2U) with U = 2^-53 * k is producible from 0 by construction.
    k = 3 * 2**50 + 12345
    release = 0.0 + 1.0 * math.log(2 * (k / 2**53))
    assert floating_point_attack([release], [0.0], 1, 1).tolist() == [[True]]
    assert floating_point_attack([1e6], [0.0], 1, 1).tolist() == [[False]]   # out of reach


# ----------------------------------------------------------------------------- the sampler law

@pytest.mark.parametrize("D, epsilon", [(1, 1.0), (3, 0.5), (1, 3.0), (4097, 1.0), (4097, 0.1)])
def test_discrete_laplace_sampler_matches_its_exact_law(D, epsilon):
    # 200,000 draws binned into 30 cells of the exact CDF (P(Z <= z) = a^|z|/(1 + a) for
    # z <= 0, 1 - a^(z+1)/(1 + a) for z >= 0) and one chi-square test: false failure 1e-6.
    sampler = DiscreteLaplace(D, epsilon)
    z = sampler.sample(200_000, np.random.default_rng(D + int(10 * epsilon)))
    a = math.exp(-epsilon / D)

    def cdf(v):
        v = np.asarray(v, dtype=float)
        return np.where(v < 0, a ** np.abs(v) / (1 + a), 1 - a ** (v + 1) / (1 + a))

    t = D / epsilon
    edges = np.unique(np.round(np.linspace(-6 * t, 6 * t, 31)))
    edges = np.concatenate(([-np.inf], edges[1:-1], [np.inf]))
    cum = np.concatenate(([0.0], cdf(edges[1:-1]), [1.0]))
    expected = np.diff(cum) * z.size
    observed = np.histogram(z, bins=np.concatenate(([z.min() - 1.0], edges[1:-1] + 0.5,
                                                      [z.max() + 1.0])))[0]
    keep = expected > 5
    assert observed.sum() == z.size
    assert chisquare(observed[keep], expected[keep] * observed[keep].sum()
                     / expected[keep].sum()).pvalue > 1e-6


@pytest.mark.parametrize("D, epsilon", [(4097, 0.7), (4097, 1e-6), (1, 50.0), (3, 0.5)])
def test_n_draws_at_once_equal_n_single_draws(D, epsilon):
    # also the scalar path `draw` (plain Python integers) used by `update`/`step`
    sampler = DiscreteLaplace(D, epsilon)
    batch = sampler.sample(1000, np.random.default_rng(3))
    rng, rng2 = np.random.default_rng(3), np.random.default_rng(3)
    assert np.array_equal(batch, np.concatenate([sampler.sample(1, rng) for _ in range(1000)]))
    assert np.array_equal(batch, [sampler.draw(rng2) for _ in range(1000)])


def same_state(one, other) -> bool:
    """Two bit generators' states (nested dicts of ints and arrays) are equal."""
    if isinstance(one, dict):
        return one.keys() == other.keys() and all(same_state(one[k], other[k]) for k in one)
    return bool(np.array_equal(one, other))


BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64,
                  np.random.MT19937]


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_uniform_words_are_the_words_generator_integers_gives(bit_generator):
    # `draw` and the few-sample path read raw words for the bit generators of _RAW_WORDS (and
    # call `integers` for the others): the same words and the same state afterwards, also with
    # a half-used 32-bit word pending; then n draws at once still equal n single draws
    assert set(_RAW_WORDS) <= set(BIT_GENERATORS)
    fast, slow = np.random.Generator(bit_generator(5)), np.random.Generator(bit_generator(5))
    for rng in (fast, slow):
        rng.random(3)
        rng.integers(0, 10, dtype=np.uint32)
    for k in (1, 7, 100):
        words = _uniform_words(fast, k)
        assert words.dtype == np.uint64
        assert np.array_equal(words, slow.integers(0, 2**64, size=k, dtype=np.uint64))
        assert same_state(fast.bit_generator.state, slow.bit_generator.state)
    assert fast.random() == slow.random()
    sampler = DiscreteLaplace(4097, 0.7)
    rngs = [np.random.Generator(bit_generator(6)) for _ in range(3)]
    batch = sampler.sample(40, rngs[0])
    assert np.array_equal(batch, np.concatenate([sampler.sample(5, rngs[1]) for _ in range(8)]))
    assert np.array_equal(batch, [sampler.draw(rngs[2]) for _ in range(40)])
    assert same_state(rngs[0].bit_generator.state, rngs[2].bit_generator.state)


@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 0.5), (3.5, 0.3), (1e-4, 2.0)])
def test_a_scalar_is_released_as_the_array_path_releases_it(sensitivity, epsilon):
    # the scalar path (one draw in plain Python) takes the same uniforms and rounds as np.rint:
    # halves of a grid step go to the even neighbour (0.5 -> 0, 1.5 -> 2, -2.5 -> -2)
    step = LaplaceNoise(sensitivity, epsilon).step
    values = [0.0, 3, -7, 0.1, 1e6 + 0.3] + [k * step for k in (0.5, 1.5, -2.5, 12345.5)]
    for value in values:
        one = laplace_mechanism(value, sensitivity, epsilon, rng=np.random.default_rng(9))
        array = laplace_mechanism(np.array([value]), sensitivity, epsilon,
                                  rng=np.random.default_rng(9))
        assert isinstance(one, float) and one == array[0], value
    rng, rng2 = np.random.default_rng(4), np.random.default_rng(4)
    assert [laplace_mechanism(2.0, sensitivity, epsilon, rng) for _ in range(200)] == \
        list(laplace_mechanism(np.full(200, 2.0), sensitivity, epsilon, rng2))
    for bad in (math.nan, math.inf, 1e300):
        with pytest.raises(ValueError, match="value"):
            laplace_mechanism(bad, sensitivity, epsilon, rng=0)


@pytest.mark.parametrize("sensitivity, epsilon", [(1, 1), (1, 0.01), (1, 20), (3.5, 0.3),
                                                  (1e-4, 2.0), (1e6, 0.5)])
def test_laplace_guarantee_is_barely_above_nominal(sensitivity, epsilon):
    eps, delta = laplace_guarantee(sensitivity, epsilon)
    assert epsilon <= eps < epsilon + 1e-8 and delta < 1e-20


def test_laplace_mechanism_releases_grid_points_of_the_right_scale():
    noise = LaplaceNoise(1.0, 0.5)
    out = laplace_mechanism(np.full(100_000, 0.3), 1.0, 0.5, np.random.default_rng(2))
    assert np.all(out / noise.step == np.round(out / noise.step))       # on the grid
    # mean |noise| = scale, within 6 standard errors (sd of |Lap(b)| is b): false failure 2e-9
    assert abs(np.abs(out - 0.3).mean() - 2.0) < 6 * 2.0 / math.sqrt(100_000) + noise.step


def test_laplace_mechanism_refuses_values_the_grid_cannot_hold():
    with pytest.raises(ValueError, match="value"):
        laplace_mechanism(1e300, 1.0, 1.0, 0)


def test_geometric_exact_path_stays():
    from panpriv_teach.mechanisms import geometric_mechanism
    assert isinstance(geometric_mechanism(3, 1, 1.0, rng=0, exact=True), int)


# ----------------------------------------------------------------------------- Gaussian

def test_gaussian_sigmas_against_known_values():
    # classic: sqrt(2 ln(1.25/1e-5)) / 0.5 = 9.6896; analytic at (1, 1e-5) is 3.7306 (Balle &
    # Wang 2018's calibration, as dp-accounting's get_sigma_gaussian computes it).
    from dp_accounting.gaussian_mechanism import get_sigma_gaussian
    assert classic_gaussian_sigma(1, 0.5, 1e-5) == pytest.approx(9.6896, abs=1e-4)
    for epsilon, delta in [(1.0, 1e-5), (0.5, 1e-6), (3.0, 1e-8)]:
        assert analytic_gaussian_sigma(1, epsilon, delta) == pytest.approx(
            get_sigma_gaussian(epsilon, delta), rel=1e-6)
    assert analytic_gaussian_sigma(1, 0.5, 1e-5) < classic_gaussian_sigma(1, 0.5, 1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        classic_gaussian_sigma(1, 1.5, 1e-5)


@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-5), (0.3, 1e-6), (4.0, 1e-3)])
def test_analytic_sigma_gives_exactly_delta(epsilon, delta):
    sigma = analytic_gaussian_sigma(2.0, epsilon, delta)
    assert gaussian_delta(sigma, 2.0, epsilon) == pytest.approx(delta, rel=1e-9)
    assert gaussian_delta(sigma * 0.999, 2.0, epsilon) > delta


@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-5), (0.5, 1e-6)])
def test_gaussian_mechanism_guarantee_in_floating_point(epsilon, delta):
    eps, dlt, sigma = gaussian_guarantee(1.0, epsilon, delta)
    assert epsilon <= eps < epsilon + 1e-7 and dlt < delta * (1 + 1e-6) + 1e-10
    assert sigma == pytest.approx(analytic_gaussian_sigma(1.0, epsilon, delta), rel=2**-11)


def test_discrete_gaussian_sampler_matches_its_law():
    # 100,000 draws of N_Z(0, 5000.3^2): variance within 6 standard errors (sqrt(2/n)
    # relative), false failure 2e-9; and the discrete delta agrees with the continuous one.
    g = DiscreteGaussian(5000.3)
    y = g.sample(100_000, np.random.default_rng(9))
    assert abs(y.var() / 5000.3**2 - 1) < 6 * math.sqrt(2 / 100_000)
    assert abs(y.mean()) < 6 * 5000.3 / math.sqrt(100_000)
    assert g.delta_for_shift(4097, 1.0) == pytest.approx(gaussian_delta(5000.3, 4097, 1.0),
                                                         rel=1e-6)


@pytest.mark.parametrize("sigma, D, epsilon", [(5000.3, 4097, 1.0), (9000.0, 4097, 0.5),
                                                (4500.0, 4097, 3.0)])
def test_discrete_gaussian_delta_bound_holds_and_is_tight(sigma, D, epsilon):
    # the closed-form bound against the term-by-term sum over |y| <= 40 sigma + D
    g = DiscreteGaussian(sigma)
    exact = g._delta_by_summation(D, epsilon)
    assert exact <= g.delta_for_shift(D, epsilon) <= exact * (1 + 1e-6) + 1e-15


def test_gaussian_mechanism_bad_input():
    with pytest.raises(ValueError, match="delta"):
        gaussian_mechanism(0.0, 1, 1, 1.5)
    with pytest.raises(ValueError, match="calibration"):
        gaussian_mechanism(0.0, 1, 1, 1e-5, calibration="other")


# ----------------------------------------------------------------------------- ArcNoise

@pytest.mark.parametrize("size, arc, epsilon", [(7, 2, 0.5), (12, 11, 2.0), (2**53, 1, 700.0),
                                                (1000, 10, 1e-12), (2**40, 2**39, 40.0)])
def test_arc_noise_point_ratio_is_at_most_e_epsilon_exactly(size, arc, epsilon):
    # The point masses from the threshold T (the arc is drawn when a 64-bit uniform is < T),
    # in exact fractions; e^epsilon bounded in 80-digit decimals (correctly rounded exp).
    noise = ArcNoise(size, arc, epsilon)
    p = Fraction(noise.threshold, 2**64)
    on, off = p / arc, (1 - p) / (size - arc)
    assert (on, off) == noise.point_probabilities() and on * arc + off * (size - arc) == 1
    with localcontext() as ctx:
        ctx.prec = 80
        e_eps = Fraction(Decimal(epsilon).exp())
    lower, upper = e_eps * (1 - Fraction(1, 10**77)), e_eps * (1 + Fraction(1, 10**77))
    assert on / off <= lower and off / on <= lower
    if epsilon < 40:       # rho = e^epsilon to 2^-64/(p(1 - p)) relative (docstring)
        assert on / off >= upper * (1 - Fraction(2**-64) / (p * (1 - p)) - Fraction(1, 10**15))


def test_arc_noise_sampler_follows_its_exact_law():
    # 210,000 draws on 7 points, expected counts from the exact point masses: chi-square
    # p-value > 1e-6 (false failure 1e-6); n at once equals n one by one.
    noise = ArcNoise(7, 2, 1.0)
    draws = noise.sample(210_000, np.random.default_rng(40))
    on, off = noise.point_probabilities()
    expected = np.array([float(on)] * 2 + [float(off)] * 5) * len(draws)
    assert chisquare(np.bincount(draws, minlength=7), expected).pvalue > 1e-6
    assert draws.dtype == np.int64 and noise.sample((3, 4), np.random.default_rng(1)).shape == (3, 4)


def test_arc_noise_flags_a_ratio_of_e_2epsilon():
    # The enumeration above would catch an arc drawn at 2ε by a class claiming ε.
    doubled = ArcNoise(7, 2, 1.0)
    claimed = ArcNoise(7, 2, 0.5)
    assert doubled.ratio > claimed.ratio * Fraction(3, 2) and claimed.guarantee() <= 0.5


@pytest.mark.parametrize("size, arc, epsilon, words", [
    (7, 0, 1.0, r"1 <= arc < size <= 2\^53; got arc=0"),
    (7, 7, 1.0, r"1 <= arc < size <= 2\^53; got arc=7"),
    (2**53 + 1, 1, 1.0, "size=9007199254740993"),
    # p = 1/3: no multiple of 2^-64 within 1e-21 relative of it (ρ is 1 ± 8e-20 at best)
    (3 * 2**40, 2**40, 1e-21, r"epsilon must be at least about 2\^-60 .* got epsilon=1e-21"),
])
def test_arc_noise_rejects_bad_parameters(size, arc, epsilon, words):
    with pytest.raises(ValueError, match=words):
        ArcNoise(size, arc, epsilon)


def test_release_exact_equals_release_for_values_a_float_holds():
    noise = LaplaceNoise(2.0, 0.5)
    for numerator, exponent in [(12345, -21), (-7, 3), (3**30, -40), (0, 0)]:
        value = math.ldexp(numerator, exponent)
        exact = noise.release_exact(numerator, exponent, np.random.default_rng(9))
        assert exact == noise.release(np.array([value]), np.random.default_rng(9))[0]
    huge = 2**80                                 # beyond float64's integers: still exact
    assert noise.release_exact(huge + 1, -40, np.random.default_rng(9)) \
        != noise.release_exact(huge - 2**30, -40, np.random.default_rng(9))
    with pytest.raises(ValueError, match="must be at most"):
        noise.release_exact(2**200, 0, np.random.default_rng(9))


# ------------------------------------------------------------------ rng.random() < p, exactly

def test_numpy_random_is_a_53_bit_integer_times_2_to_the_minus_53():
    # the premise of implemented_probability: Generator.random() = (w >> 11) 2^-53 for the
    # bit generator's 64-bit words w (PCG64, numpy's default, and MT19937 give k 2^-53)
    words = np.random.PCG64(11).random_raw(10_000)
    u = np.random.Generator(np.random.PCG64(11)).random(10_000)
    assert np.array_equal(u, (words >> np.uint64(11)).astype(np.float64) * 2.0**-53)
    assert UNIFORM_BITS == 53
    for bit_generator in (np.random.PCG64(3), np.random.MT19937(3)):
        k = np.random.Generator(bit_generator).random(10_000) * 2.0**53
        assert np.array_equal(k, np.floor(k)) and k.min() >= 0 and k.max() < 2.0**53


def test_implemented_probability_exact_values():
    assert implemented_probability(0.5) == Fraction(1, 2)
    assert implemented_probability(1.0) == 1 and implemented_probability(0.0) == 0
    assert implemented_probability(2.0**-60) == Fraction(1, 2**53)     # never impossible
    assert implemented_probability(5e-324) == Fraction(1, 2**53)
    third = implemented_probability(1 / 3)                              # 1/3 rounds up
    assert third == Fraction(math.ceil(Fraction(1 / 3) * 2**53), 2**53) > Fraction(1 / 3)
    assert third - Fraction(1 / 3) < Fraction(1, 2**53)
    assert implemented_probability(Fraction(1, 3)) == third             # Fractions exactly
    assert implemented_probability(math.nextafter(1.0, 0)) == 1 - Fraction(1, 2**53)


def test_implemented_probability_counts_the_uniforms_below_p_on_an_8_bit_grid():
    # by the definition: a uniform on {k / 256}; count the k with k/256 < p, for every
    # multiple of 2^-10 in [0, 1] and 200 random doubles (off the grid)
    ps = [i / 1024 for i in range(1025)] + list(np.random.default_rng(5).random(200))
    for p in ps:
        count = sum(k / 256 < p for k in range(256))
        assert implemented_probability(p, bits=8) == Fraction(count, 256), p
        t = threshold_below(p, bits=8)
        assert implemented_probability(t, bits=8) <= Fraction(p)
        assert t == 1.0 or implemented_probability(t + 1 / 256, bits=8) > Fraction(p)


def test_threshold_below_rounds_down_to_the_uniform_grid():
    for p in (Fraction(1, 3), 0.7, 1 / 3, Fraction(2, 3) + Fraction(1, 10**30), 2.0**-60):
        t = threshold_below(p)
        assert implemented_probability(t) == Fraction(t) <= Fraction(p)
        assert Fraction(p) < Fraction(t) + Fraction(1, 2**53)
    assert threshold_below(1.0) == 1.0 and threshold_below(0.0) == 0.0
    assert threshold_below(2.0**-60) == 0.0
    assert threshold_below(0.75) == 0.75                       # already on the grid


@pytest.mark.parametrize("bad, error", [(1.5, ValueError), (-1e-9, ValueError),
                                        (math.nan, ValueError), (math.inf, ValueError),
                                        ("0.5", TypeError), (True, TypeError), (None, TypeError)])
def test_implemented_probability_rejects_non_probabilities_by_name(bad, error):
    for f in (implemented_probability, threshold_below):
        with pytest.raises(error, match=r"p must be a real number in \[0, 1\]"):
            f(bad)
    with pytest.raises(ValueError, match=r"bits must be an integer in \[1, 53\]"):
        implemented_probability(0.5, bits=54)
    with pytest.raises(TypeError, match="bits must be an integer"):
        threshold_below(0.5, bits=8.0)


@pytest.mark.parametrize("epsilon", [1e-300, 1e-9, 0.5, 1.0, 20.0, 36.7, 700.0, 1e300])
def test_exp_lower_bound_is_a_rational_lower_bound_of_at_least_one(epsilon):
    bound = exp_lower_bound(epsilon)
    with localcontext() as ctx:                    # e^epsilon to 80 digits, an upper bound
        ctx.prec = 80
        upper = Fraction(Decimal(min(epsilon, 700.0)).exp()) * (1 + Fraction(1, 10**78))
    assert 1 <= bound <= upper
    if 1e-9 <= epsilon <= 700:
        assert math.log(bound) == pytest.approx(epsilon, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("epsilon, others", [(0.1, 1), (1.0, 1), (1.0, 9), (20.0, 1), (36.0, 999), (80.0, 1)])
def test_threshold_for_ratio_is_the_largest_grid_threshold_within_e_epsilon(epsilon, others):
    """t others/(1 - t) <= e^ε in fractions, and the next multiple of 2^-53 above t exceeds it
    (or t is the last grid point below 1)."""
    t = Fraction(threshold_for_ratio(epsilon, others))
    assert t * 2**53 == int(t * 2**53) and 0 < t < 1
    assert t * others / (1 - t) <= exp_lower_bound(epsilon)
    above = t + Fraction(1, 2**53)
    assert above == 1 or above * others / (1 - above) > exp_lower_bound(epsilon)
