"""A student copy of the course: `python -m panpriv_teach release OUT`.

OUT gets the lectures (with their outputs), the exercise notebooks generated afresh from
solutions/ (so an edited or stale exercises/ never leaks), the library, the course
documents except the instructor guide, a student README and Makefile; no solution
notebook, no tests (they hold correct answers), and no file containing the code of a
solution block: every text file written is scanned for it before the release is kept.

OUT must be empty, absent, or an earlier release (recognised by its manifest). An earlier
release is updated in place: the files it wrote are replaced, and nothing else (a
student's my_work/, say) is touched. The manifest lists the files written with a SHA-256
of each: grading in a release checks the library and checkers against it.
"""
from __future__ import annotations

import hashlib
import json
import re
import shutil
import textwrap
from pathlib import Path

import nbformat

MANIFEST = ".panpriv-release.json"
TOP_FILES = ("pyproject.toml", "environment.yml", "LICENSE")
LEFT_OUT = {"course/instructor_guide.md"}   # timing, demos, common mistakes: for instructors


class ReleaseError(ValueError):
    """The release cannot be written (OUT not empty, solution text found, ...)."""


def solution_blocks(solutions_dir) -> dict:
    """(notebook name, exercise) → the code of each solution block, dedented, from
    solutions_dir/*.ipynb (the text between `### BEGIN SOLUTION` and `### END SOLUTION`)."""
    from panpriv_teach.classroom.notebooks import BEGIN, END, _source, exercise_of_cells
    blocks = {}
    for path in sorted(Path(solutions_dir).glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell, number in zip(nb.cells, exercise_of_cells(nb)):
            inside = None
            for line in _source(cell).split("\n"):
                if line.strip() == BEGIN:
                    inside = []
                elif line.strip() == END and inside is not None:
                    text = textwrap.dedent("\n".join(inside)).strip()
                    if text:
                        blocks.setdefault((path.name, number), []).append(text)
                    inside = None
                elif inside is not None:
                    inside.append(line)
    return blocks


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _searchable(path: Path) -> str:
    """A file's text as it would be read, with a notebook's cells joined (so a block stored
    in a JSON string, with its newlines escaped, is still found)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".ipynb":
        try:
            nb = nbformat.reads(text, as_version=4)
            text = "\n".join(c.source if isinstance(c.source, str) else "".join(c.source)
                             for c in nb.cells)
        except Exception:
            pass
    return _squeeze(text)


def leaked_solutions(folder, solutions_dir) -> list:
    """(file, notebook, exercise) for each solution block found in a text file under
    `folder` (whitespace-insensitive)."""
    blocks = solution_blocks(solutions_dir)
    found = []
    for path in sorted(Path(folder).rglob("*")):
        if not path.is_file() or path.suffix in (".png", ".jpg", ".gif", ".woff", ".woff2",
                                                 ".ttf", ".ico", ".pyc"):
            continue
        text = _searchable(path)
        for (name, number), texts in blocks.items():
            if any(_squeeze(block) in text for block in texts):
                found.append((str(path), name, number))
    return found


def _student_files(course: Path) -> list:
    """(relative path, source file) of everything copied as it is."""
    files = [(p.relative_to(course), p) for p in sorted((course / "lectures").glob("*.ipynb"))]
    for folder in ("panpriv_teach", "course"):      # no bytecode: course/build.py is imported too
        for p in sorted((course / folder).rglob("*")):
            rel = p.relative_to(course)
            if p.is_file() and "__pycache__" not in rel.parts and p.suffix != ".pyc" \
                    and rel.as_posix() not in LEFT_OUT and "_build" not in rel.parts:
                files.append((rel, p))
    files += [(Path(name), course / name) for name in TOP_FILES if (course / name).is_file()]
    return files


def _check_target(out: Path, manifest_name: str = MANIFEST) -> list:
    """The files an earlier release (or export) wrote to `out`, from its manifest ([] if
    `out` is empty or absent); raises ReleaseError if `out` holds anything else."""
    if not out.exists():
        return []
    if not out.is_dir():
        raise ReleaseError(f"{out} exists and is not a folder")
    manifest = out / manifest_name
    if manifest.is_file():
        files = json.loads(manifest.read_text(encoding="utf-8"))["files"]
        outside = [f for f in files if out.resolve() not in (out / f).resolve().parents]
        if outside:
            raise ReleaseError(f"{manifest} lists files outside {out}: {outside[:3]}")
        return files
    if any(out.iterdir()):
        raise ReleaseError(f"{out} is not empty and was not written by this command (no {manifest_name}); "
                           "choose an empty or new folder")
    return []


def release(course=".", out="release") -> Path:
    """Write the student copy of `course` to `out` and return `out` (see the module doc)."""
    from panpriv_teach.classroom.notebooks import _generated_text
    course, out = Path(course).resolve(), Path(out).resolve()
    if out == course or course in out.parents:
        raise ReleaseError(f"{out} is inside the course folder; write the release elsewhere")
    solutions = course / "solutions"
    earlier = _check_target(out)
    files = {rel.as_posix(): src.read_bytes() for rel, src in _student_files(course)}
    for solution in sorted(solutions.glob("*.ipynb")):
        files[f"exercises/{solution.name}"] = _generated_text(
            solution, f"solutions/{solution.name}").encode("utf-8")
    files["README.md"] = STUDENT_README.encode("utf-8")
    files["Makefile"] = STUDENT_MAKEFILE.encode("utf-8")
    files[".gitignore"] = b".venv/\n__pycache__/\n*.egg-info/\n.ipynb_checkpoints/\nbuild/\n"

    staging = out.parent / f".{out.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    for rel, data in files.items():
        (staging / rel).parent.mkdir(parents=True, exist_ok=True)
        (staging / rel).write_bytes(data)
    leaks = leaked_solutions(staging, solutions)
    if leaks:
        shutil.rmtree(staging)
        names = "\n".join(f"  {Path(f).relative_to(staging)}: the solution of exercise "
                          f"{number} ({name})" for f, name, number in leaks)
        raise ReleaseError(f"solution code would be released; nothing was written:\n{names}")

    out.mkdir(parents=True, exist_ok=True)
    for rel in earlier:                       # only what the earlier release wrote
        (out / rel).unlink(missing_ok=True)
    for rel in files:
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (staging / rel).replace(out / rel)
    shutil.rmtree(staging)
    hashes = {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(files.items())}
    (out / MANIFEST).write_text(json.dumps({"files": sorted(files), "sha256": hashes},
                                           indent=1) + "\n", encoding="utf-8")
    return out


STUDENT_MAKEFILE = """\
# panpriv-teach (student copy): `make lab` sets everything up and opens the course.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
.DEFAULT_GOAL := help

help:  ## list the targets
\t@grep -E '^[a-z-]+:.*##' $(MAKEFILE_LIST) | sed 's/:.*## /\\t/'

setup: $(STAMP)  ## create .venv and install the course (fast when done)
$(STAMP): pyproject.toml
\ttest -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
\t$(BIN)/python -m pip install --quiet --upgrade pip
\t$(BIN)/python -m pip install --quiet -e '.[student]'
\ttouch $(STAMP)

lab: setup  ## make your my_work/ copies, then open the course in JupyterLab
\t$(BIN)/python -m panpriv_teach lab $(LAB_ARGS)

workspace: setup  ## copy exercises/ to my_work/ (never overwrites a file there)
\t$(BIN)/python -m panpriv_teach workspace

# The scoreboard ends with its own verdict line; an exercise not yet passed is progress, not an
# error, so `make check` exits 0 once it has checked (a pass/fail status for scripts:
# .venv/bin/python -m panpriv_teach check, 0 only if all pass).
check: setup  ## your progress over my_work/, or: make check NB=my_work/01_dp_basics.ipynb
\t@$(BIN)/python -m panpriv_teach check $(NB); status=$$?; [ $$status -eq 1 ] || exit $$status

site: setup  ## the course as an offline site in build/site/ (open build/site/index.html)
\t@$(BIN)/python course/build.py site --no-solutions

slides: setup  ## offline reveal.js decks of the lectures in build/slides/
\t@$(BIN)/python course/build.py slides

.PHONY: help setup lab workspace check site slides
"""

STUDENT_README = """\
# panpriv-teach — differential privacy for data streams (student copy)

A hands-on Jupyter course on **pan-privacy** (privacy even when an algorithm's memory is
seized) and **continual observation** (privacy when it answers at every step).

```bash
make lab     # sets up .venv on first use (a few minutes), then opens the course in JupyterLab
make check   # your progress: every module's exercises, from your notebooks in my_work/
```

You need Python ≥ 3.10 and `make`. Start with `lectures/00_welcome.ipynb` (`make lab` opens it).

## Doing exercises

- **Work in `my_work/`.** `make lab` (or `make workspace`) copies each exercise notebook
  from `exercises/` to `my_work/NN_topic.ipynb` the first time and never overwrites it
  afterwards. `exercises/` is the blank handout: leave it as it is.
- **Check as you go.** Each exercise is followed by a check cell: it prints
  `✓ Exercise N.k passed`, or ✗ and what is wrong. Run All runs every exercise even when
  one fails; the last cell sums up the notebook and fails if an exercise is not passed.
- **Your scoreboard**, from a terminal in the course folder (a fresh one, or JupyterLab's
  File > New > Terminal):

  ```bash
  make check                                    # every module
  make check NB=my_work/03_density_estimation.ipynb
  .venv/bin/pytest --nbval-lax my_work/03_density_estimation.ipynb   # the same verdict as a test
  ```

  The scoreboard names each check cell by its number as JupyterLab's status bar shows it
  (`Cell 5/21`; click it to jump to a cell). It runs a copy of your notebook and never
  changes it.

## Handing in

Hand in your `my_work/NN_topic.ipynb` files as your instructor asks.
"""
