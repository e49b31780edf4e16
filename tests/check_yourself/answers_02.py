"""The numbers of lecture 02's Check yourself, computed (tests/test_lecture_shape.py reads them)."""
import math

from panpriv_teach.lower_bounds import local_bayes_bound
from panpriv_teach.mechanisms import RandomizedResponse


def q1():
    """Posterior after a "no" with Warner's fair coins: P(no | 1) = 1/4, P(no | 0) = 3/4."""
    prior = 0.2
    return [prior / 4 / (prior / 4 + (1 - prior) * 3 / 4)]


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
    """Every local 0.5-DP count of 10,000 bits has rms error >= sqrt(n e^ε)/(1 + e^ε) on some
    input (the posterior-variance bound); randomized response's sd at the same ε."""
    n, epsilon = 10_000, 0.5
    return [local_bayes_bound(n, epsilon), RandomizedResponse.from_epsilon(epsilon).std(n)]


ANSWERS = {1: q1, 2: q2, 3: q3, 4: q4, 5: q5}
