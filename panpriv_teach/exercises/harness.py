"""The machinery shared by every exercise checker.

A checker is a function decorated with `@exercise("1.2", "title")` that takes the
student's answer, runs it through `call` (never trusting it: exceptions, wrong types,
NaN and code that never returns become diagnoses), and either returns a short pass
message or raises `ExerciseFailed` with a diagnosis in words a student understands.
IPython shows only the diagnosis (via `_render_traceback_`), not a library traceback.
"""
from __future__ import annotations

import contextlib
import functools
import math
import numbers
import os
import signal
import sysconfig
import threading
import time
import traceback

import numpy as np

PASS_MARK = "✓"
FAIL_MARK = "✗"
# Real seconds per second of every time limit. Tests set it below 1 to run the limits fast;
# `call` reads the same scale (`_clock`), so it still tells its own limit from an enclosing one.
TIME_SCALE = 1.0


class ExerciseFailed(Exception):
    """The answer is wrong; the message says what is wrong without giving the answer away."""

    label = "not passed yet"

    def __init__(self, diagnosis: str, exercise: str | None = None):
        super().__init__(diagnosis)
        self.diagnosis = diagnosis
        self.exercise = exercise

    def __str__(self) -> str:
        prefix = f"Exercise {self.exercise}: " if self.exercise else ""
        return prefix + self.diagnosis

    def _render_traceback_(self) -> list[str]:
        red, reset = "\x1b[31m", "\x1b[0m"
        title = f"Exercise {self.exercise} {self.label}" if self.exercise else self.label
        return [f"{red}{FAIL_MARK} {title}{reset}", *self.diagnosis.splitlines()]


class ExerciseNotAttempted(ExerciseFailed):
    """The answer still raises the stub's NotImplementedError."""

    label = "not attempted yet"


class _TimeLimit(BaseException):
    """Raised inside student code by the alarm; a BaseException so `except Exception` in
    the student's code cannot swallow it."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Interrupt the block after `seconds` (× TIME_SCALE of real time; Unix main thread only,
    elsewhere no limit).

    Nests: an inner limit never extends an outer one, and the outer one resumes after it.
    """
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def _alarm(signum, frame):
        raise _TimeLimit()

    mine = seconds * TIME_SCALE
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    start = time.monotonic()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, min(mine, outer_left) if outer_left else mine)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_left:
            left = outer_left - (time.monotonic() - start)
            if left <= 0:  # the outer limit ran out inside this block: it fires now
                raise _TimeLimit()
            signal.setitimer(signal.ITIMER_REAL, left)


def _clock() -> float:
    """Seconds as the time limits count them (real seconds / TIME_SCALE)."""
    return time.monotonic() / TIME_SCALE


_LIBRARY_DIRS = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                 sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"])


def _where(exc: BaseException) -> str:
    """The last frame of the traceback outside this package and installed libraries:
    the student's own line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not os.path.abspath(f.filename).startswith(_LIBRARY_DIRS)]
    if not frames:
        return ""
    f = frames[-1]
    line = f"  → {f.line.strip()}" if f.line else ""
    return f"\n  (at line {f.lineno} of your code{line})"


def describe_call(name: str, args: tuple, kwargs: dict) -> str:
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    if isinstance(value, np.random.Generator):
        return "<rng>"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def call(fn, *args, seconds: float = 10.0, repeat: int | None = None, **kwargs):
    """Call the student's `fn(*args, **kwargs)` (or `repeat` times, returning a list),
    turning every way it can go wrong into a diagnosis."""
    name = getattr(fn, "__name__", "your function")
    if not callable(fn):
        raise ExerciseFailed(f"expected a function, got {type(fn).__name__} ({_short(fn)}). "
                             "Pass the function itself, without calling it: "
                             "check.exercise_N_k(my_function), not my_function().")
    shown = describe_call(name, args, kwargs)
    start = _clock()
    try:
        with time_limit(seconds):
            if repeat is None:
                return fn(*args, **kwargs)
            return [fn(*args, **kwargs) for _ in range(repeat)]
    except NotImplementedError as exc:
        raise ExerciseNotAttempted("your function still raises NotImplementedError: replace the "
                                   f"`raise NotImplementedError(...)` line with your code ({exc}).") from None
    except _TimeLimit:
        if _clock() - start < seconds:  # an enclosing limit (the whole check's) ran out
            raise
        calls = "" if repeat is None else f" {repeat} times"
        raise ExerciseFailed(f"calling {shown}{calls} did not finish within {seconds:g} s. Look for "
                             "a loop that never ends, or vectorise with numpy.") from None
    except Exception as exc:  # the student's code may raise anything
        raise ExerciseFailed(f"{shown} raised {type(exc).__name__}: {exc}{_where(exc)}") from None


def expect_uses_rng(fn, *args, convert=None, **kwargs) -> None:
    """Fail unless `fn(*args, rng=...)` is reproducible from its `rng` argument and
    draws its randomness from it (same seed → same answer; another seed → another).
    `convert` validates one answer first (e.g. `as_real`), so a broken answer gets the
    diagnosis about its type, not about randomness."""
    def run(seed):
        answer = call(fn, *args, rng=np.random.default_rng(seed), **kwargs)
        return np.asarray(convert(answer) if convert else answer, dtype=object)

    first, again, other = run(12345), run(12345), run(54321)
    if first.shape != again.shape or not np.array_equal(first, again):
        raise ExerciseFailed("two calls with the same seeded rng gave different answers: your "
                             "function draws randomness from somewhere else (np.random.*, the "
                             "random module). Draw every random number from the `rng` argument.")
    if first.shape == other.shape and np.array_equal(first, other):
        raise ExerciseFailed("calls with different rng seeds gave the same answer: is your "
                             "function random at all? Draw the noise from the `rng` argument.")


def as_real(value, what: str) -> float:
    """`value` as a finite float, or a diagnosis naming `what`."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ExerciseFailed(f"{what} should be a number, but it is {type(value).__name__} "
                             f"({_short(value)}). Did you forget a `return`?")
    value = float(value)
    if not math.isfinite(value):
        raise ExerciseFailed(f"{what} is {value}: look for a division by zero or log(0).")
    return value


def as_array(value, what: str, shape: tuple | None = None) -> np.ndarray:
    """`value` as a finite float array (of `shape` if given), or a diagnosis naming `what`."""
    if value is None:
        raise ExerciseFailed(f"{what} is None. Did you forget a `return`?")
    try:
        if np.asarray(value).dtype.kind in "USOc":   # complex: float() would drop the imaginary part
            raise TypeError("not real numbers")
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ExerciseFailed(f"{what} should be an array of numbers, got {type(value).__name__} "
                             f"({_short(value)}).") from None
    if shape is not None and array.shape != shape:
        raise ExerciseFailed(f"{what} should have shape {shape}, but has shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise ExerciseFailed(f"{what} contains NaN or infinity.")
    return array


def exercise(number: str, title: str, seconds: float = 30.0):
    """Decorate a checker: it receives the answer and returns a pass message or raises
    ExerciseFailed. The wrapper prints the pass line and labels any failure with `number`;
    `seconds` bounds the whole check (student code included)."""

    def decorate(check):
        @functools.wraps(check)
        def checker(answer):
            try:
                with time_limit(seconds):
                    message = check(answer)
            except ExerciseFailed as exc:
                exc.exercise = number
                raise exc.with_traceback(None) from None
            except _TimeLimit:
                raise ExerciseFailed(f"checking took more than {seconds:g} s: your code is too "
                                     "slow. Vectorise with numpy instead of Python loops.",
                                     number) from None
            print(f"{PASS_MARK} Exercise {number} passed: {message}")

        checker.exercise = number
        checker.title = title
        return checker

    return decorate


def exercises_of(module) -> dict[str, object]:
    """The checkers a checker module defines, keyed by exercise number, in order."""
    found = [f for f in vars(module).values() if callable(f) and hasattr(f, "exercise")]
    return {f.exercise: f for f in sorted(found, key=lambda f: tuple(map(int, f.exercise.split("."))))}
