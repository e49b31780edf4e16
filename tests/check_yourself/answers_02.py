"""The numbers of lecture 02's Check yourself, computed (tests/test_lecture_shape.py reads them)."""
import math

from panpriv_teach.mechanisms import RandomizedResponse


def q1():
    """Posterior after a "yes" with Warner's fair coins: P(yes | 1) = 3/4, P(yes | 0) = 1/4."""
    prior = 0.2
    return [prior * 3 / 4 / (prior * 3 / 4 + (1 - prior) / 4)]


def q2():
    """The bias whose exact privacy ln((1 + b)/(1 − b)) is 1."""
    return [RandomizedResponse.from_epsilon(1.0).bias]


def q3():
    """RR's sd with fair coins on 10,000 parties, and Lap(1/ln 3)'s sd."""
    return [RandomizedResponse(0.5).std(10_000), math.sqrt(2) / math.log(3)]


def q4():
    """30 answers, each ln 3-private: basic composition."""
    return [30 * RandomizedResponse(0.5).epsilon]


def q5():
    """√n/ε for n = 10,000 and ε = 0.5."""
    return [math.sqrt(10_000) / 0.5]


ANSWERS = {1: q1, 2: q2, 3: q3, 4: q4, 5: q5}
