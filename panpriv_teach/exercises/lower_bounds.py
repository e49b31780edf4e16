"""Checkers for module 07, lower bounds (Dwork 2011, Thm 1 and the n log² n statement (Dinur &
Nissim 2003); Local-mechanisms notes, §2, the Ω(log n) packing bound (DNPR 2010); Mir et al. 2011,
§4, the intrusion decoding attack).

Each checker is seeded. The statistical ones use tolerances of at least 6 standard errors,
so a correct answer fails with probability below 1e-6; the decoding checks use margins
measured on thousands of seeded runs of the reference solution (stated beside them).
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.exercises._answers import as_numpy_array, as_real, fresh_rng, looked_up
from panpriv_teach.exercises.harness import ExerciseFailed, call, expect_reproducible, exercise
from panpriv_teach.intrusion import AccurateDistinctCount
from panpriv_teach.lower_bounds import packing_bound as _packing_bound
from panpriv_teach.reconstruction import (all_subsets, random_queries, subset_sums,
                                          worst_case_answers)


def _bits(value, what, n):
    """`value` as a 0/1 int array of length n, or a diagnosis."""
    if value is None:
        raise ExerciseFailed(f"{what} is None. Did you forget a `return`?")
    array = as_numpy_array(value, what)
    if array.shape != (n,):
        raise ExerciseFailed(f"{what} should be a vector of length n = {n}, but has shape "
                             f"{array.shape}.")
    if not np.all((array == 0) | (array == 1)):
        raise ExerciseFailed(f"{what} should contain only 0s and 1s (a database), but it holds "
                             f"values such as {array[(array != 0) & (array != 1)][0]:g}.")
    return array.astype(np.int64)


# ---------------------------------------------------------------- 7.1 Theorem 7.1, exhaustive
class _Curator:
    """Answers subset queries (0/1 vectors of length n) from a table, counting them."""

    def __init__(self, n, table):
        self.n, self.table, self.calls = n, table, 0

    def __call__(self, q):
        q = np.asarray(q)
        if q.shape != (self.n,) or not np.all((q == 0) | (q == 1)):
            raise ValueError(f"a query must be a 0/1 vector of length n = {self.n}; got "
                             f"{q.tolist() if q.size <= 12 else f'shape {q.shape}'}")
        self.calls += 1
        return float(self.table[int(q.astype(np.int64) @ (1 << np.arange(self.n)))])


def _curators(rng):
    """(name, n, E, answers to every subset, true database) for the checks of 7.1."""
    cases = []
    for name, n, E in (("exact answers", 8, 0.0), ("answers off by exactly ±E", 8, 1.0),
                       ("uniform noise in [−E, E]", 8, 1.5), ("answers halfway between two "
                       "databases", 8, 1.0), ("answers off by exactly ±E", 10, 1.0)):
        d = rng.integers(0, 2, n)
        subsets = all_subsets(n)
        exact = (subsets @ d).astype(float)
        if name.startswith("exact"):
            answers = exact
        elif name.startswith("answers off"):
            answers = exact + E * rng.choice([-1.0, 1.0], len(exact))
        elif name.startswith("uniform"):
            answers = exact + rng.uniform(-E, E, len(exact))
        else:
            answers, _ = worst_case_answers(d, E, rng)
        cases.append((name, n, E, answers, d))
    return cases


@exercise("7.1", "Theorem 7.1: the exhaustive reconstruction attack",
          solved_by=("panpriv_teach.reconstruction.reconstruct_exhaustive",))
def exercise_7_1(exhaustive_attack):
    rng = np.random.default_rng(701)
    for name, n, E, answers, d in _curators(rng):
        curator = _Curator(n, answers)
        result = call(exhaustive_attack, curator, n, E, seconds=20.0)
        if result is None:
            raise ExerciseFailed(f"with {name} (n = {n}, E = {E:g}) your function returned None: "
                                 "did no candidate survive? The true database always survives, "
                                 "because its errors are at most E: keep candidates whose errors "
                                 "are <= E (errors of exactly E are allowed), and return one.")
        guess = _bits(result, "your candidate", n)
        if curator.calls == 0:
            raise ExerciseFailed("your function never asked the curator anything: call "
                                 "answer(q) with the 0/1 vector q of each subset.")
        subsets = all_subsets(n)
        errors = np.abs(subsets @ guess - answers)
        if errors.max() > E + 1e-9:
            worst = int(np.argmax(errors))
            members = np.flatnonzero(subsets[worst]).tolist()
            raise ExerciseFailed(
                f"with {name} (n = {n}, E = {E:g}) your candidate should have been ruled out: for "
                f"the subset S = {members} its count differs from the curator's answer by "
                f"{errors[worst]:.3g} > E. Step 2 of the proof rules out a candidate as soon as "
                "ONE subset contradicts it by more than E (and compares absolute values).")
        if np.sum(guess != d) > 4 * E:           # impossible for a survivor (Theorem 7.1)
            raise ExerciseFailed("your candidate survives but is far from the truth: check it.")
    return "every candidate you returned survives all 2^n answers, so it is within 4E (Theorem 7.1)."


# ---------------------------------------------------------------- 7.2 LP decoding
@exercise("7.2", "LP decoding", solved_by=("panpriv_teach.reconstruction.reconstruct_lp",))
def exercise_7_2(decode):
    rng = np.random.default_rng(702)
    n, t = 40, 600
    for noise_bound in (0.0, 0.45):
        d = rng.integers(0, 2, n)
        q = random_queries(n, t, rng)
        answers = subset_sums(d, q) + rng.uniform(-noise_bound, noise_bound, t)
        result = call(decode, q.copy(), answers.copy(), seconds=20.0)
        if result is None:
            raise ExerciseFailed("decode returned None. Did you forget a `return`?")
        raw = as_numpy_array(result, "your guess")
        if raw.ndim == 1 and raw.size in (n + 1, n + t, n + 2 * t):
            raise ExerciseFailed(f"your guess has {raw.size} entries: it looks like the whole LP "
                                 f"solution, slack variables included. Return only the n = {n} "
                                 "database variables x.")
        if raw.shape == (n,) and not np.all((raw == 0) | (raw == 1)):
            raise ExerciseFailed("your guess holds fractions: the LP gives x ∈ [0, 1]^n; round it "
                                 "at 1/2 to a 0/1 database.")
        guess = _bits(result, "your guess", n)
        wrong = int(np.sum(guess != d))
        what = "exact answers" if noise_bound == 0 else f"answers with noise below {noise_bound}"
        if wrong >= n - 2:
            raise ExerciseFailed(f"from {what} your guess is the complement of the database: check "
                                 "the signs of your constraints (q·x − a <= s and a − q·x <= s) and "
                                 "of the rounding.")
        if noise_bound == 0 and wrong:
            raise ExerciseFailed(f"from {what} (t = {t} random queries, n = {n}) your guess is wrong "
                                 f"in {wrong} rows; the database itself has error 0, so the LP "
                                 "optimum is 0. Check the LP: variables x ∈ [0, 1]^n and the "
                                 "error(s), constraints |q_j·x − a_j| <= error, minimise the error.")
        # the reference (L∞ and L1) recovers every row here on 2,000 seeded runs
        if wrong > 2:
            raise ExerciseFailed(f"from {what}, far below √n/10, your guess is wrong in {wrong} of "
                                 f"{n} rows. Minimise the largest (or the total) error.")
    return "exact and slightly noisy answers to 600 random queries give the 40 rows back."


# ---------------------------------------------------------------- 7.3 composition
def _answers(value, t):
    array = as_numpy_array(value, "the answers")
    if array.shape != (t,):
        raise ExerciseFailed(f"the answers should have shape ({t},), one per query, but have "
                             f"shape {array.shape}.")
    return array


@exercise("7.3", "Answers calibrated to the whole query set",
          solved_by=("panpriv_teach.reconstruction.laplace_answers",))
def exercise_7_3(private_answers):
    rng = np.random.default_rng(703)
    n, t, epsilon = 20, 50, 1.0
    d = rng.integers(0, 2, n)
    q = random_queries(n, t, rng)
    truth = subset_sums(d, q).astype(float)
    expect_reproducible(private_answers, d, q, epsilon, convert=lambda r: _answers(r, t))
    runs = 2_000
    answers = np.array([_answers(r, t) for r in
                        call(private_answers, d, q, epsilon, rng=rng, repeat=runs)])
    noise = answers - truth
    scale = np.abs(noise).mean()            # E|Lap(b)| = b; s.e. b/√(100,000) = 0.32 % of b
    correlation = np.corrcoef(noise.T)[np.triu_indices(t, 1)]
    # independent noise: each r has s.e. 1/√2000 = 0.022, so |r| > 0.15 (6.7 s.e.) has
    # probability 2e-11 per pair, 3e-8 for all 1,225 pairs
    if np.abs(correlation).max() > 0.15:
        raise ExerciseFailed("the noise of different queries is correlated (one draw for all?): "
                             "draw independent noise for each query.")
    if abs(noise.mean()) > 6 * math.sqrt(2) * scale / math.sqrt(noise.size):
        raise ExerciseFailed("your answers are off on average: add zero-mean noise to the true "
                             "counts q·d.")
    shape = noise.std() / scale
    if abs(shape - math.sqrt(2)) > 0.05:
        raise ExerciseFailed(f"your noise does not have the Laplace shape (std / mean |noise| = "
                             f"{shape:.3f}; Laplace gives 1.414): use rng.laplace.")
    sensitivity = q.sum(axis=0).max()        # the exact L1 sensitivity: most queries per row
    if scale < 0.95 * sensitivity / epsilon:
        if abs(scale * epsilon - 1) < 0.05:
            raise ExerciseFailed(f"you gave each query the whole budget ε: that releases {t} "
                                 f"answers at ε each, {t}ε in all. By composition the {t} queries "
                                 "must share ε.")
        raise ExerciseFailed(f"your noise has mean absolute value {scale:.3g}: too little for ε = "
                             f"{epsilon:g} over {t} queries (one row is in up to {sensitivity} of "
                             "them). Smaller ε and more queries must mean MORE noise.")
    if scale > 1.05 * t / epsilon:
        raise ExerciseFailed(f"your noise has mean absolute value {scale:.3g}, more than "
                             "composition requires: the t answers need Lap(t/ε) each.")
    return f"each answer carries Laplace noise of scale {scale:.1f} ≈ t/ε: the noise grows with t."


# ---------------------------------------------------------------- 7.4 where decoding breaks
@exercise("7.4", "Where decoding breaks")
def exercise_7_4(decoding_success):
    rng = np.random.default_rng(704)
    n, t = 32, 256
    rates = {}
    for c in (0.1, 1.0):
        values = [as_real(v, "the success rate") for v in
                  call(decoding_success, n, t, c, rng=rng, repeat=6)]
        if max(values) > 1 or min(values) < 0:
            raise ExerciseFailed(f"decoding_success returned {max(values, key=abs):g}: return the "
                                 "FRACTION of rows recovered (between 0 and 1), not a count.")
        rates[c] = float(np.mean(values))
    # reference on 600 seeded runs: at c = 0.1 every run recovers every row; at c = 1 the
    # mean is 0.50, single runs reach 0.78 and means of 6 runs at most 0.60 (< 0.8)
    if rates[0.1] < 0.95:
        raise ExerciseFailed(f"with small noise (c = 0.1, E = 0.1·√n ≈ 0.57) your success rate is "
                             f"{rates[0.1]:.2f}; LP decoding recovers every row here. Use "
                             "reconstruct_lp on the noisy answers, and compare its guess with the "
                             "database you drew.")
    if rates[1.0] > 0.8:
        raise ExerciseFailed(f"at c = 1 your success rate is still {rates[1.0]:.2f}: is the noise "
                             "applied to the answers, with magnitude E = c·√n (not c)? Against the "
                             "'toward' adversary at E = √n decoding should be near chance.")
    seeded = [as_real(call(decoding_success, n, t, 1.0, rng=np.random.default_rng(seed)),
                      "the success rate") for seed in (7040, 7040, 7040, 7040, *range(7041, 7051))]
    # an answer that ignores `rng` gives four equal values with probability Σ p_k^4 < 0.001
    # (p_k the chance of each success value at c = 1, the largest 0.147)
    if len(set(seeded[:4])) > 1:
        raise ExerciseFailed("two calls with the same seeded rng gave different answers: your "
                             "function draws randomness from somewhere else (np.random.*, the "
                             "random module). Draw every random number from the `rng` argument.")
    # ten seeds, one value: not random. At c = 1 a correct answer's success is spread over
    # multiples of 1/32 (the likeliest has probability 0.147 on 3,000 reference runs), so ten
    # equal values have probability Σ p_k^10 ≈ 9e-9
    if len(set(seeded[4:])) == 1:
        raise ExerciseFailed("calls with different rng seeds gave the same answer: draw the "
                             "database, the queries and the noise from the `rng` argument.")
    return (f"success {rates[0.1]:.2f} at E = 0.1√n and {rates[1.0]:.2f} at E = √n "
            f"(n = {n}, t = {t}).")


# ---------------------------------------------------------------- 7.5 packing bound
@exercise("7.5", "The packing bound",
          solved_by=("panpriv_teach.lower_bounds.packing_bound",
                     "panpriv_teach.lower_bounds.packing_condition"))
def exercise_7_5(packing_bound):
    cases = [(16, 1.0), (64, 1.0), (100, 0.5), (1000, 1.0), (1000, 2.0), (4096, 0.3),
             (100_000, 1.0)]
    got = [as_real(call(packing_bound, n, eps), f"packing_bound({n}, {eps})") for n, eps in cases]
    want = [_packing_bound(n, eps) for n, eps in cases]
    if all(math.isclose(g, w) for g, w in zip(got, want)):
        n, eps = int(fresh_rng().integers(10, 100_000)), float(fresh_rng().uniform(0.2, 2.0))
        if not math.isclose(as_real(call(packing_bound, n, eps), f"packing_bound({n}, {eps!r})"),
                            _packing_bound(n, eps)):
            raise looked_up(f"packing_bound({n}, {eps!r})")
        return "the largest a = L/2 that the packing rules out, for every n and ε tried."
    if all(math.isclose(g, 2 * w) for g, w in zip(got, want)):
        raise ExerciseFailed("your numbers are twice too large: return a = L/2, the error, not "
                             "the block length L.")
    if all(math.isclose(g, _packing_bound(n, eps, base="first")) for g, (n, eps) in zip(got, cases)):
        raise ExerciseFailed("you compared each block stream with the first block stream x¹ "
                             "(distance 2L), as the Local-mechanisms notes do. The task compares with the "
                             "all-zero stream x⁰ (distance L, so e^(−εL)), which gives more.")
    if any(not math.isclose(g * 2, round(g * 2)) for g in got):
        raise ExerciseFailed("a block has a whole number L of steps: a = L/2 is a multiple of 1/2.")
    bad = next(i for i, (g, w) in enumerate(zip(got, want)) if not math.isclose(g, w))
    n, eps = cases[bad]
    raise ExerciseFailed(f"for n = {n}, ε = {eps:g} your bound {got[bad]:g} is not the largest "
                         "a = L/2 with (1/2)·(1 + ⌊n/L⌋·e^(−εL)) > 1. Try every whole L from 1 "
                         "to n/2 and keep the last one for which it holds.")


# ---------------------------------------------------------------- 7.6 intrusion attack
@exercise("7.6", "The intrusion decoding attack",
          solved_by=("panpriv_teach.intrusion.intrusion_decoding_attack",
                     "panpriv_teach.intrusion.intrusion_measurements"))
def exercise_7_6(intrusion_attack):
    rng = np.random.default_rng(706)
    m = 64
    for trial in range(2):
        a = rng.integers(0, 2, m)
        algorithm = AccurateDistinctCount(m, 1.0, rng=7060 + trial)
        algorithm.process(np.flatnonzero(a))
        before = algorithm.state()["seen"].copy()
        result = call(intrusion_attack, algorithm, 1500, np.random.default_rng(trial))
        if not np.array_equal(algorithm.state()["seen"], before):
            raise ExerciseFailed("the intruded algorithm's memory changed: you ran the query "
                                 "streams on the algorithm itself. Run each one on a copy, "
                                 "clone_with_fresh_coins(algorithm, rng).")
        guess = _bits(result, "your guess", m)
        right = float(np.mean(guess == a))
        if right <= 0.1:
            raise ExerciseFailed("your guess is (nearly) the complement of the users who appeared: "
                                 "the measurement is D(S ∪ q) − |q| = a·(1 − q), not |q| − D(S ∪ q).")
        # the reference recovers all 64 users in 500 of 500 seeded runs (answer error Lap(1))
        if right < 0.95:
            raise ExerciseFailed(f"your guess is right on {right:.0%} of the users; an accurate "
                                 "algorithm should give nearly all away. Check the measurement: "
                                 "for each query q, run a copy on the users of q, and "
                                 "D(S ∪ q) − |q| = a·(1 − q) is a subset sum of a with the "
                                 "COMPLEMENT 1 − q. Decode with reconstruct_lp(..., method=\"l1\").")
    return "one intrusion into an accurate distinct counter gives away the whole stream."
