"""Shared by the checker tests: assert a checker passes a correct answer, or fails with a
diagnosis that names the mistake; the broken answers every checker must survive; and the
mutation tables (`Table`): for every exercise, its realistic mistakes with the words the
student must see, and several different correct implementations. The tables live in
`tests/checker_tables/<checker module>.py`; `tests/test_checker_mutations.py` runs them,
`tests/test_checker_false_failures.py` runs the correct ones under many random seeds, and
the instructor guide's table "Common mistakes per exercise" lists their mistakes
(`guide_table`)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import pytest

from panpriv_teach.exercises.harness import ExerciseFailed, exercises_of

MODULES = ("dp_basics", "randomized_response", "density", "continual_counting", "ppcum",
           "sketches", "lower_bounds")


def passes(checker, answer, capsys):
    """The checker accepts `answer` and prints its pass line."""
    checker(answer, strict=True)
    assert f"✓ Exercise {checker.exercise} passed" in capsys.readouterr().out


def fails_with(checker, answer, *words):
    """The checker rejects `answer` with a diagnosis containing every one of `words`."""
    with pytest.raises(ExerciseFailed) as info:
        checker(answer, strict=True)
    message = str(info.value).lower()
    for word in words:
        assert word.lower() in message, f"expected {word!r} in the diagnosis: {message}"
    return info.value


def raises(*args, **kwargs):
    raise KeyError("oops")


def never_returns(*args, **kwargs):
    while True:
        pass


# ---------------------------------------------------------------- mutation tables

@dataclass(frozen=True)
class Mistake:
    """A realistic wrong answer to exercise `exercise`: `name` says what the student did
    (the instructor guide lists it), `words` what the diagnosis must say."""

    exercise: str
    name: str
    answer: Callable
    words: tuple


@dataclass(frozen=True)
class Variant:
    """A correct answer to exercise `exercise`, written in its own way (`name`)."""

    exercise: str
    name: str
    answer: Callable


class Table:
    """One checker module's mutation table, filled by decorating answers:
    `@table.correct("1.3", "inverse cdf")` and `@table.mistake("1.3", "scale 1/ε", "words")`."""

    def __init__(self, module: str):
        self.module = module
        self.mistakes: list[Mistake] = []
        self.variants: list[Variant] = []

    def correct(self, exercise: str, name: str):
        def register(answer):
            self.variants.append(Variant(exercise, name, answer))
            return answer
        return register

    def mistake(self, exercise: str, name: str, *words: str):
        def register(answer):
            self.mistakes.append(Mistake(exercise, name, answer, words))
            return answer
        return register

    def checker(self, exercise: str):
        module = importlib.import_module(f"panpriv_teach.exercises.{self.module}")
        return exercises_of(module)[exercise]


def tables() -> list[Table]:
    """Every checker module's table, in course order."""
    return [importlib.import_module(f"checker_tables.{module}").table for module in MODULES]


def guide_table() -> str:
    """The instructor guide's table "Common mistakes per exercise": one row per exercise,
    its title and the names of its mistakes (print it with
    `cd tests && python -c "import checker_testing as c; print(c.guide_table())"`)."""
    def cell(text):                # a | inside a cell ("Σ|a_i|^p") would split the row
        return text.replace("|", "\\|")

    lines = ["| exercise | typical mistakes (each diagnosed by name) |", "|---|---|"]
    for table in tables():
        numbers = list(dict.fromkeys(m.exercise for m in table.mistakes))
        for number in numbers:
            names = [m.name for m in table.mistakes if m.exercise == number]
            lines.append(f"| {number} {cell(table.checker(number).title)} | "
                         f"{cell('; '.join(names))} |")
    return "\n".join(lines)
