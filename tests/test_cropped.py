"""Tests for panpriv_teach.cropped: the noise 𝒩, Alg 2 (CroppedSum: the debiasing derived
from E[c_i], Claim 1, Lemma 4, Thm 7, pan-privacy on Def 4 neighbours) and Alg 3
(HeavyHittersCount: Lemmas 6-7, Thm 8 on planted instances).

Statistical tests use fixed seeds; each comment gives the sample size and the probability
that a correct implementation fails (means within 6 standard errors: 2e-9).
"""
import math
import pickle
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from panpriv_teach.audit import audit_pan_privacy
from panpriv_teach.cropped import (CroppedSum, HeavyHittersCount, cropped_moment,
                                   expected_modular_term, heavy_hitters, modular_moment,
                                   noise_pdf, sample_noise)
from panpriv_teach.noise import ArcNoise
from panpriv_teach.streams import dynamic_stream, frequencies, user_neighbours

P_MIN = 1e-6


# ------------------------------------------------------------------------ the noise 𝒩

@pytest.mark.parametrize("tau, epsilon, window", [(2.0, 0.5, 1.0), (10.0, 1.0, 1.0), (10.0, 1.0, 5.0)])
def test_noise_density_integrates_to_one_and_sampler_follows_it(tau, epsilon, window):
    grid = np.linspace(0, 2 * tau, 400_001)
    assert np.trapezoid(noise_pdf(grid, tau, epsilon, window), grid) == pytest.approx(1, abs=1e-3)
    # the CDF is piecewise linear; KS with n = 20,000 at 1e-6
    K = 2 * tau - window + window * math.exp(epsilon)
    cdf = lambda x: np.where(x <= window, x * math.exp(epsilon) / K,
                             (window * math.exp(epsilon) + (x - window)) / K)
    x = sample_noise(tau, epsilon, 20_000, rng=1, window=window)
    assert x.min() >= 0 and x.max() < 2 * tau
    assert stats.kstest(x, cdf).pvalue > P_MIN


def test_noise_density_ratio_is_e_epsilon_whatever_the_window():
    for window in (1.0, 3.0):
        density = noise_pdf(np.linspace(0, 7.999, 1000), 4.0, 0.7, window)
        assert density.max() / density.min() == pytest.approx(math.exp(0.7))


# ------------------------------------------------------------------------ E[c_i], debiasing

def expected_counter(u, tau, epsilon, window):
    """E[(N + u) mod 2τ], derived in the lecture."""
    K = 2 * tau - window + window * math.exp(epsilon)
    return (2 * tau**2 / K + math.expm1(epsilon) / K
            * (window * u + window**2 / 2 - 2 * tau * max(u + window - 2 * tau, 0.0)))


@pytest.mark.parametrize("u", [0.0, 1.3, 2.9, 3.5, 3.95])
def test_expected_counter_matches_the_derived_formula_including_the_wrap(u):
    # n = 400,000 draws of (N + u) mod 4; sd <= τ = 2, 6 s.e. = 0.019.
    tau, epsilon, window = 2.0, 1.0, 1.0
    c = np.mod(sample_noise(tau, epsilon, 400_000, rng=2, window=window) + u, 2 * tau)
    assert abs(c.mean() - expected_counter(u, tau, epsilon, window)) < 6 * tau / np.sqrt(400_000)


def test_empty_stream_seed_formula_is_biased_by_tau2_m_over_e_eps_minus_1_and_corrected_is_not():
    # 4,000 runs, m = 200, τ = 5, ε = 1: sd of T̃ <= std_bound ≈ 490, 6 s.e. ≈ 47;
    # Mir et al. 2011, Alg. 2's bias τ²m/(e^ε − 1) ≈ 2,910 is 370 s.e. away from 0.
    rng = np.random.default_rng(3)
    m, tau, eps, runs = 200, 5.0, 1.0, 4_000
    corrected, as_printed = [], []
    for _ in range(runs):
        alg = CroppedSum(m, tau, eps, rng)
        sigma = alg.c.sum() + rng.laplace(0, 2 * tau / eps)
        corrected.append(alg.debias(sigma))
        as_printed.append(alg.debias_as_printed(sigma))
    se = alg.std_bound() / np.sqrt(runs)
    assert abs(np.mean(corrected)) < 6 * se
    assert abs(np.mean(as_printed) - tau**2 * m / math.expm1(eps)) < 6 * se


@pytest.mark.parametrize("window_fraction", [None, 0.5])
def test_estimator_is_unbiased_for_t_prime_minus_the_wrap_term_on_random_instances(window_fraction):
    # 3,000 runs of fresh (w, noise) on a fixed a; E[T̃ − expected_output(a) | w] = 0.
    # sd of each difference <= std_bound; 6 s.e.
    rng = np.random.default_rng(4)
    tau = 6.0
    window = 1.0 if window_fraction is None else window_fraction * tau
    a = frequencies(dynamic_stream(100, 70, 5, leave_probability=0.3, max_visits=12), 100)
    diffs = []
    for _ in range(3_000):
        alg = CroppedSum(100, tau, 1.0, rng, window=window)
        alg.process(np.column_stack([np.arange(100), a]))
        diffs.append(alg.output() - alg.expected_output(a))
    assert abs(np.mean(diffs)) < 6 * alg.std_bound() / np.sqrt(3_000)


def test_without_wrap_the_mean_is_exactly_t_prime():
    # a_i < (2τ − L)/2 means u_i = w_i a_i <= 2a_i < 2τ − L: no wrap term.
    alg = CroppedSum(50, 8.0, 1.0, rng=5)
    a = np.arange(50) % 7
    assert alg.expected_output(a) == pytest.approx(modular_moment(a, alg.w, 8.0))


# ------------------------------------------------------------------------ the stream

def test_inserting_then_deleting_returns_the_state_to_its_initial_value():
    alg = CroppedSum(30, 3.5, 1.0, rng=6)
    before = alg.state()
    alg.process(np.array([[4, 5], [9, 2], [4, -3]]))
    alg.update(4, -2)
    alg.update(9, -2)
    np.testing.assert_array_equal(alg.state()["c"], before["c"])     # exact integers mod M
    np.testing.assert_array_equal(alg.state()["w"], before["w"])


def test_after_a_user_enters_and_leaves_the_counters_have_the_initial_distribution():
    # 20,000 runs: c_0 after (0, +3), (0, −3) vs fresh 𝒩; two-sample KS at 1e-6.
    rng = np.random.default_rng(7)
    after = []
    for _ in range(20_000):
        alg = CroppedSum(2, 2.0, 1.0, rng)
        alg.process(np.array([[0, 3], [1, 1], [0, -3]]))
        after.append(alg.counters[0])
    fresh = CroppedSum(2, 2.0, 1.0, rng=8).noise.sample(20_000, np.random.default_rng(8))
    assert stats.ks_2samp(after, fresh).pvalue > P_MIN


def test_process_equals_repeated_update():
    stream = dynamic_stream(40, 30, 9, leave_probability=0.5, max_visits=3)
    one, many = CroppedSum(40, 2.5, 0.5, rng=10), CroppedSum(40, 2.5, 0.5, rng=10)
    for i, d in stream:
        one.update(i, d)
    many.process(stream)
    np.testing.assert_array_equal(one.counters, many.counters)
    one.update((2, 1))
    many.update(2, 1)
    np.testing.assert_array_equal(one.counters, many.counters)


def test_process_equals_repeated_update_exactly_for_huge_changes_and_tau():
    # W_i·d overflows int64 here (d ~ 2^62, W_i ~ 2^21, M = 2^53): both paths must still agree
    # with Python's exact integers.
    tau = 2.0**31
    stream = np.array([[0, 2**62], [1, -(2**62) + 5], [0, 3], [2, -7], [1, 2**61]])
    one, many = CroppedSum(3, tau, 1.0, rng=1), CroppedSum(3, tau, 1.0, rng=1)
    start = [int(x) for x in one.counters]
    for i, d in stream:
        one.update(int(i), int(d))
    many.process(stream)
    totals = {0: 2**62 + 3, 1: -(2**62) + 5 + 2**61, 2: -7}
    exact = [(start[i] + int(one.weights[i]) * totals[i]) % one.modulus for i in range(3)]
    assert one.counters.tolist() == exact == many.counters.tolist()


# ------------------------------------------------------------------------ Claim 1, Lemma 4, Thm 7

def test_claim1_expected_modular_term_is_at_least_tau_over_2_for_a_at_least_tau():
    for tau in (1.0, 2.5, 10.0, 100.0):
        a = np.linspace(tau, 30 * tau, 20_000)
        assert expected_modular_term(a, tau).min() >= tau / 2


def test_expected_modular_term_closed_form_matches_quadrature():
    w = np.linspace(1, 2, 200_001)
    for a, tau, window in [(3.0, 2.0, None), (7.3, 2.0, 1.0), (150.0, 40.0, 10.0)]:
        u = np.mod(w * a, 2 * tau)
        g = u if window is None else u - 2 * tau / window * np.maximum(u + window - 2 * tau, 0)
        assert expected_modular_term([a], tau, window)[0] == pytest.approx(np.trapezoid(g, w), rel=1e-4)


def test_lemma4_expected_t_prime_between_half_and_twice_t1_across_state_vectors():
    rng = np.random.default_rng(11)
    for _ in range(500):
        tau = rng.uniform(1, 50)
        a = rng.integers(0, int(5 * tau) + 2, size=50) * (rng.random(50) < 0.5)
        if a.sum() == 0:
            continue
        ratio = expected_modular_term(a, tau).sum() / cropped_moment(a, tau)
        assert 0.5 <= ratio <= 2


def test_thm7_interval_holds_in_at_least_two_thirds_of_runs():
    # Thm 7 with explicit constants: E[T̃ | w] ∈ [(1/2 − 1/τ)T1, 2T1] (Lemmas 4-5) and
    # Chebyshev with sd <= std_bound: |T̃ − E| <= √3·std_bound w.p. >= 2/3. 600 runs:
    # fraction >= 2/3 − 6·sqrt((2/9)/600) = 0.55 fails w.p. < 1e-9.
    rng = np.random.default_rng(12)
    tau = 4.0
    a = frequencies(dynamic_stream(300, 200, 13, leave_probability=0.2, max_visits=10), 300)
    T1 = cropped_moment(a, tau)
    inside = []
    for _ in range(600):
        alg = CroppedSum(300, tau, 1.0, rng)
        alg.process(np.column_stack([np.arange(300), a]))
        assert (0.5 - 1 / tau) * T1 <= alg.expected_output(a) <= 2 * T1
        slack = np.sqrt(3) * alg.std_bound()
        inside.append((0.5 - 1 / tau) * T1 - slack <= alg.output() <= 2 * T1 + slack)
    assert np.mean(inside) >= 0.55


def test_paper_correction_unit_window_error_grows_like_tau_squared():
    # Empty stream, m = 400, ε = 1, 1,000 runs per τ: sd of T̃ at τ = 20 with the unit window of
    # Mir et al. 2011, eq. (2) is > 5 τ√m/ε (it is ≈ K/(e^ε−1)·τ·sqrt(m/3) ≈ 13.5 τ√m/ε);
    # a window τ/2 keeps it below 3 τ√m/ε. Sample sd of 1,000 runs is within 10 % of the truth
    # w.p. > 1 − 1e-6.
    rng = np.random.default_rng(13)
    m, tau = 400, 20.0

    def sd(window):
        return np.std([CroppedSum(m, tau, 1.0, rng, window=window).output() for _ in range(1_000)])

    scale = tau * np.sqrt(m)
    assert sd(1.0) > 5 * scale
    assert sd(tau / 2) < 3 * scale


# ------------------------------------------------------------------------ privacy

def centred_in_window(alg_window, a_of):
    """Feature: how many of the two counters of IDs 0 and 1, centred on stream A's states,
    fall in the high-density arc [0, L]: the intruder's best test."""
    def features(snapshot, output):
        c, w = snapshot["c"], snapshot["w"]
        tau2 = 4.0
        centred = np.mod(c[:2] - w[:2] * a_of[:2], tau2)
        return [np.sum(centred <= alg_window)]
    return features


def test_pan_privacy_audit_of_the_state_on_def4_neighbours_stays_below_2_epsilon():
    # Def 4: all updates of ID 0 moved to ID 1. Two counters change: claim 2ε for the state.
    # The optimal event has ratio exactly e^{2ε} = e; n = 20,000 runs per stream, 95 %.
    stream_a = np.array([[0, 1], [2, 1], [3, 1]])
    stream_b = user_neighbours(stream_a, 0, replacement=1)
    a = frequencies(stream_a, 6)
    epsilon = 0.5
    result = audit_pan_privacy(lambda rng: CroppedSum(6, 2.0, epsilon, rng), stream_a, stream_b,
                               3, 20_000, centred_in_window(1.0, a), rng=14)
    assert 0.6 < result.epsilon_lower <= 2 * epsilon


class NoNoise(CroppedSum):
    """A broken Alg 2: counters start at 0 (no 𝒩)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.counters[:] = 0


def test_pan_privacy_audit_flags_counters_without_initial_noise():
    stream_a = np.array([[0, 1], [2, 1], [3, 1]])
    stream_b = user_neighbours(stream_a, 0, replacement=1)
    a = frequencies(stream_a, 6)
    result = audit_pan_privacy(lambda rng: NoNoise(6, 2.0, 0.5, rng), stream_a, stream_b,
                               3, 2_000, centred_in_window(1.0, a), rng=15)
    assert result.epsilon_lower > 3


def test_state_holds_counters_and_weights_and_no_ids():
    canary = 987_654
    alg = CroppedSum(1_000_000, 3.0, 1.0, rng=16)
    alg.process(np.array([[canary, 2], [5, 1]]))
    state = alg.state()
    assert set(state) == {"c", "w"} and state["c"].dtype == float
    assert alg.counters.dtype == np.int64 and alg.weights.dtype == np.int64
    np.testing.assert_array_equal(state["c"], alg.counters * 2.0**-21)     # exact views
    blob = pickle.dumps(state)
    assert np.int64(canary).tobytes() not in blob and str(canary).encode() not in blob


# ------------------------------------------------------------------------ the integer state

TWO64 = 2**64


def e_to_the(epsilon, lower):
    """A rational bound on e^epsilon (Decimal's exp at 80 digits is correctly rounded)."""
    with localcontext() as ctx:
        ctx.prec = 80
        value = Fraction(Decimal(epsilon).exp())
    return value * (1 - Fraction(1, 10**77)) if lower else value * (1 + Fraction(1, 10**77))


def point_masses(alg):
    """(α, β): the implemented probabilities of one arc point and one other point, recomputed
    from the sampler's integer threshold T (the arc is drawn when a 64-bit uniform is < T)."""
    p = Fraction(alg.noise.threshold, TWO64)
    return p / alg.arc, (1 - p) / (alg.modulus - alg.arc)


def worst_state_ratio(alg, states, i=0):
    """max over a, a' in `states` and every counter value x of P(C_i = x | a)/P(C_i = x | a'),
    exactly: C_i = (N + W_i a mod M) mod M, enumerated over all M values of x."""
    alpha, beta = point_masses(alg)
    M, A, W = alg.modulus, alg.arc, int(alg.weights[i])
    x = np.arange(M, dtype=np.int64)
    on = {a: (x - W * a % M) % M < A for a in states}
    worst = Fraction(1)
    for a in states:
        for b in states:
            if np.any(on[a] & ~on[b]):
                worst = max(worst, alpha / beta)
            if np.any(~on[a] & on[b]):
                worst = max(worst, beta / alpha)
    return worst


@pytest.mark.parametrize("tau, epsilon, window", [(0.5, 0.5, 0.25), (1.0, 1.0, 1.0),
                                                  (0.75, 3.0, 2.0**-21), (1.0, 1e-6, 1.5)])
def test_state_privacy_is_exactly_epsilon_by_enumeration(tau, epsilon, window):
    # All 2τ·2^21 counter values, a and a' in {-2, ..., 6}: the worst ratio is the arc's ratio
    # ρ, at most e^ε exactly, and equal to e^ε to 1e-9.
    alg = CroppedSum(3, tau, epsilon, rng=30, window=window)
    worst = worst_state_ratio(alg, range(-2, 7))
    assert worst <= e_to_the(epsilon, lower=True)
    assert worst >= e_to_the(epsilon, lower=False) * (1 - Fraction(1, 10**9))
    assert worst == alg.noise.ratio and alg.noise.guarantee() <= epsilon + 1e-15


class DoubledArc(CroppedSum):
    """A broken Alg 2: the arc is e^{2ε} times likelier, but the class still claims ε."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.noise = ArcNoise(self.modulus, self.arc, 2 * self.epsilon)
        self.counters = self.noise.sample(self.universe_size, self._rng)


def test_exact_enumeration_flags_an_arc_twice_as_likely():
    alg = DoubledArc(3, 0.5, 0.5, rng=31, window=0.25)
    assert worst_state_ratio(alg, range(3)) > e_to_the(0.5, lower=False) * Fraction(3, 2)


def test_float_counters_leak_the_state_through_their_last_bits():
    # The float program this class replaces: c = (N + w·a) mod 2τ in float64, N from 𝒩 and
    # w ~ U[1, 2] as numpy draws them. τ = 2: when a = 1, a counter below 1 has wrapped from
    # [4, 5), where float64 has steps of 2^-50, so it is a multiple of 2^-50; when a = 0 it
    # is N, a multiple of 2^-53. "c < 1 and c is not a multiple of 2^-50" has probability 0
    # under a = 1 and about 0.4 under a = 0: an infinite privacy loss. Counts of 4,000 runs;
    # the a = 0 count is below 1,000 with probability < 1e-40.
    rng = np.random.default_rng(32)
    n, tau = 4_000, 2.0
    N, w = sample_noise(tau, 1.0, n, rng), rng.uniform(1.0, 2.0, n)
    event = lambda c: (c < 1) & (c * 2.0**50 != np.floor(c * 2.0**50))
    assert event(np.mod(N + w * 0, 2 * tau)).sum() > 1_000
    assert event(np.mod(N + w * 1, 2 * tau)).sum() == 0
    # the integer state has no such event: every value has probability α or β (above)


def test_noise_sampler_follows_its_exact_law():
    # 200,000 counters at τ = 2, L = 1: 8 equal bins on the arc, 24 on the rest, expected
    # counts from the exact point masses; chi-square p-value > 1e-6 (false failure 1e-6).
    alg = CroppedSum(200_000, 2.0, 1.0, rng=33)
    alpha, beta = point_masses(alg)
    M, A = alg.modulus, alg.arc
    edges = np.r_[np.linspace(0, A, 9), np.linspace(A, M, 25)[1:]].astype(np.int64)
    observed = np.histogram(alg.counters, edges)[0]
    masses = [(alpha if hi <= A else beta) * int(hi - lo) for lo, hi in zip(edges, edges[1:])]
    assert sum(masses) == 1
    expected = np.array([float(mass) for mass in masses]) * len(alg.counters)
    assert stats.chisquare(observed, expected).pvalue > P_MIN


def test_weights_are_the_midpoints_of_2_to_the_20_cells():
    # W_i = 2^21 + 2j + 1: odd, in (2^21, 2^22); j uniform: its top 4 bits, 16 bins of a
    # chi-square over 50,000 weights at 1e-6.
    alg = CroppedSum(50_000, 2.0, 1.0, rng=34)
    j = (alg.weights - 2**21 - 1) // 2
    assert np.all(alg.weights % 2 == 1) and j.min() >= 0 and j.max() < 2**20
    assert stats.chisquare(np.bincount(j >> 16, minlength=16)).pvalue > P_MIN


@pytest.mark.parametrize("tau, epsilon, window", [(0.5, 1.0, 0.25), (1.0, 0.3, 1.0)])
def test_expected_counter_on_the_grid_is_the_formula_exactly(tau, epsilon, window):
    # E[C | U] summed over all M counter values with the implemented α, β (exact fractions)
    # equals E[N] + κ g(u) (the class docstring), and the continuous formula minus Λ/2.
    alg = CroppedSum(1, tau, epsilon, rng=35, window=window)
    alpha, beta = point_masses(alg)
    M, A = alg.modulus, alg.arc
    n = np.arange(M, dtype=np.int64)
    for U in (0, 1, A, M - A - 1, M - A, M - A + 3, M - 1):
        wrapped = (n + U) % M
        exact = alpha * int(wrapped[:A].sum()) + beta * int(wrapped[A:].sum())
        u = U * 2.0**-21
        g = u - 2 * tau / window * max(u + window - 2 * tau, 0.0)
        assert float(exact) * 2.0**-21 == pytest.approx(alg.noise_mean + alg.gain * g, rel=1e-12)
        continuous = expected_counter(u, tau, epsilon, window) - 2.0**-22
        assert float(exact) * 2.0**-21 == pytest.approx(continuous, rel=1e-9)


@pytest.mark.parametrize("a, tau, window", [(3.0, 2.0, None), (7.3, 2.0, 1.0), (150.0, 40.0, 10.0),
                                            (1e4, 2.0, 1.0), (1e4, 2.0, None)])
def test_weight_grid_average_is_the_continuous_mean_within_the_stated_error(a, tau, window):
    # The 2^20 midpoints w_j against expected_modular_term's U[1, 2] closed form; bound from
    # its docstring (h = 2^-20). Products w_j·a and the mod are exact in float64 here.
    h = 2.0**-20
    w = 1 + (np.arange(2**20) + 0.5) * h
    u = np.mod(w * a, 2 * tau)
    g = u if window is None else u - 2 * tau / window * np.maximum(u + window - 2 * tau, 0)
    bound = (a + 2 * tau) * h / 2 if window is None else (a + 2 * tau) * a * h**2 / (4 * window)
    error = abs(g.mean() - expected_modular_term([a], tau, window)[0])
    assert error <= bound + 1e-12 * a


def test_expected_output_is_exact_to_the_stated_rounding_bound():
    alg = CroppedSum(100, 3.0, 1.0, rng=36, window=1.5)
    assert alg.mean_error_bound() < 1e-3 * alg.std_bound() / np.sqrt(100)
    a = np.arange(100) % 9
    u = np.mod(alg.w * a, 6.0)                     # exact: w has 22 bits, a < 9
    assert alg.expected_terms(a) == pytest.approx(u - 4.0 * np.maximum(u - 4.5, 0), abs=1e-12)
    with pytest.raises(ValueError, match=r"a must hold one state per ID, shape \(100,\)"):
        alg.expected_output(a[:5])
    with pytest.raises(ValueError, match="a must be whole numbers"):
        alg.expected_output(a + 0.5)


def test_output_sums_counters_exactly_at_the_largest_tau():
    # m·M = 2^14·2^53 overflows int64: the release must still see the exact sum.
    alg = CroppedSum(2**14, 2.0**31, 1.0, rng=37, window=2.0**29)
    alg.counters[:] = alg.modulus - 1
    sigma = alg.debias(0.0)                        # the constant part of the estimator
    estimate = alg.output()
    exact = 2**14 * (alg.modulus - 1) * 2.0**-21   # what Σ c_i is, in real units
    assert abs((estimate - sigma) * alg.gain - exact) < 60 * 2 * 2.0**31 / 1.0
    assert alg.output_guarantee()[0] < 1.0 + 1e-8 and alg.output_guarantee()[1] < 1e-20


# ------------------------------------------------------------------------ Alg 3

def planted(rng, m=3_000, n_heavy=6, heavy=1_000, light_users=1_500):
    """A state vector with n_heavy IDs of state `heavy` and many IDs of state 1 or 2."""
    a = np.zeros(m, dtype=np.int64)
    ids = rng.permutation(m)
    a[ids[:n_heavy]] = heavy
    a[ids[n_heavy:n_heavy + light_users]] = rng.integers(1, 3, light_users)
    return a


def test_thm8_expected_estimate_lies_between_the_bucket_counts_times_the_factors():
    rng = np.random.default_rng(17)
    for _ in range(20):
        a = planted(rng)
        F1 = float(a.sum())
        alg = HeavyHittersCount(len(a), 10, 4.0, 40, 1.0, F1, rng)
        low, high = alg.factors()
        N = alg.bucket_loads(a)
        heavy_buckets = np.sum(N >= F1 / 10)
        medium_buckets = np.sum(N >= F1 / 40)
        assert low * heavy_buckets <= alg.expected_output(a) <= high * medium_buckets
        assert heavy_buckets >= 1 and heavy_hitters(a, 10) == 6


def test_thm8_estimate_is_unbiased_for_its_expectation_and_within_the_bounds():
    # One planted instance and one f; 1,500 runs of fresh (w, noise): mean within 6 s.e.
    # of expected_output; fraction inside the Thm 8 interval (expectation bounds ± √3 sd)
    # >= 2/3 − 6·sqrt((2/9)/1500) = 0.59 (Chebyshev), false failure < 1e-9.
    rng = np.random.default_rng(18)
    a = planted(rng)
    F1 = float(a.sum())
    first = HeavyHittersCount(len(a), 10, 4.0, 40, 1.0, F1, rng)
    low, high = first.factors()
    N = first.bucket_loads(a)
    lower = low * np.sum(N >= F1 / 10)
    upper = high * np.sum(N >= F1 / 40)
    outputs = []
    for _ in range(1_500):
        alg = HeavyHittersCount(len(a), 10, 4.0, 40, 1.0, F1, rng)
        alg.f = first.f                      # same hash, fresh w and noise
        alg.process(np.column_stack([np.arange(len(a)), a]))
        outputs.append(alg.output())
    outputs = np.array(outputs)
    sd = first.std_bound()
    assert abs(outputs.mean() - first.expected_output(a)) < 6 * sd / np.sqrt(len(outputs))
    inside = (outputs >= lower - np.sqrt(3) * sd) & (outputs <= upper + np.sqrt(3) * sd)
    assert inside.mean() >= 0.59


def test_lemma6_buckets_holding_a_heavy_hitter_keep_most_of_hh():
    # Balls in bins: k̃/HH(k) >= 1 − k/(δh) w.p. >= 1 − δ. 2,000 random f with HH = 8
    # heavy IDs, k = 10, h = 200, δ = 0.1: the observed failure rate stays below
    # δ + 6·sqrt(δ(1 − δ)/2000) = 0.14.
    rng = np.random.default_rng(19)
    k, h, delta, hh = 10, 200, 0.1, 8
    failures = 0
    for _ in range(2_000):
        k_tilde = len(np.unique(rng.integers(0, h, hh)))
        failures += k_tilde / hh < 1 - k / (delta * h)
    assert failures / 2_000 < delta + 6 * np.sqrt(delta * (1 - delta) / 2_000)


def test_lemma7_light_items_do_not_create_buckets_above_f1_over_ck():
    # Items below F1 δ/(2c²k²) hashed to h = 8ck buckets: every bucket's light load
    # stays <= F1/(ck) in >= 1 − δ of 500 random f (observed: all of them).
    rng = np.random.default_rng(20)
    k, c, delta = 10, 4.0, 0.1
    h = int(8 * c * k)
    a = np.r_[np.full(5, 2_000), rng.integers(1, 4, 20_000)]
    F1 = a.sum()
    light = a <= F1 * delta / (2 * c**2 * k**2)
    ok = [np.bincount(rng.integers(0, h, len(a))[light], weights=a[light], minlength=h).max()
          <= F1 / (c * k) for _ in range(500)]
    assert np.mean(ok) >= 1 - delta


def test_paper_correction_unit_windows_make_alg3_additive_error_grow_with_f1_over_k():
    for F1 in (1e4, 1e5):
        paper = HeavyHittersCount(100, 10, 4.0, 40, 1.0, F1, rng=0, window_fraction=None)
        fixed = HeavyHittersCount(100, 10, 4.0, 40, 1.0, F1, rng=0)
        assert paper.std_bound() > 0.5 * F1 / 10 * np.sqrt(40)   # Θ(F1 √h / k)
        assert fixed.std_bound() < 100                           # O(√h/ε), no F1
    # scale-free up to the output noise, whose variance is 8τ²/ε² times (DΛ/Δ)² ∈ [1, (1 + 2^-12)²]
    assert fixed.std_bound() == pytest.approx(
        HeavyHittersCount(100, 10, 4.0, 40, 1.0, 1e4, rng=0).std_bound(), rel=5e-4)


def test_alg3_runs_its_cropped_sums_on_the_grid_with_exact_state_privacy():
    # F1/k = 1000/7 is not a multiple of 2^-22: τ1 is rounded up, τ2 = F1/(ck) down, the arcs
    # λτ down to multiples of 2^-21; each sum's noise has ratio <= e^ε exactly.
    alg = HeavyHittersCount(50, 7, 3.0, 8, 0.7, 1000.0, rng=22)
    assert 0 <= alg.tau1 - 1000 / 7 < 2.0**-22 and 0 <= 1000 / 21 - alg.tau2 < 2.0**-22
    for x, tau in ((alg.x1, alg.tau1), (alg.x2, alg.tau2)):
        assert x.tau == tau and x.window % 2.0**-21 == 0 and 0 <= tau / 4 - x.window < 2.0**-21
        assert x.noise.ratio <= e_to_the(0.7, lower=True)
    nearly_one = HeavyHittersCount(50, 7, 1 + 1e-12, 8, 0.7, 1000.0, rng=22)
    assert nearly_one.tau2 < nearly_one.tau1 and math.isfinite(nearly_one.output())


def test_alg3_state_holds_the_hash_and_both_cropped_sums_only():
    alg = HeavyHittersCount(50, 5, 3.0, 8, 1.0, 100.0, rng=21)
    alg.process(np.array([[3, 50], [7, 50]]))
    assert set(alg.state()) == {"f", "c1", "w1", "c2", "w2"}
    one = HeavyHittersCount(50, 5, 3.0, 8, 1.0, 100.0, rng=21)
    one.update(3, 50)
    one.update((7, 50))
    np.testing.assert_array_equal(one.state()["c1"], alg.state()["c1"])
    np.testing.assert_array_equal(one.state()["c2"], alg.state()["c2"])


# ------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("kwargs, error, words", [
    (dict(universe_size=0, tau=2.0, epsilon=1.0), ValueError, "universe_size"),
    (dict(universe_size=5, tau=0.4, epsilon=1.0), ValueError, r"tau must be .*2τ >= 1"),
    (dict(universe_size=5, tau=2.0, epsilon=-1.0), ValueError, "epsilon must be"),
    (dict(universe_size=5, tau=2.0, epsilon=1.0, window=4.0), ValueError, "window must be"),
    (dict(universe_size=5, tau=0.6, epsilon=1.0), ValueError,
     r"tau must be a multiple of 2\^-22 .*got tau=0.6 \(nearest valid: 0.5999999046325684\)"),
    (dict(universe_size=5, tau=2.0**31 + 1, epsilon=1.0), ValueError, r"tau must be .*2\.14748e\+09"),
    (dict(universe_size=5, tau=2.0, epsilon=1.0, window=0.3), ValueError,
     r"window must be a multiple of 2\^-21 .*got window=0.3"),
    (dict(universe_size=5, tau=2.0, epsilon=701.0), ValueError, "epsilon must be"),
    (dict(universe_size=5, tau="2", epsilon=1.0), TypeError, "tau must be"),
])
def test_cropped_sum_rejects_bad_parameters(kwargs, error, words):
    with pytest.raises(error, match=words):
        CroppedSum(**kwargs)


def test_cropped_sum_validates_updates():
    alg = CroppedSum(5, 2.0, 1.0, rng=0)
    with pytest.raises(ValueError, match=r"i must be an integer in \[0, 4\]"):
        alg.update(-1, 1)
    with pytest.raises(TypeError, match="delta must be an integer"):
        alg.update(1, 1.5)
    with pytest.raises(ValueError, match=r"\(k, 2\) array"):
        alg.process(np.zeros((3, 3), int))


@pytest.mark.parametrize("kwargs, words", [
    (dict(c=1.0), r"c must be .*F1/\(ck\) < F1/k"),
    (dict(h=0), "h must be"),
    (dict(F1=0.0), "F1 must be"),
    (dict(F1=10.0, k=10, c=4.0), r"F1/\(ck\) must be >= 1/2"),
    (dict(F1=1e10, k=2), r"F1/k must be at most 2\^31 .*F1/k=5e\+09"),
])
def test_heavy_hitters_rejects_bad_parameters(kwargs, words):
    params = dict(universe_size=20, k=5, c=3.0, h=8, epsilon=1.0, F1=100.0)
    params.update(kwargs)
    with pytest.raises(ValueError, match=words):
        HeavyHittersCount(**params)
