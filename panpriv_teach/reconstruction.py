"""Reconstruction attacks: answering too many subset-sum queries too accurately gives the
database away ("How" is hard, Dwork 2011).

- `reconstruct_exhaustive`: Thm 1 of Dwork 2011, after Dinur & Nissim 2003:
  query all 2^n subsets, rule out every candidate that some answer contradicts by more than
  E; what survives is within 4E of the truth. Exponential: small n only.
- `reconstruct_lp`: the efficient attack from random queries (Dwork 2011: "noise of magnitude
  o(√n) is blatantly non-private against n log² n randomly generated queries"; Mir et al. 2011,
  Thm 9), by LP decoding (Dwork, McSherry, Talwar 2007, Mir et al. 2011's ref. [6]).
- `reconstruct_union`: Mir et al. 2011, Thm 11: a sparse secret set decoded from distinct
  counts of its union with query sets, accurate only within a factor (1 ± α₁) and ± α₂;
  the decoder is Dinur–Nissim's exhaustive one, over all sets of at most L elements.
- Helpers: random subset queries, the n log² n budget, bounded (also adversarial) noise,
  answers from the Laplace mechanism calibrated to the whole query set by composition, and
  the ceiling e^ε/(1 + e^ε) that ε-DP puts on guessing any one bit.

The database is a 0/1 vector d of length n (one sensitive bit per row); a query is the
0/1 characteristic vector q of a set of rows; its true answer is the subset sum q·d.
"""
from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog

from panpriv_teach.core import as_rng
from panpriv_teach.mechanisms import laplace_mechanism
from panpriv_teach.validation import require_array, require_epsilon, require_int, require_real

__all__ = ["MAX_EXHAUSTIVE_N", "all_subsets", "random_queries", "query_budget", "subset_sums",
           "bounded_noise", "worst_case_answers", "laplace_answers", "reconstruct_exhaustive",
           "reconstruct_lp", "fraction_correct", "hamming_distance", "guessing_ceiling",
           "MAX_UNION_SETS", "sparse_subsets", "union_sizes", "union_answers",
           "union_decoding_bound", "union_survivors", "reconstruct_union",
           "union_worst_case_answers"]

MAX_EXHAUSTIVE_N = 12        # 2^12 subsets × 2^12 candidates = 16.8 M sums
MAX_UNION_SETS = 5_000       # sets of at most L elements: candidates × queries = 25 M unions
NOISE_KINDS = ("uniform", "signs", "toward")
LP_METHODS = ("linf", "l1")


# ----------------------------------------------------------------------------------------
# Queries and answers
# ----------------------------------------------------------------------------------------

def _database(database, name="database") -> np.ndarray:
    return require_array(name, database, ndim=1, allowed={0, 1}, nonempty=True)


def _queries(queries, n=None) -> np.ndarray:
    queries = require_array("queries", queries, ndim=2)
    if queries.shape[0] == 0 or queries.shape[1] == 0:
        raise ValueError(f"queries must be a non-empty (t, n) matrix; got shape {queries.shape}")
    if n is not None and queries.shape[1] != n:
        raise ValueError(f"queries must have n = {n} columns (one per row of the database); "
                         f"got shape {queries.shape}")
    return queries


def all_subsets(n) -> np.ndarray:
    """The 2^n characteristic vectors of the subsets of [n], as a (2^n, n) 0/1 array
    (row k is the binary expansion of k, row 0 the empty set)."""
    n = require_int("n", n, low=1, high=MAX_EXHAUSTIVE_N,
                    note="Thm 1's attack asks all 2^n subsets: small n only")
    return ((np.arange(2 ** n)[:, None] >> np.arange(n)) & 1).astype(np.int64)


def random_queries(n, t, rng=None) -> np.ndarray:
    """t random subsets of [n]: a (t, n) 0/1 array, each entry 1 with probability 1/2
    independently (the "randomly generated queries" of Dwork 2011; Mir et al. 2011, Thm 9)."""
    n = require_int("n", n, low=1)
    t = require_int("t", t, low=1, note="the number of queries")
    return as_rng(rng).integers(0, 2, size=(t, n), dtype=np.int64)


def query_budget(n) -> int:
    """n log² n with the logarithm to base 2, rounded up: the number of random queries in
    Dwork 2011's statement (7·7·128 = 6272 at n = 128). With natural logarithms it would be
    n ln² n ≈ 0.48 n log₂² n (3011 at n = 128)."""
    n = require_int("n", n, low=2)
    return math.ceil(n * math.log2(n) ** 2)


def subset_sums(database, queries) -> np.ndarray:
    """The exact answers q·d of every query (row of `queries`) on `database`."""
    d = _database(database)
    return _queries(queries, len(d)) @ d


def bounded_noise(queries, database, bound, kind="uniform", rng=None, toward=None) -> np.ndarray:
    """Noise of magnitude at most `bound` = E on each answer, i.i.d. or adversarial.

    kind="uniform": i.i.d. uniform on [−E, E].
    kind="signs": ±E with random signs (every answer off by the full E).
    kind="toward": the adversary's push toward another database d′ (random unless `toward`
        is given): each answer moves from q·d toward q·d′ by as much as it may,
        clip(q·(d′ − d), −E, E). Where |q·(d′ − d)| <= E the answer is exactly d′'s, so the
        two databases cannot be told apart on that query.
    Returns the (t,) noise vector; the noisy answers are `subset_sums(...) + noise`.
    """
    d = _database(database)
    queries = _queries(queries, len(d))
    bound = require_real("bound", bound, low=0.0, high=math.inf, high_open=True,
                         note="the noise magnitude E of Thm 1")
    if kind not in NOISE_KINDS:
        raise ValueError(f"kind must be one of {NOISE_KINDS}; got {kind!r}")
    rng = as_rng(rng)
    t = queries.shape[0]
    if kind == "uniform":
        return rng.uniform(-bound, bound, t)
    if kind == "signs":
        return bound * rng.choice([-1.0, 1.0], t)
    decoy = rng.integers(0, 2, len(d)) if toward is None else _database(toward, "toward")
    if len(decoy) != len(d):
        raise ValueError(f"toward must have the database's length {len(d)}; got {len(decoy)}")
    return np.clip(queries @ (decoy - d), -bound, bound).astype(float)


def worst_case_answers(database, bound, rng=None):
    """Answers to ALL 2^n subsets that make Thm 1's 4E tight: (answers, d′), d′ the decoy.

    Take d′ equal to d except in ⌊2E⌋ rows where d = 0 and ⌊2E⌋ rows where d = 1 (as many
    as exist), and answer M(S) = (S·d + S·d′)/2. Then |M(S) − S·d| = |S·(d′ − d)|/2 <= E and
    likewise for d′ (for every S, |S·(d′ − d)| <= ⌊2E⌋, the larger of the two groups of changed
    rows that S contains), so neither is ruled out; they differ in 2⌊2E⌋ positions, which is
    4E when 2E is a whole number (and enough rows of each value exist). Returns the answers
    (a (2^n,) array in the order of `all_subsets`) and d′.
    """
    d = _database(database)
    n = require_int("n", len(d), low=1, high=MAX_EXHAUSTIVE_N,
                    note="answers to all 2^n subsets: small n only")
    bound = require_real("bound", bound, low=0.0, high=math.inf, high_open=True)
    rng = as_rng(rng)
    k = int(math.floor(2 * bound + 1e-9))
    decoy = d.copy()
    for value in (0, 1):
        rows = np.flatnonzero(d == value)
        decoy[rng.permutation(rows)[:k]] = 1 - value
    subsets = all_subsets(n)
    return (subsets @ d + subsets @ decoy) / 2, decoy


def laplace_answers(database, queries, epsilon, rng=None) -> np.ndarray:
    """Answers to the whole query set that are ε-DP together, by composition (Dwork 2011):
    each of the t counting queries (sensitivity 1) gets Lap(t/ε), i.e. ε/t of the budget.

    (The exact L1 sensitivity of the vector of answers is the largest number of queries
    containing one row, about t/2 for random queries; Lap(that/ε) would also be ε-DP. The
    point stands either way: the noise grows linearly with the number of queries.)
    """
    answers = subset_sums(database, queries).astype(float)
    epsilon = require_epsilon(epsilon)
    t = len(answers)
    return laplace_mechanism(answers, t, epsilon, rng)   # float-safe Lap(t/ε) per answer


# ----------------------------------------------------------------------------------------
# Thm 1: the exhaustive attack
# ----------------------------------------------------------------------------------------

def reconstruct_exhaustive(answer, n, bound=None) -> np.ndarray:
    """Thm 1's adversary (Dwork 2011; Dinur & Nissim 2003): a 0/1 candidate.

    `answer(q)` is the curator: it takes the 0/1 characteristic vector q (an int array of
    length n) of a subset S and returns the noisy count M(S) of ones in S. The attack
    1. asks M(S) for all 2^n subsets S;
    2. rules out every candidate c ∈ {0,1}^n with |Σ_{i∈S} c_i − M(S)| > E for some S, and
       returns a candidate that survives.
    With `bound` = E given, it returns the first survivor in the order of `all_subsets`,
    literally as in the proof (ValueError if none survives: then the noise exceeded E).
    With bound=None it returns the candidate with the smallest largest error
    max_S |c·S − M(S)|: if the noise is at most E, that smallest error is at most E (the
    truth achieves it), so this candidate survives the rule-out at E and the theorem
    applies without knowing E.

    Guarantee (Thm 1): if |M(S) − S·d| <= E for every S, the candidate differs from d in at
    most 4E positions (2E among the rows where d = 0 — the query S = I_0 — and 2E among
    those where d = 1, by the triangle inequality). `worst_case_answers` shows that 4E is
    attained. Cost: 2^n queries and 4^n sums; n <= 12.
    """
    if not callable(answer):
        raise TypeError(f"answer must be a function q -> noisy count; got {type(answer).__name__}")
    subsets = all_subsets(n)
    if bound is not None:
        bound = require_real("bound", bound, low=0.0, high=math.inf, high_open=True,
                             note="the noise magnitude E of Thm 1")
    responses = np.empty(len(subsets))
    for k, q in enumerate(subsets):
        value = answer(q.copy())
        responses[k] = require_real("answer(q)", value, note="the curator's noisy count")
    candidates = subsets                                # the candidates are {0,1}^n too
    worst = np.zeros(len(candidates))
    for start in range(0, len(candidates), 256):        # 256 candidates at a time
        block = subsets @ candidates[start:start + 256].T          # c·S for every S
        worst[start:start + 256] = np.abs(block - responses[:, None]).max(axis=0)
    if bound is None:
        return candidates[int(np.argmin(worst))].copy()
    surviving = np.flatnonzero(worst <= bound + 1e-9)
    if surviving.size == 0:
        raise ValueError(f"every candidate is ruled out at bound={bound}: some answer erred by "
                         f"more than E (the smallest largest error is {worst.min():.4g})")
    return candidates[int(surviving[0])].copy()


# ----------------------------------------------------------------------------------------
# LP decoding from random queries
# ----------------------------------------------------------------------------------------

def reconstruct_lp(queries, answers, method="linf", fractional=False) -> np.ndarray:
    """LP decoding of a 0/1 database from noisy answers to (random) subset queries.

    The efficient attack of Dwork 2011 ("noise of magnitude o(√n) is blatantly non-private
    against a series of n log² n randomly generated queries, no matter the distribution on
    the noise"; Mir et al. 2011, Thm 9, after Dinur & Nissim 2003). Two linear programs over
    x ∈ [0, 1]^n, then rounding at 1/2:

    method="linf" (Dinur–Nissim): minimise the largest error max_j |q_j·x − a_j|. Dinur and
        Nissim ask for any x with every error <= E; the minimiser is such an x whenever the
        noise is bounded by E, without knowing E. Their guarantee is for noise bounded by
        o(√n), of any distribution, even adversarial. One outlier spoils it.
    method="l1" (LP decoding, Dwork, McSherry, Talwar 2007, Mir et al. 2011's ref. [6]):
        minimise Σ_j |q_j·x − a_j|. Robust to a constant fraction of wild answers and better
        with i.i.d. noise (it averages), but an adversary with bounded noise can pull it
        further: at n = 128, E = √n/10, pushing each answer toward a database 8-16 rows
        away fooled it on up to 16 rows, against at most 6 for "linf" (tests, lecture).

    Both are solved by scipy.optimize.linprog (HiGHS). "l1" goes through its dual, which has
    only n constraints whatever t is:
        max_{u ∈ [−1,1]^t}  u·a − Σ_i s_i   subject to  s ≥ Qᵀu,  s ≥ 0,
    and x is the vector of dual prices of the constraints s_i ≥ (Qᵀu)_i (the primal, with
    t + n variables and 2t constraints, took 20 s at n = 128, t = 6272; the dual 0.4 s).
    "linf" solves the primal (n + 1 variables, 2t constraints; about 1 s there).

    Parameters
    ----------
    queries : (t, n) array, usually 0/1 (random subsets); any real coefficients work.
    answers : (t,) noisy answers.
    method : "linf" (default) or "l1".
    fractional : return the LP solution x ∈ [0, 1]^n itself instead of the rounded guess.

    Returns the 0/1 guess (int array of length n), or x when `fractional`.
    """
    queries = _queries(queries).astype(float)
    t, n = queries.shape
    answers = require_array("answers", answers, ndim=1).astype(float)
    if answers.shape != (t,):
        raise ValueError(f"answers must hold one answer per query: {t} (queries has shape "
                         f"{queries.shape}); got {answers.shape[0]}")
    if method not in LP_METHODS:
        raise ValueError(f"method must be one of {LP_METHODS}; got {method!r}")
    if method == "l1":
        cost = np.concatenate([-answers, np.ones(n)])
        constraints = np.hstack([queries.T, -np.eye(n)])
        bounds = [(-1.0, 1.0)] * t + [(0.0, None)] * n
        result = linprog(cost, A_ub=constraints, b_ub=np.zeros(n), bounds=bounds, method="highs")
        solution = None if result.status else -result.ineqlin.marginals
    else:
        cost = np.zeros(n + 1)
        cost[-1] = 1.0                                           # minimise s
        column = -np.ones((t, 1))
        constraints = np.vstack([np.hstack([queries, column]), np.hstack([-queries, column])])
        bounds = [(0.0, 1.0)] * n + [(0.0, None)]
        result = linprog(cost, A_ub=constraints, b_ub=np.concatenate([answers, -answers]),
                         bounds=bounds, method="highs")
        solution = None if result.status else result.x[:n]
    if solution is None:                                   # pragma: no cover (always feasible)
        raise RuntimeError(f"the LP solver failed: {result.message}")
    x = np.clip(solution, 0.0, 1.0)
    return x if fractional else (x > 0.5).astype(np.int64)


# ----------------------------------------------------------------------------------------
# Thm 11 of Mir et al. 2011: union queries on a sparse secret
# ----------------------------------------------------------------------------------------

def sparse_subsets(n, max_size) -> np.ndarray:
    """Every subset of [n] with at most `max_size` = L elements, as a (K, n) 0/1 array, by size
    and then lexicographically (row 0 is the empty set). K = Σ_{k <= L} C(n, k) <= (n + 1)^L:
    the n^{O(L)} queries, and the candidates, of Mir et al. 2011, Thm 11."""
    n = require_int("n", n, low=1)
    max_size = require_int("max_size", max_size, low=0, high=n, note="the sparsity L")
    count = sum(math.comb(n, k) for k in range(max_size + 1))
    if count > MAX_UNION_SETS:
        raise ValueError(f"there are {count} subsets of [{n}] with at most {max_size} elements, more than "
                         f"MAX_UNION_SETS = {MAX_UNION_SETS}: the exhaustive decoder is for small n and L")
    sets = np.zeros((count, n), dtype=np.int64)
    rows = itertools.chain.from_iterable(itertools.combinations(range(n), k)
                                         for k in range(max_size + 1))
    for row, members in enumerate(rows):
        sets[row, list(members)] = 1
    return sets


def union_sizes(sets, queries) -> np.ndarray:
    """|s ∪ q| = |s| + |q| − s·q, the distinct count of the union: Mir et al. 2011's ‖s + q‖₀.

    `sets` is one 0/1 vector (result: shape (t,)) or a (K, n) 0/1 array (result: (K, t));
    `queries` is a (t, n) 0/1 array.
    """
    sets = require_array("sets", sets, allowed={0, 1}, nonempty=True)
    if sets.ndim not in (1, 2):
        raise ValueError(f"sets must be a 0/1 vector or a (K, n) 0/1 array; got {sets.ndim} dimensions")
    queries = require_array("queries", queries, ndim=2, allowed={0, 1})
    if queries.shape[1] != sets.shape[-1]:
        raise ValueError(f"queries must have one column per element ({sets.shape[-1]}); got shape "
                         f"{queries.shape}")
    overlap = sets @ queries.T
    return sets.sum(axis=-1)[..., None] + queries.sum(axis=1) - overlap if sets.ndim == 2 \
        else sets.sum() + queries.sum(axis=1) - overlap


def _union_accuracy(alpha1, alpha2) -> tuple[float, float]:
    alpha1 = require_real("alpha1", alpha1, low=0.0, high=1.0, high_open=True,
                          note="the multiplicative error α₁ of Mir et al. 2011, Thm 11")
    alpha2 = require_real("alpha2", alpha2, low=0.0, high=math.inf, high_open=True,
                          note="the additive error α₂ of Mir et al. 2011, Thm 11")
    return alpha1, alpha2


def union_answers(secret, queries, alpha1, alpha2, failure=0.0, decoy=None, rng=None) -> np.ndarray:
    """Answers to union queries within Mir et al. 2011's Thm 11 accuracy, except with probability
    `failure` = β each.

    An accurate answer is |x ∪ q|(1 + α₁U) + α₂V with U, V uniform on [−1, 1], inside the window
    (1 − α₁)|x ∪ q| − α₂ <= ã <= (1 + α₁)|x ∪ q| + α₂. With probability β, independently per
    answer, the answer fails: it is the exact count |d ∪ q| of a `decoy` set d (default: as many
    elements as x has, drawn outside x where there is room), a lie consistent with another
    secret. Returns the (t,) answers.
    """
    x = _database(secret, "secret")
    alpha1, alpha2 = _union_accuracy(alpha1, alpha2)
    failure = require_real("failure", failure, low=0.0, high=1.0, note="the probability β that an answer fails")
    rng = as_rng(rng)
    true = union_sizes(x, queries).astype(float)
    answers = true * (1 + alpha1 * rng.uniform(-1, 1, len(true))) + alpha2 * rng.uniform(-1, 1, len(true))
    if decoy is None:
        outside = rng.permutation(np.flatnonzero(x == 0))
        inside = rng.permutation(np.flatnonzero(x == 1))
        members = np.concatenate([outside, inside])[:int(x.sum())]
        decoy = np.zeros_like(x)
        decoy[members] = 1
    decoy = _database(decoy, "decoy")
    if decoy.shape != x.shape:
        raise ValueError(f"decoy must have the secret's length {len(x)}; got {len(decoy)}")
    fails = rng.random(len(true)) < failure
    answers[fails] = union_sizes(decoy, queries)[fails]
    return answers


def union_decoding_bound(sparsity, alpha1, alpha2) -> float:
    """4(α₁L + α₂)/(1 − α₁): how many positions a candidate consistent with every answer can
    differ from the secret, when both have at most L = `sparsity` elements and the queries
    include every set of at most L elements (Mir et al. 2011, Thm 11, derived; the paper
    states 16(α₁ + ε)L/(1 − α₁) with α₂ = εL, four times this).

    Derivation: let c be consistent and x the secret. The query q = c has |c ∪ q| = |c| and
    |x ∪ q| = |c| + |x ∖ c|; the answer lies in both windows, so
    (1 − α₁)(|c| + |x ∖ c|) − α₂ <= (1 + α₁)|c| + α₂, i.e. |x ∖ c| <= (2α₁|c| + 2α₂)/(1 − α₁).
    The query q = x bounds |c ∖ x| the same way, and |x|, |c| <= L. Attained up to rounding
    (`union_worst_case_answers`).
    """
    sparsity = require_int("sparsity", sparsity, low=0, note="the sparsity L")
    alpha1, alpha2 = _union_accuracy(alpha1, alpha2)
    return 4 * (alpha1 * sparsity + alpha2) / (1 - alpha1)


def _union_check(queries, answers, sparsity, alpha1, alpha2):
    queries = require_array("queries", queries, ndim=2, allowed={0, 1})
    answers = require_array("answers", answers, ndim=1).astype(float)
    if answers.shape != (len(queries),):
        raise ValueError(f"answers must hold one answer per query: {len(queries)}; got {answers.shape[0]}")
    n = queries.shape[1]
    sparsity = require_int("sparsity", sparsity, low=0, high=n, note="the sparsity L of the secret")
    return queries, answers, sparsity, *_union_accuracy(alpha1, alpha2)


def union_survivors(queries, answers, sparsity, alpha1, alpha2) -> np.ndarray:
    """Every set c of at most L = `sparsity` elements consistent with every answer:
    (1 − α₁)|c ∪ q| − α₂ <= ã <= (1 + α₁)|c ∪ q| + α₂ for every query q. A (K', n) 0/1
    array in the order of `sparse_subsets` (empty if the answers contradict every such set).
    """
    queries, answers, sparsity, alpha1, alpha2 = _union_check(queries, answers, sparsity, alpha1, alpha2)
    candidates = sparse_subsets(queries.shape[1], sparsity)
    keep = np.ones(len(candidates), dtype=bool)
    for start in range(0, len(candidates), 512):             # 512 candidates at a time
        sizes = union_sizes(candidates[start:start + 512], queries)
        inside = ((1 - alpha1) * sizes - alpha2 <= answers + 1e-9) & \
                 (answers <= (1 + alpha1) * sizes + alpha2 + 1e-9)
        keep[start:start + 512] = inside.all(axis=1)
    return candidates[keep]


def reconstruct_union(queries, answers, sparsity, alpha1, alpha2) -> np.ndarray:
    """Mir et al. 2011, Thm 11's decoder, in Dinur and Nissim's exhaustive style (the paper's
    proof sketch: "follows the outline of Dinur and Nissim's arguments for lower bounds
    against exponentially many queries").

    The secret x ∈ {0,1}^n has at most L = `sparsity` ones; answer ã_j is the distinct count
    of the union of x and the query set q_j, within (1 ± α₁) and ± α₂. The decoder returns the
    first set of at most L elements (smallest first, `sparse_subsets` order) consistent with
    every answer (`union_survivors`); x itself is consistent, so one exists whenever every
    answer is accurate (ValueError otherwise).

    Guarantee: if the queries include every set of at most L elements (`sparse_subsets(n, L)`,
    at most (n + 1)^L queries) and every answer is accurate, the result differs from x in at
    most `union_decoding_bound(L, α₁, α₂)` = 4(α₁L + α₂)/(1 − α₁) positions, within the
    theorem's 16(α₁ + ε)L/(1 − α₁) for α₂ = εL. Cost: K candidates × t queries, K, t <= 5,000.
    """
    survivors = union_survivors(queries, answers, sparsity, alpha1, alpha2)
    if len(survivors) == 0:
        raise ValueError(f"no set of at most {sparsity} elements is consistent with every answer: some "
                         f"answer is outside (1 ± {alpha1})·|x ∪ q| ± {alpha2}")
    return survivors[0].copy()


def union_worst_case_answers(secret, queries, sparsity, alpha1, alpha2) -> tuple[np.ndarray, np.ndarray]:
    """Accurate answers that keep a decoy as far from the secret as possible: (answers, decoy).

    The decoy is the set of at most L = `sparsity` elements farthest from x whose window
    [(1 − α₁)|d ∪ q| − α₂, (1 + α₁)|d ∪ q| + α₂] overlaps x's at every query; each answer is the
    point of x's window nearest to |d ∪ q|, so it is accurate for x and consistent with d. No
    accurate answers can do worse against `reconstruct_union`: a consistent candidate must
    overlap x's window at every query. With all sets of at most L elements as queries and
    |x| = L, the decoy swaps k = ⌊(2α₁L + 2α₂)/(1 − α₁)⌋ elements of x (fewer if x or its
    complement is smaller): 2k positions, `union_decoding_bound` up to rounding.
    """
    x = _database(secret, "secret")
    queries, _, sparsity, alpha1, alpha2 = _union_check(queries, np.zeros(len(queries)), sparsity,
                                                         alpha1, alpha2)
    if x.sum() > sparsity:
        raise ValueError(f"secret has {int(x.sum())} ones, more than sparsity = {sparsity}")
    true = union_sizes(x, queries)
    low, high = (1 - alpha1) * true - alpha2, (1 + alpha1) * true + alpha2
    candidates = sparse_subsets(len(x), sparsity)
    sizes = union_sizes(candidates, queries)
    overlap = (((1 - alpha1) * sizes - alpha2 <= high + 1e-9) &
               (low <= (1 + alpha1) * sizes + alpha2 + 1e-9)).all(axis=1)
    distance = np.where(overlap, np.abs(candidates - x).sum(axis=1), -1)
    decoy = candidates[int(np.argmax(distance))].copy()
    return np.clip(union_sizes(decoy, queries).astype(float), low, high), decoy


# ----------------------------------------------------------------------------------------
# Scoring
# ----------------------------------------------------------------------------------------

def hamming_distance(guess, database) -> int:
    """The number of rows where `guess` and `database` differ."""
    d = _database(database)
    g = _database(guess, "guess")
    if g.shape != d.shape:
        raise ValueError(f"guess must have the database's length {len(d)}; got {len(g)}")
    return int(np.sum(g != d))


def fraction_correct(guess, database) -> float:
    """The fraction of rows where `guess` equals `database` (1/2 is chance)."""
    return 1 - hamming_distance(guess, database) / len(np.asarray(database))


def guessing_ceiling(epsilon) -> float:
    """e^ε/(1 + e^ε): under ε-DP (with respect to one row), no attack guesses a uniformly
    random bit d_i correctly with probability above this, whatever else it knows.

    With a = P(guess 1 | d_i = 0): P(guess 1 | d_i = 1) <= min(e^ε a, 1 − e^−ε (1 − a)), so
    P(correct) = (P(1|1) + 1 − a)/2 is largest where the two bounds meet, a = 1/(1 + e^ε).
    0.731 at ε = 1; → 1/2 as ε → 0.
    """
    epsilon = require_real("epsilon", epsilon, low=0.0, high=math.inf)
    return 1.0 if math.isinf(epsilon) else 1 / (1 + math.exp(-epsilon))
