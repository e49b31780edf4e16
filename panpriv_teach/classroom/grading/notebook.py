"""Grade one student notebook with integrity: the student's code runs in a worker process
(in a sandbox when a class is graded), the course's real checkers run here, and nothing the
notebook prints, patches or exits can make a verdict.

The worker executes the notebook's code cells in order. Right after the cell holding an
exercise's check call (`check.exercise_N_k(...)`, however the student edited or wrapped it),
the grader looks up the answer under the name the course gives it (the checker's parameter
name, never the argument the student's cell passes) and runs the REAL checker on a proxy of
it: each call of the answer goes to the worker. The worker's library has no
`solved_by` function of the module (`library_view`: calling one raises an error naming the
exercise); an answer whose own cells (those under its "Exercise N.k" heading; an import in a
setup cell is not a use by itself) name one fails with that diagnosis before it is run.

When the worker dies or runs out of time, the current cell or exercise gets the diagnosis,
and the grading goes on in a fresh worker that first re-runs the cells already run (a cell
that stopped the worker is skipped, and said so); after MAX_RESTARTS fresh workers, the
remaining exercises are reported as errors. The whole notebook, replays included, has a
`Budget` of wall and CPU seconds: when it runs out, the exercises not graded yet are
"over budget", with the time used.
"""
from __future__ import annotations

import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import nbformat

from panpriv_teach.exercises.harness import ExerciseFailed, ExerciseNotAttempted
from panpriv_teach.classroom.grading import wire
from panpriv_teach.classroom.grading.course import Module, checker_modules, course_module
from panpriv_teach.classroom.grading.library_uses import library_uses
from panpriv_teach.classroom.grading.library_view import Views, write_views
from panpriv_teach.classroom.grading.session import (MEMORY_LIMIT, AnswerProxy, OverBudget,
                                                     Session, Worker, WorkerStopped,
                                                     WorkerTimeout)
from panpriv_teach.classroom.notebooks import exercise_of_cells

STATUSES = ("passed", "failed", "not attempted", "missing", "error", "over budget")
CELL_SECONDS = 120.0      # the default limit for one code cell
NOTEBOOK_SECONDS = 300.0  # the default budget of a notebook: wall seconds, and CPU seconds
MAX_RESTARTS = 3          # fresh workers after the first, each replaying the cells run


@dataclass(frozen=True)
class Budget:
    """What grading one notebook may take, replays included: `wall` seconds of elapsed
    time, `cpu` seconds of CPU time of its workers, and no time past `deadline` (a
    time.monotonic() value: the class's own budget)."""

    wall: float = NOTEBOOK_SECONDS
    cpu: float = NOTEBOOK_SECONDS
    deadline: float = float("inf")


@dataclass
class ExerciseGrade:
    """One exercise's verdict. `cell` is the check cell's position as JupyterLab shows it
    (1-based, counting every cell), None when the check cell is missing."""

    exercise: str
    title: str
    status: str
    diagnosis: str = ""
    cell: int | None = None


@dataclass
class NotebookGrade:
    """The grades of one notebook: `module` ("03_density_estimation"), `results` (one
    ExerciseGrade per exercise of the module, in order) and `problems` (what belongs to no
    exercise: a setup cell that raised, a cell skipped because it never ended...)."""

    module: str
    path: str
    results: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    seconds: float = 0.0      # wall time it took to grade, replays included
    cpu: float = 0.0          # CPU time of its workers
    over_budget: str = ""     # what ran out, if anything did
    outside: list = field(default_factory=list)   # workers killed from outside the sandbox

    @property
    def n_passed(self) -> int:
        return sum(r.status == "passed" for r in self.results)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> NotebookGrade:
        return cls(**dict(data, results=[ExerciseGrade(**r) for r in data["results"]]))


class _GiveUp(Exception):
    pass


class _OverBudget(Exception):
    pass


def _children_cpu() -> float:
    """CPU seconds used by this process's finished children (the workers, waited for)."""
    try:
        import resource
    except ImportError:   # Windows: CPU time is not counted
        return 0.0
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _code(source: str) -> str:
    return "\n".join(line for line in source.splitlines() if not line.lstrip().startswith("#"))


def _short(text: str, lines: int = 4, width: int = 300) -> str:
    kept = [line[:width] for line in str(text).strip().splitlines() if line.strip()]
    return "\n".join(kept[:lines] + (["..."] if len(kept) > lines else []))


def _tidy(text: str) -> str:
    """An error message without IPython's cell file names."""
    return re.sub(r"\((?:<ipython-input-[^>]*>|[\w-]+\.py), line (\d+)\)", r"(line \1)",
                  _short(text, 2))


def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


class _Grading:
    def __init__(self, module: Module, nb, path: Path, cell_seconds: float, memory,
                 budget: Budget, views: Views, sandbox):
        self.module, self.path, self.cell_seconds, self.memory = module, path, cell_seconds, memory
        self.budget, self.views, self.view, self.sandbox = budget, views, views.first, sandbox
        self.started, self.cpu_before = time.monotonic(), _children_cpu()
        self.deadline = min(self.started + budget.wall, budget.deadline)
        self.cells = [(index + 1, _source(cell)) for index, cell in enumerate(nb.cells)
                      if cell.get("cell_type") == "code"]
        sections = exercise_of_cells(nb)
        self.section = {index + 1: sections[index] for index in range(len(nb.cells))}
        self.checks = {}
        for exercise in module.exercises:
            called = re.compile(rf"\b{exercise.function}\s*\(")
            self.checks[exercise.number] = next(
                (position for position, source in self.cells if called.search(_code(source))), None)
        ends = {self.checks[n] or max([p for p, _ in self.cells if self.section.get(p) == n],
                                       default=0) for n in views.after}
        self.switch_at = max(ends, default=0)   # then the view with the module's tools
        declared = {d for e in module.exercises for d in e.solved_by}
        uses = library_uses([source for _, source in self.cells], declared)
        self.static_uses = {(d, self.section.get(self.cells[i][0])): self.cells[i][0]
                            for d, cells in uses.items() for i in reversed(cells)}
        self.worker: Worker | None = None
        self.ran: list = []          # (position, source) of the cells run so far, not skipped
        self.errors: list = []       # (position, section, message)
        self.problems: list = []
        self.outside: list = []
        self.workers: list = []      # every worker started, for their CPU time
        self.restarts = 0

    # ---------------------------------------------------------- the budget
    def cpu_used(self) -> float:
        """CPU seconds of this notebook's workers: those that ended (waited for) and those
        the grader killed (measured before)."""
        return _children_cpu() - self.cpu_before + sum(w.cpu_killed for w in self.workers)

    def out_of_budget(self) -> str:
        """What ran out ('' if nothing did), in words."""
        used = time.monotonic() - self.started
        if self.budget.deadline <= time.monotonic() and self.budget.deadline < self.started + \
                self.budget.wall:
            return f"the class's budget ran out after {used:.0f} s on this notebook"
        if used >= self.budget.wall:
            return f"the notebook used its budget of {self.budget.wall:g} s of wall time"
        if self.cpu_used() >= self.budget.cpu:
            return (f"the notebook used its budget of {self.budget.cpu:g} s of CPU time "
                    f"({self.cpu_used():.0f} s)")
        return ""

    def _deadline(self, seconds: float) -> float:
        return min(time.monotonic() + seconds, self.deadline)

    # ---------------------------------------------------------- the worker
    def _switch_view(self, position: int) -> None:
        """From the first cell after the exercises declaring the module's tools, a worker
        whose library has them (it replays the cells run so far)."""
        if self.views.later and self.view != self.views.later and position > self.switch_at:
            self.view = self.views.later
            if self.worker is not None:
                self.worker.close()
                self.restarts -= 1      # a planned restart, not a crash

    def _start(self) -> Worker:
        if self.worker is not None and self.worker.alive:
            return self.worker
        if self.restarts > MAX_RESTARTS:
            raise _GiveUp(f"grading stopped: the notebook's code stopped the Python process "
                          f"{self.restarts} times")
        self.restarts += 1
        if self.out_of_budget():
            raise _OverBudget()
        setup = {"checkers": {self.module.checker_module:
                              [e.function for e in self.module.exercises]}}
        try:
            self.worker = Worker(setup, self.memory, view=self.view, sandbox=self.sandbox,
                                 notebook=self.path, cpu=self.budget.cpu - self.cpu_used())
            self.workers.append(self.worker)
        except (WorkerStopped, WorkerTimeout, OSError) as exc:
            raise _GiveUp(f"the grader could not start Python for this notebook ({exc})") from None
        for position, source in list(self.ran):     # replay, skipping cells that now fail
            if not self._run_cell(position, source, replay=True):
                return self._start()
        return self.worker

    def _run_cell(self, position: int, source: str, replay: bool = False) -> bool:
        """Run one cell; False if it stopped the worker (the cell is then skipped)."""
        worker = self.worker
        try:
            worker.request(("cell", source))
            _, error, message = worker.receive(self._deadline(self.cell_seconds))
        except WorkerTimeout:
            if self.out_of_budget():
                raise _OverBudget() from None
            why = f"did not finish within {self.cell_seconds:g} s"
        except (WorkerStopped, ValueError) as exc:
            story = str(exc) if isinstance(exc, WorkerStopped) else "broke the grader's protocol"
            why = f"stopped Python (the process {story})"
            worker.kill()
            if worker.outside:
                self.outside.append(worker.outside)
        else:
            if error and not replay:
                self.errors.append((position, self.section.get(position),
                                    f"cell {position} raised {error}: {_tidy(message)}"))
            return True
        if replay:
            self.ran = [(p, s) for p, s in self.ran if p != position]
        self.errors.append((position, self.section.get(position),
                            f"cell {position} {why}; it was skipped"))
        return False

    # ---------------------------------------------------------- grading
    def run(self) -> NotebookGrade:
        grades = {}
        last = max((p for p in self.checks.values() if p is not None), default=0)
        try:
            for position, source in self.cells:
                if position > last:
                    break
                self._switch_view(position)
                self._start()
                if self._run_cell(position, source):
                    self.ran.append((position, source))
                for exercise in self.module.exercises:
                    if self.checks[exercise.number] == position:
                        grades[exercise.number] = self._grade(exercise, position)
        except _GiveUp as stop:
            self.problems.append(str(stop))
            for exercise in self.module.exercises:
                grades.setdefault(exercise.number, ExerciseGrade(
                    exercise.number, exercise.title, "error", str(stop),
                    self.checks[exercise.number]))
        except (_OverBudget, OverBudget):
            for exercise in self.module.exercises:
                grades.setdefault(exercise.number, ExerciseGrade(
                    exercise.number, exercise.title, "over budget",
                    f"not graded: {self.out_of_budget() or 'the budget ran out'}",
                    self.checks[exercise.number]))
        finally:
            if self.worker is not None:
                self.worker.close()
                if self.worker.outside:
                    self.outside.append(self.worker.outside)
        over = self.out_of_budget() if any(
            g.status == "over budget" for g in grades.values()) else ""
        results = []
        for exercise in self.module.exercises:
            grade = grades.get(exercise.number) or ExerciseGrade(
                exercise.number, exercise.title, "missing",
                f"the check cell `check.{exercise.function}({exercise.answer})` is missing: put "
                "it back right after your answer")
            results.append(grade)
        problems = self.problems + [  # errors outside every exercise, or after its check
            message for position, section, message in self.errors
            if section is None or (self.checks.get(section) or 0) < position]
        outside = [f"the Python process running its code was {why} (not by a limit of the "
                   "grader)" for why in dict.fromkeys(self.outside)]
        problems += [f"{why}; the grading run is reported as failed" for why in outside]
        return NotebookGrade(self.module.name, str(self.path), results, problems,
                             round(time.monotonic() - self.started, 2),
                             round(self.cpu_used(), 2), over, outside)

    def _grade(self, exercise, position: int) -> ExerciseGrade:
        def grade(status, diagnosis=""):
            earlier = [m for p, s, m in self.errors if s == exercise.number and p <= position]
            if status != "passed" and earlier:
                diagnosis = "\n".join(earlier + ([f"then {diagnosis}"] if diagnosis else []))
            return ExerciseGrade(exercise.number, exercise.title, status, diagnosis, position)

        used = [d for d in exercise.solved_by if (d, exercise.number) in self.static_uses]
        if used:
            cell = self.static_uses[used[0], exercise.number]
            return grade("failed", f"uses {used[0]} (cell {cell}), which is what this exercise "
                                   "asks you to write: write it yourself.")
        worker = self._start()
        try:
            worker.request(("lookup", exercise.answer))
            _, kind, value = worker.receive(self._deadline(30))
        except (WorkerStopped, WorkerTimeout, ValueError) as exc:
            worker.kill()
            if self.out_of_budget():
                raise _OverBudget() from None
            return grade("failed", f"your notebook's Python process {exc or 'stopped answering'}")
        if kind == "missing":
            if any(s == exercise.number for _, s, _ in self.errors):
                return grade("failed", f"`{exercise.answer}` is not defined")
            return grade("missing", f"no `{exercise.answer}` is defined when its check cell (cell "
                                    f"{position}) runs: keep the name the exercise gives it")
        if kind == "callable":
            answer = AnswerProxy(Session(worker, self.deadline), exercise.answer)
        else:   # data goes to the checker, which says what is wrong with it
            try:
                answer = wire.decode(value)
            except wire.TooLarge as exc:
                return grade("failed", f"`{exercise.answer}` is {exc}")
            except wire.WireError:
                answer = wire.Foreign("unknown")
            if isinstance(answer, wire.Foreign):
                return grade("failed", f"`{exercise.answer}` is an object of type "
                                       f"{answer.type_name}, not a function: define it with "
                                       f"`def {exercise.answer}(...)`")
        try:
            message = exercise.checker.verdict(answer)
        except ExerciseNotAttempted:
            return grade("not attempted")
        except ExerciseFailed as failure:
            return grade("failed", failure.diagnosis)
        except Exception as exc:  # a checker that cannot cope with this answer
            return grade("failed", f"the checker could not handle your answer "
                                   f"({type(exc).__name__}: {_short(exc, 1)})")
        return grade("passed", message)


def _whole(module: Module, path, status: str, diagnosis: str) -> NotebookGrade:
    return NotebookGrade(module.name, str(path), [
        ExerciseGrade(e.number, e.title, status, diagnosis) for e in module.exercises])


_VIEWS: dict = {}   # module name → the temporary folder of its library view


def views_of(module: Module) -> Views:
    """The library views for grading `module`'s notebooks, written once per process."""
    if module.name not in _VIEWS:
        folder = tempfile.TemporaryDirectory(prefix="panpriv-view-")
        _VIEWS[module.name] = (folder, write_views(module, folder.name))
    return _VIEWS[module.name][1]


def grade_notebook(path, *, timeout: float | None = None, memory: int | None = MEMORY_LIMIT,
                   budget: Budget = Budget(), sandbox=None, views=None) -> NotebookGrade:
    """Grade the student notebook at `path` (named like `03_density_estimation.ipynb`).

    `timeout`: seconds any one code cell may run (default CELL_SECONDS); the checkers bound
    the answer's calls themselves. `memory`: bytes of memory for the student's process.
    `budget`: what the whole notebook may take. `sandbox`: a `classroom.sandbox.Sandbox` to
    run the student's code in (None: a plain process, for a student's own check). `views`:
    the module's library views (`library_view.Views`; default: written on first use).
    Never raises for a bad notebook: an unreadable file makes every exercise "error", an
    unknown module gives no results and a problem."""
    path = Path(path)
    module = course_module(path.stem)
    if module is None:
        known = ", ".join(f"{name}.ipynb" for name in checker_modules())
        return NotebookGrade(path.stem, str(path), [], [
            f"{path.name} is not an exercise notebook of this course (they are: {known})"])
    try:
        nb = nbformat.read(path, as_version=4)
        if not isinstance(nb.get("cells"), list):
            raise ValueError("it has no list of cells")
    except Exception as exc:  # invalid JSON, not a notebook, unreadable
        return _whole(module, path, "error", f"{path.name} could not be read as a notebook "
                                             f"({type(exc).__name__}: {_short(exc, 1, 200)})")
    try:
        return _Grading(module, nb, path, timeout or CELL_SECONDS, memory, budget,
                        views or views_of(module), sandbox).run()
    except Exception as exc:  # a notebook malformed in a way nbformat let through
        return _whole(module, path, "error", f"{path.name} could not be graded "
                                             f"({type(exc).__name__}: {_short(exc, 1, 200)})")
