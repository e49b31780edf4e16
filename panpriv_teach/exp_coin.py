"""Coins that land heads with probability exactly exp(-g), fast enough to flip by the million.

The exponential mechanism's exact sampler (`mechanisms.exponential_mechanism`) proposes a
candidate uniformly and keeps it with probability exp(-g), g >= 0 rational. Canonne, Kamath,
Steinke 2020, Alg. 1 flips such a coin exactly in rational arithmetic, at tens of µs a coin;
here the same law costs a vectorised comparison for all but about 2^-40 of the coins.

The coin: draw a uniform real V in [0, 1) bit by bit and say heads when V < exp(-g). That
event has probability exp(-g) exactly. Its first 64 bits U place V in the cell
[U 2^-64, (U + 1) 2^-64); whenever an interval [lo, hi] known to hold exp(-g) lies above the
cell (heads) or below it (tails), the answer is the exact one without looking at more bits.
Otherwise, 64 more bits and a narrower interval, from Python's `decimal` (whose exp is
correctly rounded), until the cell is on one side. The intervals are rigorous:

* float64 (`float_bounds`): g~ a float with |g - g~| <= g~ 2^-50 + 2^-1070 (what a product, a
  difference and a power-of-two scaling of floats give), or +inf for g > 2^1023; numpy's exp
  is within a few ulp (2^-50 relative); lo and hi widen the result by 2^-45 relative and
  2^-1060 absolute, which also covers their own roundings.
* decimal (`exact_bounds`): g rational, `bits` asked; precision 0.31 bits + 20 digits beyond
  g's integer digits, so hi - lo < 2^-(bits + 2) exp(-g). Beyond g > bits >= 64, exp(-g) is
  below 2^-(bits + 2), which decides every cell but the first.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from decimal import MAX_EMAX, MIN_EMIN, Decimal, localcontext
from fractions import Fraction

import numpy as np

__all__ = ["float_bounds", "exact_bounds", "first_heads"]

_WORD = 64
_CAP = float(2**64 - 2048)   # the largest float below 2^64: a safe uint64 threshold
_RELATIVE, _ABSOLUTE = 2.0**-45, 2.0**-1060


def float_bounds(g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) with lo <= exp(-g_true) <= hi for every g_true within g 2^-50 + 2^-1070 of the
    float g >= 0, and for every g_true > 2^1023 where g = +inf. Vectorised."""
    g = np.asarray(g, dtype=float)
    slack = g * 2.0**-49 + 2.0**-1070    # 2^-50 relative, plus the roundings of g ± slack
    with np.errstate(under="ignore", over="ignore", invalid="ignore"):
        lo = np.exp(-(g + slack)) * (1 - _RELATIVE) - _ABSOLUTE
        hi = np.exp(-(g - slack)) * (1 + _RELATIVE) + _ABSOLUTE
    hi[np.isposinf(g)] = _ABSOLUTE       # exp(-2^1023) is far below 2^-1060
    return lo, hi


def exact_bounds(g: Fraction, bits: int) -> tuple[Fraction, Fraction]:
    """(lo, hi) with lo <= exp(-g) <= hi and hi - lo <= 2^-(bits + 2), for a rational g >= 0."""
    if g == 0:
        return Fraction(1), Fraction(1)
    if g > bits:                                 # exp(-g) < e^-bits <= 2^-(bits + 2)
        return Fraction(0), Fraction(1, 2 ** (bits + 2))
    digits = int(0.31 * bits) + 20 + len(str(math.floor(g)))
    with localcontext() as context:
        context.prec, context.Emin, context.Emax = digits, MIN_EMIN, MAX_EMAX
        value = (-(Decimal(g.numerator) / Decimal(g.denominator))).exp()
    # g is rounded by a relative 10^(1 - digits), so exp(-g) moves by a factor within
    # exp(±g 10^(1 - digits)); exp itself is correctly rounded (half an ulp).
    error = Fraction(10) ** (1 - digits) * (1 + math.ceil(g)) * 2
    return Fraction(value) * (1 - error), Fraction(value) * (1 + error)


def _heads_exactly(g: Fraction, cell: int, rng) -> bool:
    """The coin V < exp(-g), V's first 64 bits being `cell`; more bits as needed."""
    bits = _WORD
    while True:
        lo, hi = exact_bounds(g, bits)
        if Fraction(cell + 1, 2**bits) <= lo:
            return True
        if Fraction(cell, 2**bits) >= hi:
            return False
        cell = (cell << _WORD) | int(rng.integers(0, 2**64, dtype=np.uint64))
        bits += _WORD


def first_heads(g: np.ndarray, exact_g: Callable[[int], Fraction], rng) -> int | None:
    """Flip coins j = 0, 1, ... with P(heads) = exp(-g_j) exactly, in order; the first j that
    lands heads, or None. `g[j]` is a float within g_j 2^-50 + 2^-1070 of the exact g_j =
    `exact_g(j)`, or +inf when g_j > 2^1023 (NaN: no float bound, decided exactly)."""
    g = np.atleast_1d(np.asarray(g, dtype=float))
    cells = rng.integers(0, 2**64, size=g.size, dtype=np.uint64)
    known = g >= 0                                            # False for NaN
    lo, hi = float_bounds(np.where(known, g, 0.0))
    below = np.clip(np.floor(lo * 2.0**64), 0, _CAP).astype(np.uint64)
    heads = known & (cells < below)                           # V < (U + 1) 2^-64 <= lo
    above = np.ceil(np.minimum(hi * 2.0**64, _CAP)).astype(np.uint64)
    tails = known & (hi * 2.0**64 < _CAP) & (cells >= above)  # V >= U 2^-64 >= hi
    for j in np.flatnonzero(~tails):                          # in order: heads, or undecided
        if heads[j] or _heads_exactly(exact_g(int(j)), int(cells[j]), rng):
            return int(j)
    return None
