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


# ---------------------------------------------------------------- from the red team's run
@mistake("7.1", "the curator's table read (answer.table) after one query", "no attribute")
def _(answer, n, E):
    answer(np.zeros(n, int))
    subsets = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    table = np.asarray(answer.table)
    return next(c for c in subsets if np.all(np.abs(subsets @ c - table) <= E))


@mistake("7.1", "only the singletons and the whole set asked", "should have been ruled out")
def _(answer, n, E):
    subsets = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    asked = np.vstack([np.eye(n, dtype=int), np.ones((1, n), int)])
    replies = np.array([answer(q) for q in asked])
    return next(c for c in subsets if np.all(np.abs(asked @ c - replies) <= E))


@mistake("7.1", "a tolerance of E + 0.5 (rounding slack)", "should have been ruled out")
def _(answer, n, E):
    subsets = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    replies = np.array([answer(s) for s in subsets])
    return next(c for c in subsets if np.all(np.abs(subsets @ c - replies) <= E + 0.5))


@correct("7.1", "the candidate whose worst error is smallest")
def _(answer, n, E):
    subsets = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    replies = np.array([answer(s) for s in subsets])
    return subsets[int(np.argmin(np.abs(subsets @ subsets.T - replies[:, None]).max(axis=0)))]


@correct("7.1", "itertools.product, the last survivor")
def _(answer, n, E):
    subsets = [np.array(s) for s in itertools.product((0, 1), repeat=n)]
    replies = np.array([answer(s) for s in subsets])
    S, last = np.array(subsets), None
    for candidate in subsets:
        if np.all(np.abs(S @ candidate - replies) <= E):
            last = candidate
    return last


@correct("7.2", "the total error (L1) with slack variables, a bool guess")
def _(queries, answers):
    t, n = queries.shape
    A = np.vstack([np.hstack([queries, -np.eye(t)]), np.hstack([-queries, -np.eye(t)])])
    r = linprog(np.r_[np.zeros(n), np.ones(t)], A_ub=A, b_ub=np.r_[answers, -answers],
                bounds=[(0, 1)] * n + [(0, None)] * t, method="highs")
    return r.x[:n] >= 0.5


@correct("7.2", "the largest error (L∞) with scipy's sparse matrices")
def _(queries, answers):
    from scipy import sparse
    t, n = queries.shape
    Q, column = sparse.csr_matrix(queries.astype(float)), sparse.csr_matrix(-np.ones((t, 1)))
    A = sparse.vstack([sparse.hstack([Q, column]), sparse.hstack([-Q, column])])
    r = linprog(np.r_[np.zeros(n), 1.0], A_ub=A, b_ub=np.r_[answers, -answers],
                bounds=[(0, 1)] * n + [(0, None)], method="highs")
    return np.rint(r.x[:n]).astype(np.int64)


@mistake("7.3", "the sensitivity taken as the largest query size", "too little")
def _(database, queries, epsilon, rng):
    return queries @ database + rng.laplace(0, queries.sum(axis=1).max() / epsilon, len(queries))


@mistake("7.3", "a tiny scale on 3 % of the answers", "within 0.001 scales")
def _(database, queries, epsilon, rng):
    t = len(queries)
    return queries @ database + rng.laplace(0, np.where(rng.random(t) < 0.03, 1e-6, t / epsilon))


@mistake("7.3", "half the answers' noise reused for the other half", "not independent")
def _(database, queries, epsilon, rng):
    t = len(queries)
    noise = rng.laplace(0, t / epsilon, (t + 1) // 2)
    return queries @ database + np.tile(noise, 2)[:t]


@correct("7.3", "the exact sensitivity, a loop of exponential differences")
def _(database, queries, epsilon, rng):
    s = queries.sum(axis=0).max() / epsilon
    return np.array([q @ database + rng.exponential(s) - rng.exponential(s) for q in queries])


@correct("7.3", "ε/t per query, standard Laplace draws scaled, floats")
def _(database, queries, epsilon, rng):
    t = queries.shape[0]
    return (np.asarray(queries, float) @ np.asarray(database, float)
            + rng.laplace(size=t) * (t / epsilon))


@mistake("7.4", "E = ratio·√t", "not √t")
def _(n, t, ratio, rng):
    d, q = rng.integers(0, 2, n), random_queries(n, t, rng)
    noise = bounded_noise(q, d, ratio * math.sqrt(t), "toward", rng)
    return fraction_correct(reconstruct_lp(q, subset_sums(d, q) + noise), d)


@mistake("7.4", "n queries whatever t is", "all t queries")
def _(n, t, ratio, rng):
    d, q = rng.integers(0, 2, n), random_queries(n, n, rng)
    noise = bounded_noise(q, d, ratio * math.sqrt(n), "toward", rng)
    return fraction_correct(reconstruct_lp(q, subset_sums(d, q) + noise), d)


@mistake("7.4", "uniform noise, not the 'toward' adversary", "still")
def _(n, t, ratio, rng):
    d, q = rng.integers(0, 2, n), random_queries(n, t, rng)
    noise = bounded_noise(q, d, ratio * math.sqrt(n), "uniform", rng)
    return fraction_correct(reconstruct_lp(q, subset_sums(d, q) + noise), d)


@correct("7.4", "the decoy drawn explicitly, L1 decoding")
def _(n, t, ratio, rng):
    d, q = rng.integers(0, 2, n), random_queries(n, t, rng)
    noise = bounded_noise(q, d, ratio * n**0.5, "toward", rng, toward=rng.integers(0, 2, n))
    return float(np.mean(reconstruct_lp(q, q @ d + noise, method="l1") == d))


@correct("7.4", "the queries first, a mean of equalities")
def _(n, t, ratio, rng):
    q, d = random_queries(n, t, rng), rng.integers(0, 2, n)
    y = subset_sums(d, q) + bounded_noise(q, d, ratio * math.sqrt(n), "toward", rng)
    return float((reconstruct_lp(q, y) == d).mean())


@mistake("7.5", "w = T/2 never tried (range(1, T // 2))", "whole w from 1 to t/2")
def _(T, epsilon):
    best = 0.0
    for w in range(1, T // 2):
        if 0.5 * (1 + (T // w) * math.exp(-epsilon * w)) > 1:
            best = w / 2
    return best


@mistake("7.5", "≥ 1 in the inequality, round(T/w) blocks", "not the largest")
def _(T, epsilon):
    best = 0.0
    for w in range(1, T // 2 + 1):
        if 0.5 * (1 + round(T / w) * math.exp(-epsilon * w)) >= 1:
            best = w / 2
    return best


@correct("7.5", "a stop at the first w that fails (the condition falls with w)")
def _(T, epsilon):
    for w in range(1, T // 2 + 1):
        if (T // w) * math.exp(-epsilon * w) <= 1:
            return (w - 1) / 2
    return (T // 2) / 2


@correct("7.5", "logarithms, numpy")
def _(T, epsilon):
    w = np.arange(1, T // 2 + 1)
    ok = np.log(T // w) - epsilon * w > 0
    return float(w[ok].max() / 2) if ok.any() else 0.0


@mistake("7.6", "the memory read through vars(algorithm)", "indexerror")
def _(algorithm, n_queries, rng):
    inner = [v for v in vars(algorithm).values() if hasattr(v, "seen")][0]
    return np.asarray(inner.seen, int)


@mistake("7.6", "the memory of a deep copy read", "you may read")
def _(algorithm, n_queries, rng):
    import copy
    return np.asarray(copy.deepcopy(algorithm)._SealedAlgorithm__algorithm.seen, int)


@mistake("7.6", "ten times the queries allowed", "more copies")
def _(algorithm, n_queries, rng):
    m = algorithm.universe_size
    q = rng.integers(0, 2, (10 * n_queries, m))
    values = np.empty(len(q))
    for j in range(len(q)):
        c = clone_with_fresh_coins(algorithm, rng)
        c.process(np.flatnonzero(q[j]))
        values[j] = c.output() - q[j].sum()
    return reconstruct_lp(1 - q, values, method="l1")


@mistake("7.6", "the queries and the copies' coins from np.random", "somewhere other than")
def _(algorithm, n_queries, rng):
    g = np.random.default_rng()
    m = algorithm.universe_size
    q = g.integers(0, 2, (n_queries, m))
    values = np.empty(n_queries)
    for j in range(n_queries):
        c = clone_with_fresh_coins(algorithm, g)
        c.process(np.flatnonzero(q[j]))
        values[j] = c.output() - q[j].sum()
    return reconstruct_lp(1 - q, values, method="l1")


@correct("7.6", "queries drawn one at a time, users fed one by one")
def _(algorithm, n_queries, rng):
    m = algorithm.universe_size
    rows, values = [], []
    for _ in range(n_queries):
        q = (rng.random(m) < 0.5).astype(int)
        c = clone_with_fresh_coins(algorithm, rng)
        for u in np.flatnonzero(q):
            c.update(int(u))
        rows.append(1 - q)
        values.append(c.output() - q.sum())
    return reconstruct_lp(np.array(rows), np.array(values), method="l1")
