"""Tests for panpriv_teach.streams: generators and the neighbouring relations.

Statistical tests use fixed seeds; each comment gives the sample size and the probability
that a correct generator fails.
"""
import math

import numpy as np
import pytest

from panpriv_teach.streams import (bit_stream, dynamic_stream, event_neighbours, frequencies,
                                   remove_user, sparse_bit_stream, user_neighbours,
                                   zipf_probabilities, zipf_visitors)


# ------------------------------------------------------------------------- generators

def test_zipf_visitors_are_int64_ids_in_the_universe():
    visits = zipf_visitors(5_000, 300, rng=0)
    assert visits.shape == (5_000,) and visits.dtype == np.int64
    assert visits.min() >= 0 and visits.max() < 300
    assert zipf_visitors(0, 10, rng=0).shape == (0,)


def test_zipf_rank_one_share_matches_theory():
    # n = 100,000 visits, U = 1,000, s = 1.1; the rank-1 count is Binomial(n, p1):
    # 6 SE, false failure 2e-9.
    n, U, s = 100_000, 1_000, 1.1
    visits, ids_by_rank = zipf_visitors(n, U, s, rng=1, return_ranking=True)
    p = zipf_probabilities(U, s)
    assert p[0] == pytest.approx(1 / np.sum(np.arange(1, U + 1) ** -s))
    share = np.mean(visits == ids_by_rank[0])
    assert abs(share - p[0]) < 6 * math.sqrt(p[0] * (1 - p[0]) / n)


def test_zipf_frequencies_decrease_with_rank():
    # n = 100,000: counts by rank, pooled in blocks of ranks 1, 2-3, 4-7, ..., decrease
    # (the expected gaps are > 20 SE, so a correct generator essentially never fails),
    # and the total count of each block is within 6 SE of its Binomial expectation.
    n, U, s = 100_000, 1_024, 1.1
    visits, ids_by_rank = zipf_visitors(n, U, s, rng=2, return_ranking=True)
    by_rank = frequencies(visits, U)[ids_by_rank]
    p = zipf_probabilities(U, s)
    edges = 2 ** np.arange(11)
    per_rank = [by_rank[a - 1:b - 1].mean() for a, b in zip(edges[:-1], edges[1:])]
    assert all(x > y for x, y in zip(per_rank, per_rank[1:]))
    for a, b in zip(edges[:-1], edges[1:]):
        q = p[a - 1:b - 1].sum()
        assert abs(by_rank[a - 1:b - 1].sum() - n * q) < 6 * math.sqrt(n * q * (1 - q))


def test_zipf_ids_are_a_random_permutation_of_ranks():
    _, ranking = zipf_visitors(10, 50, rng=3, return_ranking=True)
    assert sorted(ranking.tolist()) == list(range(50))
    _, other = zipf_visitors(10, 50, rng=4, return_ranking=True)
    assert not np.array_equal(ranking, other)  # the permutation depends on the random seed


def test_zipf_exponent_zero_is_uniform():
    np.testing.assert_allclose(zipf_probabilities(8, 0.0), np.full(8, 1 / 8))


def test_bit_stream_has_the_requested_density():
    # T = 100,000; SE = sqrt(0.3 * 0.7 / T); 6 SE: false failure 2e-9
    bits = bit_stream(100_000, 0.3, rng=5)
    assert bits.dtype == np.int64 and set(np.unique(bits)) <= {0, 1}
    assert abs(bits.mean() - 0.3) < 6 * math.sqrt(0.21 / 100_000)
    assert bit_stream(50, 0.0, rng=0).sum() == 0 and bit_stream(50, 1.0, rng=0).sum() == 50


def test_sparse_bit_stream_has_exactly_n_ones():
    for T, k in ((1_000, 0), (1_000, 7), (1_000, 1_000), (0, 0)):
        bits = sparse_bit_stream(T, k, rng=6)
        assert bits.shape == (T,) and bits.dtype == np.int64 and bits.sum() == k
        assert set(np.unique(bits)) <= {0, 1}


def test_sparse_bit_stream_positions_are_uniform():
    # 4,000 streams of T = 10 with 1 one: each position has count Binomial(4000, 1/10);
    # 6 SE each: false failure < 1e-7
    rng = np.random.default_rng(7)
    positions = [np.argmax(sparse_bit_stream(10, 1, rng=rng)) for _ in range(4_000)]
    counts = np.bincount(positions, minlength=10)
    assert np.all(np.abs(counts - 400) < 6 * math.sqrt(4_000 * 0.1 * 0.9))


def test_dynamic_stream_has_shape_k_by_2_and_plus_minus_one_updates():
    updates = dynamic_stream(500, 100, rng=8, leave_probability=0.5, max_visits=3)
    assert updates.ndim == 2 and updates.shape[1] == 2 and updates.dtype == np.int64
    assert set(np.unique(updates[:, 1])) <= {-1, 1}
    assert updates[:, 0].min() >= 0 and updates[:, 0].max() < 500
    assert len(np.unique(updates[:, 0])) == 100  # n_users distinct IDs


def test_dynamic_stream_counts_are_never_negative_at_any_prefix():
    for seed in range(5):
        updates = dynamic_stream(60, 40, rng=seed, leave_probability=0.7, max_visits=4)
        one_hot = np.zeros((len(updates), 60), dtype=np.int64)
        one_hot[np.arange(len(updates)), updates[:, 0]] = updates[:, 1]
        prefix_states = np.cumsum(one_hot, axis=0)  # a^(t) for every t
        assert prefix_states.min() >= 0
        assert prefix_states.max() <= 4  # a_i <= Z = max_visits
        np.testing.assert_array_equal(prefix_states[-1], frequencies(updates, 60))


def test_dynamic_stream_extremes_of_leave_probability():
    stays = dynamic_stream(100, 30, rng=9, leave_probability=0.0)
    assert len(stays) == 30 and np.all(stays[:, 1] == 1)
    leaves = dynamic_stream(100, 30, rng=9, leave_probability=1.0)
    assert len(leaves) == 60 and np.all(frequencies(leaves, 100) == 0)


def test_frequencies_of_a_plain_stream_is_its_histogram():
    np.testing.assert_array_equal(frequencies([0, 2, 2, 4], 5), [1, 0, 2, 0, 1])
    np.testing.assert_array_equal(frequencies([[1, 1], [1, 1], [3, 1], [1, -1]], 4),
                                  [0, 1, 0, 1])


# ------------------------------------------------------------------------- neighbours

def test_remove_user_removes_exactly_x_and_keeps_the_order_of_the_rest():
    stream = np.array([3, 1, 3, 2, 0, 3, 1])
    np.testing.assert_array_equal(remove_user(stream, 3), [1, 2, 0, 1])
    np.testing.assert_array_equal(remove_user(stream, 4), stream)  # absent user: unchanged
    visits = zipf_visitors(2_000, 50, rng=10)
    x = visits[0]
    removed = remove_user(visits, x)
    assert x not in removed and len(removed) == np.sum(visits != x)
    np.testing.assert_array_equal(removed, visits[visits != x])


def test_remove_user_on_a_dynamic_stream_removes_every_update_of_x():
    updates = dynamic_stream(20, 10, rng=11, max_visits=3)
    x = updates[0, 0]
    removed = remove_user(updates, x)
    assert removed.shape[1] == 2 and x not in removed[:, 0]
    a, a_removed = frequencies(updates, 20), frequencies(removed, 20)
    assert a_removed[x] == 0
    np.testing.assert_array_equal(np.delete(a, x), np.delete(a_removed, x))


def deleting(stream, x):
    return [s for s in stream if s != x]


def test_user_neighbour_without_replacement_is_x_adjacent():
    # Dwork 2010, §3: deleting all occurrences of x from S and S' gives identical streams
    stream = zipf_visitors(500, 20, rng=12)
    for x in range(20):
        neighbour = user_neighbours(stream, x)
        assert deleting(neighbour, x) == deleting(stream, x)
        assert x not in neighbour


def test_user_neighbour_with_replacement_is_section_5_adjacent_and_not_x_adjacent():
    stream = np.array([1, 0, 1, 2, 1])
    neighbour = user_neighbours(stream, 1, replacement=2)
    np.testing.assert_array_equal(neighbour, [2, 0, 2, 2, 2])
    assert len(neighbour) == len(stream)  # §5: same length
    changed = np.flatnonzero(neighbour != stream)
    assert set(stream[changed]) == {1} and set(neighbour[changed]) == {2}  # S|_{T: x -> x'}
    assert deleting(neighbour, 1) != deleting(stream, 1)  # not X-adjacent (§3) ...
    middle = remove_user(stream, 1)  # ... but two X-adjacency steps: S -> S^{-x} -> S'
    assert deleting(middle, 1) == deleting(stream, 1)
    assert deleting(middle, 2) == deleting(neighbour, 2)


def test_user_neighbour_random_replacement_differs_from_x_and_is_in_the_universe():
    stream = np.array([0, 1, 2, 1, 3])
    rng = np.random.default_rng(13)
    seen = set()
    for _ in range(200):
        neighbour = user_neighbours(stream, 1, "random", rng=rng, universe_size=5)
        new = set(neighbour[stream == 1])
        assert len(new) == 1 and new.pop() in {0, 2, 3, 4}
        seen.add(int(neighbour[1]))
        np.testing.assert_array_equal(neighbour[stream != 1], stream[stream != 1])
    assert seen == {0, 2, 3, 4}


def test_user_neighbour_on_a_dynamic_stream_is_a_mir_et_al_def_4_neighbour():
    # Def 4: the updates of i become updates of j != i with the same total; all else equal
    updates = dynamic_stream(30, 12, rng=14, max_visits=3)
    i = updates[0, 0]
    j = next(u for u in range(30) if u not in updates[:, 0])
    neighbour = user_neighbours(updates, i, replacement=j, universe_size=30)
    a, b = frequencies(updates, 30), frequencies(neighbour, 30)
    assert b[j] == a[i] and b[i] == 0
    np.testing.assert_array_equal(np.delete(a, [i, j]), np.delete(b, [i, j]))
    np.testing.assert_array_equal(neighbour[:, 1], updates[:, 1])  # deltas kept


def test_event_neighbour_flips_exactly_one_bit():
    bits = sparse_bit_stream(100, 10, rng=15)
    for t in (0, 37, 99):
        neighbour = event_neighbours(bits, t)
        assert len(neighbour) == len(bits)
        assert np.flatnonzero(neighbour != bits).tolist() == [t]
        assert neighbour[t] == 1 - bits[t]
    assert bits.sum() == 10  # the input is not modified


def test_event_neighbour_changes_one_element_to_the_given_or_a_random_value():
    stream = np.array([4, 4, 1, 0])
    np.testing.assert_array_equal(event_neighbours(stream, 1, value=2), [4, 2, 1, 0])
    for seed in range(20):
        neighbour = event_neighbours(stream, 0, "random", rng=seed, universe_size=6)
        assert np.flatnonzero(neighbour != stream).tolist() == [0]
        assert 0 <= neighbour[0] < 6


def test_event_neighbour_on_a_dynamic_stream_changes_one_update_id_and_keeps_its_delta():
    # Mir et al. 2011, §5: event (i_k, d_k) replaced by (j, d_k), j != i_k
    updates = dynamic_stream(20, 10, rng=16)
    neighbour = event_neighbours(updates, 2, value="random", rng=0, universe_size=20)
    diff = np.flatnonzero(np.any(neighbour != updates, axis=1))
    assert diff.tolist() == [2]
    assert neighbour[2, 1] == updates[2, 1] and neighbour[2, 0] != updates[2, 0]


# ------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("call, error, match", [
    (lambda: zipf_visitors(-1, 10), ValueError, "n"),
    (lambda: zipf_visitors(10, 0), ValueError, "universe_size"),
    (lambda: zipf_visitors(10, 10, exponent=-0.5), ValueError, "exponent"),
    (lambda: zipf_visitors(10.5, 10), TypeError, "n"),
    (lambda: bit_stream(-3, 0.5), ValueError, "T"),
    (lambda: bit_stream(10, 1.5), ValueError, "density"),
    (lambda: bit_stream(10, -0.1), ValueError, "density"),
    (lambda: sparse_bit_stream(10, 11), ValueError, "n_ones"),
    (lambda: sparse_bit_stream(10, -1), ValueError, "n_ones"),
    (lambda: sparse_bit_stream(-10, 0), ValueError, "T"),
    (lambda: dynamic_stream(0, 0), ValueError, "universe_size"),
    (lambda: dynamic_stream(10, 11), ValueError, "n_users"),
    (lambda: dynamic_stream(10, 5, leave_probability=2), ValueError, "leave_probability"),
    (lambda: dynamic_stream(10, 5, max_visits=0), ValueError, "max_visits"),
    (lambda: frequencies([0, 5], 5), ValueError, "updates"),
    (lambda: frequencies(np.zeros((3, 3), int), 5), ValueError, "updates"),
    (lambda: frequencies([0, 1], -1), ValueError, "universe_size"),
    (lambda: remove_user([0, 1, 2], -1), ValueError, "x"),
    (lambda: remove_user([0, 1, 2], 3, universe_size=3), ValueError, "x"),
    (lambda: remove_user([0, -1, 2], 0), ValueError, "stream"),
    (lambda: remove_user([0, 1.5], 0), ValueError, "stream"),
    (lambda: remove_user(np.zeros((2, 2, 2), int), 0), ValueError, "stream"),
    (lambda: user_neighbours([0, 1], 1, replacement=1), ValueError, "replacement"),
    (lambda: user_neighbours([0, 1], 1, replacement=7, universe_size=3), ValueError,
     "replacement"),
    (lambda: user_neighbours([0, 1], 1, replacement="random"), ValueError, "universe_size"),
    (lambda: user_neighbours([0, 1], 1, replacement="other"), TypeError, "replacement"),
    (lambda: user_neighbours([0, 9], 1, universe_size=5), ValueError, "stream"),
    (lambda: event_neighbours([0, 1, 0], 3), ValueError, "t"),
    (lambda: event_neighbours([0, 1, 0], -1), ValueError, "t"),
    (lambda: event_neighbours([], 0), ValueError, "stream"),
    (lambda: event_neighbours([0, 2, 0], 1), ValueError, "value"),
    (lambda: event_neighbours([0, 2, 0], 1, value=2), ValueError, "value"),
    (lambda: event_neighbours([0, 2, 0], 1, value=5, universe_size=4), ValueError, "value"),
    (lambda: event_neighbours([[0, 1]], 0), ValueError, "value"),
])
def test_bad_input_raises_naming_the_parameter(call, error, match):
    with pytest.raises(error, match=rf"\b{match}\b"):  # the parameter, as a word
        call()


def test_generators_are_reproducible_and_leave_global_state_alone():
    np.random.seed(1)
    before = np.random.random()
    np.random.seed(1)
    np.testing.assert_array_equal(zipf_visitors(100, 30, rng=5), zipf_visitors(100, 30, rng=5))
    np.testing.assert_array_equal(dynamic_stream(30, 10, rng=5), dynamic_stream(30, 10, rng=5))
    bit_stream(10, 0.5, rng=1)
    sparse_bit_stream(10, 3, rng=1)
    assert np.random.random() == before
