"""What every checker declares, against the library and the solution notebooks: the library
functions that already solve the exercise (`solved_by`) exist, and the checker's parameter
is the name the notebook's answer has (the grader looks the answer up by that name)."""
import importlib
import re
from pathlib import Path

import nbformat
import pytest
from checker_testing import fails_with

from panpriv_teach.exercises import _answers
from panpriv_teach.exercises.harness import exercises_of

ROOT = Path(__file__).resolve().parents[1]
MODULES = {"01_dp_basics": "dp_basics", "02_randomized_response": "randomized_response",
           "03_density_estimation": "density", "04_continual_counting": "continual_counting",
           "05_ppcum": "ppcum", "06_sketches": "sketches", "07_lower_bounds": "lower_bounds"}
CHECKERS = [(notebook, number, checker) for notebook, name in MODULES.items()
            for number, checker in exercises_of(
                importlib.import_module(f"panpriv_teach.exercises.{name}")).items()]


def resolve(dotted):
    """The object a dotted name such as panpriv_teach.counters.SimpleCounter.run names."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(dotted)


@pytest.mark.parametrize("notebook, number, checker", CHECKERS, ids=lambda x: x if isinstance(x, str) else "")
def test_each_declared_solver_is_a_library_callable(notebook, number, checker):
    for dotted in checker.solved_by:
        assert dotted.startswith("panpriv_teach."), dotted
        found = resolve(dotted)      # a property (5.5's scale) is stubbed like a method
        assert callable(found) or isinstance(found, property), dotted


def test_the_exercises_that_ask_for_library_code_declare_it():
    """The functions of issue 13's cheat (e): an answer importing them is told so."""
    declared = {number: set(checker.solved_by) for _, number, checker in CHECKERS}
    assert "panpriv_teach.density.roth_sample_size" in declared["3.5"]
    assert "panpriv_teach.attacks.dictionary_attack" in declared["3.6"]
    assert "panpriv_teach.counters.dyadic_intervals" in declared["4.2"]
    assert "panpriv_teach.counters.SimpleCounter.run" in declared["4.1"]
    assert "panpriv_teach.counters.BinaryTreeCounter.variance" in declared["4.4"]
    assert "panpriv_teach.attacks.floating_point_attack" in declared["1.7"]
    # no library function answers these: a sensitivity table, a histogram, a budget split, an
    # error simulation built from the module's own pieces, a threshold,
    # Lemmas 6-7's parameters, a decoding experiment (tests/test_checkers_solved_by.py shows
    # that the declared ones are all an answer could call)
    undeclared = {number for number, names in declared.items() if not names}
    assert undeclared == {"1.2", "1.4", "1.5", "2.5", "4.5", "6.6", "7.4"}


def checked_names(notebook):
    """{exercise number: the name passed to its check cell} in a solution notebook."""
    nb = nbformat.read(ROOT / "solutions" / f"{notebook}.ipynb", as_version=4)
    calls = (re.search(r"check\.exercise_(\d+)_(\d+)\((\w+)", cell.source) for cell in nb.cells
             if cell.cell_type == "code")
    return {f"{m.group(1)}.{m.group(2)}": m.group(3) for m in calls if m}


@pytest.mark.parametrize("notebook", MODULES)
def test_every_checker_is_checked_in_its_notebook_under_its_parameter_name(notebook):
    checkers = {number: checker for nb, number, checker in CHECKERS if nb == notebook}
    assert checked_names(notebook) == {number: checker.answer for number, checker in checkers.items()}


# Answers that are exact functions of a few numbers: each checker adds a case drawn at check
# time from its process's random seed, so a table of the answers to its fixed (seeded,
# readable) cases, or to the cases another process asked, cannot pass.
def _correct_answers():
    from checker_tables.continual_counting import cum_noise_scale, cum_variance
    from checker_tables.density import bit_privacy_loss, roth_m, where_claim_fails
    from checker_tables.dp_basics import sensitivities
    from checker_tables.lower_bounds import packing_bound
    from checker_tables.ppcum import claim, erased_after
    from checker_tables.randomized_response import plan
    from checker_tables.sketches import pick_h_and_gamma
    from panpriv_teach.counters import dyadic_intervals
    from panpriv_teach.exercises import (continual_counting, density, dp_basics, lower_bounds, ppcum,
                                         randomized_response, sketches)
    return [(dp_basics.exercise_1_2, sensitivities), (randomized_response.exercise_2_4, plan),
            (density.exercise_3_1, bit_privacy_loss), (density.exercise_3_2, where_claim_fails),
            (density.exercise_3_5, roth_m), (continual_counting.exercise_4_3, cum_noise_scale),
            (continual_counting.exercise_4_4, cum_variance), (sketches.exercise_6_6, pick_h_and_gamma),
            (lower_bounds.exercise_7_5, packing_bound), (continual_counting.exercise_4_2, dyadic_intervals),
            (ppcum.exercise_5_1, erased_after), (ppcum.exercise_5_4, claim)]


@pytest.mark.parametrize("index", range(12))
def test_a_table_of_one_processs_cases_fails_in_another_process(index, capsys, monkeypatch):
    """Each checker's extra case comes from its process's random seed (`_answers.fresh_rng`):
    the same case at every check in one process (checking an answer twice gives the same
    verdict), a new one in another process. A table of every case one process asked, the
    extra one included (what a student could collect in a kernel), fails in another (the
    grader's), with the diagnosis that names a lookup."""
    checker, correct = _correct_answers()[index]
    monkeypatch.setattr(_answers, "_PROCESS_SEED", 1)
    seen = {}

    def recording(*args):
        seen[args] = correct(*args)
        return seen[args]

    checker(recording, strict=True)                    # a correct answer passes ...
    assert f"✓ Exercise {checker.exercise} passed" in capsys.readouterr().out
    first = dict(seen)
    seen.clear()
    checker(recording, strict=True)                    # ... meeting the same cases again
    assert set(seen) == set(first)

    def table(*args):                                  # right on every case it has seen
        return first.get(args, 0.0)
    checker(table, strict=True)
    monkeypatch.setattr(_answers, "_PROCESS_SEED", 2)  # another process
    fails_with(checker, table, "look up answers for particular inputs")
    checker(correct, strict=True)


@pytest.mark.parametrize("checker, correct, slip", [
    ("density.exercise_3_1", "density.bit_privacy_loss", lambda e: 1e-3),
    ("lower_bounds.exercise_7_5", "lower_bounds.packing_bound", lambda e: 0.25),
])
def test_an_ordinary_bug_on_the_extra_case_keeps_its_own_diagnosis(checker, correct, slip):
    """An answer right on the fixed cases and wrong on the extra one by an ordinary slip (a
    value no table of the fixed cases gives) is told what is wrong, not that it looked up
    answers."""
    module, name = checker.split(".")
    checker = getattr(importlib.import_module(f"panpriv_teach.exercises.{module}"), name)
    table, name = correct.split(".")
    correct = getattr(importlib.import_module(f"checker_tables.{table}"), name)
    fixed = []

    def recording(*args):
        fixed.append(args)
        return correct(*args)

    checker(recording, strict=True)
    extra = fixed[-1]

    def slipping(*args):
        return correct(*args) + (slip(args) if args == extra else 0)

    failure = fails_with(checker, slipping)
    assert "look up" not in failure.diagnosis


def test_the_extra_case_is_fixed_within_a_process_and_by_a_random_seed_in_tests(monkeypatch):
    draw = lambda: _answers.fresh_rng("1.2").integers(10**9)   # noqa: E731
    assert draw() == draw()
    monkeypatch.setattr(_answers, "_PROCESS_SEED", _answers._PROCESS_SEED + 1)
    other = draw()
    with _answers.reseeded(3):
        assert draw() == draw() != other
    assert _answers.fresh_rng("1.2").integers(10**9) != _answers.fresh_rng("2.4").integers(10**9)
