"""Tests for panpriv_teach.counters (and the baselines it re-exports): each test states the
claim it checks.

Statistical tests use fixed seeds; each comment gives the sample size and the probability
that a correct implementation fails. Variance checks use 6 standard errors of the sample
variance, SE = sqrt((mu4 - sigma^4)/R) with the exact fourth moment of the noise (two-sided
normal tail 2e-9 per check, below 1e-6 for the whole file).
"""
import math
from fractions import Fraction
import pickle

import numpy as np
import pytest
from scipy import stats

from panpriv_teach.audit import audit_pan_privacy, estimate_epsilon, exact_epsilon
from panpriv_teach.counters import (BinaryTreeCounter, CascadingBuffersCounter,
                                    HonakerTreeCounter, SimpleCounter,
                                    SqrtFactorizationCounter, analytic_gaussian_sigma,
                                    decomposition_sizes, dyadic_intervals, node_level,
                                    nodes_containing, tree_levels, tree_nodes)
from panpriv_teach.counters_baselines import honaker_node_variances, sqrt_coefficients
from panpriv_teach.noise import LaplaceNoise, implemented_probability
from panpriv_teach.streams import bit_stream, sparse_bit_stream

SIZES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 32, 33, 64, 100, 128]


@pytest.fixture
def no_noise(monkeypatch):
    """Makes every float-safe Laplace draw 0: Fig. 2 and Cum become deterministic, so their
    bookkeeping can be checked by hand. Returns a generator to pass as rng."""
    monkeypatch.setattr(LaplaceNoise, "noise",
                        lambda self, size, rng: 0.0 if size is None else np.zeros(size))
    return np.random.default_rng(0)


# ----------------------------------------------------------------------------- dyadic tree

@pytest.mark.parametrize("T, L", [(1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (8, 3), (9, 4),
                                  (16, 4), (17, 5), (2**20, 20), (2**20 + 1, 21)])
def test_tree_levels_is_ceil_log2_T(T, L):
    assert tree_levels(T) == L


def test_notes_worked_example_n_4():
    # Local-mechanisms notes, §2 (DNPR 2010): root [1, 4], children [1, 2], [3, 4], leaves; [1, 3] = [1, 2] + {3}.
    assert set(tree_nodes(4)) == {(1, 1), (2, 2), (3, 3), (4, 4), (1, 2), (3, 4)}   # no root
    assert dyadic_intervals(3, 4) == [(1, 2), (3, 3)]
    assert dyadic_intervals(4, 4) == [(1, 2), (3, 4)]          # the root's children, not the root
    assert dyadic_intervals(11, 16) == [(1, 8), (9, 10), (11, 11)]
    assert nodes_containing(3, 4) == [(3, 3), (3, 4)]


@pytest.mark.parametrize("T", SIZES)
def test_dyadic_intervals_partition_the_prefix_with_at_most_L_tree_nodes(T):
    nodes, L = set(tree_nodes(T)), tree_levels(T)
    sizes = decomposition_sizes(T)
    for t in range(1, T + 1):
        parts = dyadic_intervals(t, T)
        covered = [i for s, e in parts for i in range(s, e + 1)]
        assert covered == list(range(1, t + 1))                 # disjoint, in order, = [1, t]
        assert set(parts) <= nodes and len(parts) <= max(L, 2) and len(parts) == sizes[t - 1]
        assert all(node_level(p) < L for p in parts)            # never the root


@pytest.mark.parametrize("T", SIZES)
def test_every_x_i_lies_in_exactly_L_noisy_nodes(T):
    """The sensitivity count behind Thm 3: the node vector has L1 sensitivity exactly L."""
    L, nodes = tree_levels(T), tree_nodes(T)
    for i in range(1, T + 1):
        containing = [(s, e) for s, e in nodes if s <= i <= e]
        assert len(containing) == L
        assert sorted(containing, key=node_level) == nodes_containing(i, T)


def release_structure(T, with_root=False):
    """(F, S, used): the releases of Cum are F (S x + N), N i.i.d. over the used nodes;
    S[node, i] = 1 if x_i is in the node, F[t, node] = 1 if the node is in [1, t]'s
    decomposition. with_root=True is the rule of the Local-mechanisms notes, §2 at t = T = 2^L (the root itself)."""
    parts = [dyadic_intervals(t, T) for t in range(1, T + 1)]
    if with_root and T == 2**tree_levels(T):
        parts[-1] = [(1, T)]
    used = sorted({p for ps in parts for p in ps})
    index = {p: k for k, p in enumerate(used)}
    F = np.zeros((T, len(used)))
    for t, ps in enumerate(parts):
        F[t, [index[p] for p in ps]] = 1
    S = np.array([[s <= i <= e for i in range(1, T + 1)] for s, e in used], dtype=float)
    return F, S, used


@pytest.mark.parametrize("T", SIZES)
def test_cum_all_releases_are_exactly_epsilon_dp(T):
    """Exact epsilon of the whole release vector: F is square and invertible (one used node
    ends at each step), so the releases determine the noisy used nodes S x + N, a Laplace
    mechanism with L1 sensitivity max_i ||S e_i||_1 and scale b: epsilon = that / b."""
    epsilon = 0.7
    counter = BinaryTreeCounter(T, epsilon)
    F, S, used = release_structure(T)
    assert F.shape == (T, T) and abs(np.linalg.det(F)) == pytest.approx(1.0)
    sensitivity = S.sum(axis=0).max()
    assert sensitivity == tree_levels(T) == counter.levels
    # the float-safe noise's scale is L/epsilon times at most 1 + 2^-12 (its grid): the
    # exact epsilon of the discrete law is at most epsilon, and no lower than that factor
    assert epsilon * (1 - 2**-12) <= sensitivity / counter.scale <= epsilon


def test_notes_cum_as_written_is_only_one_plus_one_over_log_n_times_epsilon():
    """The rule of the Local-mechanisms notes, §2 takes the root at t = n: x_1 is then in log n + 1 noisy nodes, and
    Lap(log n / epsilon) gives (1 + 1/log n) epsilon, not epsilon (Thm 3's miscount)."""
    for T in (2, 4, 16, 64):
        F, S, used = release_structure(T, with_root=True)
        assert (1, T) in used
        assert abs(np.linalg.det(F)) == pytest.approx(1.0)
        assert S.sum(axis=0).max() == math.log2(T) + 1


@pytest.mark.parametrize("T", [5, 8, 13])
def test_cum_releases_move_exactly_by_the_node_structure_on_neighbours(T):
    """The library computes F (S x + N): with the same noise, changing x_i moves the
    releases by F S e_i (so the exact epsilon above is the library's)."""
    F, S, _ = release_structure(T)
    x = bit_stream(T, 0.5, rng=T)
    base = BinaryTreeCounter(T, 1.0, rng=3).run(x)
    for i in range(T):
        neighbour = x.copy()
        neighbour[i] = 1 - x[i]
        moved = BinaryTreeCounter(T, 1.0, rng=3).run(neighbour) - base
        assert np.allclose(moved, (F @ S)[:, i] * (neighbour[i] - x[i]))


def test_cum_audit_stays_below_epsilon_and_catches_half_the_noise():
    # T = 2, 15,000 runs per neighbour, both releases (q_1, q_2) on x = (1, 1) and
    # x' = (0, 1). The audit is a 95 % lower confidence bound (deterministic with this seed).
    # With half the noise (true epsilon 2) it must exceed epsilon.
    epsilon, runs = 1.0, 15_000

    def releases(x, scale_factor, seed):
        rng = np.random.default_rng(seed)
        out = np.empty((runs, 2))
        for r in range(runs):
            counter = BinaryTreeCounter(2, epsilon, rng=rng)
            counter._laplace = LaplaceNoise(counter.levels, epsilon / scale_factor)
            out[r] = [counter.step(x[0]), counter.step(x[1])]
        return out

    honest = estimate_epsilon(releases([1, 1], 1.0, 1), releases([0, 1], 1.0, 2), rng=0)
    broken = estimate_epsilon(releases([1, 1], 0.5, 3), releases([0, 1], 0.5, 4), rng=0)
    assert honest.epsilon_lower <= epsilon
    assert broken.epsilon_lower > 1.3 * epsilon


# ----------------------------------------------------------------------------- Cum accuracy

def laplace_sum_variance_se(k, b, runs):
    """The standard error of the sample variance of a sum of k i.i.d. Lap(b):
    mu4 - sigma^4 = (24k + 12k(k-1) - 4k^2) b^4 = (8k^2 + 12k) b^4."""
    return b**2 * np.sqrt((8 * k**2 + 12 * k) / runs)


@pytest.mark.parametrize("T", [13, 16, 33])
def test_cum_release_variance_matches_the_exact_formula_at_every_t(T):
    # 6,000 runs of all T releases; each t checked at 6 SE (includes t = T, T a power of two
    # or not): false failure < 33 * 2e-9. A scale (L+1)/epsilon or a missing node changes the
    # variance by >= 1/L relative, far more than 6 SE (about 11 % at k = 1, 7 % at k = L).
    epsilon, runs = 0.8, 6_000
    x = bit_stream(T, 0.3, rng=T)
    rng = np.random.default_rng(40 + T)
    releases = np.array([BinaryTreeCounter(T, epsilon, rng=rng).run(x) for _ in range(runs)])
    errors = releases - np.cumsum(x)
    counter = BinaryTreeCounter(T, epsilon)
    k = decomposition_sizes(T)
    predicted = counter.variance(np.arange(1, T + 1))
    # the discrete Laplace's exact variance, within 2^-10 relative of Laplace's 2 (L/eps)^2
    assert np.array_equal(predicted, counter._laplace.variance * k)
    assert np.allclose(predicted, 2 * (tree_levels(T) / epsilon) ** 2 * k, rtol=2**-10, atol=0)
    se = laplace_sum_variance_se(k, counter.scale, runs)
    assert np.all(np.abs(errors.var(axis=0) - predicted) < 6 * se)
    assert np.all(np.abs(errors.mean(axis=0)) < 6 * np.sqrt(predicted / runs))   # unbiased


def test_cum_max_error_stays_within_the_thm5_bound():
    # 300 runs at T = 4096 (all releases of each). error_bound(beta) holds for all t at once
    # with probability >= 1 - beta; with beta = 0.05 the number of runs that exceed it is
    # Binomial(300, <= 0.05): more than 35 has probability < 1e-7. It is O(log^2 T/epsilon).
    T, epsilon, runs, beta = 4096, 1.0, 300, 0.05
    x = bit_stream(T, 0.5, rng=5)
    rng = np.random.default_rng(6)
    worst = np.array([np.abs(BinaryTreeCounter(T, epsilon, rng=rng).run(x) - np.cumsum(x)).max()
                      for _ in range(runs)])
    bound = BinaryTreeCounter(T, epsilon).error_bound(beta)
    assert np.sum(worst > bound) <= 35
    assert bound < 3 * math.log2(T) ** 2 / epsilon
    assert np.quantile(worst, 0.5) > bound / 3          # the bound is not vacuous


def test_chernoff_tail_used_by_the_bound_dominates_simulated_laplace_sums():
    # 400,000 sums of k Lap(1): the empirical tail at lambda is within 6 binomial SE of the
    # truth, which the Chernoff bound must dominate.
    from panpriv_teach.counters import _laplace_sum_tail
    rng = np.random.default_rng(7)
    for k in (1, 4, 12):
        sums = rng.laplace(0, 1, (400_000, k)).sum(axis=1)
        for lam in (2.0, 5.0, 10.0, 20.0):
            p = np.mean(sums >= lam)
            assert p - 6 * math.sqrt(p * (1 - p) / 400_000 + 1e-12) <= _laplace_sum_tail(lam, k, 1.0)


# ----------------------------------------------------------------------------- run ≡ step

def make_counters(T):
    return {
        "simple": lambda rng: SimpleCounter(0.7, rng),
        "simple-rr": lambda rng: SimpleCounter(0.7, rng, mechanism="randomized_response"),
        "cum": lambda rng: BinaryTreeCounter(T, 0.7, rng),
        "honaker": lambda rng: HonakerTreeCounter(T, 0.7, rng),
        "sqrt": lambda rng: SqrtFactorizationCounter(T, 0.7, 1e-6, rng),
    }


@pytest.mark.parametrize("name", [name for name in make_counters(1) if name != "sqrt"])
@pytest.mark.parametrize("T", [1, 2, 5, 8, 13, 32, 33])
def test_run_gives_the_same_releases_and_state_as_repeated_step(name, T):
    """These counters draw the same numbers in the same order in `run` as in `step` (the
    float-safe Laplace sampler uses a fixed number of uniforms per draw, in sample order), so
    the same seed gives the same releases: an exact check, stronger than one in
    distribution, also when `run` continues after some steps (a split anywhere). The square-
    root counter's discrete Gaussian is drawn by rejection in rounds: see the next test."""
    make = make_counters(T)[name]
    x = bit_stream(T, 0.5, rng=T)
    stepped = make(np.random.default_rng(1))
    expected = np.array([stepped.step(v) for v in x])
    for split in sorted({0, 1, T // 2, T - 1, T}):
        counter = make(np.random.default_rng(1))
        first = [counter.step(v) for v in x[:split]]
        releases = np.concatenate([first, counter.run(x[split:])])
        assert np.allclose(releases, expected, rtol=1e-12, atol=1e-9)
        assert counter.output() == pytest.approx(expected[-1])
        assert_same_state(counter.state(), stepped.state())


def test_sqrt_run_and_step_release_the_same_law():
    # 2,000 runs each of T = 8 by `run` and by `step`; the error at t = 8 has variance
    # sigma^2 sum c_k^2 (about 46); two sample variances of 2,000 Gaussians differ by more
    # than 6 standard errors (6 * sqrt(2 * 2/1999) = 27 %) with probability < 2e-9.
    T, runs = 8, 2_000
    x = bit_stream(T, 0.5, rng=3)
    rng = np.random.default_rng(11)
    by_run = [SqrtFactorizationCounter(T, 0.7, 1e-6, rng).run(x)[-1] for _ in range(runs)]
    by_step = []
    for _ in range(runs):
        counter = SqrtFactorizationCounter(T, 0.7, 1e-6, rng)
        by_step.append([counter.step(v) for v in x][-1])
    predicted = float(counter.variance(T))
    for sample in (by_run, by_step):
        assert abs(np.var(sample) / predicted - 1) < 6 * math.sqrt(2 / (runs - 1))
        assert abs(np.mean(sample) - x.sum()) < 6 * math.sqrt(predicted / runs)


def assert_same_state(a, b):
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], dict):
            assert a[key].keys() == b[key].keys()
            assert np.allclose(list(a[key].values()), list(b[key].values()))
        else:
            assert np.allclose(a[key], b[key])


def test_cascading_run_matches_repeated_step_in_distribution():
    # 1,000 runs each of run and of repeated step, T = 120, d = 2: KS tests on the final
    # release and on the release at t = 60, and equal mean numbers of flushes per level
    # (6 SE). Each KS test fails a correct implementation with probability 1e-6.
    T, runs = 120, 1_000
    x = sparse_bit_stream(T, 30, rng=8)
    rng_run, rng_step = np.random.default_rng(9), np.random.default_rng(10)
    by_run, by_step, flushes_run, flushes_step = [], [], [], []
    for _ in range(runs):
        counter = CascadingBuffersCounter(0.5, 2, 5.0, 0.5, rng_run)
        by_run.append(counter.run(x)[[59, T - 1]])
        flushes_run.append(counter.flushes.copy())
        counter = CascadingBuffersCounter(0.5, 2, 5.0, 0.5, rng_step)
        by_step.append([counter.step(v) for v in x][59::60])
        flushes_step.append(counter.flushes.copy())
    by_run, by_step = np.array(by_run), np.array(by_step)
    for column in range(2):
        assert stats.ks_2samp(by_run[:, column], by_step[:, column]).pvalue > 1e-6
    flushes_run, flushes_step = np.array(flushes_run), np.array(flushes_step)
    se = np.sqrt((flushes_run.var(axis=0) + flushes_step.var(axis=0)) / runs) + 1e-9
    assert np.all(np.abs(flushes_run.mean(axis=0) - flushes_step.mean(axis=0)) < 6 * se)


# ----------------------------------------------------------------------------- state

def test_cum_state_after_step_3_matches_the_worked_example(no_noise):
    # Local-mechanisms notes, §2, n = 4: after step 3 Cum holds the nodes of [1, 3] = [1, 2] + {3}.
    counter = BinaryTreeCounter(4, 1.0, rng=no_noise)
    releases = [counter.step(v) for v in (1, 0, 1)]
    assert releases == [1, 1, 2]
    assert counter.state() == {"t": 3, "exact": {(1, 2): 1, (3, 3): 1},
                               "noisy": {(1, 2): 1.0, (3, 3): 1.0}}
    counter.step(1)
    assert counter.state()["exact"] == {(1, 2): 1, (3, 4): 2}


def test_cum_noisy_state_is_exact_plus_one_laplace_per_node():
    counter = BinaryTreeCounter(16, 1.0, rng=2)
    counter.run(bit_stream(11, 0.5, rng=2))
    state = counter.state()
    assert list(state["noisy"]) == dyadic_intervals(11, 16)
    assert sum(state["noisy"].values()) == pytest.approx(counter.output())


def test_cascading_state_after_steps_matches_fig2_by_hand(no_noise):
    # Noise off, epsilon = 1, d = 2, ell = 3, kappa = 3/8: U = (3 * 1 / (4 * 3/8))^2 = 4.
    # t = 3: b_1 = 3 >= ell, level 1 flushes a_1 = 3 to level 2, b_2 = 3 >= ell: ocount = 3.
    # t = 4..7: four updates of zeros, u_1 = 4 = U at t = 7: level 1 flushes a_1 = 0.
    # t = 8: x = 1 enters a_1, a_2 and b_1.
    counter = CascadingBuffersCounter(1.0, 2, 3.0, 3 / 8, rng=no_noise)
    assert counter.max_updates == 4
    releases = [counter.step(v) for v in (1, 1, 1, 0, 0, 0, 0, 1)]
    assert releases == [0, 0, 3, 3, 3, 3, 3, 3]
    assert counter.state() == {"a": [1.0, 1.0], "b": [1.0, 0.0], "u": [1, 1], "ocount": 3.0}
    assert counter.flushes.tolist() == [2, 1]


def test_cascading_state_is_figure_2s_memory_and_does_not_grow_with_the_stream():
    """Pan-privacy is about the state: only a_i, b_i, u_i, ocount, and nothing that grows
    with the stream (no copy of x): the pickled object has the same size after 100 and
    after 100,000 steps."""
    sizes = []
    for T in (100, 100_000):
        counter = CascadingBuffersCounter(0.5, 2, 20.0, 1.0, rng=1)
        counter.run(bit_stream(T, 0.3, rng=1))
        assert set(counter.state()) == {"a", "b", "u", "ocount"}
        assert all(len(counter.state()[k]) == 2 for k in "abu")
        sizes.append(len(pickle.dumps(counter)))
    assert abs(sizes[1] - sizes[0]) < 200


def test_simple_counter_state_holds_only_the_public_running_sum():
    counter = SimpleCounter(1.0, rng=1)
    counter.run([1, 0, 1, 1])
    assert counter.state() == {"t": 4, "noisy_sum": counter.output()}
    rr = SimpleCounter(1.0, rng=1, mechanism="randomized_response")
    rr.run([1, 0, 1, 1])
    assert set(rr.state()) == {"t", "ones_reported"}


# ----------------------------------------------------------------------------- cascading privacy

class NoInitialNoise(CascadingBuffersCounter):
    """A broken Fig. 2: accumulators start at 0 (the non-pan-private counter of §6)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._a = [0.0] * self.d

    def _accumulator_noise(self):
        return 0.0


def test_cascading_pan_privacy_audit_stays_below_2d_plus_1_epsilon_and_catches_exact_accumulators():
    # Streams differing in step 2, intrusion after step 4 (no flush yet: ell and U large),
    # 3,000 runs per stream; the intruder reads a_1 and b_1. Honest: a_1 and b_1 each carry
    # Lap(1/epsilon), so the loss is about 2 epsilon <= (2d + 1) epsilon = 3 epsilon.
    # Without the initial noise a_1 is the exact count and the audit sees it.
    epsilon = 0.5
    a, b = [0, 1, 0, 1, 0, 0], [0, 0, 0, 1, 0, 0]

    def features(snapshot, output):
        return [snapshot["a"][0], snapshot["b"][0]]

    for cls, ok in ((CascadingBuffersCounter, True), (NoInitialNoise, False)):
        result = audit_pan_privacy(lambda rng: cls(epsilon, 1, 1e6, 1.0, rng), a, b, 4, 3_000,
                                   features, rng=11)
        claim = 3 * epsilon
        assert (result.epsilon_lower <= claim) == ok, (cls.__name__, result)


# ----------------------------------------------------------------------------- cascading accuracy

def claim_6_1_bound(T, n, U, ell, level):
    """B_i = T/U^i + (2n/ell) U/(U - 1): time-driven plus buffer-overflow flushes (each
    overflow needs >= ell/2 ones while the noise stays below ell/2)."""
    return T / U**level + 2 * n / ell * U / (U - 1)


@pytest.mark.parametrize("density", [0.01, 0.5])
def test_claim_6_1_flush_counts_stay_below_the_bound(density):
    # 10 seeds, T = 20,000, d = 3, U = 16, ell = 40, kappa = 2 (noise well below ell/2).
    T, d, ell, kappa, epsilon = 20_000, 3, 40.0, 2.0, 0.8
    x = bit_stream(T, density, rng=12)
    n = int(x.sum())
    for seed in range(10):
        counter = CascadingBuffersCounter(epsilon, d, ell, kappa, rng=seed)
        counter.run(x)
        U = counter.max_updates
        assert U == pytest.approx(16.0)
        assert counter.flushes[0] >= T // math.ceil(U)              # forced flushes alone
        for level in range(1, d + 1):
            assert counter.flushes[level - 1] <= claim_6_1_bound(T, n, U, ell, level)


def test_claim_6_1_paper_overflow_term_fails_when_U_exceeds_ell():
    # The proof's 2n/U term: with U = 100 > ell = 10 on a dense stream the level-1 flushes
    # are about n/ell (one per ell ones), far above T/U + 2n/U; B_1 above holds.
    T, ell, kappa, epsilon = 20_000, 10.0, 0.25, 1.0
    x = bit_stream(T, 0.5, rng=13)
    n = int(x.sum())
    counter = CascadingBuffersCounter(epsilon, 1, ell, kappa, rng=13)
    counter.run(x)
    U = counter.max_updates
    assert U == pytest.approx(100.0)
    assert counter.flushes[0] > 2 * (T / U + 2 * n / U)
    assert counter.flushes[0] <= claim_6_1_bound(T, n, U, ell, 1)


def test_claim_6_2_buffers_stay_within_2_i_ell_of_the_ones_since_their_flush():
    # Step by step on T = 3,000, d = 3, ell = 30, kappa = 2, 5 seeds: at every step and level
    # |b_i - n_i| <= 2 i ell, n_i = ones since level i's last flush.
    T, d, ell = 3_000, 3, 30.0
    x = bit_stream(T, 0.2, rng=14)
    for seed in range(5):
        counter = CascadingBuffersCounter(0.8, d, ell, 2.0, rng=seed)
        since = np.zeros(d, dtype=int)
        worst = np.zeros(d)
        for v in x:
            before = counter.flushes.copy()
            counter.step(v)
            since += v
            since[counter.flushes > before] = 0
            worst = np.maximum(worst, np.abs(np.array(counter.state()["b"]) - since))
        assert np.all(worst <= 2 * np.arange(1, d + 1) * ell), worst


def test_cascading_from_T_beats_the_simple_counter_on_sparse_streams():
    # T = 2^14, n = 128 ones, epsilon = 1, 10 seeds: the mean root-mean-square error over t
    # against the simple counter's exact one, sqrt(mean_t 2t)/epsilon = sqrt(T + 1).
    T, epsilon = 2**14, 1.0
    x = sparse_bit_stream(T, 128, rng=15)
    counter = CascadingBuffersCounter.from_T(T, epsilon, rng=0)
    assert counter.total_epsilon == pytest.approx(epsilon)
    rms = np.mean([np.sqrt(np.mean((CascadingBuffersCounter.from_T(T, epsilon, rng=s).run(x)
                                    - np.cumsum(x)) ** 2)) for s in range(10)])
    simple = math.sqrt(np.mean(SimpleCounter(epsilon).variance(np.arange(1, T + 1))))
    assert rms < 0.25 * simple


def test_cascading_total_privacy_is_2d_plus_1_epsilon():
    assert CascadingBuffersCounter(0.1, 3, 10, 1).total_epsilon == pytest.approx(0.7)


# ----------------------------------------------------------------------------- simple counter

def test_simple_counter_variance_is_2t_over_epsilon_squared():
    # 20,000 runs, T = 50; at t = 10, 50: 6 SE of the sample variance (sum of t Lap(1/eps)).
    epsilon, T, runs = 0.5, 50, 20_000
    x = bit_stream(T, 0.4, rng=16)
    rng = np.random.default_rng(17)
    errors = np.array([SimpleCounter(epsilon, rng).run(x) for _ in range(runs)]) - np.cumsum(x)
    for t in (10, 50):
        predicted = SimpleCounter(epsilon).variance(t)
        assert predicted == 2 * t / epsilon**2
        assert abs(errors[:, t - 1].var() - predicted) < 6 * laplace_sum_variance_se(t, 1 / epsilon, runs)


def test_randomized_response_counter_is_unbiased_with_the_exact_variance():
    # 20,000 runs, T = 60 with 20 ones: variance t/bias^2 - n_t; SE of the sample
    # variance about var * sqrt(2/runs) (nearly Gaussian sums of bits): 6 SE.
    epsilon, T, runs = 0.7, 60, 20_000
    x = sparse_bit_stream(T, 20, rng=18)
    rng = np.random.default_rng(19)
    releases = np.array([SimpleCounter(epsilon, rng, mechanism="randomized_response").run(x)
                         for _ in range(runs)])
    errors = releases - np.cumsum(x)
    predicted = SimpleCounter(epsilon, mechanism="randomized_response").variance(
        np.arange(1, T + 1), np.cumsum(x))
    assert np.all(np.abs(errors.mean(axis=0)) < 6 * np.sqrt(predicted / runs))
    assert abs(errors[:, -1].var() / predicted[-1] - 1) < 6 * math.sqrt(2 / runs)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 1.0, 2.0])
def test_randomized_response_bits_are_exactly_epsilon_dp(epsilon):
    counter = SimpleCounter(epsilon, mechanism="randomized_response")
    p = (1 + counter.bias) / 2
    assert exact_epsilon({1: 0.5, 0: 0.5}, {1: p, 0: 1 - p}) == pytest.approx(epsilon)


def test_dwork_2010_d1_one_half_plus_epsilon_over_4_gives_about_epsilon_over_2():
    # Dwork 2010, §4's D_1 = 1/2 + epsilon/4 is the bias epsilon/2 of the course's (1 + b)/2: privacy
    # -ln(1 - epsilon/2), which is epsilon/2 + O(eps^2).
    for epsilon in (0.1, 0.5, 1.0):
        counter = SimpleCounter(mechanism="randomized_response", bias=epsilon / 2)
        assert counter.epsilon == pytest.approx(-math.log(1 - epsilon / 2))
        assert epsilon / 2 < counter.epsilon < epsilon


# ----------------------------------------------------------------------------- baselines

def test_honaker_node_variances_follow_inverse_variance_weighting():
    V = honaker_node_variances(6, 2.0)
    assert V[0] == 2.0 and V[1] == pytest.approx(1 / (1 / 2 + 1 / 4))
    assert np.all(np.diff(V) < 0) and V[-1] > 1.0            # decreasing towards sigma^2 / 2


@pytest.mark.parametrize("T", [16, 21])
def test_honaker_is_unbiased_with_the_predicted_variance_below_cums(T):
    # 3,000 runs. The estimate is a linear combination of Laplace noise: 4th moment bounded
    # by the Laplace one (kurtosis <= 6), so SE(sample var) <= var sqrt(5/runs): 6 SE.
    epsilon, runs = 1.0, 3_000
    x = bit_stream(T, 0.5, rng=T)
    rng = np.random.default_rng(20 + T)
    errors = np.array([HonakerTreeCounter(T, epsilon, rng).run(x) for _ in range(runs)]) - np.cumsum(x)
    predicted = HonakerTreeCounter(T, epsilon).variance(np.arange(1, T + 1))
    assert np.all(np.abs(errors.mean(axis=0)) < 6 * np.sqrt(predicted / runs))
    assert np.all(np.abs(errors.var(axis=0) / predicted - 1) < 6 * np.sqrt(5 / runs))
    cum = BinaryTreeCounter(T, epsilon).variance(np.arange(1, T + 1))
    assert np.all(predicted <= cum + 1e-9) and predicted.mean() < 0.8 * cum.mean()


def test_honaker_uses_the_noisy_nodes_of_cum_with_the_same_scale():
    T = 24
    honaker, cum = HonakerTreeCounter(T, 0.6), BinaryTreeCounter(T, 0.6)
    assert honaker.scale == cum.scale == pytest.approx(tree_levels(T) / 0.6, rel=2**-12)
    # every node it draws ends by T and is a node of the tree: x_i is in at most L of them
    drawn = [(s, e) for s, e in tree_nodes(T) if e <= T]
    assert max(sum(s <= i <= e for s, e in drawn) for i in range(1, T + 1)) == tree_levels(T)


def test_sqrt_factorization_squares_to_the_prefix_sum_matrix():
    T = 64
    c = sqrt_coefficients(T)
    C = np.array([[c[i - j] if i >= j else 0.0 for j in range(T)] for i in range(T)])
    assert np.allclose(C @ C, np.tril(np.ones((T, T))))
    counter = SqrtFactorizationCounter(T, 1.0, 1e-6)
    assert counter.sensitivity == pytest.approx(np.linalg.norm(C, axis=0).max())


def test_analytic_gaussian_sigma_is_the_smallest_sigma_meeting_delta():
    from scipy.special import ndtr
    for D, epsilon, delta in ((1.0, 1.0, 1e-5), (2.5, 0.3, 1e-6), (1.0, 4.0, 1e-9)):
        sigma = analytic_gaussian_sigma(D, epsilon, delta)

        def delta_of(s):
            return ndtr(D / (2 * s) - epsilon * s / D) - math.exp(epsilon) * ndtr(-D / (2 * s) - epsilon * s / D)

        assert delta_of(sigma) <= delta * (1 + 1e-9) and delta_of(0.99 * sigma) > delta
        if epsilon < 1:
            assert sigma < D * math.sqrt(2 * math.log(1.25 / delta)) / epsilon   # classical


def test_sqrt_factorization_has_the_predicted_variance():
    # 4,000 runs, T = 40: Gaussian errors, SE(sample var) = var sqrt(2/runs): 6 SE.
    T, runs = 40, 4_000
    x = bit_stream(T, 0.5, rng=21)
    rng = np.random.default_rng(22)
    errors = np.array([SqrtFactorizationCounter(T, 1.0, 1e-6, rng).run(x) for _ in range(runs)]) - np.cumsum(x)
    predicted = SqrtFactorizationCounter(T, 1.0, 1e-6).variance(np.arange(1, T + 1))
    assert np.all(np.abs(errors.var(axis=0) / predicted - 1) < 6 * math.sqrt(2 / runs))


def test_sqrt_factorization_std_is_several_times_below_cums_at_2_to_16():
    T, epsilon = 2**16, 1.0
    t = np.arange(1, T + 1)
    cum = np.sqrt(BinaryTreeCounter(T, epsilon).variance(t))
    sqrt_fact = np.sqrt(SqrtFactorizationCounter(T, epsilon, 1e-6).variance(t))
    assert cum.max() / sqrt_fact.max() > 3 and np.mean(cum / sqrt_fact) > 2.5


# ----------------------------------------------------------------------------- sqrt counter in floating point

def _direct_grid_query(counter, x):
    """C_hat x by exact int64 arithmetic (np.convolve on integers, O(T^2)): the reference."""
    return np.convolve(counter.grid_coefficients[:len(x)], np.asarray(x, dtype=np.int64))[:len(x)]


@pytest.mark.parametrize("T, epsilon", [(1, 1.0), (37, 0.3), (2**12, 1.0), (2**12, 20.0)])
def test_sqrt_grid_query_by_fft_is_the_exact_integer_convolution(T, epsilon):
    counter = SqrtFactorizationCounter(T, epsilon, 1e-6)
    for x in (np.ones(T, dtype=np.int64), bit_stream(T, 0.5, rng=T), sparse_bit_stream(T, min(T, 3), rng=T)):
        assert np.array_equal(counter.grid_query(x), _direct_grid_query(counter, x))
    assert int(counter.grid_coefficients[0]) * counter.grid == 1.0        # c_0 = 1 on the grid
    assert np.all(np.abs(counter.grid_coefficients * counter.grid - counter.coefficients)
                  <= counter.grid / 2)


def test_sqrt_fft_convolution_check_catches_an_inexact_fft(monkeypatch):
    # The guard behind grid_query's exactness: with one limb of 40-bit coefficients against
    # 4,096 random bits (entries near 2^50, 2^10 times the bound's 2^40) the FFT's result
    # strays from the integers by up to 1/2 and the convolution refuses to round it; within
    # the bound the same data comes out exact. (Beyond 2^53 every double is an integer, so
    # the check needs the bound; it only catches a bound that fails below 2^53.)
    from panpriv_teach import counters_baselines
    rng = np.random.default_rng(1)
    coefficients = rng.integers(0, 2**40, 4096)
    bits = (rng.random(4096) < 0.5).astype(np.int64)
    exact = np.convolve(coefficients.astype(object), bits.astype(object))[:4096]
    assert list(counters_baselines._integer_convolution(coefficients, bits)) == list(exact)
    monkeypatch.setattr(counters_baselines, "_FFT_EXACT", 2.0**52)   # one 40-bit limb
    with pytest.raises(RuntimeError, match="not within 1/8 of the integers"):
        counters_baselines._integer_convolution(coefficients, bits)


def _flip_every_bit(counter, x, query):
    """For each step i, ||q(x) - q(x with bit i flipped)||_2^2 with the query q computed as
    the program computes it (exact integers for q = grid_query)."""
    reference = query(x)
    out = []
    for i in range(len(x)):
        neighbour = x.copy()
        neighbour[i] ^= 1
        difference = query(neighbour) - reference
        out.append(int(np.sum(difference.astype(object) ** 2)))
    return out


@pytest.mark.parametrize("T", [2**6, 2**12])
def test_sqrt_sensitivity_bound_holds_for_the_float_computation_on_adversarial_inputs(T):
    # all ones against one flipped bit at every position (and a random stream at T = 2^6):
    # the rounded vector C_hat x, computed by the run path (FFT in limbs), moves by exactly
    # the column of C_hat below the flipped step, so its squared L2 change never exceeds
    # the integer grid_sensitivity^2 that sigma is calibrated to, and equals it at step 1.
    counter = SqrtFactorizationCounter(T, 1.0, 1e-6)
    squared = sum(int(v) ** 2 for v in counter.grid_coefficients)
    assert counter.grid_sensitivity == pytest.approx(math.sqrt(squared), rel=1e-15)
    streams = [np.ones(T, dtype=np.int64)] + ([bit_stream(T, 0.5, rng=5)] if T < 2**8 else [])
    for x in streams:
        changes = _flip_every_bit(counter, x, counter.grid_query)
        assert max(changes) == changes[0] == squared
        prefix = np.cumsum(counter.grid_coefficients.astype(object) ** 2)
        assert changes == list(prefix[::-1])   # step i: exactly c_hat_0^2 + ... + c_hat_(T-i)^2
    # the noise is calibrated to it: rho of the exact law <= the zCDP budget
    s = counter.sigma / counter.grid
    assert squared / (2 * s**2) <= counter.rho


class _RoundedProducts(SqrtFactorizationCounter):
    """Deliberately broken: rounds fl(C x) (computed by FFT) to the grid and claims the
    unrounded sensitivity ||c||_2 / Λ, with no slack for the rounding."""

    def grid_query(self, stream):
        x = np.asarray(stream, dtype=float)
        size = 1 << (2 * len(x) - 1).bit_length()
        exact = np.fft.irfft(np.fft.rfft(self.coefficients[:len(x)], size) * np.fft.rfft(x, size), size)
        return np.rint(exact[:len(x)] / self.grid).astype(np.int64)

    @property
    def claimed_squared_sensitivity(self):
        return float(np.sum(self.coefficients**2)) / self.grid**2


def test_sqrt_sensitivity_check_flags_rounding_products_without_slack():
    # The same exact check on the variant that rounds the products fl(C x) instead of the
    # coefficients: with all ones against a flipped bit, its rounded vector moves by more
    # than the claimed ||c||_2/Λ at some step (each rounding can add one grid step per
    # coordinate), so calibrating sigma to ||c||_2 would understate rho. Deterministic.
    T = 2**12
    broken = _RoundedProducts(T, 1.0, 1e-6)
    changes = _flip_every_bit(broken, np.ones(T, dtype=np.int64), broken.grid_query)
    assert max(changes) > broken.claimed_squared_sensitivity
    # the real counter's grid_sensitivity is at least the realised change (previous test)


def test_sqrt_run_and_repeated_step_agree_exactly_for_the_same_noise(monkeypatch):
    # With the discrete Gaussian replaced by a fixed sequence of integers (so both paths see
    # the same Y's), run and repeated step give the same y exactly and the same releases to
    # float rounding, at every split, and the same state.
    from panpriv_teach.noise import DiscreteGaussian
    T = 300
    values = np.random.default_rng(4).integers(-2**40, 2**40, T)
    position = {"next": 0}

    def fixed(self, size, rng):
        start = position["next"]
        position["next"] += size
        return values[start:start + size].copy()

    monkeypatch.setattr(DiscreteGaussian, "sample", fixed)
    x = bit_stream(T, 0.4, rng=6)
    position["next"] = 0
    stepped = SqrtFactorizationCounter(T, 0.7, 1e-6)
    expected = np.array([stepped.step(v) for v in x])
    assert np.array_equal(stepped.state()["y"], _direct_grid_query(stepped, x) + values)
    for split in (0, 1, 150, T - 1, T):
        position["next"] = 0
        counter = SqrtFactorizationCounter(T, 0.7, 1e-6)
        releases = np.concatenate([[counter.step(v) for v in x[:split]], counter.run(x[split:])])
        np.testing.assert_allclose(releases, expected, rtol=1e-12, atol=1e-6)
        assert np.array_equal(counter.state()["y"], stepped.state()["y"])
        assert counter.state()["count"] == stepped.state()["count"] == x.sum()


def test_sqrt_noise_is_the_discrete_gaussian_with_sigma():
    # The noise on the grid, Y = y - C_hat x, recovered from the state after `run` (4,096
    # draws) and after repeated `step` (1,024 draws): KS test against N(0, s^2) (the discrete
    # law is within 1/(s sqrt(2 pi)) < 1e-4 of it in CDF at s >= 4000, far below the test's
    # resolution; each KS test fails a correct implementation with probability 1e-6), and
    # all integers.
    T = 4096
    x = bit_stream(T, 0.5, rng=7)
    counter = SqrtFactorizationCounter(T, 1.0, 1e-6, rng=8)
    counter.run(x)
    s = counter.sigma / counter.grid
    assert s >= 4000
    by_run = counter.state()["y"] - counter.grid_query(x)
    stepper = SqrtFactorizationCounter(T, 1.0, 1e-6, rng=9)
    for v in x[:1024]:
        stepper.step(v)
    by_step = stepper.state()["y"] - counter.grid_query(x[:1024])
    for sample in (by_run, by_step):
        assert sample.dtype == np.int64
        assert stats.kstest(sample / s, "norm").pvalue > 1e-6


def test_sqrt_zcdp_conversion_matches_a_direct_minimisation_and_the_rdp_accountant():
    # zcdp_delta against the formula minimised over a fine grid of alpha (independent of the
    # bisection), and zcdp_rho against dp_accounting's RDP accountant for the Gaussian of
    # the same rho (rho-zCDP is RDP of every order alpha at alpha rho). Deterministic.
    from dp_accounting import GaussianDpEvent
    from dp_accounting.rdp import RdpAccountant
    from panpriv_teach.counters_baselines import zcdp_delta, zcdp_rho
    for rho, epsilon in ((0.02, 1.0), (0.5, 3.0), (1e-4, 0.05)):
        alpha = 1 + np.exp(np.linspace(-20, 10, 300_001))
        log_formula = ((alpha - 1) * (alpha * rho - epsilon) + alpha * np.log1p(-1 / alpha)
                       - np.log(alpha - 1))
        assert zcdp_delta(rho, epsilon) == pytest.approx(np.exp(log_formula.min()), rel=1e-6)
    for epsilon, delta in ((1.0, 1e-6), (0.3, 1e-9), (4.0, 1e-5)):
        rho = zcdp_rho(epsilon, delta)
        assert zcdp_delta(rho, epsilon) <= delta < zcdp_delta(rho * (1 + 1e-9), epsilon)
        accountant = RdpAccountant()
        accountant.compose(GaussianDpEvent(noise_multiplier=1 / math.sqrt(2 * rho)))
        # its orders are a finite list, ours any alpha > 1: it may be larger, never smaller
        assert epsilon <= accountant.get_epsilon(delta) * (1 + 1e-9) < 1.03 * epsilon


@pytest.mark.parametrize("T, epsilon, delta", [(2**10, 1.0, 1e-6), (2**16, 0.5, 1e-9)])
def test_sqrt_guarantee_against_the_gaussian_pld_and_the_float_cost(T, epsilon, delta):
    # The counter's epsilon at its sigma, recomputed: the zCDP route gives epsilon at
    # rho = grid_sensitivity^2/(2 s^2); dp_accounting's PLD accountant gives the exact
    # epsilon of the CONTINUOUS Gaussian with the same sensitivity and sigma, which any valid
    # conversion from rho-zCDP must be at least (the continuous Gaussian is rho-zCDP), and
    # which the conservative route exceeds by under 10 %. The float guarantee adds exactly
    # 2 T eta to epsilon (eta of the sampler for shifts up to c_hat_0 steps).
    from dp_accounting.pld import privacy_loss_distribution
    from panpriv_teach.counters_baselines import zcdp_delta
    counter = SqrtFactorizationCounter(T, epsilon, delta)
    s = counter.sigma / counter.grid
    rho = counter.grid_sensitivity**2 / (2 * s**2)
    assert rho <= counter.rho and zcdp_delta(rho, epsilon) <= delta
    pld = privacy_loss_distribution.from_gaussian_mechanism(
        standard_deviation=counter.sigma, sensitivity=counter.sensitivity,
        value_discretization_interval=1e-5)
    reference = pld.get_epsilon_for_delta(delta)
    assert reference <= epsilon < 1.10 * reference
    eta, delta_float = counter._plan.sampler.float_cost(int(counter.grid_coefficients[0]))
    epsilon_float, delta_total = counter.guarantee()
    assert epsilon_float == epsilon + 2 * T * eta and 0 < 2 * T * eta < 3e-3
    assert delta_total == pytest.approx(math.exp(T * eta) * delta + T * delta_float, rel=1e-12)


def test_discrete_gaussian_delta_can_exceed_the_continuous_one_in_one_dimension():
    # Why the counter does not take Balle & Wang's continuous calibration for its discrete
    # noise: at s = 0.5, shift 1, epsilon = 1 the discrete Gaussian's exact delta (summed over
    # the integers) is 0.603 against the continuous Gaussian's 0.510.
    from panpriv_teach.mechanisms import gaussian_delta
    from panpriv_teach.noise import DiscreteGaussian
    discrete = DiscreteGaussian(0.5)._delta_by_summation(1, 1.0)
    assert discrete > 1.15 * gaussian_delta(0.5, 1, 1.0)


def test_sqrt_rounding_bias_is_below_sigma_over_4096_and_bounds_the_real_bias():
    # The deterministic part of the error, C (Λ C_hat - C) x, computed exactly in rationals
    # would be slow; in float64 at T = 2^10 it is accurate to 1e-12, far below the bound.
    T = 2**10
    counter = SqrtFactorizationCounter(T, 1.0, 1e-6)
    assert counter.rounding_bias <= counter.sigma / 4096
    rounded = counter.grid_coefficients * counter.grid - counter.coefficients   # Λ c_hat - c
    for x in (np.ones(T), bit_stream(T, 0.5, rng=12).astype(float)):
        inner = np.convolve(rounded, x)[:T]
        bias = np.convolve(counter.coefficients, inner)[:T]
        assert np.max(np.abs(bias)) <= counter.rounding_bias


# ----------------------------------------------------------------------------- bad input

ALL = [
    lambda: SimpleCounter(1.0),
    lambda: SimpleCounter(1.0, mechanism="randomized_response"),
    lambda: BinaryTreeCounter(8, 1.0),
    lambda: HonakerTreeCounter(8, 1.0),
    lambda: SqrtFactorizationCounter(8, 1.0, 1e-6),
    lambda: CascadingBuffersCounter(1.0, 2, 10, 1),
]


@pytest.mark.parametrize("make", ALL)
@pytest.mark.parametrize("x, error, words", [(2, ValueError, "x must be 0 or 1.*got 2"),
                                             (0.5, ValueError, "x must be 0 or 1"),
                                             (float("nan"), ValueError, "x must be 0 or 1"),
                                             ("1", TypeError, "x must be 0 or 1.*str")])
def test_non_binary_elements_are_rejected(make, x, error, words):
    with pytest.raises(error, match=words):
        make().step(x)


@pytest.mark.parametrize("make", ALL)
def test_non_binary_streams_are_rejected_with_the_index(make):
    with pytest.raises(ValueError, match=r"stream must be 0 or 1.*got -1 at index 2"):
        make().run([0, 1, -1, 1])
    with pytest.raises(ValueError, match="1-dimensional"):
        make().run([[0, 1]])
    assert make().run(np.array([True, False])).shape == (2,)      # bools are bits


@pytest.mark.parametrize("cls, args", [(BinaryTreeCounter, ()), (HonakerTreeCounter, ()),
                                       (SqrtFactorizationCounter, (1e-6,))])
def test_more_than_T_steps_are_rejected(cls, args):
    counter = cls(4, 1.0, *args)
    with pytest.raises(ValueError, match=r"T = 4 .*got step t = 5 \(valid steps: 1..4"):
        counter.run(np.ones(5))
    counter.run(np.ones(3))
    counter.step(1)
    with pytest.raises(ValueError, match="got step t = 5"):
        counter.step(0)
    with pytest.raises(ValueError, match="T must be an integer in"):
        cls(0, 1.0, *args)
    with pytest.raises(TypeError, match="T must be an integer"):
        cls(4.5, 1.0, *args)


@pytest.mark.parametrize("make", [lambda e: SimpleCounter(e), lambda e: BinaryTreeCounter(8, e),
                                  lambda e: HonakerTreeCounter(8, e),
                                  lambda e: SqrtFactorizationCounter(8, e, 1e-6),
                                  lambda e: CascadingBuffersCounter(e, 1, 10, 1),
                                  lambda e: CascadingBuffersCounter.from_T(100, e),
                                  lambda e: SimpleCounter(e, mechanism="randomized_response")])
@pytest.mark.parametrize("epsilon", [0, -1.0, float("nan"), float("inf")])
def test_nonpositive_epsilon_is_rejected(make, epsilon):
    with pytest.raises(ValueError, match=r"epsilon must be a real number in \(0"):
        make(epsilon)


@pytest.mark.parametrize("kwargs, words", [
    ({"d": 0}, r"d must be an integer in \[1, inf\).*Fig. 2.*got 0"),
    ({"d": 1.5}, "d must be an integer"),
    ({"ell": 0}, r"ell must be a real number in \(0, inf\).*got 0"),
    ({"ell": -3}, "ell must be"),
    ({"kappa": 0}, r"kappa must be a real number in \(0, inf\)"),
])
def test_cascading_rejects_bad_d_ell_kappa(kwargs, words):
    params = {"epsilon": 1.0, "d": 2, "ell": 10.0, "kappa": 1.0, **kwargs}
    with pytest.raises((ValueError, TypeError), match=words):
        CascadingBuffersCounter(**params)


def test_simple_counter_rejects_bad_mechanism_and_bias():
    with pytest.raises(ValueError, match="mechanism must be"):
        SimpleCounter(1.0, mechanism="gaussian")
    with pytest.raises(ValueError, match="exactly one of epsilon"):
        SimpleCounter(1.0, mechanism="randomized_response", bias=0.1)
    with pytest.raises(ValueError, match=r"bias must be a real number in \(0, 1\)"):
        SimpleCounter(mechanism="randomized_response", bias=1.0)
    with pytest.raises(ValueError, match="bias is a parameter of mechanism='randomized_response'"):
        SimpleCounter(1.0, bias=0.2)


def test_sqrt_helpers_and_grid_query_reject_bad_input():
    from panpriv_teach.counters_baselines import zcdp_delta, zcdp_rho
    with pytest.raises(ValueError, match=r"rho must be a real number in \(0, inf\).*got 0"):
        zcdp_delta(0, 1.0)
    with pytest.raises(ValueError, match=r"epsilon must be a real number in \(0"):
        zcdp_delta(0.1, -1.0)
    with pytest.raises(ValueError, match=r"delta must be a real number in \(0, 1\).*got 1.5"):
        zcdp_rho(1.0, 1.5)
    counter = SqrtFactorizationCounter(8, 1.0, 1e-6)
    with pytest.raises(ValueError, match=r"stream must have at most T = 8 bits; got 9"):
        counter.grid_query(np.ones(9))
    with pytest.raises(ValueError, match=r"stream must be 0 or 1.*got 2 at index 1"):
        counter.grid_query([1, 2])
    with pytest.raises(ValueError, match=r"epsilon=1e-30 and delta=1e-30 need noise of .* grid "
                                         r"steps .*at most 2\^49.*epsilon \(or delta\) must be larger"):
        SqrtFactorizationCounter(8, 1e-30, 1e-30)


def test_sqrt_factorization_rejects_bad_delta_and_helpers_reject_bad_t():
    with pytest.raises(ValueError, match=r"delta must be a real number in \(0, 1\)"):
        SqrtFactorizationCounter(8, 1.0, 0)
    with pytest.raises(ValueError, match=r"t must be an integer in \[1, 8\]"):
        dyadic_intervals(9, 8)
    with pytest.raises(ValueError, match=r"i must be an integer in \[1, 8\]"):
        nodes_containing(0, 8)
    with pytest.raises(ValueError, match=r"beta must be a real number in \(0, 1\)"):
        BinaryTreeCounter(8, 1.0).error_bound(1.5)


# ------------------------------------------------------------------ RR in floating point

@pytest.mark.parametrize("epsilon", [1e-9, 1e-3, 0.1, 0.7, 1.0, 5.0, 20.0, 35.04, 36.5, 50.0,
                                     700.0, 1e4])
def test_randomized_response_counter_implemented_privacy_is_at_most_epsilon(epsilon):
    # P(y = 1 | x = 1) is the threshold t_1 itself (on the 2^-53 grid), P(y = 1 | x = 0) = 1/2
    c = SimpleCounter(epsilon, mechanism="randomized_response")
    t = Fraction(c._one)
    assert implemented_probability(c._one) == t and Fraction(1, 2) < t < 1
    ratio = max(t / Fraction(1, 2), Fraction(1, 2) / (1 - t))
    assert ratio <= Fraction(math.exp(min(epsilon, 700.0))) * (1 + Fraction(1, 2**51))
    assert c.implemented_epsilon == pytest.approx(math.log(ratio), rel=1e-15)
    assert c.implemented_epsilon <= epsilon * (1 + 2.0**-50)
    if epsilon <= 20:
        assert epsilon - c.implemented_epsilon <= 2.0**-51 * math.exp(epsilon) + 2.0**-50


@pytest.mark.parametrize("bias", [2.0**-60, 1e-9, 0.1, 0.25, 0.5, 1 - 2.0**-40,
                                  math.nextafter(1.0, 0)])
def test_randomized_response_counter_given_bias_is_at_most_its_epsilon_exactly(bias):
    c = SimpleCounter(bias=bias, mechanism="randomized_response")
    t = Fraction(c._one)
    assert Fraction(1, 2) / (1 - t) <= 1 / (1 - Fraction(bias))   # e^epsilon, exactly
    assert t > Fraction(1, 2) or bias < 2.0**-52


def test_randomized_response_counter_draws_with_the_analysed_threshold_in_step_and_run():
    x = np.random.default_rng(1).integers(0, 2, 400)
    u = np.random.default_rng(6).random(400)
    c = SimpleCounter(50.0, rng=6, mechanism="randomized_response")   # before: t_1 = 1, ε = ∞
    assert implemented_probability((1 + c.bias) / 2) == 1 and c._one < 1
    ones = np.cumsum(u < np.where(x == 1, c._one, 0.5))
    assert np.array_equal(c.run(x), 2 * (ones - np.arange(1, 401) / 2) / c.bias)
    stepped = SimpleCounter(50.0, rng=6, mechanism="randomized_response")
    assert np.array_equal([stepped.step(int(b)) for b in x[:50]],
                          2 * (ones[:50] - np.arange(1, 51) / 2) / c.bias)


@pytest.mark.parametrize("epsilon", [1e-300, 1e-20, 3e-16])
def test_randomized_response_counter_at_tiny_epsilon_is_at_most_epsilon(epsilon):
    c = SimpleCounter(epsilon, mechanism="randomized_response")
    assert c.implemented_epsilon <= epsilon
