"""The exercise harness: every way a student's answer can go wrong becomes a diagnosis
in words (ExerciseFailed / ExerciseNotAttempted), and a right answer prints a pass line.
A check cell shows its verdict without raising (strict=True raises), `summary()` raises
unless every exercise passed, and the time limits use no Unix signal (the fixture below
checks that no interval timer or SIGALRM handler is ever touched)."""
import re
import sys
import signal
import threading
import time
import types

import numpy as np
import pytest

from panpriv_teach.exercises import harness
from panpriv_teach.exercises.harness import (
    FAIL_MARK, PASS_MARK, ExerciseFailed, ExerciseNotAttempted, ProgressIncomplete, _TimeLimit,
    as_array, as_real, call, describe_call, exercise, exercises_of, expect_reproducible, summary_of,
    time_limit)

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def busy(seconds):
    """Python code running for `seconds` (the limits interrupt Python code, not C calls)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.fixture(autouse=True)
def no_signal_and_no_alarm_left_behind():
    """No test uses an interval timer or a SIGALRM handler (the limits hold where there are no
    Unix signals), and each ends with no limit armed on this thread."""
    handler = signal.getsignal(signal.SIGALRM)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    yield
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) is handler
    assert harness._deadlines() == []
    me = threading.get_ident()
    assert not [a for a in harness._WATCHDOG._alarms if a.active and a.thread_id == me
                and a.until_dead is None]


# ---------------------------------------------------------------- call

def test_call_returns_what_the_answer_returns():
    assert call(lambda x, y=1: x + y, 2, y=3) == 5


def test_call_a_function_that_raises_names_the_error_and_the_students_line():
    def mean(xs):
        return sum(xs) / len(xs)

    with pytest.raises(ExerciseFailed) as info:
        call(mean, [])
    message = str(info.value)
    assert "mean([]) raised ZeroDivisionError" in message
    assert "division by zero" in message
    assert "of your code" in message and "return sum(xs) / len(xs)" in message
    assert type(info.value) is ExerciseFailed


def test_call_a_stub_is_not_attempted():
    def stub(x):
        raise NotImplementedError("Exercise 1.2: write your code here")

    with pytest.raises(ExerciseNotAttempted, match="still raises NotImplementedError") as info:
        call(stub, 1)
    assert "Exercise 1.2: write your code here" in str(info.value)
    assert info.value.label == "not attempted yet"


def test_call_not_callable_says_pass_the_function_itself():
    with pytest.raises(ExerciseFailed, match="expected a function, got float") as info:
        call(3.5)
    assert "without calling it" in str(info.value)


def test_call_that_never_returns_is_stopped():
    def forever(x):
        while True:
            pass

    start = time.monotonic()
    with pytest.raises(ExerciseFailed, match=r"calling forever\(1\) did not finish within 0.2 s"):
        call(forever, 1, seconds=0.2)
    assert time.monotonic() - start < 2       # slack for a loaded CI; forever never returns


def test_call_time_limit_cannot_be_swallowed_by_student_code():
    def stubborn():
        while True:
            try:
                time.sleep(0.05)
            except BaseException:  # noqa: BLE001 - a student's bare except must not defeat it
                pass

    with pytest.raises(ExerciseFailed, match="did not finish within"):
        call(stubborn, seconds=0.2)


def test_describe_call_shortens_arrays_generators_and_long_values():
    text = describe_call("f", (np.zeros((3, 2)), np.random.default_rng(0)), {"xs": list(range(50))})
    assert text.startswith("f(<array of shape (3, 2)>, <rng>, xs=[0, 1, 2")
    assert "..." in text and len(text) < 100


# ---------------------------------------------------------------- as_real, as_array

@pytest.mark.parametrize("value, expected", [(3, 3.0), (np.float32(0.5), 0.5),
                                             (np.array(2.5), 2.5), (np.int64(7), 7.0)])
def test_as_real_accepts_numbers(value, expected):
    assert as_real(value, "the estimate") == expected


@pytest.mark.parametrize("value, words", [
    (None, ["the estimate should be a number", "NoneType", "forget a `return`"]),
    ("0.3", ["should be a number", "str", "'0.3'"]),
    (True, ["should be a number", "bool"]),
    ([1.0], ["should be a single number", "list of 1 entry [1.0]", "return that, or float(x[0])"]),
    ((1.0, 2.0), ["should be a single number", "tuple of 2 entries", "ONE number"]),
    (np.zeros((2, 2)), ["numpy array of 4 entries", "ONE number"]),
    (float("nan"), ["the estimate is nan", "division by zero"]),
    (np.inf, ["the estimate is inf"]),
])
def test_as_real_diagnoses_non_numbers(value, words):
    with pytest.raises(ExerciseFailed) as info:
        as_real(value, "the estimate")
    for word in words:
        assert word in str(info.value)
    if isinstance(value, (list, tuple, np.ndarray)):
        assert "forget a `return`" not in str(info.value)


def test_as_array_accepts_sequences_and_checks_shape():
    array = as_array([1, 2, 3], "the counts", shape=(3,))
    assert array.dtype == float and array.tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ExerciseFailed, match=r"the counts should have shape \(4,\), but has "
                                             r"shape \(3,\)"):
        as_array([1, 2, 3], "the counts", shape=(4,))


@pytest.mark.parametrize("value, words", [
    (None, ["the counts is None", "forget a `return`"]),
    (["a", "b"], ["should be an array of numbers", "list"]),
    ([[1, 2], [3]], ["should be an array of numbers"]),
    ([1.0, np.nan], ["contains NaN or infinity"]),
])
def test_as_array_diagnoses(value, words):
    with pytest.raises(ExerciseFailed) as info:
        as_array(value, "the counts")
    for word in words:
        assert word in str(info.value)


# ---------------------------------------------------------------- time_limit

def test_time_limit_interrupts_and_disarms():
    start = time.monotonic()
    with pytest.raises(_TimeLimit):
        with time_limit(0.1):
            busy(1)
    assert time.monotonic() - start < 0.9     # not the 1 s of busy(1); slack for a loaded CI
    with time_limit(0.1):   # a block that finishes in time leaves nothing armed
        pass
    busy(0.2)               # ... and nothing fires later


def test_time_limit_inner_limit_restores_the_outer_one():
    start = time.monotonic()
    with pytest.raises(_TimeLimit):
        with time_limit(0.6):
            with pytest.raises(_TimeLimit):
                with time_limit(0.1):
                    busy(1)
            assert 0.05 < time.monotonic() - start < 0.55   # the inner limit, before the outer
            busy(1)                        # the outer limit still holds, and interrupts this
    assert 0.55 < time.monotonic() - start < 1.05   # before busy(1) could have ended


def test_time_limit_inner_limit_never_extends_the_outer_one():
    start = time.monotonic()
    with pytest.raises(_TimeLimit):
        with time_limit(0.2):
            with time_limit(5):
                busy(1)
    assert time.monotonic() - start < 0.9     # not the 1 s of busy(1)


def test_time_limit_holds_in_any_thread():
    """No signal means no main-thread-only restriction: a limit works in a worker thread."""
    outcome = {}

    def worker():
        try:
            with time_limit(0.1):
                busy(1)
        except _TimeLimit:
            outcome["stopped"] = True

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(2)
    assert outcome == {"stopped": True}


def test_call_abandons_a_blocking_call_and_stops_an_endless_loop_afterwards():
    """A long C call (time.sleep) cannot be interrupted, so `call` returns on time and leaves
    it behind; an endless Python loop left behind is interrupted until its thread ends."""
    start = time.monotonic()
    with pytest.raises(ExerciseFailed, match="did not finish within 0.2 s"):
        call(lambda: time.sleep(3), seconds=0.2)
    assert time.monotonic() - start < 2       # not the 3 s of the sleep

    def forever():
        while True:
            pass

    before = set(threading.enumerate())
    with pytest.raises(ExerciseFailed, match="did not finish"):
        call(forever, seconds=0.1)
    left_behind = [t for t in set(threading.enumerate()) - before if t.name == "panpriv-answer"]
    for thread in left_behind:
        thread.join(2)
        assert not thread.is_alive(), "the abandoned endless loop is still running"


# ---------------------------------------------------------------- exercise

@exercise("9.1", "doubling", seconds=1)
def exercise_9_1(double):
    got = as_real(call(double, 2, seconds=0.5), "double(2)")
    if got != 4:
        raise ExerciseFailed(f"double(2) returned {got:g}; it should be twice its input.")
    return "double doubles."


def test_exercise_prints_the_pass_line(capsys):
    assert exercise_9_1(lambda x: 2 * x) is None
    assert capsys.readouterr().out == f"{PASS_MARK} Exercise 9.1 passed: double doubles.\n"
    assert exercise_9_1.exercise == "9.1" and exercise_9_1.title == "doubling"
    assert exercise_9_1.__name__ == "exercise_9_1"
    assert exercise_9_1.answer == "double" and exercise_9_1.solved_by == ()


def test_a_failed_check_shows_the_diagnosis_without_raising(capsys):
    """Run All carries on past a failed check cell: it prints, it does not raise."""
    assert exercise_9_1(lambda x: 3 * x) is None
    shown = ANSI.sub("", capsys.readouterr().out)
    assert shown == (f"{FAIL_MARK} Exercise 9.1 not passed yet\n"
                     "double(2) returned 6; it should be twice its input.\n")
    assert "Traceback" not in shown and PASS_MARK not in shown


@pytest.mark.parametrize("answer, cls, words", [
    (lambda x: 3 * x, ExerciseFailed, ["double(2) returned 6", "twice"]),
    (lambda x: None, ExerciseFailed, ["double(2) should be a number", "NoneType"]),
    (lambda x: "4", ExerciseFailed, ["should be a number", "str"]),
    (lambda x: float("nan"), ExerciseFailed, ["double(2) is nan"]),
    (lambda x: 1 / 0, ExerciseFailed, ["raised ZeroDivisionError"]),
    (4, ExerciseFailed, ["expected a function, got int"]),
    (lambda x: time.sleep(5), ExerciseFailed, ["did not finish within 0.5 s"]),
])
def test_exercise_labels_each_failure(answer, cls, words, capsys):
    with pytest.raises(cls) as info:
        exercise_9_1(answer, strict=True)
    assert type(info.value) is cls
    assert info.value.exercise == "9.1"
    assert str(info.value).startswith("Exercise 9.1: ")
    for word in words:
        assert word in str(info.value)
    assert PASS_MARK not in capsys.readouterr().out


def test_exercise_stub_is_not_attempted():
    def stub(x):
        raise NotImplementedError("Exercise 9.1: write your code here")

    with pytest.raises(ExerciseNotAttempted) as info:
        exercise_9_1(stub, strict=True)
    assert info.value.exercise == "9.1"
    assert "replace the `raise NotImplementedError(...)` line" in str(info.value)


def test_exercise_bounds_the_whole_check():
    @exercise("9.2", "slow", seconds=0.3)
    def exercise_9_2(answer):
        for _ in range(100):   # each call is quick, together they are too slow
            call(answer, seconds=1)
        return "done"

    with pytest.raises(ExerciseFailed, match="checking took more than 0.3 s") as info:
        exercise_9_2.verdict(lambda: time.sleep(0.05))
    assert info.value.exercise == "9.2"


def test_render_traceback_shows_only_the_diagnosis():
    with pytest.raises(ExerciseFailed) as info:
        exercise_9_1(lambda x: 3 * x, strict=True)
    lines = [ANSI.sub("", line) for line in info.value._render_traceback_()]
    assert lines == [f"{FAIL_MARK} Exercise 9.1 not passed yet",
                     "double(2) returned 6; it should be twice its input."]

    lines = ExerciseNotAttempted("first line\nsecond line", "3.4")._render_traceback_()
    assert [ANSI.sub("", line) for line in lines] == [
        f"{FAIL_MARK} Exercise 3.4 not attempted yet", "first line", "second line"]
    assert ANSI.sub("", ExerciseFailed("no number")._render_traceback_()[0]) == \
        f"{FAIL_MARK} not passed yet"


def test_exercises_of_lists_checkers_in_numeric_order():
    module = types.ModuleType("fake_checks")
    for number in ("1.10", "1.2", "2.1", "1.1"):
        checker = exercise(number, f"title {number}")(lambda answer: "ok")
        setattr(module, "exercise_" + number.replace(".", "_"), checker)
    module.helper = lambda: None          # not a checker
    module.exercise = exercise            # the decorator itself is not a checker
    module.np = np
    found = exercises_of(module)
    assert list(found) == ["1.1", "1.2", "1.10", "2.1"]
    assert found["1.10"].title == "title 1.10"


# ---------------------------------------------------------------- repeat, expect_reproducible

def test_call_repeat_returns_a_list_and_says_how_many_calls_timed_out():
    counter = iter(range(10))
    assert call(lambda: next(counter), repeat=3) == [0, 1, 2]
    with pytest.raises(ExerciseFailed, match=r"calling nap\(\) 50 times did not finish within "
                                             r"0.2 s"):
        def nap():
            time.sleep(0.01)
        call(nap, repeat=50, seconds=0.2)


@pytest.mark.parametrize("answer", [
    lambda n, rng: rng.normal(size=n),
    lambda n, rng: np.zeros(n),                      # deterministic: for the law test to judge
    lambda n, rng: np.full(n, rng.integers(2)),      # two random seeds may give the same answer
])
def test_expect_reproducible_accepts_answers_that_depend_on_rng_alone(answer):
    expect_reproducible(answer, 3, convert=lambda a: as_array(a, "x"))


def test_expect_reproducible_gives_each_call_its_own_copies_of_the_arrays():
    seen = []

    def look(x, rng):
        seen.append(x)
        return x + rng.random(len(x))
    given = np.zeros(3)
    expect_reproducible(look, given, convert=lambda a: as_array(a, "x"))
    assert len(seen) == 2 and seen[0] is not seen[1]
    assert not any(x is given for x in seen)


# ---------------------------------------------------------------- arguments left unchanged
@pytest.mark.parametrize("change, name", [
    (lambda values, scores, table: values.sort(), "values"),
    (lambda values, scores, table: scores.pop(), "scores"),
    (lambda values, scores, table: scores.__setitem__(0, 1.0), "scores"),   # equal, not the same
    (lambda values, scores, table: values.view(np.int64).__setitem__(0, 7), "values"),
    (lambda values, scores, table: table.__setitem__("b", 0), "table"),
    (lambda values, scores, table: table["a"].fill(0), "table"),   # an array inside a dict
])
def test_a_changed_argument_is_named_and_the_callers_data_is_untouched(change, name):
    values, scores, table = np.array([3.0, 1.0, 2.0]), [1, 2, 3], {"a": np.ones(2)}

    def answer(values, scores, table):
        change(values, scores, table)
        return 0

    with pytest.raises(ExerciseFailed, match=f"changed its argument `{name}` in place"):
        call(answer, values, scores, table)
    assert values.tolist() == [3.0, 1.0, 2.0] and scores == [1, 2, 3]
    assert table.keys() == {"a"} and table["a"].tolist() == [1.0, 1.0]


def test_a_changed_keyword_argument_and_a_repeated_call_are_named():
    with pytest.raises(ExerciseFailed, match="changed its argument `x` in place"):
        call(lambda x: x.append(1), x=[0])
    with pytest.raises(ExerciseFailed, match="changed its argument `x` in place"):
        call(lambda x: x.__setitem__(0, 5), [1, 2], repeat=3)


def test_an_answer_that_returned_leaves_no_alarm_armed():
    """Its thread is done, so there is nothing to stop: its alarm is disarmed at once, and
    the watchdog sleeps until the earliest armed alarm instead of waking for each finished
    call (its alarms are a heap; a list of the last 10 s of calls, scanned at every wake,
    made each call slower the more calls came before it)."""
    threads = []

    def answer(x):
        threads.append(threading.current_thread())
        return x

    assert call(answer, [1, 2], repeat=3) == [[1, 2]] * 3
    assert [call(answer, k) for k in range(5)] == list(range(5))
    assert len(threads) == 8
    assert not [a for a in harness._WATCHDOG._alarms if a.active and a.until_dead in threads]


def test_an_argument_the_task_lets_change_is_passed_itself():
    """6.3's counters c may be updated in place: `may_change` hands the answer the caller's
    own array (the grader's worker gets the same instruction through `repeated`)."""
    c = np.zeros(3)

    def update(c, i):
        c[i] = 7.0

    assert call(update, c, 1, may_change=(0,)) is None
    assert c.tolist() == [0.0, 7.0, 0.0]
    with pytest.raises(ExerciseFailed, match="changed its argument `c`"):
        call(update, c, 2)


def test_repeated_as_the_worker_runs_it_checks_the_arguments_too():
    """The grader's worker runs the answer with `repeated(fn, args, kwargs, repeat)`: the
    check, and the instruction of `may_change` (a reserved keyword), travel with it."""
    c = np.zeros(2)
    harness.repeated(lambda c: c.fill(1), (c,), {harness._MAY_CHANGE: (0,)}, None)
    assert c.tolist() == [1.0, 1.0]
    with pytest.raises(harness.ArgumentChanged, match="`c`"):
        harness.repeated(lambda c: c.fill(2), (c,), {}, None)
    assert c.tolist() == [1.0, 1.0]


def test_nan_and_objects_that_cannot_be_compared_are_not_changes():
    answer = lambda x, f: 0   # noqa: E731
    assert call(answer, [float("nan"), np.array([np.nan])], print) == 0


@pytest.mark.parametrize("answer, words", [
    (lambda n, rng: np.random.normal(size=n), ["identically seeded rngs gave different answers",
                                               "np.random"]),
    (lambda n, rng: None, ["x is None"]),
])
def test_expect_reproducible_diagnoses(answer, words):
    with pytest.raises(ExerciseFailed) as info:
        expect_reproducible(answer, 3, convert=lambda a: as_array(a, "x"))
    for word in words:
        assert word in str(info.value)


def test_an_error_inside_numpy_names_numpy_and_the_students_line():
    def answer(rng):
        p = np.array([np.nan, 1.0])
        return rng.choice(2, p=p)
    with pytest.raises(ExerciseFailed) as info:
        call(answer, rng=np.random.default_rng(0))
    assert "(inside numpy, called from line" in str(info.value)
    assert "return rng.choice(2, p=p)" in str(info.value) and ".pyx" not in str(info.value)


def test_objects_without_a_repr_are_shown_by_name():
    class _Oracle:
        pass

    def count():
        pass
    assert describe_call("f", (_Oracle(), count), {}) == "f(<Oracle>, count)"


# ---------------------------------------------------------------- summary

def test_summary_raises_until_every_exercise_of_the_module_passed(capsys, monkeypatch):
    module = types.ModuleType("fake_checks_summary")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    for number in ("8.1", "8.2"):
        def check(value):
            if value != 1:
                raise ExerciseFailed("should be 1")
            return "ok"
        check.__module__ = module.__name__
        setattr(module, "exercise_" + number.replace(".", "_"), exercise(number, "t " + number)(check))
    module.summary = summary_of(module.__name__)
    monkeypatch.setitem(harness._PROGRESS, module.__name__, {})

    with pytest.raises(ProgressIncomplete, match=r"0 of 2 exercises passed. Still to do: 8.1, 8.2"):
        module.summary()
    assert "not checked in this kernel" in capsys.readouterr().out

    module.exercise_8_1(1)
    module.exercise_8_2(2)                      # shown, not raised
    with pytest.raises(ProgressIncomplete, match=r"1 of 2 exercises passed. Still to do: 8.2"):
        module.summary()
    shown = capsys.readouterr().out
    assert re.search(r"8\.1\s+✓ passed", shown) and re.search(r"8\.2\s+✗ not passed yet", shown)

    module.exercise_8_2(1)                      # the last verdict counts
    module.summary()
    assert "2 of 2 exercises passed" in capsys.readouterr().out


def test_every_checker_module_gets_its_summary():
    from panpriv_teach.exercises import density
    assert callable(density.summary)
    with pytest.raises(ProgressIncomplete):
        density.summary()


# ---------------------------------------------------------------- in a real kernel

@pytest.mark.notebooks
def test_run_all_carries_on_past_a_failed_check_and_the_summary_fails_the_notebook(tmp_path):
    """In Jupyter (a real kernel, nbclient): a failed check cell shows ✗ and its diagnosis
    without an error, so the next cells still run; the summary cell raises, showing only
    the verdicts, no library traceback."""
    import nbformat
    from panpriv_teach.classroom.notebooks import execute_copy
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in (
        "from panpriv_teach.exercises import density as check",
        "check.exercise_3_1(lambda epsilon: epsilon)",       # wrong
        "check.exercise_3_2(lambda *args: 1 / 0)",           # raises
        "print('still running')",
        "check.summary()")]
    path = tmp_path / "03_density_estimation.ipynb"
    nbformat.write(nb, path)
    cells = execute_copy(path, timeout=120).cells
    errors = [(i, out.ename) for i, c in enumerate(cells) for out in c.outputs
              if out.output_type == "error"]
    assert errors == [(4, "ProgressIncomplete")]
    text = [ANSI.sub("", "".join(o.get("text", "") for o in c.outputs)) for c in cells]
    assert text[1].startswith(f"{FAIL_MARK} Exercise 3.1 not passed yet\n")
    assert "raised ZeroDivisionError" in text[2] and text[3] == "still running\n"
    shown = ANSI.sub("", "\n".join(cells[4].outputs[-1].traceback))
    assert "0 of 6 exercises passed" in shown and "Traceback" not in shown
    assert "harness.py" not in shown
