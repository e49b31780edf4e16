"""Tests for panpriv_teach.ppcum (PPCum: Local-mechanisms notes, §3, after DNPR 2010): each test states
the claim it checks.

Statistical tests use fixed seeds; each comment gives the sample size and the tolerance.
Variance checks use 6 standard errors of the sample variance, SE = sigma^2 sqrt((kappa - 1)/R)
with kappa the exact kurtosis of a sum of k i.i.d. Laplace (3 + 3/k): two-sided normal tail
2e-9 per check.
"""
import math
import pickle
import struct

import numpy as np
import pytest

from panpriv_teach.core import ContinualCounter
from panpriv_teach.counters import BinaryTreeCounter, dyadic_intervals, tree_levels, tree_nodes
from panpriv_teach.noise import LaplaceNoise
from panpriv_teach.ppcum import (PanPrivateTreeCounter, coupling_shift, erased_nodes,
                                 exact_past_epsilon, kept_nodes, min_shift_cost, ppcum_view)


def _draws(T, epsilon, seed):
    """The noise PPCum draws from `seed`, in its documented order: N, then the nodes level by
    level, left to right (the order of `tree_nodes`)."""
    rng = np.random.default_rng(seed)
    L = tree_levels(T)
    laplace = LaplaceNoise(L + 1, epsilon)     # the float-safe Lap((L + 1)/epsilon)
    N = laplace.noise(None, rng)
    values = np.concatenate([laplace.noise(-(-T // 2**j), rng) for j in range(L)])
    return N, dict(zip(tree_nodes(T), values))


# ------------------------------------------------------------- the example of the Local-mechanisms notes, §3

def test_worked_example_n_4_releases_and_memory_after_step_3():
    # Local-mechanisms notes, §3: with n = 4 the releases are N + x1 + N_{1} + N_[1,2], N + x1 + x2 + N_{2} +
    # N_[1,2], N + x1 + x2 + x3 + N_{3} + N_[3,4]; the memory after step 3 holds
    # N + x1 + x2 + x3, N_[3,4], N_{4}. Noise from a known rng, every value compared.
    N, NI = _draws(4, 1.0, seed=2024)
    x = [1, 0, 1]
    counter = PanPrivateTreeCounter(4, 1.0, rng=2024)
    releases = [counter.step(v) for v in x]
    expected = [N + 1 + NI[(1, 1)] + NI[(1, 2)],
                N + 1 + 0 + NI[(2, 2)] + NI[(1, 2)],
                N + 1 + 0 + 1 + NI[(3, 3)] + NI[(3, 4)]]
    assert releases == pytest.approx(expected, abs=1e-12)
    state = counter.state()
    assert state["X"] == pytest.approx(N + 2, abs=1e-12)
    assert state["N_I"] == {(3, 4): NI[(3, 4)], (4, 4): NI[(4, 4)]}
    assert set(state) == {"t", "X", "N_I"} and state["t"] == 3


def test_worked_example_with_distinct_noise_values_reads_symbolically():
    # Noise values 10^k make each release a readable sum: N = 1e6, N_{i} = 10^i, N_[1,2] =
    # 1e5, N_[3,4] = 5e5; x = (1, 1, 1).
    NI = {(1, 1): 10.0, (2, 2): 100.0, (3, 3): 1000.0, (4, 4): 1e4, (1, 2): 1e5, (3, 4): 5e5}
    view = ppcum_view([1, 1, 1], 4, 1e6, NI)
    assert view["releases"].tolist() == [1e6 + 1 + 10 + 1e5, 1e6 + 2 + 100 + 1e5,
                                         1e6 + 3 + 1000 + 5e5]
    assert view["memory"] == {"t": 3, "X": 1e6 + 3, "N_I": {(3, 4): 5e5, (4, 4): 1e4}}


@pytest.mark.parametrize("T", [1, 2, 3, 4, 5, 8, 13, 16])
def test_release_at_t_uses_N_and_the_L_nodes_containing_t(T):
    N, NI = _draws(T, 0.7, seed=T)
    x = np.random.default_rng(T).integers(0, 2, T)
    counter = PanPrivateTreeCounter(T, 0.7, rng=T)
    for t in range(1, T + 1):
        release = counter.step(int(x[t - 1]))
        nodes = [I for I in tree_nodes(T) if I[0] <= t <= I[1]]
        assert len(nodes) == tree_levels(T)
        assert release == pytest.approx(N + x[:t].sum() + sum(NI[I] for I in nodes), abs=1e-9)
        assert set(counter.state()["N_I"]) == set(kept_nodes(t, T))


def test_kept_and_erased_nodes():
    assert kept_nodes(3, 4) == [(4, 4), (3, 4)]
    assert kept_nodes(0, 4) == tree_nodes(4)
    assert kept_nodes(4, 4) == []
    assert erased_nodes(4, 8) == [(4, 4), (3, 4), (1, 4)]
    assert erased_nodes(5, 8) == [(5, 5)]
    # every node inside [1, t] is erased by step t, and the others are kept
    for t in range(1, 17):
        gone = {I for s in range(1, t + 1) for I in erased_nodes(s, 16)}
        assert gone == {I for I in tree_nodes(16) if I[1] <= t}
        assert gone.isdisjoint(kept_nodes(t, 16))


# ----------------------------------------------------------------------------- accuracy

def test_release_variance_matches_formula_at_every_t():
    # Var(release_t) = 2 (L + 1)^3/eps^2 for every t. T = 8 (L = 3), eps = 0.5,
    # R = 20,000 counters. Kurtosis of a sum of 4 Laplace: 3.75, so SE/sigma^2 =
    # sqrt(2.75/R) = 1.17%: tolerance 6 SE = 7.0% (a (L/eps) scale would be 44% low).
    T, eps, R = 8, 0.5, 20_000
    x = np.array([1, 0, 1, 1, 0, 0, 1, 1])
    releases = np.array([PanPrivateTreeCounter(T, eps, rng=s).run(x) for s in range(R)])
    formula = 2 * (tree_levels(T) + 1) ** 3 / eps**2
    # the float-safe noise's exact variance is within 2^-10 of the Laplace formula
    assert PanPrivateTreeCounter(T, eps, rng=0).variance() == pytest.approx(formula, rel=2**-10)
    var = releases.var(axis=0, ddof=1)
    assert np.all(np.abs(var / formula - 1) < 6 * math.sqrt(2.75 / R)), var / formula
    # unbiased: mean within 6 SE of the true count
    assert np.all(np.abs(releases.mean(axis=0) - np.cumsum(x)) < 6 * math.sqrt(formula / R))


def test_ppcum_pays_a_constant_factor_over_cum_for_pan_privacy():
    # Cum's Var is 2 (L/eps)^2 k(t) with k(t) <= L; PPCum's 2 (L + 1)^3/eps^2 >= Cum's at
    # every t, and the ratio at t with k(t) = L is ((L+1)/L)^2 (L+1)/L.
    T, eps = 1024, 1.0
    pp, cum = PanPrivateTreeCounter(T, eps, rng=0), BinaryTreeCounter(T, eps, rng=0)
    t = np.arange(1, T + 1)
    assert np.all(pp.variance(t) >= cum.variance(t))
    L = tree_levels(T)
    assert pp.variance() / cum.variance(T - 1) == pytest.approx(((L + 1) / L) ** 3, rel=2**-10)


@pytest.mark.parametrize("T", [1, 2, 37, 64, 100])
def test_run_equals_repeated_step_and_leaves_the_same_memory(T):
    # run in random pieces (lengths 0..T, at every offset) against one step at a time
    x = np.random.default_rng(5).integers(0, 2, T)
    cuts = np.sort(np.random.default_rng(T).integers(0, T + 1, 6))
    a, b = PanPrivateTreeCounter(T, 0.3, rng=9), PanPrivateTreeCounter(T, 0.3, rng=9)
    for piece in np.split(np.arange(T), cuts):
        ra = np.array([a.step(int(v)) for v in x[piece]])
        rb = b.run(x[piece])
        assert ra.shape == rb.shape and np.allclose(ra, rb, atol=1e-9)
        sa, sb = a.state(), b.state()
        assert sa["t"] == sb["t"] and sa["X"] == pytest.approx(sb["X"]) and sa["N_I"] == sb["N_I"]
        for level_a, level_b in zip(a._N, b._N):          # erased entries are 0 in both
            assert np.array_equal(level_a == 0.0, level_b == 0.0)
    assert a.output() == pytest.approx(b.output())


# ----------------------------------------------------------------------------- erasure is real

def _float_bytes(value):
    return struct.pack("<d", value)


@pytest.mark.parametrize("mode", ["step", "run"])
def test_erased_noise_is_gone_from_the_pickled_object(mode):
    # After each step t, no erased N_I (nor the rng that drew it) survives anywhere in the
    # object: its 8 bytes are absent from the pickle, and vars() holds only X, the noise
    # arrays (erased entries overwritten with 0), t and the last (public) release.
    T = 16
    counter = PanPrivateTreeCounter(T, 1.0, rng=77)
    initial = counter.state()["N_I"]
    x = [1, 0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 1]
    for t in range(1, T + 1):
        if mode == "step":
            counter.step(x[t - 1])
        else:
            counter.run(x[t - 1:t])
        blob = pickle.dumps(counter)
        for node, value in initial.items():
            present = _float_bytes(value) in blob
            assert present == (node[1] > t), (t, node)
        assert set(vars(counter)) == {"T", "epsilon", "levels", "scale", "_noise_variance", "_X", "_N", "_t",
                                      "_last_release"}
        assert not any(isinstance(v, np.random.Generator) for v in vars(counter).values())
        assert sum(arr.size for arr in counter._N) == len(tree_nodes(T))   # no history grows
        assert all(counter._N[j][m] == 0.0 for j in range(counter.levels)
                   for m in range(t >> j))


def test_no_generator_is_kept_so_the_erased_draws_cannot_be_replayed():
    counter = PanPrivateTreeCounter(8, 1.0, rng=np.random.default_rng(3))
    blob = pickle.dumps(counter)
    assert b"PCG64" not in blob and b"bit_generator" not in blob


# ----------------------------------------------------------------------------- privacy (Thm 7)

@pytest.mark.parametrize("T", [4, 8, 13])
def test_coupling_makes_the_views_identical_for_every_j_and_t(T):
    # Thm 7's proof: x_j = 0, x'_j = 1; PPCum(x) with noise (N, N_I) and PPCum(x') with
    # N' = N - 1, N'_I = N_I + 1 on the nodes of [1, j - 1] give the same releases 1..t and
    # the same memory after t, for every j <= t.
    rng = np.random.default_rng(T)
    for trial in range(3):
        N = rng.laplace()
        NI = dict(zip(tree_nodes(T), rng.laplace(size=len(tree_nodes(T)))))
        base = rng.integers(0, 2, T)
        for j in range(1, T + 1):
            x, x2 = base.copy(), base.copy()
            x[j - 1], x2[j - 1] = 0, 1
            v = coupling_shift(j, T)
            assert len(v) == bin(j - 1).count("1") + 1
            N2 = N + v["N"]
            NI2 = {I: NI[I] + v.get(I, 0.0) for I in NI}
            for t in range(j, T + 1):
                a, b = ppcum_view(x, T, N, NI, t), ppcum_view(x2, T, N2, NI2, t)
                assert np.allclose(a["releases"], b["releases"], atol=1e-12)
                assert a["memory"]["X"] == pytest.approx(b["memory"]["X"], abs=1e-12)
                assert a["memory"]["N_I"] == b["memory"]["N_I"]


def test_coupling_cost_is_at_most_L_plus_1_so_thm_7_gives_epsilon():
    for T in [2, 4, 8, 16, 64]:
        L = tree_levels(T)
        assert max(sum(abs(c) for c in coupling_shift(j, T).values())
                   for j in range(1, T + 1)) == L + 1


@pytest.mark.parametrize("T, ratio", [(2, 1.0), (4, 1.0), (8, 1.0), (16, 0.8), (32, 5 / 6)])
def test_exact_privacy_for_the_past_is_at_most_epsilon(T, ratio):
    # The exact epsilon of Def 6 (cheapest noise shift, by LP): epsilon itself for n <= 8,
    # below it from n = 16 (a cheaper shift than the proof's exists).
    assert exact_past_epsilon(T, 0.5) == pytest.approx(0.5 * ratio, abs=1e-9)


def test_exact_cost_matches_the_proof_for_n_4_and_beats_it_at_n_16():
    assert [min_shift_cost(j, 4, 4) for j in range(1, 5)] == [1, 2, 2, 3]
    assert min_shift_cost(8, 8, 16) == 3          # [1, 7] = [1, 8] - {8}: 2 shifts, plus N
    assert len(coupling_shift(8, 16)) == 4        # the proof's: [1,4], [5,6], {7}, plus N
    assert min_shift_cost(3, 2, 4) == 0           # x_3 not yet read at t = 2


def test_exact_epsilon_for_n_2_closed_form():
    # n = 2, L = 1, 1/eta = 2/eps. View after t = 2 is (N + N_{1} + x1, N + x1 + x2,
    # N_{2} + ...): changing x2 needs N -1 and N_{1} +1 (cost 2: eps); changing x1 needs N -1
    # (cost 1: eps/2). Exact: eps.
    assert min_shift_cost(2, 2, 2) == 2 and min_shift_cost(1, 2, 2) == 1
    assert exact_past_epsilon(2, 1.0) == pytest.approx(1.0)


def test_a_counter_that_forgets_to_erase_is_not_private_and_leaks_the_stream():
    # Broken variant: keep every N_I. Exact epsilon is infinite, and indeed the intruder
    # subtracts the noise from each release and reads every x_t.
    assert exact_past_epsilon(8, 1.0, erase=False) == math.inf
    T = 8
    N, NI = _draws(T, 1.0, seed=4)
    x = np.array([0, 1, 1, 0, 1, 0, 0, 1])
    releases = ppcum_view(x, T, N, NI)["releases"]
    prefix = [releases[t - 1] - sum(NI[I] for I in tree_nodes(T) if I[0] <= t <= I[1])
              for t in range(1, T + 1)]                 # = N + x_1 + ... + x_t
    assert np.allclose(np.diff(prefix), x[1:])


def test_not_pan_private_for_the_future_an_intruder_who_keeps_watching_reads_every_later_bit():
    # After an intrusion at t, the memory holds the noise of every node after t: release s
    # minus those nodes' noise is X_s, and X_s - X_{s-1} = x_s exactly.
    T, t = 16, 5
    x = np.random.default_rng(1).integers(0, 2, T)
    counter = PanPrivateTreeCounter(T, 1.0, rng=11)
    counter.run(x[:t])
    seen = counter.state()
    later = counter.run(x[t:])
    X = [seen["X"]] + [later[s - t - 1] - sum(v for I, v in seen["N_I"].items() if I[0] <= s <= I[1])
                       for s in range(t + 1, T + 1)]
    assert np.allclose(np.diff(X), x[t:])


# ----------------------------------------------------------------------------- bad input

def test_is_a_continual_counter():
    assert isinstance(PanPrivateTreeCounter(4, 1.0), ContinualCounter)
    assert "PanPrivateTreeCounter(T=4, epsilon=1.0)" == repr(PanPrivateTreeCounter(4, 1.0))


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(T=0, epsilon=1.0), ValueError, "T must be an integer in \\[1, inf\\).*got 0"),
    (dict(T=2.5, epsilon=1.0), TypeError, "T must be an integer"),
    (dict(T=4, epsilon=0.0), ValueError, "epsilon must be a real number in \\(0, inf\\)"),
    (dict(T=4, epsilon="1"), TypeError, "epsilon"),
    (dict(T=4, epsilon=1.0, rng=-1), ValueError, "rng"),
])
def test_bad_parameters_are_rejected_naming_parameter_and_range(kwargs, error, words):
    with pytest.raises(error, match=words):
        PanPrivateTreeCounter(**kwargs)


def test_bad_stream_elements_and_too_many_steps_are_rejected():
    c = PanPrivateTreeCounter(3, 1.0, rng=0)
    with pytest.raises(ValueError, match="x must be 0 or 1"):
        c.step(2)
    with pytest.raises(TypeError, match="x must be 0 or 1"):
        c.step("1")
    with pytest.raises(ValueError, match="each entry of stream must be 0 or 1.*0.5 at index 1"):
        c.run([1, 0.5])
    c.run([1, 1, 1])
    with pytest.raises(ValueError, match="T = 3 is the number of steps.*t = 4"):
        c.step(0)
    with pytest.raises(ValueError, match="N_I must be a dict with one value per node"):
        PanPrivateTreeCounter.from_noise(4, 1.0, 0.0, {(1, 1): 0.0})
    with pytest.raises(ValueError, match="j must be an integer in \\[1, 4\\]"):
        coupling_shift(5, 4)
    with pytest.raises(ValueError, match="t must be an integer in \\[0, 4\\]"):
        kept_nodes(5, 4)
