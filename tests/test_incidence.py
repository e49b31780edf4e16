"""ModularIncidenceEstimator: the exact answer, exact privacy of the implemented state law, an
audit that flags a broken variant, accuracy against its bound, process = update, the state."""
import math
from fractions import Fraction

import numpy as np
import pytest

from panpriv_teach.audit import estimate_epsilon
from panpriv_teach.incidence import ModularIncidenceEstimator, modular_incidence
from panpriv_teach.noise import ArcNoise, exp_lower_bound


def test_modular_incidence_counts_by_hand():
    stream = [0, 0, 0, 1, 2, 2]                    # n = (3, 1, 2, 0) over X = {0, 1, 2, 3}
    assert modular_incidence(stream, 4, 2).tolist() == [0.5, 0.5]           # n mod 2 = 1, 1, 0, 0
    assert modular_incidence(stream, 4, 3).tolist() == [0.5, 0.25, 0.25]    # 0, 1, 2, 0
    assert modular_incidence(stream, 4, 5).tolist() == [0.25] * 4 + [0.0]   # k > every count: exact


@pytest.mark.parametrize("k, epsilon", [(2, 0.1), (3, 0.5), (5, 1.0), (17, 2.0), (1000, 0.05)])
def test_the_implemented_state_law_is_epsilon_dp_exactly(k, epsilon):
    """c_x = (N_x + n_x) mod k: any two n turn the same law, so the largest ratio over values and
    neighbours is max/min of the implemented law of N_x, computed here in exact arithmetic."""
    estimator = ModularIncidenceEstimator(10, k, epsilon, m=5, rng=0)
    law = estimator.start_law()
    assert sum(law) == 1 and len(law) == k
    worst = max(law) / min(law)
    if k <= 17:                                   # every value, every pair of turns
        assert worst == max(law[(j - n) % k] / law[(j - n2) % k]
                            for j in range(k) for n in range(k) for n2 in range(k))
    assert worst <= exp_lower_bound(epsilon)                 # e^ε, exactly (a rational lower bound of it)
    assert math.log(worst) == pytest.approx(epsilon, abs=1e-12)    # and no more private than claimed
    assert estimator.state_epsilon == pytest.approx(math.log(worst), abs=1e-15)


def test_the_whole_state_of_a_tiny_universe_by_enumeration():
    """X = M = {0, 1}, k = 3: the exact law of (c_0, c_1) for every pair of counts; neighbours
    (user 0's count changed, user 1's kept) stay within e^ε at every state."""
    epsilon, k = 0.7, 3
    law = ModularIncidenceEstimator(2, k, epsilon, m=2, rng=0).start_law()

    def state_law(n0, n1):
        return {(a, b): law[(a - n0) % k] * law[(b - n1) % k] for a in range(k) for b in range(k)}

    worst = Fraction(1)
    for n0, n0_other, n1 in [(a, b, c) for a in range(4) for b in range(4) for c in range(4)]:
        p, q = state_law(n0, n1), state_law(n0_other, n1)
        worst = max(worst, max(p[s] / q[s] for s in p))
    assert worst <= exp_lower_bound(epsilon)                 # e^ε, exactly (a rational lower bound of it)


def _start_samples(estimator, n, size):
    return (estimator._start(size) + n) % estimator.k


class _NoNoise(ModularIncidenceEstimator):
    """Broken: counters start at 0, so c_x = n_x mod k."""
    def _start(self, size):
        return np.zeros(size, dtype=np.int64)


class _DoubledBump(ModularIncidenceEstimator):
    """Broken: the heavy value has weight e^(2ε), so the state is only 2ε-DP."""
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.noise = ArcNoise(self.k, 1, 2 * self.epsilon)


def test_an_audit_of_the_state_stays_under_epsilon_and_flags_broken_variants():
    """estimate_epsilon's bound is a 95 % lower confidence bound: each assertion below fails by
    chance with probability at most 5 % (for the correct estimator) under the stated seed; the
    seeds are fixed, so the test is deterministic. 40,000 states of one user, n = 0 against 1."""
    epsilon, k, size = 1.0, 3, 40_000

    def audit(cls, seed):
        estimator = cls(1, k, epsilon, m=1, rng=seed)
        return estimate_epsilon(_start_samples(estimator, 0, size), _start_samples(estimator, 1, size),
                                rng=seed).epsilon_lower

    correct = audit(ModularIncidenceEstimator, 11)
    assert 0.85 <= correct <= epsilon
    assert audit(_DoubledBump, 12) > 1.5 * epsilon
    assert audit(_NoNoise, 13) > 5 * epsilon


def test_accuracy_unbiased_with_the_stated_spread_and_within_the_bound():
    """200 seeded runs on one stream, m = N (so M's fractions are X's). Per residue: the mean
    error within 4 standard errors of 0 (false failure 6e-5 each), the empirical sd within 25 %
    of `error_sd` (4.9 of its own standard deviations, about 1/sqrt(398) = 5 %: 1e-6 each), and
    the bound at β = 0.05 exceeded in at most 10 % of runs (Binomial(200, <= 0.05) above 20:
    < 1e-3). A biased variant (dividing by e^ε instead of K) fails the mean test."""
    N, k, epsilon, runs = 3_000, 3, 1.0, 200
    stream = np.random.default_rng(5).integers(0, N // 2, 4_000)
    truth = modular_incidence(stream, N, k)
    estimates, states = [], []
    for seed in range(runs):
        estimator = ModularIncidenceEstimator(N, k, epsilon, m=N, rng=seed)
        estimator.process(stream)
        states.append(estimator.c)
        estimates.append(estimator.output())
    errors = np.array(estimates) - truth
    sds = np.array([estimator.error_sd(f) for f in truth])
    assert np.all(np.abs(errors.mean(axis=0)) <= 4 * sds / math.sqrt(runs))
    assert np.all(np.abs(errors.std(axis=0) / sds - 1) <= 0.25)
    assert np.mean(np.abs(errors) > estimator.error_bound(0.05)) <= 0.10

    wrong_K = math.exp(epsilon)                   # the broken variant (e^ε for K), from the same states
    biased = np.array([(wrong_K * np.bincount(c, minlength=k) / N - 1) / math.expm1(epsilon) for c in states])
    assert np.any(np.abs((biased - truth).mean(axis=0)) > 4 * sds / math.sqrt(runs))


def test_process_equals_repeated_update():
    stream = np.random.default_rng(2).integers(0, 50, 300)
    batch, single = (ModularIncidenceEstimator(50, 4, 0.5, m=20, rng=9) for _ in range(2))
    batch.process(stream[:100])
    batch.process(stream[100:])
    for x in stream:
        single.update(int(x))
    assert np.array_equal(batch.c, single.c)
    assert np.array_equal(batch.output(), single.output())


def test_the_state_holds_the_sample_and_the_counters_only():
    stream = np.random.default_rng(3).integers(0, 1_000, 5_000)
    quiet, busy = (ModularIncidenceEstimator(1_000, 3, 1.0, m=100, rng=4) for _ in range(2))
    busy.process(stream)
    state = busy.state()
    assert set(state) == {"M", "c", "k"}
    assert np.array_equal(state["M"], quiet.state()["M"])       # M does not depend on the data
    assert state["c"].shape == (100,) and set(np.unique(state["c"])) <= {0, 1, 2}
    state["c"][:] = 0
    assert not np.all(busy.c == 0)                              # a copy


@pytest.mark.parametrize("kwargs, words", [
    ({"k": 1}, "k must be"), ({"epsilon": 0.0}, "epsilon"), ({"m": 11}, "m must be"),
    ({"k": 2.5}, "k must be"), ({"epsilon": 800.0}, "epsilon"),
])
def test_bad_parameters_are_named(kwargs, words):
    arguments = {"universe_size": 10, "k": 3, "epsilon": 1.0, "m": 5} | kwargs
    with pytest.raises((ValueError, TypeError), match=words):
        ModularIncidenceEstimator(**arguments)


def test_bad_streams_and_fractions_are_named():
    estimator = ModularIncidenceEstimator(10, 3, 1.0, m=5, rng=0)
    with pytest.raises(ValueError, match="x must be"):
        estimator.update(10)
    with pytest.raises((ValueError, IndexError)):
        estimator.process([1, 2, 10])
    with pytest.raises(ValueError, match="stream elements must lie in 0..9"):
        modular_incidence([1, 10], 10, 3)
    with pytest.raises(ValueError, match="fraction"):
        estimator.error_sd(1.5)
