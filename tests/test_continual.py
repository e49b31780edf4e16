"""Tests for panpriv_teach.continual (Dwork 2010, §7, Fig 3): each test states the claim.

Statistical tests use fixed seeds; tolerances are 6 standard errors (two-sided normal tail
2e-9 per check). `ExactCounter` (a noiseless counter) isolates the table and the coins from
the counter's noise where a test is about them.
"""
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest

from panpriv_teach.core import ContinualCounter
from panpriv_teach.continual import (BLANK, MAX_EPSILON, ContinualDensityEstimator, claim_7_1,
                                     counter_input_probabilities, max_epsilon)
from panpriv_teach.counters import CascadingBuffersCounter
from panpriv_teach.noise import implemented_probability
from panpriv_teach.ppcum import PanPrivateTreeCounter


class ExactCounter(ContinualCounter):
    """No noise: releases the exact number of ones (NOT private; for tests only)."""

    def __init__(self):
        self._t, self._sum = 0, 0

    def _step(self, x):
        self._t += 1
        self._sum += int(x)
        return float(self._sum)

    def run(self, stream):
        r = self._sum + np.cumsum(np.asarray(stream, dtype=np.int64))
        self._t += len(r)
        self._sum = int(r[-1])
        self._last_release = float(r[-1])
        return r.astype(float)

    def state(self):
        return {"sum": self._sum}


def _density(stream, N):
    seen, out = set(), []
    for x in stream:
        if x != BLANK:
            seen.add(int(x))
        out.append(len(seen) / N)
    return np.array(out)


def _stream(T=512, seed=0, users=300):
    s = np.random.default_rng(seed).integers(0, users, T)
    s[::3] = BLANK
    return s


# ----------------------------------------------------------------------------- Claim 7.1

@pytest.mark.parametrize("eps", [Fraction(1, 10), Fraction(1, 4), Fraction(2, 5)])
def test_claim_7_1_three_distributions_exactly(eps):
    c = claim_7_1(eps, exact=True)
    assert c["blank or not in M"] == Fraction(1, 2)
    assert c["repeat appearance"] == Fraction(1, 2)
    assert c["first appearance"] == Fraction(1, 2) + eps**2 / 2


def test_claim_7_1_holds_for_the_coins_the_estimator_draws():
    # Empirical P(y = 1) from the estimator's own coins, read off a noiseless counter.
    # N = m = 1 (the one user is in M). Repeats: one stream of K = 200,000 appearances,
    # y_2..y_K fair (SE 0.5/sqrt(K)); firsts: 20,000 one-step runs (SE 0.5/sqrt(20,000)).
    # Tolerance 6 SE; a wrong D- (e.g. 1/2 - eps) would move the repeats' mean by 0.04.
    eps, K = 0.4, 200_000
    e = ContinualDensityEstimator(1, eps, 1, K, counter=ExactCounter(), rng=1)
    ocount = e.run(np.zeros(K, dtype=np.int64)) * e.scale + np.arange(1, K + 1) / 2
    y = np.diff(np.concatenate([[0.0], ocount]))
    assert abs(y[1:].mean() - 0.5) < 6 * 0.5 / math.sqrt(K - 1)
    firsts = np.array([ContinualDensityEstimator(1, eps, 1, 1, counter=ExactCounter(), rng=s)
                       .run([0])[0] for s in range(20_000)]) * (eps**2 / 2) + 0.5
    assert abs(firsts.mean() - (0.5 + eps**2 / 2)) < 6 * 0.5 / math.sqrt(20_000)


def test_d_plus_is_a_distribution_only_up_to_sqrt2_minus_1():
    assert max_epsilon() == pytest.approx(math.sqrt(2) - 1)
    assert counter_input_probabilities(max_epsilon())["D+"] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="epsilon must be a real number in \\(0, 0.414.*D\\+"):
        ContinualDensityEstimator(100, 0.5, 10, 10)


# ----------------------------------------------------------------------------- unbiased output

def test_output_is_unbiased_with_the_derived_scale_and_sd_matches_formula():
    # E[ocount - t/2] = (eps^2/2) k_t, so (ocount - t/2)/(m eps^2/2) is unbiased for d_t.
    # Noiseless counter, R = 20,000 runs: |mean - d_t| < 6 sd/sqrt(R); the sd within 6% of
    # error_sd (SE of a Gaussian-like sd estimate 1/sqrt(2R) = 0.5%; 6 SE = 3%, plus 3%
    # slack for the coins' small non-normality). The proof sketch's /eps^2 would be half.
    N, m, eps, T, R = 1000, 200, 0.4, 512, 20_000
    s = _stream(T)
    d = _density(s, N)
    runs = np.array([ContinualDensityEstimator(N, eps, m, T, counter=ExactCounter(), rng=r).run(s)
                     for r in range(R)])
    e = ContinualDensityEstimator(N, eps, m, T, counter=ExactCounter(), rng=0)
    for t in [1, 64, 256, 512]:
        sd = e.error_sd(t, d[t - 1])
        assert abs(runs[:, t - 1].mean() - d[t - 1]) < 6 * sd / math.sqrt(R), t
        assert runs[:, t - 1].std() == pytest.approx(sd, rel=0.06), t
    # Dwork 2010, §7's accuracy argument's scale (ocount - t/2)/eps^2 would be off by a factor of 2
    half = runs[:, -1].mean() / 2
    assert abs(half - d[-1]) > 20 * e.error_sd(T, d[-1]) / math.sqrt(R)


def test_default_ppcum_counter_is_unbiased_and_within_its_error_band():
    # With PPCum inside, the error sd adds 2 (L+1)^3/eps^2 on the count scale. R = 4,000
    # runs, N = 10^5, m = 20,000: mean within 6 SE; sd within 10% (6 SE of the sd estimate,
    # kurtosis <= 3.75); the band +-2 sd covers >= 93% of runs (Gaussian 95.4%; the SE of a
    # coverage is 0.33%, 6 SE = 2%).
    N, m, eps, T, R = 100_000, 20_000, 0.4, 1024, 4_000
    s = np.random.default_rng(3).integers(0, 60_000, T)
    d = _density(s, N)
    runs = np.array([ContinualDensityEstimator(N, eps, m, T, rng=r).run(s) for r in range(R)])
    e = ContinualDensityEstimator(N, eps, m, T, rng=0)
    assert isinstance(e.counter, PanPrivateTreeCounter)
    for t in [16, 512, 1024]:
        sd = e.error_sd(t, d[t - 1])
        err = runs[:, t - 1] - d[t - 1]
        assert abs(err.mean()) < 6 * sd / math.sqrt(R)
        assert err.std() == pytest.approx(sd, rel=0.10)
        assert np.mean(np.abs(err) <= 2 * sd) > 0.93


def test_run_and_step_agree_in_distribution():
    # Same law, different draws: means and sds at t = T over R runs each (R = 3,000 for
    # step; 6 SE of the difference).
    N, m, eps, T, R = 60, 30, 0.4, 120, 3000
    s = np.random.default_rng(8).integers(-1, 40, T)           # blanks and repeats
    a = np.array([ContinualDensityEstimator(N, eps, m, T, counter=ExactCounter(), rng=r).run(s)[-1]
                  for r in range(R)])
    b = []
    for r in range(R):
        e = ContinualDensityEstimator(N, eps, m, T, counter=ExactCounter(), rng=10**6 + r)
        for v in s:
            e.step(int(v))
        b.append(e.output())
    b = np.array(b)
    sd = a.std()
    assert abs(a.mean() - b.mean()) < 6 * sd * math.sqrt(2 / R)
    assert b.std() == pytest.approx(sd, rel=6 * math.sqrt(1 / R))


def test_run_leaves_the_table_as_repeated_step_would():
    # Bits of representatives that occurred are D1 draws, the others D0 draws. N = m =
    # 2,000, the stream touches users 0..999 twice: 20 estimators give 20,000 bits on each
    # side (SE 0.5/sqrt(20,000) = 0.0035; tolerance 6 SE = 0.021 < eps/4 = 0.1).
    eps = 0.4
    ones_in, ones_out = [], []
    for r in range(20):
        e = ContinualDensityEstimator(2000, eps, 2000, 3000, counter=ExactCounter(), rng=r)
        e.run(np.concatenate([np.arange(1000), np.arange(1000), np.full(1000, BLANK)]))
        ones_in.append(e.b[:1000].mean())
        ones_out.append(e.b[1000:].mean())
    assert abs(np.mean(ones_in) - (0.5 + eps / 4)) < 6 * 0.5 / math.sqrt(20_000)
    assert abs(np.mean(ones_out) - 0.5) < 6 * 0.5 / math.sqrt(20_000)


def test_run_finds_representatives_alike_by_table_and_by_binary_search(monkeypatch):
    # The two lookups of `run` (a table over the universe for long batches, binary search in
    # M for short ones) must find the same representatives: same seed, identical releases
    # and table. Blanks, the ends of the universe, repeats and non-members all occur.
    N, m, T = 500, 120, 400
    stream = np.concatenate([[BLANK, 0, N - 1], np.random.default_rng(4).integers(-1, N, T - 3)])
    results = []
    for table in (True, False):
        monkeypatch.setattr("panpriv_teach.continual.use_universe_table", lambda n, size, table=table: table)
        e = ContinualDensityEstimator(N, 0.4, m, T, rng=21)
        results.append((e.run(stream), e.b.copy()))
    assert np.array_equal(results[0][0], results[1][0]) and np.array_equal(results[0][1], results[1][1])
    assert np.isin(stream, ContinualDensityEstimator(N, 0.4, m, T, rng=21).M).sum() > 50  # members occur


# ----------------------------------------------------------------------------- user-level

def test_a_user_appearing_many_times_moves_the_output_like_one_appearance():
    # Claim 7.1: repeats feed fair coins. N = m = 5 (every user is in M). Stream A: user 0
    # once, then blanks; B: user 0 at all 40 steps; C: 40 distinct... (users 0..4 only, so
    # C = users 0..4 once each then blanks: 5 first appearances). R = 40,000 runs, noiseless
    # counter: the mean of A and B agree within 6 SE of the difference; C moves it 5 times.
    N, eps, T, R = 5, 0.4, 40, 40_000
    A = np.array([0] + [BLANK] * (T - 1))
    B = np.zeros(T, dtype=np.int64)
    C = np.array([0, 1, 2, 3, 4] + [BLANK] * (T - 5))

    def finals(s, base):
        return np.array([ContinualDensityEstimator(N, eps, N, T, counter=ExactCounter(),
                                                   rng=base + r).run(s)[-1] for r in range(R)])

    a, b, c = finals(A, 0), finals(B, 10**6), finals(C, 2 * 10**6)
    se = a.std() * math.sqrt(2 / R)
    assert abs(a.mean() - b.mean()) < 6 * se
    assert b.std() == pytest.approx(a.std(), rel=6 / math.sqrt(R))
    assert a.mean() == pytest.approx(1 / N, abs=6 * a.std() / math.sqrt(R))
    assert c.mean() == pytest.approx(5 / N, abs=6 * c.std() / math.sqrt(R))


def test_cascading_buffers_counter_plugs_in():
    e = ContinualDensityEstimator(1000, 0.3, 100, 256,
                                  counter=CascadingBuffersCounter.from_T(256, 0.3, rng=1), rng=2)
    out = e.run(_stream(256))
    assert out.shape == (256,) and np.all(np.isfinite(out))
    assert set(e.state()["counter"]) == {"a", "b", "u", "ocount"}


def test_state_holds_the_table_and_counter_memory_but_no_stream_history():
    N = 10**6
    e = ContinualDensityEstimator(N, 0.3, 100, 200, rng=5)
    canary = next(v for v in range(987_654, N) if v not in set(e.M.tolist()))
    s = np.full(200, BLANK)
    s[::7] = canary
    e.run(s)
    state = e.state()
    assert set(state) == {"t", "M", "b", "counter", "epsilon", "m", "universe_size"}
    blob = pickle.dumps(e)
    assert np.int64(canary).tobytes() not in blob and str(canary).encode() not in blob
    assert set(state["counter"]) == {"t", "X", "N_I"}


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs, error, words", [
    (dict(universe_size=0, epsilon=0.3, m=1, T=5), ValueError, "universe_size must be"),
    (dict(universe_size=10, epsilon=0.3, m=11, T=5), ValueError, "m must be an integer in \\[1, 10\\]"),
    (dict(universe_size=10, epsilon=0.3, m=5, T=0), ValueError, "T must be an integer"),
    (dict(universe_size=10, epsilon=-0.1, m=5, T=5), ValueError, "epsilon must be"),
    (dict(universe_size=10, epsilon=0.3, m=5, T=5, counter="ppcum"), TypeError,
     "counter must be None or a ContinualCounter"),
    (dict(universe_size=10, epsilon=0.3, m=5, T=5, counter=PanPrivateTreeCounter(4, 1.0)),
     ValueError, "counter serves T = 4 steps, fewer than T = 5"),
])
def test_bad_parameters_are_rejected(kwargs, error, words):
    with pytest.raises(error, match=words):
        ContinualDensityEstimator(**kwargs)


def test_bad_elements_are_rejected():
    e = ContinualDensityEstimator(10, 0.3, 5, 3, rng=0)
    with pytest.raises(ValueError, match="x must be an integer in \\[-1, 9\\]"):
        e.step(10)
    with pytest.raises(TypeError, match="x must be an integer element"):
        e.step(1.5)
    with pytest.raises(ValueError, match="each element of stream must be in \\[0, 9\\] or BLANK"):
        e.run([1, -2])
    e.run([1, BLANK, 2])
    with pytest.raises(ValueError, match="T = 3 is the number of steps"):
        e.step(1)
    used = PanPrivateTreeCounter(8, 1.0, rng=0)
    used.step(1)
    with pytest.raises(ValueError, match="counter must be fresh"):
        ContinualDensityEstimator(10, 0.3, 5, 5, counter=used)


# ------------------------------------------------------------------ in floating point

@pytest.mark.parametrize("eps", [1e-300, 2.0**-52, 1e-9, 0.01, 0.1, 0.25, 0.4,
                                 math.nextafter(MAX_EPSILON, 0), MAX_EPSILON])
def test_claim_7_1_holds_for_the_floating_point_coins_up_to_2_to_the_minus_52(eps):
    c = claim_7_1(eps, implemented=True)
    assert c["blank or not in M"] == Fraction(1, 2)
    assert abs(c["repeat appearance"] - Fraction(1, 2)) <= Fraction(1, 2**52)
    e = Fraction(eps)
    assert abs(c["first appearance"] - (Fraction(1, 2) + e * e / 2)) <= Fraction(1, 2**52)
    # so a repeat's y_t leaks at most 2^-49 against any neighbour's repeat or fair coin
    q = c["repeat appearance"]
    assert max(math.log(q / (1 - q)), math.log((1 - q) / q)) <= 2.0**-49
    p = counter_input_probabilities(eps)
    assert all(0 <= v <= 1 for v in p.values())                 # D+ capped at 1
    for name in ("D0", "D+", "D1"):                              # on the 2^-53 grid
        assert implemented_probability(p[name]) == Fraction(p[name])


def test_claim_7_1_exact_and_implemented_are_different_laws():
    with pytest.raises(ValueError, match="at most one"):
        claim_7_1(Fraction(1, 4), exact=True, implemented=True)
    assert claim_7_1(0.1, implemented=True)["repeat appearance"] != Fraction(1, 2)


def test_the_estimator_draws_its_coins_as_rng_random_below_the_float_probabilities():
    # a blank step draws one uniform: y = u < 1/2 (the law claim_7_1(implemented=True) uses)
    est = ContinualDensityEstimator(20, 0.3, m=5, T=8, rng=3,
                                    counter=CascadingBuffersCounter.from_T(8, 0.3, rng=4))
    probe = np.random.default_rng(3)
    probe.choice(20, 5, replace=False)
    probe.random(5)
    u = probe.random(8)
    fed = []
    est.counter.step = lambda y, _step=est.counter.step: fed.append(y) or _step(y)
    for _ in range(8):
        est.step(BLANK)
    assert fed == [int(v < 0.5) for v in u]
