"""Tests for panpriv_teach.local: each test states the claim it checks.

Privacy is checked exactly, by enumerating the channel of each local randomizer (Local-mechanisms notes, §1, Def 1).
Statistical tests use fixed seeds; each comment gives the sample size and the false-failure
probability (6 standard errors: two-sided normal tail 2e-9; chi-square p-value threshold 1e-6).
"""
import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from panpriv_teach.audit import exact_epsilon
from panpriv_teach.local import (DirectEncoding, OptimizedUnaryEncoding, UnaryEncoding, local_epsilon, warner_and,
                                 warner_and_distribution, warner_and_epsilon,
                                 warner_pair_distribution)
from panpriv_teach.mechanisms import RandomizedResponse, warner_epsilon
from panpriv_teach.noise import implemented_probability

P_MIN = 1e-6
LN3, LN9 = math.log(3), math.log(9)


# ----------------------------------------------------------------------------- local_epsilon

def test_local_epsilon_of_warner_channel_is_ln3():
    assert local_epsilon(np.array([[0.75, 0.25], [0.25, 0.75]])) == pytest.approx(LN3, rel=1e-14)
    assert local_epsilon({0: {"yes": 0.25, "no": 0.75}, 1: {"yes": 0.75, "no": 0.25}}) == \
        pytest.approx(LN3, rel=1e-14)


def test_local_epsilon_takes_the_worst_pair_of_inputs_and_the_worst_output():
    channel = np.array([[0.5, 0.3, 0.2], [0.4, 0.4, 0.2], [0.2, 0.2, 0.6]])
    worst = max(abs(math.log(channel[a, y] / channel[b, y]))
                for a in range(3) for b in range(3) for y in range(3))
    assert local_epsilon(channel) == pytest.approx(worst)   # ln 3, at inputs 0 and 2, output 2
    assert local_epsilon(channel[:2]) == pytest.approx(math.log(0.4 / 0.3))   # output 1


def test_local_epsilon_is_infinite_when_an_output_betrays_an_input_and_zero_for_no_information():
    assert local_epsilon(np.array([[1.0, 0.0], [0.5, 0.5]])) == math.inf
    assert local_epsilon(np.array([[0.3, 0.7], [0.3, 0.7]])) == 0.0
    assert local_epsilon({0: {"a": 1.0}}) == 0.0   # one input: nothing to distinguish


def test_local_epsilon_is_the_epsilon_of_the_joint_release_of_all_parties():
    # Local-mechanisms notes, §1: with independent randomness the joint ratio reduces to one party's (Def 1).
    # Enumerate n = 2 parties of DirectEncoding(k=3): 9 databases, 9 joint outputs.
    de = DirectEncoding(3, 0.8)
    law = {v: de.report_distribution(v) for v in range(3)}
    worst = 0.0
    for x in itertools.product(range(3), repeat=2):
        for i, other in itertools.product(range(2), range(3)):
            y = list(x)
            y[i] = other
            joint = lambda z: np.outer(law[z[0]], law[z[1]]).ravel()
            worst = max(worst, exact_epsilon(joint(x), joint(y)))
    assert worst == pytest.approx(local_epsilon(np.array(list(law.values()))))
    assert worst == pytest.approx(0.8)


@pytest.mark.parametrize("channel, error, match", [
    ({}, ValueError, "channel"),
    (np.array([0.5, 0.5]), ValueError, "channel"),
    (np.array([[0.5, 0.6], [0.5, 0.5]]), ValueError, "sum to 1"),
    (np.array([[1.5, -0.5], [0.5, 0.5]]), ValueError, "non-negative"),
    ("abc", TypeError, "channel"),
])
def test_local_epsilon_rejects_bad_channels(channel, error, match):
    with pytest.raises(error, match=match):
        local_epsilon(channel)


# ----------------------------------------------------------------------- the AND (Dwork 2011)

def test_and_of_two_fair_randomized_bits_is_9_16_for_11_and_1_16_for_00():
    assert warner_and_distribution((1, 1))[1] == pytest.approx(9 / 16, rel=1e-14)
    assert warner_and_distribution((0, 0))[1] == pytest.approx(1 / 16, rel=1e-14)
    assert warner_and_distribution((0, 1))[1] == pytest.approx(3 / 16, rel=1e-14)


def test_each_bit_is_ln3_but_their_and_is_exactly_ln9():
    assert warner_and_epsilon(bits=1) == pytest.approx(LN3, rel=1e-12)
    assert warner_and_epsilon() == pytest.approx(LN9, rel=1e-12)
    # attained by the rows 00 and 11, as in Dwork 2011, Differential Privacy
    assert exact_epsilon(warner_and_distribution((0, 0)), warner_and_distribution((1, 1))) == \
        pytest.approx(LN9, rel=1e-12)
    # rows differing in one bit only lose ln 3
    assert exact_epsilon(warner_and_distribution((0, 1)), warner_and_distribution((1, 1))) == \
        pytest.approx(LN3, rel=1e-12)


@pytest.mark.parametrize("p", [0.1, 0.5, 0.9])
@pytest.mark.parametrize("bits", [1, 2, 3])
def test_and_and_whole_row_both_cost_m_times_one_bit(p, bits):
    # composition bound m ln((1 + p)/(1 - p)), and the AND attains it
    for release in ("and", "row"):
        assert warner_and_epsilon(p, bits, release) == pytest.approx(bits * warner_epsilon(p),
                                                                     rel=1e-9)


def test_pair_distribution_is_a_pmf_and_its_marginals_are_warner():
    law = warner_pair_distribution((1, 0), truth_probability=0.5)
    assert sum(law.values()) == pytest.approx(1.0)
    assert law[(1, 0)] == pytest.approx(9 / 16) and law[(0, 1)] == pytest.approx(1 / 16)
    assert law[(1, 0)] + law[(1, 1)] == pytest.approx(0.75)


def test_simulated_and_has_the_exact_law():
    # 100,000 respondents per row; P(AND = 1) within 6 SE (<= 0.5/sqrt(n)): false failure 4e-9
    n = 100_000
    for row in ((0, 0), (0, 1), (1, 1)):
        ands = warner_and(np.broadcast_to(row, (n, 2)), rng=sum(row) + 70)
        assert ands.shape == (n,) and set(np.unique(ands)) <= {0, 1}
        assert abs(ands.mean() - warner_and_distribution(row)[1]) < 6 * 0.5 / math.sqrt(n)


@pytest.mark.parametrize("call, error, match", [
    (lambda: warner_and_distribution((1, 2)), ValueError, "row"),
    (lambda: warner_and_distribution(()), ValueError, "row"),
    (lambda: warner_and_distribution((1, 1), truth_probability=1.0), ValueError, "truth_probability"),
    (lambda: warner_and_epsilon(bits=0), ValueError, "bits"),
    (lambda: warner_and_epsilon(release="xor"), ValueError, "release"),
    (lambda: warner_and([[1, 3]]), ValueError, "bits|rows"),
])
def test_and_helpers_reject_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ----------------------------------------------------------------------------- direct encoding

@pytest.mark.parametrize("k", [2, 3, 4, 10])
@pytest.mark.parametrize("epsilon", [0.1, math.log(3), 2.5])
def test_direct_encoding_is_exactly_epsilon_local_dp(k, epsilon):
    de = DirectEncoding(k, epsilon)
    channel = np.array([de.report_distribution(v) for v in range(k)])
    assert channel.sum(axis=1) == pytest.approx(np.ones(k))
    assert local_epsilon(channel) == pytest.approx(epsilon, rel=1e-12)


def test_direct_encoding_with_two_values_is_randomized_response():
    eps = 0.9
    de, rr = DirectEncoding(2, eps), RandomizedResponse.from_epsilon(eps)
    # RR reports +1 ("bit 0") w.p. (1 + b)/2 for bit 0
    assert de.report_distribution(0)[0] == pytest.approx(rr.report_distribution(0)[1])
    assert de.std(1000, 300) == pytest.approx(rr.std(1000))


def test_direct_encoding_reports_follow_the_report_distribution_chi_square():
    # 60,000 parties per value, k = 5; chi-square p-value threshold 1e-6 (false failure).
    # A sampler that can return the true value in its "other" branch would fail.
    de, n = DirectEncoding(5, 1.0), 60_000
    for value in range(5):
        reports = de.randomize(np.full(n, value), rng=80 + value)
        observed = np.bincount(reports, minlength=5)
        assert stats.chisquare(observed, de.report_distribution(value) * n).pvalue > P_MIN


def test_direct_encoding_slow_report_has_the_law_of_randomize():
    # 5,000 calls of `report`; chi-square p-value threshold 1e-6
    de, n = DirectEncoding(4, 0.5), 5_000
    rng = np.random.default_rng(90)
    reports = [de.report(2, rng) for _ in range(n)]
    observed = np.bincount(reports, minlength=4)
    assert stats.chisquare(observed, de.report_distribution(2) * n).pvalue > P_MIN


def test_direct_encoding_estimates_are_unbiased_with_the_stated_std():
    # reps = 3,000 runs, n = 2,000 parties over k = 4 values (counts 1000, 600, 400, 0).
    # Mean of each count within 6 std/sqrt(reps); sample std within 6 SE ~ 6 sqrt(1/(2 reps))
    # = 7.7 % (the estimates are near-normal: kurtosis ~ 1/n): false failure ~1e-8 over 8 checks.
    # Forgetting n q (bias ~ +n q/(p - q)) or the 1/(p - q) scale fails.
    de, n, reps = DirectEncoding(4, 1.0), 2_000, 3_000
    values = np.repeat([0, 1, 2], [1000, 600, 400])
    truth = np.array([1000, 600, 400, 0])
    estimates = de.estimate(de.randomize(np.broadcast_to(values, (reps, n)), rng=91))
    assert estimates.shape == (reps, 4)
    for v in range(4):
        std = de.std(n, int(truth[v]))
        assert abs(estimates[:, v].mean() - truth[v]) < 6 * std / math.sqrt(reps)
        assert abs(estimates[:, v].std(ddof=1) / std - 1) < 6 / math.sqrt(2 * reps)


def test_direct_encoding_estimate_of_a_single_run_is_a_k_vector():
    de = DirectEncoding(3, 1.0)
    out = de.estimate([0, 1, 1, 2])
    assert out.shape == (3,)
    assert out.sum() == pytest.approx(4)   # the counts always add up to n
    np.testing.assert_allclose(out, (np.array([1, 2, 1]) - 4 * de.q) / (de.p - de.q))


# ----------------------------------------------------------------------------- unary encoding

@pytest.mark.parametrize("encoding", [UnaryEncoding, OptimizedUnaryEncoding])
@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("epsilon", [0.2, math.log(3), 3.0])
def test_unary_encodings_are_exactly_epsilon_local_dp_by_enumeration(encoding, k, epsilon):
    randomizer = encoding(k, epsilon)
    channel = {v: randomizer.report_distribution(v) for v in range(k)}
    assert all(sum(law.values()) == pytest.approx(1.0) for law in channel.values())
    assert local_epsilon(channel) == pytest.approx(epsilon, rel=1e-12)


def test_unary_encoding_bits_are_randomized_response_with_half_the_epsilon():
    ue = UnaryEncoding(6, 1.2)
    rr = RandomizedResponse(ue.bias)
    assert rr.epsilon == pytest.approx(0.6)
    assert ue.std(1000) == pytest.approx(rr.std(1000))   # one bit's count is RR's count


def test_unary_encoding_keeps_each_bit_with_probability_p_independently():
    # 50,000 parties with value 1, k = 3: each position's frequency of 1 within 6 SE of p or
    # q (false failure 4e-9 per position); pairwise correlations |r| < 6/sqrt(n) = 0.027.
    ue, n = UnaryEncoding(3, 1.0), 50_000
    reports = ue.randomize(np.ones(n, int), rng=92)
    assert reports.shape == (n, 3)
    expected = np.array([ue.q, ue.p, ue.q])
    assert np.all(np.abs(reports.mean(axis=0) - expected) < 6 * 0.5 / math.sqrt(n))
    corr = np.corrcoef(reports.T)[np.triu_indices(3, 1)]
    assert np.all(np.abs(corr) < 6 / math.sqrt(n))


def test_unary_encoding_slow_report_has_the_law_of_randomize():
    # 4,000 reports of value 0, k = 3, against the exact law of the 8 reports; threshold 1e-6
    ue, n = UnaryEncoding(3, 2.0), 4_000
    rng = np.random.default_rng(93)
    law = ue.report_distribution(0)
    outcomes = list(law)
    reports = [tuple(ue.report(0, rng)) for _ in range(n)]
    observed = np.array([reports.count(o) for o in outcomes])
    assert stats.chisquare(observed, np.array([law[o] for o in outcomes]) * n).pvalue > P_MIN


def test_unary_encoding_estimates_are_unbiased_with_a_std_free_of_k_and_of_the_data():
    # reps = 2,000 runs, n = 1,500, k = 4 and k = 16 (same ε): mean within 6 std/sqrt(reps),
    # std within 6/sqrt(2 reps) = 9.5 %: false failure ~1e-8 over all checks.
    n, reps, eps = 1_500, 2_000, 1.0
    for k in (4, 16):
        ue = UnaryEncoding(k, eps)
        values = np.arange(n) % 3          # 500 each of 0, 1, 2; none of the rest
        truth = np.bincount(values, minlength=k)
        rng = np.random.default_rng(94 + k)
        estimates = np.concatenate([ue.estimate(ue.randomize(np.broadcast_to(values, (250, n)), rng))
                                    for _ in range(reps // 250)])   # in blocks: bounded memory
        assert estimates.shape == (reps, k)
        std = ue.std(n)
        assert std == pytest.approx(math.sqrt(n * math.exp(eps / 2)) / (math.exp(eps / 2) - 1))
        assert np.all(np.abs(estimates.mean(axis=0) - truth) < 6 * std / math.sqrt(reps))
        assert np.all(np.abs(estimates.std(axis=0, ddof=1) / std - 1) < 6 / math.sqrt(2 * reps))


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_unary_beats_direct_exactly_beyond_the_crossover_domain_size(epsilon):
    # equate n (e^ε + k - 2)/(e^ε - 1)^2 and n e^(ε/2)/(e^(ε/2) - 1)^2
    e = math.exp(epsilon / 2)
    crossover = e**3 + e**2 + e + 2
    for k in range(2, 60):
        direct, unary = DirectEncoding(k, epsilon).std(1000), UnaryEncoding(k, epsilon).std(1000)
        assert (unary < direct) == (k > crossover)


# ----------------------------------------------------------------------------- optimized unary encoding

@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_oue_variance_is_wang_et_al_formula(epsilon):
    # Wang et al. 2017: Var of the estimated frequency c/n is 4e^ε/(n (e^ε - 1)^2) for rare
    # values; our count's variance is n^2 times that. 3,000 runs of n = 1,000 parties, k = 4,
    # value 3 held by nobody: the sample variance within 6/sqrt(reps/2) relative (false
    # failure < 1e-8), and the mean within 6 SE of 0.
    n, reps, k = 1_000, 3_000, 4
    oue = OptimizedUnaryEncoding(k, epsilon)
    formula = 4 * math.exp(epsilon) / (n * math.expm1(epsilon) ** 2) * n**2
    assert oue.std(n) ** 2 == pytest.approx(formula, rel=1e-12)
    values = np.arange(n) % 3
    rng = np.random.default_rng(int(epsilon * 10) + 500)
    estimates = np.concatenate([oue.estimate(oue.randomize(np.broadcast_to(values, (300, n)), rng))
                                for _ in range(reps // 300)])[:, 3]
    assert abs(estimates.var(ddof=1) / formula - 1) < 6 * math.sqrt(2 / reps)
    assert abs(estimates.mean()) < 6 * math.sqrt(formula / reps)


def test_oue_reports_each_bit_with_p_one_half_or_q():
    # 50,000 parties with value 1, k = 3: each position's frequency of 1 within 6 SE
    oue, n = OptimizedUnaryEncoding(3, 1.0), 50_000
    reports = oue.randomize(np.ones(n, int), rng=95)
    expected = np.array([oue.q, 0.5, oue.q])
    assert np.all(np.abs(reports.mean(axis=0) - expected) < 6 * 0.5 / math.sqrt(n))
    law, rng = oue.report_distribution(0), np.random.default_rng(96)
    outcomes = list(law)
    slow = [tuple(oue.report(0, rng)) for _ in range(4_000)]
    observed = np.array([slow.count(o) for o in outcomes])
    assert stats.chisquare(observed, np.array([law[o] for o in outcomes]) * 4_000).pvalue > P_MIN


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_oue_beats_symmetric_unary_always_and_direct_beyond_3e_eps_plus_2(epsilon):
    # the figures: 1.5 %, 6 % and 21 % lower variance than symmetric unary encoding
    gain = {0.5: 0.015, 1.0: 0.06, 2.0: 0.21}[epsilon]
    oue, ue = OptimizedUnaryEncoding(5, epsilon).std(1000), UnaryEncoding(5, epsilon).std(1000)
    assert 1 - oue**2 / ue**2 == pytest.approx(gain, abs=0.005)
    for k in range(2, 60):
        direct = DirectEncoding(k, epsilon).std(1000)
        assert (OptimizedUnaryEncoding(k, epsilon).std(1000) < direct) == (k > 3 * math.exp(epsilon) + 2)


def test_both_encodings_err_like_sqrt_n():
    # the std formulas scale exactly as sqrt(n): the Omega(sqrt(n)/ε) of the Local-mechanisms notes, §1 for counting
    for oracle in (DirectEncoding(4, 1.0), UnaryEncoding(4, 1.0)):
        assert oracle.std(40_000) / oracle.std(400) == pytest.approx(10.0)


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, error, match", [
    (lambda: DirectEncoding(1, 1.0), ValueError, "k"),
    (lambda: DirectEncoding(2.5, 1.0), TypeError, "k"),
    (lambda: DirectEncoding(3, 0), ValueError, "epsilon"),
    (lambda: UnaryEncoding(3, -1), ValueError, "epsilon"),
    (lambda: DirectEncoding(3, 1.0).randomize([0, 3]), ValueError, r"values.*\[0, 2\]"),
    (lambda: DirectEncoding(3, 1.0).randomize([]), ValueError, "values"),
    (lambda: DirectEncoding(3, 1.0).randomize([0.5]), ValueError, "values"),
    (lambda: DirectEncoding(3, 1.0).estimate([-1, 0]), ValueError, "values"),
    (lambda: DirectEncoding(3, 1.0).std(0), ValueError, r"\bn\b"),
    (lambda: DirectEncoding(3, 1.0).std(10, 11), ValueError, "count"),
    (lambda: DirectEncoding(3, 1.0).report_distribution(3), ValueError, "value"),
    (lambda: UnaryEncoding(3, 1.0).randomize([5]), ValueError, "values"),
    (lambda: UnaryEncoding(3, 1.0).estimate([[0, 1]]), ValueError, r"shape \(\.\.\., n, k\)"),
    (lambda: UnaryEncoding(3, 1.0).estimate([[0, 2, 1]]), ValueError, "reports"),
    (lambda: UnaryEncoding(3, 1.0).estimate([0, 1, 0]), ValueError, "reports"),
    (lambda: UnaryEncoding(13, 1.0).report_distribution(0), ValueError, "k must be at most"),
])
def test_frequency_oracles_reject_bad_input_naming_the_parameter(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_no_global_random_state_is_touched():
    np.random.seed(1)
    before = np.random.random()
    np.random.seed(1)
    DirectEncoding(3, 1.0).randomize([0, 1, 2], rng=0)
    UnaryEncoding(3, 1.0).randomize([0, 1, 2], rng=0)
    warner_and([[1, 1]], rng=0)
    assert np.random.random() == before


# ------------------------------------------------------------------ in floating point

EPSILONS = [1e-9, 1e-3, 0.1, 1.0, math.log(3), 5.0, 20.0, 36.74, 40.0, 50.0, 80.0, 700.0, 1e4]


@pytest.mark.parametrize("k", [2, 3, 10, 1000])
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_direct_encoding_implemented_privacy_is_at_most_epsilon(k, epsilon):
    # P(keep) is the threshold t itself (on the 2^-53 grid); each other value (1 - t)/(k - 1)
    de = DirectEncoding(k, epsilon)
    t = Fraction(de._keep)
    assert implemented_probability(de._keep) == t < 1
    e_epsilon = Fraction(math.exp(min(epsilon, 700.0))) * (1 + Fraction(1, 2**51))
    assert t * (k - 1) / (1 - t) <= e_epsilon
    assert de.implemented_epsilon <= epsilon * (1 + 2.0**-50)
    if epsilon <= 20:
        assert epsilon - de.implemented_epsilon <= 2.0**-51 * (math.exp(epsilon) + k) * k


@pytest.mark.parametrize("k", [2, 5, 12])
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("cls", [UnaryEncoding, OptimizedUnaryEncoding])
def test_unary_encodings_implemented_privacy_is_at_most_epsilon(cls, k, epsilon):
    enc = cls(k, epsilon)
    t_p, t_q = Fraction(enc._one), Fraction(enc._flip)
    assert implemented_probability(enc._one) == t_p and implemented_probability(enc._flip) == t_q
    assert 0 < t_q < t_p < 1
    assert enc.implemented_epsilon <= epsilon * (1 + 2.0**-50)
    if epsilon <= 20:
        assert epsilon - enc.implemented_epsilon <= 2.0**-50 * math.exp(epsilon) + 2.0**-50
    if k <= 5:   # by enumeration of all 2^k reports, in fractions
        laws = [{r: math.prod(((t_p if j == v else t_q) if bit else 1 - (t_p if j == v else t_q))
                              for j, bit in enumerate(r))
                 for r in itertools.product((0, 1), repeat=k)} for v in range(k)]
        worst = max(a[r] / b[r] for a, b in itertools.permutations(laws, 2) for r in a)
        assert math.log(worst) == pytest.approx(enc.implemented_epsilon, rel=1e-15)


def test_rounding_to_nearest_made_the_encodings_infinitely_private_at_large_epsilon():
    # what the code did before: compare with the float p; at these epsilon p rounds to 1
    assert implemented_probability(DirectEncoding(2, 40.0).p) == 1
    assert implemented_probability(UnaryEncoding(3, 80.0).p) == 1
    assert DirectEncoding(2, 40.0).implemented_epsilon <= 40.0
    assert UnaryEncoding(3, 80.0).implemented_epsilon <= 80.0


def test_encodings_draw_with_the_analysed_thresholds():
    values = np.arange(300) % 4
    u = np.random.default_rng(9).random(300)
    de = DirectEncoding(4, 2.0)
    reports = de.randomize(values, rng=9)
    assert np.array_equal(reports == values, u < de._keep)
    for enc in (UnaryEncoding(4, 2.0), OptimizedUnaryEncoding(4, 2.0)):
        bits = enc.randomize(values, rng=9)
        u2 = np.random.default_rng(9).random(bits.shape)
        one = np.where(values[:, None] == np.arange(4), enc._one, enc._flip)
        assert np.array_equal(bits, (u2 < one).astype(int))


@pytest.mark.parametrize("p", [1 / 3, 0.5, 0.1, 1e-300])
def test_warner_and_implemented_epsilon_is_within_m_2_to_the_minus_51(p):
    exact = implemented_probability(p)        # the coin rng.random() < p, in fractions
    def law(row):
        one = math.prod((1 + exact) / 2 if x else (1 - exact) / 2 for x in row)
        return {0: 1 - one, 1: one}
    laws = [law(row) for row in itertools.product((0, 1), repeat=2)]
    worst = max(a[o] / b[o] for a, b in itertools.permutations(laws, 2) for o in (0, 1))
    assert math.log(worst) <= warner_and_epsilon(p, bits=2) * (1 + 1e-15) + 2 * 2.0**-51


def test_direct_encoding_refuses_epsilon_too_small_for_the_2_to_the_minus_53_grid():
    # k = 10^6 and ε = 1e-12: P(keep) = 1/k + O(ε/k) cannot be placed within ε/k of it
    with pytest.raises(ValueError, match=r"epsilon must be at least about 2e-10 for k = 1000000"):
        DirectEncoding(10**6, 1e-12)
    assert DirectEncoding(10**6, 1e-9).implemented_epsilon <= 1e-9


@pytest.mark.parametrize("epsilon", [0.12229500227075858, 0.5, 1.0, 3.0])
def test_direct_encoding_accepts_epsilon_whose_exact_ratio_logs_an_ulp_above_it(epsilon):
    # ε = 0.12229500227075858, k = 2 was refused as "too small for the grid": the exact ratio
    # t/(1 - t) is <= e^ε, but its log rounds to ε + 4e-17. Only a ratio below e^-ε is refused.
    de = DirectEncoding(2, epsilon)
    t = Fraction(de._keep)
    assert t / (1 - t) <= Fraction(math.exp(epsilon)) * (1 + Fraction(1, 2**51))
    assert de.implemented_epsilon <= epsilon * (1 + 2.0**-50)
