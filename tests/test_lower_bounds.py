"""The Ω(log n) packing bound for continual counting and the Ω(√n/ε) bound for local
counting (Local-mechanisms notes, §1-2), checked against their proofs and against the mechanisms
of modules 02 and 04."""
import math

import numpy as np
import pytest

from panpriv_teach.counters import BinaryTreeCounter
from panpriv_teach.lower_bounds import (
    local_bayes_bound, local_two_point_bound, packing_bound, packing_checkpoints,
    packing_condition, packing_events, packing_streams, notes_packing_shortcut)
from panpriv_teach.mechanisms import RandomizedResponse


# ------------------------------------------------------------------ the packing
def test_packing_streams_are_blocks_at_distance_L_from_zero_and_2L_from_each_other():
    streams = packing_streams(20, 4)
    assert streams.shape == (6, 20)                        # x⁰ and 5 blocks
    assert not streams[0].any()
    distance = np.abs(streams[:, None, :] - streams[None, :, :]).sum(axis=2)
    assert np.all(distance[0, 1:] == 4)
    off = ~np.eye(5, dtype=bool)
    assert np.all(distance[1:, 1:][off] == 8)
    assert np.array_equal(packing_checkpoints(20, 4), [4, 8, 12, 16, 20])


def test_an_exact_counter_lands_each_block_stream_in_its_own_event():
    streams = packing_streams(24, 3)
    events = packing_events(np.cumsum(streams, axis=1), 3)
    assert np.array_equal(events, np.arange(len(streams)))   # x^i → T_i, x⁰ → T_0


def test_the_events_are_disjoint_and_need_the_right_pattern():
    L = 2
    releases = np.array([[0, 0, 0, 0, 3, 3, 3, 3],      # jumps at the 3rd checkpoint → T_3
                         [0, 0, 0, 0, 0, 0, 0, 0],      # never above L/2 → T_0
                         [0, 3, 0, 0, 0, 3, 0, 3],      # above, below, above: no event
                         [5, 5, 5, 5, 5, 5, 5, 5],      # above from the start → T_1
                         [0, 1, 0, 1, 0, 1, 0, 1]])     # exactly L/2 is neither side
    assert list(packing_events(releases, L)) == [3, 0, -1, 1, -1]


def test_an_exact_counter_breaks_the_group_privacy_inequality_of_the_proof():
    """Without noise, P[M(x⁰) ∈ T_i] = 0 while P[M(x^i) ∈ T_i] = 1: the inequality
    P[M(x⁰) ∈ T_i] >= e^(−εL) P[M(x^i) ∈ T_i] fails for every ε, as it must for a counter
    with error 0 < packing_bound."""
    streams = packing_streams(64, 4)
    events = packing_events(np.cumsum(streams, axis=1), 4)
    assert events[0] == 0 and all(events[i] == i for i in range(1, len(streams)))


def test_packing_condition_matches_the_proof():
    n, L, eps = 100, 5, 0.7
    assert packing_condition(n, L, eps) == pytest.approx(0.5 * (1 + 20 * math.exp(-eps * L)))
    assert packing_condition(n, L, eps, base="first") == pytest.approx(
        0.5 * (1 + 19 * math.exp(-2 * eps * L)))


def test_packing_bound_grows_like_log_n_over_2_epsilon():
    """a ≈ (ln n − ln ln n)/(2ε): within one block step (1/2) of that for n = 2^4 .. 2^60."""
    for k in range(4, 61, 4):
        n = 2 ** k
        guide = (math.log(n) - math.log(math.log(n))) / 2
        assert abs(packing_bound(n) - guide) <= 0.5 + 1e-9, k
        assert packing_bound(n, epsilon=0.5) >= 2 * packing_bound(n) - 1   # ≈ 1/ε scaling
    bounds = [packing_bound(2 ** k) for k in range(4, 41)]
    assert all(b <= c for b, c in zip(bounds, bounds[1:]))


def test_packing_bound_is_the_largest_L_whose_condition_exceeds_one():
    for n in (16, 100, 1000, 4096):
        for eps in (0.3, 1.0):
            a = packing_bound(n, eps)
            assert packing_condition(n, int(2 * a), eps) > 1
            if 2 * a + 1 <= n // 2:
                assert packing_condition(n, int(2 * a) + 1, eps) <= 1
    assert packing_bound(1024, base="first") <= packing_bound(1024) / 2 + 0.5


def test_notes_shortcut_a_below_ln_n_over_4_minus_1_suffices_for_practical_n_only():
    """The contradiction of the Local-mechanisms notes, §2 (after DNPR 2010) needs n/(2a)·e^(−4a)/2 > 1
    (log form below). Every a with 2a a whole number and a < ln n/4 − 1 satisfies it for
    n = 2^4 .. 2^80 (ln n <= 55.5), but not at ln n = 64.05, a = 15: the shortcut is not
    asymptotically right."""
    def notes_contradiction(log_n, a):
        return log_n - math.log(2 * a) - 4 * a - math.log(2) > 0

    for k in range(4, 81):
        log_n = k * math.log(2)
        assert notes_packing_shortcut(2 ** k) == pytest.approx(log_n / 4 - 1)
        for twice_a in range(1, 400):
            a = twice_a / 2
            if a < log_n / 4 - 1:
                assert notes_contradiction(log_n, a), (k, a)
    assert 15 < 64.05 / 4 - 1 and not notes_contradiction(64.05, 15)


def test_binary_tree_counter_errs_beyond_the_packing_bound():
    """Module 04's Cum (ε = 1): in every run its largest error over n steps exceeds
    packing_bound(n), which the bound requires with probability > 1/2 on some input
    (measured: all 200 runs at each n; median largest error 37.1, 114.4, 234.6 against
    bounds 1.5, 2.5, 3.5 at n = 64, 1024, 16384; Cum's own 50 % error_bound is 66.8,
    173.3, 329.3)."""
    rng = np.random.default_rng(41)
    for n in (64, 1024, 16384):
        stream = np.zeros(n, dtype=int)
        worst = np.array([np.abs(BinaryTreeCounter(n, 1.0, rng=rng).run(stream)).max()
                          for _ in range(200)])
        assert np.mean(worst >= packing_bound(n)) > 0.99


def test_packing_picture_for_an_accurate_tree_counter():
    """Cum at ε = 4 (little noise), n = 16, L = 4, 20,000 runs per stream: x^i lands in its
    own event T_i most of the time (measured 0.67-0.73), the events are disjoint (x⁰'s
    probabilities sum to <= 1), and group privacy P[M(x⁰) ∈ T_i] >= e^(−εL) P[M(x^i) ∈ T_i]
    holds. There is no contradiction here: it needs about e^(εL) = 9·10⁶ blocks. Estimates
    have s.e. <= 0.0036; tolerances are 6 s.e. (false failure < 1e-8)."""
    rng = np.random.default_rng(42)
    n, L, eps, runs = 16, 4, 4.0, 20_000
    streams = packing_streams(n, L)
    hits = {}
    for i, stream in enumerate(streams):
        releases = np.array([BinaryTreeCounter(n, eps, rng=rng).run(stream) for _ in range(runs)])
        hits[i] = np.bincount(packing_events(releases, L) + 1, minlength=len(streams) + 1)[1:] / runs
    se = 0.5 / math.sqrt(runs)
    for i in range(len(streams)):
        assert hits[i][i] > 0.6
    for i in range(1, len(streams)):
        assert hits[0][i] >= math.exp(-eps * L) * (hits[i][i] - 6 * se) - 6 * se
    assert hits[0].sum() <= 1 + 1e-12


# ------------------------------------------------------------------ the local bound
def test_randomized_response_channel_meets_the_chi_square_step_with_equality():
    """χ²(m1‖m0) <= 4δ² tanh²(ε/2) per party: equality for randomized response."""
    for eps in (0.1, 0.5, 1.0):
        rr = RandomizedResponse.from_epsilon(eps)
        q0, q1 = rr.report_distribution(0), rr.report_distribution(1)
        delta = 0.03
        m0 = {y: (q0[y] + q1[y]) / 2 for y in q0}
        m1 = {y: (0.5 - delta) * q0[y] + (0.5 + delta) * q1[y] for y in q0}
        chi2 = sum((m1[y] - m0[y]) ** 2 / m0[y] for y in q0)
        assert chi2 == pytest.approx(4 * delta ** 2 * math.tanh(eps / 2) ** 2)


def test_bayes_bound_is_attained_by_the_posterior_mean_under_randomized_response():
    """Uniform bits, RR at ε = 1, n = 100, 20,000 trials: the posterior-mean estimator's
    mean squared error is n e^ε/(1 + e^ε)² = 19.66 (s.e. ≈ 0.2; tolerance 6 s.e.); the
    unbiased RR estimate does worse, (1 − b²)n/(4b²) = 92.1 > 19.66."""
    rng = np.random.default_rng(43)
    n, eps, trials = 100, 1.0, 20_000
    rr = RandomizedResponse.from_epsilon(eps)
    bits = rng.integers(0, 2, (trials, n))
    reports = rr.randomize(bits, rng)
    keep = (1 + rr.bias) / 2                                 # P(report says the truth)
    posterior_one = np.where(reports == -1, keep, 1 - keep)  # M = −1 ⇔ reported bit 1
    mse = np.mean((posterior_one.sum(axis=1) - bits.sum(axis=1)) ** 2)
    bound = local_bayes_bound(n, eps) ** 2
    assert bound == pytest.approx(n * math.e / (1 + math.e) ** 2)
    assert abs(mse - bound) < 6 * bound * math.sqrt(2 / trials)
    assert rr.variance(n) > bound


def test_two_point_bound_values_and_range():
    alpha, beta = local_two_point_bound(10 ** 6, 0.1, 0.1)
    assert alpha == pytest.approx(1000.0)
    assert beta == pytest.approx(0.336, abs=0.001)
    betas = [local_two_point_bound(10 ** 6, eps, 0.1)[1] for eps in (0.05, 0.1, 0.3, 1.0)]
    assert all(b > c for b, c in zip(betas, betas[1:])) and betas[-1] < 0   # vacuous at ε = 1
    with pytest.raises(ValueError, match="needs η = 4c/"):
        local_two_point_bound(100, 0.1, 2.0)


def test_randomized_response_errs_by_sqrt_n_over_epsilon_as_often_as_the_bound_demands():
    """At ε = 0.1, n = 10,000: some input must see |error| >= α = 0.1√n/ε = 100 with
    probability >= β = 0.336; RR does on every input (sd ≈ √n/ε: measured 0.919 on the
    all-zero input, 2,000 runs)."""
    rng = np.random.default_rng(44)
    n, eps = 10_000, 0.1
    alpha, beta = local_two_point_bound(n, eps, 0.1)
    rr = RandomizedResponse.from_epsilon(eps)
    bits = np.zeros((2_000, n), dtype=int)
    errors = rr.estimate(rr.randomize(bits, rng))
    assert np.mean(np.abs(errors) >= alpha) > beta + 0.1


# ------------------------------------------------------------------ bad input
def test_bad_input_is_rejected_with_the_parameter_named():
    with pytest.raises(ValueError, match=r"w must be an integer in \[1, 5\]"):
        packing_streams(10, 6)
    with pytest.raises(ValueError, match="T must be an integer"):
        packing_bound(2)
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        packing_bound(100, epsilon=0)
    with pytest.raises(ValueError, match="p must be a real number in"):
        packing_condition(100, 2, 1.0, p=1.5)
    with pytest.raises(ValueError, match="base must be one of"):
        packing_condition(100, 2, 1.0, base="last")
    with pytest.raises(ValueError, match="releases must be"):
        packing_events(np.zeros((2, 3, 4)), 1)
    with pytest.raises(TypeError, match="n must be an integer"):
        local_bayes_bound(10.5, 1.0)
    with pytest.raises(ValueError, match="c must be a real number in"):
        local_two_point_bound(100, 1.0, 0)


def test_the_earlier_parameter_names_still_work_with_a_deprecation_warning():
    """The packing functions' parameters follow course/notation.md (T the stream length, w the
    block length); the earlier names n and L still work."""
    with pytest.warns(DeprecationWarning, match="n is now called T"):
        assert packing_bound(n=1024) == packing_bound(1024)
    with pytest.warns(DeprecationWarning, match="L is now called w"):
        np.testing.assert_array_equal(packing_streams(12, L=3), packing_streams(12, 3))
    with pytest.raises(TypeError, match="not both"):
        packing_condition(100, 2, 1.0, w=3, L=2)
