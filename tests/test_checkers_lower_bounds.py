"""Module 07's checkers beyond the mutation table (tests/checker_tables/lower_bounds.py):
the intruded algorithm that 7.6's answer gets can be pickled (the grader sends it to the
process running the answer) and cloned, its copies run, and its memory stays unreadable."""
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
