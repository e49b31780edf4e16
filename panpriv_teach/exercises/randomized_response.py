"""Checkers for module 02, randomized response and the local model (Dwork 2011, "randomized
response"; Local-mechanisms notes, §1 (Warner 1965)).

Random answers are checked by their law (`_laws`): the reports of 2.1 by exact binomial
tests per group of parties and per pair of neighbours, the errors of 2.5 against their exact
law (a difference of two binomials), with a false-failure probability below `_laws.ALPHA`
= 1e-7 per exercise. Deterministic answers (aggregators, exact ε, planning) are compared
exactly (relative tolerance 1e-9).
"""
from __future__ import annotations

import math

import numpy as np
from scipy import stats

from panpriv_teach.exercises import _laws
from panpriv_teach.exercises._answers import (as_numpy_array, as_pair, as_real, fresh_answer,
                                              fresh_rng, seeded)
from panpriv_teach.exercises.harness import (ExerciseFailed, attempt, call, exercise,
                                             expect_reproducible, value_of)

TOL = 1e-9  # relative tolerance for deterministic answers


def _close(a, b) -> bool:
    return bool(np.allclose(a, b, rtol=TOL, atol=TOL))


# ---------------------------------------------------------------- 2.1 the randomizer
def _reports(answer, n, what="the reports"):
    reports = as_numpy_array(answer, what, shape=(n,))
    values = set(np.unique(reports).tolist())
    if values <= {0.0, 1.0}:
        raise ExerciseFailed(f"{what} are 0s and 1s: the reports of the Local-mechanisms notes "
                             "are ±1, M_i = N_i·(−1)^{x_i} with N_i in {−1, 1}.")
    if not values <= {-1.0, 1.0}:
        raise ExerciseFailed(f"{what} contain values other than −1 and 1 "
                             f"(e.g. {sorted(values - {-1.0, 1.0})[0]:g}): each report is "
                             "N_i·(−1)^{x_i} with N_i in {−1, 1}.")
    return reports


_PARTIES = 10_000   # per bit and bias: each frequency within ±0.03 w.p. 1 - 1e-9
_SMALL_RUNS, _SMALL = 200, 100   # runs of a small database: the law of the number of liars


def _liars_law(randomize, bias, rng, where, alpha):
    """Raise unless, over _SMALL_RUNS calls on _SMALL parties, the number of parties whose
    N_i = −1 follows Binomial(_SMALL, (1 − bias)/2): each party draws its own coin (DKW)."""
    bits = np.tile([0, 1], _SMALL // 2)
    liars = np.array([int(np.sum(_reports(r, _SMALL) != 1 - 2 * bits)) for r in
                      call(randomize, bits, bias, rng=rng, repeat=_SMALL_RUNS)])
    support = np.arange(_SMALL + 1)
    if _laws.fits_discrete(liars, support, stats.binom.pmf(support, _SMALL, (1 - bias) / 2),
                           alpha):
        return
    if np.all(liars == 0):
        raise ExerciseFailed(f"on {_SMALL} parties every report is the party's own bit: no noise "
                             f"on a small database, which gives each bit away (no privacy). "
                             f"{where}")
    if len(set(liars.tolist())) == 1:
        raise ExerciseFailed(f"every call on {_SMALL} parties has exactly {liars[0]} parties "
                             "whose N_i = −1: a fixed number of them is drawn, not one "
                             "independent coin per party, and then one party's report says "
                             f"something about another's (privacy lost). {where}")
    raise ExerciseFailed(f"the number of parties whose N_i = −1 in a call on {_SMALL} parties "
                         f"(mean {liars.mean():.1f}, s.d. {liars.std():.1f}) does not follow the "
                         f"Binomial({_SMALL}, (1 − bias)/2) law of independent coins. {where}")


@exercise("2.1", "The randomizer",
          solved_by=("panpriv_teach.mechanisms.RandomizedResponse.randomize",
                     "panpriv_teach.mechanisms.RandomizedResponse.report",
                     "panpriv_teach.mechanisms.warner_response",
                     "panpriv_teach.local.DirectEncoding.randomize",
                     "panpriv_teach.local.DirectEncoding.report"))
def exercise_2_1(randomize):
    small = np.array([0, 1] * 50)
    expect_reproducible(randomize, small, 0.5, convert=lambda r: _reports(r, len(small)))
    rng = seeded(201)
    bits = np.tile([0, 1], _PARTIES)
    alpha = _laws.ALPHA / 2 / 6     # two biases, six tests each
    for bias in (0.3, 0.7):
        where = f"(case: bias {bias})"
        reports = _reports(call(randomize, bits, bias, rng=rng), len(bits))
        plus = reports == 1
        plus_for_0, plus_for_1 = plus[0::2].mean(), plus[1::2].mean()
        keep, flip = (1 + bias) / 2, (1 - bias) / 2   # P(M = +1) for a 0, for a 1
        right = (_laws.count_fits(int(plus[0::2].sum()), _PARTIES, keep, alpha=alpha)
                 and _laws.count_fits(int(plus[1::2].sum()), _PARTIES, flip, alpha=alpha))
        if right:   # independent coins N_i agree w.p. keep² + flip², at any distance
            coins = reports * (1 - 2 * bits)
            if _laws.sequence_dependence(coins, 2 * alpha, p=keep**2 + flip**2,
                                         agree=np.equal) is not None:
                raise ExerciseFailed("each report has the right probabilities, but the parties' "
                                     "coins are not independent (parties agree too often or too "
                                     "rarely, near each other or far apart: coins reused?): then "
                                     f"one party's report says something about another's bit. {where}")
            _liars_law(randomize, bias, rng, where, 2 * alpha)
            continue
        if {plus_for_0, plus_for_1} <= {0.0, 1.0}:
            raise ExerciseFailed("every party reports its bit unchanged (or every one flipped): "
                                 "no noise, or one N for everybody. Then each report gives its "
                                 f"party's bit away (no privacy). {where}")
        close = lambda f, p: abs(f - p) < 0.03
        if close(plus_for_0, flip) and close(plus_for_1, keep):
            raise ExerciseFailed("your reports say +1 mostly for x_i = 1: the report is "
                                 "N_i·(−1)^{x_i}, so a 0 is reported as +1 unless N_i flips it. "
                                 f"The aggregator of 2.2 would then count the zeros. {where}")
        if close(plus_for_0, plus_for_1):
            raise ExerciseFailed("your reports do not depend on the bits: they carry no "
                                 f"information about the data (accuracy lost). {where}")
        truth = (plus_for_0 + 1 - plus_for_1) / 2   # how often a party reports its own bit
        if close(plus_for_0, 1 - plus_for_1):
            if close(truth, bias):
                raise ExerciseFailed("you report the truth with probability `bias`; N_i = 1 "
                                     "(the truth) has probability (1 + bias)/2, so your "
                                     f"privacy and the aggregator's scale are both off. {where}")
            if close(truth, 1 - bias):
                raise ExerciseFailed("you report the truth with probability 1 − bias, as if the "
                                     "bias were a probability of lying; N_i = 1 (the truth) has "
                                     f"probability (1 + bias)/2. {where}")
        raise ExerciseFailed(f"a 0 is reported as +1 in {plus_for_0:.3f} of the cases and a 1 in "
                             f"{plus_for_1:.3f}: they should be (1 + bias)/2 and (1 − bias)/2, "
                             f"one independent N_i per party. {where}")
    return "reports N_i·(−1)^{x_i} with P(N_i = 1) = (1 + bias)/2, independent, from rng."


# ---------------------------------------------------------------- 2.2 the aggregator
_AGGREGATOR_MISTAKES = [  # (wrong formula of (n, S, b), diagnosis)
    (lambda n, s, b: -s / (2 * b), "you forgot the n/2 term: E[Σ M_i] = bias·(n − 2c), so "
     "your estimate is off by n/2 (biased)."),
    (lambda n, s, b: n / 2 + s / (2 * b), "your sign is flipped: more +1 reports mean FEWER "
     "ones (a 0 is reported as +1), so you estimate the number of zeros."),
    (lambda n, s, b: n / 2 - s / 2, "your estimate counts the reports that say 1 (M_i = −1) at "
     "face value: the bias is not undone, so it is pulled towards n/2 (biased)."),
    (lambda n, s, b: n / 2 - s, "your estimate does not undo the bias at all: its scale "
     "ignores `bias`, so it is biased."),
    (lambda n, s, b: n / 2 - s / b, "your scale is twice what unbiasedness needs: "
     "E[Σ M_i] = bias·(n − 2c), and solving for c halves it."),
    (lambda n, s, b: n / 2 - s / (2 * b * b), "your scale divides by the bias twice: the "
     "estimate is biased (E[Σ M_i] is linear in the bias)."),
    (lambda n, s, b: 0.5 - s / (2 * b * n), "you returned a fraction of the parties; the "
     "aggregate estimates the NUMBER of ones."),
]


def _rr_reports(n, bias, rng):
    bits = (rng.random(n) < 0.3).astype(int)
    noise = np.where(rng.random(n) < (1 + bias) / 2, 1, -1)
    return noise * (1 - 2 * bits)


@exercise("2.2", "The unbiased aggregator",
          solved_by=("panpriv_teach.mechanisms.RandomizedResponse.estimate",
                     "panpriv_teach.mechanisms.warner_estimate",
                     "panpriv_teach.local.DirectEncoding.estimate"))
def exercise_2_2(estimate):
    rng = seeded(202)
    seen = []
    for n, bias in ((1_000, 0.5), (37, 0.2), (5_000, 0.9)):
        reports = _rr_reports(n, bias, rng)
        where = f"estimate(<{n} reports>, {bias})"
        got = as_real(call(estimate, reports, bias), where)
        seen.append((n, int(reports.sum()), bias, got))
    wrong = [(n, s, b, got) for n, s, b, got in seen if not _close(got, n / 2 - s / (2 * b))]
    if wrong:
        n, s, bias, got = wrong[0]
        case = f"(case: {n} reports summing to {s}, bias {bias})"
        for formula, diagnosis in _AGGREGATOR_MISTAKES:   # a slip that explains every case
            if all(_close(got, formula(n, s, b)) for n, s, b, got in seen):
                raise ExerciseFailed(f"{diagnosis} {case}")
        raise ExerciseFailed(f"your estimate is {got:g}, which is not unbiased: E[Σ M_i] = "
                             f"bias·(n − 2c) for c ones. {case}")
    return "n/2 − Σ M_i/(2·bias): unbiased, since E[Σ M_i] = bias·(n − 2c)."


# ---------------------------------------------------------------- 2.3 exact epsilon
def _diagnosis_of(outcome, where) -> str:
    """The diagnosis `call` would give of an answer's Outcome that is not a value."""
    try:
        value_of(outcome, where)
    except ExerciseFailed as failure:
        return failure.diagnosis
    return ""


def _rr_channel(bias):
    return np.array([[(1 + bias) / 2, (1 - bias) / 2], [(1 - bias) / 2, (1 + bias) / 2]])


_AND = np.array([[15 / 16, 1 / 16], [13 / 16, 3 / 16], [13 / 16, 3 / 16], [7 / 16, 9 / 16]])
_CASES = [  # (channel, true ε, what it tests)
    (_rr_channel(0.5), math.log(3), "Warner's fair coins"),
    (np.array([[0.2, 0.8], [0.6, 0.4]]), math.log(3), "a channel whose worst ratio is P_1/P_0"),
    (np.array([[0.6, 0.3, 0.1], [0.5, 0.3, 0.2], [0.2, 0.3, 0.5]]), math.log(5),
     "three inputs, worst pair (0, 2)"),
    (_AND, math.log(9), "the AND of two randomized bits (inputs 00, 01, 10, 11)"),
    (np.array([[0.3, 0.7], [0.3, 0.7]]), 0.0, "identical rows"),
    (np.array([[0.5, 0.5, 0.0], [0.25, 0.75, 0.0]]), math.log(2),
     "an output that no input produces (a column of zeros)"),
    (np.array([[0.5, 0.5], [0.2, 0.8], [0.8, 0.2], [0.45, 0.55]]), math.log(4),
     "four inputs whose worst pair, (1, 2), leaves out the first and the last"),
]


def _ratios(channel):
    """ln(P[y|x]/P[y|x']) for every ordered pair of rows x ≠ x' and output y that some
    row produces, as a dict (x, x') → list."""
    used = channel.max(axis=0) > 0
    return {(a, b): [math.log(channel[a, y] / channel[b, y]) for y in np.flatnonzero(used)]
            for a in range(len(channel)) for b in range(len(channel)) if a != b}


def _one_direction(channel):
    return max(max(v) for (a, b), v in _ratios(channel).items() if a < b)


def _adjacent_rows(channel):
    return max(max(map(abs, v)) for (a, b), v in _ratios(channel).items() if b == a + 1)


def _first_row(channel):
    return max(max(map(abs, v)) for (a, b), v in _ratios(channel).items() if a == 0)


def _first_and_last(channel):
    return max(map(abs, _ratios(channel)[0, len(channel) - 1]))


def _first_two_rows(channel):
    return max(map(abs, _ratios(channel)[0, 1]))


# the pairs of inputs a partial comparison takes: (rows it needs more than, ε over those, words)
_SOME_PAIRS = ((3, _first_row, "the first input with each of the others only"),
               (3, _first_and_last, "only the first and the last inputs"),
               (2, _first_two_rows, "only the first two inputs"),
               (2, _adjacent_rows, "only neighbouring rows"))


@exercise("2.3", "The exact ε of a randomizer",
          solved_by=("panpriv_teach.local.local_epsilon", "panpriv_teach.audit.exact_epsilon"))
def exercise_2_3(channel_epsilon):
    for channel, truth, what in _CASES:
        where = f"channel_epsilon({channel.tolist()})"
        got = call(channel_epsilon, channel)
        if not (isinstance(got, (float, np.floating)) and math.isinf(got) and got > 0):
            got = as_real(got, where)
        if _close(got, truth):
            continue
        if got == math.inf:
            raise ExerciseFailed(f"wrong on {what}: you return ∞, but an output that NO input "
                                 "produces is never seen, so it reveals nothing; only an output "
                                 "possible for one input and impossible for another makes ε "
                                 f"infinite. ({where})")
        if truth > 0 and _close(got, math.exp(truth)):
            raise ExerciseFailed("you returned the largest probability RATIO; ε is its natural "
                                 f"logarithm. ({where})")
        if truth > 0 and _close(got, truth / math.log(10)):
            raise ExerciseFailed(f"you used log10: ε is a natural logarithm. ({where})")
        if _close(got, _one_direction(channel)):
            raise ExerciseFailed(f"wrong on {what}: you only looked at P(x)/P(x') for x before "
                                 "x'. The ratio can be largest the other way round, so you "
                                 f"understate the privacy loss. ({where})")
        if abs(got - truth) < 1e-4:
            raise ExerciseFailed(f"your ε is off by {abs(got - truth):.1g}: rounded? Return it "
                                 f"unrounded: it decides the noise of everything built on it. ({where})")
        for rows, partial, compared in _SOME_PAIRS:
            if len(channel) > rows and _close(got, partial(channel)):
                raise ExerciseFailed(f"wrong on {what}: you compared {compared}, but Definition "
                                     "2.1 takes every pair of inputs x, x': you understate the "
                                     f"privacy loss. ({where})")
        raise ExerciseFailed(f"wrong on {what}: ε is the max over inputs x, x' and outputs y of "
                             f"ln(P[y | x] / P[y | x']). ({where})")
    impossible = np.array([[1.0, 0.0], [0.5, 0.5]])
    where = "channel_epsilon([[1, 0], [0.5, 0.5]])"
    outcome = attempt(channel_epsilon, impossible)
    if outcome.kind != "returned":     # its exception, with the student's line
        raise ExerciseFailed("on the channel [[1, 0], [0.5, 0.5]] the output 1 is impossible for "
                             "input 0 and possible for input 1, so ε is infinite; your function "
                             "does not return it: " + _diagnosis_of(outcome, where))
    got = outcome.value
    got = float(got) if isinstance(got, (int, float, np.floating, np.integer)) else None
    if got != math.inf:
        raise ExerciseFailed("on the channel [[1, 0], [0.5, 0.5]] the output 1 is impossible for "
                             "input 0 and possible for input 1: seeing it reveals the input, so "
                             "ε is infinite, and your function does not say so.")
    return "ε = max |ln P[y|x] − ln P[y|x']| over all pairs; the AND channel gives ln 9."


# ---------------------------------------------------------------- 2.4 planning
def _judge_plan(answer, epsilon, n, where):
    """Raise the diagnosis of `answer`, what plan(epsilon, n) returned."""
    answer = as_pair(answer, "plan(epsilon, n) should return a pair (bias, std)")
    bias = as_real(answer[0], "the bias")
    std = as_real(answer[1], "the predicted std")
    right = math.tanh(epsilon / 2)
    if not _close(bias, right):
        if _close(bias, epsilon / 2):
            raise ExerciseFailed("bias = ε/2 inverts the notes' first-order '2ε + O(ε²)', "
                                 "not the exact privacy ln((1 + b)/(1 − b)): your privacy is "
                                 f"not exactly ε. ({where})")
        if _close(bias, epsilon):
            raise ExerciseFailed("the bias is not ε: RR with bias b is "
                                 "ln((1 + b)/(1 − b))-private, so yours spends about 2ε. "
                                 f"({where})")
        if _close(bias, math.tanh(epsilon)):
            raise ExerciseFailed("your bias gives privacy 2ε: ln((1 + b)/(1 − b)) equals ε "
                                 f"for a smaller b (a factor 2 was lost). ({where})")
        if _close(bias, (1 + right) / 2):
            raise ExerciseFailed("you returned P(N_i = 1) = e^ε/(1 + e^ε), not the bias b "
                                 f"with P(N_i = 1) = (1 + b)/2. ({where})")
        if not 0 < bias < 1:
            raise ExerciseFailed(f"for ε = {epsilon:.3g} your bias is {bias:g}, outside "
                                 f"(0, 1). ({where})")
        raise ExerciseFailed(f"for ε = {epsilon:.3g} your bias gives privacy "
                             f"{math.log((1 + bias) / (1 - bias)):.4g}; it must give "
                             f"exactly ε. ({where})")
    expected = math.sqrt((1 - bias**2) * n) / (2 * bias)
    if _close(std, expected):
        return
    if _close(std, math.sqrt(n) / (2 * bias)):
        raise ExerciseFailed("your std misses a factor: Var M_i is 1 − b², not 1, so you "
                             f"overstate the error. ({where})")
    if _close(std, (1 - bias**2) * n / (2 * bias)**2):
        raise ExerciseFailed("you returned the variance; the standard deviation is its "
                             f"square root. ({where})")
    if _close(std, math.sqrt(1 - bias**2) * n / (2 * bias)):
        raise ExerciseFailed("your std grows like n; the variance of the sum grows like n, "
                             f"so the std grows like √n. ({where})")
    if _close(std, math.sqrt((1 - bias**2) * n) / bias):
        raise ExerciseFailed("your std is twice too large: the aggregator divides the sum "
                             f"by 2b, not by b. ({where})")
    raise ExerciseFailed(f"for ε = {epsilon:.3g} and n = {n} your predicted std is off: the "
                         "estimate is n/2 − Σ M_i/(2b) and the M_i are independent. "
                         f"({where})")


@exercise("2.4", "Pick the bias, predict the error",
          solved_by=("panpriv_teach.mechanisms.RandomizedResponse.from_epsilon",
                     "panpriv_teach.mechanisms.RandomizedResponse.std",
                     "panpriv_teach.mechanisms.RandomizedResponse.variance",
                     "panpriv_teach.local.DirectEncoding.std"))
def exercise_2_4(plan):
    fixed = []
    for epsilon, n in ((math.log(3), 10_000), (0.1, 1_000_000), (3.0, 500)):
        fixed.append(call(plan, epsilon, n))
        _judge_plan(fixed[-1], epsilon, n, f"plan({epsilon:.4g}, {n})")
    fresh = fresh_rng("2.4")
    epsilon, n = float(fresh.uniform(0.05, 5.0)), int(fresh.integers(10, 10_000_000))
    where = f"plan({epsilon!r}, {n})"
    fresh_answer(plan, (epsilon, n), fixed, where,
                 lambda got: _judge_plan(got, epsilon, n, where))
    return "bias = tanh(ε/2) (exactly ε), std = √((1 − b²) n)/(2b)."


# ---------------------------------------------------------------- 2.5 the √n law
def _error_law(n0, n1, bias):
    """The exact law of D = A − B for the error (n/2 − Σ M_i/(2b)) − c of one run, A and B
    the parties with N_i = 1 among the n0 zeros and the n1 ones: Binomial(n0, p) minus
    Binomial(n1, p), p = (1 + b)/2. Returns (support, pmf)."""
    p = (1 + bias) / 2
    a = stats.binom.pmf(np.arange(n0 + 1), n0, p)
    b = stats.binom.pmf(np.arange(n1 + 1), n1, p)
    return np.arange(-n1, n0 + 1), np.convolve(a, b[::-1])


_TRIALS = 1_000
# (n, ones): the √n law from 40 to 1,600 parties; 13 ones at bias 0.6 (13·0.6 is not whole,
# so an error computed for other bits is off the lattice of this one's); a single one,
# where estimates below 0 are frequent (a clipped estimate shows)
_ERROR_CASES = ((40, 13), (1_600, 400), (40, 1))


@exercise("2.5", "Error grows like √n")
def exercise_2_5(simulate_errors):
    small = (np.arange(60) % 3 == 0).astype(int)
    expect_reproducible(simulate_errors, small, 0.5, 20,
                        convert=lambda e: as_numpy_array(e, "the errors", shape=(20,)))
    rng = seeded(205)
    bias, alpha = 0.6, _laws.ALPHA / 2 / len(_ERROR_CASES)   # per case: its law, its order
    stds = {}
    for n, n1 in _ERROR_CASES:
        bits = np.zeros(n, dtype=int)
        bits[np.arange(n1) * (n // n1)] = 1
        n0 = n - n1
        where = f"(case: n = {n} with {n1} ones, bias {bias}, {_TRIALS} trials)"
        errors = as_numpy_array(call(simulate_errors, bits, bias, _TRIALS, rng=rng),
                                f"simulate_errors(bits, {bias}, {_TRIALS}, rng)", shape=(_TRIALS,))
        formula = math.sqrt((1 - bias**2) * n) / (2 * bias)
        stds.setdefault(n, float(errors.std()))
        # error = n/2 − c − (2A − n0 − 2B + n1)/(2b): recover D = A − B, an integer
        support, pmf = _error_law(n0, n1, bias)

        def lattice(values):   # value = n/2 − n1 − (2D − n0 + n1)/(2b), D = A − B
            return ((n / 2 - n1 - values) * 2 * bias + n0 - n1) / 2

        def follows_law(values):
            d = lattice(values)
            return bool(np.all(np.abs(d - np.round(d)) < 1e-6)) and _laws.fits_discrete(
                np.round(d), support, pmf, alpha)

        if follows_law(errors):   # and independent trials: equal at lag L w.p. Σ pmf²
            if _laws.sequence_dependence(np.round(lattice(errors)), alpha,
                                         p=float(np.sum(pmf**2)), agree=np.equal) is None:
                continue
            raise ExerciseFailed("each error has the right law, but the trials are not "
                                 "independent (equal errors follow each other, near or far, "
                                 "too often: a randomization used twice, or the errors "
                                 "sorted?): then they do not measure the spread of fresh "
                                 f"randomizations. {where}")
        if np.all(errors == errors[0]):
            raise ExerciseFailed("all your trials give the same error: the noise is drawn once "
                                 "and reused, so the spread of the errors is not measured. "
                                 f"{where}")
        if follows_law(errors - n1):
            raise ExerciseFailed("your values centre on the true count: they are the estimates, "
                                 f"not the ERRORS (estimate − true count). {where}")
        estimates = n / 2 - n1 - (2 * support - n0 + n1) / (2 * bias) + n1
        if (np.min(errors) >= -n1 and np.max(errors) <= n0 and np.sum(pmf[estimates < 0]) > 0.05
                and np.mean(errors == -n1) > np.sum(pmf[np.isclose(estimates, 0)]) + 0.05):
            raise ExerciseFailed("your estimates are clipped to [0, n] before the error is taken: "
                                 "a clipped estimate is biased (accuracy), and its errors no "
                                 f"longer show the spread of the estimator. {where}")
        zeros = ((n / 2 - errors) * 2 * bias + n) / 2   # D for a database of zeros
        if np.all(np.abs(zeros - np.round(zeros)) < 1e-6) and _laws.fits_discrete(
                np.round(zeros), *_error_law(n, 0, bias), alpha):
            raise ExerciseFailed("your errors are those of a database of zeros: the bits are not "
                                 "randomized, so the errors of THIS database are not measured "
                                 f"(they differ in law when it has ones). {where}")
        if np.all(errors >= 0):
            raise ExerciseFailed("your errors are never negative: absolute errors, not the "
                                 f"signed estimate − true count. {where}")
        if abs(np.mean(errors)) > 6 * formula / math.sqrt(_TRIALS):
            raise ExerciseFailed(f"your errors average {errors.mean():.2f}, far from 0: the "
                                 "aggregator is unbiased, so something else than the error of an "
                                 f"estimate is measured. {where}")
        ratio = float(errors.std()) / formula
        if abs(ratio - 1) > 0.1:
            raise ExerciseFailed(f"your errors have standard deviation {ratio:.2f} times "
                                 "√((1 − b²) n)/(2b), the spread of randomized response's "
                                 "errors: the randomizer or the aggregator differs from exercises "
                                 f"2.1 and 2.2. {where}")
        raise ExerciseFailed("your errors do not follow the law of randomized response's "
                             "errors (each error is (n/2 − Σ M_i/(2b)) − c for a fresh "
                             f"randomization of the same bits). {where}")
    return f"n × 40 multiplies the error by {stds[1_600] / stds[40]:.1f} ≈ √40 = 6.3."


# ---------------------------------------------------------------- 2.6 local histogram
def _krr(k, epsilon):
    weight = math.exp(epsilon)
    return weight / (weight + k - 1), 1 / (weight + k - 1)


@exercise("2.6", "A local histogram",
          solved_by=("panpriv_teach.local.DirectEncoding.estimate",))
def exercise_2_6(estimate_histogram):
    rng = seeded(206)
    # the last case: 40 reports of k = 6 values, none of them 2 or 5 (the largest): their
    # estimates are negative, and a count of each value must still be there
    for n, k, epsilon in ((2_000, 4, math.log(3)), (500, 7, 2.0), (3_000, 3, 0.5), (40, 6, 3.0)):
        p, q = _krr(k, epsilon)
        if n == 40:
            reports = rng.choice([0, 1, 3, 4], n)
        else:
            values = rng.integers(0, k, n)
            keep = rng.random(n) < p
            other = rng.integers(0, k - 1, n)
            other += other >= values
            reports = np.where(keep, values, other)
        counts = np.bincount(reports, minlength=k).astype(float)
        where = f"estimate_histogram(<{n} reports>, {k}, {epsilon:.3g})"
        got = call(estimate_histogram, reports, k, epsilon)
        unreported = np.flatnonzero(counts == 0).tolist()
        if unreported and np.ndim(got) == 1 and len(got) < k:
            raise ExerciseFailed(f"no report names the values {unreported}, and your result has "
                                 f"only {len(got)} counts for k = {k} values: every value gets "
                                 "an estimate, a negative one for a value nobody reported "
                                 f"(np.bincount needs minlength=k; np.unique drops them). ({where})")
        got = as_numpy_array(got, where, shape=(k,))
        if _close(got, (counts - n * q) / (p - q)):
            continue
        unbiased = (counts - n * q) / (p - q)
        if np.all(got >= 0) and np.any(unbiased < 0) and _close(got[unbiased > 0], unbiased[
                unbiased > 0]) or (np.all(got >= 0) and np.any(unbiased < 0)
                                   and _close(got.sum(), n)):
            raise ExerciseFailed("your estimates are never negative: clipped at 0 (and perhaps "
                                 "rescaled to sum to n). The estimate of a value few parties hold "
                                 "is negative about as often as positive, so clipping biases it "
                                 f"upward (accuracy). ({where})")
        p2 = math.exp(epsilon) / (math.exp(epsilon) + 1)
        mistakes = [
            (counts, "you returned the raw counts of the reports: they are pulled towards n/k "
                     "(biased), the randomization is not undone."),
            (counts / (p - q), "your counts include the reports that land on v by chance "
                               "(n·q of them): biased upward."),
            (counts - n * q, "your counts are not rescaled: a party holding v reports it with "
                             "probability p, others with q, so the difference p − q shrinks "
                             "them (biased)."),
            ((counts - n * (1 - p2)) / (2 * p2 - 1), "you used the two-value probabilities "
             "e^ε/(e^ε + 1): with k values p and q both involve k − 1 (biased)."),
            ((counts - n * q) / p, "you rescaled by p, but E[C_v] = c_v (p − q) + n q: biased."),
            ((counts - n * (1 - p) / k) / (p - (1 - p) / k), "q is the probability of one "
             "particular OTHER value, and there are k − 1 of them, not k: biased."),
        ]
        for wrong, diagnosis in mistakes:
            if _close(got, wrong) or _close(got, wrong / n):
                raise ExerciseFailed(f"{diagnosis} ({where})")
        if _close(got * n, (counts - n * q) / (p - q)):
            raise ExerciseFailed(f"you returned frequencies; the task asks for counts. ({where})")
        raise ExerciseFailed(f"on {n} reports over k = {k} values with ε = {epsilon:.3g} your "
                             "counts are not unbiased: E[C_v] = c_v p + (n − c_v) q.")
    return "(C_v − n q)/(p − q): an unbiased local histogram."
