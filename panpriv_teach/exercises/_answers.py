"""Answer checks shared by the checker modules, on top of the harness: a number where a
number is asked, a numpy array where the task says "numpy array", a fresh case an answer
cannot have looked up (`fresh_answer`); and the checkers' random generators (`seeded`,
`fresh_rng`), which the tests can re-seed (`reseeded`) to measure how often a correct answer
fails. (Inputs left unchanged: every `harness.call` checks that.)"""
from __future__ import annotations

import contextlib
import numbers
import secrets
import zlib

import numpy as np

from panpriv_teach.exercises import harness
from panpriv_teach.exercises.harness import ExerciseFailed, as_real  # noqa: F401 (the checkers import it from here)


def as_numpy_array(value, what: str, shape: tuple | None = None) -> np.ndarray:
    """`value` as a finite float array, when the task says "numpy array": a list or tuple is
    told to become one (its arithmetic differs: `[1, 2] * 2` repeats the list)."""
    if isinstance(value, (list, tuple)):
        raise ExerciseFailed(f"{what} came back as a Python {type(value).__name__}; the task asks "
                             "for a numpy array: wrap it in np.array(...) (a list does not add or "
                             "scale element by element).")
    return harness.as_array(value, what, shape=shape)


def stacked_arrays(values, shape: tuple) -> np.ndarray | None:
    """The answers of a repeated call as one float array (runs × `shape`) when every one is
    a numpy array of numbers of `shape` and all are finite (each would pass
    `as_numpy_array`), else None: then the caller checks them one by one, and the first bad
    one gets its diagnosis."""
    if not all(type(v) is np.ndarray and v.dtype.kind in "biuf" and v.shape == shape
               for v in values):
        return None
    stacked = np.array(values, dtype=float)
    return stacked if np.all(np.isfinite(stacked)) else None


def as_numpy_arrays(values, what: str, shape: tuple) -> np.ndarray:
    """The answers of a repeated call as one float array (runs × `shape`), each checked by
    `as_numpy_array` (all at once when they are all fine)."""
    stacked = stacked_arrays(values, shape)
    if stacked is None:
        stacked = np.array([as_numpy_array(v, what, shape=shape) for v in values])
    return stacked


_RESEED: list[int] = []   # the test's random seed while `reseeded` is active


def seeded(seed: int) -> np.random.Generator:
    """The checker's generator for its cases and data: fixed by `seed`, so a verdict is
    reproducible (under `reseeded(k)`, fixed by (k, seed) instead)."""
    return np.random.default_rng([_RESEED[-1], seed] if _RESEED else seed)


# The random seed of this process's fresh cases, drawn once: see `fresh_rng`.
_PROCESS_SEED = secrets.randbits(64)


def fresh_rng(label: str) -> np.random.Generator:
    """The generator of exercise `label`'s extra case, drawn at check time. An answer that
    looks up the checker's fixed (seeded, readable) cases cannot know it, and a correct
    answer is exact on any case, so it costs that nothing. It is the same within one Python
    process (every check in a kernel, or in one grading run, meets the same case: checking
    an answer twice gives the same verdict) and new in every other process, from a random
    seed the process draws once (so a table made in a student's kernel misses the case of
    the grader's process). Seeded by the test's random seed under `reseeded`."""
    key = zlib.crc32(label.encode())
    return np.random.default_rng([_RESEED[-1], 2**32 - 1, key] if _RESEED
                                 else [_PROCESS_SEED, key])


@contextlib.contextmanager
def reseeded(k: int):
    """Within the block every checker draws its cases and data from random seed k: the
    test of the false-failure rate runs the checkers under many such seeds."""
    _RESEED.append(int(k))
    try:
        yield
    finally:
        _RESEED.pop()


def looked_up(where: str) -> ExerciseFailed:
    """The diagnosis of an answer right on the fixed cases that fails the fresh one as a
    table of answers would."""
    return ExerciseFailed(f"{where} is not right, although your function gets the checker's other "
                          "cases right: does it compute the answer from its arguments, or look "
                          "up answers for particular inputs? It must work for any valid input.")


def _blank(value) -> bool:
    if value is None:
        return True
    if isinstance(value, numbers.Number):
        return value == 0
    try:
        return len(value) == 0
    except Exception:  # no length: not an empty container
        return False


def _equal(a, b) -> bool:
    try:
        same = a == b
        return bool(same) if isinstance(same, (bool, np.bool_)) else bool(np.all(same))
    except Exception:  # values that cannot be compared
        return False


def fresh_answer(fn, args: tuple, fixed: list, where: str, judge) -> None:
    """Check the answer on the fresh case `args`, after it passed the fixed cases, on which
    it returned `fixed`: `judge(value)` raises the checker's ordinary diagnosis of a wrong
    value. A failure that a table of the fixed cases' answers explains (a lookup error such
    as KeyError; nothing, zero, or one of the values returned on the fixed cases) gets
    `looked_up(where)` instead; any other failure keeps its own diagnosis, so an ordinary
    bug that only this case shows is named as such."""
    outcome = harness.attempt(fn, *args)
    if outcome.kind == "raised" and outcome.error in ("KeyError", "IndexError", "LookupError",
                                                      "StopIteration"):
        raise looked_up(where)
    value = harness.value_of(outcome, where)
    try:
        judge(value)
    except ExerciseFailed:
        if _blank(value) or any(_equal(value, old) for old in fixed):
            raise looked_up(where) from None
        raise


def as_pair(answer, what: str) -> tuple:
    """`answer` as a pair (a 2-element tuple, list or array), or the diagnosis that `what`
    (the call and the pair it should return, e.g. "plan(epsilon, n) ... (bias, std)") did
    not return one."""
    if isinstance(answer, np.ndarray) and answer.shape == (2,):
        return tuple(answer)
    if not isinstance(answer, (tuple, list)) or len(answer) != 2:
        raise ExerciseFailed(f"{what}; got {type(answer).__name__} ({answer!r:.60}).")
    return tuple(answer)


_REAL_TYPES = (int, float, np.floating, np.integer)


def as_reals(values, what: str) -> np.ndarray:
    """The answers of a repeated call as a float array, each one a single finite number
    (or the first one that is not, diagnosed by `as_real`)."""
    kinds = {type(v) for v in values}
    if all(issubclass(k, _REAL_TYPES) and not issubclass(k, (bool, np.bool_)) for k in kinds):
        array = np.asarray(values, dtype=float)
        if np.all(np.isfinite(array)):
            return array
    return np.array([as_real(v, what) for v in values])
