"""The mutation suite (issue 22): for every exercise, every mistake of its table
(`tests/checker_tables/`) fails with the words that name it, and every correct answer of
the table passes; and over all exercises, 100 % of the mistakes are caught and 100 % of the
correct answers pass, with at least 5 mistakes and 3 correct answers per exercise.

Each verdict is computed once per session (the parametrized tests and the count share
`VERDICTS`), so the count costs nothing after them, and still holds run alone.
The checkers are seeded: these outcomes are deterministic."""
import pytest

from checker_testing import MODULES, guide_table, tables
from panpriv_teach.exercises.harness import ExerciseFailed, exercises_of

TABLES = tables()
MISTAKES = [(table, m) for table in TABLES for m in table.mistakes]
VARIANTS = [(table, v) for table in TABLES for v in table.variants]
VERDICTS: dict[tuple, str | None] = {}   # (kind, exercise, name) → the diagnosis, or None


def verdict(table, kind, item) -> str | None:
    """The checker's diagnosis of the item's answer (None when it passes), computed once."""
    key = (kind, item.exercise, item.name)
    if key not in VERDICTS:
        try:
            table.checker(item.exercise).verdict(item.answer)
            VERDICTS[key] = None
        except ExerciseFailed as failure:
            VERDICTS[key] = failure.diagnosis
    return VERDICTS[key]


def caught(mistake, diagnosis) -> bool:
    return diagnosis is not None and all(w.lower() in diagnosis.lower() for w in mistake.words)


@pytest.mark.parametrize("table, mistake", MISTAKES,
                         ids=[f"{m.exercise} {m.name}" for _, m in MISTAKES])
def test_each_mistake_fails_with_words_that_name_it(table, mistake):
    diagnosis = verdict(table, "mistake", mistake)
    assert diagnosis is not None, f"{mistake.exercise}: the mistake '{mistake.name}' passed"
    assert caught(mistake, diagnosis), (f"{mistake.exercise} '{mistake.name}': expected "
                                        f"{mistake.words} in the diagnosis: {diagnosis}")


@pytest.mark.parametrize("table, variant", VARIANTS,
                         ids=[f"{v.exercise} {v.name}" for _, v in VARIANTS])
def test_each_correct_answer_passes(table, variant):
    diagnosis = verdict(table, "correct", variant)
    assert diagnosis is None, f"{variant.exercise} '{variant.name}' failed: {diagnosis}"


def test_every_mistake_is_caught_and_every_correct_answer_passes_over_all_exercises():
    caught_count = sum(caught(m, verdict(t, "mistake", m)) for t, m in MISTAKES)
    passed_count = sum(verdict(t, "correct", v) is None for t, v in VARIANTS)
    print(f"\nmistakes caught with their words: {caught_count} of {len(MISTAKES)}; "
          f"correct answers passed: {passed_count} of {len(VARIANTS)}")
    assert caught_count == len(MISTAKES) and passed_count == len(VARIANTS)


def test_every_exercise_has_5_mistakes_and_3_correct_answers():
    import importlib
    for table, module in zip(TABLES, MODULES):
        numbers = exercises_of(importlib.import_module(f"panpriv_teach.exercises.{module}"))
        for number in numbers:
            mistakes = [m for m in table.mistakes if m.exercise == number]
            variants = [v for v in table.variants if v.exercise == number]
            assert len(mistakes) >= 5, f"{number} has {len(mistakes)} mistakes"
            assert len(variants) >= 3, f"{number} has {len(variants)} correct answers"
            names = [m.name for m in mistakes] + [v.name for v in variants]
            assert len(set(names)) == len(names), f"{number} repeats a name"


def test_the_instructor_guide_lists_every_mistake_of_the_tables():
    from pathlib import Path
    guide = (Path(__file__).resolve().parents[1] / "course" / "instructor_guide.md").read_text()
    assert guide_table() in guide, ("the instructor guide's table 'Common mistakes per "
                                    "exercise' is not the tables' list: print it with "
                                    "checker_testing.guide_table() and paste it")


def test_readme_states_the_false_failure_test_it_is_backed_by():
    """README's promise names the number of correct answers and checks that
    tests/test_checker_false_failures.py measures (`make test-false-failures`: 200 random
    seeds each)."""
    from pathlib import Path

    from test_checker_false_failures import MEASURED
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    answers = len(VARIANTS)
    assert f"{answers} correct answers" in readme and f"{MEASURED} random seeds" in readme
    assert f"{answers * MEASURED:,} checks" in readme and "make test-false-failures" in readme
