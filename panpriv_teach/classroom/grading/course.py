"""What the grader knows about the course, from the course itself (never from a student's
notebook): which checker module grades each exercise notebook, and for each exercise its
title, the name of the answer (the checker's parameter, which is also the name the
notebook's check cell passes) and the library functions that already solve it.

The notebook → checker-module map comes from the pristine exercise notebooks
(`exercises/NN_topic.ipynb`, present in the repository and in a student release; the
solution notebooks as a fallback): the module each imports `as check`. So do a module's
`tools`: the `solved_by` functions its handout names outside the exercises that declare
them (lecture 07's setup cell imports `reconstruct_lp`, the answer of 7.2, for 7.4 and 7.6
to use): the worker's library gets them only once those exercises are checked.
"""
from __future__ import annotations

import functools
import importlib
import json
from dataclasses import dataclass
from pathlib import Path

import nbformat

from panpriv_teach.exercises.harness import exercises_of
from panpriv_teach.classroom.grading.library_uses import library_uses
from panpriv_teach.classroom.notebooks import _source, checker_module_name, exercise_of_cells

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
    tools: tuple = ()    # (dotted name, number of the exercise declaring it), see above


def _handout(name: str, root: Path):
    for folder in ("exercises", "solutions"):
        path = Path(root) / folder / f"{name}.ipynb"
        if path.is_file():
            return nbformat.from_dict(json.loads(path.read_text(encoding="utf-8")))
    return None


def _tools(name: str, exercises: tuple, root: Path) -> tuple:
    declared = {d: e.number for e in exercises for d in e.solved_by}
    nb = _handout(name, root)
    if nb is None or not declared:
        return ()
    sections = exercise_of_cells(nb)
    code = [(i, _source(c)) for i, c in enumerate(nb.cells) if c.get("cell_type") == "code"]
    uses = library_uses([source for _, source in code], declared)
    return tuple(sorted((dotted, declared[dotted]) for dotted, cells in uses.items()
                        if any(sections[code[c][0]] != declared[dotted] for c in cells)))


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
    exercises = tuple(
        Exercise(number, checker.title, checker.answer, tuple(checker.solved_by), checker)
        for number, checker in exercises_of(module).items())
    return Module(name, checker_module, exercises, _tools(name, exercises, root))
