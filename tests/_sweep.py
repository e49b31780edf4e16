"""The parameter specs and the table of public entry points swept by test_reliability.py.

A *spec* describes one parameter's valid domain and yields hypothesis strategies of
- `invalid()`: `Bad(value, shown, valid)` records: a value outside the domain (out of range,
  NaN, ±inf, bool, str, None, complex, containers, wrong shapes, entries outside the
  universe, non-binary bits, ...), with the texts of which at least one must appear in the
  error message to show the value (`shown`) and to state the valid range (`valid`);
- `valid()`: values inside the domain, boundaries first (ε exactly 1/2 where Claim 4.1
  allows it, m = N, the last element of the universe, ...), which must NOT raise.

An *entry* is one public callable with valid keyword arguments and a spec per parameter.
Constructors and functions are called directly; methods (update/step/process/run/...) on a
fresh object built by `make`, so each call sees the same state. To add a class: append its
constructor and methods to ENTRIES with `function(...)`/`method(...)` (see the examples).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Callable

import numpy as np
from hypothesis import strategies as st

from panpriv_teach import (composition, continual, counters, counters_baselines, cropped,
                           density, incidence, mechanisms, local, noise, ppcum, sketches, stable,
                           strawmen, streams)

# ------------------------------------------------------------------------------ values


@dataclass(frozen=True)
class Bad:
    """An invalid value, and the texts an error message may use to show it / its range."""
    value: object
    shown: tuple
    valid: tuple

    def __repr__(self) -> str:  # hypothesis prints this on failure
        return f"Bad({self.value!r})"


# values of the wrong type for any numeric parameter (each shown by its repr or type name)
JUNK = (None, True, False, np.True_, "0.5", "abc", b"1", 1 + 1j, [0.5], (1,), {"x": 1},
        np.array([0.5, 0.25]))


def _shown(value) -> tuple:
    texts = [repr(value), str(value), type(value).__name__]
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        number = float(value)
        texts += [repr(number), f"{number:g}"]
        if float(value).is_integer() and math.isfinite(number):
            texts.append(repr(int(value)))
    return tuple(texts)


def _junk(exclude=()) -> st.SearchStrategy:
    values = [v for v in JUNK if not any(v is e for e in exclude)]
    return st.one_of(st.sampled_from(values), st.text(max_size=4))


def _built_once(method):
    """A spec's strategy method that builds its strategy on the first call and returns the same
    object after: hypothesis validates a strategy (is_empty, ...) at its first draw, so a
    strategy built anew for every example cost each example that validation again. The
    strategy is the same, so are the examples it draws."""
    key = f"_built_{method.__qualname__}"

    @functools.wraps(method)
    def built(self):
        if key not in self.__dict__:
            object.__setattr__(self, key, method(self))   # the specs are frozen dataclasses
        return self.__dict__[key]
    return built


def _bound(x) -> str:
    return f"{x:g}"   # validation.py formats interval ends with :g


# ------------------------------------------------------------------------------ scalars


@dataclass(frozen=True)
class Real:
    """A real number in the interval (low, high), ends closed unless `*_open`; None: no
    bound on that side (then ±inf is valid there). `practical` bounds the valid draws
    (e.g. τ <= 1e6); valid draws from an open end at 0 start at 1e-9."""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    optional: bool = False          # None is valid (a default)
    practical: tuple = (None, None)

    def _valid_words(self):
        words = [_bound(b) for b in (self.low, self.high) if b is not None]
        return tuple(words) or ("real",)

    @_built_once
    def invalid(self) -> st.SearchStrategy:
        options = []
        if self.low is not None:      # below the interval (down to -inf)
            options.append(st.floats(max_value=self.low, exclude_max=not self.low_open,
                                     allow_nan=False))
        if self.high is not None and math.isfinite(self.high):   # above it (up to +inf)
            options.append(st.floats(min_value=self.high, exclude_min=not self.high_open,
                                     allow_nan=False))
        elif self.high is not None:   # (.., inf): inf itself is outside
            options.append(st.just(math.inf))
        options.append(st.just(math.nan))
        numbers = st.one_of(options).flatmap(
            lambda v: st.sampled_from([v, np.float64(v)]))
        junk = _junk(exclude=(None,) if self.optional else ())
        return st.one_of(numbers, junk).map(lambda v: Bad(v, _shown(v), self._valid_words()))

    @_built_once
    def valid(self) -> st.SearchStrategy:
        lo = self.low if self.practical[0] is None else self.practical[0]
        hi = self.high if self.practical[1] is None else self.practical[1]
        if lo == 0 and self.low_open:   # (0, ...): from 1e-9 (the extremes test goes below)
            lo = 1e-9
        lo = -1e6 if lo is None else lo
        hi = 1e6 if hi is None or not math.isfinite(hi) else hi
        edges = []
        if self.low is not None and not self.low_open and self.low >= lo:
            edges.append(float(self.low))
        if self.high is not None and not self.high_open and math.isfinite(self.high) \
                and self.high <= hi:
            edges.append(float(self.high))
        inside = st.floats(min_value=lo, max_value=hi, allow_nan=False, allow_infinity=False,
                           exclude_min=self.low_open and lo == self.low,
                           exclude_max=self.high_open and hi == self.high)
        if self.low_open and self.low is not None and lo == self.low:
            edges.append(math.nextafter(self.low, math.inf))    # just inside, e.g. c > 1
        if self.high_open and self.high is not None and math.isfinite(self.high) and hi == self.high:
            edges.append(math.nextafter(self.high, -math.inf))
        return st.one_of(st.sampled_from(edges), inside) if edges else inside


@dataclass(frozen=True)
class GridReal(Real):
    """A Real that must also be a multiple of `step` (a power of two), e.g. CroppedSum's τ and
    arc: valid draws are moved to the nearest grid point inside the interval; invalid ones
    add points off the grid (their message must name the grid, e.g. "2^-22")."""
    step: float = 1.0
    off_grid: tuple = ()

    @_built_once
    def invalid(self):
        exponent = f"2^{math.frexp(self.step)[1] - 1}"
        off = st.sampled_from(self.off_grid).map(lambda v: Bad(v, _shown(v), (exponent,)))
        return st.one_of(super().invalid(), off) if self.off_grid else super().invalid()

    @_built_once
    def valid(self):
        def on_grid(v):
            v = round(v / self.step) * self.step
            if self.low is not None and (v < self.low or (self.low_open and v == self.low)):
                v = math.ceil(self.low / self.step) * self.step + (self.step if self.low_open else 0)
            if self.high is not None and (v > self.high or (self.high_open and v == self.high)):
                v = math.floor(self.high / self.step) * self.step - (self.step if self.high_open else 0)
            return v
        return super().valid().map(on_grid)


@dataclass(frozen=True)
class Int:
    """An integer in [low, high] (None: unbounded on that side)."""
    low: int | None = None
    high: int | None = None
    optional: bool = False
    practical: tuple = (None, None)

    def _valid_words(self):
        words = [_bound(b) for b in (self.low, self.high) if b is not None]
        return tuple(words) + ("integer",)

    @_built_once
    def invalid(self) -> st.SearchStrategy:
        ints = []
        if self.low is not None:
            ints.append(st.integers(max_value=self.low - 1))
            ints.append(st.just(self.low - 2**64))
        if self.high is not None:
            ints.append(st.integers(min_value=self.high + 1))
            ints.append(st.sampled_from([self.high + 1, self.high + 2**63, 2**64, 2**100]))
        out_of_range = st.one_of(ints).flatmap(
            lambda v: st.sampled_from([v, np.int64(v)] if -2**63 <= v < 2**63 else [v])) \
            if ints else st.nothing()
        not_int = st.one_of(st.floats(allow_nan=True, allow_infinity=True)
                            .filter(lambda v: not math.isfinite(v) or v != int(v)),
                            st.sampled_from([2.0, 1.0, np.float64(3.0), 0.5]))
        junk = _junk(exclude=(None,) if self.optional else ())
        return st.one_of(out_of_range, not_int, junk).map(
            lambda v: Bad(v, _shown(v), self._valid_words()))

    @_built_once
    def valid(self) -> st.SearchStrategy:
        lo = self.low if self.practical[0] is None else self.practical[0]
        hi = self.high if self.practical[1] is None else self.practical[1]
        lo = -1000 if lo is None else lo
        hi = lo + 64 if hi is None else hi
        edges = [v for v in (self.low, self.high) if v is not None and lo <= v <= hi]
        inside = st.integers(min_value=lo, max_value=hi)
        return st.one_of(st.sampled_from(edges), inside, inside.map(np.int64)) if edges \
            else inside


@dataclass(frozen=True)
class Bit:
    """One element of a counter's 0/1 stream (bools and 0.0/1.0 are accepted)."""

    @_built_once
    def invalid(self):
        numbers = st.one_of(st.integers().filter(lambda v: v not in (0, 1)),
                            st.floats().filter(lambda v: v not in (0.0, 1.0)),
                            st.sampled_from([2, -1, 0.5, math.nan, math.inf, np.int64(3)]))
        junk = st.sampled_from([None, "1", "0", b"1", [1], (0,), 1j, np.array([1, 0])])
        return st.one_of(numbers, junk).map(lambda v: Bad(v, _shown(v), ("0 or 1",)))

    @_built_once
    def valid(self):
        return st.sampled_from([0, 1, True, False, 0.0, 1.0, np.int64(1), np.float64(0.0),
                                np.bool_(True)])


@dataclass(frozen=True)
class Choice:
    options: tuple

    @_built_once
    def invalid(self):
        others = st.one_of(st.text(max_size=6), st.sampled_from([None, 1, 0.5, ["x"], b"and"])) \
            .filter(lambda v: not any(isinstance(v, type(o)) and v == o for o in self.options))
        return others.map(lambda v: Bad(v, (repr(v),), tuple(repr(o) for o in self.options)))

    @_built_once
    def valid(self):
        return st.sampled_from(self.options)


@dataclass(frozen=True)
class Rng:
    """The rng argument: None, a non-negative int seed, a SeedSequence or a Generator."""

    @_built_once
    def invalid(self):
        values = st.one_of(st.integers(max_value=-1), st.sampled_from(
            [1.5, "seed", [1], True, np.True_, 2.0, object()]))
        return values.map(lambda v: Bad(v, _shown(v), ("non-negative", "Generator")))

    @_built_once
    def valid(self):
        return st.sampled_from([None, 0, 2**63, np.int64(7), np.random.SeedSequence(1)]) \
            | st.just("generator").map(lambda _: np.random.default_rng(3))


@dataclass(frozen=True)
class Custom:
    """Hand-written invalid values: (value, texts showing it, texts of the valid range)."""
    bads: tuple
    goods: tuple = ()

    @_built_once
    def invalid(self):
        return st.sampled_from(self.bads).map(lambda b: Bad(*b))

    @_built_once
    def valid(self):
        return st.sampled_from(self.goods) if self.goods else None


# ------------------------------------------------------------------------------ arrays

ARRAY_VALID_WORDS = ("finite", "whole numbers", "numbers", "dimensional", "shape", "dtype",
                     "must not be empty", "0 or 1", "one of", "integer")
NONFINITE_SHOWN = ("NaN", "nan", "infinity", "inf")


def _entry_bad(base, entry, position=1):
    """`base` with one entry replaced by `entry` (as a list, so floats and ints mix)."""
    values = np.asarray(base).tolist()
    flat = values if np.ndim(base) == 1 else values[0]
    flat[position % len(flat)] = entry
    return values


@dataclass(frozen=True)
class Elements:
    """An array of stream elements of a universe 0..n-1 (BLANK = -1 too if `blank`).
    `base` is the valid array in which one entry is made invalid; `ndim` its required
    number of dimensions (None: any); `allowed` the permitted values (bits, ±1 reports);
    `range_words` texts stating the range in the message (besides the generic ones)."""
    n: int
    base: tuple = (1, 2, 3)
    ndim: int | None = 1
    blank: bool = False
    allowed: tuple | None = None   # e.g. (0, 1) for bits, (-1, 1) for ±1 reports
    range_words: tuple = ()
    empty_ok: bool = True

    def _words(self):
        words = list(self.range_words) + list(ARRAY_VALID_WORDS)
        if self.allowed is None:
            words.append(str(self.n - 1))
        return tuple(words)

    @_built_once
    def invalid(self):
        low = -1 if self.blank else 0
        if self.allowed is not None:
            entries = st.one_of(st.integers(-10, 10).filter(lambda v: v not in self.allowed),
                                st.sampled_from([0.5, 7, 2**40]))
        else:
            entries = st.one_of(st.integers(max_value=low - 1, min_value=-2**62),
                                st.integers(min_value=self.n, max_value=max(self.n, 2**62)),
                                st.sampled_from([self.n, low - 1, 1.5]))
        bad_entry = st.tuples(entries, st.integers(0, 5)).map(
            lambda e: Bad(_entry_bad(self.base, e[0], e[1]), _shown(e[0]), self._words()))
        nonfinite = st.sampled_from([math.nan, math.inf, -math.inf]).map(
            lambda e: Bad(_entry_bad(self.base, e), NONFINITE_SHOWN, self._words()))
        base = np.asarray(self.base)
        shapes = []
        if self.ndim is not None:
            wrong = [base[None, ...], base.reshape(-1)[0]] if base.ndim == 1 else \
                [base.reshape(-1), base[None, ...]]
            shapes += [Bad(w, ("shape", "dimensional", str(np.shape(w))), self._words())
                       for w in wrong]
        huge = np.array(np.abs(base).ravel()[:3] if base.ndim == 1 else [1, 2], dtype=np.uint64)
        huge[0] = 2**63   # as uint64: outside int64
        shapes.append(Bad(huge if base.ndim == 1 else huge[None, :], _shown(2**63), self._words()))
        types = [Bad(v, ("dtype", "hold", type(v).__name__), self._words()) for v in
                 (None, "abc", [1, "a"], {"a": 1}, np.array(["1", "2"]), [[1, 2], [3]],
                  np.array([1 + 1j, 2]))]
        if not self.empty_ok:
            types.append(Bad([], ("empty", "shape"), self._words()))
        return st.one_of(bad_entry, nonfinite, st.sampled_from(shapes + types))

    @_built_once
    def valid(self):
        base = np.asarray(self.base)
        top = self.n - 1
        edges = [base.tolist()]
        if self.allowed is None and base.ndim == 1:
            edges.append([0, top, top, 0] + ([-1] if self.blank else []))
            if top < 2**53:
                edges.append(np.array([0, top], dtype=float).tolist())   # whole floats are fine
        return st.sampled_from(edges)


@dataclass(frozen=True)
class Updates:
    """A (k, 2) int array of updates (id, delta) of a fully dynamic stream over 0..n-1."""
    n: int
    base: tuple = ((1, 1), (2, 1), (1, -1))
    one_d_ok: bool = False   # a 1-D stream of IDs is accepted too

    @_built_once
    def invalid(self):
        words = (str(self.n - 1),) + ARRAY_VALID_WORDS + ("(k, 2)",)
        ids = st.one_of(st.integers(max_value=-1, min_value=-2**62),
                        st.integers(min_value=self.n, max_value=2**62))
        bad_id = ids.map(lambda i: Bad([[1, 1], [i, 1]], _shown(i), words))
        bad_delta = st.sampled_from([0.5, -1.5]).map(lambda d: Bad([[1, 1], [2, d]], _shown(d), words))
        others = [Bad([[1, math.nan]], NONFINITE_SHOWN, words),
                  Bad([[1, 2, 3]], ("shape", "(1, 3)"), words),
                  *([] if self.one_d_ok else [Bad([1, 2, 3], ("shape", "(3,)"), words)]),
                  Bad(None, ("dtype", "object"), words), Bad("ab", ("dtype", "<U2"), words),
                  Bad([[1, "a"]], ("dtype",), words)]
        return st.one_of(bad_id, bad_delta, st.sampled_from(others))

    @_built_once
    def valid(self):
        top = self.n - 1
        return st.sampled_from([list(self.base), [[0, 1], [top, 2], [top, -2]], [[top, 1]]])


def Bits(ndim=1, base=(0, 1, 1, 0), empty_ok=True):
    return Elements(2, base=base, ndim=ndim, allowed=(0, 1), range_words=("0 or 1", "[0, 1]"),
                    empty_ok=empty_ok)


@dataclass(frozen=True)
class RealArray:
    """An array of real numbers (finite)."""
    base: tuple = (1.0, 2.0, 3.0)
    ndim: int | None = None
    integer: bool = False
    empty_ok: bool = True
    nonnegative: bool = False

    @_built_once
    def invalid(self):
        words = ARRAY_VALID_WORDS + (">= 0",)
        bads = [Bad(_entry_bad(self.base, v), NONFINITE_SHOWN, words)
                for v in (math.nan, math.inf, -math.inf)]
        bads += [Bad(v, ("dtype", "hold", "complex", type(v).__name__), words)
                 for v in (None, "abc", [1, "a"], np.array([1 + 2j]), [[1, 2], [3]])]
        if self.integer:
            bads.append(Bad(_entry_bad(self.base, 2.5), ("2.5",), words))
        if self.nonnegative:
            bads.append(Bad(_entry_bad(self.base, -0.5), ("-0.5",), words))
        if self.ndim is not None:
            bads.append(Bad([list(self.base)], ("shape", "dimensional"), words))
        if not self.empty_ok:
            bads.append(Bad([], ("empty", "shape"), words))
        return st.sampled_from(bads)

    @_built_once
    def valid(self):
        return st.sampled_from([list(self.base), [0] * len(self.base)])


# ------------------------------------------------------------------------------ entries


@dataclass
class Entry:
    """One public callable: `call(obj, **kwargs)`; `make()` builds the object for methods."""
    name: str
    call: Callable
    kwargs: dict
    params: dict
    make: Callable | None = None
    state: Callable | None = None   # obj -> a picklable snapshot (checked unchanged on error)
    infinite_ok: bool = False       # a documented infinite result (e.g. Claim 4.1 at ε = 2)

    def __repr__(self) -> str:
        return self.name


def function(f, kwargs, params, name=None, infinite_ok=False):
    return Entry(name or f.__name__, lambda _obj, **kw: f(**kw), kwargs, params,
                 infinite_ok=infinite_ok)


def constructor(cls, kwargs, params, name=None):
    return Entry(name or f"{cls.__name__}()", lambda _obj, **kw: cls(**kw), kwargs, params)


def method(make, name, kwargs, params, label, snapshot=True):
    return Entry(label, lambda obj, **kw: getattr(obj, name)(**kw), kwargs, params, make=make,
                 state=(lambda obj: obj.state()) if snapshot else None)


# Valid draws stay in practical ranges (ε >= 1e-9, probabilities within 1e-12 of (0, 1), ...):
# test_numeric_extremes_are_handled_or_rejected_by_name covers 5e-324, 1e-300, 1e300, ...
# where floating point cannot represent the noise or the laws.
EPS = Real(0.0, math.inf, low_open=True, high_open=True, practical=(1e-9, 50.0))
PROB = Real(0.0, 1.0, low_open=True, high_open=True, practical=(1e-9, 1 - 1e-12))
POSITIVE = Real(0.0, math.inf, low_open=True, high_open=True, practical=(1e-9, 1e6))
RNG = Rng()

N = 1000                 # the universe of the stream algorithms below
UNIVERSE = Int(1, None, practical=(60, 2000))


def _density(**kw):
    return density.DensityEstimator(N, 0.5, m=50, rng=0, **kw)


def _cde():
    return continual.ContinualDensityEstimator(N, 0.4, m=20, T=16, rng=0)


def _ppdc():
    return stable.PanPrivateDistinctCount(2, 1, 1.0, rng=0)


def _hh():
    return cropped.HeavyHittersCount(50, 4, 2.0, 8, 1.0, 200.0, rng=0)


def _stream_entries(label, make, n, x_spec=None, stream_spec=None):
    """update(x) and process(stream) of a StreamAlgorithm over the universe 0..n-1."""
    return [method(make, "update", {"x": 5}, {"x": x_spec or Int(0, n - 1)}, f"{label}.update"),
            method(make, "process", {"stream": [1, 2, 3]},
                   {"stream": stream_spec or Elements(n)}, f"{label}.process")]


def _counter_entries(label, make):
    return [method(make, "step", {"x": 1}, {"x": Bit()}, f"{label}.step"),
            method(make, "run", {"stream": [0, 1, 1]}, {"stream": Bits()}, f"{label}.run")]


def _dynamic_entries(label, make, n):
    base = ((1, 1), (min(2, n - 1), 1), (1, -1))
    return [method(make, "update", {"i": 1, "delta": 1},
                   {"i": Int(0, n - 1),   # delta=None: i is a pair (i, delta)
                    "delta": Int(None, None, optional=True, practical=(-5, 5))},
                   f"{label}.update"),
            method(make, "process", {"updates": [list(b) for b in base[:2]]},
                   {"updates": Updates(n, base=base)},
                   f"{label}.process")]


def _encoding_entries(cls):
    """Constructor, report, randomize and std of a local frequency oracle over k = 4 values."""
    name = cls.__name__
    return [
        constructor(cls, {"k": 4, "epsilon": 1.0}, {"k": Int(2, None, practical=(2, 1000)), "epsilon": EPS}),
        method(lambda: cls(4, 1.0), "report", {"value": 2, "rng": 0},
               {"value": Int(0, 3), "rng": RNG}, f"{name}.report", snapshot=False),
        method(lambda: cls(4, 1.0), "randomize", {"values": [0, 3, 1], "rng": 0},
               {"values": Elements(4, base=(0, 3, 1), ndim=None, empty_ok=False), "rng": RNG},
               f"{name}.randomize", snapshot=False),
        method(lambda: cls(4, 1.0), "std", {"n": 10, "count": 3},
               {"n": Int(1, None, practical=(10, 10**6)), "count": Int(0, 10)},
               f"{name}.std", snapshot=False),
    ]


CANDIDATE_BADS = tuple(
    (value, shown, ("sequence", "same length", "list")) for value, shown in [
        ({"a": 1, "b": 2, "c": 3}, ("dict",)), ({"a", "b", "c"}, ("set",)),
        ("abc", ("str",)), (5, ("int",)), (None, ("NoneType",)), (["a", "b"], ("2 candidates",)),
        ((x for x in "abc"), ("generator",))])

CHANNEL_BADS = (
    ([[0.5, 0.6], [0.5, 0.5]], ("1.1",), ("sum to 1",)),
    ([[-0.25, 1.25], [0.5, 0.5]], ("-0.25",), ("non-negative",)),
    ([[math.nan, 0.5], [0.5, 0.5]], NONFINITE_SHOWN, ("finite",)),
    ([0.5, 0.5], ("shape", "dimensional", "(2,)"), ("2-dimensional", "dimensional")),
    ({}, ("empty dict",), ("at least one",)),
    ({0: {0: 1.0}, 1: "x"}, ("'x'",), ("probabilit",)),
    ("abc", ("dtype", "<U3"), ("numbers",)),
    (None, ("dtype", "object"), ("numbers",)),
    ([[0.5, 0.5], [1.0]], ("inhomogeneous", "list"), ("numbers", "array-like")),
)

COUNTER_BADS = (
    ("x", ("str",), ("ContinualCounter",)), (5, ("int",), ("ContinualCounter",)),
    (lambda: 0, ("function",), ("ContinualCounter",)),
)

ALGORITHM_BADS = (
    (None, ("NoneType",), ("StreamAlgorithm",)), ("x", ("str",), ("StreamAlgorithm",)),
    (density.DensityEstimator, ("type", "ABCMeta"), ("StreamAlgorithm",)),
)

COST_BADS = (
    ("L0", ("'L0'",), ("'l0'", "callable")),
    (3, ("3",), ("'l0'", "callable")),
    (None, ("None",), ("'l0'", "callable")),
    (lambda c: np.ones(len(c)), ("f(0) = 0",), ("f(0) = 0",)),
    (lambda c: -np.count_nonzero(c, axis=1), (">= 0",), (">= 0",)),
)

X_BADS = (
    (np.zeros((3, 10)), ("(3, 10)",), ("(10, 3)", "shape")),
    (np.zeros(30), ("(30,)", "shape", "dimensional"), ("2-dimensional", "dimensional")),
    (np.full((10, 3), math.nan), NONFINITE_SHOWN, ("finite",)),
    ("abc", ("dtype", "<U3"), ("numbers",)),
)

N_I_BADS = (
    ({(1, 1): 0.1}, ("(1, 1)",), ("one value per node",)),
    ([0.1, 0.2], ("list",), ("dict",)),
    ({(1, 1): 0.1, (2, 2): math.nan}, ("nan",), ("real",)),
    ({(1, 1): 0.1, (2, 2): "x"}, ("'x'",), ("real",)),
)


ENTRIES = [
    # ---------------------------------------------------------------- module 01: mechanisms
    function(mechanisms.laplace_mechanism,
             {"value": 3.0, "sensitivity": 1.0, "epsilon": 1.0, "rng": 0},
             {"value": RealArray(), "sensitivity": POSITIVE, "epsilon": EPS, "rng": RNG}),
    function(mechanisms.laplace_mechanism_unsafe,
             {"value": 3.0, "sensitivity": 1.0, "epsilon": 1.0, "rng": 0},
             {"value": RealArray(), "sensitivity": POSITIVE, "epsilon": EPS, "rng": RNG}),
    function(mechanisms.gaussian_mechanism,
             {"value": 3.0, "sensitivity": 1.0, "epsilon": 1.0, "delta": 1e-6, "rng": 0},
             {"value": RealArray(), "sensitivity": Real(0.0, math.inf, low_open=True,
                                                        high_open=True, practical=(1e-6, 1e6)),
              "epsilon": Real(0.0, math.inf, low_open=True, high_open=True,
                              practical=(0.01, 20.0)),
              "delta": Real(0.0, 1.0, low_open=True, high_open=True, practical=(1e-12, 0.5)),
              "rng": RNG}),
    function(mechanisms.laplace_guarantee, {"sensitivity": 1.0, "epsilon": 1.0},
             {"sensitivity": POSITIVE, "epsilon": EPS}),
    function(mechanisms.classic_gaussian_sigma, {"sensitivity": 1.0, "epsilon": 0.5, "delta": 1e-6},
             {"sensitivity": POSITIVE,
              "epsilon": Real(0.0, 1.0, low_open=True, high_open=True, practical=(1e-9, 0.99)),
              "delta": PROB}),
    function(mechanisms.gaussian_guarantee, {"sensitivity": 1.0, "epsilon": 1.0, "delta": 1e-6},
             {"sensitivity": POSITIVE,
              "epsilon": Real(0.0, math.inf, low_open=True, high_open=True, practical=(0.01, 20.0)),
              "delta": Real(0.0, 1.0, low_open=True, high_open=True, practical=(1e-12, 0.5))}),
    function(composition.advanced_composition, {"epsilon0": 0.1, "k": 100, "delta_prime": 1e-6},
             {"epsilon0": EPS, "k": Int(1, None, practical=(1, 10**6)), "delta_prime": PROB}),
    function(composition.optimal_composition, {"epsilon0": 0.1, "k": 100, "delta": 1e-6},
             {"epsilon0": Real(0.0, math.inf, low_open=True, high_open=True,
                               practical=(1e-3, 5.0)),
              "k": Int(1, None, practical=(1, 2000)), "delta": PROB}),
    function(mechanisms.geometric_mechanism,
             {"value": 3, "sensitivity": 1, "epsilon": 1.0, "rng": 0},
             {"value": RealArray(base=(1, 2, 3), integer=True),
              "sensitivity": Int(1, None, practical=(1, 10**6)), "epsilon": EPS, "rng": RNG,
              "exact": Choice((False, True))}),
    function(mechanisms.geometric_mechanism,
             {"value": 3, "sensitivity": 1, "epsilon": 1.0, "rng": 0, "exact": True},
             {"sensitivity": Int(1, None, practical=(1, 100)),
              "epsilon": Real(0.0, math.inf, low_open=True, high_open=True, practical=(0.05, 50.0))},
             name="geometric_mechanism(exact=True)"),
    function(mechanisms.sample_discrete_laplace_exact, {"scale": 2.0, "rng": 0, "size": 3},
             {"scale": Real(0.0, math.inf, low_open=True, high_open=True, practical=(None, 50.0)),
              "size": Int(0, None, optional=True, practical=(0, 20)), "rng": RNG}),
    function(mechanisms.discrete_laplace_pmf, {"k": [0, 1, -2], "scale": 1.0},
             {"k": RealArray(base=(0, 1, -2), integer=True), "scale": POSITIVE}),
    function(mechanisms.exponential_mechanism,
             {"candidates": ["a", "b", "c"], "scores": [0.0, 1.0, 2.0], "sensitivity": 1.0,
              "epsilon": 1.0, "rng": 0},
             {"candidates": Custom(CANDIDATE_BADS, goods=(["a", "b", "c"], ("a", "b", "c"),
                                                          range(3), np.arange(3))),
              "scores": RealArray(base=(0.0, 1.0, 2.0), ndim=1, empty_ok=False),
              "sensitivity": POSITIVE, "epsilon": EPS, "rng": RNG,
              "exact": Choice((True, False)), "monotone": Choice((True, False))}),
    function(mechanisms.exponential_mechanism_probabilities,
             {"scores": [0.0, 1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0},
             {"scores": RealArray(base=(0.0, 1.0, 2.0), ndim=1, empty_ok=False),
              "sensitivity": POSITIVE, "epsilon": EPS, "monotone": Choice((True, False))}),
    function(mechanisms.exponential_mechanism_implemented_law,
             {"scores": [0.0, 1.0, 2.0], "sensitivity": 1.0, "epsilon": 1.0},
             {"scores": RealArray(base=(0.0, 1.0, 2.0), ndim=1, empty_ok=False),
              "sensitivity": POSITIVE, "epsilon": EPS}),
    function(noise.implemented_probability, {"p": 0.5, "bits": 53},
             {"p": Real(0.0, 1.0), "bits": Int(1, 53)}),
    function(noise.threshold_below, {"p": 0.5, "bits": 53},
             {"p": Real(0.0, 1.0), "bits": Int(1, 53)}),
    constructor(mechanisms.RandomizedResponse, {"bias": 0.5}, {"bias": PROB}),
    function(mechanisms.RandomizedResponse.from_epsilon, {"epsilon": 1.0},
             {"epsilon": Real(0.0, math.inf, low_open=True, high_open=True, practical=(None, 30.0))},
             name="RandomizedResponse.from_epsilon"),
    method(lambda: mechanisms.RandomizedResponse(0.5), "report", {"bit": 1, "rng": 0},
           {"bit": Int(0, 1), "rng": RNG}, "RandomizedResponse.report", snapshot=False),
    method(lambda: mechanisms.RandomizedResponse(0.5), "randomize", {"bits": [0, 1, 1], "rng": 0},
           {"bits": Bits(ndim=None, empty_ok=False), "rng": RNG},
           "RandomizedResponse.randomize", snapshot=False),
    method(lambda: mechanisms.RandomizedResponse(0.5), "estimate", {"reports": [1, -1, 1]},
           {"reports": Elements(2, base=(1, -1, 1), ndim=None, allowed=(-1, 1),
                                range_words=("[-1, 1]",), empty_ok=False)},
           "RandomizedResponse.estimate", snapshot=False),
    method(lambda: mechanisms.RandomizedResponse(0.5), "std", {"n": 10},
           {"n": Int(1, None, practical=(1, 10**9))}, "RandomizedResponse.std", snapshot=False),
    function(mechanisms.warner_response, {"bits": [0, 1], "rng": 0, "truth_probability": 0.5},
             {"bits": Bits(ndim=None, empty_ok=False), "truth_probability": PROB, "rng": RNG}),
    function(mechanisms.warner_estimate, {"reports": [0, 1, 1], "truth_probability": 0.5},
             {"reports": Bits(ndim=None, empty_ok=False), "truth_probability": PROB}),
    function(mechanisms.warner_epsilon, {"truth_probability": 0.5}, {"truth_probability": PROB}),
    # ---------------------------------------------------------------- module 02: local model
    function(local.local_epsilon, {"channel": [[0.5, 0.5], [0.25, 0.75]]},
             {"channel": Custom(CHANNEL_BADS)}),
    function(local.warner_pair_distribution, {"row": [1, 0], "truth_probability": 0.5},
             {"row": Bits(ndim=1, base=(1, 0), empty_ok=False), "truth_probability": PROB}),
    function(local.warner_and_distribution, {"row": [1, 0], "truth_probability": 0.5},
             {"row": Bits(ndim=1, base=(1, 0), empty_ok=False), "truth_probability": PROB}),
    function(local.warner_and, {"rows": [[1, 1], [0, 1]], "rng": 0, "truth_probability": 0.5},
             {"rows": Bits(ndim=None, base=((1, 1), (0, 1)), empty_ok=False),
              "truth_probability": PROB, "rng": RNG}),
    function(local.warner_and_epsilon, {"truth_probability": 0.5, "bits": 2, "release": "and"},
             {"truth_probability": PROB, "bits": Int(1, 12, practical=(1, 6)),
              "release": Choice(("and", "row"))}),
    *[entry for cls in (local.DirectEncoding, local.UnaryEncoding, local.OptimizedUnaryEncoding)
      for entry in _encoding_entries(cls)],
    method(lambda: local.DirectEncoding(4, 1.0), "estimate", {"reports": [0, 3, 1]},
           {"reports": Elements(4, base=(0, 3, 1), ndim=None, empty_ok=False)},
           "DirectEncoding.estimate", snapshot=False),
    method(lambda: local.UnaryEncoding(4, 1.0), "estimate",
           {"reports": [[0, 1, 0, 0], [1, 0, 0, 0]]},
           {"reports": Bits(ndim=None, base=((0, 1, 0, 0), (1, 0, 0, 0)), empty_ok=False)},
           "UnaryEncoding.estimate", snapshot=False),
    # ---------------------------------------------------------------- streams
    function(streams.zipf_visitors, {"n": 10, "universe_size": 50, "exponent": 1.1, "rng": 0},
             {"n": Int(0, None, practical=(0, 1000)), "universe_size": Int(1, None, practical=(1, 1000)),
              "exponent": Real(0.0, math.inf, high_open=True, practical=(None, 50.0)), "rng": RNG}),
    function(streams.bit_stream, {"T": 10, "density": 0.3, "rng": 0},
             {"T": Int(0, None, practical=(0, 1000)), "density": Real(0.0, 1.0), "rng": RNG}),
    function(streams.sparse_bit_stream, {"T": 10, "n_ones": 3, "rng": 0},
             {"T": Int(3, None, practical=(3, 1000)), "n_ones": Int(0, 10), "rng": RNG}),
    function(streams.dynamic_stream,
             {"universe_size": 50, "n_users": 5, "rng": 0, "leave_probability": 0.5,
              "max_visits": 2},
             {"universe_size": Int(5, None, practical=(5, 1000)), "n_users": Int(0, 50),
              "leave_probability": Real(0.0, 1.0), "max_visits": Int(1, None, practical=(1, 50)),
              "rng": RNG}),
    function(streams.zipf_probabilities, {"universe_size": 50, "exponent": 1.1},
             {"universe_size": Int(1, None, practical=(1, 10**5)),
              "exponent": Real(0.0, math.inf, high_open=True, practical=(None, 50.0))}),
    function(streams.frequencies, {"updates": [[1, 1], [2, 1], [1, -1]], "universe_size": 10},
             {"updates": Updates(10, one_d_ok=True),   # (k, 2) updates, or a 1-D stream of IDs
              "universe_size": Int(3, None, practical=(3, 10**5))}),
    function(streams.user_neighbours, {"stream": [1, 2, 3], "x": 2, "replacement": 9,
                                       "universe_size": 10},
             {"stream": Elements(10), "x": Int(0, 9, practical=(0, 8)),   # x' = 9 ≠ x
              "universe_size": Int(10, None, optional=True, practical=(10, 100))}),
    function(streams.remove_user, {"stream": [1, 2, 3], "x": 2, "universe_size": 10},
             {"stream": Elements(10), "x": Int(0, 9)}),
    function(streams.event_neighbours, {"stream": [0, 1, 0], "t": 1, "universe_size": 2},
             {"stream": Elements(2, base=(0, 1, 0)), "t": Int(0, 2)}),
    # ---------------------------------------------------------------- module 03: density
    constructor(density.DensityEstimator,
                {"universe_size": N, "epsilon": 0.5, "m": 50, "rng": 0},
                {"universe_size": UNIVERSE,
                 "epsilon": Real(0.0, 0.5, low_open=True),          # Claim 4.1: (0, 1/2]
                 "m": Int(1, N), "rng": RNG}),
    constructor(density.DensityEstimator,
                {"universe_size": 10**6, "epsilon": 0.5, "alpha": 0.2, "beta": 0.1, "rng": 0},
                {"alpha": Real(0.0, 1.0, low_open=True, high_open=True, optional=True,
                               practical=(0.1, None)),   # m <= 10^6 = universe_size
                 "beta": Real(0.0, 1.0, low_open=True, high_open=True, optional=True,
                              practical=(1e-5, None))},
                name="DensityEstimator(alpha, beta)"),
    *_stream_entries("DensityEstimator", _density, N),
    constructor(density.DistinctCountEstimator,
                {"universe_size": 1024, "epsilon": 1.0, "m": 16, "alpha": 0.1, "rng": 0},
                {"universe_size": Int(2, 2**31 - 1, practical=(128, 2**31 - 1)),  # ε/L <= 1/2
                 "epsilon": Real(0.0, 3.5, low_open=True),  # L = 7 levels, ε/L <= 1/2
                 "m": Int(1, 1024, practical=(1, 128)), "alpha": PROB, "rng": RNG,
                 "selection": Custom((("first", ("'first'",), ("'paper'", "'neighbour'")),
                                      (None, ("None",), ("'paper'", "'neighbour'"))),
                                     goods=("paper", "neighbour"))}),
    constructor(incidence.ModularIncidenceEstimator,
                {"universe_size": N, "k": 3, "epsilon": 1.0, "m": 1, "rng": 0},   # m <= universe_size
                {"universe_size": Int(1, 2**62, practical=(1, 10**9)), "k": Int(2, 2**20, practical=(2, 64)),
                 "epsilon": Real(0.0, 700.0, low_open=True), "m": Int(1, N, practical=(1, 100)), "rng": RNG}),
    *_stream_entries("ModularIncidenceEstimator",
                     lambda: incidence.ModularIncidenceEstimator(N, 3, 1.0, 100, rng=0), N),
    function(incidence.modular_incidence, {"stream": [0, 1, 1], "universe_size": 5, "k": 3},
             {"universe_size": Int(2, None, practical=(2, 10**6)), "k": Int(2, None, practical=(2, 64))}),
    *_stream_entries("DistinctCountEstimator",
                     lambda: density.DistinctCountEstimator(1024, 1.0, 16, 0.1, rng=0), 1024),
    constructor(density.SkipBlanks, {"algorithm": _density()},
                {"algorithm": Custom(ALGORITHM_BADS)}),
    *_stream_entries("SkipBlanks", lambda: density.SkipBlanks(_density()), N,
                     x_spec=Int(-1, N - 1), stream_spec=Elements(N, blank=True)),
    function(density.d1_probability, {"epsilon": 0.5}, {"epsilon": Real(0.0, 2.0, low_open=True)}),
    function(density.claim_4_1_epsilon, {"epsilon": 0.5},
             {"epsilon": Real(0.0, 2.0, low_open=True)}, infinite_ok=True),   # inf at ε = 2
    function(density.roth_sample_size, {"epsilon": 0.5, "alpha": 0.2, "beta": 0.1},
             {"epsilon": EPS, "alpha": PROB, "beta": PROB}),
    function(density.density_error_sd,
             {"density": 0.3, "universe_size": 100, "m": 10, "epsilon": 0.5, "intrusions": 0},
             {"density": Real(0.0, 1.0), "universe_size": Int(10, None, practical=(10, 10**6)),
              "m": Int(1, 100), "epsilon": Real(0.0, 2.0, low_open=True, practical=(1e-9, None)), "intrusions": Int(0, None, practical=(0, 10))}),
    function(density.pan_privacy_pmf, {"universe_size": 3, "m": 1, "epsilon": 0.5,
                                       "stream": [0, 1, -1], "intrusion_time": 1},
             {"universe_size": Int(2, 12, practical=(2, 4)), "m": Int(1, 3),   # m <= min(N, 4)
              "epsilon": Real(0.0, 2.0, low_open=True), "intrusion_time": Int(0, 3),
              "stream": Elements(3, base=(0, 1, -1), blank=True)}),
    function(density.exact_pan_privacy_epsilon,
             {"universe_size": 3, "m": 1, "epsilon": 0.5, "stream_a": [0, 1, -1],
              "stream_b": [0, -1, -1], "intrusion_time": 1},
             {"epsilon": Real(0.0, 2.0, low_open=True, practical=(1e-3, None)),
              "intrusion_time": Int(0, 3),
              "theta_noise_scale": Real(0.0, math.inf, low_open=True, high_open=True,
                                        optional=True, practical=(1e-4, 1e3))},
             infinite_ok=True),   # inf: 1/(m s) overflows, or a view possible on one side only
    function(density.blank_out, {"stream": [1, 2, 3], "x": 2},
             {"stream": Elements(2**63, ndim=1, blank=True, range_words=("BLANK", "2^63")), "x": Int(0, None, practical=(0, 100))}),
    # ---------------------------------------------------------------- module 03: strawmen
    function(strawmen.keyed_hash, {"key": b"0123456789abcdef", "ids": [1, 2, 3]},
             {"ids": RealArray(base=(1, 2, 3), integer=True),
              "key": Custom(((None, ("None",), ("bytes",)), ("k", ("'k'",), ("bytes",)),
                             (b"k" * 65, ("kkk",), ("at most 64",))))}),
    constructor(strawmen.ExactSet, {"universe_size": N, "epsilon": 1.0, "rng": 0},
                {"universe_size": UNIVERSE, "epsilon": EPS, "rng": RNG}),
    *_stream_entries("ExactSet", lambda: strawmen.ExactSet(N, 1.0, rng=0), N),
    constructor(strawmen.HashedIDs, {"universe_size": N, "epsilon": 1.0, "rng": 0},
                {"universe_size": UNIVERSE, "epsilon": EPS, "rng": RNG}),
    *_stream_entries("HashedIDs", lambda: strawmen.HashedIDs(N, 1.0, rng=0), N),
    constructor(strawmen.SampledBits, {"universe_size": N, "m": 10, "epsilon": 1.0, "rng": 0},
                {"universe_size": UNIVERSE, "m": Int(1, N), "epsilon": EPS, "rng": RNG}),
    *_stream_entries("SampledBits", lambda: strawmen.SampledBits(N, 10, 1.0, rng=0), N),
    # ---------------------------------------------------------------- module 04: counters
    constructor(counters.SimpleCounter, {"epsilon": 1.0, "rng": 0},
                {"epsilon": EPS, "mechanism": Choice(("laplace", "randomized_response")),
                 "rng": RNG}),
    constructor(counters.SimpleCounter, {"mechanism": "randomized_response", "bias": 0.25},
                {"bias": Real(0.0, 1.0, low_open=True, high_open=True, optional=True)},
                name="SimpleCounter(bias)"),
    *_counter_entries("SimpleCounter", lambda: counters.SimpleCounter(1.0, rng=0)),
    *_counter_entries("SimpleCounter(randomized_response)",
                      lambda: counters.SimpleCounter(1.0, rng=0, mechanism="randomized_response")),
    constructor(counters.BinaryTreeCounter, {"T": 8, "epsilon": 1.0, "rng": 0},
                {"T": Int(1, None, practical=(1, 4096)), "epsilon": EPS, "rng": RNG}),
    *_counter_entries("BinaryTreeCounter", lambda: counters.BinaryTreeCounter(8, 1.0, rng=0)),
    method(lambda: counters.BinaryTreeCounter(8, 1.0, rng=0), "error_bound", {"beta": 0.05},
           {"beta": PROB}, "BinaryTreeCounter.error_bound", snapshot=False),
    constructor(counters.CascadingBuffersCounter,
                {"epsilon": 1.0, "d": 2, "ell": 5.0, "kappa": 1.0, "rng": 0},
                {"epsilon": EPS, "d": Int(1, None, practical=(1, 50)), "ell": POSITIVE,
                 "kappa": POSITIVE, "rng": RNG}),
    function(counters.CascadingBuffersCounter.from_T, {"T": 1024, "epsilon": 1.0, "rng": 0},
             {"T": Int(1, None, practical=(1, 2**40)), "epsilon": EPS, "rng": RNG},
             name="CascadingBuffersCounter.from_T"),
    *_counter_entries("CascadingBuffersCounter",
                      lambda: counters.CascadingBuffersCounter(1.0, 2, 5.0, 1.0, rng=0)),
    constructor(counters.HonakerTreeCounter, {"T": 8, "epsilon": 1.0, "rng": 0},
                {"T": Int(1, None, practical=(1, 4096)), "epsilon": EPS, "rng": RNG}),
    *_counter_entries("HonakerTreeCounter", lambda: counters.HonakerTreeCounter(8, 1.0, rng=0)),
    constructor(counters.SqrtFactorizationCounter,
                {"T": 8, "epsilon": 1.0, "delta": 1e-6, "rng": 0},
                {"T": Int(1, None, practical=(1, 4096)), "epsilon": EPS, "delta": PROB,
                 "rng": RNG}),
    *_counter_entries("SqrtFactorizationCounter",
                      lambda: counters.SqrtFactorizationCounter(8, 1.0, 1e-6, rng=0)),
    function(counters_baselines.analytic_gaussian_sigma,
             {"sensitivity": 1.0, "epsilon": 1.0, "delta": 1e-6},
             {"sensitivity": POSITIVE, "epsilon": EPS, "delta": PROB}),
    function(counters.as_bit, {"x": 1}, {"x": Bit()}),
    function(counters.as_bit_stream, {"stream": [0, 1]}, {"stream": Bits()}),
    function(counters.check_horizon, {"T": 5}, {"T": Int(1, None, practical=(1, 2**62))}),
    function(counters.tree_nodes, {"T": 8}, {"T": Int(1, None, practical=(1, 4096))}),
    function(counters.node_level, {"node": (5, 6)},
             {"node": Custom(((3, ("int",), ("pair",)), ((1,), ("(1,)",), ("pair",)),
                              ((3, 1), ("(3, 1)",), ("dyadic",)), ((2, 3), ("(2, 3)",), ("dyadic",)),
                              ((0, 0), ("(0, 0)",), (">= 1",)), ((1.0, 2.0), ("1.0",), ("integer",))),
                             goods=((1, 1), (1, 8), (9, 10), (2**40 + 1, 2**41)))}),
    function(counters_baselines.honaker_node_variances, {"L": 3, "node_variance": 2.0},
             {"L": Int(1, None, practical=(1, 64)), "node_variance": POSITIVE}),
    function(counters_baselines.sqrt_coefficients, {"T": 8}, {"T": Int(1, None, practical=(1, 4096))}),
    function(counters_baselines.zcdp_delta, {"rho": 0.1, "epsilon": 1.0}, {"rho": POSITIVE, "epsilon": EPS}),
    function(counters_baselines.zcdp_rho, {"epsilon": 1.0, "delta": 1e-6}, {"epsilon": EPS, "delta": PROB}),
    function(counters.tree_levels, {"T": 8}, {"T": Int(1, None, practical=(1, 2**62))}),
    function(counters.dyadic_intervals, {"t": 3, "T": 8},
             {"t": Int(1, 8), "T": Int(3, None, practical=(3, 2**40))}),
    function(counters.nodes_containing, {"i": 3, "T": 8},
             {"i": Int(1, 8), "T": Int(3, None, practical=(3, 2**40))}),
    function(counters.decomposition_sizes, {"T": 8}, {"T": Int(1, None, practical=(1, 4096))}),
    # ---------------------------------------------------------------- module 05: PPCum, Fig 3
    constructor(ppcum.PanPrivateTreeCounter, {"T": 8, "epsilon": 1.0, "rng": 0},
                {"T": Int(1, None, practical=(1, 4096)), "epsilon": EPS, "rng": RNG}),
    *_counter_entries("PanPrivateTreeCounter", lambda: ppcum.PanPrivateTreeCounter(8, 1.0, rng=0)),
    function(ppcum.PanPrivateTreeCounter.from_noise,
             {"T": 2, "epsilon": 1.0, "N": 0.5, "N_I": {(1, 1): 0.1, (2, 2): 0.2}},
             {"N": Real(), "N_I": Custom(N_I_BADS), "epsilon": EPS},
             name="PanPrivateTreeCounter.from_noise"),
    function(ppcum.kept_nodes, {"t": 3, "T": 8}, {"t": Int(0, 8), "T": Int(3, None, practical=(3, 512))}),
    function(ppcum.erased_nodes, {"t": 3, "T": 8}, {"t": Int(1, 8), "T": Int(3, None, practical=(3, 512))}),
    function(ppcum.coupling_shift, {"j": 3, "T": 8}, {"j": Int(1, 8), "T": Int(3, None, practical=(3, 2**40))}),
    function(ppcum.ppcum_view, {"stream": [1, 0], "T": 2, "N": 0.0,
                                 "N_I": {(1, 1): 0.1, (2, 2): 0.2}, "t": 2},
             {"stream": Bits(base=(1, 0)), "t": Int(1, 2, optional=True), "N": Real(),
              "N_I": Custom(N_I_BADS)}),
    function(ppcum.min_shift_cost, {"j": 2, "t": 3, "T": 4},
             {"j": Int(1, 4), "t": Int(1, 4), "T": Int(4, None, practical=(4, 16))}),
    function(ppcum.exact_past_epsilon, {"T": 4, "epsilon": 1.0},
             {"T": Int(1, None, practical=(1, 8)), "epsilon": EPS,
              "t": Int(1, 4, optional=True)}),
    constructor(continual.ContinualDensityEstimator,
                {"universe_size": N, "epsilon": 0.4, "m": 20, "T": 16, "rng": 0},
                {"universe_size": UNIVERSE,
                 "epsilon": Real(0.0, continual.MAX_EPSILON, low_open=True),  # D+: (0, √2 - 1]
                 "m": Int(1, N), "T": Int(1, None, practical=(1, 4096)),
                 "counter": Custom(COUNTER_BADS), "rng": RNG}),
    method(_cde, "step", {"x": 5}, {"x": Int(-1, N - 1)}, "ContinualDensityEstimator.step"),
    method(_cde, "run", {"stream": [1, 2, -1]}, {"stream": Elements(N, base=(1, 2, -1), blank=True)},
           "ContinualDensityEstimator.run"),
    function(continual.counter_input_probabilities, {"epsilon": 0.4},
             {"epsilon": Real(0.0, continual.MAX_EPSILON, low_open=True)}),
    function(continual.claim_7_1, {"epsilon": 0.4},
             {"epsilon": Real(0.0, continual.MAX_EPSILON, low_open=True)}),
    # ---------------------------------------------------------------- module 06: sketches
    constructor(sketches.CountMinSketch, {"width": 16, "depth": 3, "universe_size": N, "rng": 0},
                {"width": Int(1, None, practical=(1, 4096)), "depth": Int(1, None, practical=(1, 64)),
                 "universe_size": Int(1, sketches.HASH_PRIME, practical=(1, sketches.HASH_PRIME)),
                 "rng": RNG}),
    function(sketches.CountMinSketch.with_accuracy,
             {"error": 0.1, "failure_probability": 0.01, "universe_size": N, "rng": 0},
             {"error": Real(math.e / sketches.HASH_PRIME, 1.0, high_open=True, practical=(1e-3, None)),
              "failure_probability": PROB}, name="CountMinSketch.with_accuracy"),
    method(lambda: sketches.CountMinSketch(16, 3, N, rng=0), "update", {"x": 5, "delta": 1},
           {"x": Int(0, N - 1), "delta": Int(None, None, practical=(-5, 5))},
           "CountMinSketch.update"),
    method(lambda: sketches.CountMinSketch(16, 3, N, rng=0), "process", {"stream": [1, 2, 3]},
           {"stream": Elements(N, ndim=None)}, "CountMinSketch.process"),
    method(lambda: sketches.CountMinSketch(16, 3, N, rng=0), "estimate", {"x": 5},
           {"x": Elements(N, ndim=None)}, "CountMinSketch.estimate"),   # one x or an array
    constructor(stable.StableSketch, {"universe_size": 10, "p": 1.0, "r": 3, "rng": 0},
                {"universe_size": Int(1, None, practical=(1, 500)),
                 "p": Real(0.0, 2.0, low_open=True), "r": Int(1, None, practical=(1, 100)),
                 "resolution": Int(1, None, optional=True, practical=(1, 1000)),
                 "X": Custom(X_BADS), "rng": RNG}),
    *_dynamic_entries("StableSketch", lambda: stable.StableSketch(10, 1.0, 3, rng=0), 10),
    constructor(stable.PanPrivateDistinctCount, {"universe_size": 2, "Z": 1, "epsilon": 1.0, "rng": 0},
                {"universe_size": Int(2, None, practical=(2, 3)), "Z": Int(1, None, practical=(1, 2)),
                 "epsilon": EPS, "p": Real(0.0, 2.0, low_open=True),
                 "r": Int(1, None, practical=(1, 4)), "resolution": Int(1, None, optional=True, practical=(1, 8)),
                 "max_candidates": Int(25, None, practical=(25, 10**9)), "rng": RNG,
                 "cost": Custom(COST_BADS, goods=("l0", "l1", "l2", lambda c: np.abs(c).sum(axis=1))),
                 "sensitivity": Real(0.0, math.inf, low_open=True, high_open=True, optional=True,
                                     practical=(None, 1e6))}),
    *_dynamic_entries("PanPrivateDistinctCount", _ppdc, 2),
    function(stable.enumeration_size, {"universe_size": 2, "Z": 1},
             {"universe_size": Int(1, None, practical=(1, 50)), "Z": Int(1, None, practical=(1, 50))}),
    function(stable.stable_sample, {"p": 1.0, "size": 2000, "rng": 0},   # many: NaN draws show
             {"p": Real(0.0, 2.0, low_open=True), "rng": RNG}),
    function(stable.stable_scale_factor, {"p": 1.0}, {"p": Real(0.0, 2.0, low_open=True,
                                                              practical=(0.2, None))}),
    function(stable.lp_power, {"a": [1, -2, 0], "p": 1.0},
             {"a": RealArray(base=(1, -2, 0), ndim=1), "p": Real(0.0, 2.0, low_open=True)}),
    function(cropped.cropped_moment, {"a": [0, 3, 1], "tau": 2.0},
             {"a": RealArray(base=(0.0, 3.0, 1.0), ndim=1, nonnegative=True), "tau": POSITIVE}),
    function(cropped.modular_moment, {"a": [0, 3, 1], "w": [1.5, 1.2, 1.9], "tau": 2.0},
             {"a": RealArray(base=(0.0, 3.0, 1.0), ndim=1), "tau": POSITIVE,
              "w": Custom((([1.5], ("(1,)",), ("(3,)",)),
                           ([[1.5, 1.2, 1.9]], ("(1, 3)",), ("1-dimensional",)),
                           ([1.5, math.nan, 1.0], NONFINITE_SHOWN, ("finite",))))}),
    function(cropped.expected_modular_term, {"a": [0, 3, 1], "tau": 2.0},
             {"a": RealArray(base=(0.0, 3.0, 1.0)), "tau": Real(0.5, 1e150, practical=(None, 1e6)),
              "window": Real(2e-300, 4.0, high_open=True, optional=True)}),
    function(cropped.heavy_hitters, {"a": [0, 3, 1, 9], "k": 2.0},
             {"a": RealArray(base=(0.0, 3.0, 1.0, 9.0), ndim=1, nonnegative=True), "k": POSITIVE,
              "F1": Real(0.0, math.inf, high_open=True, optional=True, practical=(None, 1e6))}),
    constructor(cropped.CroppedSum, {"universe_size": 10, "tau": 2.0, "epsilon": 1.0, "rng": 0},
                {"universe_size": Int(1, None, practical=(1, 10**5)),
                 "tau": GridReal(0.5, 2.0**31, practical=(0.6, 1e6), step=2.0**-22,   # 2τ > L = 1
                                 off_grid=(0.6, 1 + 2.0**-30, 1e6 + 0.1)),
                 "epsilon": Real(0.0, 700.0, low_open=True, practical=(1e-9, None)),
                 "window": GridReal(0.0, 4.0, low_open=True, high_open=True, step=2.0**-21,
                                    off_grid=(0.3, 2.0**-22, 4.0 - 2.0**-30)),
                 "rng": RNG}),
    *_dynamic_entries("CroppedSum", lambda: cropped.CroppedSum(10, 2.0, 1.0, rng=0), 10),
    function(cropped.noise_pdf, {"x": [0.5, 3.0], "tau": 2.0, "epsilon": 1.0, "window": 1.0},
             {"tau": Real(0.5, 1e300, practical=(2.0, 1e6)), "epsilon": Real(
                 0.0, 700.0, low_open=True, practical=(1e-9, None)),
              "window": Real(0.0, 4.0, low_open=True, high_open=True)}),
    function(cropped.sample_noise, {"tau": 2.0, "epsilon": 1.0, "size": 3, "rng": 0, "window": 1.0},
             {"tau": Real(0.5, 1e300, practical=(2.0, 1e6)), "epsilon": Real(
                 0.0, 700.0, low_open=True, practical=(1e-9, None)),
              "window": Real(0.0, 4.0, low_open=True, high_open=True), "rng": RNG}),
    constructor(cropped.HeavyHittersCount,
                {"universe_size": 50, "k": 4, "c": 2.0, "h": 8, "epsilon": 1.0, "F1": 200.0,
                 "rng": 0},
                {"universe_size": Int(1, None, practical=(1, 10**4)),
                 "k": Real(1.0, math.inf, high_open=True, practical=(None, 100.0)),
                 "c": Real(1.0, math.inf, low_open=True, high_open=True, practical=(None, 100.0)),
                 "h": Int(1, None, practical=(1, 1000)),
                 "epsilon": Real(0.0, 700.0, low_open=True, practical=(1e-9, None)),
                 "F1": Real(0.0, math.inf, low_open=True, high_open=True,
                            practical=(200.0 * 4, 1e6)),
                 "window_fraction": Real(0.0, 2.0, low_open=True, high_open=True, optional=True),
                 "rng": RNG}),
    *_dynamic_entries("HeavyHittersCount", _hh, 50),
]

# the counters that serve a fixed number T of steps (the "more than T steps" test)
HORIZON_COUNTERS = {
    "BinaryTreeCounter": lambda T: counters.BinaryTreeCounter(T, 1.0, rng=0),
    "HonakerTreeCounter": lambda T: counters.HonakerTreeCounter(T, 1.0, rng=0),
    "SqrtFactorizationCounter": lambda T: counters.SqrtFactorizationCounter(T, 1.0, 1e-6, rng=0),
    "PanPrivateTreeCounter": lambda T: ppcum.PanPrivateTreeCounter(T, 1.0, rng=0),
    "ContinualDensityEstimator": lambda T: continual.ContinualDensityEstimator(N, 0.4, 20, T, rng=0),
}


def cases(kind: str) -> list:
    """(entry, parameter) pairs whose spec has `kind` ("invalid" or "valid") strategies."""
    out = []
    for entry in ENTRIES:
        for name, spec in entry.params.items():
            if kind == "valid" and (isinstance(spec, Custom) and not spec.goods):
                continue
            out.append((entry, name))
    return out
