"""How the suite is split into tiers and shared between pytest-xdist's workers.

Tiers (markers registered in pyproject.toml): `make test` runs everything; `make test-fast`
deselects `browser`, `notebooks` and `slow`. Items are marked here by where they are, so no
test file has to repeat it:

* `notebooks`: the test modules of NOTEBOOK_MODULES, which execute notebooks (the course's or
  a class's) in kernels, and every nbval cell of lectures/, solutions/ and exercises/ when
  they are given to pytest with --nbval (`make test` compares the lectures and solutions
  with their stored outputs in test_notebook_determinism.py instead);
* `browser`: tests/browser/ and the modules of BROWSER_MODULES (headless Chromium);
* `slow`: marked in the test files themselves (minutes of CPU), and the tests of SLOW_TESTS:
  over 10 s each in one run of the fast tier (loaded machine, 2 cores; the checkers' mutation
  tables stay in the fast tier, the inner loop of whoever edits a checker).

Sharing (`make test` runs `-n 3 --dist loadscope --no-loadscope-reorder`): xdist keeps each
module (or class, or notebook) on one worker, so a notebook's cells run in order in one
kernel and a module's fixtures are built once. The groups are handed out in collection
order, which this file sorts by COSTS, the most expensive first: xdist's default reorder
(most tests first) would start the one-test classes of minutes last, leaving one worker
idle while the other finishes them. (`--dist loadgroup` would allow finer groups, but with
pytest 9.2 and pytest-xdist 3.8 its xdist_group marks are ignored: it then splits modules
and notebooks test by test.)
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIRS = ("lectures", "solutions", "exercises")
NOTEBOOK_MODULES = ("test_grading_batch.py", "test_grading_cheats.py", "test_grading_integrity.py",
                    "test_notebook_determinism.py", "test_workspace.py", "test_pipeline.py",
                    "test_nbgrader.py", "test_checkers_solved_by.py")
BROWSER_MODULES = ("test_site.py",)

SLOW_TESTS = (
    "tests/test_checker_robustness.py::test_code_that_never_returns_is_stopped_within_3_seconds",
    "tests/test_checker_robustness.py::test_junk_answers_end_in_a_diagnosis_never_a_crash",
    "tests/test_continual.py::test_a_user_appearing_many_times_moves_the_output_like_one_appearance",
    "tests/test_continual.py::test_claim_7_1_holds_for_the_coins_the_estimator_draws",
    "tests/test_continual.py::test_default_ppcum_counter_is_unbiased_and_within_its_error_band",
    "tests/test_continual.py::test_output_is_unbiased_with_the_derived_scale_and_sd_matches_formula",
    "tests/test_continual.py::test_run_and_step_agree_in_distribution",
    "tests/test_counters.py::test_cascading_pan_privacy_audit_stays_below_2d_plus_1_epsilon_and_catches_exact_accumulators",
    "tests/test_counters.py::test_cascading_run_matches_repeated_step_in_distribution",
    "tests/test_counters.py::test_cum_audit_stays_below_epsilon_and_catches_half_the_noise",
    "tests/test_counters.py::test_cum_release_variance_matches_the_exact_formula_at_every_t",
    "tests/test_counters.py::test_randomized_response_counter_is_unbiased_with_the_exact_variance",
    "tests/test_counters.py::test_simple_counter_variance_is_2t_over_epsilon_squared",
    "tests/test_counters.py::test_sqrt_factorization_has_the_predicted_variance",
    "tests/test_counters.py::test_sqrt_run_and_step_release_the_same_law",
    "tests/test_counters.py::test_sqrt_sensitivity_bound_holds_for_the_float_computation_on_adversarial_inputs",
    "tests/test_cropped.py::test_pan_privacy_audit_of_the_state_on_def4_neighbours_stays_below_2_epsilon",
    "tests/test_density.py::test_audit_at_a_realistic_size_stays_below_two_epsilon_and_sees_the_state",
    "tests/test_density.py::test_distinct_count_level_selection_bias_and_its_correction",
    "tests/test_density.py::test_process_has_the_law_of_repeated_update",
    "tests/test_exp_coin.py::test_coins_land_heads_with_frequency_exp_minus_g",
    "tests/test_grading_library_view.py::test_every_modules_view_imports_whole",
    "tests/test_grading_sandbox.py::test_a_notebook_over_its_wall_budget_stops_there_and_replays_count",
    "tests/test_intrusion.py::test_intrusion_attack_fails_against_pan_private_estimators",
    "tests/test_lower_bounds.py::test_packing_picture_for_an_accurate_tree_counter",
    "tests/test_mechanisms.py::test_exponential_mechanism_sample_frequencies_match_the_probabilities",
    "tests/test_ppcum.py::test_release_variance_matches_formula_at_every_t",
    "tests/test_reconstruction.py::test_linf_decoding_recovers_95_percent_at_n128_from_n_log2_n_queries_with_any_bounded_noise",
    "tests/test_reliability.py::test_invalid_input_is_rejected_with_a_message_naming_parameter_value_and_range",
    "tests/test_reliability.py::test_valid_input_near_the_boundaries_is_accepted",
    "tests/test_stable.py::test_lemma2_state_after_a_stream_has_the_exponential_mechanism_law",
    "tests/test_strawmen.py::test_the_output_alone_is_private",
)

# Approximate cost in seconds of a group (the prefix of a node id: a module, a class or a
# notebook), from `make test`'s JUnit report (3 workers on 2 cores, 9.7 min wall, 5,076
# tests). Only the order matters: the longest groups start first.
COSTS = {
    "tests/browser/test_lectures_in_jupyterlab.py": 329,
    "tests/test_notebook_determinism.py": 319,
    "tests/test_site.py": 248,
    "tests/test_grading_cheats.py": 73,
    "tests/test_reliability.py": 70,
    "tests/test_density.py": 47,
    "tests/test_continual.py": 38,
    "tests/test_checker_false_failures.py::TestDpBasics": 34,
    "tests/test_counters.py": 33,
    "tests/test_pipeline.py": 32,
    "tests/test_checker_robustness.py": 32,
    "tests/test_checker_mutations.py": 31,
    "tests/test_workspace.py": 30,
    "tests/test_checker_false_failures.py::TestContinualCounting": 27,
    "tests/test_mechanisms.py": 25,
    "tests/test_checker_false_failures.py::TestLowerBounds": 23,
    "tests/test_checker_false_failures.py::TestDensity": 23,
    "tests/test_nbgrader.py": 22,
}


def _group(item: pytest.Item) -> str:
    """The module, the class, or the notebook of `item`: what `--dist loadscope` keeps
    together."""
    nodeid = item.nodeid.split("[")[0]
    return nodeid.rsplit("::", 1)[0] if "::" in nodeid else nodeid


def _cost(group: str) -> float:
    return max((cost for prefix, cost in COSTS.items() if group.startswith(prefix)), default=0)


def pytest_collection_modifyitems(config, items):
    for item in items:
        path = Path(str(item.path)).resolve()
        relative = path.relative_to(ROOT).parts if path.is_relative_to(ROOT) else ()
        if relative[:1] and relative[0] in NOTEBOOK_DIRS or path.name in NOTEBOOK_MODULES:
            item.add_marker(pytest.mark.notebooks)
        if relative[:2] == ("tests", "browser") or path.name in BROWSER_MODULES:
            item.add_marker(pytest.mark.browser)
        if item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
    order = {}
    for index, item in enumerate(items):
        order.setdefault(_group(item), index)
    items.sort(key=lambda item: (-_cost(_group(item)), order[_group(item)]))
