"""The numbers of lecture 03's Check yourself, computed (tests/test_lecture_shape.py reads them)."""
from panpriv_teach.density import d1_probability, density_error_sd

EPSILON = 0.5           # every question of lecture 03 is asked at ε = 1/2
M = 2_000               # Q2's representatives


def posterior_after_a_one(prior, epsilon):
    """Bayes: a bit that reads 1 multiplies the odds that its user came by P_D1(1)/P_D0(1)."""
    odds = prior / (1 - prior) * d1_probability(epsilon) / 0.5
    return odds / (1 + odds)


def smallest_m(target_sd, epsilon, density=0.5, universe_size=10 ** 6):
    """The fewest representatives whose exact error sd (`density_error_sd`) is <= target_sd."""
    low, high = 1, universe_size
    while low < high:
        middle = (low + high) // 2
        if density_error_sd(density, universe_size, middle, epsilon) <= target_sd:
            high = middle
        else:
            low = middle + 1
    return low


ANSWERS = {
    1: lambda: [posterior_after_a_one(0.5, EPSILON)],
    2: lambda: [4 / (EPSILON * M), 4 / (EPSILON ** 2 * M)],    # sensitivity, Laplace scale
    5: lambda: [(2 / (EPSILON * 0.05)) ** 2, smallest_m(0.05, EPSILON)],
}
