"""Attacks that show why privacy needs a definition: what goes wrong without one.

So far: the differencing attack of seed 002 ("How" is hard: large query sets), with the
averaging that defeats naive fresh noise. Later modules add reconstruction and intrusion
attacks here.
"""
from __future__ import annotations

import numpy as np

from panpriv_teach.validation import require_int


def differencing_attack(answer, n: int, target: int, repeats: int = 1) -> float:
    """Estimate row `target`'s bit from two "large" counting queries (seed 002, "How" is hard).

    `answer(mask)` returns a (possibly noisy) count of the ones among the rows selected by
    the boolean `mask` of length n. The attack asks "how many rows have the trait?" and
    "how many rows, not named `target`, have the trait?", `repeats` times each, and returns
    the average difference: exactly the target's bit when answers are exact, and close to it
    when fresh zero-mean noise is averaged away (the naive-noise failure of seed 002).
    """
    n = require_int("n", n, low=1)
    target = require_int("target", target, low=0, high=n - 1)
    repeats = require_int("repeats", repeats, low=1)
    everyone = np.ones(n, dtype=bool)
    all_but_target = everyone.copy()
    all_but_target[target] = False
    differences = [float(answer(everyone)) - float(answer(all_but_target)) for _ in range(repeats)]
    return float(np.mean(differences))
