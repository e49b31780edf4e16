"""Issue 24, item 2: no exercise can be passed by letting the library do its work. Each answer
of `tests/library_answers.py` solves its exercise with the whole library (its checker
passes it), and when graded it cannot: run with the worker's library for that exercise
(`library_view`: the view without the module's `solved_by` functions, or with the module's
tools once their exercises are checked), it meets a stub naming the exercise, or a private
helper that is gone; and the grader's static check (`library_uses`) names a function the
exercise declares, in every answer but those reaching a private helper no exercise
declares. An answer that still runs in the view shows a library function its exercise
must declare."""
from __future__ import annotations

import json
import pickle
import subprocess
import sys
import sysconfig

import pytest

from library_answers import ANSWERS
from panpriv_teach.classroom.grading.course import course_module
from panpriv_teach.classroom.grading.library_uses import library_uses
from panpriv_teach.classroom.grading.library_view import write_views
from panpriv_teach.exercises.harness import ExerciseFailed

CASES = [(notebook, number, how, source) for notebook, rows in ANSWERS.items()
         for number, how, source in rows]
IDS = [f"{number} {how}" for _, number, how, _ in CASES]
ARGUMENTS: dict[tuple, tuple] = {}   # (exercise, how) → the checker's first call's arguments


def exercise_of(notebook: str, number: str):
    return next(e for e in course_module(notebook).exercises if e.number == number)


def answer_of(source: str, name: str):
    namespace: dict = {}
    exec(compile(source, "<answer>", "exec"), namespace)
    return namespace[name]


def checked(notebook, number, how, source) -> str | None:
    """Check the answer with the whole library (None: it passed, else the diagnosis) and
    keep the arguments of the checker's first call to it, copied."""
    exercise = exercise_of(notebook, number)
    answer = answer_of(source, exercise.answer)

    def recording(*args, **kwargs):
        if (number, how) not in ARGUMENTS:
            ARGUMENTS[number, how] = _copied(args), _copied(kwargs)
        return answer(*args, **kwargs)

    try:
        exercise.checker.verdict(recording)
    except ExerciseFailed as failure:
        return failure.diagnosis
    return None


def _copied(values):
    """A deep copy of each value that can be sent to another process (pickled); None for
    the checkers' closures (an oracle, a sealed algorithm): a stub raises whatever it gets,
    and a function that is no stub fails the test below on them too."""
    def one(value):
        try:
            return pickle.loads(pickle.dumps(value))
        except Exception:
            return None
    return {k: one(v) for k, v in values.items()} if isinstance(values, dict) else \
        tuple(one(v) for v in values)


@pytest.mark.parametrize("notebook, number, how, source", CASES, ids=IDS)
def test_each_library_answer_solves_its_exercise_with_the_whole_library(notebook, number,
                                                                        how, source):
    diagnosis = checked(notebook, number, how, source)
    assert diagnosis is None, f"{number} by {how} does not solve the exercise: {diagnosis}"


# Private helpers no exercise declares: the view removes them once nothing kept uses them
# (`library_view`); the static check does not look for them.
REMOVED_HELPERS = {"attacks._can_produce"}


@pytest.mark.parametrize("notebook, number, how, source", CASES, ids=IDS)
def test_the_graders_static_check_names_what_each_answer_uses(notebook, number, how, source):
    found = library_uses([source], exercise_of(notebook, number).solved_by)
    if how in REMOVED_HELPERS:
        assert not found
    else:
        assert found, f"{number} by {how}: no function that {number} declares is named"


@pytest.mark.parametrize("made", ["counter, releases = SimpleCounter(1.0, rng=0), []",
                                  "[releases, (counter, n)] = [], (SimpleCounter(1.0, rng=0), 3)"])
def test_the_static_check_follows_an_object_made_in_a_tuple_assignment(made):
    """(Such an answer is also stopped when it runs, by the view's stub of update.)"""
    source = f"from panpriv_teach.counters import SimpleCounter\n{made}\ncounter.update(1)\n"
    assert library_uses([source], ["panpriv_teach.counters.SimpleCounter.update"])
    unpacked = f"from panpriv_teach.counters import SimpleCounter\n{made}\nreleases.update(1)\n"
    assert not library_uses([unpacked], ["panpriv_teach.counters.SimpleCounter.update"])


_RUN = r"""
import json, os, pickle, sys
sys.path[:0] = sys.argv[1].split(os.pathsep)
results = []
for source, name, args, kwargs in pickle.load(open(sys.argv[2], "rb")):
    try:
        namespace = {}
        exec(compile(source, "<answer>", "exec"), namespace)
        namespace[name](*args, **kwargs)
        results.append(["ran", ""])
    except BaseException as exc:
        results.append([type(exc).__name__, str(exc)])
print(json.dumps(results))
"""


def ran_in_views(notebook: str, folder) -> list:
    """[(exercise, how, what the answer's call in its grading view raised)] for the
    notebook's answers, each called with its checker's first arguments."""
    module = course_module(notebook)
    views = write_views(module, folder)
    order = [e.number for e in module.exercises]
    switch = max((order.index(n) for n in views.after), default=len(order))
    rows = [(number, how, source) for nb, number, how, source in CASES if nb == notebook]
    by_view: dict[str, list] = {}
    for number, how, source in rows:
        if (number, how) not in ARGUMENTS:
            checked(notebook, number, how, source)
        view = views.later if views.later and order.index(number) > switch else views.first
        args, kwargs = ARGUMENTS[number, how]
        by_view.setdefault(view, []).append(
            (number, how, (source, exercise_of(notebook, number).answer, args, kwargs)))
    results = []
    for view, calls in by_view.items():
        batch = folder / f"calls_{len(results)}.pickle"
        batch.write_bytes(pickle.dumps([call for _, _, call in calls]))
        paths = [str(view)] + list(dict.fromkeys(sysconfig.get_paths()[k]
                                                 for k in ("purelib", "platlib")))
        done = subprocess.run([sys.executable, "-I", "-S", "-c", _RUN, ":".join(paths),
                               str(batch)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        results += [(number, how, tuple(got)) for (number, how, _), got in
                    zip(calls, json.loads(done.stdout.strip().splitlines()[-1]), strict=True)]
    return results


def _stopped(kind: str, message: str) -> bool:
    """Whether an answer's run was stopped by the grading library: a stub, or a name gone."""
    if kind == "RuntimeError":
        return "is not available while grading" in message
    return (kind in ("AttributeError", "ImportError") and "'_" in message
            and ("module 'panpriv_teach." in message or "from 'panpriv_teach." in message))


@pytest.mark.parametrize("notebook", list(ANSWERS))
def test_no_library_answer_runs_in_the_library_it_is_graded_with(notebook, tmp_path):
    undeclared = [f"{number} by {how}: {kind} {message}".strip()
                  for number, how, (kind, message) in ran_in_views(notebook, tmp_path)
                  if not _stopped(kind, message)]
    assert not undeclared, ("these answers run in the grading library: declare what they "
                            "use in `solved_by`\n" + "\n".join(undeclared))


def test_only_a_stub_or_a_removed_helper_counts_as_stopped_by_grading():
    assert _stopped("RuntimeError", "panpriv_teach.ppcum.erased_nodes is not available while "
                    "grading: exercise 5.1 asks you to write it")
    assert _stopped("AttributeError", "module 'panpriv_teach.attacks' has no attribute "
                    "'_can_produce'")
    assert not _stopped("TypeError", "'NoneType' object is not callable")
    assert not _stopped("AttributeError", "'NoneType' object has no attribute '_state'")
    assert not _stopped("RuntimeError", "the answer's own error")
    assert not _stopped("ran", "")
