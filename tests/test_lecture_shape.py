"""Every lecture has the one shape a student can follow alone, and its core fits one class (issue 21).

The shape (course/instructor_guide.md, "Writing a lecture"): the first cell states the question, *What you will
learn* (3–5 objectives) and the reading; the core ends with *Check yourself* (3–6 questions, each answer in a
collapsed `<details>` block, every number in bold computed by tests/check_yourself/answers_NN.py) and a *Summary*
(3–5 bullets, what the next lecture needs, where the exercises are). After the summary come only optional cells:
*Going deeper*, then *Notes on the sources* (required from lecture 03 on; each note quotes its source first).

Time is estimated from the notebooks by two counts of the core (cells not tagged `optional`): self-study (a student
reading alone: 45 words a minute of markdown, 1.5 minutes per code cell, 3 more per interactive figure) and narrated
(a lecturer: 100 words a minute, 1.5 per code cell, 5 more per interactive figure). An interactive figure is a code
cell tagged `nbval-ignore-output` (only widget cells are).
"""

import importlib.util
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
LECTURES = sorted((ROOT / "lectures").glob("[0-9][0-9]_*.ipynb"))
GUIDE = ROOT / "course" / "instructor_guide.md"
ANSWERS = ROOT / "tests" / "check_yourself"


class Pace(NamedTuple):
    words_per_minute: float
    per_code_cell: float
    per_interactive_figure: float


SELF_STUDY = Pace(45, 1.5, 3)
NARRATED = Pace(100, 1.5, 5)
SELF_STUDY_LIMIT = {"00": 35}           # minutes; every other lecture: DEFAULT_SELF_STUDY_LIMIT
DEFAULT_SELF_STUDY_LIMIT = 75
CLASS_MINUTES_NARRATED = 65             # of a 75-minute class: ten minutes left for questions
NOTES_REQUIRED_FROM = 3                 # lectures 03-07 correct their sources


def module(path: Path) -> str:
    return path.name[:2]


@lru_cache(maxsize=None)
def cells_of(path: Path) -> tuple:
    return tuple(json.loads(path.read_text(encoding="utf-8"))["cells"])


def source(cell) -> str:
    return "".join(cell.get("source", ""))


def is_optional(cell) -> bool:
    return "optional" in cell.get("metadata", {}).get("tags", [])


def minutes(cells, pace: Pace) -> float:
    total = 0.0
    for cell in cells:
        text = source(cell)
        if cell["cell_type"] == "markdown":
            total += len(text.split()) / pace.words_per_minute
        elif cell["cell_type"] == "code" and text.strip():
            total += pace.per_code_cell
            if "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []):
                total += pace.per_interactive_figure
    return total


def core_minutes(path: Path, pace: Pace) -> float:
    return minutes([c for c in cells_of(path) if not is_optional(c)], pace)


def optional_minutes(path: Path, pace: Pace) -> float:
    return minutes([c for c in cells_of(path) if is_optional(c)], pace)


class Section(NamedTuple):
    title: str
    first: int      # index of the cell holding the `## ` heading
    text: str       # the section's markdown, from its heading to the next `## ` heading


def sections(path: Path) -> list[Section]:
    """The lecture's `## ` sections, in order (a heading inside a code cell does not count)."""
    found = []
    for number, cell in enumerate(cells_of(path)):
        if cell["cell_type"] != "markdown":
            if found:
                found[-1] = found[-1]._replace(text=found[-1].text + "\n")
            continue
        for line in source(cell).splitlines(keepends=True):
            heading = re.match(r"## (?!#)(.+)", line)
            if heading:
                found.append(Section(heading.group(1).strip(), number, ""))
            if found:
                found[-1] = found[-1]._replace(text=found[-1].text + line)
        if found:
            found[-1] = found[-1]._replace(text=found[-1].text + "\n")
    return found


def section(path: Path, title: str) -> Section:
    matches = [s for s in sections(path) if s.title == title]
    assert len(matches) == 1, f"{path.name}: {len(matches)} sections titled '## {title}' (one expected)"
    return matches[0]


def bullets(text: str) -> list[str]:
    return re.findall(r"^- (.+)", text, flags=re.MULTILINE)


# ------------------------------------------------------------------------------------------------ time

def test_the_estimates_count_what_they_say(tmp_path):
    notebook = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["word " * 450]},
        {"cell_type": "code", "metadata": {}, "source": ["x = 1"], "outputs": []},
        {"cell_type": "code", "metadata": {}, "source": ["   \n"], "outputs": []},
        {"cell_type": "code", "metadata": {"tags": ["nbval-ignore-output"]}, "source": ["panel"], "outputs": []},
        {"cell_type": "markdown", "metadata": {"tags": ["optional"]}, "source": ["word " * 900]},
        {"cell_type": "code", "metadata": {"tags": ["optional"]}, "source": ["y = 2"], "outputs": []},
    ], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "99_example.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    assert core_minutes(path, SELF_STUDY) == pytest.approx(10 + 1.5 + 1.5 + 3)
    assert core_minutes(path, NARRATED) == pytest.approx(4.5 + 1.5 + 1.5 + 5)
    assert optional_minutes(path, SELF_STUDY) == pytest.approx(20 + 1.5)


@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_the_core_fits_one_sitting_at_self_study_pace(path):
    limit = SELF_STUDY_LIMIT.get(module(path), DEFAULT_SELF_STUDY_LIMIT)
    spent = core_minutes(path, SELF_STUDY)
    assert spent <= limit, (
        f"{path.name}: the core takes {spent:.1f} min at self-study pace (45 words a minute, 1.5 min a code cell, "
        f"3 more an interactive figure), more than {limit}: move what corrects, verifies or makes exact to "
        "'Notes on the sources', what goes beyond the class to 'Going deeper' (cells tagged optional)")


def _classes():
    """One class per lecture, except lectures 00 and 01, which share the first class."""
    first = [p for p in LECTURES if module(p) in ("00", "01")]
    return [tuple(first)] + [(p,) for p in LECTURES if p not in first]


@pytest.mark.parametrize("lectures", _classes(), ids=lambda ls: "+".join(module(p) for p in ls))
def test_every_class_fits_when_narrated(lectures):
    spent = sum(core_minutes(path, NARRATED) for path in lectures)
    assert spent <= CLASS_MINUTES_NARRATED, (
        f"{' + '.join(p.name for p in lectures)}: the core takes {spent:.1f} min narrated, more than "
        f"{CLASS_MINUTES_NARRATED}")


def guide_timings() -> dict[str, dict[str, int]]:
    """The guide's table "Time per lecture": {module: {column: minutes}}."""
    text = GUIDE.read_text(encoding="utf-8")
    section = text.split("## Time per lecture", 1)[1].split("\n## ", 1)[0]
    first_table = section[section.index("\n|"):].split("\n\n", 1)[0]
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")]
            for line in first_table.splitlines() if line.startswith("|")]
    header, body = rows[0], rows[2:]
    return {row[0]: dict(zip(header[1:], (int(x) if x.isdigit() else x for x in row[1:]))) for row in body}


TIMING_COLUMNS = {
    "core, self-study": lambda p: core_minutes(p, SELF_STUDY),
    "core, narrated": lambda p: core_minutes(p, NARRATED),
    "optional, self-study": lambda p: optional_minutes(p, SELF_STUDY),
    "optional, narrated": lambda p: optional_minutes(p, NARRATED),
}


def test_the_instructor_guide_times_every_lecture_by_both_counts():
    table = guide_timings()
    assert sorted(table) == [module(p) for p in LECTURES], "one row per lecture in the guide's 'Time per lecture'"
    wrong = []
    for path in LECTURES:
        for column, estimate in TIMING_COLUMNS.items():
            stated, computed = table[module(path)].get(column), estimate(path)
            if not isinstance(stated, int) or abs(stated - computed) > 1:
                wrong.append(f"{module(path)} {column}: the guide says {stated}, the estimate is {computed:.1f}")
    assert not wrong, "the guide's times are not the estimates':\n" + "\n".join(wrong)


# ------------------------------------------------------------------------------------------------ shape

@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_the_first_cell_states_the_question_the_objectives_and_the_reading(path):
    first = cells_of(path)[0]
    text = source(first)
    assert first["cell_type"] == "markdown" and text.startswith(f"# {module(path)} — "), (
        f"{path.name}: the first cell is the title '# {module(path)} — …'")
    assert "**The question:**" in text, f"{path.name}: the first cell asks the lecture's question"
    assert "**What you will learn**" in text, f"{path.name}: the first cell lists **What you will learn**"
    objectives = bullets(text.split("**What you will learn**", 1)[1].split("\n\n**", 1)[0])
    assert 3 <= len(objectives) <= 5, f"{path.name}: {len(objectives)} objectives (3-5 things the student can do)"
    assert "**Reading:**" in text, f"{path.name}: the first cell gives the **Reading:**"


DETAILS = re.compile(r"<details>\s*<summary>(.*?)</summary>(.*?)</details>", re.DOTALL)


def check_yourself_answers(path: Path) -> list[str]:
    return [answer for _, answer in DETAILS.findall(section(path, "Check yourself").text)]


@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_check_yourself_asks_three_to_six_questions_with_answers_on_demand(path):
    part = section(path, "Check yourself")
    assert not is_optional(cells_of(path)[part.first]), f"{path.name}: Check yourself belongs to the core"
    blocks = DETAILS.findall(part.text)
    assert 3 <= len(blocks) <= 6, f"{path.name}: {len(blocks)} answers in <details> blocks (3-6 questions)"
    assert part.text.count("<details>") == len(blocks), f"{path.name}: a <details> block is not closed"
    questions = re.findall(r"^\*\*Q(\d)\.\*\*", part.text, flags=re.MULTILINE)
    assert questions == [str(k) for k in range(1, len(blocks) + 1)], (
        f"{path.name}: questions are numbered **Q1.** … **Q{len(blocks)}.**, each followed by its answer")
    for number, (summary, answer) in enumerate(blocks, start=1):
        assert summary.strip() == "Answer", f"{path.name} Q{number}: the summary reads 'Answer'"
        assert answer.startswith("\n\n") and answer.endswith("\n\n"), (
            f"{path.name} Q{number}: a blank line after <summary> and before </details>, so the answer renders as "
            "markdown in JupyterLab, on the site and in the decks")
        assert len(answer.split()) >= 8, f"{path.name} Q{number}: the answer explains itself (one line at least)"


@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_the_summary_names_what_comes_next_and_where_the_exercises_are(path):
    names = [s.title for s in sections(path)]
    assert "Summary" in names and "Check yourself" in names, f"{path.name}: sections {names}"
    assert names.index("Check yourself") < names.index("Summary"), f"{path.name}: Check yourself, then Summary"
    part = section(path, "Summary")
    assert 3 <= len(bullets(part.text)) <= 5, f"{path.name}: the summary has {len(bullets(part.text))} bullets (3-5)"
    assert "**Next:**" in part.text, f"{path.name}: the summary says what the next lecture needs (**Next:**)"
    if module(path) != "00":
        assert f"my_work/{path.name}" in part.text, f"{path.name}: the summary points to my_work/{path.name}"


OPTIONAL_SECTIONS = ("Going deeper", "Notes on the sources")


@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_the_core_comes_first_and_optional_sections_follow_the_summary(path):
    cells = cells_of(path)
    summary = section(path, "Summary").first
    optional = [n for n, c in enumerate(cells) if is_optional(c)]
    assert all(n > summary for n in optional), (
        f"{path.name}: optional cells {[n for n in optional if n <= summary]} sit inside the core; Going deeper and "
        "Notes on the sources come after the summary")
    assert optional == list(range(optional[0], len(cells))) if optional else True, (
        f"{path.name}: after the first optional cell every cell is optional")
    after = [s.title for s in sections(path) if s.first > summary]
    assert after == [t for t in OPTIONAL_SECTIONS if t in after], (
        f"{path.name}: after the summary come '## Going deeper' then '## Notes on the sources', nothing else; got {after}")
    if optional:
        assert re.match(r"## (Going deeper|Notes on the sources)", source(cells[optional[0]]).lstrip()), (
            f"{path.name}: the optional part opens with its heading")


@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_notes_on_the_sources_quote_the_original_first(path):
    titles = [s.title for s in sections(path)]
    if int(module(path)) >= NOTES_REQUIRED_FROM:
        assert "Notes on the sources" in titles, f"{path.name}: lectures 03-07 end with '## Notes on the sources'"
    if "Notes on the sources" not in titles:
        return
    notes = re.split(r"^### ", section(path, "Notes on the sources").text, flags=re.MULTILINE)[1:]
    assert notes, f"{path.name}: each note is a '### ' subsection"
    unquoted = [note.splitlines()[0] for note in notes if not re.search(r"^> \S", note, flags=re.MULTILINE)]
    assert not unquoted, f"{path.name}: notes without the original quoted ('> …'): {unquoted}"


# ------------------------------------------------------------------------------------------------ numbers

_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")
_NUMBER = r"[−-]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_EXPONENT = r"(?:\s*[·×]\s*10(?:\^\{?([−-]?\d+)\}?|([⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)))?"
ANSWER_NUMBER = re.compile(rf"\*\*\s*\$?\s*(?:[≈=~]\s*)?({_NUMBER}){_EXPONENT}\s*\$?\s*%?\s*\*\*")


class Printed(NamedTuple):
    text: str
    value: float
    tolerance: float


def printed_numbers(answer: str) -> list[Printed]:
    """The answer's numbers: each bold span that holds one number, as printed, with its rounding tolerance."""
    found = []
    for match in ANSWER_NUMBER.finditer(answer):
        mantissa = match.group(1).replace("−", "-").replace(",", "")
        exponent = match.group(2) or (match.group(3) or "").translate(_SUPERSCRIPT)
        scale = 10.0 ** int(exponent.replace("−", "-")) if exponent else 1.0
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        found.append(Printed(match.group(0), float(mantissa) * scale, 0.5 * 10.0 ** -decimals * scale))
    return found


def test_printed_numbers_are_read_with_their_rounding():
    found = printed_numbers("**0.429** by Bayes; **75 %**; **≈ 1.5·10⁻⁴**; **$2,450$**; **ln 9**; **Q1.**; "
                            "**2.2·10^{-3}**")
    assert [(p.value, p.tolerance) for p in found] == [
        (0.429, 0.0005), (75.0, 0.5), (pytest.approx(1.5e-4), pytest.approx(0.05e-4)), (2450.0, 0.5),
        (pytest.approx(2.2e-3), pytest.approx(0.05e-3))]


def computed_answers(path: Path) -> dict:
    file = ANSWERS / f"answers_{module(path)}.py"
    assert file.exists(), f"{path.name}: the numbers of Check yourself are computed in {file.relative_to(ROOT)}"
    spec = importlib.util.spec_from_file_location(f"check_yourself_{module(path)}", file)
    answers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(answers)
    return answers.ANSWERS


@pytest.mark.parametrize("path", LECTURES, ids=module)
def test_every_number_in_an_answer_is_computed_not_typed(path):
    answers = check_yourself_answers(path)
    computed = computed_answers(path)
    numeric = {number for number, answer in enumerate(answers, start=1) if printed_numbers(answer)}
    assert numeric, f"{path.name}: at least one question asks for a number (printed in bold, **0.43**)"
    assert set(computed) == numeric, (
        f"{path.name}: answers with bold numbers are {sorted(numeric)}, computations are given for {sorted(computed)}")
    for number in sorted(numeric):
        values = [float(v) for v in computed[number]()]
        printed = printed_numbers(answers[number - 1])
        unmatched = [p.text for p in printed
                     if not any(abs(v - p.value) <= p.tolerance * (1 + 1e-9) for v in values)]
        assert not unmatched, f"{path.name} Q{number}: {unmatched} not among the computed values {values}"
        unused = [v for v in values if not any(abs(v - p.value) <= p.tolerance * (1 + 1e-9) for p in printed)]
        assert not unused, f"{path.name} Q{number}: computed {unused} but the answer does not print them"
