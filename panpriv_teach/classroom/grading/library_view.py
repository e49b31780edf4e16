"""The library as a student's worker sees it while a notebook is graded: without the answers.

`library_view(module, dest, keep)` writes a copy of panpriv_teach/ for grading the
notebooks of one course module, in which

- every function, method or class that an exercise of the module declares in `solved_by`
  is a one-line stub raising RuntimeError ("panpriv_teach.density.roth_sample_size is not
  available while grading: exercise 3.5 asks you to write it"): its code is not there, so
  reloading the module, unwrapping a wrapper or reading the source finds nothing. A method
  the declared class inherits gets the stub on that class only (other classes keep it);
- every private helper (a name starting with `_`, defined at the top of a module or of a
  class) that no remaining code refers to is gone too: the helpers behind the answers;
- the checker modules (panpriv_teach/exercises/, but its harness) and the grader
  (panpriv_teach/classroom/, but the worker's side) are absent: the worker replaces the
  module's checker by an inert stub (`worker._install_stubs`).

Every other line keeps its number (stubs and removals are padded with blank lines), so a
traceback into the library points at the right line. The copy is compiled to bytecode here,
by the grader; the sandbox mounts it read-only. A process parses the library once (again
only when a file of it changes) and compiles each distinct text once, however many views
it writes.

`keep` names `solved_by` functions left in: a module's tools (`course.Module.tools`), which
its handout gives the student for later exercises. `write_views` writes the two views a
notebook needs: `first`, without any `solved_by` function, and, for a module with tools,
`later`, with them, which the grader switches to (a fresh worker, replaying the cells run)
once every exercise declaring a tool has been checked: no answer's code is ever in the
worker while its exercise is being checked.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import marshal
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2]          # panpriv_teach/
WORKER_SIDE = {"exercises/__init__.py", "exercises/harness.py", "classroom/__init__.py",
               "classroom/grading/__init__.py", "classroom/grading/wire.py",
               "classroom/grading/worker.py"}


def library_files(package: Path = PACKAGE) -> list[Path]:
    """The files of the worker's library, relative to `package`."""
    files = []
    for path in sorted(package.rglob("*")):
        rel = path.relative_to(package)
        if path.is_dir() or "__pycache__" in rel.parts or rel.suffix == ".pyc":
            continue
        if rel.parts[0] in ("exercises", "classroom") and rel.as_posix() not in WORKER_SIDE:
            continue
        if rel.as_posix() != "__main__.py":
            files.append(rel)
    return files


def _targets(module, keep=()) -> tuple[dict, dict]:
    """({file: {qualname: message}} to replace by stubs, {file: [(class, name, message)]} to
    add as stubs), for the `solved_by` names of `module`'s exercises not in `keep`."""
    asked: dict[str, list] = {}
    for exercise in module.exercises:
        for dotted in exercise.solved_by:
            if dotted not in keep:
                asked.setdefault(dotted, []).append(exercise.number)
    replace, add = {}, {}
    for dotted, numbers in sorted(asked.items()):
        owner, name = _resolve(dotted)
        which = ", ".join(numbers)
        several = len(numbers) > 1
        message = (f"{dotted} is not available while grading: exercise{'s' * several} "
                   f"{which} ask{'' if several else 's'} you to write it")
        if inspect.isclass(owner):
            home = next(k for k in owner.__mro__ if name in vars(k))
            if home is not owner:
                add.setdefault(_file_of(owner), []).append((owner.__qualname__, name, message))
                continue
            replace.setdefault(_file_of(owner), {})[f"{owner.__qualname__}.{name}"] = message
        else:
            target = getattr(owner, name)
            replace.setdefault(_file_of(target), {})[target.__qualname__] = message
    return replace, add


def _resolve(dotted: str):
    """(owner, attribute name) of a dotted library name, imported in the grader."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:-1]:
            owner = getattr(owner, part)
        getattr(owner, parts[-1])            # a stale declaration fails here, loudly
        return owner, parts[-1]
    raise ImportError(f"solved_by names {dotted}, which cannot be imported")


def _file_of(obj) -> str:
    return Path(inspect.getsourcefile(obj)).resolve().relative_to(PACKAGE).as_posix()


# ---------------------------------------------------------------- the source, unit by unit

class _Unit:
    """A statement at the top of a module or of a class body, with what it defines and the
    names it refers to."""

    def __init__(self, file: str, node: ast.stmt, parent: _Unit | None):
        self.file, self.node, self.parent = file, node, parent
        self.first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        self.last = node.end_lineno
        self.defines = _defined(node)
        self.refers = set() if isinstance(node, ast.ClassDef) else _names(node)
        if isinstance(node, ast.ClassDef):     # the class line itself: bases, decorators
            for part in [*node.bases, *node.keywords, *node.decorator_list]:
                self.refers |= _names(part)

    @property
    def qualname(self) -> str:
        name = next(iter(self.defines), "")
        return f"{self.parent.qualname}.{name}" if self.parent else name

    @property
    def private(self) -> bool:
        return bool(self.defines) and all(n.startswith("_") and not n.endswith("__")
                                          for n in self.defines)


def _defined(node) -> set:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    targets = node.targets if isinstance(node, ast.Assign) else \
        [node.target] if isinstance(node, ast.AnnAssign) else []
    return {t.id for t in targets if isinstance(t, ast.Name)} if targets and all(
        isinstance(t, ast.Name) for t in targets) else set()


def _names(node) -> set:
    """Every name `node` may refer to: names, attributes, imported names, and strings that
    could be names (getattr(self, "_helper"), __all__)."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
        elif isinstance(sub, ast.alias):
            found |= {sub.name.rpartition(".")[2], sub.asname or ""}
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str) \
                and sub.value.isidentifier():
            found.add(sub.value)
    return found


def _units(file: str, tree: ast.Module) -> list:
    units = []
    for node in tree.body:
        unit = _Unit(file, node, None)
        units.append(unit)
        if isinstance(node, ast.ClassDef):
            units += [_Unit(file, child, unit) for child in node.body]
    return units


def _unused_private(units: list, gone: set) -> set:
    """The private units no kept unit refers to (repeated until nothing more goes)."""
    gone = set(gone)
    while True:
        kept = [u for u in units if u not in gone and not (u.parent and u.parent in gone)]
        counts: dict[str, int] = {}
        for unit in kept:
            for name in unit.refers:
                counts[name] = counts.get(name, 0) + 1
        unused = {u for u in kept if u.private and not any(
            counts.get(n, 0) > (n in u.refers) for n in u.defines)}
        if not unused:
            return gone
        gone |= unused


def _stub(unit: _Unit, message: str) -> list:
    indent = " " * unit.node.col_offset
    raising = f"raise RuntimeError({message!r})"
    if isinstance(unit.node, ast.ClassDef):
        return [f"{indent}class {unit.node.name}:",
                f"{indent}    def __init__(self, *args, **kwargs): {raising}"]
    return [f"{indent}def {unit.node.name}(*args, **kwargs): {raising}"]


def _rewrite(lines: list, units: list, stubs: dict, gone: set) -> list:
    """The file's lines with each stubbed unit replaced (decorators kept) and each gone unit
    blanked, padded with blank lines so that every other line keeps its number."""
    lines = list(lines)
    for unit in sorted(units, key=lambda u: u.first, reverse=True):   # last first: no shift
        if unit.parent is not None and unit.parent in gone:
            continue
        if unit in stubs:
            start, new = unit.node.lineno, _stub(unit, stubs[unit])     # decorators kept
        elif unit in gone:
            start, new = unit.first, []
            siblings = [u for u in units if u.parent is unit.parent]
            if unit.parent is not None and all(u in gone for u in siblings) \
                    and unit is siblings[0]:
                new = [" " * unit.node.col_offset + "pass"]    # a class body cannot be empty
        else:
            continue
        count = unit.last - start + 1
        lines[start - 1:unit.last] = new + [""] * (count - len(new))
    return lines


_PARSED: dict = {}     # the library's files with their (mtime, size) → (files, sources, units)
_CODE: dict = {}       # (file name, text) → its code object


def _parsed() -> tuple[list, dict, dict]:
    """(the library's files, {.py file: source}, {.py file: its units}), parsed once per
    process for as long as no file changes (its modification time and size)."""
    files = library_files()
    stamp = tuple((rel, st.st_mtime_ns, st.st_size)
                  for rel in files for st in [(PACKAGE / rel).stat()])
    if stamp not in _PARSED:
        sources = {rel.as_posix(): (PACKAGE / rel).read_text(encoding="utf-8")
                   for rel in files if rel.suffix == ".py"}
        units = {name: _units(name, ast.parse(text)) for name, text in sources.items()}
        _PARSED.clear()
        _PARSED[stamp] = (files, sources, units)
    return _PARSED[stamp]


def _write_compiled(path: Path, name: str, text: str) -> None:
    """Write `text` to `path` and its bytecode beside it, as py_compile does (timestamp
    checked); the code of a text already compiled in this process is reused (the import
    system sets a code object's file name from where it is loaded)."""
    path.write_text(text, encoding="utf-8")
    key = (name, text)
    if key not in _CODE:
        _CODE[key] = compile(text.encode("utf-8"), str(path), "exec", dont_inherit=True)
    stat = path.stat()
    cached = Path(importlib.util.cache_from_source(str(path)))
    cached.parent.mkdir(exist_ok=True)
    cached.write_bytes(importlib.util.MAGIC_NUMBER + b"\0\0\0\0"    # PEP 552: flags 0, the
                       + _uint32(int(stat.st_mtime)) + _uint32(stat.st_size)  # timestamp kind
                       + marshal.dumps(_CODE[key]))


def _uint32(number: int) -> bytes:
    return (number & 0xFFFFFFFF).to_bytes(4, "little")


def library_view(module, dest, keep=()) -> Path:
    """Write the worker's library for grading `module` (a course.Module) to
    dest/panpriv_teach and return `dest` (the folder to put first on the worker's path)."""
    dest = Path(dest)
    target = dest / "panpriv_teach"
    shutil.rmtree(target, ignore_errors=True)
    replace, add = _targets(module, keep)
    files, sources, units = _parsed()
    stubs = {}
    for name, wanted in replace.items():
        for unit in units[name]:
            if unit.qualname in wanted:
                stubs[unit] = wanted.pop(unit.qualname)
        if wanted:
            raise LookupError(f"{name} defines none of {sorted(wanted)} at the top of a "
                              "module or class")
    gone = _unused_private([u for us in units.values() for u in us], set(stubs))
    for rel in files:
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        name = rel.as_posix()
        if name not in sources:
            shutil.copyfile(PACKAGE / rel, path)
            continue
        lines = _rewrite(sources[name].split("\n"), units[name], stubs, gone)
        for owner, attribute, message in add.get(name, []):
            lines += [f"def _stub_{attribute}(*args, **kwargs): raise RuntimeError({message!r})",
                      f"_stub_{attribute}.__name__ = {attribute!r}",
                      f"{owner}.{attribute} = _stub_{attribute}"]
        _write_compiled(path, name, "\n".join(lines))
    return dest


@dataclass(frozen=True)
class Views:
    """The library views of one module's notebooks: `first` (no `solved_by` function) and,
    when the module has tools, `later` (its tools kept), used once the exercises `after`
    have been checked."""

    first: str
    later: str | None = None
    after: tuple = ()


def write_views(module, dest) -> Views:
    """Write `module`'s views under `dest` (first/, later/) and return them, readable by
    every user: the sandboxed worker reads them as an unprivileged user."""
    dest = Path(dest)
    first = library_view(module, dest / "first")
    later = module.tools and library_view(module, dest / "later",
                                          keep={dotted for dotted, _ in module.tools})
    for view in filter(None, (first, later)):
        for path in (view, *Path(view).rglob("*")):
            os.chmod(path, path.stat().st_mode | (0o555 if path.is_dir() else 0o444))
    if not later:
        return Views(str(first))
    return Views(str(first), str(later), tuple(sorted({number for _, number in module.tools})))
