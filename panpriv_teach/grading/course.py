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
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from panpriv_teach.exercises.harness import exercises_of
from panpriv_teach.notebooks import checker_module_name

ROOT = Path(__file__).resolve().parent.parent.parent
NOTEBOOK_NAME = re.compile(r"^(?P<number>\d\d)_[\w-]+$")


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


def _checker_modules(root: Path) -> dict[str, str]:
    found = {}
    for folder in ("solutions", "exercises"):   # exercises/ wins where both exist
        for path in sorted((root / folder).glob("*.ipynb")):
            name = checker_module_name(nbformat.read(path, as_version=4))
            if name:
                found[path.stem] = name
    return found


@functools.lru_cache(maxsize=None)
def course_modules(root: Path = ROOT) -> dict[str, Module]:
    """{"03_density_estimation": Module(...), ...} for every exercise notebook of the course."""
    modules = {}
    for name, checker_module in sorted(_checker_modules(Path(root)).items()):
        module = importlib.import_module(checker_module)
        modules[name] = Module(name, checker_module, tuple(
            Exercise(number, checker.title, checker.answer, tuple(checker.solved_by), checker)
            for number, checker in exercises_of(module).items()))
    return modules
