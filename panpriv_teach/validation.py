"""Parameter checks shared by every module: reject bad input at the door, with a message
that names the parameter, the value given and the valid range (and the source's condition
where there is one), so a student never gets a wrong answer or a numpy traceback.
"""
from __future__ import annotations

import math
import numbers

import numpy as np


def _interval(low, high, low_open, high_open) -> str:
    left = "(" if low_open or low is None else "["
    right = ")" if high_open or high is None else "]"
    lo = "-inf" if low is None else f"{low:g}"
    hi = "inf" if high is None else f"{high:g}"
    return f"{left}{lo}, {hi}{right}"


# The valid ranges, as text: built only when a check fails (every constructor checks).
def _reals(low, high, low_open, high_open) -> str:
    return f"a real number in {_interval(low, high, low_open, high_open)}"


def _integers(low, high) -> str:
    return f"an integer in {_interval(low, high, False, False)}"


def _fail(name: str, value, valid: str, note: str, error=ValueError):
    why = f" ({note})" if note else ""
    raise error(f"{name} must be {valid}{why}; got {value!r}")


def require_real(name: str, value, *, low=None, high=None, low_open=False,
                 high_open=False, note: str = "") -> float:
    """Return `value` as a float, or raise naming `name`, `value` and the interval."""
    def fail(value, note=note, error=ValueError):
        _fail(name, value, _reals(low, high, low_open, high_open), note, error)

    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        fail(value, error=TypeError)
    try:
        value = float(value)
    except OverflowError:                    # an int or Fraction beyond float64
        fail(value, note or "beyond the range of float64")
    if math.isnan(value):
        fail(value)
    if low is not None and (value < low or (low_open and value == low)):
        fail(value)
    if high is not None and (value > high or (high_open and value == high)):
        fail(value)
    return value


def require_bool(name: str, value, *, note: str = "") -> bool:
    """Return `value` as a bool (True, False or a numpy bool), or raise a TypeError naming it."""
    if not isinstance(value, (bool, np.bool_)):
        _fail(name, value, "True or False", note, TypeError)
    return bool(value)


def require_int(name: str, value, *, low=None, high=None, note: str = "") -> int:
    """Return `value` as an int, or raise naming `name`, `value` and the range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        _fail(name, value, _integers(low, high), note, TypeError)
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        _fail(name, value, _integers(low, high), note)
    return value


def require_epsilon(value, *, name: str = "epsilon", high=None, note: str = "") -> float:
    """A privacy parameter: a finite real number in (0, high]."""
    return require_real(name, value, low=0.0, high=high if high is not None else math.inf,
                        low_open=True, high_open=high is None, note=note)


def require_probability(name: str, value, *, note: str = "") -> float:
    """A probability strictly between 0 and 1 (as the accuracy parameters alpha, beta)."""
    return require_real(name, value, low=0.0, high=1.0, low_open=True, high_open=True, note=note)


def require_array(name: str, values, *, ndim: int | None = None, allowed=None,
                  integer: bool = False, nonempty: bool = False, note: str = "") -> np.ndarray:
    """Return `values` as a numpy array after checking its type, shape and entries.

    `allowed` is a set of permitted values (e.g. {0, 1} for bit streams); `integer`
    demands whole numbers (floats such as 2.0 are accepted and converted).
    """
    try:
        array = np.asarray(values)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be array-like of numbers; got {type(values).__name__}"
                        f" ({exc})") from None
    if array.dtype == object or not (np.issubdtype(array.dtype, np.number)
                                     or array.dtype == bool):
        raise TypeError(f"{name} must hold numbers; got an array of dtype {array.dtype}")
    if array.dtype.kind == "c":   # complex numbers have no order: ranges would be meaningless
        raise TypeError(f"{name} must hold real numbers; got an array of dtype {array.dtype}")
    if ndim is not None and array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional; got shape {array.shape}")
    if nonempty and array.size == 0:
        raise ValueError(f"{name} must not be empty{f' ({note})' if note else ''}")
    if array.dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must be finite; got NaN or infinity")
    if integer or allowed is not None:
        if array.dtype.kind == "f":
            if np.any(array != np.round(array)):
                bad = array[array != np.round(array)].flat[0]
                _fail(name, bad, "whole numbers", note)
            outside = np.abs(array) >= 2.0**63   # astype would wrap them into garbage
            if np.any(outside):
                _fail(name, array[outside].flat[0].item(), "whole numbers in (-2^63, 2^63) "
                      "(stored as int64)", note)
            array = array.astype(np.int64)
        elif array.dtype == bool:
            array = array.astype(np.int64)
        elif array.dtype.kind == "u":   # as int64, so comparisons with -1 etc. work
            if array.size and array.max() >= 2**63:
                _fail(name, array[array >= 2**63].flat[0].item(), "whole numbers in (-2^63, "
                      "2^63) (stored as int64)", note)
            array = array.astype(np.int64)
    if allowed is not None and array.size:
        ok = np.isin(array, list(allowed))
        if not ok.all():
            bad = array[~ok].flat[0]
            _fail(f"each entry of {name}", bad.item(), f"one of {sorted(allowed)}", note)
    return array


def require_in_universe(name: str, values, universe_size: int) -> np.ndarray:
    """Stream elements are integers 0 .. universe_size - 1."""
    array = require_array(name, values, integer=True)
    if array.size and (array.min() < 0 or array.max() >= universe_size):
        bad = array[(array < 0) | (array >= universe_size)].flat[0]
        _fail(f"each element of {name}", bad.item(),
              f"an integer in [0, {universe_size - 1}] (the universe has {universe_size} elements)", "")
    return array
