"""The notebook pipeline: generate exercise notebooks from solutions and execute notebooks
with outputs. (Grading a student's notebook is panpriv_teach.classroom.grading's job.)

Conventions (see DESIGN.md, "Notebooks"):

- `solutions/NN_topic.ipynb` is the single source. An exercise starts at a markdown
  heading containing `Exercise N.k`; its answer sits between `### BEGIN SOLUTION` and
  `### END SOLUTION` lines (nbgrader's markers), inside a function or class.
- `exercises/NN_topic.ipynb` is generated: each code block becomes one
  `raise NotImplementedError("Exercise N.k: write your code here")`, each markdown
  block becomes `*Write your answer here.*`, cells tagged `solution-only` are dropped
  and outputs are cleared. Generation is deterministic, so a test can detect staleness.
  A generated notebook records the hash of its own content, so a notebook changed after
  generation (answers written in place, cells run) is recognised and never overwritten.
  Students work in their own copies, `my_work/NN_topic.ipynb` (panpriv_teach.classroom.workspace).
- Check cells call `check.exercise_N_k(answer)`, where the notebook imported a checker
  module `as check` (`checker_module_name` finds it).
"""
from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import time
from datetime import datetime
from pathlib import Path

import nbformat
from nbformat import NotebookNode

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
STUB = 'raise NotImplementedError("Exercise {number}: write your code here")'
MARKDOWN_STUB = "*Write your answer here.*"
SOLUTION_ONLY = "solution-only"
KERNEL = "python3"
EXECUTED_WITH = "executed_with"         # metadata key: `output_environment()` of the stored run
OUTPUT_PACKAGES = ("numpy", "scipy", "matplotlib", "pillow", "ipython", "ipykernel", "ipywidgets")

_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(?P<text>.*)$")
_EXERCISE = re.compile(r"\bExercise\s+(?P<number>\d+\.\d+)(?![.\d])")
_CHECK_CALL = re.compile(r"\bcheck\.exercise_(?P<n>\d+)_(?P<k>\d+)\s*\(")
_CHECK_IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<package>[\w.]+)\s+import\s+(?P<name>\w+)|import\s+(?P<module>[\w.]+))"
    r"\s+as\s+check\s*(?:#.*)?$", re.MULTILINE)


class GenerationError(ValueError):
    """A solution notebook breaks the marker conventions; the message names the cell."""


class EditedNotebooksError(GenerationError):
    """Exercise notebooks changed since they were generated: `generate` will not overwrite
    them. `.paths` lists them; the message says how to keep the work and regenerate."""

    def __init__(self, paths, work_dir):
        self.paths = [str(p) for p in paths]
        names = "\n".join(f"  {p}" for p in self.paths)
        super().__init__(
            f"these exercise notebooks were changed after they were generated (answers "
            f"written or cells run in place?), so they are NOT overwritten:\n{names}\n"
            f"Students work in {work_dir}/ (see README, 'Doing exercises'). To keep the work "
            f"and restore the handout, run `make exercises BACKUP=1` (or `.venv/bin/python -m "
            f"panpriv_teach generate --backup`): it moves each changed notebook to "
            f"{work_dir}/backup-<date-time>/ and regenerates it.")


# ---------------------------------------------------------------- reading and writing

def _source(cell) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _tags(cell) -> list:
    return cell.get("metadata", {}).get("tags", [])


def dumps(nb: NotebookNode) -> str:
    """The exact text a notebook is stored as (nbformat's JSON plus a final newline):
    the same notebook always gives the same bytes."""
    text = nbformat.writes(nb)
    return text if text.endswith("\n") else text + "\n"


def _write(nb: NotebookNode, path: Path) -> None:
    path.write_bytes(dumps(nb).encode("utf-8"))


def exercise_of_cells(nb: NotebookNode) -> list:
    """For each cell, the number `N.k` of the nearest `Exercise N.k` markdown heading
    at or above it (None before the first one)."""
    current, numbers = None, []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            for line in _source(cell).splitlines():
                heading = _HEADING.match(line)
                found = heading and _EXERCISE.search(heading["text"])
                if found:
                    current = found["number"]
        numbers.append(current)
    return numbers


# ---------------------------------------------------------------- generation

def _replace_blocks(source: str, index: int, stub) -> str:
    """Replace each marker block of a cell (markers included) by `stub(indent)`."""
    out, begin = [], None
    for lineno, line in enumerate(source.split("\n")):
        marker = line.strip()
        if marker == BEGIN:
            if begin is not None:
                raise GenerationError(f"cell {index}: '{BEGIN}' on line {lineno + 1} inside "
                                      f"the block opened on line {begin + 1}; close it first "
                                      f"with '{END}'")
            begin = lineno
            out.append(stub(line[:len(line) - len(line.lstrip())], index))
        elif marker == END:
            if begin is None:
                raise GenerationError(f"cell {index}: '{END}' on line {lineno + 1} without a "
                                      f"'{BEGIN}' above it")
            begin = None
        elif begin is None:
            out.append(line)
    if begin is not None:
        raise GenerationError(f"cell {index}: '{BEGIN}' on line {begin + 1} is never closed "
                              f"by '{END}'")
    return "\n".join(out)


def make_exercise_notebook(solution_nb: NotebookNode, source: str | None = None) -> NotebookNode:
    """The exercise notebook for a solution notebook (pure: the input is not modified).

    Code marker blocks become a `raise NotImplementedError("Exercise N.k: ...")` stub at
    the marker's indentation, markdown marker blocks become `*Write your answer here.*`,
    `solution-only` cells are dropped, outputs, execution counts and stored widget state
    are cleared; everything else (cell ids, metadata) is kept. `source`, the solution's
    path as `solutions/NN_topic.ipynb`, is recorded in the notebook's metadata.
    Raises GenerationError (naming the cell) for unbalanced markers, a code block with
    no `Exercise N.k` heading above it, or a code block at top level (the exercise cell
    would then raise when run; answers go inside a function or class).
    """
    nb = copy.deepcopy(solution_nb)
    numbers = exercise_of_cells(nb)
    cells = []
    for index, (cell, number) in enumerate(zip(nb.cells, numbers)):
        if SOLUTION_ONLY in _tags(cell):
            continue
        if cell.cell_type == "code":
            def stub(indent, index, number=number):
                if number is None:
                    raise GenerationError(
                        f"cell {index}: a solution block with no 'Exercise N.k' heading above "
                        "it; put the exercise's heading (e.g. '## Exercise 1.2: ...') in a "
                        "markdown cell before it")
                if not indent:
                    raise GenerationError(
                        f"cell {index}: the solution block of Exercise {number} is at top "
                        "level, so the exercise cell would raise when run; put the answer "
                        "inside a function or class")
                return indent + STUB.format(number=number)
            cell.source = _replace_blocks(_source(cell), index, stub)
            cell.outputs = []
            cell.execution_count = None
            cell.get("metadata", {}).pop("execution", None)
        elif cell.cell_type == "markdown":
            cell.source = _replace_blocks(_source(cell), index,
                                          lambda indent, index: indent + MARKDOWN_STUB)
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    nb.metadata.pop(EXECUTED_WITH, None)
    if source is not None:
        nb.metadata["panpriv_teach"] = {"generated_from": source}
    return nb


def _pairs(solutions_dir, exercises_dir) -> list:
    """(solution path, exercise path, recorded source) for every solution notebook."""
    solutions_dir, exercises_dir = Path(solutions_dir), Path(exercises_dir)
    root = exercises_dir.resolve().parent
    return [(sol, exercises_dir / sol.name,
             Path(os.path.relpath(sol.resolve(), root)).as_posix())
            for sol in sorted(solutions_dir.glob("*.ipynb"))]


HASH_KEY = "content_hash"


def content_hash(nb: NotebookNode) -> str:
    """sha256 of the notebook's stored text with its own recorded hash left out."""
    nb = copy.deepcopy(nb)
    nb.metadata.get("panpriv_teach", {}).pop(HASH_KEY, None)
    return "sha256:" + hashlib.sha256(dumps(nb).encode("utf-8")).hexdigest()


def _with_hash(nb: NotebookNode) -> NotebookNode:
    nb.metadata.setdefault("panpriv_teach", {})[HASH_KEY] = content_hash(nb)
    return nb


def _generated_text(solution: Path, source: str) -> str:
    try:
        nb = make_exercise_notebook(nbformat.read(solution, as_version=4), source)
    except GenerationError as exc:
        raise GenerationError(f"{solution}, {exc}") from None
    return dumps(_with_hash(nb))


def is_unchanged_since_generated(path) -> bool:
    """True when the notebook at `path` still holds exactly what `generate` wrote: its
    recorded content hash matches its content. False for a notebook edited or run since
    (or unreadable, or with no hash): such a file may hold a student's work."""
    try:
        nb = nbformat.reads(Path(path).read_text(encoding="utf-8"), as_version=4)
    except (OSError, ValueError, json.JSONDecodeError, nbformat.reader.NotJSONError):
        return False
    recorded = nb.metadata.get("panpriv_teach", {}).get(HASH_KEY)
    return recorded is not None and recorded == content_hash(nb)


def _is_earlier_hashless_output(path: Path, data: bytes) -> bool:
    """A notebook written by the generator before hashes were recorded (no hash), which
    was never run (no outputs or execution counts) and still holds the stub of each of its
    exercises that today's output `data` stubs: nothing in it can be a student's run work.
    (Students who answered in exercises/ ran their check cells.)"""
    try:
        old = nbformat.reads(path.read_text(encoding="utf-8"), as_version=4)
    except Exception:
        return False
    if HASH_KEY in old.metadata.get("panpriv_teach", {"": 0}):
        return False
    if "panpriv_teach" not in old.metadata:
        return False
    if any(cell.get("outputs") or cell.get("execution_count") for cell in old.cells
           if cell.cell_type == "code"):
        return False
    stubbed = set(re.findall(r'NotImplementedError\(\\"Exercise (\d+\.\d+): ', data.decode()))
    text = "\n".join(_source(cell) for cell in old.cells)
    return all(STUB.format(number=number) in text
               for number in stubbed & set(exercise_of_cells(old)))


def _new_folder(parent: Path, name: str) -> Path:
    """Create and return parent/name, or parent/name-2, -3, ... if it exists."""
    parent.mkdir(parents=True, exist_ok=True)
    for suffix in ["", *(f"-{i}" for i in range(2, 1000))]:
        try:
            (parent / (name + suffix)).mkdir()
            return parent / (name + suffix)
        except FileExistsError:
            continue
    raise FileExistsError(f"{parent / name}: too many backups with this name")


def generate(solutions_dir="solutions", exercises_dir="exercises", *, backup=False,
             work_dir=None) -> list:
    """Write exercises_dir/NN_topic.ipynb for every solutions_dir/NN_topic.ipynb and
    return their paths. A file already up to date is left untouched (no mtime churn).

    A notebook changed since it was generated (see `is_unchanged_since_generated`) is
    never overwritten: before writing anything, `generate` raises EditedNotebooksError
    naming every such file, or, with `backup=True`, moves each to
    `work_dir/backup-YYYYmmdd-HHMMSS/` (work_dir defaults to my_work/ beside
    exercises_dir) and then regenerates it. Exercise notebooks without a solution are
    not deleted: `stale_exercises` lists them."""
    if not Path(solutions_dir).is_dir():
        raise FileNotFoundError(f"no solutions folder {solutions_dir!r}")
    work_dir = Path(work_dir) if work_dir else Path(exercises_dir).parent / "my_work"
    planned, edited = [], []
    for solution, target, source in _pairs(solutions_dir, exercises_dir):
        data = _generated_text(solution, source).encode("utf-8")
        planned.append((target, data))
        if (target.exists() and target.read_bytes() != data
                and not is_unchanged_since_generated(target)
                and not _is_earlier_hashless_output(target, data)):
            edited.append(target)
    if edited and not backup:
        raise EditedNotebooksError(edited, work_dir)
    if edited:
        folder = _new_folder(work_dir, f"backup-{datetime.now():%Y%m%d-%H%M%S}")
        for target in edited:
            os.replace(target, folder / target.name)
            print(f"moved {target} to {folder / target.name} (changed since it was generated)")
    Path(exercises_dir).mkdir(parents=True, exist_ok=True)
    written = []
    for target, data in planned:
        if not target.exists() or target.read_bytes() != data:
            target.write_bytes(data)
        written.append(str(target))
    return written


def staleness(solutions_dir="solutions", exercises_dir="exercises") -> dict:
    """Exercise notebook path → why it is stale ("edited": changed since it was
    generated; "out of date" with its solution; "missing"; or "orphaned": no solution
    notebook generates it)."""
    reasons = {}
    expected = set()
    for solution, target, source in _pairs(solutions_dir, exercises_dir):
        expected.add(target.name)
        if not target.exists():
            reasons[str(target)] = f"missing (generate it from {solution})"
            continue
        data = _generated_text(solution, source).encode("utf-8")
        if target.read_bytes() == data:
            continue
        if is_unchanged_since_generated(target) or _is_earlier_hashless_output(target, data):
            reasons[str(target)] = f"out of date with {solution}"
        else:
            reasons[str(target)] = ("edited: changed since it was generated (answers written "
                                    "or cells run in place?); generate will not overwrite it")
    for existing in sorted(Path(exercises_dir).glob("*.ipynb")):
        if existing.name not in expected:
            reasons[str(existing)] = (f"orphaned: no {Path(solutions_dir) / existing.name}; "
                                      "delete it or restore its solution")
    return dict(sorted(reasons.items()))


def stale_exercises(solutions_dir="solutions", exercises_dir="exercises") -> list:
    """The exercise notebooks that differ from what `generate` would write, are missing,
    or have no solution notebook; [] when exercises_dir is up to date."""
    return list(staleness(solutions_dir, exercises_dir))


# ---------------------------------------------------------------- execution

# ipykernel warns on stderr that local TCP is unencrypted: noise in a student's terminal.
_QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


def notebook_client(nb: NotebookNode, path: Path, timeout: float, allow_errors: bool):
    """An nbclient client that runs `nb` as the file `path` would run: kernel python3, cwd =
    its folder, widget state stored, quiet kernel log. Used by `execute`, `check` and the
    benchmarks."""
    from nbclient import NotebookClient
    return NotebookClient(nb, timeout=timeout, kernel_name=KERNEL, allow_errors=allow_errors,
                          interrupt_on_timeout=allow_errors, record_timing=False,
                          store_widget_state=True, extra_arguments=_QUIET_KERNEL,
                          resources={"metadata": {"path": str(path.resolve().parent)}})


def _is_exercise_notebook(path: Path, nb: NotebookNode) -> bool:
    return path.resolve().parent.name == "exercises" or "panpriv_teach" in nb.metadata


def output_environment() -> dict:
    """The versions of Python and of the packages that shape a notebook's outputs beyond
    the course's own code (the bytes of a figure depend on matplotlib and Pillow)."""
    return {"python": platform.python_version(),
            **{name: importlib.metadata.version(name) for name in OUTPUT_PACKAGES}}


def execute(paths, timeout: float = 120) -> dict:
    """Execute each notebook in place (kernel python3, cwd = its folder), store it back
    with its outputs, its widget state and the `output_environment()` it ran in (metadata
    `executed_with`), print and return the seconds each one took.
    Refuses exercise notebooks (they ship without outputs) before executing anything;
    a cell error raises nbclient's CellExecutionError and leaves that file unchanged."""
    paths = [Path(p) for p in paths]
    notebooks = []
    for path in paths:
        if not path.is_file():
            raise FileNotFoundError(f"no notebook {str(path)!r}")
        nb = nbformat.read(path, as_version=4)
        if _is_exercise_notebook(path, nb):
            raise ValueError(f"{path} is an exercise notebook: exercises ship without "
                             "outputs and are generated from solutions/ (run `python -m "
                             "panpriv_teach generate`); execute the solution notebook instead")
        notebooks.append(nb)
    seconds = {}
    for path, nb in zip(paths, notebooks):
        start = time.perf_counter()
        notebook_client(nb, path, timeout, allow_errors=False).execute()
        nb.metadata[EXECUTED_WITH] = output_environment()
        _write(nb, path)
        seconds[str(path)] = time.perf_counter() - start
        print(f"{path}: executed in {seconds[str(path)]:.1f} s", flush=True)
    return seconds


def execute_copy(path, timeout: float = 120) -> NotebookNode:
    """Run a copy of the notebook in a kernel (cwd = its folder), carrying on past errors,
    and return the executed copy; the file itself is never written. A kernel that dies
    is recorded in the copy's metadata (`panpriv_teach_score.kernel_error`)."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    try:
        notebook_client(nb, path, timeout, allow_errors=True).execute()
    except Exception as exc:  # a dead kernel or a failed start: report, don't crash
        nb.metadata["panpriv_teach_score"] = {"kernel_error": f"{type(exc).__name__}: {exc}"}
    return nb


def cell_errors(nb: NotebookNode) -> list:
    """(cell index, ename, evalue) for every error output of an executed notebook."""
    return [(index, out.get("ename", ""), out.get("evalue", ""))
            for index, cell in enumerate(nb.cells) if cell.cell_type == "code"
            for out in cell.get("outputs", []) if out.get("output_type") == "error"]


# ---------------------------------------------------------------- checks

def checker_module_name(nb: NotebookNode) -> str | None:
    """The module a notebook imports `as check` (`from X import Y as check` → "X.Y",
    `import X as check` → "X"), or None."""
    for cell in nb.cells:
        if cell.cell_type == "code":
            found = _CHECK_IMPORT.search(_source(cell))
            if found:
                return found["module"] or f"{found['package']}.{found['name']}"
    return None
