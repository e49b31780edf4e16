"""Determinism: a seed fixes everything an algorithm does, on each of its two paths.

For every stream algorithm of the library, built twice from the same seed and fed the same
input: the vectorised path (`process` / `run`) gives byte-identical objects (pickles: state
and generator alike) and identical outputs, and so does the per-element path (`update` /
`step`); a different seed gives different outputs, so the random seed is really used. Where the two
paths consume the generator alike (the counters that draw all their noise up front, and the
sketches and strawmen whose randomness is drawn at construction), `process`/`run` and
repeated `update`/`step` agree exactly too. Five draw differently on purpose: the density
estimators (`process` draws one D1 bit per representative that appeared, `update` one per
arrival) and the cascading buffers counter (noise per flush): the same law, shown in their
modules' tests "process and update agree in distribution".

The notebooks' half of issue 9's determinism is test_notebook_determinism.py.
"""
from __future__ import annotations

import pickle
from typing import Callable, NamedTuple

import numpy as np
import pytest

from panpriv_teach.continual import ContinualDensityEstimator
from panpriv_teach.counters import (BinaryTreeCounter, CascadingBuffersCounter,
                                    HonakerTreeCounter, PanPrivateTreeCounter, SimpleCounter,
                                    SqrtFactorizationCounter)
from panpriv_teach.cropped import CroppedSum, HeavyHittersCount
from panpriv_teach.density import BLANK, DensityEstimator, DistinctCountEstimator, SkipBlanks
from panpriv_teach.intrusion import AccurateDistinctCount
from panpriv_teach.sketches import CountMinSketch
from panpriv_teach.stable import PanPrivateDistinctCount, StableSketch
from panpriv_teach.strawmen import ExactSet, HashedIDs, SampledBits

N, LENGTH = 500, 300
_rng = np.random.default_rng(2026)
IDS = _rng.integers(0, N, LENGTH)
BLANKS = np.where(_rng.random(LENGTH) < 0.2, BLANK, IDS)
BITS = (_rng.random(LENGTH) < 0.3).astype(np.int64)
# fully dynamic updates (i, d): triples (x, +1), (y, +1), (y, -1), so a = the x's
UPDATES = np.column_stack([IDS[np.arange(LENGTH) - np.arange(LENGTH) % 3 // 2],
                           np.tile([1, 1, -1], LENGTH // 3)])
F1 = float(UPDATES[:, 1].sum())
# a universe of 4 with a_i in {0, 1}: toggles, then users 0 and 1 arrive
SMALL_UPDATES = np.vstack([np.column_stack([np.repeat(IDS[:LENGTH // 2] % 4, 2), np.tile([1, -1], LENGTH // 2)]),
                           [[0, 1], [1, 1]]])


class Case(NamedTuple):
    make: Callable          # seed -> a fresh object
    data: np.ndarray
    kind: str               # "elements", "updates" (rows (i, d)) or "releases" (a counter)
    paths_agree: bool       # do process/run and update/step draw alike?


CASES = {
    "DensityEstimator": Case(lambda s: DensityEstimator(N, 0.5, m=100, rng=s), IDS, "elements", True),
    "DistinctCountEstimator": Case(lambda s: DistinctCountEstimator(N, 1.0, m=50, alpha=0.2, rng=s),
                                   IDS, "elements", False),
    "SkipBlanks": Case(lambda s: SkipBlanks(DensityEstimator(N, 0.5, m=100, rng=s)), BLANKS, "elements", True),
    "ContinualDensityEstimator": Case(lambda s: ContinualDensityEstimator(N, 0.4, 100, LENGTH, rng=s),
                                      BLANKS, "releases", False),
    "CountMinSketch": Case(lambda s: CountMinSketch(64, 3, N, rng=s), IDS, "elements", True),
    "StableSketch": Case(lambda s: StableSketch(N, 0.5, 8, rng=s), UPDATES, "updates", True),
    "PanPrivateDistinctCount": Case(lambda s: PanPrivateDistinctCount(4, 1, 1.0, rng=s), SMALL_UPDATES,
                                    "updates", True),
    "CroppedSum": Case(lambda s: CroppedSum(N, 20.0, 1.0, rng=s), UPDATES, "updates", True),
    "HeavyHittersCount": Case(lambda s: HeavyHittersCount(N, 5, 2.0, 20, 1.0, F1, rng=s), UPDATES,
                              "updates", True),
    "AccurateDistinctCount": Case(lambda s: AccurateDistinctCount(N, 1.0, rng=s), IDS, "elements", True),
    "ExactSet": Case(lambda s: ExactSet(N, 1.0, rng=s), IDS, "elements", True),
    "HashedIDs": Case(lambda s: HashedIDs(N, 1.0, rng=s), IDS, "elements", True),
    "SampledBits": Case(lambda s: SampledBits(N, 50, 1.0, rng=s), IDS, "elements", True),
    "SimpleCounter": Case(lambda s: SimpleCounter(1.0, s), BITS, "releases", True),
    "BinaryTreeCounter": Case(lambda s: BinaryTreeCounter(LENGTH, 1.0, s), BITS, "releases", True),
    "CascadingBuffersCounter": Case(lambda s: CascadingBuffersCounter.from_T(LENGTH, 1.0, s), BITS,
                                    "releases", False),
    "HonakerTreeCounter": Case(lambda s: HonakerTreeCounter(LENGTH, 1.0, s), BITS, "releases", True),
    "SqrtFactorizationCounter": Case(lambda s: SqrtFactorizationCounter(LENGTH, 1.0, 1e-6, s), BITS,
                                     "releases", False),   # discrete Gaussian: rejection rounds
    "PanPrivateTreeCounter": Case(lambda s: PanPrivateTreeCounter(LENGTH, 1.0, s), BITS, "releases", True),
}


def vectorised(case: Case, seed):
    """(object, outputs) after the vectorised path; outputs: the releases, or output()."""
    obj = case.make(seed)
    if case.kind == "releases":
        return obj, obj.run(case.data)
    obj.process(case.data)
    return obj, np.atleast_1d(obj.output())


def per_element(case: Case, seed):
    obj = case.make(seed)
    if case.kind == "releases":
        return obj, np.array([obj.step(int(x)) for x in case.data])
    for item in case.data.tolist():
        obj.update(*item) if case.kind == "updates" else obj.update(item)
    return obj, np.atleast_1d(obj.output())


PATHS = {"process/run": vectorised, "update/step": per_element}
TIMINGS = {"enumeration_seconds"}     # a measured time, reported for teaching: not random


def snapshot(obj) -> bytes:
    """The pickled object: everything it holds, its generator's state included, but timings."""
    return pickle.dumps({key: value for key, value in vars(obj).items() if key not in TIMINGS})


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("name", CASES)
def test_the_same_seed_gives_the_same_object_and_outputs(name, path):
    case, walk = CASES[name], PATHS[path]
    (a, out_a), (b, out_b) = walk(case, 11), walk(case, 11)
    assert np.array_equal(out_a, out_b), f"{name} {path}: outputs differ under the same seed"
    assert snapshot(a) == snapshot(b), f"{name} {path}: objects differ under the same seed"
    _, out_c = walk(case, 12)
    assert not np.array_equal(out_a, out_c), f"{name} {path}: seed 12 gives seed 11's outputs"


@pytest.mark.parametrize("name", [name for name, case in CASES.items() if case.paths_agree])
def test_where_both_paths_draw_alike_they_agree_exactly(name):
    case = CASES[name]
    (_, out_a), (_, out_b) = vectorised(case, 11), per_element(case, 11)
    np.testing.assert_allclose(out_a, out_b, rtol=0, atol=1e-9,
                               err_msg=f"{name}: process/run and update/step differ under one seed")


def test_the_paths_that_draw_differently_are_really_different():
    # Guards the table: a case marked paths_agree=False whose paths agree exactly would
    # deserve the stronger test above.
    agree = [name for name, case in CASES.items() if not case.paths_agree
             and np.allclose(vectorised(case, 11)[1], per_element(case, 11)[1], atol=1e-9)]
    assert not agree, f"{agree}: their paths agree exactly; mark them paths_agree=True"
