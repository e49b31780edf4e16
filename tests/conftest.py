"""How the suite is split into tiers and shared between pytest-xdist's workers.

Tiers (markers registered in pyproject.toml): `make test` runs everything; `make test-fast`
deselects `browser`, `notebooks` and `slow`. Items are marked here by where they are, so no
test file has to repeat it:

* `notebooks`: every nbval cell of lectures/, solutions/ and exercises/, and the test modules
  of NOTEBOOK_MODULES, which execute notebooks (the course's or a class's) in kernels;
* `browser`: tests/browser/ and the modules of BROWSER_MODULES (headless Chromium);
* `slow`: marked in the test files themselves (minutes of CPU).

Sharing (`make test` runs `-n 2 --dist loadscope --no-loadscope-reorder`): xdist keeps each
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
NOTEBOOK_MODULES = ("test_grading_batch.py", "test_grading_cheats.py", "test_grading_integrity.py")
BROWSER_MODULES = ("test_site.py",)

# Approximate cost in seconds of a group, measured with `--durations=0` on 2 cores
# (the prefix of a node id: a module, a class or a notebook). Only the order matters.
COSTS = {
    "tests/test_checker_false_failures.py::TestDpBasics": 900,
    "tests/test_checker_false_failures.py::TestLowerBounds": 350,
    "tests/test_checker_false_failures.py::TestDensity": 300,
    "tests/test_checker_false_failures.py::TestRandomizedResponse": 160,
    "tests/test_checker_false_failures.py::TestContinualCounting": 120,
    "tests/test_checker_false_failures.py::TestSketches": 100,
    "tests/test_checker_false_failures.py::TestPpcum": 100,
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
    order = {}
    for index, item in enumerate(items):
        order.setdefault(_group(item), index)
    items.sort(key=lambda item: (-_cost(_group(item)), order[_group(item)]))
