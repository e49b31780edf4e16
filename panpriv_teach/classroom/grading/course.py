"""What the grader knows about the course, from the course itself (never from a student's
notebook): which checker module grades each exercise notebook, and for each exercise its
title, the name of the answer (the checker's parameter, which is also the name the
notebook's check cell passes) and the library functions that already solve it.

The notebook → checker-module map comes from the pristine exercise notebooks
(`exercises/NN_topic.ipynb`, present in the repository and in a student release; the
solution notebooks as a fallback): the module each imports `as check`.
"""
from __future__ import annotations

import functools
import importlib
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

from panpriv_teach.exercises.harness import exercises_of
from panpriv_teach.classroom.notebooks import checker_module_name

ROOT = Path(__file__).resolve().parents[3]   # the course folder


@dataclass(frozen=True)
class Exercise:
    number: str          # "3.4"
    title: str
    answer: str          # the name of the student's function
    solved_by: tuple     # dotted names of library functions that solve it
    checker: object      # the real checker (its .verdict is called with the answer)

    @property
    def function(self) -> str:
        """The checker's name, `exercise_3_4`."""
        return "exercise_" + self.number.replace(".", "_")


@dataclass(frozen=True)
class Module:
    name: str            # "03_density_estimation"
    checker_module: str  # "panpriv_teach.exercises.density"
    exercises: tuple     # of Exercise, in order


@functools.lru_cache(maxsize=None)
def checker_modules(root: Path = ROOT) -> dict[str, str]:
    """{"03_density_estimation": "panpriv_teach.exercises.density", ...} for every exercise
    notebook of the course."""
    found = {}
    for folder in ("solutions", "exercises"):   # exercises/ wins where both exist
        for path in sorted((Path(root) / folder).glob("*.ipynb")):
            nb = nbformat.from_dict(json.loads(path.read_text(encoding="utf-8")))
            name = checker_module_name(nb)
            if name:
                found[path.stem] = name
    return dict(sorted(found.items()))


@functools.lru_cache(maxsize=None)
def course_module(name: str, root: Path = ROOT) -> Module | None:
    """The Module of the exercise notebook `name` ("03_density_estimation"), or None."""
    checker_module = checker_modules(root).get(name)
    if checker_module is None:
        return None
    module = importlib.import_module(checker_module)
    return Module(name, checker_module, tuple(
        Exercise(number, checker.title, checker.answer, tuple(checker.solved_by), checker)
        for number, checker in exercises_of(module).items()))
