"""Static detection of answers that use the library's own solution (`solved_by`): every way
of reaching a declared function by name in a notebook's code is found, in the cell where it
happens; unrelated code is not flagged."""
import pytest

from panpriv_teach.classroom.grading.library_uses import library_uses

ROTH = "panpriv_teach.density.roth_sample_size"
RUN = "panpriv_teach.counters.SimpleCounter.run"
DECLARED = {ROTH, RUN}


@pytest.mark.parametrize("cells", [
    ["from panpriv_teach.density import roth_sample_size as roth_m"],
    ["from panpriv_teach.density import *", "m = roth_sample_size(0.5, 0.1, 0.1)"],
    ["import panpriv_teach.density as d", "def roth_m(e, a, b):\n    return d.roth_sample_size(e, a, b)"],
    ["import panpriv_teach", "x = panpriv_teach.density.roth_sample_size"],
    ["from panpriv_teach import density", "f = getattr(density, 'roth_sample_size')"],
    ["import importlib", "f = importlib.import_module('panpriv_teach.density').roth_sample_size"],
    ["m = __import__('panpriv_teach.density', fromlist=['x'])", "m.roth_sample_size(1, 1, 1)"],
    ["import sys", "sys.modules['panpriv_teach.density'].roth_sample_size"],
    ["%time import panpriv_teach.density as d", "d.roth_sample_size"],
])
def test_every_spelling_of_a_declared_function_is_found(cells):
    assert library_uses(cells, DECLARED) == {ROTH: [len(cells) - 1]}


@pytest.mark.parametrize("cells", [
    ["from panpriv_teach.counters import SimpleCounter as SC", "def f(x):\n    return SC(1.0).run(x)"],
    ["from panpriv_teach import counters", "c = counters.SimpleCounter(1.0)", "c.run([1, 0])"],
])
def test_a_method_reached_through_an_object_of_its_class_is_found(cells):
    assert library_uses(cells, DECLARED) == {RUN: [len(cells) - 1]}


def test_unrelated_code_and_broken_cells_are_not_flagged():
    cells = ["import numpy as np\nfrom panpriv_teach.density import DensityEstimator",
             "def roth_sample_size(e, a, b):\n    return 200 * np.log(1 / b) / (e * a) ** 2",
             "roth_sample_size(0.5, 0.1, 0.1)",      # the student's own function
             "def broken(:", "d = 3\nd.roth_sample_size"]
    assert library_uses(cells, DECLARED) == {}
