"""The machinery shared by every exercise checker.

A checker is a function decorated with `@exercise("1.2", "title")` that takes the
student's answer, runs it through `call` (never trusting it: exceptions, wrong types,
NaN and code that never returns become diagnoses), and either returns a short pass
message or raises `ExerciseFailed` with a diagnosis in words a student understands.

In a notebook, `check.exercise_1_2(answer)` SHOWS the verdict (a ✓ line, or ✗ and the
diagnosis) without raising, so Run All carries on past a failed check;
`check.exercise_1_2(answer, strict=True)` raises `ExerciseFailed` instead (nbgrader test
cells), and `check.summary()` prints the notebook's progress and raises unless every
exercise of the module passed in this kernel. IPython shows only the diagnosis (via
`_render_traceback_`), not a library traceback; verdicts are wrapped at 88 characters.

A failing answer's diagnosis points to the student's own line, or says "inside numpy, called
from line N of your code". `expect_reproducible` checks that a random answer draws from its
`rng` (whether it is random at all is for the checker's test of its law, `_laws`);
`SealedAlgorithm` hands an answer an algorithm it may run but not read.

Time limits use no Unix signals (they hold on Windows and macOS): `call` runs the answer in
a helper thread and abandons it when its time is up, and `time_limit` has a watchdog thread
raise `_TimeLimit` in the limited thread. The batch grader
(`panpriv_teach.classroom.grading`) passes the checkers a `RemoteAnswer` instead of a
function: `call` hands it the arguments and the time left, and it runs the answer in
another process.
"""
from __future__ import annotations

import copy
import ctypes
import functools
import heapq
import inspect
import math
import numbers
import os
import sys
import sysconfig
import textwrap
import threading
import time
import traceback
from typing import NamedTuple

import numpy as np

from panpriv_teach.core import StreamAlgorithm

PASS_MARK = "✓"
FAIL_MARK = "✗"
# Real seconds per second of every time limit. Tests set it below 1 to run the limits fast.
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
        return [f"{red}{FAIL_MARK} {title}{reset}", *_fit(self.diagnosis)]


LINE = 88   # characters a line of a notebook's output shows at once (tests/test_line_lengths.py)


def _fit(text: str) -> list[str]:
    """`text` as lines of at most LINE characters (continuations indented), so a verdict
    shows whole in JupyterLab instead of breaking mid-word."""
    return [piece for line in text.splitlines() for piece in textwrap.wrap(
        line, LINE, subsequent_indent="  ", break_long_words=False, break_on_hyphens=False)
        or [""]]


class ExerciseNotAttempted(ExerciseFailed):
    """The answer still raises the stub's NotImplementedError."""

    label = "not attempted yet"


class ProgressIncomplete(ExerciseFailed):
    """`summary()`: some exercise of the module has not passed in this kernel."""

    label = "not every exercise has passed yet"


class _TimeLimit(BaseException):
    """Raised in the limited thread by the watchdog; a BaseException so `except Exception`
    in the student's code cannot swallow it (and it is raised again every 50 ms until
    the limited block ends, so a bare `except:` cannot either)."""


# ---------------------------------------------------------------- the watchdog

_REFIRE = 0.05   # seconds between two interruptions of a thread that swallowed one


def _interrupt(thread_id: int) -> None:
    """Raise _TimeLimit in the thread `thread_id` at its next Python instruction."""
    set_async = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async.argtypes = (ctypes.c_ulong, ctypes.py_object)
    set_async(thread_id, _TimeLimit)


class _Alarm:
    def __init__(self, thread_id: int, due: float, until_dead=None, give_up=math.inf):
        self.thread_id, self.due, self.until_dead, self.give_up = thread_id, due, until_dead, give_up
        self.active, self.fired = True, False

    def __lt__(self, other: _Alarm) -> bool:   # the watchdog's heap: the earliest due first
        return self.due < other.due


class _Watchdog:
    """One daemon thread that interrupts threads whose time is up: a limited block until it
    ends (`arm`/`cancel`), an abandoned answer thread until it dies (`stop`).

    The alarms are a heap by due time: a wake looks at the due alarms only, and an alarm
    disarmed early is dropped once it reaches the top, so the watchdog sleeps until the
    earliest armed one (a list scanned at every wake cost each call of an answer time in
    proportion to the calls of the last 10 s)."""

    def __init__(self):
        self._wake = threading.Condition()
        self._alarms: list[_Alarm] = []   # a heap (heapq)
        self._thread: threading.Thread | None = None
        self._wake_at = -math.inf   # when the waiting watchdog looks again (-inf: looking now)

    def arm(self, thread_id: int, due: float, until_dead=None, give_up=math.inf) -> _Alarm:
        alarm = _Alarm(thread_id, due, until_dead, give_up)
        with self._wake:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="panpriv-watchdog",
                                                 daemon=True)
                self._thread.start()
            heapq.heappush(self._alarms, alarm)
            if due < self._wake_at:   # else it looks at the alarm in time, unwoken
                self._wake.notify()
        return alarm

    def cancel(self, alarm: _Alarm) -> bool:
        """Disarm `alarm` (idempotent); whether it fired."""
        with self._wake:
            alarm.active = False
            return alarm.fired

    def stop(self, thread: threading.Thread, delay: float = 0.0, give_up: float = 60.0) -> _Alarm:
        """From `delay` seconds on, interrupt `thread` now and again until it dies (for at
        most `give_up` s: a thread blocked in C code cannot be interrupted, only abandoned)."""
        due = time.monotonic() + delay
        return self.arm(thread.ident, due, until_dead=thread, give_up=due + give_up)

    def _run(self):
        alarms = self._alarms
        with self._wake:
            while True:
                now = time.monotonic()
                again = []
                while alarms and alarms[0].due <= now:
                    alarm = heapq.heappop(alarms)
                    if not alarm.active or (alarm.until_dead is not None and (
                            not alarm.until_dead.is_alive() or now > alarm.give_up)):
                        continue               # disarmed, its thread ended, or given up
                    _interrupt(alarm.thread_id)
                    alarm.fired, alarm.due = True, now + _REFIRE
                    again.append(alarm)
                for alarm in again:
                    heapq.heappush(alarms, alarm)
                while alarms and not alarms[0].active:
                    heapq.heappop(alarms)
                wait = max(alarms[0].due - now, 0.001) if alarms else None
                self._wake_at = math.inf if wait is None else now + wait
                self._wake.wait(wait)
                self._wake_at = -math.inf


_WATCHDOG = _Watchdog()
_LIMITS = threading.local()   # .deadlines: the real-time deadlines of the enclosing limits


def _deadlines() -> list:
    if not hasattr(_LIMITS, "deadlines"):
        _LIMITS.deadlines = []
    return _LIMITS.deadlines


def _enclosing_deadline() -> float:
    """The earliest deadline of the limits around this point (inf if none)."""
    return min(_deadlines(), default=math.inf)


def _noop():
    pass


class time_limit:
    """`with time_limit(seconds):` interrupts the block with `_TimeLimit` after `seconds`
    (× TIME_SCALE of real time), on every platform: a watchdog thread raises it in this
    thread. It interrupts Python code; a blocking C call (a long `time.sleep`) is
    interrupted when it returns (that is why `call` runs the answer in its own thread).

    Nests: an inner limit never extends an outer one, and the outer one still holds after it.
    """

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __enter__(self):
        due = min(time.monotonic() + self.seconds * TIME_SCALE, _enclosing_deadline())
        _deadlines().append(due)
        self._alarm = _WATCHDOG.arm(threading.get_ident(), due)
        return self

    def __exit__(self, kind, value, tb):
        fired = False
        while True:   # disarm; an interruption already on its way arrives here, not later
            try:
                fired = _WATCHDOG.cancel(self._alarm) or fired
                _noop(), _noop()
                break
            except _TimeLimit:
                fired = True
        _deadlines().pop()
        if fired and kind is None:
            raise _TimeLimit()
        return False


_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = (_PACKAGE_DIR, *(sysconfig.get_paths()[key] for key in ("purelib", "platlib",
                                                                         "stdlib")))


def _is_students(filename: str) -> bool:
    """Whether a traceback frame is the student's code: not this package, not an installed
    library, not compiled code (numpy's Cython frames carry relative names such as
    numpy/random/_generator.pyx)."""
    return not (os.path.abspath(filename).startswith(_LIBRARY_DIRS)
                or filename.endswith((".pyx", ".pxd")) or filename.startswith("<frozen"))


def _library_name(filename: str) -> str:
    """The library a frame belongs to, as a student would name it ("numpy")."""
    path = os.path.abspath(filename)
    if path.startswith(_PACKAGE_DIR):
        return "the course library"
    for root in _LIBRARY_DIRS[1:3]:                  # installed packages
        if path.startswith(root + os.sep):
            return os.path.relpath(path, root).split(os.sep)[0]
    if path.startswith(_LIBRARY_DIRS[3]):
        return "Python's standard library"
    return filename.replace("\\", "/").split("/")[0]   # numpy/random/_generator.pyx


def _where(exc: BaseException) -> str:
    """Where the answer failed: the student's own line, or "inside numpy, called from your
    line N" when the last frame is a library's."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [i for i, f in enumerate(frames) if _is_students(f.filename)]
    if not own:
        return ""
    f = frames[own[-1]]
    line = f"  → {f.line.strip()}" if f.line else ""
    if own[-1] == len(frames) - 1:
        return f"\n  (at line {f.lineno} of your code{line})"
    return (f"\n  (inside {_library_name(frames[-1].filename)}, called from line {f.lineno} of "
            f"your code{line})")


def describe_call(name: str, args: tuple, kwargs: dict) -> str:
    parts = [_short(a) for a in args] + [f"{k}={_short(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def _short(value) -> str:
    if isinstance(value, np.ndarray):
        return f"<array of shape {value.shape}>"
    if isinstance(value, np.random.Generator):
        return "<rng>"
    text = repr(value)
    if " at 0x" in text and text.startswith("<"):   # a default repr: name it instead
        text = getattr(value, "__name__", None) or f"<{type(value).__name__.strip('_')}>"
    return text if len(text) <= 40 else text[:37] + "..."


class Outcome(NamedTuple):
    """What became of a call of the answer. `kind` is "returned" (`value`: the result, a list
    of them with `repeat`), "not attempted" (the stub's NotImplementedError, `message`),
    "raised" (`error`: the exception's type name, `message`, `where`: the student's line),
    "timeout" or "died" (`message`: what happened to the process running it)."""

    kind: str
    value: object = None
    error: str = ""
    message: str = ""
    where: str = ""


class RemoteAnswer:
    """An answer that runs in another process (the batch grader's worker). `call` does not
    call it: it hands `run` the arguments and the seconds left, and reads the Outcome."""

    __name__ = "your function"

    def run(self, args: tuple, kwargs: dict, repeat: int | None, timeout: float) -> Outcome:
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        return call(self, *args, **kwargs)


def _text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # a student's exception whose __str__ itself fails
        return f"<{type(exc).__name__} that cannot be printed>"


def outcome_of_exception(exc: BaseException) -> Outcome:
    """The Outcome of an answer that raised `exc` (used here and in the grader's worker)."""
    if isinstance(exc, NotImplementedError):
        return Outcome("not attempted", message=_text(exc))
    return Outcome("raised", error=type(exc).__name__, message=_text(exc), where=_where(exc))


# `call` tells `repeated` (which runs where the answer runs: a thread here, or the grader's
# worker process) which arguments the answer may change in place, under this keyword.
_MAY_CHANGE = "_panpriv_may_change"


class ArgumentChanged(Exception):
    """The answer changed one of its arguments in place (raised by `repeated` after the call;
    `call` turns it into a diagnosis)."""


def _is_data(value) -> bool:
    """Whether an argument is data the answer gets its own copy of (and must leave as it
    was): arrays and containers. Numbers and strings cannot change; generators, functions
    (oracles) and objects are shared with the checker on purpose."""
    return isinstance(value, (np.ndarray, list, tuple, dict, set))


# Values that copy.deepcopy returns themselves (immutable, holding nothing mutable).
_ATOMS = frozenset((int, float, complex, str, bytes, bool, type(None)))


def _flat(value) -> bool:
    """Whether `value` is a list or tuple of atoms only (its deep copy is a shallow one)."""
    return type(value) in (list, tuple) and _ATOMS.issuperset(map(type, value))


def _copied(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if _flat(value):   # the deep copy of a list of atoms, without deepcopy's bookkeeping
        return value.copy() if type(value) is list else value
    return copy.deepcopy(value) if _is_data(value) else value


def _same(a, b) -> bool:
    """Whether two pieces of data are equal (NaN equal to NaN), recursively."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        if a.dtype.kind in "biufc" and a.tobytes() == b.tobytes():   # the same bits: equal
            return True
        try:
            return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        except Exception:  # an object array whose entries cannot be compared: trust it
            return True
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return False
        if _flat(a) and list(map(type, a)) == list(map(type, b)) and a == b:
            return True        # atoms of the same types, each equal (or the same object)
        return all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    try:
        return bool(a == b)
    except Exception:  # a comparison that fails: nothing to report
        return True


def _guard(value):
    """(copy, unchanged) for the data argument `value`: a fresh copy for one call of the
    answer, and whether that copy is still equal to `value` after the call; the same
    verdicts as `_copied` and `_same`, but the plain cases (a numeric array, a list of
    atoms) are recognised once per argument instead of at every one of a repeated call's
    calls (`value` itself is never handed to the answer, so it cannot change meanwhile)."""
    if type(value) is np.ndarray and value.dtype.kind in "biufc":
        raw = value.tobytes()

        def unchanged(given):
            return (type(given) is np.ndarray and given.shape == value.shape
                    and given.dtype == value.dtype and given.tobytes() == raw) or _same(value, given)
        return value.copy, unchanged
    if _flat(value):
        types = list(map(type, value))

        def unchanged(given):
            return (type(given) is type(value) and list(map(type, given)) == types
                    and given == value) or _same(value, given)
        return (value.copy if type(value) is list else lambda: value), unchanged
    return (lambda: _copied(value)), (lambda given: _same(value, given))


def _parameter_name(fn, position: int) -> str:
    """The name the answer gives its positional parameter `position` ("number 2" if it
    cannot be told)."""
    try:
        names = [p.name for p in inspect.signature(fn).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return f"`{names[position]}`"
    except (TypeError, ValueError, IndexError):
        return f"number {position + 1}"


def repeated(fn, args: tuple, kwargs: dict, repeat: int | None):
    """`fn(*args, **kwargs)`, or the list of `repeat` such calls. Each call gets its own
    copies of the data arguments (arrays, lists, dicts, ...), so the answer can change
    neither the caller's data nor the next call's input; after each call the copies are
    compared with the originals, and a change raises ArgumentChanged naming the argument.
    `kwargs[_MAY_CHANGE]` (set by `call`, removed here) lists the positions of arguments the
    answer may change in place: those are passed themselves, not copied (one call only)."""
    kwargs = dict(kwargs)
    free = set(kwargs.pop(_MAY_CHANGE, ()))
    if repeat is not None:      # a repeated call gets fresh copies every time
        free = set()
    data = {i: _guard(a) for i, a in enumerate(args) if i not in free and _is_data(a)}
    data_kw = {key: _guard(v) for key, v in kwargs.items() if _is_data(v)}

    def once():
        given, given_kw = list(args), dict(kwargs)
        for i, (copied, _) in data.items():
            given[i] = copied()
        for key, (copied, _) in data_kw.items():
            given_kw[key] = copied()
        value = fn(*given, **given_kw)
        for i, (_, unchanged) in data.items():
            if not unchanged(given[i]):
                raise ArgumentChanged(f"changed its argument {_parameter_name(fn, i)} in place")
        for key, (_, unchanged) in data_kw.items():
            if not unchanged(given_kw[key]):
                raise ArgumentChanged(f"changed its argument `{key}` in place")
        return value

    if not data and not data_kw:      # numbers, generators, functions: nothing to copy
        return fn(*args, **kwargs) if repeat is None else [fn(*args, **kwargs)
                                                            for _ in range(repeat)]
    return once() if repeat is None else [once() for _ in range(repeat)]


def _run_here(fn, args: tuple, kwargs: dict, repeat: int | None, timeout: float) -> Outcome:
    """Run the answer in a helper thread of this process and wait at most `timeout` s; a
    thread still running then is abandoned (and interrupted until it stops)."""
    box = {}

    def answer():
        try:
            box["value"] = repeated(fn, args, kwargs, repeat)
        except _TimeLimit:   # the watchdog stopping an answer out of time
            box["stopped"] = True
        except BaseException as exc:  # noqa: BLE001 - even SystemExit is only a wrong answer
            box["exc"] = exc

    thread = threading.Thread(target=answer, name="panpriv-answer", daemon=True)
    thread.start()
    alarm = _WATCHDOG.stop(thread, delay=timeout)   # armed first: it holds even if this
    try:                                            # thread is interrupted while waiting
        thread.join(timeout)
    finally:
        if thread.is_alive():     # out of time, or the user interrupted the kernel
            _WATCHDOG.stop(thread)
        else:                     # done in time: nothing left to stop
            _WATCHDOG.cancel(alarm)
    if thread.is_alive() or "stopped" in box:
        return Outcome("timeout")
    if "exc" in box:
        return outcome_of_exception(box["exc"])
    return Outcome("returned", box.get("value"))


def _name(fn) -> str:
    try:
        return str(getattr(fn, "__name__", "your function"))
    except Exception:  # an object whose attribute lookup itself fails
        return "your function"


def attempt(fn, *args, seconds: float = 10.0, repeat: int | None = None,
            may_change: tuple = (), **kwargs) -> Outcome:
    """Run the student's `fn(*args, **kwargs)` (or `repeat` times) like `call`, but return
    its Outcome, whatever happened, instead of a value or a diagnosis (for a checker that
    wants to tell how an answer failed). Raises only `_TimeLimit`, when the enclosing limit
    ran out first, and ExerciseFailed for an answer that is not a function."""
    if not callable(fn):
        raise ExerciseFailed(f"expected a function, got {type(fn).__name__} ({_short(fn)}). "
                             "Pass the function itself, without calling it: "
                             "check.exercise_N_k(my_function), not my_function().")
    if may_change:
        kwargs = {**kwargs, _MAY_CHANGE: tuple(may_change)}
    now = time.monotonic()
    own, enclosing = now + seconds * TIME_SCALE, _enclosing_deadline()
    timeout = max(min(own, enclosing) - now, 0.0)
    if isinstance(fn, RemoteAnswer):
        outcome = fn.run(args, kwargs, repeat, timeout)
    else:
        outcome = _run_here(fn, args, kwargs, repeat, timeout)
    if outcome.kind == "timeout" and enclosing < own:   # the whole check's limit ran out first
        raise _TimeLimit()
    return outcome


def value_of(outcome: Outcome, shown: str, seconds: float = 10.0, times: str = ""):
    """The value an answer returned, or the diagnosis of how it failed (`shown`: the call as
    the student reads it)."""
    if outcome.kind == "returned":
        return outcome.value
    if outcome.kind == "timeout":
        raise ExerciseFailed(f"calling {shown}{times} did not finish within {seconds:g} s. Look "
                             "for a loop that never ends, or vectorise with numpy.")
    if outcome.kind == "not attempted":
        raise ExerciseNotAttempted("your function still raises NotImplementedError: replace the "
                                   f"`raise NotImplementedError(...)` line with your code "
                                   f"({outcome.message}).")
    if outcome.kind == "raised" and outcome.error == ArgumentChanged.__name__:
        raise ExerciseFailed(f"{shown} {outcome.message}: the caller's data is no longer what "
                             "it was, though the task leaves its inputs unchanged (a function "
                             "that edits its inputs corrupts its caller's data).")
    if outcome.kind == "raised":
        raise ExerciseFailed(f"{shown} raised {outcome.error}: {outcome.message}{outcome.where}")
    raise ExerciseFailed(f"calling {shown}{times} {outcome.message}")


def call(fn, *args, seconds: float = 10.0, repeat: int | None = None, may_change: tuple = (),
         **kwargs):
    """Call the student's `fn(*args, **kwargs)` (or `repeat` times, returning a list),
    turning every way it can go wrong into a diagnosis. The answer runs in its own thread
    (or, for a RemoteAnswer, its own process) for at most `seconds` (× TIME_SCALE) and never
    past an enclosing `time_limit`, whose `_TimeLimit` then propagates. Each call gets its
    own copies of the data arguments and fails if it changed one (see `repeated`), except
    the positional arguments in `may_change`, which the task lets it change in place."""
    outcome = attempt(fn, *args, seconds=seconds, repeat=repeat, may_change=may_change,
                      **kwargs)
    return value_of(outcome, describe_call(_name(fn), args, kwargs), seconds,
                    "" if repeat is None else f" {repeat} times")


def not_reproducible(elsewhere: str = "") -> ExerciseFailed:
    """The diagnosis of an answer whose identically seeded calls differ (`elsewhere`: more
    places it may draw from, after the usual ones)."""
    return ExerciseFailed("two calls with identically seeded rngs gave different answers: "
                          "your function draws randomness from somewhere other than its "
                          f"`rng` argument (np.random.*, the random module{elsewhere}), so its "
                          "results can be neither reproduced nor checked.")


def expect_reproducible(fn, *args, convert=None, draws: int = 1, **kwargs) -> None:
    """Fail unless `fn(*args, rng=...)` is reproducible from its `rng` argument: `draws`
    calls from identically seeded generators give the same answers twice. (Whether it is
    random at all is for the checker's test of its law: a deterministic answer has a point
    mass for law, and two seeds may rightly give the same answer.) An answer with few
    possible values needs several draws, or one drawing from elsewhere repeats by chance.
    `convert` validates one answer first (e.g. `as_real`), so a broken answer gets the
    diagnosis about its type."""
    def run():
        answers = call(fn, *args, rng=np.random.default_rng(12345), repeat=draws, **kwargs)
        return [np.asarray(convert(a) if convert else a, dtype=object) for a in answers]

    first, again = run(), run()
    if any(a.shape != b.shape or not np.array_equal(a, b) for a, b in zip(first, again)):
        raise not_reproducible()


def _preview(values) -> str:
    shown = ", ".join(_short(v) for v in values[:3])
    return f"[{shown}{', ...' if len(values) > 3 else ''}]"


def as_real(value, what: str) -> float:
    """`value` as one finite float, or a diagnosis naming `what`. A list, tuple or array is
    named as such (never "did you forget a return?"), with the fix for the one-element case."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, (list, tuple, np.ndarray)):
        kind = "numpy array" if isinstance(value, np.ndarray) else type(value).__name__
        entries = value.ravel().tolist() if isinstance(value, np.ndarray) else list(value)
        fix = (" (its only entry is x[0]; return that, or float(x[0]))" if len(entries) == 1 else
               ": the task asks for ONE number")
        raise ExerciseFailed(f"{what} should be a single number, but it is a {kind} of "
                             f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} "
                             f"{_preview(entries)}{fix}.")
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


# ---------------------------------------------------------------- what an answer may read

class SealedAlgorithm(StreamAlgorithm):
    """A stream algorithm as an answer that must decode from releases alone gets it (7.6):
    it can be copied (`clone_with_fresh_coins`, `copy.deepcopy`) at most `copies` times in
    all (copies of copies included), its copies run (`update`, `process`) and any output
    read, but its memory cannot be read (no attribute but `universe_size` and its
    generators `_coins`, no `state()`; the algorithm is held in closures, not in an
    attribute, so `vars()` and deep copies do not show it), and the original refuses query
    streams. Its random generators are listed (`_coins`: no memory in them), so
    `clone_with_fresh_coins` replaces them with the attacker's. It lives in the harness
    because the grader's worker, which runs the answer, imports only the harness of the
    checker package."""

    def __init__(self, algorithm, copies: float = math.inf, *, _left=None, _is_copy=False):
        from panpriv_teach.intrusion import _generators
        self.universe_size = algorithm.universe_size
        self._coins = list(_generators(algorithm, set()))
        left = [copies] if _left is None else _left     # shared by every copy

        def copy_of(memo):
            if left[0] < 1:
                raise PermissionError(f"you made more copies of the algorithm than the "
                                      f"{copies:g} the attack may run (one per query): the "
                                      "attack must decode from n_queries query streams")
            left[0] -= 1
            return SealedAlgorithm(copy.deepcopy(algorithm, memo), copies, _left=left,
                                   _is_copy=True)

        def run(method, *args):
            if not _is_copy:
                raise PermissionError("you ran a query stream on the intruded algorithm itself: "
                                      "the attack must leave the memory it copied as it found "
                                      "it and continue copies of it instead")
            getattr(algorithm, method)(*args)

        self._copy_of, self._run = copy_of, run
        self._output = lambda: algorithm.output()     # not the bound method: it shows its object
        self._pickled = lambda: (_reseal, (algorithm, copies, left[0], _is_copy))

    def __repr__(self):
        return "algorithm"

    def __reduce__(self):           # the grader sends it to the worker that runs the answer
        return self._pickled()

    def __deepcopy__(self, memo):
        return self._copy_of(memo)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"the algorithm has no attribute {name!r} you may read: this "
                             "attack decodes from releases alone (copies run on query streams, "
                             "their outputs read), never from the memory's contents")

    def state(self):
        raise PermissionError("this attack decodes from releases alone: reading the memory's "
                              "contents (state()) is what it must do without")

    def update(self, x):
        self._run("update", x)

    def process(self, stream):
        self._run("process", stream)

    def output(self):
        return self._output()


def _reseal(algorithm, copies, left, is_copy):
    return SealedAlgorithm(algorithm, copies, _left=[left], _is_copy=is_copy)


# ---------------------------------------------------------------- the checkers

# This kernel's verdicts: checker module name → {exercise number: "passed" | "failed" |
# "not attempted"}; `summary()` reads it.
_PROGRESS: dict[str, dict[str, str]] = {}


def _status(failure: ExerciseFailed | None) -> str:
    if failure is None:
        return "passed"
    return "not attempted" if isinstance(failure, ExerciseNotAttempted) else "failed"


def exercise(number: str, title: str, seconds: float = 30.0, solved_by: tuple = ()):
    """Decorate a checker: it receives the answer and returns a pass message or raises
    ExerciseFailed; `seconds` bounds the whole check (student code included).

    The decorated `checker(answer)` shows the verdict without raising: "✓ Exercise N.k
    passed: ...", or the ✗ line and the diagnosis (so Run All carries on);
    `checker(answer, strict=True)` raises ExerciseFailed instead. `checker.verdict(answer)`
    returns the pass message or raises, printing and recording nothing (the grader's way).
    `solved_by` names (dotted) the library functions that already solve the exercise: when
    graded (`panpriv_teach.classroom`), they are absent from the library the answer runs
    with, and an answer whose cells name them fails. `checker.answer` is
    the name of the checker's parameter: the name the exercise asks the answer to have.
    Decorating also gives the checker's module its `summary()` (see `summary_of`)."""

    def decorate(check):
        def verdict(answer) -> str:
            try:
                with time_limit(seconds):
                    return check(answer)
            except ExerciseFailed as exc:
                exc.exercise = number
                raise exc.with_traceback(None) from None
            except _TimeLimit:
                raise ExerciseFailed(f"checking took more than {seconds:g} s: your code is too "
                                     "slow. Vectorise with numpy instead of Python loops.",
                                     number) from None

        @functools.wraps(check)
        def checker(answer, strict: bool = False):
            try:
                message = verdict(answer)
            except ExerciseFailed as failure:
                _PROGRESS.setdefault(check.__module__, {})[number] = _status(failure)
                if strict:
                    raise
                print("\n".join(failure._render_traceback_()))
                return None
            _PROGRESS.setdefault(check.__module__, {})[number] = _status(None)
            print("\n".join(_fit(f"{PASS_MARK} Exercise {number} passed: {message}")))

        checker.exercise, checker.title = number, title
        checker.solved_by = tuple(solved_by)
        checker.verdict = verdict
        checker.answer = next(iter(inspect.signature(check).parameters), "answer")
        module = sys.modules.get(check.__module__)
        if module is not None and not hasattr(module, "summary"):
            module.summary = summary_of(check.__module__)
        return checker

    return decorate


_SHOWN = {"passed": f"{PASS_MARK} passed", "failed": f"{FAIL_MARK} not passed yet",
          "not attempted": f"{FAIL_MARK} not attempted yet", None: "· not checked in this kernel"}


def summary_of(module_name: str):
    """The `summary()` of a checker module: it prints each exercise's verdict in this kernel
    and raises ProgressIncomplete unless all of them passed (so `pytest --nbval-lax` fails
    the notebook exactly when not everything passed, like the grader's scoreboard)."""

    def summary() -> None:
        checkers = exercises_of(sys.modules[module_name])
        seen = _PROGRESS.get(module_name, {})
        for number, checker in checkers.items():
            print(f"  {number:<5} {_SHOWN[seen.get(number)]:<28} {checker.title}")
        passed = [n for n in checkers if seen.get(n) == "passed"]
        print(f"{len(passed)} of {len(checkers)} exercises passed")
        missing = [n for n in checkers if seen.get(n) != "passed"]
        if missing:
            raise ProgressIncomplete(
                f"{len(passed)} of {len(checkers)} exercises passed. Still to do: "
                f"{', '.join(missing)} (run each check cell; an exercise never checked in this "
                "kernel counts as not passed).")
        print(f"{PASS_MARK} every exercise passed.")

    summary.__doc__ = ("Print this notebook's progress: each exercise's verdict in this kernel; "
                       "raises unless every exercise passed.")
    return summary


def exercises_of(module) -> dict[str, object]:
    """The checkers a checker module defines, keyed by exercise number, in order."""
    found = [f for f in vars(module).values() if callable(f) and hasattr(f, "exercise")]
    return {f.exercise: f for f in sorted(found, key=lambda f: tuple(map(int, f.exercise.split("."))))}
