"""The numbers of lecture 01's Check yourself, computed (tests/test_lecture_shape.py reads them)."""
from panpriv_teach.mechanisms import exponential_mechanism_probabilities


def q1():
    """Sum of ages capped at 100: one person adds or removes at most 100; Lap(Δ/ε)."""
    cap, epsilon = 100, 0.5
    sensitivity = cap
    return [sensitivity, sensitivity / epsilon]


def q2():
    """10 counting queries share ε = 1 (basic composition): each count gets ε/10."""
    total, queries, sensitivity = 1.0, 10, 1
    return [sensitivity / (total / queries)]


def q4():
    """Expected number of the 1,000 rows published in full, each with probability δ."""
    return [1_000 * 0.001]


def q5():
    """P(fever) between fever (412) and cough (398), Δu = 1, ε = 0.1."""
    return [exponential_mechanism_probabilities([412, 398], 1, 0.1)[0]]


ANSWERS = {1: q1, 2: q2, 4: q4, 5: q5}
