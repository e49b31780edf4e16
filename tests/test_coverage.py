"""course/coverage.md lists every item of the five texts with where the course teaches it (issue 17, item 1); this
test checks that every place it names exists, so the list cannot silently go stale when a lecture is edited.

For every row of the five tables: the item starts with its section's citation key (a key of course/references.md);
the status is one of the four; every lecture file exists and has a markdown heading with exactly the text given;
the course's own number ("Theorem 3.1") appears in the lecture of that number; every exercise number is declared by
a checker; every library name imports. The summary table's counts must equal the rows'. Nothing is executed: the
notebooks are read as JSON.
"""

import importlib
import json
import pkgutil
import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

import panpriv_teach.exercises
from panpriv_teach.exercises.harness import exercises_of

ROOT = Path(__file__).resolve().parents[1]
COVERAGE = ROOT / "course" / "coverage.md"
REFERENCES = ROOT / "course" / "references.md"

SOURCES = ("Dwork 2010", "Mir et al. 2011", "Dwork 2011", "Roth 2011", "Local-mechanisms notes")
BEYOND = "Beyond the five texts"   # the section for the course's numbered results from other works
STATUSES = ("experiment", "partial", "text only", "not covered")
COLUMNS = ("item", "course", "lecture", "heading", "experiment", "exercise", "library", "status")
NONE = "—"
SEPARATOR = "<br>"
COURSE_NUMBER = re.compile(r"^(Definition|Theorem|Lemma|Claim|Corollary) (\d)\.(\d+)$")


def split_cells(line):
    """The cells of a markdown table row; `\\|` inside a cell is a literal bar."""
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [cell.strip().replace("\\|", "|") for cell in cells]


@lru_cache(maxsize=None)
def sections():
    """{section title: list of table rows (dict column → cell)} for every `## ` section with a table."""
    found, title, header = {}, None, None
    for line in COVERAGE.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            title, header = line[3:].strip(), None
            found[title] = []
        elif line.startswith("|") and title is not None:
            cells = split_cells(line)
            if header is None:
                header = tuple(cell.lower() for cell in cells)
            elif not all(set(cell) <= set("-: ") for cell in cells):
                found[title].append(dict(zip(header, cells)) | {"_cells": len(cells), "_header": header})
    return found


def source_sections():
    """{source key: rows}, for the five texts, in the file's order."""
    return {title.split(" — ")[0]: rows for title, rows in sections().items() if title.split(" — ")[0] in SOURCES}


def all_rows():
    """(key, row) for the five texts' rows and the rows beyond them (key None: any key of references.md)."""
    rows = [(key, row) for key, rows in source_sections().items() for row in rows]
    beyond = [rows for title, rows in sections().items() if title.startswith(BEYOND)]
    return rows + [(None, row) for row in (beyond[0] if beyond else [])]


def row_id(key_row):
    return key_row[1].get("item", "?")[:70]


ROWS = all_rows()


def reference_keys():
    return set(re.findall(r"^- \*\*(.+?)\*\*", REFERENCES.read_text(encoding="utf-8"), flags=re.MULTILINE))


@lru_cache(maxsize=None)
def notebook_text(path):
    """(headings, markdown text) of a notebook: every markdown heading line, outside code fences, without its #s."""
    notebook = json.loads((ROOT / path).read_text(encoding="utf-8"))
    headings, texts = set(), []
    for cell in notebook["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        source = "".join(cell["source"])
        texts.append(source)
        fenced = False
        for line in source.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and re.match(r"#{1,6}\s", line):
                headings.add(line.lstrip("#").strip())
    return frozenset(headings), "\n".join(texts)


def places(row):
    lectures = [cell.strip(" `") for cell in row["lecture"].split(SEPARATOR)]
    headings = [cell.strip() for cell in row["heading"].split(SEPARATOR)]
    return lectures, headings


@lru_cache(maxsize=None)
def declared_exercises():
    numbers = set()
    for info in pkgutil.iter_modules(panpriv_teach.exercises.__path__):
        if info.name.startswith("_") or info.name == "harness":
            continue
        module = importlib.import_module(f"panpriv_teach.exercises.{info.name}")
        numbers |= set(exercises_of(module))
    return frozenset(numbers)


def resolve(dotted):
    """The object a dotted name `package.module.Class.attribute` names (ImportError/AttributeError if none)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)
        return obj
    raise ImportError(f"no module in {dotted!r}")


def test_the_five_texts_have_a_table_each_in_the_agreed_order():
    assert tuple(source_sections()) == SOURCES
    for key, rows in source_sections().items():
        assert rows, f"the section of {key} lists no items"


@pytest.mark.parametrize("key_row", ROWS, ids=row_id)
def test_row_is_well_formed(key_row):
    key, row = key_row
    assert row["_header"] == COLUMNS, f"columns must be {COLUMNS}"
    assert row["_cells"] == len(COLUMNS), f"{row['_cells']} cells (an unescaped | in a cell?): {row}"
    if key is None:   # beyond the five texts: any cited work
        key = next((k for k in sorted(reference_keys(), key=len, reverse=True) if row["item"].startswith(k + ", ")),
                   None)
        assert key, f"the item must start with a key of course/references.md and a comma: {row['item']!r}"
    assert key in reference_keys(), f"{key!r} has no entry in course/references.md"
    assert row["item"].startswith(key + ", "), f"the item must start with its source's key {key!r}: {row['item']!r}"
    assert row["status"] in STATUSES, f"status {row['status']!r} is not one of {STATUSES}"
    assert row["experiment"], "say what the code shows, or why nothing is computed"
    text_only = row["experiment"].startswith("text only")
    assert text_only == (row["status"] == "text only"), (
        f"status {row['status']!r} but the experiment column says {row['experiment']!r}")
    if row["status"] == "not covered":
        assert row["experiment"].startswith("not covered: "), "a row not covered says why ('not covered: why')"
        assert row["lecture"] == row["heading"] == NONE


@pytest.mark.parametrize("key_row", [r for r in ROWS if r[1]["status"] != "not covered"], ids=row_id)
def test_every_named_place_exists(key_row):
    _, row = key_row
    lectures, headings = places(row)
    assert len(lectures) == len(headings) >= 1, "one heading per lecture, separated by <br> in both columns"
    for lecture, heading in zip(lectures, headings):
        assert re.fullmatch(r"lectures/\d\d_\w+\.ipynb", lecture), f"not a lecture path: {lecture!r}"
        assert (ROOT / lecture).is_file(), f"{lecture} does not exist"
        found, _ = notebook_text(lecture)
        assert heading in found, f"{lecture} has no markdown heading {heading!r} (renamed?)"


@pytest.mark.parametrize("key_row", [r for r in ROWS if r[1]["course"] != NONE], ids=row_id)
def test_the_course_number_is_in_its_lecture(key_row):
    _, row = key_row
    lectures, _ = places(row)
    for label in (part.strip() for part in row["course"].split(",")):
        match = COURSE_NUMBER.match(label)
        assert match, f"course number {label!r} is not of the form 'Theorem 3.1'"
        lecture = next((path for path in lectures if Path(path).name.startswith(f"0{match[2]}_")), None)
        assert lecture, f"{label} belongs to lecture 0{match[2]}, which the row does not name"
        _, text = notebook_text(lecture)
        assert mentions(text, match[1], int(match[2]), int(match[3])), f"{lecture} never mentions {label}"


PLURALS = {"Definition": "Definitions", "Theorem": "Theorems", "Lemma": "Lemmas", "Claim": "Claims",
           "Corollary": "Corollaries"}


def mentions(text, kind, lecture, number):
    """Whether the text names "Theorem 4.2", or a range such as "Theorems 4.2–4.3" that contains it."""
    if re.search(rf"{kind} {lecture}\.{number}(?!\d)", text):
        return True
    ranges = re.findall(rf"{PLURALS[kind]} {lecture}\.(\d+)[–-]{lecture}\.(\d+)", text)
    return any(int(low) <= number <= int(high) for low, high in ranges)


def numbered_results(lecture_number):
    """The results lecture N numbers itself, in bold or in a heading ("**Theorem N.k", "## Definition N.k: …",
    "**Corollaries N.a–N.b"), as labels."""
    path = next((ROOT / "lectures").glob(f"0{lecture_number}_*.ipynb")).relative_to(ROOT).as_posix()
    headings, text = notebook_text(path)
    text += "".join(f"\n**{heading}" for heading in headings)   # "## Definition 1.1: ..." numbers it too
    labels = set()
    singular = {plural: kind for kind, plural in PLURALS.items()}
    n = lecture_number
    for kind, low, high in re.findall(rf"\*\*(\w+) {n}\.(\d+)(?:[–-]{n}\.(\d+))?(?!\d)", text):
        kind = singular.get(kind, kind)
        if kind in PLURALS:
            labels |= {f"{kind} {n}.{k}" for k in range(int(low), int(high or low) + 1)}
    return labels


@pytest.mark.parametrize("lecture_number", range(1, 8))
def test_every_numbered_result_of_a_lecture_has_a_row(lecture_number):
    listed = {label.strip() for _, row in ROWS if row["course"] != NONE for label in row["course"].split(",")}
    missing = sorted(numbered_results(lecture_number) - listed, key=lambda label: float(label.split()[1]))
    assert not missing, f"lecture {lecture_number} numbers results that course/coverage.md does not list: {missing}"


def test_every_exercise_named_is_declared_by_a_checker():
    named = {number.strip() for _, row in ROWS if row["exercise"] != NONE for number in row["exercise"].split(",")}
    assert named, "no exercise is named at all"
    missing = sorted(named - declared_exercises())
    assert not missing, f"exercises named in coverage.md but declared by no checker: {missing}"


def test_every_library_name_imports():
    names = {name.strip(" `") for _, row in ROWS if row["library"] != NONE for name in row["library"].split(",")}
    assert names
    broken = []
    for name in sorted(names):
        if not name.startswith("panpriv_teach."):
            broken.append(f"{name} (not a panpriv_teach name)")
            continue
        try:
            resolve(name)
        except (ImportError, AttributeError) as error:
            broken.append(f"{name} ({error})")
    assert not broken, "library names that do not import: " + "; ".join(broken)


def test_the_summary_counts_the_rows():
    summary = {row["source"]: row for row in sections()["Summary"]}
    totals = Counter()
    for key, rows in source_sections().items():
        counts = Counter(row["status"] for row in rows)
        expected = {"items": len(rows), **{status: counts[status] for status in STATUSES}}
        stated = {column: int(summary[key][column]) for column in expected}
        assert stated == expected, f"summary of {key}: says {stated}, the rows give {expected}"
        totals.update(expected)
    assert {column: int(summary["all"][column]) for column in totals} == dict(totals)


def test_the_parser_sees_a_moved_heading_and_a_missing_exercise():
    """The checks above can fail: a renamed heading and an unknown exercise number are caught."""
    lecture = "lectures/03_density_estimation.ipynb"
    found, _ = notebook_text(lecture)
    assert "Theorem 3.2: accuracy" in found and "Theorem 3.2: accuracy (renamed)" not in found
    assert "3.4" in declared_exercises() and "3.99" not in declared_exercises()
    with pytest.raises(AttributeError):
        resolve("panpriv_teach.density.NoSuchEstimator")
    assert split_cells(r"| a | b \| c | d |") == ["a", "b | c", "d"]
    assert mentions("by Corollaries 6.3–6.4", "Corollary", 6, 4) and not mentions("Theorem 6.10", "Theorem", 6, 1)
