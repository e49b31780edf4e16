"""Module 07's checkers beyond the mutation table (tests/checker_tables/lower_bounds.py):
the intruded algorithm that 7.6's answer gets can be pickled (the grader sends it to the
process running the answer) and cloned, its copies run, and its memory stays unreadable, even
through vars() and deep copies; it can be copied only as often as the attack has queries."""
import copy
import pickle

import numpy as np
import pytest

from panpriv_teach.exercises.harness import SealedAlgorithm
from panpriv_teach.intrusion import AccurateDistinctCount, clone_with_fresh_coins


def intruded():
    algorithm = AccurateDistinctCount(8, 1.0, rng=1)
    algorithm.process(np.array([1, 3]))
    return SealedAlgorithm(algorithm)


def test_the_sealed_algorithm_survives_pickling_and_cloning():
    sealed = pickle.loads(pickle.dumps(intruded()))
    copy = clone_with_fresh_coins(sealed, np.random.default_rng(0))
    copy.process(np.array([0, 1]))
    outputs = [copy.output() for _ in range(2000)]
    assert abs(np.mean(outputs) - 3) < 0.2      # D = |{0, 1, 3}|, Lap(1) noise: s.e. 0.03
    assert sealed.universe_size == 8 and repr(sealed) == "algorithm"


@pytest.mark.parametrize("read", [lambda a: a.seen, lambda a: a.state(), lambda a: a._rng])
def test_the_sealed_algorithms_memory_cannot_be_read(read):
    with pytest.raises((AttributeError, PermissionError), match="releases alone"):
        read(intruded())


def test_a_query_stream_cannot_run_on_the_original():
    with pytest.raises(PermissionError, match="algorithm itself"):
        intruded().process(np.array([2]))


def test_neither_vars_nor_a_deep_copy_shows_the_algorithm():
    sealed = intruded()
    for obj in (sealed, copy.deepcopy(sealed)):
        assert not [v for v in vars(obj).values() if isinstance(v, AccurateDistinctCount)]
        assert not [v for v in vars(obj).values() if hasattr(v, "seen")]
    with pytest.raises(AttributeError, match="releases alone"):
        copy.deepcopy(sealed)._SealedAlgorithm__algorithm


def test_the_copies_come_from_the_attackers_rng():
    """clone_with_fresh_coins finds the generators (not the memory) and replaces them: two
    copies made from identically seeded rngs release the same noise."""
    sealed = intruded()
    outputs = [clone_with_fresh_coins(sealed, np.random.default_rng(5)).output() for _ in range(2)]
    other = clone_with_fresh_coins(sealed, np.random.default_rng(6)).output()
    assert outputs[0] == outputs[1] != other


def test_copies_beyond_the_allowed_number_are_refused_even_after_pickling():
    algorithm = AccurateDistinctCount(8, 1.0, rng=1)
    sealed = pickle.loads(pickle.dumps(SealedAlgorithm(algorithm, copies=3)))
    first = clone_with_fresh_coins(sealed, np.random.default_rng(0))
    copy.deepcopy(first)                       # a copy of a copy counts too
    clone_with_fresh_coins(sealed, np.random.default_rng(1))
    with pytest.raises(PermissionError, match="more copies of the algorithm than the 3"):
        copy.deepcopy(first)
