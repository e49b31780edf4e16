"""The numbers of lecture 05's Check yourself, computed (tests/test_lecture_shape.py)."""
from panpriv_teach.continual import claim_7_1
from panpriv_teach.counters import tree_levels
from panpriv_teach.ppcum import kept_nodes


def q1():
    """PPCum at T = 16, ε = 1: the scale s = (L + 1)/ε and the variance (L + 1)·2s²."""
    L, epsilon = tree_levels(16), 1.0
    s = (L + 1) / epsilon
    return [s, (L + 1) * 2 * s**2]


def q2():
    """The node noises PPCum still holds after step 5 of T = 8."""
    return [len(kept_nodes(5, 8))]


def q5():
    """Claim 5.1 at ε = 0.2: P(y_t = 1) at a first and at a repeat appearance."""
    law = claim_7_1(0.2)
    return [law["first appearance"], law["repeat appearance"]]


ANSWERS = {1: q1, 2: q2, 5: q5}
