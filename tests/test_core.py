"""The streaming model (core) and the shared parameter checks (validation)."""
import math

import numpy as np
import pytest

from panpriv_teach import ContinualCounter, StreamAlgorithm, as_rng
from panpriv_teach.validation import (require_array, require_epsilon, require_in_universe,
                                      require_int, require_probability, require_real)


# as_rng -------------------------------------------------------------------------------
def test_same_seed_gives_the_same_draws_and_a_generator_is_passed_through():
    assert as_rng(7).random() == as_rng(7).random()
    generator = np.random.default_rng(1)
    assert as_rng(generator) is generator
    assert isinstance(as_rng(None), np.random.Generator)
    assert isinstance(as_rng(np.random.SeedSequence(3)), np.random.Generator)


def test_as_rng_never_touches_global_random_state():
    np.random.seed(0)
    before = np.random.get_state()[1].copy()
    as_rng(5).normal(size=10)
    as_rng(None).normal(size=10)
    assert np.array_equal(np.random.get_state()[1], before)


@pytest.mark.parametrize("bad, error, words", [
    (-1, ValueError, "non-negative"), (True, TypeError, "bool"), ("seed", TypeError, "str"),
    (np.random.RandomState(0), TypeError, "RandomState"), (1.5, TypeError, "float"),
])
def test_as_rng_rejects_what_is_not_a_seed(bad, error, words):
    with pytest.raises(error, match=words):
        as_rng(bad)


# StreamAlgorithm / ContinualCounter ------------------------------------------------------
class RunningSum(StreamAlgorithm):
    def __init__(self):
        self.total = 0

    def update(self, x):
        self.total += x

    def output(self):
        return self.total

    def state(self):
        return {"total": self.total}


class ExactPrefix(ContinualCounter):
    def __init__(self):
        self.epsilon = 1.0
        self.count = 0

    def _step(self, x):
        self.count += x
        return self.count

    def state(self):
        return {"count": self.count}


def test_default_process_is_repeated_update():
    algorithm = RunningSum()
    algorithm.process([1, 2, 3])
    assert algorithm.output() == 6 and algorithm.state() == {"total": 6}


def test_a_counter_releases_every_prefix_and_remembers_the_last():
    counter = ExactPrefix()
    assert counter.output() == 0.0
    assert counter.run([1, 0, 1, 1]).tolist() == [1, 1, 2, 3]
    assert counter.step(1) == 4 and counter.output() == 4
    counter.update(0)
    assert counter.output() == 4
    assert repr(counter) == "ExactPrefix(epsilon=1.0)"


def test_a_stream_algorithm_must_define_update_output_and_state():
    class Incomplete(StreamAlgorithm):
        def update(self, x):
            pass
    with pytest.raises(TypeError, match="abstract"):
        Incomplete()


# validation ------------------------------------------------------------------------------
@pytest.mark.parametrize("call, error, words", [
    (lambda: require_real("alpha", "x"), TypeError, r"alpha must be a real number.*'x'"),
    (lambda: require_real("alpha", True), TypeError, "alpha"),
    (lambda: require_real("alpha", math.nan), ValueError, "alpha"),
    (lambda: require_real("alpha", 2, low=0, high=1), ValueError, r"in \[0, 1\]; got 2"),
    (lambda: require_real("alpha", 0, low=0, low_open=True), ValueError, r"\(0, inf\)"),
    (lambda: require_int("T", 2.5), TypeError, "T must be an integer"),
    (lambda: require_int("T", 0, low=1), ValueError, r"T must be an integer in \[1, inf\)"),
    (lambda: require_epsilon(0), ValueError, r"epsilon must be a real number in \(0, inf\); got 0"),
    (lambda: require_epsilon(0.7, high=0.5, note="Claim 4.1 needs epsilon <= 1/2"), ValueError,
     r"\(0, 0.5\] \(Claim 4.1 needs epsilon <= 1/2\); got 0.7"),
    (lambda: require_probability("beta", 1.0), ValueError, r"beta must be a real number in \(0, 1\)"),
    (lambda: require_array("bits", [0, 2], allowed={0, 1}), ValueError, r"each entry of bits must be one of \[0, 1\]; got 2"),
    (lambda: require_array("bits", [0.5], integer=True), ValueError, "whole numbers"),
    (lambda: require_array("bits", ["a"]), TypeError, "bits must hold numbers"),
    (lambda: require_array("bits", [[0, 1]], ndim=1), ValueError, "1-dimensional"),
    (lambda: require_array("bits", [], nonempty=True), ValueError, "must not be empty"),
    (lambda: require_array("x", [1.0, np.inf]), ValueError, "finite"),
    (lambda: require_in_universe("stream", [0, 5], 5), ValueError, r"\[0, 4\].*got 5"),
])
def test_every_bad_value_is_named_with_its_valid_range(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_good_values_come_back_converted():
    assert require_int("T", np.int64(4)) == 4 and isinstance(require_int("T", np.int64(4)), int)
    assert require_real("x", 1) == 1.0
    assert require_array("bits", [True, False], allowed={0, 1}).tolist() == [1, 0]
    assert require_array("bits", [1.0, 0.0], allowed={0, 1}).dtype == np.int64
