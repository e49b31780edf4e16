"""Tests for panpriv_teach.stable: p-stable laws, the sketch and its median estimator (Thm 5),
and Alg 1 computed exactly by enumeration on tiny instances (Lemmas 1-3, Thm 6).

Statistical tests use fixed seeds; each comment gives the sample size and the probability
that a correct implementation fails (goodness-of-fit tests at p-value 1e-6).
"""
import itertools
import math
import pickle
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from panpriv_teach.audit import exact_epsilon
from panpriv_teach.mechanisms import exponential_mechanism_probabilities
from panpriv_teach.stable import (PanPrivateDistinctCount, StableSketch, enumeration_size,
                                  lp_power, stable_sample, stable_scale_factor)
from panpriv_teach.streams import dynamic_stream, frequencies

P_MIN = 1e-6


# ------------------------------------------------------------------------ p-stable laws

def test_sampler_is_cauchy_at_p1_and_normal_with_variance_2_at_p2():
    # n = 20,000 each; KS at 1e-6. N(0, 1) (the "forgot the scale" reading) is rejected.
    assert stats.kstest(stable_sample(1.0, 20_000, 1), stats.cauchy.cdf).pvalue > P_MIN
    x = stable_sample(2.0, 20_000, 2)
    assert stats.kstest(x, stats.norm(scale=np.sqrt(2)).cdf).pvalue > P_MIN
    assert stats.kstest(x, stats.norm.cdf).pvalue < P_MIN


def test_sampler_matches_scipy_levy_stable_at_p_one_half():
    # n = 3,000; KS against scipy's symmetric stable law (same parametrisation), at 1e-6.
    x = stable_sample(0.5, 3_000, 3)
    assert stats.kstest(x, stats.levy_stable(0.5, 0.0).cdf).pvalue > P_MIN


@pytest.mark.parametrize("p", [0.5, 1.0, 1.5, 2.0])
def test_stability_sum_b_i_Y_i_has_the_law_of_lp_norm_times_Y(p):
    # Def 6: Σ b_i Y_i ~ (Σ|b_i|^p)^(1/p) Y. Two-sample KS, 20,000 vs 20,000, at 1e-6.
    # Scaling by the L2 norm instead (wrong unless p = 2) is rejected for p = 0.5 and 1.
    rng = np.random.default_rng(10)
    b = np.array([3.0, -1.0, 0.5, 2.0, -4.0])
    lhs = stable_sample(p, (20_000, len(b)), rng) @ b
    norm_p = np.sum(np.abs(b) ** p) ** (1 / p)
    rhs = norm_p * stable_sample(p, 20_000, rng)
    assert stats.ks_2samp(lhs, rhs).pvalue > P_MIN
    if p <= 1:
        wrong = np.linalg.norm(b) * stable_sample(p, 20_000, rng)
        assert stats.ks_2samp(lhs, wrong).pvalue < P_MIN


def test_scale_factor_exact_values_and_a_monte_carlo_check():
    assert stable_scale_factor(1.0) == 1.0
    assert stable_scale_factor(2.0) == pytest.approx((np.sqrt(2) * stats.norm.ppf(0.75)) ** 2)
    # p = 0.5: the sample median of |X|^p over n = 400,001 draws lies between the
    # (1/2 ± 0.005)-quantiles of |X|^p except w.p. < 1e-9 (binomial tails: 0.005 is
    # 6.3 standard deviations 1/(2 sqrt(n))); sf(0.5) must lie there too.
    x = np.abs(stable_sample(0.5, 400_001, 4)) ** 0.5
    law = stats.levy_stable(0.5, 0.0)
    lo, hi = (law.ppf(0.5 + 0.495 / 2) ** 0.5, law.ppf(0.5 + 0.505 / 2) ** 0.5)
    assert lo < np.median(x) < hi
    assert lo < stable_scale_factor(0.5) < hi


# ------------------------------------------------------------------------ the sketch

def median_estimator_interval(p, r, eta):
    """The estimate / truth ratio lies in this interval unless fewer than half of r draws of
    |X_0| fall below the (1/2 + eta)-quantile or more than half below the (1/2 - eta) one."""
    law = stats.levy_stable(p, 0.0)
    q = lambda level: law.ppf(0.5 + level / 2) ** p
    k = r // 2 + 1
    failure = stats.binom.cdf(k - 1, r, 0.5 + eta) + stats.binom.sf(k - 1, r, 0.5 - eta)
    return q(0.5 - eta) / q(0.5), q(0.5 + eta) / q(0.5), failure


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0])
def test_median_estimator_is_within_the_order_statistic_tolerance(p):
    # r = 2,001, eta = 0.06: the interval is about ±17 % (p = 0.5); a correct estimator
    # fails w.p. 7e-8 per vector, 3 vectors per p.
    r = 2_001
    lo, hi, failure = median_estimator_interval(p, r, 0.06)
    assert failure < 1e-7
    for seed, a in enumerate([np.r_[np.ones(30), np.zeros(70)], np.arange(100) % 4,
                              np.r_[[50, 1, 1], np.zeros(20)]]):
        sketch = StableSketch(len(a), p, r, rng=100 + seed)
        updates = np.column_stack([np.arange(len(a)), a]).astype(int)
        sketch.process(updates)
        assert lo < sketch.output() / lp_power(a, p) < hi


def test_paper_formula_multiplying_by_sf_is_caught_at_p_one_half():
    # Alg 1 writes median|sk|^p · sf(p); the right estimator divides. At p = 0.5 the slip is
    # off by sf² = 1.28, outside the tolerance of the previous test.
    lo, hi, _ = median_estimator_interval(0.5, 2_001, 0.06)
    assert stable_scale_factor(0.5) ** 2 > hi
    sketch = StableSketch(50, 0.5, 2_001, rng=7)
    sketch.process(np.column_stack([np.arange(50), np.ones(50, int)]))
    seed_estimate = np.median(np.abs(sketch.sk) ** 0.5) * stable_scale_factor(0.5)
    assert not lo < seed_estimate / 50 < hi
    assert lo < sketch.output() / 50 < hi


def test_small_p_approximates_the_distinct_count():
    # 1 <= a_i <= Z = 3: D <= Σ a_i^p <= Z^p D. At p = 0.05, Z^p = 1.056.
    a = frequencies(dynamic_stream(500, 120, 5, leave_probability=0.3, max_visits=3), 500)
    D = np.count_nonzero(a)
    assert D <= lp_power(a, 0.05) <= 3 ** 0.05 * D


def test_process_equals_repeated_update():
    stream = dynamic_stream(60, 25, 6, leave_probability=0.5, max_visits=2)
    for resolution in (None, 8):
        one, many = (StableSketch(60, 0.7, 5, rng=8, resolution=resolution) for _ in range(2))
        for i, d in stream:
            one.update(i, d)
        many.process(stream)
        if resolution is None:
            np.testing.assert_allclose(one.sk, many.sk, rtol=1e-9, atol=1e-9 * np.abs(one.X).max())
        else:
            np.testing.assert_array_equal(one.sk, many.sk)   # exact integer arithmetic
    one.update((3, 2))   # a pair is accepted too
    many.update(3, 2)
    np.testing.assert_array_equal(one.sk, many.sk)


def test_sketch_is_linear_so_insert_then_delete_restores_it_exactly_on_the_grid():
    sketch = StableSketch(20, 0.5, 4, rng=9, resolution=4)
    before = sketch.state()["sk"]
    sketch.process(np.array([[3, 2], [7, 1], [3, -2], [7, -1]]))
    np.testing.assert_array_equal(sketch.state()["sk"], before)
    assert sketch.output() == 0.0


def test_state_is_the_matrix_and_the_sketch_only():
    sketch = StableSketch(10, 1.0, 3, rng=0)
    sketch.update(4, 1)
    state = sketch.state()
    assert set(state) == {"X", "sk"}
    state["sk"][:] = 99
    assert not np.any(sketch.sk == 99)   # a deep copy


# ------------------------------------------------------------------------ Alg 1, exact

def tiny(m=4, seed=3, resolution=2, epsilon=1.0, **kw):
    return PanPrivateDistinctCount(m, 1, epsilon, rng=seed, resolution=resolution, **kw)


def test_noise_table_is_the_exponential_mechanism_with_quality_minus_d():
    alg = tiny()
    assert alg.n_candidates == enumeration_size(4, 1) == 625
    # d(X^T c) <= ‖c‖₀ for every c, with equality attained in every group (brute force)
    values = range(-2, 3)
    best = {}
    for c in itertools.product(values, repeat=4):
        z = tuple(np.array(c) @ alg.X)
        best[z] = min(best.get(z, 9), np.count_nonzero(c))
    assert len(best) == len(alg.noise_distance)
    assert all(alg.distance(z)[0] == d for z, d in best.items())
    # μ_ε ∝ exp((ε/4)·q) = the exponential mechanism exp(ε q /(2Δ)) with Δ = 2
    expected = exponential_mechanism_probabilities(-alg.noise_distance, 2, alg.epsilon)
    np.testing.assert_allclose(alg.noise_probabilities, expected, rtol=1e-12)


def test_lemma2_state_after_a_stream_has_the_exponential_mechanism_law():
    # 20,000 runs with the same X; chi-square of the observed states against
    # P(s) = μ_ε(s − Xᵀa), cells with expected count >= 5 plus one lumped cell; at 1e-6.
    base = tiny()
    stream = np.array([[0, 1], [2, 1], [1, 1], [1, -1]])
    a = frequencies(stream, 4)
    law = base.state_distribution(a)
    rng = np.random.default_rng(11)
    counts = {}
    for _ in range(20_000):
        alg = tiny(X=base.X, seed=rng)
        alg.process(stream)
        key = tuple(alg.sk.tolist())
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) <= set(law)
    keys = [s for s in law if law[s] * 20_000 >= 5]
    observed = [counts.get(s, 0) for s in keys]
    expected = [law[s] * 20_000 for s in keys]
    observed.append(20_000 - sum(observed))
    expected.append(20_000 - sum(expected))
    assert stats.chisquare(observed, expected).pvalue > P_MIN


def neighbour_shifts(alg):
    """Xᵀ(a' − a) for Def 4 neighbours: s units of i's state moved to j, |s| <= Z."""
    m, Z = alg.universe_size, alg.Z
    return [s * (alg.X[j] - alg.X[i]) for i, j in itertools.permutations(range(m), 2)
            for s in range(-Z, Z + 1) if s]


def test_lemma1_delta_q_at_most_2_wherever_both_distances_are_finite_for_a_generic_X():
    # A fine grid (resolution 1000): no two c share a sketch, d(Xᵀc) = ‖c‖₀.
    alg = tiny(resolution=1000)
    assert len(alg.noise_distance) == alg.n_candidates
    worst, infeasible = 0, 0
    for shift in neighbour_shifts(alg):
        moved = alg.distance(alg.noise_sketches + shift)
        ok = moved >= 0
        infeasible += np.sum(~ok)
        worst = max(worst, np.abs(moved[ok] - alg.noise_distance[ok]).max())
    assert worst == 2
    assert infeasible > 0   # ... but some shifted sketches leave the box: see the next test


def test_paper_gap_the_box_makes_the_state_support_depend_on_the_input():
    # Lemma 2 claims ε-pan-privacy. Exactly: on the common support the ratio is
    # <= e^(ε/2) (attained), but states at the edge of the box are impossible for the
    # neighbour (exact ε = ∞), and they carry probability δ ≈ 0.34 here.
    alg = tiny(resolution=1000)
    a, b = np.array([1, 0, 1, 0]), np.array([0, 1, 1, 0])   # Def 4: ID 0's visit moved to 1
    pa, pb = alg.state_distribution(a), alg.state_distribution(b)
    assert exact_epsilon(pa, pb) == np.inf
    common = [s for s in pa if s in pb]
    ratio = max(abs(np.log(pa[s] / pb[s])) for s in common)
    assert ratio == pytest.approx(alg.epsilon / 2)
    delta = sum(q for s, q in pa.items() if s not in pb)
    assert 0.3 < delta < 0.4


def test_paper_gap_with_sketch_collisions_lemma1_fails_even_where_d_is_finite():
    # A coarse grid makes different c share a sketch; with the box, d can then jump by more
    # than 2 between neighbouring sketches that are both reachable.
    alg = tiny(m=5, seed=2, resolution=2)
    assert len(alg.noise_distance) < alg.n_candidates   # collisions
    worst = 0
    for i, j in itertools.permutations(range(5), 2):
        for ci, cj in itertools.product(range(-2, 3), repeat=2):
            moved = alg.distance(alg.noise_sketches + ci * alg.X[i] + cj * alg.X[j])
            ok = moved >= 0
            worst = max(worst, np.abs(moved[ok] - alg.noise_distance[ok]).max())
    assert worst > 2


@pytest.mark.parametrize("delta", [0.2, 0.05, 0.01])
def test_lemma3_tail_bound_holds_exactly(delta):
    for alg in (tiny(), tiny(m=6, seed=1)):
        bound = alg.lemma3_bound(delta)
        tail = alg.noise_probabilities[alg.noise_distance > bound].sum()
        assert tail <= delta


def test_thm6_output_sketch_is_the_sketch_of_a_vector_within_d_y_plus_d_y_prime_of_a():
    # The deterministic part of Thm 6's proof: sk^priv = Xᵀ(a + c + c') with ‖c‖₀ = d(y),
    # ‖c'‖₀ = d(y'), so the distinct count of a + c + c' is D ± (d(y) + d(y')). 200 runs.
    base = tiny()
    a = np.array([1, 1, 0, 1])
    D = np.count_nonzero(a)
    rng = np.random.default_rng(12)
    for _ in range(200):
        alg = tiny(X=base.X, seed=rng)
        y = alg.sk.copy()
        alg.process(np.column_stack([np.arange(4), a]))
        alg.output()
        y_prime = alg.sk - y - a @ alg.X
        c, c_prime = alg.preimage(y), alg.preimage(y_prime)
        d, d_prime = np.count_nonzero(c), np.count_nonzero(c_prime)
        assert (d, d_prime) == (alg.distance(y)[0], alg.distance(y_prime)[0])
        b = a + c + c_prime
        np.testing.assert_array_equal(b @ alg.X, alg.sk)
        assert D - d - d_prime <= np.count_nonzero(b) <= D + d + d_prime
        assert alg.output() >= 0


def test_exact_alg1_refuses_instances_too_large_to_enumerate():
    with pytest.raises(ValueError, match=r"\(4Z \+ 1\)\^m = 48,828,125"):
        PanPrivateDistinctCount(11, 1, 1.0, rng=0)
    with pytest.raises(ValueError, match="max_candidates"):
        PanPrivateDistinctCount(5, 1, 1.0, rng=0, max_candidates=100)


def test_preimages_keep_entries_beyond_int8():
    # Z = 70: the stored minimisers must hold every value of [−2Z, 2Z] = [−140, 140],
    # beyond int8's [−128, 127] (where 140 would come back as −116)
    alg = PanPrivateDistinctCount(2, 70, 1.0, rng=0, resolution=1000)
    for c in ([140, -140], [-129, 3], [0, 61]):
        np.testing.assert_array_equal(alg.preimage(np.array(c) @ alg.X), c)


def test_alg1_state_is_the_matrix_and_the_noisy_sketch_with_no_ids():
    alg = tiny()
    alg.process(np.array([[2, 1], [3, 1]]))
    assert set(alg.state()) == {"X", "sk"}
    before = alg.sk.copy()
    alg.output()   # Alg 1 adds y' to the kept sketch: the change is a reachable noise sketch
    assert alg.distance(alg.sk - before)[0] >= 0
    assert isinstance(pickle.loads(pickle.dumps(alg)), PanPrivateDistinctCount)


# ------------------------------------------------------------------------ floating point

def test_sampler_law_is_what_rng_choice_draws():
    # rng.choice(p=μ) is searchsorted(cumsum(μ)/last, U, 'right') with U = k·2^−53: the
    # integer law N_j reproduces its draws one by one (100,000 draws, same seed).
    alg = tiny(resolution=1000)
    law = alg.sampler_law()
    assert law.sum() == 2 ** 53 and law.min() > 0
    drawn = np.random.default_rng(7).choice(len(law), size=100_000, p=alg.noise_probabilities)
    k = np.ldexp(np.random.default_rng(7).random(100_000), 53).astype(np.int64)
    np.testing.assert_array_equal(drawn, np.searchsorted(np.cumsum(law), k, side="right"))


def exact_mu(alg):
    """μ_ε(j) = exp(−ε d_j/(2Δ)) / Σ, in 60-digit arithmetic (not floats)."""
    with mpmath.workdps(60):
        scale = mpmath.mpf(alg.epsilon) / (2 * mpmath.mpf(alg.sensitivity))
        weights = [mpmath.exp(-scale * int(d)) for d in alg.noise_distance]
        total = mpmath.fsum(weights)
        return [w / total for w in weights]


def float_worst_ratio(alg, a, b) -> Fraction:
    """The float program's largest P_a(s)/P_b(s) over common states, as a fraction of integers."""
    law = [int(n) for n in alg.sampler_law()]
    states_a = dict(zip(map(tuple, (alg.noise_sketches + a @ alg.X).tolist()), law))
    states_b = dict(zip(map(tuple, (alg.noise_sketches + b @ alg.X).tolist()), law))
    return max(max(Fraction(states_a[s], states_b[s]), Fraction(states_b[s], states_a[s]))
               for s in states_a if s in states_b)


def test_float_sampler_error_and_ratio_bound_in_exact_arithmetic():
    # The float program's law N_j/2^53 against the real μ_ε (60 digits), and its largest
    # probability ratio between the neighbours of Lemma 2's test on their common states,
    # an exact fraction: within e^(ε/2)·slack, and attained up to the slack. A sampler that
    # forgets Δ = 2 (weights exp(−(ε/2)d)) is caught by the same bound.
    alg = tiny(resolution=1000)
    law = alg.sampler_law()
    a, b = np.array([1, 0, 1, 0]), np.array([0, 1, 1, 0])
    slack = alg.sampler_ratio_slack()
    assert 1 < slack < 1 + 1e-9
    with mpmath.workdps(60):
        error = max(abs(mpmath.mpf(int(n)) / 2 ** 53 - m) for n, m in zip(law, exact_mu(alg)))
        assert error <= (len(law) + 8) * mpmath.mpf(2) ** -52
        bound = mpmath.exp(mpmath.mpf(alg.epsilon) / 2)
        worst = float_worst_ratio(alg, a, b)
        assert bound / slack <= mpmath.mpf(worst.numerator) / worst.denominator <= bound * slack
        broken = float_worst_ratio(tiny(resolution=1000, sensitivity=1), a, b)
        assert mpmath.mpf(broken.numerator) / broken.denominator > bound * slack


def test_sampler_slack_is_infinite_when_probabilities_fall_below_the_grid():
    alg = tiny(epsilon=200.0)            # exp(−50 d): the smallest μ_ε is far below 2^−53
    assert alg.sampler_ratio_slack() == math.inf
    assert alg.sampler_law().min() == 0  # some noise sketches are never drawn


# ------------------------------------------------------------------------ other costs (§3.1)

def brute_force_distance(alg, cost):
    best = {}
    for c in itertools.product(range(-2 * alg.Z, 2 * alg.Z + 1), repeat=alg.universe_size):
        z = tuple(np.array(c) @ alg.X)
        best[z] = min(best.get(z, math.inf), cost(np.array(c)))
    return best


@pytest.mark.parametrize("cost, norm, delta", [
    ("l1", lambda c: np.abs(c).sum(), lambda Z: 2 * Z),
    ("l2", lambda c: np.sqrt((c * c).sum()), lambda Z: math.sqrt(2) * Z),
])
def test_cost_table_is_the_minimum_cost_per_sketch_with_its_sensitivity(cost, norm, delta):
    alg = PanPrivateDistinctCount(3, 2, 1.0, rng=4, resolution=2, cost=cost)   # coarse: collisions
    assert len(alg.noise_distance) < alg.n_candidates
    best = brute_force_distance(alg, norm)
    assert len(best) == len(alg.noise_distance)
    for z, d in best.items():
        assert alg.distance(z)[0] == pytest.approx(d)
    assert alg.sensitivity == pytest.approx(delta(2))
    expected = exponential_mechanism_probabilities(-alg.noise_distance, alg.sensitivity, 1.0)
    np.testing.assert_allclose(alg.noise_probabilities, expected, rtol=1e-12)
    for z in list(best)[:50]:
        c = alg.preimage(z)
        assert norm(c) == pytest.approx(alg.distance(z)[0])


def test_l1_lemma1_analogue_is_2Z_and_the_state_is_eps_half_private_on_common_states():
    # Fine grid: every c has its own sketch, d_1(Xᵀc) = ‖c‖₁. A Def 4 move of s units
    # (|s| <= Z) changes d_1 by at most 2|s| where both sketches are reachable: 2Z, attained.
    Z = 2
    alg = PanPrivateDistinctCount(3, Z, 1.0, rng=4, resolution=1000, cost="l1")
    assert len(alg.noise_distance) == alg.n_candidates
    worst = 0
    for shift in neighbour_shifts(alg):
        moved = alg.distance(alg.noise_sketches + shift)
        ok = moved >= 0
        worst = max(worst, np.abs(moved[ok] - alg.noise_distance[ok]).max())
    assert worst == 2 * Z == alg.sensitivity
    a, b = np.array([Z, 0, 1]), np.array([0, Z, 1])         # ID 0's Z visits moved to ID 1
    pa, pb = alg.state_distribution(a), alg.state_distribution(b)
    common = [s for s in pa if s in pb]
    assert max(abs(math.log(pa[s] / pb[s])) for s in common) == pytest.approx(alg.epsilon / 2)
    # the sensitivity 2 of ‖·‖₀ used with ‖·‖₁ under-calibrates: ratio e^(εZ/2) on common states
    wrong = PanPrivateDistinctCount(3, Z, 1.0, rng=4, resolution=1000, cost="l1", sensitivity=2)
    qa, qb = wrong.state_distribution(a), wrong.state_distribution(b)
    assert max(abs(math.log(qa[s] / qb[s])) for s in common) == pytest.approx(Z * alg.epsilon / 2)


def test_l1_noise_grows_linearly_with_Z_and_l0_noise_does_not():
    # Exact means of d_f(y) under μ (m = 3, ε = 4, fine grid): ‖·‖₁ grows like Z,
    # ‖·‖₀ stays below m; Lemma 3's bound likewise (2Δ_f/ε (ln|R| + ln(1/δ))).
    def mean_d(Z, cost):
        alg = PanPrivateDistinctCount(3, Z, 4.0, rng=4, resolution=1000, cost=cost)
        return float(alg.noise_probabilities @ alg.noise_distance), alg.lemma3_bound(0.05)
    (l1_1, b1_1), (l1_4, b1_4) = mean_d(1, "l1"), mean_d(4, "l1")
    (l0_1, b0_1), (l0_4, b0_4) = mean_d(1, "l0"), mean_d(4, "l0")
    assert l1_4 / l1_1 > 3 and b1_4 / b1_1 > 4
    assert l0_4 < 3 and l0_4 / l0_1 < 1.5 and b0_4 / b0_1 < 1.6


def test_a_callable_cost_reproduces_the_named_one():
    named = PanPrivateDistinctCount(3, 1, 1.0, rng=4, resolution=2, cost="l1")
    custom = PanPrivateDistinctCount(3, 1, 1.0, rng=4, resolution=2,
                                     cost=lambda c: np.abs(c).sum(axis=1))
    assert custom.sensitivity == named.sensitivity == 2
    np.testing.assert_array_equal(custom.noise_probabilities, named.noise_probabilities)
    np.testing.assert_array_equal(custom.sk, named.sk)   # same seed, same draw
    # a cost weighting IDs differently: Δ_f is the largest move over all pairs (i, j),
    # one unit from ID 0 or 1 to ID 2 (1 + 5), not that of the pair (0, 1) (1 + 1)
    weighted = PanPrivateDistinctCount(3, 1, 1.0, rng=4, cost=lambda c: np.abs(c) @ [1, 1, 5])
    assert weighted.sensitivity == 6


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(cost="l3"), ValueError, r"cost must be 'l0', 'l1', 'l2' or a callable.*'l3'"),
    (dict(cost=3), ValueError, "cost must be"),
    (dict(cost=lambda c: np.abs(c).sum(axis=1) + 1), ValueError, r"f\(0\) = 0.*1"),
    (dict(cost=lambda c: -np.abs(c).sum(axis=1)), ValueError, "finite reals >= 0"),
    (dict(cost=lambda c: np.abs(c).sum()), ValueError, r"one real number per row.*shape \(\)"),
    (dict(cost=lambda c: np.where(c.any(axis=1), np.nan, 0)), ValueError, "finite reals"),
    (dict(sensitivity=0), ValueError, "sensitivity must be"),
    (dict(sensitivity="2"), TypeError, "sensitivity must be"),
])
def test_cost_and_sensitivity_are_validated(kwargs, error, words):
    with pytest.raises(error, match=words):
        PanPrivateDistinctCount(3, 1, 1.0, rng=0, **kwargs)


# ------------------------------------------------------------------------ announced intrusions

def test_announced_intrusion_hides_the_change_between_two_views():
    # Without re-randomising, two views differ by Xᵀ(a₂ − a₁), which the fine grid decodes;
    # after announce_intrusion the difference is Xᵀ(a₂ − a₁) + y'' with y'' reachable noise.
    base = tiny(resolution=1000)
    between = np.array([[1, 1], [3, 1], [0, -1]])
    change = frequencies(between, 4)
    quiet = tiny(resolution=1000, X=base.X, seed=5)
    quiet.process(np.array([[0, 1]]))
    first = quiet.state()["sk"]
    quiet.process(between)
    np.testing.assert_array_equal(base.preimage(quiet.state()["sk"] - first), change)
    announced = tiny(resolution=1000, X=base.X, seed=5)
    announced.process(np.array([[0, 1]]))
    first = announced.announce_intrusion()["sk"]
    announced.process(between)
    assert announced.intrusions == 1
    noise = announced.state()["sk"] - first - change @ base.X
    assert base.distance(noise)[0] >= 0 and np.any(noise != 0)


def test_announced_intrusions_add_independent_draws_of_mu():
    # 20,000 announced intrusions in a row with no update in between: the differences of
    # consecutive views are i.i.d. μ_ε (chi-square over the 625 noise sketches, each with
    # expected count >= 5; a correct sampler fails with probability 1e-6).
    alg = tiny(resolution=1000, seed=13)
    views = np.array([alg.announce_intrusion()["sk"] for _ in range(20_001)])
    assert alg.intrusions == 20_001
    index = {tuple(s): k for k, s in enumerate(alg.noise_sketches.tolist())}
    counts = np.bincount([index[tuple(d)] for d in np.diff(views, axis=0).tolist()],
                         minlength=len(index))
    expected = alg.noise_probabilities * 20_000
    assert expected.min() >= 5
    assert stats.chisquare(counts, expected).pvalue > P_MIN


# ------------------------------------------------------------------------ bad input

@pytest.mark.parametrize("kwargs, error, words", [
    (dict(universe_size=0, p=1.0, r=3), ValueError, "universe_size"),
    (dict(universe_size=5, p=0.0, r=3), ValueError, r"p must be .*0 < p <= 2"),
    (dict(universe_size=5, p=2.5, r=3), ValueError, "p must be"),
    (dict(universe_size=5, p=1.0, r=0), ValueError, "r must be"),
    (dict(universe_size=5, p="1", r=3), TypeError, "p must be"),
    (dict(universe_size=5, p=1.0, r=3, resolution=0), ValueError, "resolution"),
    (dict(universe_size=5, p=1.0, r=3, X=np.ones((4, 3))), ValueError, r"X must have shape"),
])
def test_sketch_rejects_bad_parameters(kwargs, error, words):
    with pytest.raises(error, match=words):
        StableSketch(**kwargs)


def test_updates_are_validated():
    sketch = StableSketch(5, 1.0, 3, rng=0)
    with pytest.raises(ValueError, match=r"i must be an integer in \[0, 4\]"):
        sketch.update(5, 1)
    with pytest.raises(TypeError, match="delta must be an integer"):
        sketch.update(1, 0.5)
    with pytest.raises(TypeError, match="update takes"):
        sketch.update(1)
    with pytest.raises(ValueError, match=r"\(k, 2\) array"):
        sketch.process(np.array([1, 2, 3]))
    with pytest.raises(ValueError, match=r"column 0 of updates.*got 7"):
        sketch.process(np.array([[7, 1]]))
    with pytest.raises(ValueError, match="whole numbers"):
        sketch.process(np.array([[1, 0.5]]))


@pytest.mark.parametrize("kwargs, words", [
    (dict(universe_size=1, Z=1, epsilon=1.0), "universe_size .*Def 4"),
    (dict(universe_size=3, Z=0, epsilon=1.0), "Z must be"),
    (dict(universe_size=3, Z=1, epsilon=0.0), "epsilon must be"),
])
def test_alg1_rejects_bad_parameters(kwargs, words):
    with pytest.raises(ValueError, match=words):
        PanPrivateDistinctCount(**kwargs)
