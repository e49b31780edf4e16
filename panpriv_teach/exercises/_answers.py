"""Answer checks shared by the checker modules, on top of the harness: a number where a
number is asked, a numpy array where the task says "numpy array", inputs left unchanged;
and the checkers' random generators (`seeded`, `fresh_rng`), which the tests can re-seed
(`reseeded`) to measure how often a correct answer fails."""
from __future__ import annotations

import contextlib

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


_RESEED: list[int] = []   # the test's random seed while `reseeded` is active


def seeded(seed: int) -> np.random.Generator:
    """The checker's generator for its cases and data: fixed by `seed`, so a verdict is
    reproducible (under `reseeded(k)`, fixed by (k, seed) instead)."""
    return np.random.default_rng([_RESEED[-1], seed] if _RESEED else seed)


def fresh_rng() -> np.random.Generator:
    """Unseeded: the parameters of one extra case drawn at check time. A correct answer is
    exact on any case, so this costs it nothing; an answer that looks up the checker's
    fixed (seeded, readable) cases cannot know this one. Seeded under `reseeded`."""
    return np.random.default_rng([_RESEED[-1], 2**32 - 1] if _RESEED else None)


@contextlib.contextmanager
def reseeded(k: int):
    """Within the block every checker draws its cases and data from random seed k: the
    test of the false-failure rate runs the checkers under many such seeds."""
    _RESEED.append(int(k))
    try:
        yield
    finally:
        _RESEED.pop()


def expect_unchanged(fn, args: tuple, names: tuple, what: str, **kwargs):
    """Call `fn(*args, **kwargs)` once and return its result; fail if it changed one of its
    array arguments in place (`names` name them, `what` is the call in the diagnosis)."""
    before = [a.copy() if isinstance(a, np.ndarray) else None for a in args]
    result = harness.call(fn, *args, **kwargs)
    for name, old, new in zip(names, before, args):
        if old is not None and not (old.shape == new.shape and np.array_equal(old, new)):
            raise ExerciseFailed(f"{what} changed its argument `{name}` in place: the caller's "
                                 f"`{name}` is no longer what it was, though the task "
                                 "promises it is left unchanged.")
    return result


def looked_up(where: str) -> ExerciseFailed:
    """The diagnosis of an answer right on the fixed cases and wrong on the fresh one."""
    return ExerciseFailed(f"{where} is not right, although your function gets the checker's other "
                          "cases right: does it compute the answer from its arguments, or look "
                          "up answers for particular inputs? It must work for any valid input.")


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
