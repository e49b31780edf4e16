"""Exact exp(-g) coins (panpriv_teach.exp_coin): the intervals hold exp(-g) rigorously (checked
against mpmath at 60 or bits + 60 digits), the coin's decision is V < exp(-g) on every cell,
and the coins land heads with frequency exp(-g) on both the float and the exact path."""
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from panpriv_teach.exp_coin import exact_bounds, first_heads, float_bounds

P_MIN = 1e-6   # each chi-square / binomial test falsely fails with probability 1e-6


def _exp_minus(g, digits=60):
    """exp(-g) for a float or a Fraction g, to `digits` digits."""
    with mpmath.workdps(digits):
        g = mpmath.mpf(g.numerator) / g.denominator if isinstance(g, Fraction) else mpmath.mpf(g)
        return mpmath.exp(-g)


FLOATS = np.concatenate([[0.0, 5e-324, 2.0**-1074 * 3, 2.0**-1022, 1e-300, 1e-17, 0.5, 1.0,
                          math.log(2), 36.5, 37.0, 700.0, 708.0, 745.0, 745.2, 746.0, 1e4],
                         np.random.default_rng(1).uniform(0, 800, 500),
                         10.0 ** np.random.default_rng(2).uniform(-320, 3, 500)])


def test_float_bounds_hold_exp_minus_g_for_every_g_within_the_stated_error():
    lo, hi = float_bounds(FLOATS)
    for g, a, b in zip(FLOATS, lo, hi):
        error = mpmath.mpf(g) * mpmath.mpf(2) ** -50 + mpmath.mpf(2) ** -1070
        for true_g in (mpmath.mpf(g) - error, mpmath.mpf(g), mpmath.mpf(g) + error):
            value = _exp_minus(max(true_g, 0))
            assert mpmath.mpf(float(a)) <= value <= mpmath.mpf(float(b)), (g, a, b)
        if g < 700:        # and they are tight: the float path decides almost every coin
            assert b - a <= (2.0**-43 + g * 2.0**-47) * math.exp(-g) + 2.0**-1059


@pytest.mark.parametrize("g", [Fraction(0), Fraction(1, 3), Fraction(1, 10**40), Fraction(7),
                               Fraction(10**6 + 1, 7), Fraction(math.log(2)), Fraction(1e-300),
                               Fraction(63), Fraction(64), Fraction(65), Fraction(200, 3)])
@pytest.mark.parametrize("bits", [64, 128, 512])
def test_exact_bounds_hold_exp_minus_g_within_2_to_the_minus_bits(g, bits):
    lo, hi = exact_bounds(g, bits)
    digits = bits // 3 + 60 + len(str(math.floor(g)))
    value = _exp_minus(g, digits)
    with mpmath.workdps(digits):
        low, high = (mpmath.mpf(f.numerator) / f.denominator for f in (lo, hi))
        assert low <= value <= high
    assert hi - lo <= Fraction(1, 2 ** (bits + 2))


def _cell_of(g: Fraction) -> int:
    """floor(exp(-g) 2^64): the one cell the float bounds cannot decide."""
    with mpmath.workdps(60):
        return int(mpmath.floor(_exp_minus(g) * 2**64))


class _Bits:
    """An rng stand-in whose 64-bit draws are given: first_heads' cells, then its extra bits."""

    def __init__(self, words):
        self.words = list(words)

    def integers(self, low, high, size=None, dtype=None):
        if size is None:
            return np.uint64(self.words.pop(0))
        return np.array([self.words.pop(0) for _ in range(size)], dtype=np.uint64)


def _boundary_mismatches(coin, g: Fraction) -> list:
    """The given bits on which `coin` does not answer V < exp(-g): cells next to exp(-g) 2^64
    (decided by the floats or the first exact interval) and, at the cell that holds exp(-g),
    second words on either side of exp(-g)'s next 64 bits (decided only by drawing them)."""
    c = _cell_of(g)
    with mpmath.workdps(80):
        next_word = int(mpmath.floor((_exp_minus(g, 80) * 2**64 - c) * 2**64))
    cases = [([cell], cell < c) for cell in (c - 10**6, c - 1, c + 1, c + 10**6)]
    cases += [([c, more], more < next_word) for more in (0, next_word - 1, next_word + 1, 2**64 - 1)]
    return [(words, heads) for words, heads in cases
            if (coin(np.array([float(g)]), lambda j: g, _Bits(words)) == 0) != heads]


@pytest.mark.parametrize("g", [Fraction(1, 3), Fraction(5), Fraction(1, 2**40)])
def test_the_coin_is_v_below_exp_minus_g_on_every_cell_near_the_boundary(g):
    assert _boundary_mismatches(first_heads, g) == []
    # without a float bound (NaN) the exact path decides the same
    c = _cell_of(g)
    assert first_heads(np.array([np.nan]), lambda j: g, _Bits([c - 1])) == 0
    assert first_heads(np.array([np.nan]), lambda j: g, _Bits([c + 1])) is None


def test_a_coin_decided_by_its_first_64_bits_alone_is_caught():
    # the broken variant: heads when the cell is below exp(-g) 2^64 rounded, never more bits
    def first_64_bits_only(g, exact_g, rng):
        return 0 if int(rng.integers(0, 2**64, size=1, dtype=np.uint64)[0]) < round(math.exp(-g[0]) * 2**64) else None

    assert _boundary_mismatches(first_64_bits_only, Fraction(1, 3))


def test_an_infinite_float_gap_means_a_coin_that_is_almost_surely_tails():
    # g~ = +inf stands for g > 2^1023: tails unless the cell is 0, then decided exactly
    lo, hi = float_bounds(np.array([np.inf]))
    assert lo[0] <= 0 < hi[0] <= 2.0**-1060
    huge = Fraction(2**1030)
    assert first_heads(np.array([np.inf]), lambda j: huge, _Bits([1])) is None
    assert first_heads(np.array([np.inf]), lambda j: huge, _Bits([0, 5])) is None


def test_first_heads_returns_the_first_coin_that_lands_heads():
    g = np.array([5.0, 0.0, 0.0])         # exp(-5) 2^64 = 1.24e17: heads below that cell
    assert first_heads(g, lambda j: Fraction(g[j]), _Bits([2**60, 5, 7])) == 1
    assert first_heads(g, lambda j: Fraction(g[j]), _Bits([3, 5, 7])) == 0


@pytest.mark.parametrize("float_path", [True, False])
@pytest.mark.parametrize("g", [Fraction(1, 3), Fraction(2), Fraction(9, 2)])
def test_coins_land_heads_with_frequency_exp_minus_g(g, float_path):
    # 100,000 coins per case (the exact path: 20,000; at g = 9/2 about 1,100 and 220 heads);
    # two-sided binomial test at 1e-6
    n = 100_000 if float_path else 20_000
    rng = np.random.default_rng(7)
    approx = np.array([float(g) if float_path else np.nan])
    heads = sum(first_heads(approx, lambda j: g, rng) == 0 for _ in range(n))
    p = math.exp(-float(g))
    assert stats.binomtest(heads, n, p).pvalue > P_MIN, (heads, n * p)
