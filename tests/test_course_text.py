"""The course text cites its sources by the keys of course/references.md, never points outside the repository, and
every lecture's core fits its class (the last tests of this file; issue 17, item 2).

A student has only the repository: no file may send them to the developers' copies of the papers (a path outside the
repository, a file number such as "seed 002" or "004 §3"), and every work cited by author and year must have its full
entry in course/references.md, under the one key every file uses (issue 16, item 7).

What counts as a citation: the words just before a year, when they are capitalised names joined by ", ", " and ",
" & ", optionally ending in "et al." ("Dwork 2010", "Chan, Shi, Song 2011", "Mir et al. 2011") — or an acronym of
initials ("DNPR 2010"). Venues ("SODA 2010"), months and seasons ("Fall 2011") and sentence openers ("In 2006") are
not citations. Each citation must be, verbatim, a key listed in course/references.md: "Dinur and Nissim 2003" fails
when the key is "Dinur & Nissim 2003", so that one work has one key everywhere.

"the seed" and "the seeds" are refused in every sense: in the first version of the course they named the papers, so
a random generator's seed is written "the random seed" (identifiers such as `rng=seed` and words such as "seeded"
are fine).
"""

import json
import re
import subprocess
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCES = ROOT / "course" / "references.md"
THIS_FILE = Path(__file__).resolve().relative_to(ROOT).as_posix()

# The keys the course agreed on (the coordination plan's table); each must have its entry in references.md.
AGREED_KEYS = (
    "Dwork 2010", "Dwork 2011", "Roth 2011", "Mir et al. 2011", "Local-mechanisms notes", "Dwork & Roth 2014",
    "DNPR 2010", "DNPRY 2010", "Chan, Shi, Song 2011", "Warner 1965", "Dinur & Nissim 2003", "DMNS 2006",
    "McSherry & Talwar 2007", "Dwork, McSherry, Talwar 2007", "Honaker 2015", "Mironov 2012", "Wang et al. 2017",
    "Balle & Wang 2018", "Dwork, Rothblum, Vadhan 2010", "Kairouz, Oh, Viswanath 2015",
    "Canonne, Kamath, Steinke 2020", "Massart 1990", "Sweeney 1997", "Sweeney 2002", "Cormode & Muthukrishnan 2005", "Indyk 2006",
    "Chambers, Mallows, Stuck 1976", "Fichtenberger, Henzinger, Upadhyay 2023",
)

SKIPPED_DIRECTORIES = ("course/vendor/",)
TEXT_SUFFIXES = {".py", ".md", ".ipynb", ".txt", ".cfg", ".toml", ".yml", ".yaml", ".j2", ".json", ".html", ".ini",
                 ".sh", ".css", ".tex", ".rst", ""}

# Phrases that point at the developers' copies of the papers.
POINTERS_OUTSIDE = [
    (re.compile(r"seed 00", re.IGNORECASE), '"seed 00…" (a file number)'),
    (re.compile(r"\bthe seeds?\b", re.IGNORECASE),
     '"the seed(s)": cite the source by its key; for a random generator write "the random seed"'),
    (re.compile(r"shared/seeds", re.IGNORECASE), "a path to the papers outside the repository"),
    (re.compile(r"\.\./shared\b"), "a path outside the repository"),
]

# A three-digit file number (000-004, optionally with the file's hash suffix) used as a citation: next to a section,
# theorem, figure or possessive, inside parentheses, or after a word that names a text.
_FILE_NUMBER = r"(?<![\w.,\-/])00[0-4](?:_[0-9a-f]{8,})?(?:\.txt)?(?![\w.]|,\d)"
_CITATION_CONTEXT_AFTER = (r"\s*(?:,\s*)?(?:§|['’]s\b|\)|Thm\b|Theorem|Def\b|Definition|Lemma|Claim|Cor\b|Corollary"
                           r"|Alg\b|Algorithm|Fig\b|Figure|Sec\b|Section|ref\b|Appendix|Eq\b)")
FILE_NUMBER_CITATIONS = [
    re.compile(_FILE_NUMBER + r"(?=" + _CITATION_CONTEXT_AFTER + r")"),
    re.compile(r"(?:\(|\b(?:seed|seeds|notes|file|files|text|texts|paper|papers|source|sources)\s+)" + _FILE_NUMBER,
               re.IGNORECASE),
    re.compile(r"\b00[0-4]_[0-9a-f]{16}\b"),
]

# The reading keys of the first syllabus, replaced by author-year keys.
RETIRED_KEYS = re.compile(r"\*\*(?:FF|NS|RN|LN|SK)\*\*|\b(?:FF|NS|RN|LN|SK)\b(?=\s*(?:§|\(|,\s*§|;|\s+\(all\)))")

_LOWER = r"[a-zà-öø-ÿ'’]"
_NAME = rf"(?:[A-Z]{_LOWER}+(?:[A-Z]{_LOWER}+)?(?:[-–][A-Z]{_LOWER}+)?|[A-Z]{{3,6}})"   # Dwork, McSherry, DNPR
_GAP = r"\s+(?:#\s*)?"                       # one space, or a line break inside a comment or docstring
_AUTHORS = _NAME + rf"(?:(?:,{_GAP}|{_GAP}and{_GAP}|{_GAP}&{_GAP}){_NAME})*(?:{_GAP}et{_GAP}al\.)?"
CITATION = re.compile(r"(?<![\w.\-–])(" + _AUTHORS + r")" + _GAP + r"\(?((?:1[89]|20)\d\d)(?!\d)")

NOT_AUTHORS = {
    # venues
    "SODA", "STOC", "FOCS", "ICS", "PODS", "TCC", "ICML", "CCS", "TPDP", "USENIX", "Security", "CACM", "ICALP",
    "SIGMOD", "VLDB", "KDD", "EUROCRYPT", "CRYPTO", "JASA", "Biometrika", "NIPS", "ACM", "IEEE", "SIAM", "PMLR",
    "LNCS", "Proc", "Proceedings", "Symposium", "Conference", "Workshop",
    # dates
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December", "Spring", "Summer", "Fall", "Autumn", "Winter",
    # sentence openers and other capitalised words before a year that are not names
    "In", "On", "By", "Since", "From", "Until", "Before", "After", "As", "At", "Of", "The", "This", "Year", "Years",
    "Copyright", "Version", "Python", "Census", "Lecture", "Vol", "Volume", "No", "Issue", "Year",
}


def _is_citation(authors: str) -> bool:
    names = re.findall(_NAME, re.sub(r"\s+et\s+al\.", "", authors))
    return bool(names) and names[0] not in NOT_AUTHORS and names[-1] not in NOT_AUTHORS


def _as_written(match) -> str:
    return re.sub(_GAP, " ", f"{match.group(1)} {match.group(2)}")


def citations_in(text: str) -> list[str]:
    """Every author-year citation in `text`, as written ("Dinur and Nissim 2003"), line breaks read as spaces."""
    return [_as_written(m) for m in CITATION.finditer(text) if _is_citation(m.group(1))]


def reference_keys(text: str) -> list[str]:
    """The keys of course/references.md: the bold name that opens each entry."""
    return re.findall(r"^\s*- \*\*(.+?)\*\* —", text, flags=re.MULTILINE)


@lru_cache(maxsize=1)
def course_files() -> tuple[str, ...]:
    """Tracked and new (not ignored) text files of the repository, relative paths."""
    try:
        listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the course files cannot be listed")
    return tuple(sorted(
        path for path in set(listed)
        if (ROOT / path).is_file() and Path(path).suffix in TEXT_SUFFIXES and path != THIS_FILE
        and not path.startswith(SKIPPED_DIRECTORIES)))


def _notebook_parts(path: Path):
    notebook = json.loads(path.read_text(encoding="utf-8"))
    for number, cell in enumerate(notebook.get("cells", [])):
        yield f"cell {number}", "".join(cell.get("source", ""))
        for output in cell.get("outputs", []):
            if "text" in output:
                yield f"cell {number} output", "".join(output["text"])
            for kind in ("text/plain", "text/markdown"):
                if kind in output.get("data", {}):
                    yield f"cell {number} output", "".join(output["data"][kind])


@lru_cache(maxsize=None)
def text_parts(path: str) -> tuple[tuple[str, str], ...]:
    """(where, text) pieces a reader sees: a notebook's cell sources and text outputs (no images), or the file."""
    full = ROOT / path
    try:
        if full.suffix == ".ipynb":
            return tuple(_notebook_parts(full))
        return (("", full.read_text(encoding="utf-8")),)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return ()


def violations(matcher):
    """[(path, where, snippet, what)] for every problem `matcher(text) -> [(offset, what)]` finds in a course file."""
    found = []
    for path in course_files():
        for where, text in text_parts(path):
            for offset, what in matcher(text):
                line_number = text.count("\n", 0, offset) + 1
                line = text.splitlines()[line_number - 1] if text else ""
                found.append((path, f"{where} line {line_number}".strip(), line.strip()[:160], what))
    return found


def pattern_matcher(patterns, what):
    """A matcher reporting each place once, however many of `patterns` match there."""
    return lambda text: [(start, what) for start in sorted({m.start() for p in patterns for m in p.finditer(text)})]


def report(found, title):
    by_file = {}
    for path, where, snippet, what in found:
        by_file.setdefault(path, []).append(f"    {where}: {what}: {snippet}")
    lines = [f"{title}: {len(found)} in {len(by_file)} files"]
    for path, entries in by_file.items():
        lines.append(f"  {path}")
        lines.extend(entries[:12] + ([f"    … and {len(entries) - 12} more"] if len(entries) > 12 else []))
    return "\n".join(lines)


# The recognisers themselves, on examples (so that a pattern that matches nothing cannot pass silently).

@pytest.mark.parametrize("text, expected", [
    ("Dwork 2010, §4, Fig. 1", ["Dwork 2010"]),
    ("Mir et al. 2011, Alg. 2, Thm 7; Chan, Shi, Song 2011", ["Mir et al. 2011", "Chan, Shi, Song 2011"]),
    ("Theorem 1 (Dwork 2011, after Dinur and Nissim 2003)", ["Dwork 2011", "Dinur and Nissim 2003"]),
    ("Local-mechanisms notes, §3, Thm 7 (DNPR 2010)", ["DNPR 2010"]),
    ("as Dwork & Roth 2014 show; Dwork et al. 2010", ["Dwork & Roth 2014", "Dwork et al. 2010"]),
    ("Proc. SODA 2010, ICML 2023, USENIX Security 2017, Fall 2011, In 2006 she", []),
    ("rng = np.random.default_rng(2011); seeded with 2003; Generator(2010)", []),
])
def test_citation_recogniser(text, expected):
    assert citations_in(text) == expected


@pytest.mark.parametrize("text, flagged", [
    ("see seed 002, Theorem 1", True),
    ("the seed's proof", True),
    ("lecture notes 004, §1", True),
    ("(004 §3)", True),
    ("Mir et al. (001) write", True),
    ("001_42012d4f619c2dcd.txt", True),
    ("rng=seed; a seeded generator; p = 0.001 (1,000 runs); 0.004 §", False),
])
def test_file_number_and_pointer_recogniser(text, flagged):
    hits = [p for p, _ in POINTERS_OUTSIDE if p.search(text)] + [p for p in FILE_NUMBER_CITATIONS if p.search(text)]
    assert bool(hits) == flagged


# The references themselves.

def test_references_list_every_agreed_key_once():
    keys = reference_keys(REFERENCES.read_text(encoding="utf-8"))
    assert sorted(set(AGREED_KEYS) - set(keys)) == [], "agreed keys without an entry in course/references.md"
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    assert duplicates == [], f"keys listed twice: {duplicates}"


def test_every_reference_has_a_doi_or_a_stable_url():
    text = REFERENCES.read_text(encoding="utf-8")
    entries = re.split(r"^\s*- \*\*", text, flags=re.MULTILINE)[1:]
    missing = [entry.split("**")[0] for entry in entries
               if "doi.org/" not in entry and "<http" not in entry and "no public copy" not in entry]
    assert missing == [], f"entries with neither a DOI nor a URL (nor 'no public copy'): {missing}"


# Every course file.

def test_no_file_points_to_the_source_files_outside_the_repository():
    found = violations(lambda text: [(m.start(), what) for pattern, what in POINTERS_OUTSIDE
                                     for m in pattern.finditer(text)])
    assert not found, report(found, "pointers to files outside the repository")


def test_no_file_cites_a_source_by_its_file_number():
    found = violations(pattern_matcher(FILE_NUMBER_CITATIONS, "a file number as a citation"))
    assert not found, report(found, "sources cited by file number")


def test_no_file_uses_the_retired_reading_keys():
    found = violations(pattern_matcher([RETIRED_KEYS], "a reading key of the first syllabus (FF/NS/RN/LN/SK)"))
    assert not found, report(found, "FF/NS/RN/LN/SK reading keys")


def test_every_citation_is_a_key_of_the_references():
    keys = set(reference_keys(REFERENCES.read_text(encoding="utf-8")))
    found = violations(lambda text: [(m.start(), f"{_as_written(m)!r} is not a key of course/references.md")
                                     for m in CITATION.finditer(text)
                                     if _is_citation(m.group(1)) and _as_written(m) not in keys])
    assert not found, report(found, "citations that are not keys of course/references.md")


def test_the_notes_are_cited_by_their_one_key():
    variants = re.compile(r"\b(?!Local-mechanisms notes)\w+\s*[-–]\s*Roth notes|Dwork and Roth notes|Dwork & Roth notes")
    found = violations(pattern_matcher([variants], "the notes' key is 'Local-mechanisms notes'"))
    assert not found, report(found, "variants of the notes' key")


# One notation (course/notation.md): rules a pattern can check (issue 21, finding N22 and N13).

NOTATION_RULES = [
    (re.compile(r"N\(0,\s*(?:σ|\\sigma)\s*(?:²|\^2|\^\{2\})"),
     "Gaussian noise is N(0, s²) with s its standard deviation (σ is never a noise scale)"),
    (re.compile(r"(?:1/2|½|\\tfrac\s*\{?1\}?\s*\{?2\}?|\\frac\{1\}\{2\})\s*\+\s*(?:b|bias)\b(?!\s*/)"),
     "a bias b gives probability (1 + b)/2, never 1/2 + b"),
]


@pytest.mark.parametrize("text, flagged", [
    ("noise N(0, σ²) added", True), (r"$z \sim N(0, \sigma^2 I)$", True), (r"$\mathcal N(0, \sigma^2)$", True), ("N(0, s²) with s = 2", False),
    ("Bernoulli(1/2 + b)", True), (r"$\tfrac12 + b$", True), ("½ + bias", True), (r"\frac{1}{2} + b", True),
    ("Bernoulli((1 + b)/2)", False), ("1/2 + b/2", False), ("1/2 + ε/4", False), ("1/2 + beta", False),
])
def test_notation_recognisers(text, flagged):
    assert any(pattern.search(text) for pattern, _ in NOTATION_RULES) == flagged


def test_one_notation_where_a_pattern_can_check_it():
    found = violations(lambda text: [(m.start(), what) for pattern, what in NOTATION_RULES
                                     for m in pattern.finditer(text)])
    assert not found, report(found, "notation that course/notation.md rules out")
