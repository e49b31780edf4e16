"""The strawmen that are NOT pan-private (keep the IDs, keep hashed IDs, keep a random sample
with exact bits, a Count-Min sketch), the dictionary attack that breaks them from their
state, and the Count-Min sketch's own accuracy guarantee.

Statistical tests use fixed seeds (deterministic); tolerances are stated at each test.
"""
import math
import pickle

import numpy as np
import pytest

from panpriv_teach.attacks import dictionary_attack
from panpriv_teach.audit import audit_pan_privacy
from panpriv_teach.density import DensityEstimator, SkipBlanks, blank_out
from panpriv_teach.sketches import CountMinSketch
from panpriv_teach.streams import dynamic_stream, frequencies, zipf_visitors
from panpriv_teach.strawmen import STRAWMEN, ExactSet, HashedIDs, SampledBits, keyed_hash

N = 1_000
EPSILON = 0.5
MAKERS = {
    "ExactSet": lambda rng: ExactSet(N, EPSILON, rng=rng),
    "HashedIDs": lambda rng: HashedIDs(N, EPSILON, rng=rng),
    "SampledBits": lambda rng: SampledBits(N, 500, EPSILON, rng=rng),
    "CountMinSketch": lambda rng: CountMinSketch(200, 3, N, rng=rng),
}


def visits_and_target(n=300, seed=1):
    visits = zipf_visitors(n, N, rng=np.random.default_rng(seed))
    return visits, int(visits[n // 3])


def test_every_strawman_is_listed_and_says_why_it_is_not_pan_private():
    assert {cls.__name__ for cls in STRAWMEN} == set(MAKERS)
    for cls in STRAWMEN:
        assert "pan-private" in cls.__doc__ and "not" in cls.__doc__.lower()


# ------------------------------------------------------------------ the dictionary attack

@pytest.mark.parametrize("name", ["ExactSet", "HashedIDs"])
def test_dictionary_attack_recovers_exactly_who_appeared(name):
    visits, _ = visits_and_target()
    alg = MAKERS[name](np.random.default_rng(2))
    alg.process(visits)
    assert np.array_equal(dictionary_attack(alg.state(), N), np.unique(visits))
    assert np.array_equal(dictionary_attack(alg.state(), [3, 999, *visits[:5]]),
                          np.intersect1d([3, 999, *visits[:5]], visits))


def test_hashed_ids_keep_no_id_in_the_clear_but_the_key_gives_them_away():
    visits, target = visits_and_target()
    alg = HashedIDs(N, EPSILON, rng=3)
    alg.process(visits)
    state = alg.state()
    assert not np.isin(np.unique(visits), state["hashes"].astype(np.int64)).any()
    assert keyed_hash(state["key"], target)[0] in state["hashes"]
    assert keyed_hash(b"another key 1234", target)[0] not in state["hashes"]


def test_dictionary_attack_on_sampled_bits_finds_exactly_the_sampled_users_who_appeared():
    visits, _ = visits_and_target()
    alg = SampledBits(N, 500, EPSILON, rng=4)
    alg.process(visits)
    assert np.array_equal(dictionary_attack(alg.state(), N), np.intersect1d(alg.M, visits))


def test_dictionary_attack_on_count_min_has_no_false_negatives():
    visits, _ = visits_and_target()
    sketch = CountMinSketch(200, 3, N, rng=5)
    sketch.process(visits)
    flagged = dictionary_attack(sketch.state(), N)
    assert np.isin(np.unique(visits), flagged).all()
    # false positives need a collision in all 3 rows: ≈ (distinct/200)^3 ≈ 0.06 of the others
    others = N - len(np.unique(visits))
    assert len(flagged) - len(np.unique(visits)) < 0.2 * others


def test_dictionary_attack_on_the_pan_private_state_learns_at_most_claim_4_1():
    # The same attack on DensityEstimator's state: among the representatives, a flagged user
    # (b = 1) appeared with posterior odds = prior odds × P_D1(1)/P_D0(1) = × (1 + ε/2).
    # Pooled over 200 runs (N = 2,000, m = 2,000, density 0.3, ε = 0.5): 600,000 bits; the
    # odds ratio 1.25 is estimated within ±0.03 (6 s.e.).
    rng = np.random.default_rng(6)
    n, eps = 2_000, 0.5
    appeared = np.zeros(n, bool)
    appeared[rng.permutation(n)[:600]] = True
    stream = np.flatnonzero(appeared)
    hits = np.zeros((2, 2))
    for _ in range(200):
        est = DensityEstimator(n, eps, m=n, rng=rng)
        est.process(stream)
        flagged = np.isin(np.arange(n), dictionary_attack(est.state(), n))
        hits += [[np.sum(flagged & appeared), np.sum(flagged & ~appeared)],
                 [np.sum(~flagged & appeared), np.sum(~flagged & ~appeared)]]
    odds_ratio = (hits[0, 0] / hits[0, 1]) / (hits[1, 0] / hits[1, 1])   # (b=1 odds) / (b=0 odds)
    likelihood = (0.5 + eps / 4) / 0.5
    assert abs(hits[0, 0] / hits[0, 1] / (600 / 1400) - likelihood) < 0.03
    assert odds_ratio == pytest.approx(likelihood / ((0.5 - eps / 4) / 0.5), abs=0.05)


def test_dictionary_attack_rejects_an_unknown_state():
    with pytest.raises(ValueError, match="'ids'.*got keys"):
        dictionary_attack({"value": 3}, 10)
    with pytest.raises(TypeError, match="state must be a dict"):
        dictionary_attack([1, 2], 10)
    with pytest.raises(ValueError, match="universe"):
        dictionary_attack({"ids": [1]}, 0)


# ------------------------------------------------------------------ audits flag every strawman

def member_feature(target):
    return lambda snapshot, output: [len(dictionary_attack(snapshot, [target]))]


@pytest.mark.parametrize("name", list(MAKERS))
def test_one_intrusion_breaks_every_strawman(name):
    # 400 runs per stream, the intrusion after the target's last visit, aligned neighbours
    # (blank_out). The target is flagged in every run with it (ExactSet, HashedIDs,
    # CountMinSketch) or in half of them (SampledBits: target in M w.p. 1/2), and without it
    # never (CountMinSketch: only by a collision in all 3 rows, P ≈ 3e-4). Clopper–Pearson on
    # 200 held-out runs: ε ≥ ln(0.39/0.03) > 2.5 in the worst case (SampledBits) — far above
    # any ε the output alone might claim.
    visits, target = visits_and_target()
    intrusion = int(np.flatnonzero(visits == target)[-1]) + 1
    result = audit_pan_privacy(lambda rng: SkipBlanks(MAKERS[name](rng)), visits,
                               blank_out(visits, target), intrusion, 400, member_feature(target), rng=7)
    assert result.epsilon_lower > 2.5, result


@pytest.mark.parametrize("name", ["ExactSet", "HashedIDs", "SampledBits"])
def test_the_output_alone_is_private(name):
    # The same pair, intrusion at time 0 (the empty state is the same on both streams): only
    # the ε-DP output differs. 4,000 runs, confidence 0.999: the bound is ≤ ε unless a 1e-3
    # event happens.
    visits, target = visits_and_target()
    result = audit_pan_privacy(lambda rng: SkipBlanks(MAKERS[name](rng)), visits,
                               blank_out(visits, target), 0, 4_000,
                               lambda snapshot, output: [output], confidence=0.999, rng=8)
    assert result.epsilon_lower <= EPSILON


def test_exact_set_memory_holds_the_canary():
    visits, _ = visits_and_target()
    alg = ExactSet(N, EPSILON, rng=9)
    alg.process(np.append(visits, 777))
    assert 777 in alg.state()["ids"] and (777).to_bytes(8, "little") in pickle.dumps(alg)


# ------------------------------------------------------------------ outputs and process ≡ update

@pytest.mark.parametrize("name", ["ExactSet", "HashedIDs", "SampledBits"])
def test_process_is_exactly_repeated_update(name):
    visits, _ = visits_and_target(100)
    a, b = MAKERS[name](np.random.default_rng(10)), MAKERS[name](np.random.default_rng(10))
    for x in visits:
        a.update(x)
    b.process(visits)
    for key, value in a.state().items():
        assert np.array_equal(value, b.state()[key])


@pytest.mark.parametrize("name, scale", [("ExactSet", 1 / (EPSILON * N)), ("SampledBits", 1 / (EPSILON * 500))])
def test_strawman_outputs_are_unbiased_with_laplace_noise_of_the_stated_scale(name, scale):
    # 4,000 releases from one state: mean within 6 s.e. of the true value, mean |noise|
    # (= the Laplace scale, s.e. scale/√4000) within 6 s.e.
    visits, _ = visits_and_target()
    alg = MAKERS[name](np.random.default_rng(11))
    alg.process(visits)
    truth = len(np.unique(visits)) / N if name == "ExactSet" else alg.b.mean()
    noise = np.array([alg.output() for _ in range(4_000)]) - truth
    assert abs(noise.mean()) <= 6 * math.sqrt(2) * scale / math.sqrt(4_000)
    assert abs(np.abs(noise).mean() / scale - 1) <= 6 / math.sqrt(4_000)


# ------------------------------------------------------------------ the Count-Min sketch

def test_count_min_never_underestimates_and_errs_beyond_e_over_w_rarely():
    # For each of 20 sketches (width 50, depth 3) of a 5,000-visit Zipf stream, every x of the
    # universe: estimate >= count, and estimate - count > (e/width)·||a||_1 for a fraction
    # <= e^-3 = 0.050 of the (sketch, x) pairs (Markov per row; measured ≈ 0.01; 20,000 pairs,
    # 6 s.e. of a 0.05 rate is 0.009).
    rng = np.random.default_rng(12)
    visits = zipf_visitors(5_000, N, rng=rng)
    counts = frequencies(visits, N)
    excess = []
    for _ in range(20):
        sketch = CountMinSketch(50, 3, N, rng=rng)
        sketch.process(visits)
        estimates = sketch.estimate(np.arange(N))
        assert np.all(estimates >= counts)
        excess.append(estimates - counts > math.e / 50 * len(visits))
    assert np.mean(excess) <= math.exp(-3) + 0.009


def test_count_min_with_accuracy_picks_width_and_depth():
    sketch = CountMinSketch.with_accuracy(0.01, 0.001, N, rng=0)
    assert (sketch.width, sketch.depth) == (272, 7)


def test_count_min_process_equals_update_and_handles_dynamic_updates():
    rng = np.random.default_rng(13)
    visits = zipf_visitors(500, N, rng=rng)
    a, b = CountMinSketch(64, 4, N, rng=1), CountMinSketch(64, 4, N, rng=1)
    for x in visits:
        a.update(x)
    b.process(visits)
    assert np.array_equal(a.counters, b.counters) and np.array_equal(a.output(), a.counters)
    updates = dynamic_stream(N, 50, rng=rng)
    c, d = CountMinSketch(64, 4, N, rng=2), CountMinSketch(64, 4, N, rng=2)
    c.process(updates)
    for x, delta in updates:
        d.update(x, delta)
    assert np.array_equal(c.counters, d.counters)
    assert np.all(c.estimate(np.arange(N)) >= frequencies(updates, N))


def test_count_min_state_exposes_counters_and_hash_parameters_and_can_be_rebuilt():
    sketch = CountMinSketch(64, 4, N, rng=3)
    sketch.process([5, 5, 9])
    state = sketch.state()
    assert {"counters", "a", "b", "prime", "width", "depth"} <= set(state)
    rebuilt = CountMinSketch.from_state(state)
    assert rebuilt.estimate(5) == sketch.estimate(5) == 2
    assert np.array_equal(rebuilt.buckets(np.arange(10)), sketch.buckets(np.arange(10)))
    state["counters"][:] = 0
    assert sketch.estimate(5) == 2                                   # a deep copy


# ------------------------------------------------------------------ bad input

@pytest.mark.parametrize("make, error, words", [
    (lambda: ExactSet(0, EPSILON), ValueError, "universe_size"),
    (lambda: ExactSet(N, 0.0), ValueError, "epsilon"),
    (lambda: HashedIDs(N, -1.0), ValueError, "epsilon"),
    (lambda: SampledBits(N, N + 1, EPSILON), ValueError, r"m must be an integer in \[1, 1000\]"),
    (lambda: CountMinSketch(0, 3, N), ValueError, "width"),
    (lambda: CountMinSketch(10, 3, 2 ** 32), ValueError, r"universe_size.*2\^31 - 1"),
    (lambda: CountMinSketch.with_accuracy(1.5, 0.1), ValueError, "error"),
])
def test_constructors_reject_bad_parameters(make, error, words):
    with pytest.raises(error, match=words):
        make()


@pytest.mark.parametrize("name", list(MAKERS))
def test_elements_outside_the_universe_are_rejected(name):
    alg = MAKERS[name](np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x must be an integer in \[0, 999\]"):
        alg.update(N)
    with pytest.raises(ValueError, match="got -3"):
        alg.process([1, -3])
    with pytest.raises(TypeError):
        alg.update("5")
