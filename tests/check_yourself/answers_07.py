"""The numbers of lecture 07's *Check yourself*, computed (tests/test_lecture_shape.py matches them
against the bold numbers of each answer at their printed precision)."""
import math

from panpriv_teach.lower_bounds import packing_bound
from panpriv_teach.mechanisms import RandomizedResponse


def q1():
    """Theorem 7.1 with n = 2,000 and E = 4: at most 4E rows wrong, and that fraction in %."""
    n, E = 2_000, 4
    return [4 * E, 100 * 4 * E / n]


def q2():
    """The packing at T = 1,000, ε = 1: ⌊T/w⌋e^(−εw) at w = 5 and 6, and the error ruled out."""
    T, epsilon = 1_000, 1.0
    side = [(T // w) * math.exp(-epsilon * w) for w in (5, 6)]
    return side + [packing_bound(T, epsilon)]


def q4():
    """Randomized response at ε = 4 on n = 10,000 bits: its sd, √n/ε, the factor between
    them (which an Ω bound's constant absorbs), and √n·e^(−ε/2)."""
    n, epsilon = 10_000, 4.0
    sd = RandomizedResponse.from_epsilon(epsilon).std(n)
    return [sd, math.sqrt(n) / epsilon, math.sqrt(n) / epsilon / sd,
            math.sqrt(n) * math.exp(-epsilon / 2)]


ANSWERS = {1: q1, 2: q2, 4: q4}
