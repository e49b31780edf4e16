"""Composition of k epsilon0-DP mechanisms, against Google's dp-accounting (PLD accountant)."""
from __future__ import annotations

import pytest

from panpriv_teach.composition import (advanced_composition, basic_composition,
                                       composition_delta, optimal_composition)

pld = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
common = pytest.importorskip("dp_accounting.pld.common")


def test_the_three_figures_of_the_course():
    # k = 100, epsilon0 = 0.1, delta = 1e-6: 10, 6.31, 4.77.
    assert basic_composition([0.1] * 100) == pytest.approx(10.0, abs=1e-12)
    assert advanced_composition(0.1, 100, 1e-6) == pytest.approx(6.3082, abs=1e-4)
    assert optimal_composition(0.1, 100, 1e-6) == pytest.approx(4.7746, abs=1e-4)


@pytest.mark.parametrize("epsilon0, k", [(0.1, 100), (0.5, 10), (1.0, 5), (0.05, 400)])
def test_optimal_composition_agrees_with_dp_accounting_pld(epsilon0, k):
    # dp-accounting's pessimistic PLD of an epsilon0-DP pair (randomized response, the worst
    # case), self-composed k times. Its discretisation (1e-5) rounds privacy losses up, so it
    # reports a larger epsilon, up to its search precision: we allow 1e-3 above ours and
    # 1e-6 below (measured: 2.8e-7 below at delta = 1e-3).
    # (RandomizedResponseDpEvent with count is ignored in dp-accounting 0.6.0, hence the PLD.)
    single = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(epsilon0, 0),
                                         value_discretization_interval=1e-5)
    composed = single.self_compose(k)
    for delta in (1e-3, 1e-6, 1e-9):
        ours = optimal_composition(epsilon0, k, delta)
        theirs = composed.get_epsilon_for_delta(delta)
        assert ours - 1e-6 <= theirs <= ours + 1e-3
        assert composition_delta(epsilon0, k, ours) == pytest.approx(delta, rel=1e-6)
        assert ours <= min(basic_composition([epsilon0] * k),
                           advanced_composition(epsilon0, k, delta)) + 1e-12


def test_composition_delta_is_zero_beyond_k_epsilon0_and_exact_for_k_1():
    assert composition_delta(0.3, 7, 2.1) == 0.0
    # k = 1: randomized response with e^e0/(1 + e^e0) vs 1/(1 + e^e0) at epsilon = 0: TV distance
    import math
    assert composition_delta(1.0, 1, 0.0) == pytest.approx(math.tanh(0.5))


def test_bad_input():
    with pytest.raises(ValueError, match="k"):
        advanced_composition(0.1, 0, 1e-6)
    with pytest.raises(ValueError, match="delta"):
        optimal_composition(0.1, 10, 1.5)
    with pytest.raises(ValueError, match="epsilons"):
        basic_composition([0.1, -1.0])
