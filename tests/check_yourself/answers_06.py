"""The numbers asked for in lecture 06's Check yourself, computed (tests/test_lecture_shape.py
matches them against the bold numbers of each answer at their printed precision)."""
import math

from scipy import integrate


def q1():
    """E[wa mod 2τ] for a = 3, τ = 2, w ~ U[1, 2]: (1/a)∫_a^{2a} (x mod 2τ) dx."""
    a, tau = 3.0, 2.0
    value, _ = integrate.quad(lambda x: math.fmod(x, 2 * tau), a, 2 * a, points=[4.0])
    return [value / a]


def q3():
    """Algorithm 3 under Definition 6.1: two cropped sums of 4ε each, at ε = 0.25."""
    return [2 * 4 * 0.25]


ANSWERS = {1: q1, 3: q3}
