"""Tests for panpriv_teach.audit: exact ε by enumeration, honest lower confidence bounds on ε
from samples, and the pan-privacy audit against one intrusion (Roth 2011, Defs 2-3).

Statistical tests use fixed random seeds, so they are deterministic. Each "bound ≤ true ε" assertion
would fail for a random seed with probability ≤ 1 - confidence (the guarantee of
estimate_epsilon); they use confidence = 0.999, so ≤ 1e-3. The "bound is tight" and
"bound flags a leak" assertions leave margins of many standard errors (stated at each test).
"""
import hashlib
import math

import numpy as np
import pytest

from panpriv_teach.audit import AuditResult, audit_pan_privacy, estimate_epsilon, exact_epsilon
from panpriv_teach.core import StreamAlgorithm

LN3 = math.log(3)
N = 200_000     # samples per side: 100,000 choose the event, 100,000 test it


def laplace_outputs(true_value, scale, n, rng):
    return true_value + rng.laplace(0.0, scale, n)


def randomized_response(bit, n, rng):
    """Fair-coin RR: the true bit with probability 3/4, its flip with probability 1/4 (ε = ln 3)."""
    return np.where(rng.random(n) < 0.75, bit, 1 - bit)


# ----------------------------------------------------------------------------- exact_epsilon

def test_exact_epsilon_of_fair_coin_randomized_response_is_ln3():
    assert exact_epsilon({0: 0.75, 1: 0.25}, {0: 0.25, 1: 0.75}) == pytest.approx(LN3, abs=1e-12)


def test_exact_epsilon_of_identical_pmfs_is_zero():
    assert exact_epsilon([0.2, 0.3, 0.5], [0.2, 0.3, 0.5]) == 0.0


def test_exact_epsilon_is_infinite_when_supports_differ():
    assert exact_epsilon([0.5, 0.5, 0.0], [0.5, 0.25, 0.25]) == math.inf
    assert exact_epsilon({"yes": 1.0}, {"yes": 0.5, "no": 0.5}) == math.inf   # missing key = 0


def test_exact_epsilon_dict_and_array_forms_agree():
    p, q = [0.1, 0.6, 0.3], [0.2, 0.5, 0.3]
    from_dicts = exact_epsilon(dict(enumerate(p)), dict(enumerate(q)))
    assert from_dicts == exact_epsilon(np.array(p), np.array(q)) == pytest.approx(math.log(2))


@pytest.mark.parametrize("pmf_a, pmf_b, error, words", [
    ([0.5, 0.6], [0.5, 0.5], ValueError, "pmf_a must sum to 1"),
    ([0.5, 0.5], [1.5, -0.5], ValueError, "pmf_b must be non-negative"),
    ([0.5, 0.5], [0.2, 0.3, 0.5], ValueError, "lengths 2 and 3"),
    ({0: 1.0}, [1.0], TypeError, "both be dicts"),
    ([0.5, "0.5"], [0.5, 0.5], TypeError, "pmf_a must hold real probabilities"),
    ([0.5, float("nan")], [0.5, 0.5], ValueError, "pmf_a must be finite"),
    ([], [], ValueError, "pmf_a must not be empty"),
])
def test_exact_epsilon_rejects_bad_pmfs_naming_them(pmf_a, pmf_b, error, words):
    with pytest.raises(error, match=words):
        exact_epsilon(pmf_a, pmf_b)


# ----------------------------------------------------------------------------- estimate_epsilon: correct mechanisms

@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_laplace_bound_is_valid_and_tight(epsilon):
    # f(D) = 0, f(D') = 1, scale 1/ε: exactly ε-DP. Tightness: the best events have
    # P_b(E) ≥ e^-ε/2 ≥ 0.068, so with 10^5 held-out samples the Clopper–Pearson bounds cost
    # ≈ 0.03 in ε; 0.6ε leaves a margin of more than 5 such widths.
    rng = np.random.default_rng(20 + int(10 * epsilon))
    a = laplace_outputs(0.0, 1 / epsilon, N, rng)
    b = laplace_outputs(1.0, 1 / epsilon, N, rng)
    result = estimate_epsilon(a, b, confidence=0.999, rng=1)
    assert 0.6 * epsilon <= result.epsilon_lower <= epsilon


def test_randomized_response_bound_is_valid_and_tight():
    # Held-out frequencies 3/4 and 1/4 of 10^5: each CP bound is within 0.005, so the bound
    # is ≈ ln 3 - 0.03, far above 0.8 ln 3 = 0.88.
    rng = np.random.default_rng(3)
    result = estimate_epsilon(randomized_response(1, N, rng), randomized_response(0, N, rng),
                              confidence=0.999, rng=2)
    assert 0.8 * LN3 <= result.epsilon_lower <= LN3
    assert (result.event, result.favours) in {("x ∈ {1}", "a"), ("x ∈ {0}", "b")}


def test_identical_distributions_give_zero():
    # True ε = 0, so a positive bound would be a false alarm (probability ≤ 1e-3).
    rng = np.random.default_rng(4)
    result = estimate_epsilon(rng.normal(size=10_000), rng.normal(size=10_000),
                              confidence=0.999, rng=3)
    assert result.epsilon_lower == 0.0
    assert "no evidence of privacy loss" in str(result)


# ----------------------------------------------------------------------------- estimate_epsilon: broken mechanisms

def test_laplace_with_half_the_scale_is_flagged():
    # Claimed ε = 1 but scale 1/2: true ε = 2; the bound is ≈ 2 - 0.03 (see the tightness test).
    rng = np.random.default_rng(5)
    a, b = laplace_outputs(0.0, 0.5, N, rng), laplace_outputs(1.0, 0.5, N, rng)
    assert estimate_epsilon(a, b, rng=4).epsilon_lower > 1.0


def test_mechanism_that_leaks_the_true_value_with_small_probability_is_flagged():
    # With probability 0.01 output f(D) exactly, else f(D) + Lap(1): not DP at all. The atom
    # {x = 0} holds ~1,000 of 10^5 held-out a-samples and none of b's, so the bound is
    # ≈ ln(0.009 / 4.4e-5) ≈ 5.3, far above the nominal ε = 1.
    rng = np.random.default_rng(6)

    def leaky(true_value):
        out = laplace_outputs(true_value, 1.0, N, rng)
        out[rng.random(N) < 0.01] = true_value
        return out
    result = estimate_epsilon(leaky(0.0), leaky(1.0), rng=5)
    assert result.epsilon_lower > 3.0
    assert result.event == "x = 0"


def test_two_dimensional_samples_find_a_leak_only_the_joint_reveals():
    # (s, o) with s a fair bit and o = s XOR y, y = 1 w.p. 3/4 under a, 1/4 under b: each
    # coordinate is a fair bit under both (true ε = 0 for each alone), the pair has ε = ln 3.
    rng = np.random.default_rng(7)

    def pairs(p_flip):
        s = rng.integers(0, 2, N)
        return np.c_[s, s ^ (rng.random(N) < p_flip)]
    a, b = pairs(0.75), pairs(0.25)
    joint = estimate_epsilon(a, b, confidence=0.999, rng=6)
    assert 0.8 * LN3 <= joint.epsilon_lower <= LN3
    assert "x[0]" in joint.event and "x[1]" in joint.event
    for j in range(2):
        assert estimate_epsilon(a[:, j], b[:, j], confidence=0.999, rng=6).epsilon_lower == 0.0


def test_result_prints_the_bound_event_and_frequencies():
    rng = np.random.default_rng(8)
    result = estimate_epsilon(randomized_response(1, 1000, rng), randomized_response(0, 1000, rng), rng=0)
    assert isinstance(result, AuditResult)
    text = str(result)
    assert f"ε ≥ {result.epsilon_lower:.4f} at 95% confidence" in text
    assert "of 500) in samples_a" in text and "Clopper–Pearson" in text
    assert repr(result).startswith("AuditResult(epsilon_lower=")
    assert math.log(result.prob_lower / result.prob_upper) == pytest.approx(result.epsilon_lower)


def test_same_seed_gives_the_same_bound():
    rng = np.random.default_rng(9)
    a, b = rng.laplace(0, 1, 5000), rng.laplace(1, 1, 5000)
    assert estimate_epsilon(a, b, rng=11) == estimate_epsilon(a, b, rng=11)


@pytest.mark.parametrize("kwargs, error, words", [
    (dict(samples_a=np.zeros(50), samples_b=np.zeros(500)), ValueError, "at least 100 samples"),
    (dict(samples_a=np.zeros((500, 2)), samples_b=np.zeros((500, 3))), ValueError, "same kind and dimension"),
    (dict(samples_a=np.zeros(500), samples_b=np.r_[np.zeros(499), np.nan]), ValueError, "samples_b must be finite"),
    (dict(samples_a=np.zeros((500, 2, 2)), samples_b=np.zeros((500, 2, 2))), ValueError, "1-D"),
    (dict(samples_a=np.zeros(500), samples_b=np.zeros(500), confidence=1.0), ValueError, "confidence"),
    (dict(samples_a=np.zeros(500), samples_b=np.zeros(500), confidence="high"), TypeError, "confidence"),
    (dict(samples_a=np.zeros((500, 2)), samples_b=np.zeros((500, 2)), bins=1), ValueError, "bins"),
    (dict(samples_a=[None] * 500, samples_b=np.zeros(500)), TypeError, "samples_a"),
])
def test_estimate_epsilon_rejects_bad_input_naming_it(kwargs, error, words):
    with pytest.raises(error, match=words):
        estimate_epsilon(**kwargs)


# ----------------------------------------------------------------------------- audit_pan_privacy

# Elements are (user, bit) pairs, e.g. (visitor, clicked); the counters count the 1 bits.
# (Counting elements would not do: Def 3 intrudes at the same index i in both streams, and
# both prefixes of length i have i elements.)
EPSILON = 1.0
TARGET = 7
STREAM_A = [(3, 0), (1, 1), (TARGET, 1), (4, 0), (1, 1), (5, 0), (9, 1), (2, 0), (6, 1), (5, 0)]
STREAM_B = [e for e in STREAM_A if e[0] != TARGET]     # user-level neighbour (Def 2)
AFTER_TARGET = 5                                       # 3 ones in STREAM_A[:5], 2 in STREAM_B[:5]


class NoisyInitialCounter(StreamAlgorithm):
    """Counts the 1 bits. State: count + N, N ~ Lap(1/ε) drawn at the start; output: state +
    fresh Lap(1/ε). (state, output) ↔ (c_i + N, (c_T - c_i) + L) is a bijection onto two
    independent Laplace releases of sensitivity-1 counts. Removing a user with one element
    changes (c_i, c_T - c_i) by at most 1 in each coordinate (the element itself, and the
    element shifted across index i), so 2ε in general. For STREAM_A/STREAM_B and every
    intrusion time the L1 change is exactly 1 (the target's bit is 1; by hand:
    Δ(c_i, c_T - c_i) = (1, 0) for i = 3, 5, 7, 9 and (0, 1) otherwise), so the true
    pan-privacy ε for this pair is ε."""

    def __init__(self, epsilon, rng):
        self.epsilon, self._rng = epsilon, rng
        self._value = rng.laplace(0.0, 1 / epsilon)

    def update(self, x):
        self._value += x[1]

    def process(self, stream):
        self._value += sum(bit for _, bit in stream)

    def output(self):
        return self._value + self._rng.laplace(0.0, 1 / self.epsilon)

    def state(self):
        return {"value": self._value}


class ExactCounter(NoisyInitialCounter):
    """Private output, raw count in memory: not pan-private at all."""

    def __init__(self, epsilon, rng):
        super().__init__(epsilon, rng)
        self._value = 0.0


class HashedSet(StreamAlgorithm):
    """Keeps keyed hashes of the IDs seen and releases a noisy distinct count: the intruder
    reads the key from memory, hashes the target, and checks membership."""

    def __init__(self, epsilon, rng):
        self.epsilon, self._rng = epsilon, rng
        self._key, self._hashes = rng.bytes(16), set()

    def update(self, x):
        self._hashes.add(keyed_hash(self._key, x[0]))

    def output(self):
        return len(self._hashes) + self._rng.laplace(0.0, 1 / self.epsilon)

    def state(self):
        return {"key": self._key, "hashes": set(self._hashes)}


def keyed_hash(key, x):
    return int.from_bytes(hashlib.blake2b(str(x).encode(), key=key, digest_size=8).digest(), "big")


def target_is_member(snapshot, output):
    return [keyed_hash(snapshot["key"], TARGET) in snapshot["hashes"], output]


@pytest.mark.parametrize("intrusion_time", [0, 2, AFTER_TARGET, len(STREAM_B)])
def test_noisy_initial_counter_audit_stays_below_its_pan_privacy_epsilon(intrusion_time):
    # True pan-privacy ε for this pair and any intrusion time: EPSILON (class docstring).
    # Not vacuous: over 20 other seeds (t = 0, 5) the bound had mean 0.67, sd 0.09, min 0.47;
    # 0.3 is 4 sd below the mean.
    result = audit_pan_privacy(lambda rng: NoisyInitialCounter(EPSILON, rng), STREAM_A, STREAM_B,
                               intrusion_time, 4000, confidence=0.999, rng=intrusion_time)
    assert 0.3 * EPSILON <= result.epsilon_lower <= EPSILON
    assert result.intrusion_time == intrusion_time


def test_exact_counter_is_flagged_by_one_intrusion():
    # The state is 3 on STREAM_A, 2 on STREAM_B, always: with 500 held-out runs per side the
    # Clopper–Pearson bounds give ε ≥ ln((1 - 0.009) / 0.009) ≈ 4.7.
    result = audit_pan_privacy(lambda rng: ExactCounter(EPSILON, rng), STREAM_A, STREAM_B,
                               AFTER_TARGET, 1000, rng=12)
    assert result.epsilon_lower > 4.0
    assert "x[0] = 3" in result.event


def test_exact_counter_output_alone_stays_private_before_the_target_arrives():
    # Intrusion at t = 2 (before the target): both snapshots are 1; only the ε-DP output differs.
    result = audit_pan_privacy(lambda rng: ExactCounter(EPSILON, rng), STREAM_A, STREAM_B,
                               2, 2000, confidence=0.999, rng=13)
    assert result.epsilon_lower <= EPSILON


def test_hashed_set_is_flagged_by_testing_the_targets_hash():
    result = audit_pan_privacy(lambda rng: HashedSet(EPSILON, rng), STREAM_A, STREAM_B,
                               AFTER_TARGET, 1000, target_is_member, rng=14)
    assert result.epsilon_lower > 4.0
    assert result.freq_a == 1.0 and result.freq_b == 0.0


def test_each_run_gets_the_generator_default_rng_gives_its_child_seed():
    # run i on stream_a and run n_runs + i on stream_b get default_rng of the i-th and
    # (n_runs + i)-th children of the SeedSequence drawn from rng (the docstring's rng_i)
    seen = []
    audit_pan_privacy(lambda rng: seen.append(rng.bit_generator.state) or make_counter(rng),
                      STREAM_A, STREAM_B, 3, 100, rng=5)
    parent = np.random.default_rng(5).integers(2 ** 63, size=4)
    children = np.random.SeedSequence(parent).spawn(200)
    assert seen == [np.random.default_rng(child).bit_generator.state for child in children]


def test_default_features_refuse_a_state_that_is_not_numbers():
    with pytest.raises(TypeError, match=r"state\['key'\] is a bytes.*pass features="):
        audit_pan_privacy(lambda rng: HashedSet(EPSILON, rng), STREAM_A, STREAM_B, 3, 100, rng=0)


def make_counter(rng):
    return NoisyInitialCounter(EPSILON, rng)


@pytest.mark.parametrize("args, kwargs, error, words", [
    ((make_counter, STREAM_A, STREAM_B, 10, 100), {}, ValueError,
     r"intrusion_time must be an integer in \[0, 9\].*len\(stream_a\) = 10, len\(stream_b\) = 9"),
    ((make_counter, STREAM_A, STREAM_B, -1, 100), {}, ValueError, "intrusion_time"),
    ((make_counter, STREAM_A, STREAM_B, 2.5, 100), {}, TypeError, "intrusion_time"),
    ((make_counter, STREAM_A, STREAM_B, 3, 20), {}, ValueError, r"n_runs must be an integer in \[100"),
    (("counter", STREAM_A, STREAM_B, 3, 100), {}, TypeError, "make_algorithm must be a callable"),
    ((lambda rng: 42, STREAM_A, STREAM_B, 3, 100), {}, TypeError, "must return a StreamAlgorithm"),
    ((make_counter, STREAM_A, 5, 3, 100), {}, TypeError, "stream_b must be a sequence"),
    ((make_counter, STREAM_A, STREAM_B, 3, 100, "value"), {}, TypeError, "features must be None or a callable"),
    ((make_counter, STREAM_A, STREAM_B, 3, 100, lambda s, o: [o] * (1 + int(o > 5))), {},
     ValueError, "same positive number of values"),
    ((make_counter, STREAM_A, STREAM_B, 3, 100), {"confidence": 0}, ValueError, "confidence"),
])
def test_audit_pan_privacy_rejects_bad_input_naming_it(args, kwargs, error, words):
    with pytest.raises(error, match=words):
        audit_pan_privacy(*args, rng=0, **kwargs)
