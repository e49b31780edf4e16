"""Answer checks shared by the checker modules, on top of the harness: a number where a
number is asked, and a numpy array where the task says "numpy array"."""
from __future__ import annotations

import numpy as np

from panpriv_teach.exercises import harness
from panpriv_teach.exercises.harness import ExerciseFailed


def _preview(values) -> str:
    shown = ", ".join(harness._short(v) for v in values[:3])
    return f"[{shown}{', ...' if len(values) > 3 else ''}]"


def as_real(value, what: str) -> float:
    """`value` as one finite float. A list, tuple or array is named as such (never "did you
    forget a return?"), with the fix for the one-element case."""
    if isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim > 0):
        kind = type(value).__name__ if not isinstance(value, np.ndarray) else "numpy array"
        size = len(value) if not isinstance(value, np.ndarray) else value.size
        fix = (" (its only entry is x[0]; return that, or float(x[0]))" if size == 1 else
               ": the task asks for ONE number")
        entries = value.ravel().tolist() if isinstance(value, np.ndarray) else list(value)
        raise ExerciseFailed(f"{what} should be a single number, but it is a {kind} of {size} "
                             f"entr{'y' if size == 1 else 'ies'} {_preview(entries)}{fix}.")
    return harness.as_real(value, what)


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
