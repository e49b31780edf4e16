"""The intrusion decoding attack (Mir et al. 2011, §4, Thm 12 and Cor 1): it recovers the stream from
the state of an accurate algorithm and fails against the pan-private estimators of modules
03 (DensityEstimator) and 06 (CroppedSum). Seeded; measured rates in the docstrings."""
import copy
import math

import numpy as np
import pytest

from panpriv_teach.cropped import CroppedSum
from panpriv_teach.density import DensityEstimator, claim_4_1_epsilon
from panpriv_teach.cropped import heavy_hitters
from panpriv_teach.intrusion import (AccurateDistinctCount, UnreliableCount, attack_model, clone_with_fresh_coins,
                                     cropped_sum_statistic, distinct_statistic,
                                     intrusion_decoding_attack, intrusion_measurements)
from panpriv_teach.reconstruction import (fraction_correct, guessing_ceiling, query_budget,
                                          random_queries, reconstruct_lp)

M = 128


def intruded(kind, a, seed):
    """The algorithm `kind` after the stream S of the users with a_i = 1 (one intrusion now)."""
    users = np.flatnonzero(a)
    if kind == "accurate":
        algorithm = AccurateDistinctCount(M, 1.0, rng=seed)
        algorithm.process(users)
    elif kind == "density":                     # module 03, every user a representative
        algorithm = DensityEstimator(M, 0.5, m=M, rng=seed)
        algorithm.process(users)
    else:                                       # module 06, τ = 1: T_1(1) is the distinct count
        algorithm = CroppedSum(M, 1.0, 0.5, rng=seed)
        algorithm.process(np.column_stack([users, np.ones_like(users)]))
    return algorithm


# ------------------------------------------------------------------ the strawman
def test_accurate_distinct_count_is_exact_up_to_laplace_output_noise():
    rng = np.random.default_rng(1)
    stream = rng.integers(0, 50, 400)
    slow, fast = AccurateDistinctCount(50, 2.0, rng=2), AccurateDistinctCount(50, 2.0, rng=2)
    for x in stream:
        slow.update(int(x))
    fast.process(stream)
    assert np.array_equal(slow.state()["seen"], fast.state()["seen"])
    distinct = len(np.unique(stream))
    outputs = np.array([fast.output() for _ in range(20_000)])
    # E|Lap(1/ε)| = 0.5 with s.e. 0.5/√20000 = 0.0035: 6 s.e. = 0.021 (false failure < 1e-8)
    assert abs(np.abs(outputs - distinct).mean() - 0.5) < 0.021


def test_accurate_distinct_count_state_is_the_set_of_users():
    algorithm = AccurateDistinctCount(10, 1.0, rng=3)
    algorithm.process([7, 2, 7])
    assert list(np.flatnonzero(algorithm.state()["seen"])) == [2, 7]   # not pan-private


# ------------------------------------------------------------------ simulation from the state
def test_clones_copy_the_memory_but_not_the_coins_and_leave_the_original_alone():
    a = np.random.default_rng(4).integers(0, 2, M)
    algorithm = intruded("density", a, seed=5)
    before = algorithm.state()
    twin = copy.deepcopy(algorithm)               # the same memory AND the same coins
    clone = clone_with_fresh_coins(algorithm, rng=6)
    assert all(np.array_equal(clone.state()[k], before[k]) for k in ("M", "b"))
    clone.process(np.arange(M))
    assert np.array_equal(algorithm.state()["b"], before["b"])
    assert algorithm.output() == twin.output()    # the original's coins were not used
    other = clone_with_fresh_coins(algorithm, rng=7)
    other.process(np.arange(M))
    assert not np.array_equal(clone.state()["b"], other.state()["b"])   # fresh D1 draws


def test_clones_of_the_cropped_sum_share_only_the_immutable_noise_tables():
    """The samplers of panpriv_teach.noise hold no generator (they take one per call): a clone
    shares their tables instead of copying them, and still draws its own output noise."""
    a = np.random.default_rng(8).integers(0, 2, M)
    algorithm = intruded("cropped", a, seed=9)
    clone = clone_with_fresh_coins(algorithm, rng=10)
    assert clone._release.integer is algorithm._release.integer          # the shared discrete Laplace plan
    assert clone._rng is not algorithm._rng and clone.counters is not algorithm.counters
    assert np.array_equal(clone.counters, algorithm.counters)
    twin = copy.deepcopy(algorithm)
    outputs = {clone_with_fresh_coins(algorithm, rng=seed).output() for seed in range(5)}
    assert len(outputs) == 5 and algorithm.output() == twin.output()


def test_attack_leaves_the_intruded_algorithm_unchanged():
    a = np.random.default_rng(8).integers(0, 2, M)
    algorithm = intruded("cropped", a, seed=9)
    before = algorithm.state()
    twin = copy.deepcopy(algorithm)
    intrusion_decoding_attack(algorithm, 200, rng=10)
    assert np.array_equal(algorithm.state()["c"], before["c"])
    assert algorithm.output() == twin.output()


def test_distinct_count_answers_become_complement_subset_sums():
    """D(S ∪ q) − |q| = a·(1 − q): rows are exactly 1 − q, and for the strawman the values
    differ from a·(1 − q) by its Lap(1/ε) output noise only (mean |noise| = 1/ε = 1, s.e.
    1/√4000 = 0.016, tolerance 6 s.e.)."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 2, M)
    q = random_queries(M, 4000, rng)
    rows, values = intrusion_measurements(intruded("accurate", a, 12), q, rng=rng)
    assert np.array_equal(rows, 1 - q)
    assert abs(np.abs(values - rows @ a).mean() - 1.0) < 6 / math.sqrt(4000)


def test_cropped_sum_statistic_is_the_mean_of_alg_2_and_deletions_make_it_decodable():
    """Σ_i φ_i(a_i + r_i) equals CroppedSum.expected_output(a + r). With insertions
    (r = q) users with w_i > 3/2 carry no dot product (the rows have rank 72 < 128 here);
    with deletions (r = −q, the attack model) the noise-free measurements decode a exactly:
    the reduction is right, and only the noise of a pan-private algorithm stops the attack."""
    rng = np.random.default_rng(13)
    a = rng.integers(0, 2, M)
    algorithm = intruded("cropped", a, 14)
    phi = cropped_sum_statistic(algorithm)
    q = random_queries(M, 600, rng)
    for row in q[:20]:
        for r in (row, -row):
            assert phi(a + r).sum() == pytest.approx(algorithm.expected_output(a + r))
    inserting = phi(q + 1) - phi(q)
    assert np.linalg.matrix_rank(inserting) == 1 + np.sum(algorithm.w <= 1.5)
    rows = phi(1 - q) - phi(-q)
    assert np.allclose(np.abs(rows), phi(np.ones(M)))               # ±g(w_i)
    assert np.array_equal(reconstruct_lp(rows, rows @ a, method="l1"), a)


def test_attack_models_of_the_targets():
    assert attack_model(AccurateDistinctCount(5))["statistic"] is distinct_statistic
    density = attack_model(DensityEstimator(40, 0.5, m=40, rng=1))
    assert density["output_scale"] == 40 and density["updates"] is False
    cropped = attack_model(CroppedSum(5, 1.0, 0.5, rng=1))
    assert cropped["updates"] is True and cropped["amount"] == -1


# ------------------------------------------------------------------ success and failure
def test_intrusion_attack_recovers_the_stream_from_an_accurate_algorithm():
    """m = 128 users, 6272 simulated query streams: every user recovered in 3 of 3 trials
    (answer error sd 1.41 = √2/ε, against √m = 11.3)."""
    rng = np.random.default_rng(15)
    for trial in range(3):
        a = rng.integers(0, 2, M)
        guess = intrusion_decoding_attack(intruded("accurate", a, 100 + trial), rng=rng)
        assert fraction_correct(guess, a) >= 0.95


@pytest.mark.parametrize("kind, state_epsilon", [
    ("density", claim_4_1_epsilon(0.5)),   # the state of Fig 1 is −ln(1 − ε/2) = 0.288-DP
    ("cropped", 0.5),                      # Alg 2's counters: ε-DP (Dwork et al.'s neighbours)
])
def test_intrusion_attack_fails_against_pan_private_estimators(kind, state_epsilon):
    """Each ε'-pan-private state caps the attack at e^ε'/(1 + e^ε') per user on a random a
    (0.571 for the density estimator, 0.622 for the cropped sum). Measured over 4 streams of
    128 users (512 guesses): density 0.520, cropped sum 0.539; answer error sd 3.9√m and
    2.6√m. With 512 guesses the s.e. is <= 0.022, so the bounds below are the ceiling plus
    6 s.e. (false failure < 1e-8), far below the accurate algorithm's 1.0."""
    rng = np.random.default_rng(16)
    scores, error_sd = [], []
    for trial in range(4):
        a = rng.integers(0, 2, M)
        algorithm = intruded(kind, a, 200 + trial)
        q = random_queries(M, query_budget(M), rng)
        rows, values = intrusion_measurements(algorithm, q, rng=rng)
        error_sd.append(np.std(values - rows @ a))
        scores.append(fraction_correct(reconstruct_lp(rows, values, method="l1"), a))
    assert np.mean(scores) < guessing_ceiling(state_epsilon) + 6 * 0.5 / math.sqrt(4 * M)
    assert min(error_sd) > math.sqrt(M)            # the Ω(√m) error of Cor 1


# ------------------------------------------------------------------ Thm 13, Cors 3-4: constant failure probability
RHO_STAR = 0.239                   # Mir et al. 2011, Thm 10 (Dwork, McSherry, Talwar 2007)


def test_unreliable_count_is_exact_plus_laplace_or_wild_with_probability_beta():
    rng = np.random.default_rng(21)
    updates = np.column_stack([rng.integers(0, 40, 300), rng.integers(-1, 3, 300)])
    slow, fast = UnreliableCount(40, 0.25, rng=1), UnreliableCount(40, 0.25, rng=1)
    for i, d in updates:
        slow.update(i, d)
    fast.process(updates)
    assert np.array_equal(slow.state()["counts"], fast.state()["counts"])
    assert fast.exact() == np.count_nonzero(fast.counts)
    # 4,000 outputs, β = 0.25, ε = 100 (Laplace scale 0.01): a release more than 0.1 from the exact
    # count is wild (an accurate one is that far with probability e^-10), and a wild one lands
    # within 0.1 with probability 0.2/40. Expected 1000·0.995 = 995 far ones, binomial sd 27;
    # ±5 sd fails with probability < 1e-6.
    sharp = UnreliableCount(40, 0.25, epsilon=100.0, rng=3)
    sharp.process(updates)
    outputs = np.array([sharp.output() for _ in range(4_000)])
    wild = np.abs(outputs - sharp.exact()) > 0.1
    assert abs(wild.sum() - 995) < 5 * math.sqrt(4_000 * 0.25 * 0.75)
    assert outputs[wild].min() >= 0 and outputs[wild].max() <= 40
    never = UnreliableCount(40, 0.0, epsilon=100.0, rng=4)
    never.process(updates)
    assert np.all(np.abs([never.output() - never.exact() for _ in range(500)]) < 0.2)


def test_heavy_hitters_at_k_2m_is_the_distinct_count_of_every_attack_stream():
    """Mir et al. 2011, Cor 2's reduction with weight 1: counts 0/1, then each query user once."""
    rng = np.random.default_rng(22)
    a = rng.integers(0, 2, 32)
    for q in random_queries(32, 200, rng):
        assert heavy_hitters(a + q, 64) == np.count_nonzero(a + q)
    with pytest.raises(ValueError, match="k >= 2·universe_size = 64"):
        attack_model(UnreliableCount(32, 0.1, "heavy_hitters", k=32))


@pytest.mark.parametrize("statistic", ["distinct", "heavy_hitters"])
def test_intrusion_attack_decodes_a_counter_failing_below_rho_star_over_six(statistic):
    """Thm 13 / Cors 3-4 in action: β = ρ*/6 (η = 0), m = 64, m log₂² m = 2304 queries, L1 decoding.
    Measured: every user right at seeds 23 (also at β = 0.4, with these uniform wild answers)."""
    rng = np.random.default_rng(23)
    m, beta = 64, RHO_STAR / 6
    a = rng.integers(0, 2, m)
    users = np.flatnonzero(a)
    algorithm = UnreliableCount(m, beta, statistic, k=2 * m, rng=rng)
    algorithm.process(np.column_stack([users, np.ones_like(users)]))
    rows, values = intrusion_measurements(algorithm, random_queries(m, query_budget(m), rng), rng=rng)
    assert np.mean(np.abs(values - rows @ a) > 10) > beta / 2        # failures did happen
    assert fraction_correct(reconstruct_lp(rows, values, method="l1"), a) >= 0.95


# ------------------------------------------------------------------ bad input
def test_bad_input_is_rejected_with_the_parameter_named():
    with pytest.raises(ValueError, match="failure must be a real number"):
        UnreliableCount(5, 1.5)
    with pytest.raises(ValueError, match="statistic must be one of"):
        UnreliableCount(5, 0.1, "median")
    with pytest.raises(TypeError, match="k must be a real number"):
        UnreliableCount(5, 0.1, "heavy_hitters")
    with pytest.raises(ValueError, match=r"i must be an integer in \[0, 4\]"):
        UnreliableCount(5, 0.1).update(7, 1)
    with pytest.raises(TypeError, match="algorithm must be a StreamAlgorithm"):
        intrusion_decoding_attack({"seen": [0, 1]})
    with pytest.raises(TypeError, match="algorithm must be a StreamAlgorithm"):
        clone_with_fresh_coins([1, 2, 3])
    with pytest.raises(ValueError, match="queries must have one column per user of the universe"):
        intrusion_measurements(AccurateDistinctCount(5), np.ones((3, 4), dtype=int))
    with pytest.raises(ValueError, match="each entry of queries must be one of"):
        intrusion_measurements(AccurateDistinctCount(3), [[0, 2, 1]])
    with pytest.raises(ValueError, match="n_queries must be an integer"):
        intrusion_decoding_attack(AccurateDistinctCount(5), 0)
    with pytest.raises(TypeError, match="no attack model for SkipBlanks"):
        from panpriv_teach.density import SkipBlanks
        attack_model(SkipBlanks(AccurateDistinctCount(5)))
    with pytest.raises(TypeError, match="statistic must be a function"):
        intrusion_measurements(AccurateDistinctCount(3), [[0, 1, 1]], statistic=3,
                               updates=False, output_scale=1.0)
    with pytest.raises(ValueError, match=r"x must be an integer in \[0, 4\]"):
        AccurateDistinctCount(5).update(5)
    with pytest.raises(ValueError, match="each element of stream must be"):
        AccurateDistinctCount(5).process([1, 9])
    with pytest.raises(ValueError, match="epsilon must be a real number"):
        AccurateDistinctCount(5, epsilon=-1)
