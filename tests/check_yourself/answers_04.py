"""The numbers of lecture 04's Check yourself, computed (tests/test_lecture_shape.py reads them)."""
import math

from panpriv_teach.counters import BinaryTreeCounter, dyadic_intervals, nodes_containing, tree_levels
from panpriv_teach.lower_bounds import packing_bound, packing_condition


def q1():
    """Cum, T = 32, ε = 1: the variance of release 21, from its dyadic pieces (each Lap(L/ε))."""
    T, epsilon, t = 32, 1.0, 21
    scale = tree_levels(T) / epsilon
    pieces = len(dyadic_intervals(t, T))                      # [1, 16], [17, 20], {21}
    assert math.isclose(BinaryTreeCounter(T, epsilon).variance(t), pieces * 2 * scale**2, rel_tol=1e-3)
    return [pieces * 2 * scale**2]


def q2():
    """Noising the root too, still with Lap(L/ε): each step lies in L + 1 noisy nodes, T = 16."""
    T = 16
    per_step = {len(nodes_containing(i, T)) + 1 for i in range(1, T + 1)}   # its levels and the root
    assert per_step == {tree_levels(T) + 1}
    return [(tree_levels(T) + 1) / tree_levels(T)]            # the privacy, in units of ε


def q5():
    """Theorem 4.3 at ε = 1, T = 2^20, w = 11: blocks, the packing product, the error ruled out."""
    T, w, epsilon = 2**20, 11, 1.0
    blocks = T // w
    product = blocks * math.exp(-epsilon * w)
    assert math.isclose(packing_condition(T, w, epsilon), 0.5 * (1 + product))   # (1 + product)/2 > 1
    assert packing_bound(T, epsilon) == w / 2                 # and w = 12 fails: 5.5 is the largest
    return [blocks, product, w / 2]


ANSWERS = {1: q1, 2: q2, 5: q5}
