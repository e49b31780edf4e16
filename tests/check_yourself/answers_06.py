"""The numbers asked for in lecture 06's Check yourself, computed (tests/test_lecture_shape.py
matches them against the bold numbers of each answer at their printed precision)."""
import math

from scipy import integrate


def bound_omega(tau, epsilon, window, universe_size=400):
    """B_ω, Theorem 6.3's bound on the standard deviation of Algorithm 2's output."""
    return ((1 + 2 * tau / (math.expm1(epsilon) * window)) * tau
            * math.sqrt(universe_size + 8 / epsilon**2))


def q1():
    """E[wa mod 2τ] for a = 3, τ = 2, w ~ U[1, 2]: (1/a)∫_a^{2a} (x mod 2τ) dx."""
    a, tau = 3.0, 2.0
    value, _ = integrate.quad(lambda x: math.fmod(x, 2 * tau), a, 2 * a, points=[4.0])
    return [value / a]


def q2():
    """B_ω with the unit bump over B_ω with ω = τ/4, at ε = 1, for τ = 10 and τ = 40."""
    return [bound_omega(tau, 1.0, 1.0) / bound_omega(tau, 1.0, tau / 4)
            for tau in (10.0, 40.0)]


def q5():
    """Algorithm 3 under Definition 6.1: two cropped sums of 4ε each, at ε = 0.25."""
    return [2 * 4 * 0.25]


ANSWERS = {1: q1, 2: q2, 5: q5}
