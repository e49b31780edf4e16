"""Issue 9, checker robustness: every exercise checker of modules 01-07 turns broken student
code into a diagnosis, quickly, and never crashes, hangs or passes it.

For each checker (discovered with `harness.exercises_of` over the seven checker modules) the
answer is a function that raises, returns None, NaN, a string, a ragged list, an array drawn
from its rng, complex numbers or fractions, never returns (`while True: pass`), a stub raising
NotImplementedError, a non-callable, and (hypothesis) a function
returning arbitrary junk: containers, arrays of any dtype and shape, ragged lists, huge or
complex numbers (never silently cast to their real part), values that depend on its rng.
(Hypothesis is derandomized; its examples also draw on constants found in the loaded local
modules, so they are fixed for a given pytest selection and may differ between selections.)
Each must end in ExerciseFailed (or
ExerciseNotAttempted for the stub) with a non-empty diagnosis; anything else escaping the
checker, or a pass, fails the test.

Time limits. `harness.call` stops student code after `seconds` (10 s by default) and
`harness.exercise` the whole check after 30 s; `call` tells its own limit from an enclosing
one by comparing its own deadline with the enclosing one. To keep this file fast, the fixture
`fast_limits` sets harness.TIME_SCALE = 1/SCALE (SCALE = 20): every limit fires after
seconds/20 of real time (0.5 s for a call, 1.5 s for a check), so each limit still knows it
was its own (the diagnosis stays "did not finish within 10 s", not a misattributed "checking
took more than 30 s"). Capping every limit at 0.5 s instead would make the call's and the
check's limits indistinguishable.

Each checker is called as a notebook's nbgrader test cell calls it, `checker(answer,
strict=True)` (a plain check cell shows the same verdict without raising).
"""
import importlib
import math
import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from panpriv_teach.exercises import harness
from panpriv_teach.exercises.harness import ExerciseFailed, ExerciseNotAttempted, exercises_of

MODULES = ["dp_basics", "randomized_response", "density", "continual_counting", "ppcum",
           "sketches", "lower_bounds"]
CHECKERS = [(f"{module} {number}", checker) for module in MODULES
            for number, checker in exercises_of(
                importlib.import_module(f"panpriv_teach.exercises.{module}")).items()]
SCALE = 20.0
# a complex answer silently cast to its real part would be a wrong answer accepted: an error
pytestmark = pytest.mark.filterwarnings("error::numpy.exceptions.ComplexWarning")


def test_every_module_01_to_07_has_its_checkers_discovered():
    numbers = [name.split()[1] for name, _ in CHECKERS]
    assert len(numbers) == len(set(numbers)) >= 30
    assert {n.split(".")[0] for n in numbers} == {"1", "2", "3", "4", "5", "6", "7"}


@pytest.fixture
def fast_limits(monkeypatch):
    """Every harness time limit fires after seconds/SCALE of real time (harness.TIME_SCALE);
    `call` reads its clock on the same scale, so it still recognises its own limit."""
    monkeypatch.setattr(harness, "TIME_SCALE", 1 / SCALE)


def run_checker(checker, answer):
    """The checker's verdict on `answer`: the ExerciseFailed it raised. Anything else (a pass,
    another exception) fails the test."""
    try:
        checker(answer, strict=True)
    except ExerciseFailed as verdict:   # ExerciseNotAttempted is a subclass
        assert verdict.diagnosis.strip(), "an empty diagnosis"
        return verdict
    except BaseException as exc:        # noqa: BLE001 - the point of the test
        pytest.fail(f"the checker crashed on a broken answer: {type(exc).__name__}: {exc}")
    pytest.fail("the checker passed a broken answer")


def raises(*args, **kwargs):
    return 1 / 0


def returns_none(*args, **kwargs):
    return None


def returns_nan(*args, **kwargs):
    return math.nan


def returns_string(*args, **kwargs):
    return "forty-two"


def returns_ragged(*args, **kwargs):
    return [[1, 2], [3]]


def returns_random_array(*args, rng=None, **kwargs):
    """Depends on its rng (so "does it use its rng?" passes), but is never the right type."""
    return (rng if isinstance(rng, np.random.Generator) else np.random.default_rng(0)).random(2)


def returns_complex(*args, **kwargs):
    return np.array([3 + 1j, 2 + 0j])


def returns_fractions(*args, **kwargs):
    return np.array([3.7, 2.5])


def never_returns(*args, **kwargs):
    while True:
        pass


def stub(*args, **kwargs):
    raise NotImplementedError("replace this line with your code")


BROKEN = {"raises": (raises, "ZeroDivisionError"), "returns None": (returns_none, ""),
          "returns NaN": (returns_nan, ""), "returns a string": (returns_string, ""),
          "returns a ragged list": (returns_ragged, ""),
          "returns a random array": (returns_random_array, ""),
          "returns complex numbers": (returns_complex, ""),
          "returns fractions": (returns_fractions, ""),
          "not callable": (42, "expected a function")}


@pytest.mark.parametrize("broken", list(BROKEN))
@pytest.mark.parametrize("name, checker", CHECKERS, ids=[name for name, _ in CHECKERS])
def test_broken_answers_end_in_a_diagnosis(fast_limits, name, checker, broken):
    answer, words = BROKEN[broken]
    start = time.monotonic()
    verdict = run_checker(checker, answer)
    assert type(verdict) is ExerciseFailed
    assert words in verdict.diagnosis
    assert time.monotonic() - start < 3


@pytest.mark.parametrize("name, checker", CHECKERS, ids=[name for name, _ in CHECKERS])
def test_a_stub_is_not_attempted_yet(fast_limits, name, checker):
    verdict = run_checker(checker, stub)
    assert isinstance(verdict, ExerciseNotAttempted)
    assert "NotImplementedError" in verdict.diagnosis


@pytest.mark.parametrize("name, checker", CHECKERS, ids=[name for name, _ in CHECKERS])
def test_code_that_never_returns_is_stopped_within_3_seconds(fast_limits, name, checker):
    start = time.monotonic()
    verdict = run_checker(checker, never_returns)
    elapsed = time.monotonic() - start
    assert type(verdict) is ExerciseFailed
    assert "did not finish within" in verdict.diagnosis   # call's own limit, rightly named
    assert elapsed < 3, f"stopped after {elapsed:.2f} s"


# ------------------------------------------------------------------ junk from hypothesis

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.complex_numbers(),
                    st.text(max_size=5), st.binary(max_size=5), st.just(2**100), st.just(-0.0))
ARRAYS = hnp.arrays(dtype=st.sampled_from([np.float64, np.int64, np.bool_, np.complex128,
                                           np.dtype("U3"), np.float32, np.uint8]),
                    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5))
JUNK = st.one_of(
    SCALARS, ARRAYS,
    st.lists(st.one_of(st.integers(), st.floats(), st.text(max_size=2)), max_size=5),
    st.lists(st.lists(st.integers(-3, 3), max_size=3), max_size=4),          # ragged
    st.tuples(st.floats(), st.floats()), st.tuples(st.integers(), st.text(max_size=2), st.none()),
    st.dictionaries(st.text(max_size=4), st.one_of(st.floats(), st.integers()), max_size=4),
    st.sets(st.integers(-5, 5), max_size=4),
    st.sampled_from([np.array([None, 1.0], dtype=object), range(3), np.float64("nan"),
                     np.int64(7), np.ma.masked_array([1.0, 2.0], mask=[True, False])]),
)


def junk_answer(value, random):
    """A student function returning `value`; with `random`, a numeric array drawn from its
    rng (so it passes the checkers' "uses its rng" test and reaches the later checks)."""
    def answer(*args, rng=None, **kwargs):
        if random and isinstance(rng, np.random.Generator):
            return rng.random(np.shape(value) if isinstance(value, np.ndarray) else 3)
        return value
    return answer


@pytest.mark.parametrize("name, checker", CHECKERS, ids=[name for name, _ in CHECKERS])
@settings(max_examples=30, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))   # fast_limits holds for every example
@given(value=JUNK, random=st.booleans())
def test_junk_answers_end_in_a_diagnosis_never_a_crash(fast_limits, name, checker, value, random):
    run_checker(checker, junk_answer(value, random))
