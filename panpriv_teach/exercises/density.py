"""Checkers for module 03, pan-privacy and density estimation (Dwork 2010, §3-4; Roth
2011; Mir et al. 2011, §1).

Each checker is seeded and statistical where the answer is random; the tolerances are at
least 6 standard errors, so a correct answer fails with probability below 1e-6.
"""
from __future__ import annotations

import math

import numpy as np

from scipy.optimize import brentq

from panpriv_teach.exercises._answers import as_numpy_array, as_real, fresh_rng, looked_up
from panpriv_teach.exercises.harness import ExerciseFailed, call, expect_reproducible, exercise


def _loss(epsilon):
    return -math.log(1 - epsilon / 2)


def _crossing(c):
    """The ε in (0, 2) where the loss -ln(1 - ε/2) (convex, slope 1/2 at 0) crosses c·ε."""
    return brentq(lambda e: _loss(e) - c * e, 1e-9, 2 - 1e-12, xtol=1e-14)


# ---------------------------------------------------------------- 3.1 Claim 3.1, exactly
@exercise("3.1", "Claim 3.1, exactly",
          solved_by=("panpriv_teach.density.claim_4_1_epsilon",))
def exercise_3_1(bit_privacy_loss):
    for eps in (0.1, 0.25, 0.5, 1.0, 1.5, 1.9):
        got = as_real(call(bit_privacy_loss, eps), f"bit_privacy_loss({eps})")
        want = _loss(eps)
        if abs(got - want) <= 1e-9:
            continue
        if abs(got - math.log1p(eps / 2)) <= 1e-9:
            raise ExerciseFailed("you computed the ratio at b = 1 only, ln(P_D1(1)/P_D0(1)), as "
                                 "the proof of Theorem 3.1 in Roth 2011 (its Thm 5) does. The privacy loss is the "
                                 "max over BOTH outputs: look at b = 0 too.")
        if abs(got - eps / 2) <= 1e-9 or abs(got - eps) <= 1e-9:
            raise ExerciseFailed(f"bit_privacy_loss({eps}) = {got:g} is a bound from the text, not "
                                 "the exact loss: compute the two probability ratios from D0 and D1.")
        if abs(got + want) <= 1e-9 or abs(got + math.log1p(eps / 2)) <= 1e-9:
            raise ExerciseFailed("your loss is negative: take the absolute value of the log-ratio.")
        if abs(got - want / math.log(10)) <= 1e-9:
            raise ExerciseFailed("you used log10: privacy losses are natural logarithms (np.log).")
        raise ExerciseFailed(f"bit_privacy_loss({eps}) = {got:.6g} is not the largest "
                             "|ln P_D1(b) / P_D0(b)| over b ∈ {0, 1}. D0 gives 1 w.p. 1/2, "
                             "D1 w.p. 1/2 + ε/4.")
    eps = float(fresh_rng().uniform(0.05, 1.95))
    if abs(as_real(call(bit_privacy_loss, eps), f"bit_privacy_loss({eps!r})") - _loss(eps)) > 1e-9:
        raise looked_up(f"bit_privacy_loss({eps!r})")
    return "exact for ε from 0.1 to 1.9 — and ≤ ε for every ε ≤ 1/2, as Claim 3.1 says."


@exercise("3.2", "Where a bound on the loss of one bit stops holding",
          solved_by=("panpriv_teach.density.claim_4_1_epsilon",))
def exercise_3_2(where_claim_fails):
    answers = {}
    for c in (1.0, 0.75, 2.0, 0.6):
        where = f"where_claim_fails({c:g})"
        got = answers[c] = as_real(call(where_claim_fails, c), where)
        if abs(got - _crossing(c)) <= 1e-3:
            continue
        if len(answers) > 1 and len(set(answers.values())) == 1:
            raise ExerciseFailed(f"you return {got:g} whatever c is: the crossing of the loss with "
                                 "c·ε moves with c. Compute it from c (bisection on "
                                 "loss(ε) − c·ε).")
        if c == 1 and abs(got - 0.5) <= 1e-9:
            raise ExerciseFailed("1/2 is where Claim 3.1 is STATED to hold, not where it fails: "
                                 "compute the loss for larger ε.")
        if abs(got - 2.0) <= 1e-3:
            raise ExerciseFailed("at ε = 2, D1 stops being a distribution (P(1) = 1), but the loss "
                                 f"exceeds {c:g}·ε before that.")
        if not 0 < got < 2:
            raise ExerciseFailed(f"{where} = {got:g} is not an ε for which D1 is a distribution "
                                 "(0 < ε < 2).")
        if _loss(got) > c * got:
            raise ExerciseFailed(f"at ε = {got:.4g} the bound {c:g}·ε already fails (loss "
                                 f"{_loss(got):.4g} > {c * got:.4g}); look for the smallest such "
                                 "ε, to 3 decimals.")
        raise ExerciseFailed(f"at ε = {got:.4g} the bound {c:g}·ε still holds (loss "
                             f"{_loss(got):.4g} <= {c * got:.4g}); it fails for larger ε. Find the "
                             "crossing to 3 decimals (bisection, or scipy.optimize.brentq on "
                             "loss(ε) − c·ε).")
    c = float(fresh_rng().uniform(0.55, 3.0))
    if abs(as_real(call(where_claim_fails, c), f"where_claim_fails({c!r})") - _crossing(c)) > 1e-3:
        raise looked_up(f"where_claim_fails({c!r})")
    return (f"the loss of one bit stays ≤ ε up to ε ≈ {answers[1.0]:.3f}, far beyond the 1/2 of "
            "Claim 3.1; a sharper claim, ≤ 0.75·ε, would hold up to "
            f"ε ≈ {answers[0.75]:.3f}.")


# ---------------------------------------------------------------- 3.3 the D1 update
def _table(out, shape):
    out = as_numpy_array(out, "the returned table", shape=shape)
    if not np.isin(out, (0, 1)).all():
        raise ExerciseFailed("the table must hold bits (0 or 1); yours holds other values.")
    return out


@exercise("3.3", "The D1 update",
          solved_by=("panpriv_teach.density.DensityEstimator.update",
                     "panpriv_teach.density.DensityEstimator.process"))
def exercise_3_3(update_table):
    M = np.arange(0, 60, 3)                             # 20 representatives
    b = np.tile([0, 1], 10)
    once, often = M[[0, 1]], M[[2, 3]]                  # bits 0, 1 arriving once; 0, 1 often
    stream = np.array([once[0], 1, often[0], 7, once[1], 8, *[often[0], often[1]] * 20, 59])
    eps = 0.5
    rng, runs = np.random.default_rng(303), 4_000
    # each of the runs gets its own copies of M, b and stream (call's repeat)
    tables = np.array([_table(out, b.shape) for out in
                       call(update_table, M, b, stream, eps, rng=rng, repeat=runs)])
    arrived = np.isin(M, stream)
    if np.any(tables[:, ~arrived] != b[~arrived]):
        raise ExerciseFailed("you changed the bit of a representative that never arrived: only "
                             "arrivals x ∈ M redraw b_x (elements outside M are ignored).")
    ones = tables[:, [0, 1, 2, 3]].mean(axis=0)        # each should be 1/2 + ε/4 = 0.625
    p1, tol = 0.5 + eps / 4, 6 * math.sqrt(0.625 * 0.375 / runs)   # ≤ 0.046
    if np.all(ones == 1):
        raise ExerciseFailed("every arriving representative ends with b_x = 1: that is the exact "
                             "(not pan-private) table an intruder reads like a list. Draw b_x from D1.")
    if np.all(np.abs(ones - p1) <= tol):
        big = np.arange(0, 600, 3)                     # 200 fresh draws: no coincidences
        expect_reproducible(update_table, big, np.zeros(200, int), big.copy(), eps,
                        convert=lambda t: as_numpy_array(t, "the returned table", shape=big.shape))
        return "b_x ~ D1 after any number of arrivals, untouched otherwise."
    if np.all(np.abs(ones - 0.5) <= tol):
        raise ExerciseFailed("arriving representatives end with P(b_x = 1) = 1/2: that is D0. "
                             "D1 gives 1 with probability 1/2 + ε/4.")
    if np.all(np.abs(ones - (0.5 + eps / 2)) <= tol):
        raise ExerciseFailed("your D1 gives 1 with probability 1/2 + ε/2; it should be 1/2 + ε/4.")
    if abs(ones[0] - ones[1]) > 2 * tol or abs(ones[2] - ones[3]) > 2 * tol:
        raise ExerciseFailed("the new bit depends on the old one (did you flip or OR the bit?). "
                             "Each arrival replaces b_x by a FRESH draw from D1.")
    if abs(ones[:2].mean() - ones[2:].mean()) > 2 * tol:
        raise ExerciseFailed("users who arrive often end with a different P(b_x = 1) than users "
                             "who arrive once: the table must not count arrivals (user-level "
                             "privacy). Replace b_x by a fresh D1 draw at each arrival.")
    raise ExerciseFailed(f"after arrivals, P(b_x = 1) should be 1/2 + ε/4 = {p1}; yours are "
                         f"{np.round(ones, 3).tolist()}.")


# ---------------------------------------------------------------- 3.4 the output
@exercise("3.4", "The output, with correctly calibrated noise",
          solved_by=("panpriv_teach.density.DensityEstimator.output",))
def exercise_3_4(release):
    configs = [(np.tile([1, 1, 0, 1, 0], 8), 0.5), (np.tile([0, 1, 1, 0], 25), 0.25)]
    rng, runs = np.random.default_rng(304), 20_000
    for b, eps in configs:
        m, theta = len(b), b.mean()
        centre, scale = 4 * (theta - 0.5) / eps, 4 / (eps ** 2 * m)
        out = np.array([as_real(v, "the release") for v in call(release, b.copy(), eps, rng=rng, repeat=runs)])
        spread = np.abs(out - np.median(out)).mean()          # ≈ the Laplace scale
        if spread < 1e-12:
            raise ExerciseFailed("your release has no noise: the intruder who saw the table "
                                 "would read the output exactly. Add Laplace noise.")
        se = math.sqrt(2) * max(spread, scale) / math.sqrt(runs)
        if abs(out.mean() - centre) > 6 * se:
            if abs(out.mean() - 4 * theta / eps) <= 6 * se:
                raise ExerciseFailed("your release is off by 2/ε on average: subtract 1/2 (the "
                                     "D0 rate) from θ before scaling.")
            if abs(out.mean() - (theta - 0.5)) <= 6 * se:
                raise ExerciseFailed("you release θ - 1/2: scale it by 4/ε so that its mean is "
                                     "the density (E θ = 1/2 + ε·d/4).")
            raise ExerciseFailed(f"with θ = {theta:g} and ε = {eps:g} your releases average "
                                 f"{out.mean():.4g}: they should be unbiased for 4(θ - 1/2)/ε.")
        shape = out.std() / spread      # √2 for Laplace noise, √(π/2) ≈ 1.253 for Gaussian
        if abs(shape - math.sqrt(2)) > 0.06:    # s.e. of the ratio < 0.01 at 20,000 runs
            if abs(shape - math.sqrt(math.pi / 2)) <= 0.06:
                raise ExerciseFailed("your noise has the wrong shape: it is Gaussian (std / mean "
                                     f"|deviation| = {shape:.3f}; Laplace gives 1.414, Gaussian "
                                     "1.253). ε-DP as asked here needs Laplace noise: rng.laplace.")
            raise ExerciseFailed(f"your noise does not have the Laplace shape (std / mean "
                                 f"|deviation| = {shape:.3f}; Laplace gives 1.414): use rng.laplace.")
        ratio = spread / scale          # within ±6 s.e. ≈ ±4 % of the scale
        if abs(ratio - 1) <= 0.05:
            continue
        if abs(spread * eps * m - 1) <= 0.05:
            raise ExerciseFailed("you added Lap(1/(εm)) to the released 4(θ - 1/2)/ε, as Roth 2011 "
                                 "writes it. But one user moves that value by 4/(εm), not 1/m: "
                                 "the noise must match the sensitivity of what you release.")
        if abs(spread * m - 1) <= 0.05 or abs(spread * eps * m / 4 - 1) <= 0.05:
            raise ExerciseFailed("your noise scale ignores ε somewhere: the sensitivity of "
                                 "4(θ - 1/2)/ε is 4/(εm), and ε-DP needs that divided by ε.")
        raise ExerciseFailed(f"with m = {m} and ε = {eps:g} your noise has scale ≈ {spread:.4g}; "
                             "it should be the sensitivity of the released value divided by ε.")
    expect_reproducible(release, configs[0][0], 0.5, convert=lambda v: as_real(v, "the release"))
    return "unbiased, noise Lap(4/(ε²m)) = Lap(1/(εm)) on θ, scaled by 4/ε."


# ---------------------------------------------------------------- 3.5 Roth's m
def _same(values, target, rel=1e-3):
    return all(math.isclose(v, t, rel_tol=rel) for v, t in zip(values, target))


@exercise("3.5", "How many representatives?",
          solved_by=("panpriv_teach.density.roth_sample_size",))
def exercise_3_5(roth_m):
    cases = [(0.5, 0.2, 0.1), (0.5, 0.1, 0.05), (0.25, 0.3, 0.01), (0.1, 0.5, 0.2)]
    values = [as_real(call(roth_m, *case), f"roth_m{case}") for case in cases]
    exact = [200 * math.log(1 / beta) / (eps ** 2 * alpha ** 2) for eps, alpha, beta in cases]
    wrong = [i for i, (v, e) in enumerate(zip(values, exact)) if v != math.ceil(e)]
    if wrong:
        i = wrong[0]
        ratios = [v / e for v, e in zip(values, exact)]
        if all(abs(v - e) <= 1 for v, e in zip(values, exact)):
            if all(v == math.floor(e) or v == round(e) for v, e in zip(values, exact)):
                raise ExerciseFailed("round UP (math.ceil): fewer representatives than the formula "
                                     "asks for void the guarantee.")
            raise ExerciseFailed("m counts representatives: round UP to a whole number (math.ceil).")
        if _same(ratios, [1 / math.log(10)] * 4):
            raise ExerciseFailed("you used log10: the log in Roth's m is natural (math.log).")
        if _same(ratios, [1 / math.log(2)] * 4):
            raise ExerciseFailed("you used log2: the log in Roth's m is natural (math.log).")
        if _same(ratios, [eps for eps, _, _ in cases]):
            raise ExerciseFailed("your m grows like 1/ε, not 1/ε²: ε is squared in the denominator.")
        if _same(ratios, [alpha for _, alpha, _ in cases]):
            raise ExerciseFailed("your m grows like 1/α, not 1/α²: α is squared in the denominator.")
        if _same(ratios, [1 / math.log(1 / beta) for _, _, beta in cases]):
            raise ExerciseFailed("your m does not grow with log(1/β): a smaller failure probability "
                                 "needs more representatives.")
        if abs(ratios[0] - 1) > 1e-3 and _same(ratios, [ratios[0]] * 4):
            raise ExerciseFailed(f"your m is {ratios[0]:.3g} times Roth's for every (ε, α, β): the "
                                 "dependence on ε, α and β is right, but the constant in front is "
                                 "not Roth's.")
        raise ExerciseFailed(f"roth_m{cases[i]} = {values[i]:g} does not follow Roth's "
                             "m = 200 log(1/β)/(ε²α²).")
    fresh = fresh_rng()
    case = (float(fresh.uniform(0.05, 1.0)), float(fresh.uniform(0.05, 0.5)), float(fresh.uniform(0.01, 0.3)))
    eps, alpha, beta = case
    if as_real(call(roth_m, *case), f"roth_m{case}") != math.ceil(
            200 * math.log(1 / beta) / (eps ** 2 * alpha ** 2)):
        raise looked_up(f"roth_m{case}")
    from panpriv_teach.density import DensityEstimator   # the empirical check of Theorem 3.2
    eps, alpha, beta = cases[0]
    m = int(values[0])
    rng = np.random.default_rng(305)
    n, density = 100_000, 0.3
    users = rng.permutation(n)[:int(density * n)]
    stream = np.concatenate([users, users[:5_000]])
    errors = []
    for _ in range(100):
        est = DensityEstimator(n, eps, m=m, rng=rng)
        est.process(stream)
        errors.append(abs(est.output() - density))
    bad = int(np.sum(np.array(errors) > alpha))
    return (f"m = {m:,} for (ε, α, β) = ({eps}, {alpha}, {beta}). With it, {bad} of 100 runs erred "
            f"by more than α (Theorem 3.2 allows β = {beta:.0%}); the largest error was "
            f"{max(errors):.3f}: Roth's constant 200 is generous.")


# ---------------------------------------------------------------- 3.6 dictionary attack
@exercise("3.6", "A dictionary attack on hashed IDs",
          solved_by=("panpriv_teach.attacks.dictionary_attack",))
def exercise_3_6(who_visited):
    from panpriv_teach.strawmen import HashedIDs
    from panpriv_teach.streams import zipf_visitors
    rng = np.random.default_rng(306)
    universe = 2_000
    visits = zipf_visitors(1_500, universe, rng=rng)
    store = HashedIDs(universe, 0.5, rng=rng)
    store.process(visits)
    state = store.state()
    answer = call(who_visited, store.state(), universe, seconds=20)
    try:
        raw = np.asarray(answer) if isinstance(answer, (list, tuple, np.ndarray)) else None
    except (TypeError, ValueError):   # a ragged list: as_array below diagnoses it
        raw = None
    if raw is not None and raw.dtype.kind in "ui" and raw.size and raw.max() >= universe:
        if np.isin(raw.astype(np.uint64), state["hashes"]).mean() > 0.5:
            raise ExerciseFailed("you returned hash values; return the IDs whose hashes are in "
                                 "the table.")
    if raw is not None and raw.shape == (universe,) and (
            raw.dtype.kind == "b" or (raw.dtype.kind in "uif" and np.isin(raw, (0, 1)).all())):
        raise ExerciseFailed(f"you returned a mask, one True/False per ID of the universe "
                             f"({universe} entries); return the IDs themselves, e.g. "
                             "np.flatnonzero(mask) or ids[mask].")
    found = as_numpy_array(answer, "the IDs you found")
    if found.ndim != 1:
        raise ExerciseFailed(f"return a 1-D array of IDs; yours has shape {found.shape}.")
    truth = set(np.unique(visits).tolist())
    if found.size and (found.max() >= universe or found.min() < 0 or np.any(found != np.round(found))):
        raise ExerciseFailed(f"return IDs: whole numbers in the universe 0..{universe - 1}.")
    found = set(found.astype(int).tolist())
    missed, extra = truth - found, found - truth
    if not found:
        raise ExerciseFailed("you found nobody. The key is in the state: hash every ID of the "
                             "universe with keyed_hash(state['key'], ids) and look them up.")
    if missed and not extra:
        raise ExerciseFailed(f"you missed {len(missed)} of the {len(truth)} visitors: try EVERY ID "
                             "of the universe, 0..universe_size-1.")
    if extra:
        raise ExerciseFailed(f"{len(extra)} of your IDs never visited: keep only the IDs whose "
                             "hash is in state['hashes'].")
    return (f"all {len(truth)} visitors recovered from the 'anonymised' table, with "
            f"{universe:,} hashes. The key had to be in memory, so hashing hid nothing.")
