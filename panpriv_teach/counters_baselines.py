"""Two modern continual counters beyond the course's sources, as baselines for Cum (Dwork–Roth notes, §2):
Honaker's re-weighted tree (the same noisy nodes, combined better: same privacy, lower
variance) and the square-root factorization counter ((epsilon, delta)-DP with Gaussian noise,
NOT comparable to pure epsilon-DP without saying so). Both are re-exported by
`panpriv_teach.counters`.

References: J. Honaker, "Efficient use of differentially private binary trees" (TPDP 2015);
H. Fichtenberger, M. Henzinger, J. Upadhyay, "Constant matters: fine-grained error bound on
differentially private continual observation" (ICML 2023); M. Henzinger, J. Upadhyay,
S. Upadhyay, "Almost tight error bounds on differentially private continual counting"
(SODA 2023); B. Balle, Y.-X. Wang, "Improving the Gaussian mechanism for differential privacy:
analytical calibration and optimal denoising" (ICML 2018).
"""
from __future__ import annotations

import math

import numpy as np

from panpriv_teach.core import as_rng
from panpriv_teach.counters import (FixedHorizonCounter, _lowest_level, _ones_through, _popcount,
                                    _prefix_over_nodes, as_bit, check_horizon,
                                    dyadic_intervals, tree_levels)
from panpriv_teach.mechanisms import analytic_gaussian_sigma   # re-exported here
from panpriv_teach.noise import DiscreteGaussian, LaplaceNoise, grid_step
from panpriv_teach.validation import (require_epsilon, require_int, require_probability,
                                      require_real)

__all__ = ["HonakerTreeCounter", "SqrtFactorizationCounter", "analytic_gaussian_sigma",
           "honaker_node_variances", "sqrt_coefficients"]


# ----------------------------------------------------------------------------------------
# Honaker's re-weighted tree
# ----------------------------------------------------------------------------------------

def honaker_node_variances(L: int, node_variance: float) -> np.ndarray:
    """V_j, the variance of the bottom-up estimate of a node of level j = 0..L-1 when every
    node's own noise has variance `node_variance` (sigma^2): V_0 = sigma^2 and
    1/V_j = 1/sigma^2 + 1/(2 V_{j-1}) (inverse-variance weighting of the node's own value and
    the sum of its two children's estimates). V_j decreases to sigma^2/2."""
    L = require_int("L", L, low=1, note="the number of noisy levels of the tree")
    node_variance = require_real("node_variance", node_variance, low=0.0, high=math.inf,
                                 low_open=True, high_open=True)
    V = np.empty(L)
    V[0] = node_variance
    for j in range(1, L):
        V[j] = 1.0 / (1.0 / node_variance + 1.0 / (2.0 * V[j - 1]))
    return V


class HonakerTreeCounter(FixedHorizonCounter):
    """Honaker's re-weighted binary tree: Cum's noisy nodes, combined optimally online.

    Estimates: q_t = x_1 + ... + x_t at every step t = 1..T.
    Mechanism: the noisy nodes of `BinaryTreeCounter` (all nodes of levels 0..L-1 that end by
    T, each X_I = sum_I x + Lap(L/epsilon)); each complete node's count is re-estimated
    bottom-up, E_I = w_j X_I + (1 - w_j)(E_left + E_right), w_j = V_j / sigma^2 (inverse
    variance weights, `honaker_node_variances`), and release t = sum of E_I over
    `dyadic_intervals(t, T)`. E_I is the best linear unbiased estimate of I's count from the
    nodes inside I; the nodes complete at t are exactly those inside [1, t]'s nodes, so the
    release is the best linear unbiased estimate from everything known at t.
    Privacy: the same as Cum, epsilon-DP for all T releases, event-level, against the
    releases only (post-processing of the same node values; here every node is drawn, since
    the right children are now used). Not pan-private (exact sums in the state).
    Accuracy: unbiased, variance sum of V_level over the nodes of [1, t] (`variance`), between
    1/2 and 1 times Cum's (the leaves gain nothing, high nodes almost 1/2).
    Reference: Honaker 2015 (the bottom-up pass of its efficient estimator), beyond the course's sources.
    Implementation: `step` draws the noise of the nodes ending at t, leaf first; `run`
    draws the same numbers in the same order (same rng, same releases).
    """

    def __init__(self, T, epsilon, rng=None):
        self.T = check_horizon(T)
        self.epsilon = require_epsilon(epsilon)
        self.levels = tree_levels(self.T)
        self.scale = self.levels / self.epsilon
        if not 1e-150 < self.scale < 1e150:   # 2 scale^2 must be a positive finite float
            raise ValueError(f"epsilon must give a node noise scale L/epsilon in (1e-150, 1e150), "
                             f"L = {self.levels} levels (the weights divide by the variance "
                             f"2 (L/epsilon)^2); got {epsilon!r}")
        self._laplace = LaplaceNoise(self.levels, self.epsilon)   # float-safe Lap(L/epsilon)
        self.scale = self._laplace.scale
        sigma2 = self._laplace.variance
        self.node_variances = honaker_node_variances(self.levels, sigma2)   # V_j
        self.weights = self.node_variances / sigma2                           # w_j (w_0 = 1)
        self._rng = as_rng(rng)
        self._t = 0
        self._exact = {}      # node -> exact count, for the nodes of [1, t]
        self._estimate = {}   # node -> E_I, same nodes

    def _step(self, x) -> float:
        x = as_bit(x)
        self._check_room(1)
        t = self._t + 1
        for j in range(_lowest_level(t, self.levels) + 1):   # the nodes ending at t, leaf first
            if j == 0:
                exact, child_sum = x, None
            else:  # children: the held left sibling and the level j - 1 node just made
                left = (t - 2**j + 1, t - 2**(j - 1))
                exact += self._exact.pop(left)
                child_sum = estimate + self._estimate.pop(left)
            noisy = exact + self._laplace.noise(None, self._rng)
            w = self.weights[j]
            estimate = noisy if j == 0 else w * noisy + (1 - w) * child_sum
        node = (t - 2**j + 1, t)
        self._exact[node], self._estimate[node] = exact, estimate
        self._t = t
        return sum(self._estimate.values())

    def run(self, stream) -> np.ndarray:
        """All releases, vectorised level by level (continues from the current step)."""
        x = self._take(stream)
        n = x.size
        if n == 0:
            return np.zeros(0)
        t0, t_end, L = self._t, self._t + n, self.levels
        times = np.arange(t0 + 1, t_end + 1)
        # nodes ending at t: levels 0 .. min(v2(t), L - 1); draws in time order, leaf first
        per_step = np.minimum(_popcount((times & -times) - 1), L - 1) + 1
        offset = np.concatenate(([0], np.cumsum(per_step))).astype(np.int64)
        draws = self._laplace.noise(int(offset[-1]), self._rng)
        counts = np.cumsum(x)

        def ones_through(k):  # ones in [1, k] for an array of k (k >= t0 or a held boundary)
            return _ones_through(k, t0, self._exact, counts)

        estimates = np.zeros(t_end + 1)   # estimates[e]: E of the used node ending at e
        level_est = None                  # E of the level j - 1 nodes, by node number m
        for j in range(L):
            size = 2**j
            m_max = t_end // size
            if m_max == 0:
                break
            est = np.zeros(m_max + 1)
            for (s, e), value in self._estimate.items():   # held nodes of this level
                if e - s + 1 == size:
                    est[e // size] = value
            m_new = np.arange(t0 // size + 1, m_max + 1)   # nodes of level j ending after t0
            if m_new.size:
                ends = m_new * size
                noisy = (ones_through(ends) - ones_through(ends - size)
                         + draws[offset[ends - t0 - 1] + j])
                if j == 0:
                    est[m_new] = noisy
                else:
                    w = self.weights[j]
                    est[m_new] = w * noisy + (1 - w) * (level_est[2 * m_new - 1] + level_est[2 * m_new])
            level_est = est
            # the used node ending at e has level min(v2(e), L - 1): odd m below the top level
            used = np.arange(1, m_max + 1, 2) if j < L - 1 else np.arange(1, m_max + 1)
            estimates[used * size] = est[used]
        releases = _prefix_over_nodes(estimates, t_end, L)[t0 + 1:]
        exact, estimate = {}, {}
        for s, e in dyadic_intervals(t_end, self.T):
            if (s, e) in self._exact:
                exact[(s, e)], estimate[(s, e)] = self._exact[(s, e)], self._estimate[(s, e)]
            else:
                exact[(s, e)] = int(ones_through(np.array([e]))[0] - ones_through(np.array([s - 1]))[0])
                estimate[(s, e)] = float(estimates[e])
        self._exact, self._estimate, self._t = exact, estimate, t_end
        self._last_release = float(releases[-1])
        return releases

    def variance(self, t):
        """The exact variance of release t: the sum of V_level over the nodes of [1, t] (one
        node of level j per 1-bit j of t; two of level L - 1 at t = T = 2^L). Vectorised."""
        t = np.asarray(t, dtype=np.int64)
        out = np.zeros(t.shape)
        for j, V in enumerate(self.node_variances):
            out += V * ((t >> j) & 1)
        return np.where(t == 2**self.levels, 2 * self.node_variances[-1], out)

    def state(self) -> dict:
        """{"t", "exact": {node: count}, "estimate": {node: E_I}} for the nodes of [1, t]."""
        return {"t": self._t, "exact": dict(self._exact), "estimate": dict(self._estimate)}


# ----------------------------------------------------------------------------------------
# The square-root factorization counter, (epsilon, delta)-DP with Gaussian noise
# ----------------------------------------------------------------------------------------

def sqrt_coefficients(T) -> np.ndarray:
    """c_0 .. c_{T-1}, the coefficients of (1 - x)^(-1/2) = sum_k binom(2k, k)/4^k x^k:
    c_0 = 1, c_k = c_{k-1} (2k - 1)/(2k). The lower-triangular Toeplitz matrix C with first
    column c squares to the all-ones lower-triangular matrix A (the prefix sums), since
    ((1 - x)^(-1/2))^2 = 1/(1 - x) = sum_k x^k. c_k ~ 1/sqrt(pi k)."""
    T = check_horizon(T)
    k = np.arange(1, T)
    return np.concatenate(([1.0], np.cumprod((2 * k - 1) / (2 * k))))


class SqrtFactorizationCounter(FixedHorizonCounter):
    """The square-root factorization counter: (epsilon, delta)-DP, Gaussian noise.

    Estimates: q_t = x_1 + ... + x_t at every step t = 1..T.
    Mechanism: factor the prefix-sum matrix A (all-ones lower triangular) as A = B C with
    B = C = A^(1/2), the lower-triangular Toeplitz matrix of the coefficients c_k of
    (1 - x)^(-1/2) (`sqrt_coefficients`). Release B (C x + z) = A x + B z with z_s i.i.d.
    N(0, sigma^2): release t = q_t + sum_{k < t} c_k z_{t-k}, online (it uses z_1..z_t only).
    Privacy: (epsilon, delta)-DP — NOT pure epsilon-DP — for all T releases, event-level
    neighbours, against the releases only: C x + z is the Gaussian mechanism on C x, whose
    L2 sensitivity is the largest column norm of C, Delta = ||(c_0, ..., c_{T-1})||_2 =
    sqrt(sum_k c_k^2) (column 1), computed exactly here. Fichtenberger, Henzinger, Upadhyay
    2023 approximate Delta^2 by 1 + ln(T)/pi, which understates it (3.273 against 3.206 at
    T = 2^10, 4.596 against 4.530 at T = 2^16); a true bound is Delta^2 <= 1 + (ln T +
    gamma)/pi, gamma = 0.5772 (from c_k <= 1/sqrt(pi k) and H_(T-1) <= ln T + gamma); sigma =
    `analytic_gaussian_sigma(Delta, epsilon, delta)`. Not pan-private (exact count and all
    past z in the state).
    Accuracy: unbiased, variance sigma^2 sum_{k < t} c_k^2 (`variance`), O(log T) against
    Cum's O(log^3 T): several times smaller than Cum's at T = 2^16 (a comparison that also
    changes the privacy notion; say so when you make it).
    References: Henzinger, Upadhyay, Upadhyay (SODA 2023); Fichtenberger, Henzinger,
    Upadhyay (ICML 2023), beyond the course's sources.
    Noise in floating point: z_s = Λ Y_s with Y_s the discrete Gaussian N_Z(0, (sigma/Λ)^2) on
    the grid Λ = 2^(floor(log2 sigma) - 12) (`noise.DiscreteGaussian`), so the noise itself
    carries no floating-point artefacts. The (epsilon, delta) proof is for C x + z in real
    arithmetic; the float release q_t + sum_k c_k z_{t-k} (computed from the integer count and
    the z's, by FFT in `run`) is not covered by a floating-point proof: this counter is a
    baseline for accuracy comparisons, not a mechanism to deploy.
    Implementation: `step` draws z_t and sums c_k z_{t-k} directly (O(t)); `run` draws the
    z's (same law; the rejection sampler draws in rounds, so not the same numbers as `step`)
    and convolves by FFT.
    """

    def __init__(self, T, epsilon, delta, rng=None):
        self.T = check_horizon(T)
        self.epsilon = require_epsilon(epsilon)
        self.delta = require_probability("delta", delta, note="(epsilon, delta)-DP: the "
                                         "probability of failure, e.g. 1e-6 or 1/T^2")
        self.coefficients = sqrt_coefficients(self.T)                 # c_k
        self.sensitivity = float(np.sqrt(np.sum(self.coefficients**2)))   # Delta
        self.sigma = analytic_gaussian_sigma(self.sensitivity, self.epsilon, self.delta)
        self._step_size = grid_step(self.sigma)                              # Λ
        self._gaussian = DiscreteGaussian(self.sigma / self._step_size)     # z = Λ N_Z(0, (σ/Λ)^2)
        self._rng = as_rng(rng)
        self._t = 0
        self._count = 0
        self._z = np.zeros(self.T)

    def _params(self) -> dict:
        return {**super()._params(), "delta": self.delta}

    def _step(self, x) -> float:
        x = as_bit(x)
        self._check_room(1)
        t = self._t
        self._z[t] = self._gaussian.sample(1, self._rng)[0] * self._step_size
        self._count += x
        self._t = t + 1
        return self._count + float(np.dot(self.coefficients[:t + 1], self._z[t::-1]))

    def run(self, stream) -> np.ndarray:
        """All releases: z's with the same law as repeated `step`'s, convolved by FFT."""
        x = self._take(stream)
        n = x.size
        if n == 0:
            return np.zeros(0)
        t0, t_end = self._t, self._t + n
        self._z[t0:t_end] = self._gaussian.sample(n, self._rng) * self._step_size
        size = 1 << (2 * t_end - 1).bit_length()
        noise = np.fft.irfft(np.fft.rfft(self.coefficients[:t_end], size)
                             * np.fft.rfft(self._z[:t_end], size), size)[t0:t_end]
        releases = self._count + np.cumsum(x) + noise
        self._count += int(x.sum())
        self._t = t_end
        self._last_release = float(releases[-1])
        return releases

    def variance(self, t):
        """The exact variance of release t: sigma^2 (c_0^2 + ... + c_{t-1}^2). Vectorised."""
        cumulative = np.cumsum(self.coefficients**2)
        return self.sigma**2 * cumulative[np.asarray(t, dtype=np.int64) - 1]

    def state(self) -> dict:
        """{"t", "count", "z"}: the exact count and every noise draw so far (z_1..z_t)."""
        return {"t": self._t, "count": self._count, "z": self._z[:self._t].copy()}
