"""Module 02's mutation table: each exercise's realistic mistakes (with the words the
diagnosis must contain) and several correct answers written differently."""
import math

import numpy as np

from checker_testing import Table
from panpriv_teach.mechanisms import RandomizedResponse

table = Table("randomized_response")
correct, mistake = table.correct, table.mistake


# ---------------------------------------------------------------- 2.1
@correct("2.1", "a vector of uniforms against (1 + b)/2")
def randomize(bits, bias, rng):
    N = np.where(rng.random(len(bits)) < (1 + bias) / 2, 1, -1)
    return N * (1 - 2 * np.asarray(bits))


@correct("2.1", "a loop, one draw per party")
def _(bits, bias, rng):
    out = np.empty(len(bits), dtype=int)
    for i, x in enumerate(bits):
        n = 1 if rng.random() < (1 + bias) / 2 else -1
        out[i] = n * (-1) ** int(x)
    return out


@correct("2.1", "rng.choice with probabilities")
def _(bits, bias, rng):
    N = rng.choice([1, -1], size=len(bits), p=[(1 + bias) / 2, (1 - bias) / 2])
    return N * np.where(np.asarray(bits) == 1, -1, 1)


@correct("2.1", "binomial coins, floats")
def _(bits, bias, rng):
    N = 2.0 * rng.binomial(1, (1 + bias) / 2, size=len(bits)) - 1
    return N * (1.0 - 2.0 * np.asarray(bits, dtype=float))


@mistake("2.1", "0/1 reports instead of ±1", "0s and 1s")
def _(bits, bias, rng):
    keep = rng.random(len(bits)) < (1 + bias) / 2
    return np.where(keep, bits, 1 - bits)


@mistake("2.1", "the truth with probability `bias`", "probability `bias`")
def _(bits, bias, rng):
    N = np.where(rng.random(len(bits)) < bias, 1, -1)
    return N * (1 - 2 * bits)


@mistake("2.1", "the truth with probability 1 − bias", "1 − bias")
def _(bits, bias, rng):
    N = np.where(rng.random(len(bits)) < 1 - bias, 1, -1)
    return N * (1 - 2 * bits)


@mistake("2.1", "(−1)^x the other way round (a 1 reported as +1)", "mostly for x_i = 1")
def _(bits, bias, rng):
    N = np.where(rng.random(len(bits)) < (1 + bias) / 2, 1, -1)
    return N * (2 * bits - 1)


@mistake("2.1", "one N for everybody", "one n for everybody", "no privacy")
def _(bits, bias, rng):
    N = 1 if rng.random() < (1 + bias) / 2 else -1
    return N * (1 - 2 * bits)


@mistake("2.1", "no noise at all", "unchanged")
def _(bits, bias, rng):
    return 1 - 2 * bits


@mistake("2.1", "reports that ignore the bits", "do not depend on the bits")
def _(bits, bias, rng):
    return np.where(rng.random(len(bits)) < (1 + bias) / 2, 1, -1)


@mistake("2.1", "N drawn from {0, 1} (a Bernoulli, not ±1)", "other than −1 and 1")
def _(bits, bias, rng):
    N = (rng.random(len(bits)) < (1 + bias) / 2).astype(int)
    return N * (1 - 2 * bits)


@mistake("2.1", "the reports written into `bits` (the input changed)", "in place")
def _(bits, bias, rng):
    bits[:] = randomize(bits, bias, rng)
    return bits


@mistake("2.1", "paired parties sharing one coin (not independent)", "not independent")
def _(bits, bias, rng):
    coins = np.where(rng.random((len(bits) + 1) // 2) < (1 + bias) / 2, 1, -1)
    return np.repeat(coins, 2)[:len(bits)] * (1 - 2 * bits)


@mistake("2.1", "noise from np.random", "somewhere other than")
def _(bits, bias, rng):
    N = np.where(np.random.random(len(bits)) < (1 + bias) / 2, 1, -1)
    return N * (1 - 2 * bits)


# ---------------------------------------------------------------- 2.2
@correct("2.2", "n/2 − ΣM/(2b)")
def estimate(reports, bias):
    return len(reports) / 2 - np.sum(reports) / (2 * bias)


@correct("2.2", "from the number of −1 reports")
def _(reports, bias):
    says_one = np.count_nonzero(np.asarray(reports) == -1)
    return (says_one - len(reports) * (1 - bias) / 2) / bias


@correct("2.2", "from the mean report, a loop")
def _(reports, bias):
    total = 0
    for m in reports:
        total += int(m)
    return len(reports) * (1 - total / len(reports) / bias) / 2


@mistake("2.2", "the n/2 term forgotten", "n/2 term")
def _(r, b):
    return -np.sum(r) / (2 * b)


@mistake("2.2", "the sign flipped", "sign is flipped")
def _(r, b):
    return len(r) / 2 + np.sum(r) / (2 * b)


@mistake("2.2", "the reports that say 1 counted at face value", "face value")
def _(r, b):
    return float(np.sum(np.asarray(r) == -1))


@mistake("2.2", "scale 1/b instead of 1/(2b)", "twice what unbiasedness needs")
def _(r, b):
    return len(r) / 2 - np.sum(r) / b


@mistake("2.2", "scale 1/(2b²)", "bias twice")
def _(r, b):
    return len(r) / 2 - np.sum(r) / (2 * b * b)


@mistake("2.2", "a fraction instead of a number of ones", "fraction")
def _(r, b):
    return 0.5 - np.sum(r) / (2 * b * len(r))


@mistake("2.2", "the reports recoded to 0/1 in place", "in place")
def _(r, b):
    r[r == -1] = 0
    return len(r) - np.sum(r) - len(r) * (1 - b) / 2 / b


@mistake("2.2", "per-party estimates instead of one number", "single number")
def _(r, b):
    return (1 - np.asarray(r) / b) / 2


# ---------------------------------------------------------------- 2.3
@correct("2.3", "log-ratios by broadcasting, unused outputs dropped")
def channel_epsilon(channel):
    channel = np.asarray(channel, dtype=float)
    channel = channel[:, channel.max(axis=0) > 0]
    if np.any(channel == 0):
        return math.inf
    logs = np.log(channel)
    return float(np.max(logs[:, None, :] - logs[None, :, :]))


@correct("2.3", "loops over pairs of rows and outputs")
def _(channel):
    worst = 0.0
    for y in range(channel.shape[1]):
        column = channel[:, y]
        if column.max() == 0:
            continue
        for a in column:
            for b in column:
                if b == 0 and a > 0:
                    return math.inf
                if b > 0:
                    worst = max(worst, math.log(a / b) if a > 0 else 0.0)
    return worst


@correct("2.3", "per output, the log of the largest over the smallest probability")
def _(channel):
    eps = 0.0
    for column in np.asarray(channel).T:
        if column.max() > 0:
            eps = max(eps, np.inf if column.min() == 0 else np.log(column.max() / column.min()))
    return float(eps)


@mistake("2.3", "the ratio instead of its logarithm", "ratio")
def _(ch):
    ch = ch[:, ch.max(axis=0) > 0]
    return float(np.max(ch[:, None, :] / ch[None, :, :]))


@mistake("2.3", "log10 instead of the natural log", "log10")
def _(ch):
    return channel_epsilon(ch) / math.log(10)


@mistake("2.3", "one direction only (x before x')", "before x'")
def _(ch):
    ch = ch[:, ch.max(axis=0) > 0]
    logs = np.log(ch)
    return max(float(np.max(logs[a] - logs[b])) for a in range(len(ch))
               for b in range(a + 1, len(ch)))


@mistake("2.3", "only the first two inputs compared", "first two inputs")
def _(ch):
    ch = ch[:, ch.max(axis=0) > 0]
    return float(np.max(np.abs(np.log(ch[0]) - np.log(ch[1]))))


@mistake("2.3", "only neighbouring rows compared", "neighbouring rows")
def _(ch):
    ch = ch[:, ch.max(axis=0) > 0]
    logs = np.log(ch)
    return float(np.max(np.abs(np.diff(logs, axis=0))))


@mistake("2.3", "an output that nobody produces counted as infinite", "no input")
def _(ch):
    if np.any(ch == 0):
        return math.inf
    logs = np.log(ch)
    return float(np.max(logs[:, None, :] - logs[None, :, :]))


@mistake("2.3", "no ∞ for an impossible output (division by zero → nan)", "infinite")
def _(ch):
    ch = ch[:, ch.max(axis=0) > 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(ch)
        return float(np.nanmax(np.where(np.isfinite(logs[:, None, :] - logs[None, :, :]),
                                        logs[:, None, :] - logs[None, :, :], np.nan)))


# ---------------------------------------------------------------- 2.4
@correct("2.4", "(e^ε − 1)/(e^ε + 1)")
def plan(epsilon, n):
    bias = (math.exp(epsilon) - 1) / (math.exp(epsilon) + 1)
    return bias, math.sqrt((1 - bias**2) * n) / (2 * bias)


@correct("2.4", "tanh(ε/2), the variance first")
def _(epsilon, n):
    b = np.tanh(epsilon / 2)
    variance = n * (1 - b * b) / (4 * b * b)
    return float(b), float(np.sqrt(variance))


@correct("2.4", "bisection for b, a list")
def _(epsilon, n):
    low, high = 0.0, 1.0
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if math.log((1 + middle) / (1 - middle)) < epsilon else (low, middle)
    b = (low + high) / 2
    return [b, math.sqrt(n - n * b * b) / (2 * b)]


@mistake("2.4", "bias = ε/2 (the first-order approximation)", "first-order")
def _(e, n):
    b = e / 2
    return b, math.sqrt((1 - b**2) * n) / (2 * b)


@mistake("2.4", "bias = ε", "the bias is not ε")
def _(e, n):
    return e, math.sqrt((1 - e**2) * n) / (2 * e) if e < 1 else 1.0


@mistake("2.4", "bias = tanh(ε) (the factor 2 lost)", "privacy 2ε")
def _(e, n):
    b = math.tanh(e)
    return b, math.sqrt((1 - b**2) * n) / (2 * b)


@mistake("2.4", "P(N = 1) returned instead of the bias", "e^ε/(1 + e^ε)")
def _(e, n):
    return math.exp(e) / (1 + math.exp(e)), 1.0


@mistake("2.4", "std without √(1 − b²)", "1 − b²")
def _(e, n):
    b = math.tanh(e / 2)
    return b, math.sqrt(n) / (2 * b)


@mistake("2.4", "the variance instead of the std", "variance")
def _(e, n):
    b = math.tanh(e / 2)
    return b, (1 - b**2) * n / (2 * b) ** 2


@mistake("2.4", "a std growing like n", "grows like n")
def _(e, n):
    b = math.tanh(e / 2)
    return b, math.sqrt(1 - b**2) * n / (2 * b)


@mistake("2.4", "the 2 of 1/(2b) forgotten in the std", "twice too large")
def _(e, n):
    b = math.tanh(e / 2)
    return b, math.sqrt((1 - b**2) * n) / b


# ---------------------------------------------------------------- 2.5
@correct("2.5", "a (trials, n) array of coins")
def simulate_errors(bits, bias, trials, rng):
    bits = np.asarray(bits)
    N = np.where(rng.random((trials, len(bits))) < (1 + bias) / 2, 1, -1)
    reports = N * (1 - 2 * bits)
    return len(bits) / 2 - reports.sum(axis=1) / (2 * bias) - bits.sum()


@correct("2.5", "a loop with the library's RandomizedResponse")
def _(bits, bias, trials, rng):
    rr = RandomizedResponse(bias)
    return np.array([rr.estimate(rr.randomize(bits, rng)) - np.sum(bits)
                     for _ in range(trials)])


@correct("2.5", "two binomials: the coins of the zeros and of the ones")
def _(bits, bias, trials, rng):
    bits = np.asarray(bits)
    n, ones = len(bits), int(bits.sum())
    a = rng.binomial(n - ones, (1 + bias) / 2, trials)   # zeros reported as +1
    b = rng.binomial(ones, (1 + bias) / 2, trials)       # ones reported as −1
    total = (2 * a - (n - ones)) - (2 * b - ones)
    return n / 2 - total / (2 * bias) - ones


@mistake("2.5", "the estimates instead of the errors", "estimates")
def _(bits, b, t, rng):
    return simulate_errors(bits, b, t, rng) + np.sum(bits)


@mistake("2.5", "one randomization reused in every trial", "same error")
def _(bits, b, t, rng):
    return np.repeat(simulate_errors(bits, b, 1, rng), t)


@mistake("2.5", "absolute errors", "never negative")
def _(bits, b, t, rng):
    return np.abs(simulate_errors(bits, b, t, rng))


@mistake("2.5", "the truth reported with probability b (the bias misread)", "average")
def _(bits, b, t, rng):
    N = np.where(rng.random((t, len(bits))) < b, 1, -1)
    reports = N * (1 - 2 * bits)
    return len(bits) / 2 - reports.sum(axis=1) / (2 * b) - bits.sum()


@mistake("2.5", "the aggregator's scale 1/b", "average")
def _(bits, b, t, rng):
    N = np.where(rng.random((t, len(bits))) < (1 + b) / 2, 1, -1)
    reports = N * (1 - 2 * bits)
    return len(bits) / 2 - reports.sum(axis=1) / b - bits.sum()


@mistake("2.5", "Gaussian draws with the formula's standard deviation (no simulation)",
         "do not follow the law")
def _(bits, b, t, rng):
    return rng.normal(0, math.sqrt((1 - b * b) * len(bits)) / (2 * b), t)


@mistake("2.5", "a list instead of a numpy array", "numpy array")
def _(bits, b, t, rng):
    return list(simulate_errors(bits, b, t, rng))


# ---------------------------------------------------------------- 2.6
@correct("2.6", "(C − nq)/(p − q) with bincount")
def estimate_histogram(reports, k, epsilon):
    p = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    q = 1 / (math.exp(epsilon) + k - 1)
    counts = np.bincount(reports, minlength=k)
    return (counts - len(reports) * q) / (p - q)


@correct("2.6", "a loop over the values")
def _(reports, k, epsilon):
    e = math.exp(epsilon)
    p, q = e / (e + k - 1), 1 / (e + k - 1)
    n = len(reports)
    return np.array([(np.sum(reports == v) - n * q) / (p - q) for v in range(k)])


@correct("2.6", "solving the channel's linear system")
def _(reports, k, epsilon):
    e = math.exp(epsilon)
    channel = np.full((k, k), 1 / (e + k - 1)) + np.eye(k) * (e - 1) / (e + k - 1)
    return np.linalg.solve(channel, np.bincount(reports, minlength=k).astype(float))


@mistake("2.6", "the raw counts of the reports", "raw counts")
def _(r, k, e):
    return np.bincount(r, minlength=k).astype(float)


@mistake("2.6", "n·q not subtracted", "by chance")
def _(r, k, e):
    p, q = math.exp(e) / (math.exp(e) + k - 1), 1 / (math.exp(e) + k - 1)
    return np.bincount(r, minlength=k) / (p - q)


@mistake("2.6", "not divided by p − q", "not rescaled")
def _(r, k, e):
    q = 1 / (math.exp(e) + k - 1)
    return np.bincount(r, minlength=k) - len(r) * q


@mistake("2.6", "the two-value probabilities e^ε/(e^ε + 1)", "two-value")
def _(r, k, e):
    p = math.exp(e) / (math.exp(e) + 1)
    return (np.bincount(r, minlength=k) - len(r) * (1 - p)) / (2 * p - 1)


@mistake("2.6", "divided by p instead of p − q", "rescaled by p")
def _(r, k, e):
    p, q = math.exp(e) / (math.exp(e) + k - 1), 1 / (math.exp(e) + k - 1)
    return (np.bincount(r, minlength=k) - len(r) * q) / p


@mistake("2.6", "q = (1 − p)/k", "k − 1 of them")
def _(r, k, e):
    p = math.exp(e) / (math.exp(e) + k - 1)
    q = (1 - p) / k
    return (np.bincount(r, minlength=k) - len(r) * q) / (p - q)


@mistake("2.6", "frequencies instead of counts", "frequencies")
def _(r, k, e):
    return estimate_histogram(r, k, e) / len(r)


# ---------------------------------------------------------------- from the red team's run
@mistake("2.1", "a fixed number of liars, round(n(1 − b)/2), chosen without replacement",
         "fixed number")
def _(bits, bias, rng):
    n = len(bits)
    coins = np.ones(n, int)
    coins[rng.choice(n, size=round(n * (1 - bias) / 2), replace=False)] = -1
    return coins * (1 - 2 * np.asarray(bits))


@mistake("2.1", "the first half's coins reused for the second half", "not independent")
def _(bits, bias, rng):
    n = len(bits)
    half = np.where(rng.random((n + 1) // 2) < (1 + bias) / 2, 1, -1)
    return np.concatenate([half, half])[:n] * (1 - 2 * np.asarray(bits))


@mistake("2.1", "no noise on small databases (fewer than 200 parties)", "small database")
def _(bits, bias, rng):
    bits = np.asarray(bits)
    coins = np.where(rng.random(len(bits)) < (1 + bias) / 2, 1, -1)
    if len(bits) < 200:
        coins[:] = 1
    return coins * (1 - 2 * bits)


@correct("2.1", "the reports made in sorted order, put back in place")
def _(bits, bias, rng):
    bits = np.asarray(bits)
    order = np.argsort(bits, kind="stable")
    coins = np.where(rng.random(len(bits)) < (1 + bias) / 2, 1, -1)
    out = np.empty(len(bits), int)
    out[order] = coins * (1 - 2 * bits[order])
    return out


@correct("2.1", "2·Binomial(1, (1 + b)/2) − 1 times (−1)**bits")
def _(bits, bias, rng):
    return (2 * rng.binomial(1, (1 + bias) / 2, size=len(bits)) - 1) * (-1) ** np.asarray(bits)


@correct("2.1", "a list comprehension of uniforms, int8 reports")
def _(bits, bias, rng):
    return np.array([(1 if b == 0 else -1) * (1 if rng.uniform() <= (1 + bias) / 2 else -1)
                     for b in bits], dtype=np.int8)


@mistake("2.2", "the estimate clipped to [0, n]", "not unbiased")
def _(r, b):
    return float(np.clip(len(r) / 2 - np.sum(r) / (2 * b), 0, len(r)))


@correct("2.2", "exact in fractions")
def _(reports, bias):
    from fractions import Fraction
    return float(Fraction(len(reports), 2) - Fraction(int(np.sum(reports))) / (2 * Fraction(bias)))


@mistake("2.3", "the first input compared with each of the others only", "first input")
def _(ch):
    c = np.asarray(ch, float)
    c = c[:, c.max(axis=0) > 0]
    if np.any(c == 0):
        return math.inf
    logs = np.log(c)
    return float(np.max(np.abs(logs[0][None, :] - logs[1:])))


@mistake("2.3", "only the first and the last inputs compared", "first and the last")
def _(ch):
    c = np.asarray(ch, float)
    c = c[:, c.max(axis=0) > 0]
    if np.any(c == 0):
        return math.inf
    return float(np.max(np.abs(np.log(c[0]) - np.log(c[-1]))))


@mistake("2.3", "ε rounded to 4 decimals", "rounded")
def _(ch):
    return round(channel_epsilon(ch), 4)


@mistake("2.3", "math.log(0) for an output impossible for one input (it raises)",
         "math domain error", "at line")
def _(channel):
    c = np.asarray(channel, float)
    best = 0.0
    for a in range(len(c)):
        for b in range(len(c)):
            for y in range(c.shape[1]):
                if c[a, y] == 0 and c[b, y] == 0:
                    continue
                best = max(best, math.log(c[a, y]) - math.log(c[b, y]))
    return best


@correct("2.3", "outputs with a zero dropped, ∞ first when one input cannot produce one")
def _(channel):
    c = np.asarray(channel, float)
    if np.any((c == 0).any(axis=0) & (c > 0).any(axis=0)):
        return math.inf
    logs = np.log(c[:, (c > 0).all(axis=0)])
    return float(np.max(logs[:, None, :] - logs[None, :, :]))


@correct("2.3", "itertools over ordered pairs, zero numerators skipped")
def _(channel):
    import itertools
    c = np.asarray(channel, float)
    best = 0.0
    for a, b in itertools.permutations(range(len(c)), 2):
        for y in range(c.shape[1]):
            if c[a, y] == 0:
                continue
            if c[b, y] == 0:
                return float("inf")
            best = max(best, math.log(c[a, y] / c[b, y]))
    return best


@correct("2.4", "a numpy array of the two")
def _(epsilon, n):
    b = np.tanh(epsilon / 2)
    return np.array([b, np.sqrt((1 - b**2) * n) / (2 * b)])


@correct("2.4", "from p = e^ε/(1 + e^ε), numpy floats in a tuple")
def _(epsilon, n):
    p = np.exp(epsilon) / (1 + np.exp(epsilon))
    b = 2 * p - 1
    return b, np.sqrt(n * 4 * p * (1 - p)) / (2 * b)


@mistake("2.4", "the std with n − 1 (a sample-variance habit)", "predicted std is off")
def _(epsilon, n):
    b = math.tanh(epsilon / 2)
    return b, math.sqrt((1 - b * b) * (n - 1)) / (2 * b)


def _errors(bits, bias, trials, rng):
    bits = np.asarray(bits)
    n = len(bits)
    coins = np.where(rng.random((trials, n)) < (1 + bias) / 2, 1, -1)
    return n / 2 - (coins * (1 - 2 * bits)).sum(axis=1) / (2 * bias) - bits.sum()


@mistake("2.5", "the estimates clipped to [0, n] before the error", "clipped")
def _(bits, bias, trials, rng):
    bits = np.asarray(bits)
    n = len(bits)
    return np.clip(_errors(bits, bias, trials, rng) + bits.sum(), 0, n) - bits.sum()


@mistake("2.5", "the errors of a database of zeros (the bits ignored)", "database of zeros")
def _(bits, bias, trials, rng):
    return _errors(np.zeros(len(bits), int), bias, trials, rng)


@mistake("2.5", "every 10th trial repeating the one before", "not independent")
def _(bits, bias, trials, rng):
    errors = _errors(bits, bias, trials, rng)
    errors[9::10] = errors[8::10][:len(errors[9::10])]
    return errors


@mistake("2.5", "each randomization used twice (np.repeat)", "not independent")
def _(bits, bias, trials, rng):
    return np.repeat(_errors(bits, bias, (trials + 1) // 2, rng), 2)[:trials]


@mistake("2.5", "100 randomizations, each used 10 times (np.tile)", "not independent")
def _(bits, bias, trials, rng):
    return np.resize(np.tile(_errors(bits, bias, max(trials // 10, 1), rng), 10), trials)


@mistake("2.5", "the errors sorted", "sorted")
def _(bits, bias, trials, rng):
    return np.sort(_errors(bits, bias, trials, rng))


@correct("2.5", "trials as columns, binomial coins")
def _(bits, bias, trials, rng):
    bits = np.asarray(bits)
    n = len(bits)
    coins = 2 * rng.binomial(1, (1 + bias) / 2, size=(n, trials)) - 1
    return n / 2 - (coins * (1 - 2 * bits)[:, None]).sum(axis=0) / (2 * bias) - bits.sum()


@correct("2.5", "a loop counting the −1 reports")
def _(bits, bias, trials, rng):
    bits = np.asarray(bits)
    out = []
    for _ in range(trials):
        truthful = rng.random(len(bits)) < (1 + bias) / 2
        minus = np.sum(~truthful[bits == 0]) + np.sum(truthful[bits == 1])
        out.append((minus - len(bits) * (1 - bias) / 2) / bias - bits.sum())
    return np.array(out)


def _krr(k, epsilon):
    w = math.exp(epsilon)
    return w / (w + k - 1), 1 / (w + k - 1)


@mistake("2.6", "np.bincount without minlength (a value nobody reported goes missing)",
         "minlength")
def _(reports, k, epsilon):
    p, q = _krr(k, epsilon)
    return (np.bincount(reports) - len(reports) * q) / (p - q)


@mistake("2.6", "np.unique's counts (values nobody reported dropped)", "nobody reported")
def _(reports, k, epsilon):
    p, q = _krr(k, epsilon)
    return (np.unique(reports, return_counts=True)[1] - len(reports) * q) / (p - q)


@mistake("2.6", "the estimates clipped at 0", "clipped")
def _(reports, k, epsilon):
    p, q = _krr(k, epsilon)
    return np.maximum((np.bincount(reports, minlength=k) - len(reports) * q) / (p - q), 0)


@mistake("2.6", "clipped at 0, then rescaled to sum to n", "clipped")
def _(reports, k, epsilon):
    p, q = _krr(k, epsilon)
    e = np.maximum((np.bincount(reports, minlength=k) - len(reports) * q) / (p - q), 0)
    return e * len(reports) / e.sum()


@correct("2.6", "the closed form with e^ε − 1")
def _(reports, k, epsilon):
    w = math.exp(epsilon)
    c = np.array([np.sum(np.asarray(reports) == v) for v in range(k)], float)
    return (c * (w + k - 1) - len(reports)) / (w - 1)


@correct("2.6", "an equality matrix, the mean, then the scale")
def _(reports, k, epsilon):
    p, q = _krr(k, epsilon)
    f = (np.asarray(reports)[:, None] == np.arange(k)[None, :]).mean(axis=0)
    return len(reports) * (f - q) / (p - q)
