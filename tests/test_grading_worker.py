"""The grader's worker protocol: only plain data comes back from the student's process, and
only bounded data (every cap is checked before a value is built), numpy Generators and
checker callables behave as if the answer ran in the grader, and time, memory, crashes and
forks are contained (no Unix signal involved in the limits)."""
from __future__ import annotations

import os
import pickle
import time

import numpy as np
import pytest

from panpriv_teach.exercises.harness import ExerciseFailed, call
from panpriv_teach.exercises.lower_bounds import _Curator
from panpriv_teach.classroom.grading import wire
from panpriv_teach.classroom.grading.session import AnswerProxy, Session, Worker
from panpriv_teach.intrusion import AccurateDistinctCount

SETUP = {"checkers": {}}


def define(worker: Worker, source: str) -> None:
    worker.request(("cell", source))
    assert worker.receive(time.monotonic() + 30) == ["cell", None, ""]


def answer(worker: Worker, name: str) -> AnswerProxy:
    return AnswerProxy(Session(worker), name)


@pytest.fixture(scope="module")
def worker():
    w = Worker(SETUP)
    yield w
    w.kill()


# ---------------------------------------------------------------- restricted data

@pytest.mark.parametrize("value", [
    None, True, 3, 2**100, -0.0, "ε", b"\x00", [1, [2.5]], (1, "a"), {(1, 2): [3]}, {1, 2},
    frozenset({3}), 1 + 2j, np.arange(6).reshape(2, 3), np.array(["ab", "c"]),
    np.float32(1.5), np.int64(-7), np.array([None, 1.0], dtype=object),
    __import__("fractions").Fraction(3, 7)])
def test_plain_data_crosses_unchanged(value):
    back = wire.decode(wire.load_data(wire.dump_data(wire.encode(value))))
    assert type(back) is type(value)
    if isinstance(value, np.ndarray):
        assert back.dtype == value.dtype and back.tolist() == value.tolist()
    else:
        assert back == value


def test_no_object_is_ever_unpickled_from_the_worker():
    """A pickle that would build an object (here: call os.system) is refused outright."""
    class Sneaky:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    with pytest.raises(wire.WireError, match="only data is accepted"):
        wire.load_data(pickle.dumps(Sneaky()))
    with pytest.raises(wire.WireError):
        wire.load_data(pickle.dumps(np.arange(3)))     # even a harmless numpy global


def test_objects_of_other_types_come_back_as_their_type_name_only():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    back = wire.decode(wire.load_data(wire.dump_data(wire.encode([1, AlwaysEqual()]))))
    assert isinstance(back[1], wire.Foreign) and back[1].type_name.endswith("AlwaysEqual")
    with pytest.raises(wire.WireError):
        wire.decode({"a": ("|O", (1,), b"\x00" * 8)})    # an object array disguised as bytes


# ---------------------------------------------------------------- bounded data

def crossing(value):
    return wire.decode(wire.load_data(wire.dump_data(wire.encode(value))))


@pytest.mark.parametrize("make, words", [
    (lambda: 2**(wire.MAX_INT_BITS + 1), "an integer of 65,538 bits: the grader accepts at most "
                                         "65,536"),
    (lambda: -(2**(wire.MAX_INT_BITS + 1)), "an integer of 65,538 bits"),
    (lambda: __import__("fractions").Fraction(1, 3**50_000), "an integer of 79,249 bits"),
    (lambda: "x" * (wire.MAX_STR + 1), "a str of 1,048,577 characters"),
    (lambda: b"x" * (wire.MAX_STR + 1), "a bytes of 1,048,577 characters"),
    (lambda: [0.5] * (wire.MAX_VALUES + 1), "more than 2,000,000 values")],
    ids=["int", "negative int", "fraction", "str", "bytes", "values"])
def test_a_value_beyond_a_cap_is_refused_before_it_is_built(make, words):
    with pytest.raises(wire.TooLarge, match=words):
        crossing(make())


def test_an_unreduced_2_mb_fraction_is_refused_before_any_gcd():
    """Fraction(a, b) reduces by gcd, quadratic in the size: the bound comes first. The
    pickle of the two integers is built by hand (encode would reduce them itself)."""
    big = (1 << 2**24) + 1                             # 2 MB numerator and denominator
    payload = wire.dump_data([{"f": (big * 7, big * 11)}])
    start = time.perf_counter()
    with pytest.raises(wire.TooLarge, match="bits: the grader accepts at most 65,536"):
        wire.decode(wire.load_data(payload)[0])
    assert time.perf_counter() - start < 5   # the gcd alone takes minutes; this is bit_length


def test_shared_references_cannot_multiply_the_work():
    """A pickle can name one list many times (its memo): 60 levels of [x, x] are 2^60 values
    to decode, refused once MAX_VALUES of them are counted."""
    x = [1.0]
    for _ in range(60):
        x = [x, x]
    payload = wire.dump_data(x)
    assert len(payload) < 2000
    with pytest.raises(wire.TooLarge, match="more than 2,000,000 values"):
        wire.decode(wire.load_data(payload))


def test_the_count_of_values_is_shared_by_every_part_of_a_message():
    """Each part of a message may name the same big structure again (the pickle's memo):
    the parts' values are counted together."""
    payload = wire.load_data(wire.dump_data([0.5] * (wire.MAX_VALUES * 2 // 3)))
    assert len(wire.decode(payload)) == len(wire.decode(payload))   # two messages: fine
    message = wire.Decoder()
    wire.decode(payload, message=message)
    with pytest.raises(wire.TooLarge, match="more than 2,000,000 values"):
        wire.decode(payload, message=message)


def test_lazy_objects_come_back_as_their_type_never_materialised():
    """range(10**8) would be 4.7 GB as a list: it comes back as a type name (30 bytes), like a
    generator or an iterator."""
    for value, name in ((range(10**8), "range"), ((i for i in range(3)), "generator"),
                        (iter([1, 2]), "list_iterator")):
        back = crossing(value)
        assert isinstance(back, wire.Foreign) and back.type_name == name


def test_arrays_carry_plain_dtypes_only():
    for dtype in ("|O", "V8", "[('a', '<f8')]", "(2,)f8"):
        with pytest.raises(wire.WireError):
            wire.decode({"a": (dtype, (1,), b"\x00" * 16)})
    with pytest.raises(wire.WireError):
        wire.decode({"a": ("<f8", (3,), b"\x00" * 16)})     # shape and bytes disagree


def test_an_answer_returning_too_much_is_told_so_and_the_worker_lives_on(worker):
    define(worker, "import numpy as np\n"
                   "def huge():\n    return np.zeros(5 * 2**20)\n"      # 40 MB
                   "def big_int():\n    return 2**100_000\n"
                   "def fine():\n    return 1")
    with pytest.raises(ExerciseFailed, match=r"huge\(\) returned a value of 41,94\d,\d+ bytes: "
                                             r"the grader accepts at most 33,554,432"):
        call(answer(worker, "huge"))
    with pytest.raises(ExerciseFailed, match=r"big_int\(\) returned an integer of 100,001 bits"):
        call(answer(worker, "big_int"))
    assert call(answer(worker, "fine")) == 1


def test_an_answer_returning_an_object_is_diagnosed_by_its_type(worker):
    define(worker, "class Sure:\n    def __eq__(self, other):\n        return True\n"
                   "def sure(*args):\n    return [Sure()]")
    with pytest.raises(ExerciseFailed, match=r"sure\(1\) returned an object of type Sure: "
                                             r"return plain data"):
        call(answer(worker, "sure"), 1)


# ---------------------------------------------------------------- behaving as in-process

def test_a_generator_draws_fresh_numbers_on_each_call_as_in_process(worker):
    define(worker, "def draw(n, rng):\n    return rng.random(n)")
    rng, reference = np.random.default_rng(7), np.random.default_rng(7)
    remote = answer(worker, "draw")
    got = [call(remote, 2, rng=rng), call(remote, 3, rng=rng)]
    got.append(call(remote, 1, rng=rng, repeat=2))
    want = [reference.random(2), reference.random(3), [reference.random(1), reference.random(1)]]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert rng.random() == reference.random()       # the grader's rng moved on too


def test_a_generator_spawns_the_children_it_would_spawn_in_process(worker):
    """`rng.spawn` (what the library's `clone_with_fresh_coins` uses) derives children from
    the Generator's seed sequence, which the worker rebuilds: without it each spawn took
    fresh entropy and 7.6's reproducibility check failed only when graded. (The count of
    children spawned in the worker is not copied back: numpy cannot set it.)"""
    define(worker, "def children(rng):\n    return [c.random() for c in rng.spawn(2)]")
    remote = answer(worker, "children")
    for seed in (5, 2**100 + 3):
        rng = np.random.default_rng(seed)
        rng.spawn(1)                                   # a child already taken in the grader
        want = [c.random() for c in np.random.default_rng(seed).spawn(3)[1:]]
        assert call(remote, rng) == want


def test_a_checkers_callable_is_called_back_in_the_grader(worker):
    """7.1 gives the answer a curator defined in the checker module: it stays in the grader
    (with its answers) and counts the queries the answer made."""
    define(worker, "import numpy as np\n"
                   "def ask(curator, n):\n"
                   "    total = sum(curator(np.eye(n, dtype=int)[i]) for i in range(n))\n"
                   "    try:\n        curator([2] * n)\n    except ValueError as e:\n"
                   "        return total, str(e)[:20]")
    curator = _Curator(3, np.arange(8, dtype=float))
    total, refused = call(answer(worker, "ask"), curator, 3)
    assert total == 1.0 + 2.0 + 4.0 and curator.calls == 3
    assert refused == "a query must be a 0/"


def test_library_objects_and_arrays_changed_by_the_answer_are_copied_back(worker):
    """7.6 checks that the answer did not modify the algorithm it was given: it must see the
    answer's changes; so must a checker whose task lets the answer change an array in place
    (6.3's c, `call(..., may_change=...)`). An array the task leaves unchanged stays as it
    was, and its change is a mistake named by the argument."""
    define(worker, "def meddle(algorithm, values):\n"
                   "    algorithm.update(5)\n    values[0] = 99\n    return 0")
    algorithm, values = AccurateDistinctCount(10, 1.0, rng=1), np.zeros(3)
    call(answer(worker, "meddle"), algorithm, values, may_change=(1,))
    assert algorithm.state()["seen"][5] == 1 and values.tolist() == [99, 0, 0]
    values = np.zeros(3)
    with pytest.raises(ExerciseFailed, match="changed its argument `values` in place"):
        call(answer(worker, "meddle"), AccurateDistinctCount(10, 1.0, rng=1), values)
    assert values.tolist() == [0, 0, 0]


def test_a_non_callable_answer_is_looked_up_as_data(worker):
    define(worker, "roth_m = 42")
    worker.request(("lookup", "roth_m"))
    assert worker.receive(time.monotonic() + 10)[1:] == ["value", 42]


# ---------------------------------------------------------------- limits

def test_an_endless_answer_is_stopped_and_its_process_killed():
    w = Worker(SETUP)
    define(w, "def forever():\n    while True:\n        pass")
    start = time.monotonic()
    with pytest.raises(ExerciseFailed, match=r"calling forever\(\) did not finish within 0.5 s"):
        call(answer(w, "forever"), seconds=0.5)
    assert time.monotonic() - start < 3
    assert not w.alive and w.process.poll() is not None


def test_allocating_20_gb_is_a_memory_error_not_a_dead_grader():
    w = Worker(SETUP, memory=2 * 2**30)
    try:
        define(w, "import numpy as np\ndef hog():\n    return np.ones(20 * 2**30 // 8).sum()")
        with pytest.raises(ExerciseFailed, match=r"hog\(\) raised (MemoryError|_ArrayMemoryError)"):
            call(answer(w, "hog"))
        define(w, "def fine():\n    return 1")           # the process is still usable
        assert call(answer(w, "fine")) == 1
    finally:
        w.kill()


def test_without_rlimit_a_psutil_watchdog_stops_a_worker_using_too_much_memory(monkeypatch):
    """Windows has no `resource` module: there the grader watches the worker's memory."""
    pytest.importorskip("psutil")
    monkeypatch.setattr("panpriv_teach.classroom.grading.session._has_rlimit", lambda: False)
    w = Worker(SETUP, memory=300 * 2**20)
    define(w, "import numpy as np, time\n"
              "def hog():\n    x = np.ones(2**30 // 8)\n    time.sleep(5)\n    return 1")
    with pytest.raises(ExerciseFailed, match=r"used more than 0.29\d* GB of memory"):
        call(answer(w, "hog"))
    w.kill()


def test_a_crash_is_diagnosed():
    w = Worker(SETUP)
    define(w, "import ctypes\ndef crash():\n    return ctypes.string_at(0)")
    with pytest.raises(ExerciseFailed, match=r"calling crash\(\) stopped: the Python process "
                                             r"running your code was stopped by SIGSEGV"):
        call(answer(w, "crash"))
    w.kill()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork is POSIX only")
def test_a_forked_child_neither_answers_nor_outlives_the_worker():
    w = Worker(SETUP)
    define(w, "import os, time\n"
              "def spawn():\n"
              "    child = os.fork()\n"
              "    if child == 0:\n        time.sleep(1000)\n"
              "    return child")
    child = call(answer(w, "spawn"))
    assert isinstance(child, int) and child > 0
    w.kill()
    deadline = time.monotonic() + 5
    while True:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        try:
            with open(f"/proc/{child}/stat") as stat:   # a zombie waiting for init is dead too
                if stat.read().split(") ")[1].startswith("Z"):
                    break
        except FileNotFoundError:
            break
        assert time.monotonic() < deadline, "the forked child survived its worker"
        time.sleep(0.05)


def test_checker_modules_are_stubs_in_the_worker_and_cannot_be_imported_there():
    """A check cell does nothing in the worker, the checker's constants are out of reach, and
    a checker passing a class defined in a checker module (a checker bug) gets a diagnosis
    naming it while the worker lives on."""
    from panpriv_teach.exercises import lower_bounds
    w = Worker({"checkers": {"panpriv_teach.exercises.lower_bounds": ["exercise_7_1"]}})
    try:
        define(w, "from panpriv_teach.exercises import lower_bounds as check\n"
                  "check.exercise_7_1(None)\ncheck.summary()\n"
                  "def take(x):\n    return 1\n"
                  "def peek():\n    import sys\n"
                  "    del sys.modules['panpriv_teach.exercises.lower_bounds']\n"
                  "    import panpriv_teach.exercises.lower_bounds as real\n"
                  "    return real._Curator")
        with pytest.raises(ExerciseFailed, match=r"peek\(\) raised ImportError: "
                                                 r"panpriv_teach.exercises.lower_bounds is not "
                                                 r"available while grading"):
            call(answer(w, "peek"))
        with pytest.raises(ExerciseFailed, match="the grader could not pass it its arguments"):
            call(answer(w, "take"), lower_bounds._Curator)     # a class: not called back
        assert call(answer(w, "take"), 2) == 1
    finally:
        w.kill()
