"""The numbers of lecture 00's Check yourself, computed (tests/test_lecture_shape.py reads them)."""
import math

from panpriv_teach.mechanisms import RandomizedResponse


def largest_posterior(prior, epsilon):
    """The largest belief after one output of an ε-DP release: the odds grow by e^ε at most."""
    odds = prior / (1 - prior) * math.exp(epsilon)
    return odds / (1 + odds)


ANSWERS = {
    1: lambda: [len({17, 4, 17, 9})],                                   # distinct visitors
    2: lambda: [100 * largest_posterior(0.5, math.log(3))],             # percent
    3: lambda: [100 * largest_posterior(0.5, 2 * math.log(3))],         # you and your sister: e^(2ε)
    4: lambda: [RandomizedResponse(bias=0.2).epsilon],                  # ln(1.2/0.8)
}
