"""Checkers for module 07, lower bounds (Dwork 2011, Thm 1 and the n log² n statement (Dinur &
Nissim 2003); Local-mechanisms notes, §2, the Ω(log T) packing bound (DNPR 2010); Mir et al. 2011,
§4, the intrusion decoding attack).

Each checker is seeded. 7.3's answers are checked by their law (`_laws`: Laplace noise of
one scale within the range composition allows, independent between queries; false-failure
probability below `_laws.ALPHA` = 1e-7); the decoding checks use margins measured on
hundreds or thousands of seeded runs of the reference solution (stated beside them).
7.6's answer gets the intruded algorithm sealed (`harness.SealedAlgorithm`): it can be
copied (once per query) and run, and its outputs read, but its memory cannot be read.
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.exercises import _laws
from panpriv_teach.exercises._answers import (as_numpy_array, as_real, fresh_answer,
                                              fresh_rng, seeded)
from panpriv_teach.exercises.harness import (ExerciseFailed, SealedAlgorithm, call, exercise,
                                             expect_reproducible, not_reproducible)
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
    """Answers subset queries (0/1 vectors of length n) from a table, counting them. The
    table is held in a closure, not in an attribute: the answer learns it by asking."""

    def __init__(self, n, table):
        self.n, self.calls = n, 0
        table = np.array(table, dtype=float)

        def answer(index):
            return float(table[index])

        self._answer = answer

    def __repr__(self):
        return "answer"

    def __call__(self, q):
        q = np.asarray(q)
        if q.shape != (self.n,) or not np.all((q == 0) | (q == 1)):
            raise ValueError(f"a query must be a 0/1 vector of length n = {self.n}; got "
                             f"{q.tolist() if q.size <= 12 else f'shape {q.shape}'}")
        self.calls += 1
        return self._answer(int(q.astype(np.int64) @ (1 << np.arange(self.n))))


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
    rng = seeded(701)
    for name, n, E, answers, d in _curators(rng):
        curator = _Curator(n, answers)
        result = call(exhaustive_attack, curator, n, E, seconds=20.0)
        if result is None:
            raise ExerciseFailed(f"with {name} (n = {n}, E = {E:g}) your function returned None: "
                                 "did no candidate survive? The true database always survives, "
                                 "because its errors are at most E (errors of exactly E "
                                 "included): a test that rules it out rules out everything.")
        guess = _bits(result, "your candidate", n)
        if curator.calls == 0:
            raise ExerciseFailed("your function never asked the curator anything: the attack "
                                 "reconstructs the database from the curator's answers.")
        subsets = all_subsets(n)
        errors = np.abs(subsets @ guess - answers)
        if errors.max() > E + 1e-9:
            worst = int(np.argmax(errors))
            members = np.flatnonzero(subsets[worst]).tolist()
            raise ExerciseFailed(
                f"with {name} (n = {n}, E = {E:g}) your candidate should have been ruled out: for "
                f"the subset S = {members} its count differs from the curator's answer by "
                f"{errors[worst]:.3g} > E. Step 2 of the proof rules out a candidate as soon as "
                "ONE subset contradicts it by more than E, in either direction.")
        if np.sum(guess != d) > 4 * E:           # impossible for a survivor (Theorem 7.1)
            raise ExerciseFailed("your candidate survives but is far from the truth, which "
                                 "Theorem 7.1 rules out.")
    return "every candidate you returned survives all 2^n answers, so it is within 4E (Theorem 7.1)."


# ---------------------------------------------------------------- 7.2 LP decoding
@exercise("7.2", "LP decoding", solved_by=("panpriv_teach.reconstruction.reconstruct_lp",))
def exercise_7_2(decode):
    rng = seeded(702)
    n, t = 40, 400
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
                                 "database variables d̂.")
        if raw.shape == (n,) and not np.all((raw == 0) | (raw == 1)):
            raise ExerciseFailed("your guess holds fractions: the LP's d̂ ∈ [0, 1]^n is not yet a "
                                 "database of 0s and 1s.")
        guess = _bits(result, "your guess", n)
        wrong = int(np.sum(guess != d))
        what = "exact answers" if noise_bound == 0 else f"answers with noise below {noise_bound}"
        if wrong >= n - 2:
            raise ExerciseFailed(f"from {what} your guess is the complement of the database: a "
                                 "sign is flipped (in the constraints or in the rounding).")
        if noise_bound == 0 and wrong:
            raise ExerciseFailed(f"from {what} (t = {t} random queries, n = {n}) your guess is wrong "
                                 f"in {wrong} rows; the database itself has error 0, so the LP "
                                 "optimum is 0 and your LP (its variables, constraints or "
                                 "objective) is not the decoder the task describes.")
        # the reference (L∞ and L1) recovers every row here on 300 seeded runs of each case
        if wrong > 2:
            raise ExerciseFailed(f"from {what}, far below √n/10, your guess is wrong in {wrong} of "
                                 f"{n} rows: an LP decoder recovers all of them here.")
    return "exact and slightly noisy answers to 400 random queries give the 40 rows back."


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
    rng = seeded(703)
    n, t, epsilon = 20, 50, 1.0
    d = rng.integers(0, 2, n)
    q = random_queries(n, t, rng)
    truth = subset_sums(d, q).astype(float)
    sensitivity = int(q.sum(axis=0).max())   # the exact L1 sensitivity: most queries per row
    where = (f"(case: t = {t} queries on n = {n} rows, one row in at most {sensitivity} of "
             f"them, ε = {epsilon:g})")
    expect_reproducible(private_answers, d, q, epsilon, convert=lambda r: _answers(r, t))
    runs = 400
    noise = np.array([_answers(r, t) for r in
                      call(private_answers, d, q, epsilon, rng=rng, repeat=runs)]) - truth
    alpha = _laws.ALPHA / 3
    for j in range(t):
        if np.all(noise[:, j] == 0):
            raise ExerciseFailed(f"the answer to query {j} carries no noise: it is released "
                                 f"exactly, and gives its count away (no privacy). {where}")
    if _laws.column_dependence(noise, alpha) is not None:
        raise ExerciseFailed("the noises of different queries are not independent (one draw "
                             "shared between queries, near or far apart?): combining the "
                             f"answers cancels it (privacy lost). {where}")
    scale = float(np.mean(np.abs(noise)))    # one Laplace scale s for every answer
    low, high = _laws.scale_interval(noise.size, alpha)
    misfit = _laws.laplace_misfit(noise, scale, alpha)
    if misfit and misfit.kind != "scale" and not _laws.laplace_fits(noise / scale, alpha,
                                                                     ratio=(low, high)):
        raise ExerciseFailed(_laws.describe_misfit(misfit, "the true count", "s") + " " + where)
    if scale / low < sensitivity / epsilon:   # even the largest plausible s is too small
        if abs(scale * epsilon - 1) < 0.1:
            raise ExerciseFailed(f"you gave each query the whole budget ε: that releases {t} "
                                 f"answers at ε each, {t}ε in all by composition (privacy "
                                 f"lost). {where}")
        raise ExerciseFailed(f"your noise has scale ≈ {scale:.3g}: too little for ε = "
                             f"{epsilon:g} over {t} queries (one row is in up to {sensitivity} "
                             f"of them), so the answers together are not ε-DP. {where}")
    if scale / high > t / epsilon:
        raise ExerciseFailed(f"your noise has scale ≈ {scale:.3g}, more than composition "
                             f"requires ({t}/ε): accuracy lost for nothing. {where}")
    return f"each answer carries Laplace noise of scale {scale:.1f}: the noise grows with t."


# ---------------------------------------------------------------- 7.4 where decoding breaks
@exercise("7.4", "Where decoding breaks")
def exercise_7_4(decoding_success):
    n, t = 32, 256
    seeds = [int(s) for s in seeded(704).integers(2**31, size=24)]
    rates = {}
    for ratio, some in ((0.1, seeds[:2]), (0.15, seeds[12:20]), (1.0, seeds[2:12])):   # E/√n
        values = [as_real(call(decoding_success, n, t, ratio, rng=np.random.default_rng(s)),
                          "the success rate") for s in some]
        if max(values) > 1 or min(values) < 0:
            raise ExerciseFailed(f"decoding_success returned {max(values, key=abs):g}: the task "
                                 "asks for the FRACTION of rows recovered (between 0 and 1), "
                                 "not a count.")
        rates[ratio] = values
    # reproducibility on a small case (16 rows, 48 queries: cheap to decode), four runs
    # twice: an answer drawing from elsewhere matches all four by chance w.p. (Σ p_k²)^4 =
    # 3.4e-4 (p_k: the chance of each success value there, on 1,000 reference runs)
    small = [[as_real(call(decoding_success, 16, 48, 1.0, rng=np.random.default_rng(s)),
                      "the success rate") for s in seeds[20:]] for _ in range(2)]
    if small[0] != small[1]:
        raise not_reproducible()
    low, high = float(np.mean(rates[0.1])), float(np.mean(rates[1.0]))
    # reference on 600 seeded runs: at E = 0.1·√n every run recovers every row; at E = √n
    # the mean is 0.50, single runs reach 0.78, means of 10 runs stay far below 0.8
    if low < 0.95:
        raise ExerciseFailed(f"with small noise (ratio 0.1, E = 0.1·√n ≈ 0.57) your success "
                             f"rate is {low:.2f}, though LP decoding recovers every row here: is "
                             "the guess compared with the database the answers came from?")
    # reference, 120 runs (L∞ and L1 decoding): at ratio 0.15 (E = 0.85) with t = 256
    # queries every run recovers every row; with E = 0.15·√t = 2.4 (ratio times √t) the mean
    # is 0.62-0.71, with 32 queries only 0.90-0.92 (single runs: s.d. 0.08)
    middle = float(np.mean(rates[0.15]))
    if middle < 0.97:
        raise ExerciseFailed(f"at ratio 0.15 (E = 0.15·√n ≈ 0.85) your success rate is "
                             f"{middle:.2f}, though LP decoding from t = {t} queries recovers "
                             "every row there: is the noise E = ratio·√n (not √t), and are all "
                             "t queries asked and decoded?")
    if high > 0.8:
        raise ExerciseFailed(f"at ratio 1 your success rate is still {high:.2f}: is the noise "
                             "applied to the answers, with magnitude E = ratio·√n (not ratio)? "
                             "Against the 'toward' adversary at E = √n decoding should be near "
                             "chance.")
    # ten seeds at E = √n, one value: a point mass, not the law of an attack's success (spread
    # over multiples of 1/32, the likeliest with probability 0.147 on 3,000 reference runs,
    # so ten equal values have probability Σ p_k^10 ≈ 9e-9)
    if len(set(rates[1.0])) == 1:
        raise ExerciseFailed("your success rate at ratio 1 is the same for ten different random "
                             "generators: a real attack's success varies with the database, "
                             "queries and noise drawn, so yours does not draw them from `rng`.")
    return f"success {low:.2f} at E = 0.1√n and {high:.2f} at E = √n (n = {n}, t = {t})."


# ---------------------------------------------------------------- 7.5 packing bound
def _judge_packing(got, cases):
    """Raise the diagnosis of packing_bound's answers `got` on `cases`, (T, ε) each."""
    want = [_packing_bound(T, eps) for T, eps in cases]
    if all(math.isclose(g, r) for g, r in zip(got, want)):
        return
    if all(math.isclose(g, 2 * r) for g, r in zip(got, want)):
        raise ExerciseFailed("your numbers are twice too large: return α = w/2, the error, not "
                             "the block length w.")
    if all(math.isclose(g, _packing_bound(T, eps, base="first")) for g, (T, eps) in zip(got, cases)):
        raise ExerciseFailed("you compared each block stream with the first block stream x¹ "
                             "(distance 2w), as the Local-mechanisms notes do. The task compares "
                             "with the all-zero stream x⁰ (distance w, so e^(−εw)), which gives "
                             "more.")
    if any(not math.isclose(g * 2, round(g * 2)) for g in got):
        raise ExerciseFailed("a block has a whole number w of steps: α = w/2 is a multiple of 1/2.")
    bad = next(i for i, (g, r) in enumerate(zip(got, want)) if not math.isclose(g, r))
    T, eps = cases[bad]
    raise ExerciseFailed(f"for T = {T}, ε = {eps:g} your bound {got[bad]:g} is not the largest "
                         "α = w/2 with (1/2)·(1 + ⌊T/w⌋·e^(−εw)) > 1 over the whole w from 1 "
                         "to T/2: the bound you report is not what the packing rules out.")


@exercise("7.5", "The packing bound",
          solved_by=("panpriv_teach.lower_bounds.packing_bound",
                     "panpriv_teach.lower_bounds.packing_condition"))
def exercise_7_5(packing_bound):
    cases = [(16, 1.0), (64, 1.0), (100, 0.5), (1000, 1.0), (1000, 2.0), (4096, 0.3),
             (100_000, 1.0), (15, 1.0),   # at T = 15 the floor of T/w decides,
             (4, 0.3)]                    # at T = 4, ε = 0.3 the largest w, T/2 = 2, does
    fixed = [call(packing_bound, T, eps) for T, eps in cases]
    _judge_packing([as_real(v, f"packing_bound({T}, {eps})") for v, (T, eps) in
                    zip(fixed, cases)], cases)
    fresh = fresh_rng("7.5")
    case = (int(fresh.integers(10, 100_000)), float(fresh.uniform(0.2, 2.0)))
    where = "packing_bound({}, {!r})".format(*case)
    fresh_answer(packing_bound, case, fixed, where,
                 lambda got: _judge_packing([as_real(got, where)], [case]))
    return "the largest α = w/2 that the packing rules out, for every T and ε tried."


# ---------------------------------------------------------------- 7.6 intrusion attack
_USERS, _QUERIES = 32, 400


@exercise("7.6", "The intrusion decoding attack",
          solved_by=("panpriv_teach.intrusion.intrusion_decoding_attack",
                     "panpriv_teach.intrusion.intrusion_measurements"))
def exercise_7_6(intrusion_attack):
    rng = seeded(706)
    a = rng.integers(0, 2, _USERS)
    algorithm = AccurateDistinctCount(_USERS, 1.0, rng=int(rng.integers(2**31)))
    algorithm.process(np.flatnonzero(a))
    # reproducibility from `rng` on a small attack (8 queries: the guess depends on the
    # queries and coins drawn; 0 of 300 pairs of reference runs from different seeds agree)
    for seed in rng.integers(2**31, size=2):
        small = [_bits(call(intrusion_attack, SealedAlgorithm(algorithm, copies=8), 8,
                            np.random.default_rng(int(seed))), "your guess", _USERS)
                 for _ in range(2)]
        if not np.array_equal(*small):
            raise not_reproducible(", copies with coins not from rng")
    result = call(intrusion_attack, SealedAlgorithm(algorithm, copies=_QUERIES), _QUERIES,
                  np.random.default_rng(int(rng.integers(2**31))))
    guess = _bits(result, "your guess", _USERS)
    right = float(np.mean(guess == a))
    if right <= 0.25:   # a guess mostly the complement of a
        raise ExerciseFailed("your guess is (nearly) the complement of the users who appeared: "
                             "your measurements D(S ∪ q) − |q| = a·(1 − q) are decoded as sums "
                             "over q itself, or their sign is flipped.")
    # the reference recovers all 32 users in 300 of 300 seeded runs (answer error Lap(1))
    if right < 0.9:
        raise ExerciseFailed(f"your guess is right on {right:.0%} of the {_USERS} users, though an "
                             "accurate algorithm gives nearly all away: the measurements are "
                             "not subset sums of a, or not decoded as such. (case: "
                             f"{_USERS} users, {_QUERIES} queries, outputs with Lap(1) error)")
    return "one intrusion into an accurate distinct counter gives away the whole stream."
