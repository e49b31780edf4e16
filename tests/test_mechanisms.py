"""Tests for panpriv_teach.mechanisms: each test states the claim it checks.

Statistical tests use fixed seeds; each comment gives the sample size and the probability
that a correct implementation fails (tolerances are derived, e.g. 6 standard errors:
two-sided normal tail 2e-9).
"""
import math
import unittest.mock as mock
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from panpriv_teach.mechanisms import (RandomizedResponse, discrete_laplace_pmf,
                                      exponential_mechanism,
                                      exponential_mechanism_implemented_law,
                                      exponential_mechanism_probabilities,
                                      geometric_mechanism, laplace_mechanism,
                                      sample_discrete_laplace_exact, warner_epsilon,
                                      warner_estimate, warner_response)
from panpriv_teach import exp_coin
from panpriv_teach import mechanisms as mechanisms_module
from panpriv_teach.noise import implemented_probability

P_MIN = 1e-6  # goodness-of-fit tests fail a correct sampler with probability 1e-6


def chi_square_p_value(samples, pmf, support):
    """Chi-square goodness of fit over `support`, with the two tails lumped into one cell."""
    observed = np.array([np.sum(samples == k) for k in support] + [0])
    observed[-1] = len(samples) - observed[:-1].sum()
    expected = np.append(pmf, max(1.0 - pmf.sum(), 0.0)) * len(samples)
    return stats.chisquare(observed, expected * observed.sum() / expected.sum()).pvalue


# ------------------------------------------------------------------------- Laplace

def test_laplace_noise_has_mean_zero_and_variance_two_scale_squared():
    # n = 200,000 draws, scale b = 2/0.5 = 4, variance 2 b^2 = 32. SE(mean) = sqrt(32/n);
    # SE(sample variance) = sqrt((mu4 - sigma^4)/n) = b^2 sqrt(20/n) (mu4 = 24 b^4).
    # 6 SE each: false failure ~ 4e-9. A scale off by 2 (variance x4 or /4) fails.
    n, b = 200_000, 4.0
    noise = laplace_mechanism(np.full(n, 5.0), sensitivity=2, epsilon=0.5, rng=1) - 5.0
    assert abs(noise.mean()) < 6 * math.sqrt(2 * b**2 / n)
    assert abs(noise.var() - 2 * b**2) < 6 * b**2 * math.sqrt(20 / n)


def test_laplace_preserves_shape_and_returns_float_for_scalars():
    assert isinstance(laplace_mechanism(3, 1, 1.0, rng=0), float)
    out = laplace_mechanism(np.zeros((3, 4)), 1, 1.0, rng=0)
    assert out.shape == (3, 4) and out.dtype == float
    assert len(np.unique(out)) == 12  # independent noise per coordinate


def test_laplace_samples_follow_the_laplace_cdf_ks():
    # n = 20,000; KS test against Lap(1.5/0.75 = 2): a correct sampler fails w.p. 1e-6.
    # The same test rejects scale 4 (the classic "sensitivity*epsilon" slip) decisively.
    samples = laplace_mechanism(np.zeros(20_000), 1.5, 0.75, rng=2)
    assert stats.kstest(samples, stats.laplace(scale=2.0).cdf).pvalue > P_MIN
    assert stats.kstest(samples, stats.laplace(scale=4.0).cdf).pvalue < P_MIN
    assert stats.kstest(samples, stats.laplace(scale=1.0).cdf).pvalue < P_MIN


def test_laplace_density_ratio_on_neighbours_is_at_most_e_epsilon():
    # f(D) and f(D') at L1 distance exactly Δ; the ratio of output densities on a grid.
    delta, eps = 2.0, 0.7
    grid = np.linspace(-20, 20, 4001)
    ratio = stats.laplace.pdf(grid, loc=0.0, scale=delta / eps) / \
        stats.laplace.pdf(grid, loc=delta, scale=delta / eps)
    assert ratio.max() <= math.exp(eps) * (1 + 1e-12)
    assert ratio.max() == pytest.approx(math.exp(eps))  # attained: the bound is tight
    # two coordinates, ||f(D) - f(D')||_1 = Δ split as (0.6 Δ, 0.4 Δ)
    x, y = np.meshgrid(grid[::20], grid[::20])
    dens = lambda cx, cy: (stats.laplace.pdf(x, cx, delta / eps)
                           * stats.laplace.pdf(y, cy, delta / eps))
    assert (dens(0, 0) / dens(0.6 * delta, 0.4 * delta)).max() <= math.exp(eps) * (1 + 1e-12)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(value=1.0, sensitivity=0, epsilon=1), ValueError, "sensitivity"),
    (dict(value=1.0, sensitivity=-1, epsilon=1), ValueError, "sensitivity"),
    (dict(value=1.0, sensitivity=1, epsilon=0), ValueError, "epsilon"),
    (dict(value=1.0, sensitivity=1, epsilon=math.inf), ValueError, "epsilon"),
    (dict(value=math.nan, sensitivity=1, epsilon=1), ValueError, "value"),
    (dict(value=[1.0, math.inf], sensitivity=1, epsilon=1), ValueError, "value"),
    (dict(value="3", sensitivity=1, epsilon=1), TypeError, "value"),
    (dict(value=1.0, sensitivity="1", epsilon=1), TypeError, "sensitivity"),
])
def test_laplace_rejects_bad_input_naming_the_parameter(kwargs, error, match):
    with pytest.raises(error, match=rf"\b{match}\b"):  # the parameter, as a word
        laplace_mechanism(**kwargs)


# ------------------------------------------------------------------------- geometric

def test_discrete_laplace_pmf_sums_to_one():
    for scale in (0.3, 1.0, 2.5, 40.0):
        k = np.arange(-5000, 5001)
        assert discrete_laplace_pmf(k, scale).sum() == pytest.approx(1.0, rel=1e-12)


def test_discrete_laplace_pmf_ratio_at_neighbouring_values_is_e_to_epsilon_over_delta():
    delta, eps = 3, 0.8
    k = np.arange(0, 50)
    ratio = discrete_laplace_pmf(k, delta / eps) / discrete_laplace_pmf(k + 1, delta / eps)
    np.testing.assert_allclose(ratio, math.exp(eps / delta), rtol=1e-12)
    # the mechanism on values v and v + Δ: every output's probability ratio <= e^eps
    y = np.arange(-60, 61)
    ratio = discrete_laplace_pmf(y, delta / eps) / discrete_laplace_pmf(y - delta, delta / eps)
    assert ratio.max() == pytest.approx(math.exp(eps), rel=1e-12)
    assert ratio.max() <= math.exp(eps) * (1 + 1e-12)


def test_discrete_laplace_pmf_matches_closed_form_at_zero():
    a = math.exp(-1 / 2.0)
    assert discrete_laplace_pmf(0, 2.0) == pytest.approx((1 - a) / (1 + a), rel=1e-14)
    assert discrete_laplace_pmf(-3, 2.0) == pytest.approx((1 - a) / (1 + a) * a**3, rel=1e-14)


def test_geometric_fast_sampler_matches_the_exact_pmf_chi_square():
    # n = 200,000 draws at Δ = 2, ε = 1 (scale 2), cells -15..15 plus the tails;
    # p-value threshold 1e-6 = false-failure probability. Scale 1 or 4 would fail.
    n, delta, eps = 200_000, 2, 1.0
    noise = geometric_mechanism(np.full(n, 7), delta, eps, rng=3) - 7
    support = np.arange(-15, 16)
    assert chi_square_p_value(noise, discrete_laplace_pmf(support, delta / eps), support) > P_MIN
    assert chi_square_p_value(noise, discrete_laplace_pmf(support, 1.0), support) < P_MIN
    assert chi_square_p_value(noise, discrete_laplace_pmf(support, 4.0), support) < P_MIN


def test_exact_reference_sampler_matches_the_pmf_chi_square():
    # n = 4,000 exact draws each at scale 2 and at scale 1/0.3 (a float: an exact binary
    # Fraction); p-value threshold 1e-6.
    for scale, seed in ((Fraction(2), 4), (1 / 0.3, 5)):
        samples = sample_discrete_laplace_exact(scale, rng=seed, size=4_000)
        support = np.arange(-10, 11)
        assert chi_square_p_value(samples, discrete_laplace_pmf(support, float(scale)),
                                  support) > P_MIN


def test_exact_sampler_handles_scales_below_one():
    # scale 1/3: P(0) = tanh(3/2) ~ 0.905; n = 3,000, p-value threshold 1e-6
    samples = sample_discrete_laplace_exact(Fraction(1, 3), rng=6, size=3_000)
    support = np.arange(-3, 4)
    assert chi_square_p_value(samples, discrete_laplace_pmf(support, 1 / 3), support) > P_MIN


def test_geometric_mechanism_exact_and_fast_give_integers_of_the_same_shape():
    for exact in (False, True):
        assert isinstance(geometric_mechanism(5, 1, 1.0, rng=0, exact=exact), int)
        out = geometric_mechanism(np.arange(6).reshape(2, 3), 1, 1.0, rng=0, exact=exact)
        assert out.shape == (2, 3) and out.dtype == np.int64


def test_geometric_mechanism_exact_path_has_the_discrete_laplace_law():
    # n = 3,000 draws through geometric_mechanism(exact=True), Δ = 1, ε = 0.5; threshold 1e-6
    noise = geometric_mechanism(np.zeros(3_000, dtype=int), 1, 0.5, rng=7, exact=True)
    support = np.arange(-10, 11)
    assert chi_square_p_value(noise, discrete_laplace_pmf(support, 2.0), support) > P_MIN


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(value=2.5, sensitivity=1, epsilon=1), ValueError, "value"),
    (dict(value=2, sensitivity=1.5, epsilon=1), TypeError, "sensitivity"),
    (dict(value=2, sensitivity=0, epsilon=1), ValueError, "sensitivity"),
    (dict(value=2, sensitivity=1, epsilon=-1), ValueError, "epsilon"),
])
def test_geometric_rejects_bad_input_naming_the_parameter(kwargs, error, match):
    with pytest.raises(error, match=rf"\b{match}\b"):  # the parameter, as a word
        geometric_mechanism(**kwargs)


def test_discrete_laplace_helpers_reject_bad_scale_and_k():
    with pytest.raises(ValueError, match="scale"):
        sample_discrete_laplace_exact(0)
    with pytest.raises(ValueError, match="scale"):
        discrete_laplace_pmf(0, -1.0)
    with pytest.raises(ValueError, match="k"):
        discrete_laplace_pmf(0.5, 1.0)


# ------------------------------------------------------------------------- exponential

def test_exponential_probabilities_are_exact_for_a_small_case():
    # ε = 2, Δ = 1: weights exp(2 q / 2) = e^q
    p = exponential_mechanism_probabilities([0, 1, 2], sensitivity=1, epsilon=2)
    np.testing.assert_allclose(p, np.exp([0, 1, 2]) / np.exp([0, 1, 2]).sum(), rtol=1e-14)
    # monotone: weights exp(ε q / Δ) = e^{2q}
    p = exponential_mechanism_probabilities([0, 1, 2], sensitivity=1, epsilon=2, monotone=True)
    np.testing.assert_allclose(p, np.exp([0, 2, 4]) / np.exp([0, 2, 4]).sum(), rtol=1e-14)


def max_log_ratio(p, q):
    return float(np.max(np.abs(np.log(p) - np.log(q))))


def test_exponential_mechanism_is_epsilon_dp_on_random_neighbouring_scores():
    # neighbouring utilities: each score moves by at most Δ, in any direction
    rng = np.random.default_rng(8)
    delta, eps = 1.5, 0.9
    for _ in range(500):
        scores = rng.normal(0, 5, size=rng.integers(2, 12))
        moved = scores + rng.uniform(-delta, delta, size=len(scores))
        loss = max_log_ratio(exponential_mechanism_probabilities(scores, delta, eps),
                             exponential_mechanism_probabilities(moved, delta, eps))
        assert loss <= eps + 1e-12


def test_monotone_option_is_epsilon_dp_when_all_scores_move_the_same_way():
    rng = np.random.default_rng(9)
    delta, eps = 1.0, 0.9
    for _ in range(500):
        scores = rng.normal(0, 5, size=rng.integers(2, 12))
        moved = scores + rng.choice([-1, 1]) * rng.uniform(0, delta, size=len(scores))
        loss = max_log_ratio(exponential_mechanism_probabilities(scores, delta, eps, True),
                             exponential_mechanism_probabilities(moved, delta, eps, True))
        assert loss <= eps + 1e-12


def test_dwork_2011_factor_without_the_2_exceeds_epsilon_on_a_non_monotone_utility():
    # Dwork 2011's exp(u ε / Δu) (When Noise Makes No Sense) is our monotone=True.
    # Neighbours: candidate 0 gains Δ while the m others lose Δ. The ratio at candidate 0 is
    # e^ε (1 + m e^ε)/(e^ε + m) -> e^{2ε}.
    delta, eps, m = 1.0, 1.0, 1000
    before = np.array([0.0] + [1.0] * m)
    after = np.array([1.0] + [0.0] * m)
    seed_002 = max_log_ratio(exponential_mechanism_probabilities(before, delta, eps, True),
                             exponential_mechanism_probabilities(after, delta, eps, True))
    expected = eps + math.log((1 + m * math.exp(eps)) / (math.exp(eps) + m))
    assert seed_002 == pytest.approx(expected, rel=1e-9)
    assert seed_002 > 1.9 * eps  # close to 2ε, far above ε
    corrected = max_log_ratio(exponential_mechanism_probabilities(before, delta, eps),
                              exponential_mechanism_probabilities(after, delta, eps))
    assert corrected <= eps + 1e-12


def test_exponential_probabilities_are_stable_for_huge_scores():
    p = exponential_mechanism_probabilities([1e6, -1e6, 1e6 - 2], sensitivity=1, epsilon=1)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(p, [1 / (1 + math.exp(-1)), 0.0, math.exp(-1) / (1 + math.exp(-1))])
    p = exponential_mechanism_probabilities([1e308, -1e308], sensitivity=1, epsilon=10)
    np.testing.assert_array_equal(p, [1.0, 0.0])
    p = exponential_mechanism_probabilities([-1e6, -1e6], sensitivity=1, epsilon=1)
    np.testing.assert_allclose(p, [0.5, 0.5])


@pytest.mark.parametrize("exact", [True, False])
@pytest.mark.parametrize("scores, epsilon, monotone", [
    ([0.0, 1.0, 3.0, 2.5], 1.0, False), ([0.0, 1.0, 3.0, 2.5], 1.0, True),
    ([5.0, 5.0, 5.0], 1.0, False),                    # ties: uniform
    ([2.0, -3.0, 2.0, 1.75], 0.3, False)])
def test_exponential_mechanism_sample_frequencies_match_the_probabilities(scores, epsilon, monotone, exact):
    # n = 20,000 draws; chi-square p-value threshold 1e-6 per case
    candidates = list("abcd"[:len(scores)])
    p = exponential_mechanism_probabilities(scores, 1, epsilon, monotone)
    rng = np.random.default_rng(10)
    draws = [exponential_mechanism(candidates, scores, 1, epsilon, rng=rng, monotone=monotone,
                                   exact=exact) for _ in range(20_000)]
    observed = np.array([draws.count(c) for c in candidates])
    assert stats.chisquare(observed, p * len(draws)).pvalue > P_MIN


def test_the_exact_exponential_mechanism_is_quick_with_many_poor_candidates():
    # one candidate scoring 0 among 10^4 scoring -10 (epsilon/(2 Delta) = 1): the best has
    # probability 1/(1 + 10^4 e^-10) = 0.6878, and each draw needs about 6,900 proposals;
    # 300 draws, binomial test at 1e-6
    scores = np.r_[0.0, np.full(10_000, -10.0)]
    rng = np.random.default_rng(11)
    best = sum(exponential_mechanism(range(len(scores)), scores, 1, 2.0, rng=rng) == 0
               for _ in range(300))
    assert stats.binomtest(best, 300, 1 / (1 + 1e4 * math.exp(-10))).pvalue > P_MIN


def test_the_exact_exponential_mechanism_draws_its_gaps_exactly():
    # the coins are flipped with g = factor (max - score) in rational arithmetic, also where
    # the float factor overflows (sensitivity 5e-324) or underflows (epsilon 5e-324)
    seen = []
    real = mechanisms_module.first_heads

    def record(g, exact_g, rng):
        seen.extend(exact_g(j) for j in range(len(g)))
        return real(g, exact_g, rng)

    with mock.patch.object(mechanisms_module, "first_heads", record):
        exponential_mechanism(range(3), [0.1, 0.3, -2.0], 3.0, 0.7, rng=1)
        factor = Fraction(0.7) / (2 * Fraction(3.0))
        assert seen and set(seen) <= {factor * (Fraction(0.3) - Fraction(s)) for s in (0.1, 0.3, -2.0)}
        seen.clear()
        assert exponential_mechanism(range(2), [1.0, 0.0], 5e-324, 1e300, rng=2) == 0
        assert set(seen) <= {0, Fraction(1e300) / (2 * Fraction(5e-324))}
    rng = np.random.default_rng(12)   # epsilon/(2 Delta) ~ 1e-624: uniform; binomial test at 1e-6
    zeros = sum(exponential_mechanism(range(2), [1.0, 0.0], 1e300, 5e-324, rng=rng) == 0 for _ in range(2_000))
    assert stats.binomtest(zeros, 2_000, 0.5).pvalue > P_MIN


@pytest.mark.parametrize("scores, sensitivity, epsilon", [
    (np.r_[1.0, np.zeros(10_000)], 5e-324, 1.0),                # epsilon/(2 Delta) overflows
    (np.r_[1e308, np.full(10_000, -1e308)], 1.0, 2.0),          # max - score overflows
    (np.r_[0.0, np.full(10_000, -32.0)], 2.0**500, 2.0**-495),  # the factor is 2^-996: g = 1
    (np.r_[1e308, np.full(10_000, -1e308)], 1e308, 5e-324)])    # the factor underflows
def test_extreme_factors_and_gaps_are_decided_by_the_float_bounds(scores, sensitivity, epsilon):
    # every coin has a float bound (scaled factor; +inf for g > 2^1023), so the exact decimal
    # path, which costs tens of µs a coin, is (almost) never taken: 5 draws of ~10^4 proposals
    calls = []
    real = exp_coin._heads_exactly
    with mock.patch.object(exp_coin, "_heads_exactly", lambda *a: calls.append(a) or real(*a)):
        for seed in range(5):
            exponential_mechanism(range(len(scores)), scores, sensitivity, epsilon, rng=seed)
    assert len(calls) <= 1


def test_a_factor_that_underflows_leaves_the_uniform_law_not_nan():
    np.testing.assert_array_equal(exponential_mechanism_probabilities([1e308, -1e308], 1e308, 5e-324),
                                  [0.5, 0.5])


@pytest.mark.parametrize("kwargs, error, match", [
    ({"exact": "yes"}, TypeError, r"\bexact\b.*True.*False.*'yes'"),
    ({"monotone": "no"}, TypeError, r"\bmonotone\b.*True.*False.*'no'"),
    ({"epsilon": 10**400}, ValueError, r"\bepsilon\b.*float64"),
    ({"scores": np.array([1e400, 0], dtype=np.longdouble)}, ValueError, r"\bscores\b.*finite")])
def test_exponential_mechanism_flags_are_bools_and_numbers_fit_float64(kwargs, error, match):
    arguments = {"candidates": ["a", "b"], "scores": [1.0, 0.0], "sensitivity": 1, "epsilon": 1.0,
                 **kwargs}
    with pytest.raises(error, match=match):
        exponential_mechanism(**arguments)


def test_exponential_mechanism_returns_the_candidate_itself():
    assert exponential_mechanism([("x", 1)], [3.0], 1, 1.0, rng=0) == ("x", 1)
    assert exponential_mechanism(range(10, 13), [0, 0, 1e9], 1, 1.0, rng=0) == 12


@pytest.mark.parametrize("args, error, match", [
    ((["a", "b"], [1.0], 1, 1), ValueError, "same length"),
    (([], [], 1, 1), ValueError, "scores"),
    ((["a", "b"], [1.0, math.nan], 1, 1), ValueError, "scores"),
    ((["a"], [1.0], 0, 1), ValueError, "sensitivity"),
    ((["a"], [1.0], 1, 0), ValueError, "epsilon"),
    ((["a"], [[1.0]], 1, 1), ValueError, "scores"),
    ((5, [1.0], 1, 1), TypeError, "candidates"),
    (("ab", [1.0, 2.0], 1, 1), TypeError, "candidates"),
])
def test_exponential_mechanism_rejects_bad_input_naming_the_parameter(args, error, match):
    with pytest.raises(error, match=rf"\b{match}\b"):  # the parameter, as a word
        exponential_mechanism(*args)


# ------------------------------------------------------------------------- randomized response

def test_rr_fair_bias_gives_ratio_three_and_ln3():
    rr = RandomizedResponse(0.5)
    assert rr.report_distribution(0) == {-1: 0.25, 1: 0.75}
    assert rr.report_distribution(1) == {-1: 0.75, 1: 0.25}
    assert rr.report_distribution(0)[1] / rr.report_distribution(1)[1] == pytest.approx(3.0)
    assert rr.epsilon == pytest.approx(math.log(3), rel=1e-14)


@pytest.mark.parametrize("bias", [0.01, 0.1, 0.5, 0.9, 0.999])
def test_rr_epsilon_is_the_max_log_ratio_of_the_report_distributions(bias):
    rr = RandomizedResponse(bias)
    d0, d1 = rr.report_distribution(0), rr.report_distribution(1)
    assert rr.epsilon == pytest.approx(max(abs(math.log(d0[y] / d1[y])) for y in (-1, 1)))
    assert RandomizedResponse.from_epsilon(rr.epsilon).bias == pytest.approx(bias)


def test_rr_epsilon_is_two_bias_to_first_order_as_in_seed_004():
    for bias in (1e-2, 1e-3):
        assert abs(RandomizedResponse(bias).epsilon - 2 * bias) < bias**3  # 2b³/3 + ...


def test_rr_reports_follow_the_report_distribution():
    # n = 100,000 reports per bit; SE of a frequency <= 0.5/sqrt(n); 6 SE: false failure 4e-9
    rr, n = RandomizedResponse(0.3), 100_000
    for bit in (0, 1):
        reports = rr.randomize(np.full(n, bit), rng=11 + bit)
        assert set(np.unique(reports)) <= {-1, 1} and reports.dtype == np.int64
        assert abs(np.mean(reports == 1) - rr.report_distribution(bit)[1]) < 6 * 0.5 / math.sqrt(n)


def test_rr_estimate_is_unbiased_and_its_std_matches_the_formula():
    # reps = 10,000 runs of n = 1,000 parties (300 ones), bias 0.5 (std = 27.4).
    # Mean: 6 SE = 6 std/sqrt(reps) = 1.64. Std: SE(sample std) ~ std/sqrt(2 reps), 6 SE =
    # 4.2%; false failure ~ 4e-9. Dropping sqrt(1 - b^2) (13% off) or the 2 in 1/(2b) fails.
    rr, n, reps = RandomizedResponse(0.5), 1_000, 10_000
    bits = np.zeros(n, dtype=int)
    bits[:300] = 1
    estimates = rr.estimate(rr.randomize(np.broadcast_to(bits, (reps, n)), rng=13))
    assert estimates.shape == (reps,)
    assert abs(estimates.mean() - 300) < 6 * rr.std(n) / math.sqrt(reps)
    assert abs(estimates.std(ddof=1) / rr.std(n) - 1) < 6 / math.sqrt(2 * reps)


def test_rr_std_formula_matches_seed_004():
    assert RandomizedResponse(0.2).std(400) == pytest.approx(math.sqrt(0.96 * 400) / 0.4)


@pytest.mark.parametrize("call, error, match", [
    (lambda: RandomizedResponse(0), ValueError, "bias"),
    (lambda: RandomizedResponse(1), ValueError, "bias"),
    (lambda: RandomizedResponse(-0.2), ValueError, "bias"),
    (lambda: RandomizedResponse("0.5"), TypeError, "bias"),
    (lambda: RandomizedResponse(0.5).randomize([0, 2, 1]), ValueError, "bits"),
    (lambda: RandomizedResponse(0.5).randomize([]), ValueError, "bits"),
    (lambda: RandomizedResponse(0.5).estimate([1, 0, -1]), ValueError, "reports"),
    (lambda: RandomizedResponse(0.5).estimate([]), ValueError, "reports"),
    (lambda: RandomizedResponse(0.5).std(0), ValueError, "n"),
    (lambda: RandomizedResponse(0.5).report_distribution(2), ValueError, "bit"),
])
def test_rr_rejects_bad_input_naming_the_parameter(call, error, match):
    with pytest.raises(error, match=rf"\b{match}\b"):  # the parameter, as a word
        call()


def test_rr_epsilon_equals_the_exact_epsilon_of_the_joint_release_on_neighbouring_databases():
    # Local-mechanisms notes, §1, Def 1 by enumeration: n = 3 parties, every database in {0,1}^3 and every neighbour
    # (one party's bit changed); the joint law of the 8 possible report vectors is a product.
    import itertools
    from panpriv_teach.audit import exact_epsilon
    for bias in (0.1, 0.5, 0.8):
        rr = RandomizedResponse(bias)
        outputs = list(itertools.product((-1, 1), repeat=3))

        def joint(x):
            return [math.prod(rr.report_distribution(b)[y] for b, y in zip(x, ys)) for ys in outputs]

        worst = 0.0
        for x in itertools.product((0, 1), repeat=3):
            for i in range(3):
                neighbour = list(x)
                neighbour[i] = 1 - neighbour[i]
                worst = max(worst, exact_epsilon(joint(x), joint(neighbour)))
        assert worst == pytest.approx(rr.epsilon, rel=1e-12)


def test_rr_audit_stays_below_epsilon_and_flags_a_too_weak_randomizer():
    # 200,000 reports per input of one party. The Clopper–Pearson lower bound exceeds the
    # true ε with probability <= 5 % by construction; the random seeds are fixed, so the outcome is
    # deterministic. A RR with bias 0.8 yields ln 9 = 2.20 while claiming ln 3 = 1.10; at this
    # size the bound lands within ~0.05 of the truth, so it clears ln 3 + 0.5 by far.
    from panpriv_teach.audit import estimate_epsilon
    rr, n = RandomizedResponse(0.5), 200_000
    honest = estimate_epsilon(rr.randomize(np.zeros(n, int), rng=30),
                              rr.randomize(np.ones(n, int), rng=31), rng=32)
    assert honest.epsilon_lower <= rr.epsilon
    weak = RandomizedResponse(0.8)  # claims ln 3 but yields ln 9
    broken = estimate_epsilon(weak.randomize(np.zeros(n, int), rng=33),
                              weak.randomize(np.ones(n, int), rng=34), rng=35)
    assert broken.epsilon_lower > rr.epsilon + 0.5


def test_rr_report_of_one_party_has_the_law_of_randomize():
    # 20,000 calls of the slow per-party `report` per bit; frequency of +1 within 6 SE
    # (SE <= 0.5/sqrt(n)) of (1 ± b)/2: false failure 4e-9. Mixing up the sign fails.
    rr, n = RandomizedResponse(0.4), 20_000
    rng = np.random.default_rng(36)
    for bit in (0, 1):
        reports = np.array([rr.report(bit, rng) for _ in range(n)])
        assert set(np.unique(reports)) <= {-1, 1}
        assert abs(np.mean(reports == 1) - rr.report_distribution(bit)[1]) < 6 * 0.5 / math.sqrt(n)


@pytest.mark.parametrize("n, bias", [(10, 0.9), (100, 0.5), (1_000, 0.1), (10_000, 0.3)])
def test_rr_estimate_is_unbiased_with_variance_1_minus_b2_n_over_4b2(n, bias):
    # reps = 4,000 runs on a database with n // 3 ones. Mean within 6 SE = 6 std/sqrt(reps).
    # Sample std: SE(s)/std = (1/2) sqrt((2 + kappa)/reps), kappa = the excess kurtosis of the
    # estimate = (1 - 6 P Q)/(P Q n), P Q = (1 - b^2)/4 (a sum of n two-point variables);
    # 6 SE (6.7 % ... 8.9 %): false failure ~ 4e-9 per case. Caught: a missing 2 in 1/(2b)
    # (100 % off), 1/b^2 or 1/sqrt(b) scalings, sqrt(n) in place of n, and a missing
    # sqrt(1 - b^2) at b = 0.9 (129 % off) and b = 0.5 (15 %); at b <= 0.3 it is within noise.
    reps = 4_000
    rr = RandomizedResponse(bias)
    bits = (np.arange(n) < n // 3).astype(int)
    rng = np.random.default_rng(40 + n)
    estimates = np.concatenate([rr.estimate(rr.randomize(np.broadcast_to(bits, (500, n)), rng))
                                for _ in range(reps // 500)])   # in blocks: bounded memory
    pq = (1 - bias**2) / 4
    kappa = (1 - 6 * pq) / (pq * n)
    assert abs(estimates.mean() - n // 3) < 6 * rr.std(n) / math.sqrt(reps)
    assert abs(estimates.std(ddof=1) / rr.std(n) - 1) < 6 * 0.5 * math.sqrt((2 + kappa) / reps)
    assert rr.variance(n) == pytest.approx((1 - bias**2) * n / (4 * bias**2))


def test_rr_error_grows_like_sqrt_n_not_like_a_constant_or_n():
    # RMS error at n = 100 and n = 10,000 (b = 0.5), 3,000 runs each: SE of each RMS ~
    # 1.3 % (kappa <= 0.04), so the ratio is 10 within 6 * 1.9 % = 11 %: false failure ~4e-9.
    # A constant error (ratio 1) or an error linear in n (ratio 100) fails.
    rr, reps = RandomizedResponse(0.5), 3_000
    rms = {}
    for n in (100, 10_000):
        bits = (np.arange(n) % 4 == 0).astype(int)
        errors = rr.estimate(rr.randomize(np.broadcast_to(bits, (reps, n)), rng=50 + n)) - bits.sum()
        rms[n] = math.sqrt(np.mean(errors**2))
        assert abs(rms[n] / math.sqrt(n) / (rr.std(n) / math.sqrt(n)) - 1) < 6 * 0.0131
    assert abs(rms[10_000] / rms[100] / 10 - 1) < 0.11


def test_rr_from_epsilon_rejects_epsilon_too_large_for_floating_point():
    with pytest.raises(ValueError, match=r"\bepsilon\b"):
        RandomizedResponse.from_epsilon(50.0)
    assert RandomizedResponse.from_epsilon(math.log(3)).bias == pytest.approx(0.5)


def test_rr_accepts_boolean_bits():
    reports = RandomizedResponse(0.5).randomize(np.array([True, False, True]), rng=0)
    assert set(reports.tolist()) <= {-1, 1}


# ------------------------------------------------------------------------- Warner

def test_warner_fair_coins_give_ln3():
    assert warner_epsilon(0.5) == pytest.approx(math.log(3), rel=1e-14)
    assert warner_epsilon(0.2) == pytest.approx(RandomizedResponse(0.2).epsilon)


def test_warner_reports_the_truth_with_probability_three_quarters():
    # n = 100,000 per bit; P(report = x) = 3/4, SE = sqrt(3/16/n); 6 SE: false failure 4e-9
    n = 100_000
    for bit in (0, 1):
        reports = warner_response(np.full(n, bit), rng=20 + bit)
        assert set(np.unique(reports)) <= {0, 1}
        assert abs(np.mean(reports == bit) - 0.75) < 6 * math.sqrt(3 / 16 / n)


def test_warner_estimate_is_unbiased_with_std_sqrt_1_minus_p2_n_over_2p():
    # reps = 10,000 runs of n = 1,000 (600 ones), p = 0.4; 6 SE as for RR: false failure 4e-9
    n, reps, p = 1_000, 10_000, 0.4
    bits = (np.arange(n) < 600).astype(int)
    estimates = warner_estimate(warner_response(np.broadcast_to(bits, (reps, n)), rng=22,
                                                truth_probability=p), truth_probability=p)
    std = math.sqrt((1 - p**2) * n) / (2 * p)
    assert abs(estimates.mean() - 600) < 6 * std / math.sqrt(reps)
    assert abs(estimates.std(ddof=1) / std - 1) < 6 / math.sqrt(2 * reps)


def test_warner_report_is_rr_report_with_r_equal_to_1_minus_m_over_2():
    # the same law: P(r = 1 | x) for Warner equals P(M = -1 | x) for RR with bias p.
    # n = 100,000 per bit, two independent frequencies, 6 SE of their difference:
    # false failure 4e-9.
    n, p = 100_000, 0.3
    rr = RandomizedResponse(p)
    for bit in (0, 1):
        warner = warner_response(np.full(n, bit), rng=60 + bit, truth_probability=p)
        rr_reports = rr.randomize(np.full(n, bit), rng=62 + bit)
        assert abs(warner.mean() - np.mean((1 - rr_reports) // 2)) < 6 * math.sqrt(2 * 0.25 / n)
        assert rr.report_distribution(bit)[-1] == pytest.approx(p * bit + (1 - p) / 2)


@pytest.mark.parametrize("call, error, match", [
    (lambda: warner_response([0, 1], truth_probability=1.0), ValueError, "truth_probability"),
    (lambda: warner_response([0, 1], truth_probability=0), ValueError, "truth_probability"),
    (lambda: warner_response([0, 3]), ValueError, "bits"),
    (lambda: warner_response([]), ValueError, "bits"),
    (lambda: warner_estimate([0, -1]), ValueError, "reports"),
    (lambda: warner_estimate([]), ValueError, "reports"),
    (lambda: warner_epsilon(1.5), ValueError, "truth_probability"),
])
def test_warner_rejects_bad_input_naming_the_parameter(call, error, match):
    with pytest.raises(error, match=rf"\b{match}\b"):  # the parameter, as a word
        call()


def test_same_seed_same_output_and_no_global_state():
    np.random.seed(0)
    before = np.random.random()
    np.random.seed(0)
    a = laplace_mechanism(np.zeros(5), 1, 1, rng=42)
    b = laplace_mechanism(np.zeros(5), 1, 1, rng=42)
    np.testing.assert_array_equal(a, b)
    geometric_mechanism([1, 2], 1, 1.0, rng=1)
    RandomizedResponse(0.5).randomize([0, 1], rng=1)
    warner_response([0, 1], rng=1)
    exponential_mechanism(["a", "b"], [1, 2], 1, 1, rng=1)
    assert np.random.random() == before  # the global stream was not advanced


# ------------------------------------------------------------------ in floating point

BIASES = [2.0**-60, 1e-9, 0.1, 0.2, 1 / 3, 0.5, 0.7, 0.99, 1 - 2.0**-40,
          1 - 5 * 2.0**-53, 1 - 3 * 2.0**-53, 1 - 2.0**-53]


@pytest.mark.parametrize("bias", BIASES)
def test_rr_implemented_privacy_is_at_most_the_nominal_one_exactly(bias):
    # the code's P(N_i = 1) is its threshold t (a multiple of 2^-53: implemented_probability
    # leaves it as is), and its ratio t/(1 - t) never exceeds (1 + bias)/(1 - bias), even
    # at bias = 1 - 2^-53, where rounding (1 + bias)/2 to nearest gave t = 1 and ε = ∞
    rr = RandomizedResponse(bias)
    t = Fraction(rr._threshold)
    assert implemented_probability(rr._threshold) == t
    b = Fraction(bias)
    assert rr.implemented_ratio == t / (1 - t) <= (1 + b) / (1 - b)
    assert rr.implemented_epsilon <= rr.epsilon + 1e-15 * rr.epsilon
    assert rr.epsilon - rr.implemented_epsilon <= 2.0**-51 / (1 - bias) + 1e-15 * rr.epsilon


def test_rr_draws_compare_numpy_uniforms_with_the_analysed_threshold():
    for bias in (0.3, 1 - 2.0**-53):
        rr = RandomizedResponse(bias)
        u = np.random.default_rng(4).random(1000)
        assert np.array_equal(rr.randomize(np.zeros(1000, dtype=int), rng=4),
                              np.where(u < rr._threshold, 1, -1))
        assert rr.report(0, rng=4) == (1 if u[0] < rr._threshold else -1)
    assert RandomizedResponse(1 - 2.0**-53).implemented_ratio == 2**53 - 1   # finite


@pytest.mark.parametrize("epsilon", [1e-9, 0.1, 0.5, 1.0, math.log(3), 2.0, 5.0, 10.0, 20.0,
                                     30.0, 36.0, 37.0])
def test_rr_from_epsilon_is_at_most_epsilon_in_floating_point(epsilon):
    # before the step-down, epsilon = 36 gave an implemented privacy of 36.044
    rr = RandomizedResponse.from_epsilon(epsilon)
    assert rr.implemented_ratio <= Fraction(math.exp(epsilon)) * (1 + Fraction(1, 2**51))
    assert rr.implemented_epsilon <= epsilon * (1 + 2.0**-50)
    assert epsilon - rr.implemented_epsilon <= 2.0**-51 * (math.exp(epsilon) + 1)


@pytest.mark.parametrize("p", [1e-300, 2.0**-60, 0.1, 1 / 3, 0.5, 0.75, 0.9, 1 - 2.0**-53])
def test_warner_implemented_privacy_is_within_2_to_the_minus_51_of_warner_epsilon(p):
    # truthful = rng.random() < p has probability p' = implemented_probability(p); the coin is
    # rng.integers (exact), so P(r = x) = (1 + p')/2 and the privacy is ln((1 + p')/(1 - p'))
    exact, nominal = implemented_probability(p), Fraction(p)
    implemented = (1 + exact) / (1 - exact)
    assert implemented >= (1 + nominal) / (1 - nominal)
    assert implemented <= (1 + nominal) / (1 - nominal) * (1 + Fraction(1, 2**51))
    if p >= 0.5:
        assert exact == nominal
    assert math.log(implemented) - warner_epsilon(p) <= 2.0**-51 + 1e-15 * warner_epsilon(p)
    truthful = np.random.default_rng(2).random(500) < p
    reports = warner_response(np.ones(500, dtype=int), rng=2, truth_probability=p)
    assert np.all(reports[truthful] == 1)          # the analysed comparison is the code's


def test_exponential_mechanism_implemented_law_is_what_choice_draws():
    # the output is the first i with u < c_i, u = rng.random(): check against that random seed's u
    scores = [3.0, 1.0, -2.0, 0.5, 2.5]
    law = exponential_mechanism_implemented_law(scores, 1.0, 1.0)
    assert sum(law) == 1
    cumulative = np.cumsum(np.array(law, dtype=object))
    for seed in range(300):
        u = Fraction(np.random.default_rng(seed).random())
        expected = int(np.argmax([u < c for c in cumulative]))
        assert exponential_mechanism(range(5), scores, 1.0, 1.0, rng=seed, exact=False) == expected
    nominal = exponential_mechanism_probabilities(scores, 1.0, 1.0)
    assert max(abs(float(a) - b) for a, b in zip(law, nominal)) <= 2 * 2.0**-53


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 5.0, 20.0])
@pytest.mark.parametrize("monotone", [False, True])
def test_exponential_mechanism_implemented_ratios_stay_within_e_epsilon(epsilon, monotone):
    # neighbours moving every score by the full sensitivity, in both directions (monotone:
    # some up by 1, the others unmoved), 50 random instances; outcomes of probability
    # >= 2^-40 on both sides
    rng = np.random.default_rng(3)
    worst = -math.inf
    for _ in range(50):
        k = int(rng.integers(2, 40))
        scores = rng.normal(0, 8 / epsilon, k)
        shift = rng.integers(0, 2, k) if monotone else rng.choice([-1.0, 1.0], k)
        a = exponential_mechanism_implemented_law(scores, 1.0, epsilon, monotone)
        b = exponential_mechanism_implemented_law(scores + shift, 1.0, epsilon, monotone)
        assert sum(abs(x - float(y)) for x, y in
                   zip(a, exponential_mechanism_probabilities(scores, 1.0, epsilon, monotone))) \
            <= k * 2.0**-52
        for x, y in zip(a, b):
            if min(x, y) >= Fraction(1, 2**40):
                worst = max(worst, abs(math.log(x / y)))
    assert worst <= epsilon * (1 + 2.0**-30)
    assert worst >= 0.5 * epsilon        # the neighbours do move the law


def test_numpys_choice_is_not_pure_dp_at_probabilities_near_2_to_the_minus_53():
    # exact=False, documented: candidate 1's probability e^-37 (about 2^-53.4) rounds to 0,
    # while at its neighbour's e^-36.5 it is 2^-53; the real-number ratio is e^(1/2)
    far = exponential_mechanism_implemented_law([0.0, -74.0], 1.0, 1.0)
    near = exponential_mechanism_implemented_law([0.0, -73.0], 1.0, 1.0)
    assert far[1] == 0 and near[1] == Fraction(1, 2**53)


@pytest.mark.parametrize("epsilon", [1e-300, 1e-20, 3e-16, 1e-15, 0.75, 1.2])
def test_rr_from_epsilon_is_private_and_quick_at_tiny_epsilon(epsilon):
    rr = RandomizedResponse.from_epsilon(epsilon)       # (once looped ulp by ulp)
    assert 0 < rr.bias <= math.tanh(epsilon / 2)
    assert rr.implemented_epsilon <= epsilon
