"""Module 07's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
import itertools
import math

import numpy as np
from scipy.optimize import linprog

from checker_testing import Table
from panpriv_teach.intrusion import clone_with_fresh_coins
from panpriv_teach.reconstruction import (bounded_noise, fraction_correct, random_queries,
                                          reconstruct_lp, subset_sums)

table = Table("lower_bounds")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 7.1
@correct("7.1", "all subsets at once, the first survivor")
def exhaustive_attack(answer, n, E):
    subsets = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    responses = np.array([answer(S) for S in subsets])
    for c in subsets:
        if np.all(np.abs(subsets @ c - responses) <= E):
            return c


@correct("7.1", "every candidate's worst error in one matrix product")
def _(answer, n, E):
    subsets = np.array(list(itertools.product([0, 1], repeat=n)))
    responses = np.array([answer(S) for S in subsets])
    worst = np.abs(subsets @ subsets.T - responses[:, None]).max(axis=0)
    return subsets[int(np.argmax(worst <= E))]


@correct("7.1", "candidates ruled out subset by subset, the survivors kept")
def _(answer, n, E):
    subsets = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    alive = np.ones(len(subsets), dtype=bool)
    for S in subsets:
        a = answer(S)
        alive &= np.abs(subsets @ S - a) <= E
    return subsets[np.flatnonzero(alive)[-1]]


@mistake("7.1", "ruling out with < E (errors of exactly E)", "returned none")
def _(answer, n, E):
    subsets = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    responses = np.array([answer(S) for S in subsets])
    for c in subsets:
        if np.all(np.abs(subsets @ c - responses) < E):
            return c


@mistake("7.1", "no absolute value (one direction only)", "either direction")
def _(answer, n, E):
    subsets = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    responses = np.array([answer(S) for S in subsets])
    for c in subsets:
        if np.all(subsets @ c - responses <= E):
            return c


@mistake("7.1", "never asking the curator", "never asked")
def _(answer, n, E):
    return np.zeros(n, dtype=int)


@mistake("7.1", "the candidate with the smallest total error (not Theorem 7.1's test)",
         "ruled out")
def _(answer, n, E):
    subsets = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    responses = np.array([answer(S) for S in subsets])
    totals = np.abs(subsets @ subsets.T - responses[:, None]).sum(axis=0)
    return subsets[int(np.argmin(totals))] ^ (np.arange(n) == 0)


@mistake("7.1", "all survivors returned (a 2-D array)", "vector of length n")
def _(answer, n, E):
    subsets = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
    responses = np.array([answer(S) for S in subsets])
    worst = np.abs(subsets @ subsets.T - responses[:, None]).max(axis=0)
    return subsets[worst <= E]


@mistake("7.1", "subsets given as lists of row numbers", "0/1 vector")
def _(answer, n, E):
    return np.array(answer(list(range(n))) > n / 2, dtype=int) * np.ones(n, dtype=int)


# ---------------------------------------------------------------- 7.2
@correct("7.2", "minimise the largest error (L∞)")
def decode(queries, answers):
    t, n = queries.shape
    cost = np.zeros(n + 1)
    cost[-1] = 1.0
    column = -np.ones((t, 1))
    A = np.vstack([np.hstack([queries, column]), np.hstack([-queries, column])])
    b = np.concatenate([answers, -answers])
    result = linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)], method="highs")
    return (result.x[:n] > 0.5).astype(int)


@correct("7.2", "minimise the total error (L1), one slack per answer")
def _(queries, answers):
    t, n = queries.shape
    cost = np.concatenate([np.zeros(n), np.ones(t)])
    slack = -np.eye(t)
    A = np.vstack([np.hstack([queries, slack]), np.hstack([-queries, slack])])
    b = np.concatenate([answers, -answers])
    result = linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)] * t,
                     method="highs")
    return np.round(result.x[:n]).astype(int)


@correct("7.2", "L1 with positive and negative parts as equalities")
def _(queries, answers):
    t, n = queries.shape
    cost = np.concatenate([np.zeros(n), np.ones(2 * t)])
    A_eq = np.hstack([queries, np.eye(t), -np.eye(t)])     # q·x + u − v = a
    result = linprog(cost, A_eq=A_eq, b_eq=answers, bounds=[(0, 1)] * n + [(0, None)] * 2 * t,
                     method="highs")
    return np.where(result.x[:n] >= 0.5, 1, 0)


@mistake("7.2", "the fractional LP solution, not rounded", "fractions")
def _(queries, answers):
    t, n = queries.shape
    cost = np.concatenate([np.zeros(n), np.ones(t)])
    A = np.vstack([np.hstack([queries, -np.eye(t)]), np.hstack([-queries, -np.eye(t)])])
    b = np.concatenate([answers, -answers])
    x = linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)] * t, method="highs").x
    return x[:n] + 1e-3 * (x[:n] < 0.5)


@mistake("7.2", "the whole LP vector, slack included", "slack")
def _(queries, answers):
    t, n = queries.shape
    cost = np.zeros(n + 1)
    cost[-1] = 1.0
    column = -np.ones((t, 1))
    A = np.vstack([np.hstack([queries, column]), np.hstack([-queries, column])])
    b = np.concatenate([answers, -answers])
    x = linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)], method="highs").x
    return np.round(x)


@mistake("7.2", "rounded the wrong way (the complement)", "complement")
def _(queries, answers):
    return 1 - decode(queries, answers)


@mistake("7.2", "rounded at 0 instead of 1/2", "wrong in")
def _(queries, answers):
    t, n = queries.shape
    cost = np.concatenate([np.zeros(n), np.ones(t)])
    A = np.vstack([np.hstack([queries, -np.eye(t)]), np.hstack([-queries, -np.eye(t)])])
    b = np.concatenate([answers, -answers])
    x = linprog(cost, A_ub=A, b_ub=b, bounds=[(0, 1)] * n + [(0, None)] * t, method="highs").x
    return (x[:n] > 1e-9 + 0 * x[:n]).astype(int) | (np.arange(n) % 3 == 0)


@mistake("7.2", "the error variable left out (a feasibility LP that fails on noise)",
         "raised")
def _(queries, answers):
    t, n = queries.shape
    result = linprog(np.zeros(n), A_eq=queries, b_eq=answers, bounds=[(0, 1)] * n,
                     method="highs")
    return (result.x > 0.5).astype(int)


# ---------------------------------------------------------------- 7.3
@correct("7.3", "Lap(t/ε) on every answer")
def private_answers(database, queries, epsilon, rng):
    t = len(queries)
    return queries @ database + rng.laplace(0.0, t / epsilon, t)


@correct("7.3", "the exact L1 sensitivity (most queries per row)")
def _(database, queries, epsilon, rng):
    sensitivity = queries.sum(axis=0).max()
    return queries @ database + rng.laplace(0, sensitivity / epsilon, len(queries))


@correct("7.3", "a loop, one inverse-cdf draw per query")
def _(database, queries, epsilon, rng):
    t, out = len(queries), []
    for q in queries:
        u = rng.random() - 0.5
        out.append(float(q @ database) - t / epsilon * math.copysign(math.log(1 - 2 * abs(u)), u))
    return np.array(out)


@mistake("7.3", "the whole ε for every query", "whole budget")
def _(d, q, e, rng):
    return q @ d + rng.laplace(0, 1 / e, len(q))


@mistake("7.3", "one draw shared by all answers", "not independent")
def _(d, q, e, rng):
    return q @ d + rng.laplace(0, len(q) / e)


@mistake("7.3", "Gaussian noise", "gaussian")
def _(d, q, e, rng):
    return q @ d + rng.normal(0, math.sqrt(2) * len(q) / e, len(q))


@mistake("7.3", "the last query answered exactly", "carries no noise")
def _(d, q, e, rng):
    noise = rng.laplace(0, len(q) / e, len(q))
    noise[-1] = 0
    return q @ d + noise


@mistake("7.3", "scale 1/(tε): divided the wrong way", "too little")
def _(d, q, e, rng):
    return q @ d + rng.laplace(0, 1 / (len(q) * e), len(q))


@mistake("7.3", "scale n·t/ε: far more noise than composition needs", "more than composition")
def _(d, q, e, rng):
    return q @ d + rng.laplace(0, len(d) * len(q) / e, len(q))


@mistake("7.3", "noise from np.random", "somewhere other than")
def _(d, q, e, rng):
    return q @ d + np.random.laplace(0, len(q) / e, len(q))


# ---------------------------------------------------------------- 7.4
@correct("7.4", "four library calls")
def decoding_success(n, t, ratio, rng):
    database = rng.integers(0, 2, n)
    queries = random_queries(n, t, rng)
    noise = bounded_noise(queries, database, ratio * math.sqrt(n), "toward", rng)
    return fraction_correct(reconstruct_lp(queries, subset_sums(database, queries) + noise),
                            database)


@correct("7.4", "the queries drawn before the database, the fraction by hand")
def _(n, t, ratio, rng):
    queries = random_queries(n, t, rng)
    database = rng.integers(0, 2, n)
    answers = queries @ database + bounded_noise(queries, database, ratio * n ** 0.5, "toward", rng)
    return float(np.mean(reconstruct_lp(queries, answers) == database))


@correct("7.4", "the L1 decoder")
def _(n, t, ratio, rng):
    database = rng.integers(0, 2, n)
    queries = random_queries(n, t, rng)
    noise = bounded_noise(queries, database, ratio * math.sqrt(n), kind="toward", rng=rng)
    guess = reconstruct_lp(queries, subset_sums(database, queries) + noise, method="l1")
    return fraction_correct(guess, database)


@mistake("7.4", "noise of magnitude ratio, not ratio·√n", "not ratio")
def _(n, t, ratio, rng):
    database = rng.integers(0, 2, n)
    queries = random_queries(n, t, rng)
    noise = bounded_noise(queries, database, ratio, "toward", rng)
    return fraction_correct(reconstruct_lp(queries, subset_sums(database, queries) + noise),
                            database)


@mistake("7.4", "no noise on the answers", "still")
def _(n, t, ratio, rng):
    database = rng.integers(0, 2, n)
    queries = random_queries(n, t, rng)
    return fraction_correct(reconstruct_lp(queries, subset_sums(database, queries)), database)


@mistake("7.4", "the number of rows recovered, not the fraction", "fraction")
def _(n, t, ratio, rng):
    return n * decoding_success(n, t, ratio, rng)


@mistake("7.4", "a fixed random seed instead of rng", "same for ten")
def _(n, t, ratio, rng):
    return decoding_success(n, t, ratio, np.random.default_rng(0))


@mistake("7.4", "np.random instead of rng", "somewhere other than")
def _(n, t, ratio, rng):
    return decoding_success(n, t, ratio, np.random.default_rng(np.random.randint(2**31)))


@mistake("7.4", "the guess compared with a fresh random database", "compared with")
def _(n, t, ratio, rng):
    database = rng.integers(0, 2, n)
    queries = random_queries(n, t, rng)
    noise = bounded_noise(queries, database, ratio * math.sqrt(n), "toward", rng)
    guess = reconstruct_lp(queries, subset_sums(database, queries) + noise)
    return fraction_correct(guess, rng.integers(0, 2, n))


# ---------------------------------------------------------------- 7.5
@correct("7.5", "the last w that violates the inequality")
def packing_bound(T, epsilon):
    best = 0.0
    for w in range(1, T // 2 + 1):
        if 0.5 * (1 + (T // w) * math.exp(-epsilon * w)) > 1:
            best = w / 2
    return best


@correct("7.5", "searching down from T/2")
def _(T, epsilon):
    for w in range(T // 2, 0, -1):
        if (T // w) * math.exp(-epsilon * w) > 1:
            return w / 2
    return 0.0


@correct("7.5", "numpy over every w")
def _(T, epsilon):
    w = np.arange(1, T // 2 + 1)
    violated = 0.5 * (1 + (T // w) * np.exp(-epsilon * w)) > 1
    return float(w[violated].max()) / 2 if violated.any() else 0.0


@mistake("7.5", "w instead of α = w/2", "twice too large")
def _(T, e):
    return 2 * packing_bound(T, e)


@mistake("7.5", "compared with the first block stream (distance 2w)", "first block stream")
def _(T, e):
    best = 0.0
    for w in range(1, T // 2 + 1):
        if 0.5 * (1 + (T // w) * math.exp(-2 * e * w)) > 1:
            best = w / 2
    return best


@mistake("7.5", "the first w that holds instead of the last that fails", "not the largest")
def _(T, e):
    for w in range(1, T // 2 + 1):
        if 0.5 * (1 + (T // w) * math.exp(-e * w)) <= 1:
            return w / 2
    return 0.0


@mistake("7.5", "T/w without the floor", "not the largest")
def _(T, e):
    best = 0.0
    for w in range(1, T // 2 + 1):
        if 0.5 * (1 + (T / w) * math.exp(-e * w)) > 1:
            best = w / 2
    return best


@mistake("7.5", "a continuous solution, not a whole number of steps", "multiple of 1/2")
def _(T, e):
    from scipy.optimize import brentq
    return brentq(lambda w: (T / w) * math.exp(-e * w) - 1, 0.5, T) / 2


# ---------------------------------------------------------------- 7.6
def measurements(algorithm, n_queries, rng, subtract=True):
    """(q, D(S ∪ q) − |q|) for n_queries random query sets q, each run on its own copy
    (without the − |q| when subtract is False)."""
    m = algorithm.universe_size
    q = rng.integers(0, 2, (n_queries, m))
    values = np.empty(n_queries)
    for j in range(n_queries):
        copy = clone_with_fresh_coins(algorithm, rng)
        copy.process(np.flatnonzero(q[j]))
        values[j] = copy.output() - (q[j].sum() if subtract else 0)
    return q, values


@correct("7.6", "a copy per query, decoded by L1")
def intrusion_attack(algorithm, n_queries, rng):
    q, values = measurements(algorithm, n_queries, rng)
    return reconstruct_lp(1 - q, values, method="l1")


@correct("7.6", "the complements as the queries, a list comprehension")
def _(algorithm, n_queries, rng):
    m = algorithm.universe_size
    q = (rng.random((n_queries, m)) < 0.5).astype(int)

    def measure(row):
        copy = clone_with_fresh_coins(algorithm, rng)
        copy.process(np.flatnonzero(row))
        return copy.output() - row.sum()
    return reconstruct_lp(1 - q, np.array([measure(row) for row in q]), method="l1")


@correct("7.6", "each copy fed its users one by one")
def _(algorithm, n_queries, rng):
    m = algorithm.universe_size
    complements, values = [], []
    for _ in range(n_queries):
        members = np.flatnonzero(rng.integers(0, 2, m))
        copy = clone_with_fresh_coins(algorithm, rng)
        for user in members:
            copy.update(int(user))
        complement = np.ones(m, dtype=int)
        complement[members] = 0
        complements.append(complement)
        values.append(copy.output() - len(members))
    return reconstruct_lp(np.array(complements), np.array(values), method="l1")


@mistake("7.6", "reading the algorithm's memory (algorithm.seen)", "releases alone")
def _(algorithm, n_queries, rng):
    return algorithm.seen


@mistake("7.6", "reading the state (algorithm.state())", "releases alone")
def _(algorithm, n_queries, rng):
    return algorithm.state()["seen"]


@mistake("7.6", "the query streams run on the algorithm itself", "algorithm itself")
def _(algorithm, n_queries, rng):
    m = algorithm.universe_size
    q = rng.integers(0, 2, (n_queries, m))
    values = []
    for row in q:
        algorithm.process(np.flatnonzero(row))
        values.append(algorithm.output() - row.sum())
    return reconstruct_lp(1 - q, np.array(values), method="l1")


@mistake("7.6", "the measurement's sign flipped (the size of q minus the output)",
         "not subset sums")
def _(algorithm, n_queries, rng):
    q, values = measurements(algorithm, n_queries, rng)
    return reconstruct_lp(1 - q, -values, method="l1")


@mistake("7.6", "the decoded guess flipped", "complement")
def _(algorithm, n_queries, rng):
    q, values = measurements(algorithm, n_queries, rng)
    return 1 - reconstruct_lp(1 - q, values, method="l1")


@mistake("7.6", "decoded with q instead of its complement", "complement", "over q itself")
def _(algorithm, n_queries, rng):
    q, values = measurements(algorithm, n_queries, rng)
    return reconstruct_lp(q, values, method="l1")


@mistake("7.6", "the size of q not subtracted from the output", "not subset sums")
def _(algorithm, n_queries, rng):
    q, values = measurements(algorithm, n_queries, rng, subtract=False)
    return reconstruct_lp(1 - q, values, method="l1")
