"""Answer checks shared by the checker modules, on top of the harness: a number where a
number is asked, and a numpy array where the task says "numpy array"."""
from __future__ import annotations

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


def fresh_rng() -> np.random.Generator:
    """Unseeded: the parameters of one extra case drawn at check time. A correct answer is
    exact on any case, so this costs it nothing; an answer that looks up the checker's
    fixed (seeded, readable) cases cannot know this one."""
    return np.random.default_rng()


def looked_up(where: str) -> ExerciseFailed:
    """The diagnosis of an answer right on the fixed cases and wrong on the fresh one."""
    return ExerciseFailed(f"{where} is not right, although your function gets the checker's other "
                          "cases right: does it compute the answer from its arguments, or look "
                          "up answers for particular inputs? It must work for any valid input.")
