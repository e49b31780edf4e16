"""Reconstruction attacks (Dwork 2011, Thm 1 and the n log² n statement; Mir et al. 2011, Thm 9).

Everything is seeded, so each outcome below is deterministic; the rates quoted in comments
are the measured ones (they go into the module's closing note).
"""
import math
import time

import numpy as np
import pytest

from panpriv_teach.reconstruction import (
    MAX_EXHAUSTIVE_N, all_subsets, bounded_noise, fraction_correct, guessing_ceiling,
    hamming_distance, laplace_answers, query_budget, random_queries, reconstruct_exhaustive,
    reconstruct_lp, reconstruct_union, sparse_subsets, subset_sums, union_answers,
    union_decoding_bound, union_sizes, union_survivors, union_worst_case_answers, worst_case_answers)

N_LP = 128
SQRT_N = math.sqrt(N_LP)


def oracle(database, noise):
    """A curator answering subset q with q·d + noise(q) and counting the questions."""
    def answer(q):
        answer.calls += 1
        return float(q @ database + noise(q))
    answer.calls = 0
    return answer


# ------------------------------------------------------------------ Thm 1 (exhaustive)
def test_exhaustive_attack_recovers_the_database_from_exact_answers():
    rng = np.random.default_rng(1)
    d = rng.integers(0, 2, 10)
    answer = oracle(d, lambda q: 0.0)
    assert np.array_equal(reconstruct_exhaustive(answer, 10), d)
    assert answer.calls == 2 ** 10               # step 1: all subsets are asked


@pytest.mark.parametrize("E", [0.5, 1.0, 1.5, 2.0, 2.5])
def test_exhaustive_reconstruction_is_within_4E_for_noise_bounded_by_E(E):
    rng = np.random.default_rng(int(10 * E))
    for trial in range(5):
        d = rng.integers(0, 2, 10)
        signs = lambda q: E * rng.choice([-1.0, 1.0])            # every answer off by E
        uniform = lambda q: rng.uniform(-E, E)
        for noise in (signs, uniform):
            guess = reconstruct_exhaustive(oracle(d, noise), 10)
            assert hamming_distance(guess, d) <= 4 * E
            literal = reconstruct_exhaustive(oracle(d, noise), 10, bound=E)   # the proof's version
            assert hamming_distance(literal, d) <= 4 * E


@pytest.mark.parametrize("E", [0.5, 1.0, 1.5, 2.0])
def test_4E_is_attained_by_answers_halfway_between_two_databases(E):
    rng = np.random.default_rng(7)
    d = np.array([0, 1] * 6)
    answers, w = worst_case_answers(d, E, rng=rng)
    subsets = all_subsets(12)
    assert hamming_distance(w, d) == 4 * E                     # 2E of each value changed
    for candidate in (d, w):                                    # neither is ruled out at E
        assert np.abs(subsets @ candidate - answers).max() <= E + 1e-12
    table = dict(zip(map(bytes, subsets.astype(np.uint8)), answers))
    guess = reconstruct_exhaustive(lambda q: table[bytes(q.astype(np.uint8))], 12)
    assert hamming_distance(guess, d) <= 4 * E


def test_exhaustive_with_too_small_a_bound_rules_out_everything():
    d = np.array([1, 0, 1, 1, 0, 0])
    with pytest.raises(ValueError, match="ruled out"):
        reconstruct_exhaustive(oracle(d, lambda q: 0.7), 6, bound=0.5)


# ------------------------------------------------------------------ LP decoding
def test_query_budget_is_n_log2_squared_n():
    assert query_budget(N_LP) == 6272                           # 128 · 7², base-2 logarithm
    assert query_budget(1024) == 102400


def test_random_queries_are_fair_coin_subsets_and_reproducible():
    q = random_queries(64, 4000, rng=3)
    assert q.shape == (4000, 64) and set(np.unique(q)) == {0, 1}
    # mean of 256,000 fair bits: s.e. 0.001, so 0.006 is 6 s.e. (false failure < 1e-8)
    assert abs(q.mean() - 0.5) < 0.006
    assert np.array_equal(q, random_queries(64, 4000, rng=3))


@pytest.mark.parametrize("kind", ["uniform", "signs", "toward"])
def test_bounded_noise_never_exceeds_E(kind):
    rng = np.random.default_rng(4)
    d = rng.integers(0, 2, 50)
    q = random_queries(50, 2000, rng)
    noise = bounded_noise(q, d, 1.3, kind, rng)
    assert noise.shape == (2000,) and np.abs(noise).max() <= 1.3 + 1e-12
    if kind == "signs":
        assert np.allclose(np.abs(noise), 1.3)


def test_toward_noise_gives_the_other_databases_answer_where_it_may():
    rng = np.random.default_rng(5)
    d = rng.integers(0, 2, 40)
    w = d.copy()
    w[:3] = 1 - w[:3]
    q = random_queries(40, 500, rng)
    answers = subset_sums(d, q) + bounded_noise(q, d, 1.5, "toward", rng, toward=w)
    close = np.abs(q @ (w - d)) <= 1.5
    assert np.array_equal(answers[close], subset_sums(w, q)[close])


def _solve_timed(q, answers, method):
    start = time.perf_counter()
    guess = reconstruct_lp(q, answers, method=method)
    return guess, time.perf_counter() - start


def _near(d, k, rng, balanced=True):
    """d with k rows flipped: half of them zeros and half ones if balanced, else zeros only."""
    w = d.copy()
    zeros, ones = np.flatnonzero(d == 0), np.flatnonzero(d == 1)
    rows = (np.concatenate([rng.choice(zeros, k // 2, replace=False),
                            rng.choice(ones, k - k // 2, replace=False)])
            if balanced else rng.choice(zeros, k, replace=False))
    w[rows] = 1 - w[rows]
    return w


def test_linf_decoding_recovers_95_percent_at_n128_from_n_log2_n_queries_with_any_bounded_noise():
    """n = 128, t = 6272 random queries, noise bounded by E = √n/10 ≈ 1.13.

    Adversaries: i.i.d. uniform on [−E, E]; ±E with random signs; each answer pushed toward
    another database w as far as E allows, for w random (≈ 64 rows away) and for w at
    k = 4, 6, 8, 12 rows (balanced) and 16 rows (one-sided). Measured fraction of rows
    recovered (seed 2024): 1.0 everywhere except k = 4 (0.969) and k = 6 (0.953): w is
    then so close that the answers leave it (or a point past the middle) optimal. L1
    decoding on the same answers: 0.938 at k = 8, 0.906 at k = 12 (next test). Each LP
    took 0.5-1.4 s (L∞) and 0.3-0.6 s (L1) on 2 cores.
    In the same sweep with other seeds (k = 1..48) the worst was also 0.953, at k = 6.
    """
    rng = np.random.default_rng(2024)
    d = rng.integers(0, 2, N_LP)
    q = random_queries(N_LP, query_budget(N_LP), rng)
    exact = subset_sums(d, q)
    E = SQRT_N / 10
    cases = {"uniform": bounded_noise(q, d, E, "uniform", rng),
             "signs": bounded_noise(q, d, E, "signs", rng),
             "toward random": bounded_noise(q, d, E, "toward", rng)}
    for k in (4, 6, 8, 12):
        cases[f"toward {k} rows"] = bounded_noise(q, d, E, "toward", rng, toward=_near(d, k, rng))
    cases["toward 16 rows, one-sided"] = bounded_noise(q, d, E, "toward", rng,
                                                       toward=_near(d, 16, rng, balanced=False))
    rates, seconds = {}, []
    for name, noise in cases.items():
        assert np.abs(noise).max() <= E + 1e-12
        guess, elapsed = _solve_timed(q, exact + noise, "linf")
        rates[name] = fraction_correct(guess, d)
        seconds.append(elapsed)
    assert min(rates.values()) >= 0.95, rates
    assert max(seconds) < 15, seconds          # about 1 s each on 2 cores


def test_l1_decoding_is_pulled_further_by_a_bounded_adversary_than_linf():
    """LP decoding by L1 (Dwork–McSherry–Talwar) averages errors, so an adversary who moves
    every answer by up to E toward a database 12 rows away wins: L1 returns that database
    (measured 0.906 = 116/128), while L∞ (Dinur–Nissim) does not (measured 1.0)."""
    rng = np.random.default_rng(31)
    d = rng.integers(0, 2, N_LP)
    q = random_queries(N_LP, query_budget(N_LP), rng)
    w = _near(d, 12, rng)
    answers = subset_sums(d, q) + bounded_noise(q, d, SQRT_N / 10, "toward", rng, toward=w)
    assert fraction_correct(reconstruct_lp(q, answers, method="l1"), d) < 0.95
    assert fraction_correct(reconstruct_lp(q, answers, method="linf"), d) >= 0.95


def test_iid_noise_averages_out_over_more_queries_under_l1_decoding():
    """i.i.d. Gaussian noise of sd 0.75√n at n = 64: L1 decoding from 2n queries is near
    chance, from n log² n = 2304 queries it recovers most rows (measured over 3 databases:
    0.630 and 0.948). Bounded noise does not average out (previous tests); this is why DP
    noise must grow with the number of queries."""
    rng = np.random.default_rng(8)
    n, sd = 64, 0.75 * 8
    rates = {}
    for t in (2 * n, query_budget(n)):
        scores = []
        for _ in range(3):
            d = rng.integers(0, 2, n)
            q = random_queries(n, t, rng)
            scores.append(fraction_correct(reconstruct_lp(q, subset_sums(d, q) + rng.normal(0, sd, t),
                                                          method="l1"), d))
        rates[t] = np.mean(scores)
    assert rates[2 * n] < 0.75 and rates[query_budget(n)] > 0.85, rates


def test_laplace_answers_have_scale_t_over_epsilon():
    rng = np.random.default_rng(9)
    d = rng.integers(0, 2, 30)
    q = random_queries(30, 20_000, rng)
    noise = laplace_answers(d, q, 2.0, rng) - subset_sums(d, q)
    # E|Lap(b)| = b = t/ε = 10,000, s.e. b/√t = 71: 6 s.e. = 426 (false failure < 1e-8)
    assert abs(np.abs(noise).mean() - 10_000) < 426


def test_decoding_stays_near_chance_against_laplace_answers_calibrated_by_composition():
    """n = 128, t = 6272 queries, answers ε = 1 for the whole set (Lap(t/ε) each).

    ε-DP caps any attack at e/(1 + e) = 0.731 per row on a random database; measured over
    4 databases (512 rows): L∞ 0.518, L1 0.496. Under chance the mean of 512 fair guesses
    has s.e. 0.022, so < 0.64 is 6 s.e. above 1/2 (false failure < 1e-8)."""
    rng = np.random.default_rng(10)
    rates = {"linf": [], "l1": []}
    for _ in range(4):
        d = rng.integers(0, 2, N_LP)
        q = random_queries(N_LP, query_budget(N_LP), rng)
        answers = laplace_answers(d, q, 1.0, rng)
        for method in rates:
            rates[method].append(fraction_correct(reconstruct_lp(q, answers, method=method), d))
    assert guessing_ceiling(1.0) == pytest.approx(math.e / (1 + math.e))
    for method, values in rates.items():
        assert np.mean(values) < 0.64, (method, values)


def test_fractional_solution_lies_in_the_unit_cube_and_rounds_to_the_guess():
    rng = np.random.default_rng(11)
    d = rng.integers(0, 2, 20)
    q = random_queries(20, 300, rng)
    answers = subset_sums(d, q) + rng.normal(0, 3, 300)
    for method in ("linf", "l1"):
        x = reconstruct_lp(q, answers, method=method, fractional=True)
        assert x.min() >= 0 and x.max() <= 1
        assert np.array_equal((x > 0.5).astype(int), reconstruct_lp(q, answers, method=method))


def test_exact_answers_decode_exactly_with_both_methods():
    rng = np.random.default_rng(12)
    d = rng.integers(0, 2, 40)
    q = random_queries(40, 400, rng)
    for method in ("linf", "l1"):
        assert np.array_equal(reconstruct_lp(q, subset_sums(d, q), method=method), d)


# ------------------------------------------------------------------ the ceiling of ε-DP
def test_guessing_ceiling_is_attained_exactly_by_randomized_response():
    """Randomized response keeps a bit with probability e^ε/(1 + e^ε): it is ε-DP, and
    guessing "the report" is right exactly that often; no ε-DP release does better."""
    for epsilon in (0.1, 0.5, 1.0, math.log(3)):
        keep = math.exp(epsilon) / (1 + math.exp(epsilon))
        assert math.log(keep / (1 - keep)) == pytest.approx(epsilon)
        assert guessing_ceiling(epsilon) == pytest.approx(keep)
    assert guessing_ceiling(0.0) == 0.5 and guessing_ceiling(math.inf) == 1.0


# ------------------------------------------------------------------ bad input
def test_bad_input_is_rejected_with_the_parameter_named():
    d = np.array([0, 1, 1])
    q = np.array([[1, 0, 1], [0, 1, 1]])
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 12\].*small n"):
        reconstruct_exhaustive(lambda q: 0.0, MAX_EXHAUSTIVE_N + 1)
    with pytest.raises(TypeError, match="answer must be a function"):
        reconstruct_exhaustive(3, 4)
    with pytest.raises(TypeError, match=r"answer\(q\) must be a real number"):
        reconstruct_exhaustive(lambda q: "seven", 3)
    with pytest.raises(ValueError, match="bound must be a real number in"):
        reconstruct_exhaustive(lambda q: 0.0, 3, bound=-1)
    with pytest.raises(ValueError, match="answers must hold one answer per query: 2"):
        reconstruct_lp(q, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="queries must be 2-dimensional"):
        reconstruct_lp([1, 0, 1], [1.0])
    with pytest.raises(ValueError, match="answers must be finite"):
        reconstruct_lp(q, [1.0, np.nan])
    with pytest.raises(ValueError, match="method must be one of"):
        reconstruct_lp(q, [1.0, 2.0], method="l2")
    with pytest.raises(ValueError, match="each entry of database must be one of"):
        subset_sums([0, 2, 1], q)
    with pytest.raises(ValueError, match="queries must have n = 3 columns"):
        subset_sums(d, np.ones((2, 4)))
    with pytest.raises(ValueError, match="kind must be one of"):
        bounded_noise(q, d, 1.0, "gaussian")
    with pytest.raises(ValueError, match="bound must be a real number in"):
        bounded_noise(q, d, -1.0)
    with pytest.raises(ValueError, match="epsilon must be a real number in"):
        laplace_answers(d, q, 0)
    with pytest.raises(ValueError, match="t must be an integer"):
        random_queries(5, 0)
    with pytest.raises(ValueError, match="guess must have the database's length 3"):
        hamming_distance([0, 1], d)


# ------------------------------------------------------------------ Mir et al. 2011, Thm 11: union queries
def _sparse_secret(n, size, rng):
    x = np.zeros(n, dtype=np.int64)
    x[rng.choice(n, size, replace=False)] = 1
    return x


def test_sparse_subsets_are_every_set_of_at_most_L_elements_once_smallest_first():
    sets = sparse_subsets(7, 3)
    assert len(sets) == sum(math.comb(7, k) for k in range(4))
    assert len({tuple(row) for row in sets}) == len(sets)
    members = [tuple(np.flatnonzero(row)) for row in sets]
    assert members == sorted(members, key=lambda m: (len(m), m)) and members[0] == ()
    assert len(sparse_subsets(5, 5)) == 32 and len(sparse_subsets(5, 0)) == 1


def test_union_sizes_are_the_sizes_of_the_set_unions():
    rng = np.random.default_rng(11)
    sets, queries = rng.integers(0, 2, (6, 9)), rng.integers(0, 2, (5, 9))
    expected = [[len(set(np.flatnonzero(s)) | set(np.flatnonzero(q))) for q in queries] for s in sets]
    assert np.array_equal(union_sizes(sets, queries), expected)
    assert np.array_equal(union_sizes(sets[2], queries), expected[2])


def test_union_answers_stay_in_the_window_and_fail_at_rate_beta():
    rng = np.random.default_rng(12)
    x = _sparse_secret(10, 3, rng)
    queries = sparse_subsets(10, 3)
    true = union_sizes(x, queries)
    answers = union_answers(x, queries, 0.2, 0.5, rng=rng)
    assert np.all((0.8 * true - 0.5 <= answers) & (answers <= 1.2 * true + 0.5))
    decoy = 1 - x
    assert np.array_equal(union_answers(x, queries, 0.2, 0.5, failure=1.0, decoy=decoy, rng=rng),
                          union_sizes(decoy, queries))
    # 2,000 answers, β = 0.3: the failed ones are the decoy's exact (integer) counts; the
    # accurate ones are continuous. Binomial sd 20.5; ±5 sd fails with probability < 1e-6.
    queries = rng.integers(0, 2, (2_000, 10))
    answers = union_answers(x, queries, 0.2, 0.5, failure=0.3, decoy=decoy, rng=rng)
    failed = answers == union_sizes(decoy, queries)
    assert abs(failed.sum() - 600) < 5 * math.sqrt(2_000 * 0.3 * 0.7)


@pytest.mark.parametrize("n, L, alpha1, alpha2", [(10, 2, 0.0, 0.0), (12, 3, 0.1, 0.5), (12, 3, 0.2, 1.0),
                                                  (14, 2, 0.05, 0.25), (9, 4, 0.1, 0.0)])
def test_union_decoder_is_within_the_bound_from_accurate_answers(n, L, alpha1, alpha2):
    rng = np.random.default_rng(n * 10 + L)
    queries = sparse_subsets(n, L)
    bound = union_decoding_bound(L, alpha1, alpha2)
    for trial in range(4):
        x = _sparse_secret(n, rng.integers(0, L + 1), rng)
        answers = union_answers(x, queries, alpha1, alpha2, rng=rng)
        survivors = union_survivors(queries, answers, L, alpha1, alpha2)
        assert any(np.array_equal(s, x) for s in survivors)          # the truth is never ruled out
        assert np.abs(survivors - x).sum(axis=1).max() <= bound + 1e-9  # every survivor is close
        assert hamming_distance(reconstruct_union(queries, answers, L, alpha1, alpha2), x) <= bound
    x = _sparse_secret(n, L, rng)
    assert np.array_equal(reconstruct_union(queries, union_sizes(x, queries), L, 0.0, 0.0), x)


@pytest.mark.parametrize("alpha1, alpha2", [(0.0, 0.5), (0.05, 0.5), (0.1, 1.0), (0.2, 1.0), (0.3, 0.5)])
def test_worst_case_decoy_swaps_2a1L_plus_2a2_over_1_minus_a1_elements_each_way(alpha1, alpha2):
    """The derived bound 4(α₁L + α₂)/(1 − α₁) is attained up to rounding (|x| = L, room outside x),
    and the paper's 16(α₁ + α₂/L)L/(1 − α₁) is four times looser."""
    n, L = 12, 3
    rng = np.random.default_rng(int(100 * alpha1 + 10 * alpha2))
    queries = sparse_subsets(n, L)
    x = _sparse_secret(n, L, rng)
    answers, decoy = union_worst_case_answers(x, queries, L, alpha1, alpha2)
    k = min(math.floor((2 * alpha1 * L + 2 * alpha2) / (1 - alpha1) + 1e-9), L, n - L)
    assert hamming_distance(decoy, x) == 2 * k <= union_decoding_bound(L, alpha1, alpha2)
    true = union_sizes(x, queries)
    assert np.all(((1 - alpha1) * true - alpha2 <= answers + 1e-9) & (answers <= (1 + alpha1) * true + alpha2 + 1e-9))
    survivors = union_survivors(queries, answers, L, alpha1, alpha2)
    assert any(np.array_equal(s, decoy) for s in survivors) and any(np.array_equal(s, x) for s in survivors)
    assert np.abs(survivors - x).sum(axis=1).max() == 2 * k


def test_union_decoder_refuses_answers_that_contradict_every_sparse_set():
    queries = sparse_subsets(6, 2)
    with pytest.raises(ValueError, match="no set of at most 2 elements is consistent"):
        reconstruct_union(queries, np.full(len(queries), 50.0), 2, 0.1, 0.5)


def test_union_functions_reject_bad_input_with_the_parameter_named():
    queries = sparse_subsets(5, 2)
    with pytest.raises(ValueError, match="MAX_UNION_SETS"):
        sparse_subsets(40, 4)
    with pytest.raises(ValueError, match=r"max_size must be an integer in \[0, 5\]"):
        sparse_subsets(5, 6)
    with pytest.raises(ValueError, match=r"alpha1 must be a real number in \[0, 1\)"):
        union_decoding_bound(3, 1.0, 0.0)
    with pytest.raises(ValueError, match="alpha2 must be a real number"):
        reconstruct_union(queries, np.zeros(len(queries)), 2, 0.1, -1)
    with pytest.raises(ValueError, match="answers must hold one answer per query"):
        union_survivors(queries, [1.0, 2.0], 2, 0.1, 0.5)
    with pytest.raises(ValueError, match="queries must have one column per element"):
        union_sizes([0, 1, 1], queries)
    with pytest.raises(ValueError, match="failure must be a real number"):
        union_answers([0, 1, 0, 0, 0], queries, 0.1, 0.5, failure=2)
    with pytest.raises(ValueError, match="secret has 3 ones, more than sparsity = 2"):
        union_worst_case_answers([1, 1, 1, 0, 0], queries, 2, 0.1, 0.5)
