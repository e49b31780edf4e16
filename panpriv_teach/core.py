"""The streaming model of the course: an algorithm is an internal state, an update from
(state, element) to state, and an output from state (Roth 2011, Def 3).
Pan-privacy is a statement about the state, so every algorithm exposes exactly what an
intruder would see through `state()`.
"""
from __future__ import annotations

import abc
import numbers

import numpy as np


def as_rng(rng=None) -> np.random.Generator:
    """Turn `rng` into a numpy Generator without touching global random state.

    Accepts None (fresh OS entropy), an int seed, a SeedSequence or a Generator (returned
    as is, so a caller's stream of draws continues).
    """
    if rng is None or isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"rng must be a non-negative integer seed; got {rng!r}")
        return np.random.default_rng(int(rng))
    raise TypeError("rng must be None, a non-negative int seed, a numpy SeedSequence or a "
                    f"numpy Generator; got {type(rng).__name__}")


class StreamAlgorithm(abc.ABC):
    """A streaming algorithm: `update` per element, `output` on demand, `state` for an intruder.

    Subclasses implement `update`, `output` and `state`. `process` defaults to repeated
    `update`; subclasses override it with a vectorised version that has the same
    output distribution (their tests check this).
    """

    @abc.abstractmethod
    def update(self, x) -> None:
        """Consume one stream element."""

    def process(self, stream) -> None:
        """Consume many elements; the same distribution as calling `update` on each."""
        for x in stream:
            self.update(x)

    @abc.abstractmethod
    def output(self):
        """The released answer (with fresh output noise where the paper adds it)."""

    @abc.abstractmethod
    def state(self) -> dict:
        """A deep copy of everything held in memory: what a subpoena or a breach sees."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._params().items())})"

    def _params(self) -> dict:
        """The public parameters shown in repr (override to add more)."""
        return {k: getattr(self, k) for k in ("epsilon",) if hasattr(self, k)}


class ContinualCounter(StreamAlgorithm):
    """An algorithm under continual observation: it releases an answer at every time step.

    `step(x)` consumes x_t and returns the release at time t; `run(stream)` returns the
    releases for t = 1..T as an array. `update` is `step` without looking at the release,
    and `output` is the latest release.
    """

    _last_release: float = 0.0

    def step(self, x) -> float:
        """Consume x_t and return the release at time t."""
        self._last_release = float(self._step(x))
        return self._last_release

    @abc.abstractmethod
    def _step(self, x) -> float:
        """Subclasses: consume x_t, return the release at time t."""

    def run(self, stream) -> np.ndarray:
        """The releases for every element of `stream`, in order (vectorised in subclasses,
        which then set `_last_release` to the final release)."""
        return np.array([self.step(x) for x in stream], dtype=float)

    def update(self, x) -> None:
        self.step(x)

    def process(self, stream) -> None:
        self.run(stream)

    def output(self) -> float:
        """The latest release (0 before the first step)."""
        return self._last_release
