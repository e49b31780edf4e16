"""Checkers for module 05: PPCum, pan-privacy for the past (Local-mechanisms notes, §3 (DNPR 2010)),
and the continual density estimator (Dwork 2010, §7).

Every check here is exact (the answers are deterministic functions of their inputs), so a
correct answer never fails; floats are compared with a tolerance of 1e-9.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from panpriv_teach.counters import dyadic_intervals, nodes_containing, tree_levels, tree_nodes
from panpriv_teach.exercises._answers import as_real, fresh_answer, fresh_rng, seeded
from panpriv_teach.exercises.harness import ExerciseFailed, call, exercise
from panpriv_teach.ppcum import ppcum_view

_CASES = [(1, 4), (2, 4), (3, 4), (4, 4), (1, 8), (5, 8), (6, 8), (7, 8), (8, 8), (11, 16),
          (21, 32), (64, 64)]   # trees of 6 and 7 levels too


def _nodes(answer, what):
    try:
        pairs = [(s, e) for s, e in answer]
        whole = all(float(v) == int(v) for pair in pairs for v in pair)
    except Exception:
        raise ExerciseFailed(f"{what} should be a collection of (start, end) pairs, got "
                             f"{type(answer).__name__}.") from None
    if not whole:   # int() would truncate 1.5 to 1 and accept it
        raise ExerciseFailed(f"{what} should hold pairs of whole numbers (time steps); got "
                             f"{pairs[:3]!r}{' ...' if len(pairs) > 3 else ''}.")
    nodes = {(int(s), int(e)) for s, e in pairs}
    if len(nodes) < len(pairs):
        raise ExerciseFailed(f"{what} lists some nodes more than once: the set of nodes names "
                             "each node once.")
    return nodes


def _fmt(nodes, most=8):
    shown = ["{%d}" % s if s == e else f"[{s},{e}]"
             for s, e in sorted(nodes, key=lambda I: (I[1] - I[0], I[0]))]
    return ", ".join(shown[:most]) + (f" and {len(shown) - most} more" if len(shown) > most
                                      else "")


# ---------------------------------------------------------------- 5.1 what is erased
def _judge_erased(got, t, T):
    """Raise the diagnosis of erased_after(t, T) = got (a set of nodes)."""
    right = {I for I in tree_nodes(T) if I[1] <= t}
    if (1, T) in got:
        raise ExerciseFailed("your set contains the root [1, T]: PPCum has no noise for the "
                             "root (the Local-mechanisms notes: \"for each node I of T except the "
                             "root\", T their tree).")
    straddle = {I for I in got - right if I[0] <= t}
    if straddle:
        raise ExerciseFailed(f"after step {t} of T = {T} you erase {_fmt(straddle)}, which "
                             "meets [1, t] but sticks out past t: PPCum still needs its noise "
                             "for a later release.")
    if got - right and all(I[0] > t for I in got):
        raise ExerciseFailed(f"after step {t} of T = {T} you list the nodes that do not "
                             "intersect [1, t]: those are the nodes PPCum KEEPS (the reading "
                             "of the proof of Theorem 5.1), not the ones it erased.")
    if got - right:
        raise ExerciseFailed(f"after step {t} of T = {T} you erase {_fmt(got - right)}, which "
                             "lies entirely in the future: its noise is still needed for "
                             "later releases.")
    if got == {I for I in right if I[1] == t} and got != right:
        raise ExerciseFailed(f"after step {t} of T = {T} you list only the nodes erased AT "
                             "step t; the question asks for everything erased by then (all "
                             "I ⊆ [1, t]).")
    if got != right:
        raise ExerciseFailed(f"after step {t} of T = {T} you forget {_fmt(right - got)}: "
                             "every node inside [1, t] has been erased by then, and noise "
                             "left in memory shows the intruder more than PPCum allows.")


@exercise("5.1", "The nodes PPCum has erased after step t",
          solved_by=("panpriv_teach.ppcum.erased_nodes", "panpriv_teach.ppcum.kept_nodes"))
def exercise_5_1(erased_after):
    fixed = []
    for t, T in _CASES:
        fixed.append(call(erased_after, t, T))
        _judge_erased(_nodes(fixed[-1], f"erased_after({t}, {T})"), t, T)
    fresh = fresh_rng("5.1")
    T = 2 ** int(fresh.integers(5, 11))
    t = int(fresh.integers(1, T + 1))
    where = f"erased_after({t}, {T})"
    fresh_answer(erased_after, (t, T), fixed, where,
                 lambda got: _judge_erased(_nodes(got, where), t, T))
    return "PPCum keeps only the noise of nodes that still end in the future."


# ---------------------------------------------------------------- 5.2 the view
def _random_noise(T, rng):
    return float(rng.normal()), {I: float(v) for I, v in zip(tree_nodes(T), rng.normal(size=2 * T - 2))}


def _view(x, T, N, N_I, t):
    """ppcum_view(x, T, N, N_I, t) for a 0/1 array x, remembered (see `_remembered_view`)."""
    return _remembered_view(tuple(x.tolist()), T, N, tuple(N_I.items()), t)


@functools.lru_cache(maxsize=512)
def _remembered_view(x, T, N, N_I, t):
    """A view is a function of its arguments (exact floats), so 5.3 computes each once: the
    views of the seeded streams and noise are the same for every answer checked under the
    same random seed, and those of the shifted noise for every answer with the same shift.
    (Read only: the checker never changes a view.)"""
    return ppcum_view(np.array(x), T, N, dict(N_I), t)


@exercise("5.2", "The view after step t",
          solved_by=("panpriv_teach.ppcum.ppcum_view",
                     "panpriv_teach.ppcum.PanPrivateTreeCounter.from_noise"))
def exercise_5_2(view_after):
    rng = seeded(52)
    for T in (4, 8):
        for trial in range(4):
            x = [int(v) for v in rng.integers(0, 2, T)]
            t = int(rng.integers(1, T + 1))
            N, N_I = _random_noise(T, rng)
            answer = call(view_after, x[:t], N, dict(N_I), T)
            if not isinstance(answer, tuple) or len(answer) != 3:
                raise ExerciseFailed("view_after should return a tuple (releases, S, kept), got "
                                     f"{type(answer).__name__}.")
            releases, S, kept = answer
            right = ppcum_view(x[:t], T, N, N_I)
            try:
                releases = np.asarray(releases, dtype=float).ravel()
            except (TypeError, ValueError):
                raise ExerciseFailed("releases should be a list of numbers.") from None
            if releases.shape != (t,):
                raise ExerciseFailed(f"with {t} elements there should be {t} releases, got "
                                     f"{releases.size}.")
            S = as_real(S, "S")
            if abs(S - sum(x[:t])) < 1e-9 and abs(N) > 1e-6:
                raise ExerciseFailed("your S is the exact count x_1 + ... + x_t: an intruder who "
                                     "reads the memory learns the count (no pan-privacy); "
                                     "PPCum's S hides it behind the noise N.")
            if abs(S - right["memory"]["X"]) > 1e-9:      # the library keeps the notes' name X
                raise ExerciseFailed(f"on x = {x[:t]} your S is wrong: after step t it is "
                                     "N + x_1 + ... + x_t.")
            if not np.allclose(releases, right["releases"], atol=1e-9):
                missing_N = np.allclose(releases + N, right["releases"], atol=1e-9)
                if missing_N:
                    raise ExerciseFailed("your releases lack N: each release is built from S, "
                                         "which includes N.")
                i = int(np.argmax(~np.isclose(releases, right["releases"], atol=1e-9)))
                raise ExerciseFailed(f"on x = {x[:t]} your release at step {i + 1} is wrong: "
                                     "its noise is not the noise of the nodes that contain the "
                                     "step, so it is not the view Theorem 5.1 protects.")
            if not isinstance(kept, dict):
                raise ExerciseFailed(f"kept should be a dict node -> noise, got {type(kept).__name__}.")
            kept_nodes = _nodes(kept.keys(), "kept")
            right_nodes = set(right["memory"]["N_I"])
            if (1, T) in kept_nodes:
                raise ExerciseFailed(f"your memory holds the root [1, {T}]: PPCum has no noise "
                                     "for the root, so there is none to keep.")
            if kept_nodes - right_nodes:
                raise ExerciseFailed(f"after step {t} of T = {T} your memory still holds "
                                     f"{_fmt(kept_nodes - right_nodes)}: those nodes lie inside "
                                     "[1, t], and PPCum erased their noise.")
            if right_nodes - kept_nodes:
                raise ExerciseFailed(f"after step {t} of T = {T} your memory lacks "
                                     f"{_fmt(right_nodes - kept_nodes)}: a node that ends after "
                                     "t is still needed, so its noise is kept.")
            for I in right_nodes:
                if abs(as_real(kept[I], f"kept[{I}]") - N_I[I]) > 1e-12:
                    raise ExerciseFailed(f"kept[{I}] is not the noise N_I you were given: the "
                                         "memory holds the noise itself, unchanged.")
    return "releases, S and the kept noise match PPCum's memory exactly."


# ---------------------------------------------------------------- 5.3 the coupling
@exercise("5.3", "Theorem 5.1's coupling shift", solved_by=("panpriv_teach.ppcum.coupling_shift",))
def exercise_5_3(coupling):
    rng = seeded(53)
    for T in (4, 8, 16):
        for j in range(1, T + 1):
            shift = call(coupling, j, T)
            if not isinstance(shift, dict) or "N" not in shift:
                raise ExerciseFailed("coupling should return a dict with the key \"N\" and one key "
                                     "per shifted node.")
            if (1, T) in shift:
                raise ExerciseFailed("there is no root noise to shift.")
            v_N = as_real(shift["N"], 'shift["N"]')
            if v_N == 1.0:
                raise ExerciseFailed("your shift of N goes the wrong way: it adds to x'_j's +1 "
                                     "instead of cancelling it, so S differs between the two "
                                     "streams.")
            nodes = {I: as_real(v, f"shift[{I}]") for I, v in shift.items() if I != "N"}
            unknown = [I for I in nodes if I not in set(tree_nodes(T))]
            if unknown:
                raise ExerciseFailed(f"{unknown[0]} is not a node of the tree for T = {T}.")
            if j < T and set(nodes) == set(dyadic_intervals(j, T)):
                raise ExerciseFailed(f"for j = {j} you shift the nodes of [1, j]; the releases "
                                     "from step j on already contain the change of x_j, so "
                                     "shifting them too breaks the coupling at step j.")
            if set(nodes) and set(nodes) == set(nodes_containing(j, T)):
                raise ExerciseFailed("you shift the nodes that contain j: those are in the "
                                     "releases from j on (already cancelled by N), and the "
                                     "releases before j are left unshifted.")
            N, N_I = _random_noise(T, rng)
            x = rng.integers(0, 2, T)
            x[j - 1] = 0
            x2 = x.copy()
            x2[j - 1] = 1
            N2 = N + v_N
            N_I2 = {I: N_I[I] + nodes.get(I, 0.0) for I in N_I}
            # the views after j and after T decide all t >= j: the releases up to T include
            # every earlier one, S moves alike on both streams after j, and the noise kept
            # after any t >= j is part of what is kept after j
            for t in sorted({j, T}):
                a, b = _view(x, T, N, N_I, t), _view(x2, T, N2, N_I2, t)
                if not (np.allclose(a["releases"], b["releases"], atol=1e-9)
                        and abs(a["memory"]["X"] - b["memory"]["X"]) < 1e-9
                        and a["memory"]["N_I"] == b["memory"]["N_I"]):
                    raise ExerciseFailed(f"for T = {T}, j = {j}: with your shift the views after "
                                         f"step {t} differ (releases, S or the kept noise), so "
                                         "the coupling does not prove privacy.")
            cost = abs(v_N) + sum(abs(v) for v in nodes.values())
            if cost > tree_levels(T) + 1 + 1e-9:
                raise ExerciseFailed(f"for T = {T}, j = {j} your shift is valid but costs "
                                     f"{cost:g} > log T + 1: the privacy it proves is worse "
                                     "than Theorem 5.1's.")
    return "the shifted noise gives identical views, at a cost of at most log T + 1."


# ---------------------------------------------------------------- 5.4 Claim 5.1
def _judge_claim(answer, eps):
    """Raise the diagnosis of claim(eps) = answer."""
    if not isinstance(answer, dict) or set(answer) != {"blank", "repeat", "first"}:
        raise ExerciseFailed('claim(eps) should return a dict with keys "blank", "repeat" '
                             'and "first".')
    half = Fraction(1, 2)
    right = {"blank": half, "repeat": half, "first": half + eps**2 / 2}
    for key, value in answer.items():
        if not isinstance(value, (Fraction, int)):
            raise ExerciseFailed(f'answer["{key}"] is a {type(value).__name__}: compute with '
                                 "the Fraction eps you are given (no floats), so the check "
                                 "is exact.")
    if answer["first"] == half + eps**2:
        raise ExerciseFailed("first appearance: your probability adds the two coins' "
                             "biases; the bit is 0 or 1 with probability 1/2 each, so the "
                             "coins are averaged.")
    if answer["repeat"] == right["first"]:
        raise ExerciseFailed("repeat appearance: you conditioned on a bit from D0, but the "
                             "bit was redrawn from D1 at the previous appearance.")
    if answer["first"] == half:
        raise ExerciseFailed("first appearance: your P(y = 1) is 1/2, as if a first "
                             "appearance left no trace; then Fig 3 could not estimate the "
                             "density (accuracy).")
    for key in right:
        if answer[key] != right[key]:
            raise ExerciseFailed(f"for eps = {eps}, P(y = 1) in case \"{key}\" is not "
                                 f"{answer[key]}. Condition on the bit b_x and use the "
                                 "coins D+ (b = 0) and D- (b = 1).")


@exercise("5.4", "Claim 5.1, exactly", solved_by=("panpriv_teach.continual.claim_7_1",))
def exercise_5_4(claim):
    fixed = []
    for eps in (Fraction(1, 10), Fraction(1, 4), Fraction(2, 5)):
        fixed.append(call(claim, eps))
        _judge_claim(fixed[-1], eps)
    eps = Fraction(int(fresh_rng("5.4").integers(1, 4 * 10**9)), 10**10 + 19)   # never fixed
    where = f"claim(Fraction({eps.numerator}, {eps.denominator}))"
    fresh_answer(claim, (eps,), fixed, where, lambda got: _judge_claim(got, eps))
    return "fair coins except at a first appearance: one significant event per user."


# ---------------------------------------------------------------- 5.5 unbiased estimator
_ESTIMATE_SLIPS = (   # (what a slip returns, of (ocount, t, m, ε) and the right estimate)
    (lambda o, t, m, e, r: r / 2, "your estimate is half the density, as the proof sketch's "
     "(ocount − t/2)/ε² gives: each first appearance adds ε²/2, not ε², to E[ocount], so it "
     "is biased."),
    (lambda o, t, m, e, r: r * m, "you return the number of representatives seen, not the "
     "density, a fraction of m."),
    (lambda o, t, m, e, r: o / (m * e**2 / 2), "your estimate counts the t/2 ones that the fair "
     "coins contribute to ocount on average: it is biased upward."),
    (lambda o, t, m, e, r: -r, "your estimate has the wrong sign: more ones in ocount mean more "
     "representatives seen."),
    (lambda o, t, m, e, r: r * e, "your estimate divides by ε, not ε²: each first appearance "
     "moves E[ocount] by ε²/2, so it is biased."),
    (lambda o, t, m, e, r: min(max(r, 0.0), 1.0), "your estimate is clipped to [0, 1]: a "
     "density lies there, but a clipped estimate is biased (its mean moves whenever the noise "
     "crosses a bound): the task asks for an unbiased one."),
    (lambda o, t, m, e, r: abs(r), "your estimate is never negative (an absolute value?): "
     "folding the negative estimates up biases it."),
    (lambda o, t, m, e, r: round(r * m) / m, "you round r_t to a whole number of "
     "representatives: the estimate is then biased (E[round(X)] ≠ E[X])."),
)


@exercise("5.5", "An unbiased continual density estimate",
          solved_by=("panpriv_teach.continual.ContinualDensityEstimator._release",
                     "panpriv_teach.continual.ContinualDensityEstimator.scale"))
def exercise_5_5(estimate):
    """The estimate must be exactly linear in ocount (an unbiased estimate of r_t/m from a
    release with E[ocount] = t/2 + (ε²/2)·r_t): it is checked at values of ocount spread
    around that mean, below t/2 and far above it included (where r_t would be negative, or
    exceed m), where clipping, absolute values and rounding show."""
    rng = seeded(55)
    cases = []
    for trial in range(30):
        m = int(rng.integers(10, 2000))
        eps = float(rng.uniform(0.05, 0.4))
        t = int(rng.integers(1, 10_000))
        seen = int(rng.integers(0, min(m, t) + 1))
        spread = eps**2 / 2 * m * (0.6 if trial % 3 else 0.02)   # and near the mean
        ocount = t / 2 + eps**2 / 2 * seen + float(rng.uniform(-spread, spread))
        right = (ocount - t / 2) / (m * eps**2 / 2)   # Claim 5.1 (Dwork 2010, Claim 7.1)
        got = as_real(call(estimate, ocount, t, m, eps), "estimate(...)")
        cases.append((ocount, t, m, eps, right, got))
    wrong = [case for case in cases if not math.isclose(case[5], case[4], rel_tol=1e-9,
                                                         abs_tol=1e-12)]
    if not wrong:
        return "(ocount - t/2)/(m eps^2/2) is unbiased: Fig 3's scale, divided by m."
    for slip, words in _ESTIMATE_SLIPS:   # a slip that explains every case
        if all(math.isclose(got, slip(o, t, m, e, r), rel_tol=1e-9, abs_tol=1e-12)
               for o, t, m, e, r, got in cases):
            raise ExerciseFailed(words)
    ocount, t, m, eps, right, got = wrong[0]
    raise ExerciseFailed(f"with ocount = {ocount:.6g} after t = {t} steps (E[ocount] = t/2 + "
                         f"(eps^2/2) r_t, m = {m}, eps = {eps:.3g}), your estimate is {got:.6g}, "
                         "not the unbiased estimate of the fraction r_t/m. Solve E[ocount] for "
                         "r_t/m: the estimate is linear in ocount.")
