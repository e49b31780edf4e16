"""Answers that let the library do an exercise's work (issue 24, item 2): for each exercise,
the ways a student could produce its answer by calling a library function instead of
writing it. `tests/test_checkers_solved_by.py` checks that each one really solves its
exercise with the whole library, and that none of them can pass when graded: the functions
they call are declared in the exercise's `solved_by` (the grader's static check names them,
and the worker's library holds only stubs of them), or they are private helpers that the
worker's library no longer has (once nothing kept uses them).

`ANSWERS[notebook]` lists (exercise, how, source): `source` defines the exercise's answer
function, as a cell of the student's notebook would.

Left out, on purpose: library primitives an exercise builds on rather than computes (a
Laplace sampler in 1.4, 1.5, 3.4 and 7.3, whose content is the scale; `tree_nodes` in 4.3
and 5.1, which the handouts give; `counters.tree_levels` in 4.3, on which `tree_nodes`
depends, so that stubbing it would break the handout's tool); library functions that do
not compute the exercise's answer (`BinaryTreeCounter.variance` for 4.4 is the float-safe
noise's variance, 2^-10 off the formula; `CroppedSum.debias` for 6.4 inverts the grid
noise's mean, not the continuous law's); and copying a library function's source, which no
declaration can stop.
"""

ANSWERS = {
    "01_dp_basics": [
        ("1.1", "attacks.differencing_attack", """
from panpriv_teach.attacks import differencing_attack
def reveal(count, n, target):
    return differencing_attack(count, n, target)
"""),
        ("1.3", "mechanisms.laplace_mechanism", """
from panpriv_teach import mechanisms
def laplace_mechanism(true_answer, sensitivity, epsilon, rng):
    return mechanisms.laplace_mechanism(true_answer, sensitivity, epsilon, rng)
"""),
        ("1.3", "mechanisms.laplace_mechanism_unsafe", """
from panpriv_teach.mechanisms import laplace_mechanism_unsafe
def laplace_mechanism(true_answer, sensitivity, epsilon, rng):
    return laplace_mechanism_unsafe(true_answer, sensitivity, epsilon, rng)
"""),
        ("1.3", "noise.LaplaceNoise", """
from panpriv_teach.noise import LaplaceNoise
def laplace_mechanism(true_answer, sensitivity, epsilon, rng):
    return LaplaceNoise(sensitivity, epsilon).release_one(float(true_answer), rng)
"""),
        ("1.6", "mechanisms.exponential_mechanism", """
from panpriv_teach import mechanisms
def exponential_mechanism(candidates, scores, sensitivity, epsilon, rng):
    return mechanisms.exponential_mechanism(candidates, scores, sensitivity, epsilon, rng)
"""),
        ("1.6", "mechanisms.exponential_mechanism_probabilities", """
from panpriv_teach.mechanisms import exponential_mechanism_probabilities
def exponential_mechanism(candidates, scores, sensitivity, epsilon, rng):
    p = exponential_mechanism_probabilities(scores, sensitivity, epsilon)
    return candidates[rng.choice(len(candidates), p=p)]
"""),
        ("1.6", "mechanisms.exponential_mechanism_implemented_law", """
import numpy as np
from panpriv_teach.mechanisms import exponential_mechanism_implemented_law
def exponential_mechanism(candidates, scores, sensitivity, epsilon, rng):
    p = np.array([float(v) for v in exponential_mechanism_implemented_law(scores, sensitivity,
                                                                          epsilon)])
    return candidates[rng.choice(len(candidates), p=p / p.sum())]
"""),
        ("1.7", "attacks.floating_point_attack", """
from panpriv_teach.attacks import floating_point_attack
def could_produce(release, candidate, sensitivity, epsilon):
    return bool(floating_point_attack([release], [candidate], sensitivity, epsilon)[0, 0])
"""),
        ("1.7", "attacks._can_produce", """
from panpriv_teach import attacks
def could_produce(release, candidate, sensitivity, epsilon):
    return bool(attacks._can_produce(release, candidate, sensitivity / epsilon))
"""),
    ],
    "02_randomized_response": [
        ("2.1", "mechanisms.RandomizedResponse.randomize", """
from panpriv_teach.mechanisms import RandomizedResponse
def randomize(bits, bias, rng):
    return RandomizedResponse(bias).randomize(bits, rng)
"""),
        ("2.1", "mechanisms.warner_response", """
from panpriv_teach.mechanisms import warner_response
def randomize(bits, bias, rng):
    return 1 - 2 * warner_response(bits, rng, truth_probability=bias)
"""),
        ("2.1", "local.DirectEncoding.randomize with k = 2", """
import math
from panpriv_teach.local import DirectEncoding
def randomize(bits, bias, rng):
    reports = DirectEncoding(2, math.log((1 + bias) / (1 - bias))).randomize(bits, rng)
    return 1 - 2 * reports
"""),
        ("2.1", "local.DirectEncoding.report with k = 2, bit by bit", """
import math
import numpy as np
from panpriv_teach.local import DirectEncoding
def randomize(bits, bias, rng):
    encoding = DirectEncoding(2, math.log((1 + bias) / (1 - bias)))
    return np.array([1 - 2 * encoding.report(int(bit), rng) for bit in bits])
"""),
        ("2.2", "mechanisms.RandomizedResponse.estimate", """
from panpriv_teach.mechanisms import RandomizedResponse
def estimate(reports, bias):
    return RandomizedResponse(bias).estimate(reports)
"""),
        ("2.2", "mechanisms.warner_estimate", """
from panpriv_teach.mechanisms import warner_estimate
def estimate(reports, bias):
    return warner_estimate((1 - reports) // 2, bias)
"""),
        ("2.2", "local.DirectEncoding.estimate with k = 2", """
import math
import numpy as np
from panpriv_teach.local import DirectEncoding
def estimate(reports, bias):
    encoding = DirectEncoding(2, math.log((1 + bias) / (1 - bias)))
    return float(encoding.estimate((1 - np.asarray(reports)) // 2)[1])
"""),
        ("2.3", "local.local_epsilon", """
from panpriv_teach.local import local_epsilon
def channel_epsilon(channel):
    return local_epsilon(channel)
"""),
        ("2.3", "audit.exact_epsilon", """
from panpriv_teach.audit import exact_epsilon
def channel_epsilon(channel):
    return max(exact_epsilon(list(a), list(b)) for a in channel for b in channel)
"""),
        ("2.4", "mechanisms.RandomizedResponse.from_epsilon and std", """
from panpriv_teach.mechanisms import RandomizedResponse
def plan(epsilon, n):
    rr = RandomizedResponse.from_epsilon(epsilon)
    return rr.bias, rr.std(n)
"""),
        ("2.4", "local.DirectEncoding.std with k = 2", """
import math
from panpriv_teach.local import DirectEncoding
def plan(epsilon, n):
    return math.tanh(epsilon / 2), DirectEncoding(2, epsilon).std(n)
"""),
        ("2.6", "local.DirectEncoding.estimate", """
from panpriv_teach.local import DirectEncoding
def estimate_histogram(reports, k, epsilon):
    return DirectEncoding(k, epsilon).estimate(reports)
"""),
    ],
    "03_density_estimation": [
        ("3.1", "density.claim_4_1_epsilon", """
from panpriv_teach.density import claim_4_1_epsilon
def bit_privacy_loss(epsilon):
    return claim_4_1_epsilon(epsilon)
"""),
        ("3.1", "local.local_epsilon on the two coins", """
from panpriv_teach.local import local_epsilon
def bit_privacy_loss(epsilon):
    return local_epsilon([[0.5, 0.5], [0.5 + epsilon / 4, 0.5 - epsilon / 4]])
"""),
        ("3.1", "audit.exact_epsilon on the two coins", """
from panpriv_teach.audit import exact_epsilon
def bit_privacy_loss(epsilon):
    return exact_epsilon([0.5, 0.5], [0.5 + epsilon / 4, 0.5 - epsilon / 4])
"""),
        ("3.2", "density.claim_4_1_epsilon in a root finder", """
from scipy.optimize import brentq
from panpriv_teach.density import claim_4_1_epsilon
def where_claim_fails(c):
    return brentq(lambda e: claim_4_1_epsilon(e) - c * e, 1e-9, 2 - 1e-12)
"""),
        ("3.2", "local.local_epsilon in a root finder", """
from scipy.optimize import brentq
from panpriv_teach.local import local_epsilon
def where_claim_fails(c):
    return brentq(lambda e: local_epsilon([[0.5, 0.5], [0.5 + e / 4, 0.5 - e / 4]]) - c * e,
                  1e-9, 2 - 1e-12)
"""),
        ("3.3", "density.DensityEstimator.process", """
import numpy as np
from panpriv_teach.density import DensityEstimator
def update_table(M, b, stream, epsilon, rng):
    estimator = DensityEstimator(int(max(np.max(M), np.max(stream))) + 1, epsilon, m=len(M),
                                 rng=rng)
    estimator.M, estimator.m, estimator.b = np.asarray(M), len(M), np.array(b, dtype=np.uint8)
    estimator.process(np.asarray(stream)[np.asarray(stream) <= np.max(M)])
    return estimator.b
"""),
        ("3.5", "density.roth_sample_size", """
from panpriv_teach.density import roth_sample_size
def roth_m(epsilon, alpha, beta):
    return roth_sample_size(epsilon, alpha, beta)
"""),
        ("3.6", "attacks.dictionary_attack", """
import numpy as np
from panpriv_teach.attacks import dictionary_attack
def who_visited(state, universe_size):
    return np.asarray(dictionary_attack(state, np.arange(universe_size)))
"""),
    ],
    "04_continual_counting": [
        ("4.1", "counters.SimpleCounter.run", """
from panpriv_teach.counters import SimpleCounter
def simple_counter(stream, epsilon, rng):
    return SimpleCounter(epsilon, rng=rng).run(stream)
"""),
        ("4.1", "counters.SimpleCounter.update and output", """
import numpy as np
from panpriv_teach.counters import SimpleCounter
def simple_counter(stream, epsilon, rng):
    counter = SimpleCounter(epsilon, rng=rng)
    releases = []
    for x in stream:
        counter.update(x)
        releases.append(counter.output())
    return np.array(releases)
"""),
        ("4.1", "counters.SimpleCounter._step", """
import numpy as np
from panpriv_teach.counters import SimpleCounter
def simple_counter(stream, epsilon, rng):
    counter = SimpleCounter(epsilon, rng=rng)
    return np.array([counter._step(x) for x in stream])
"""),
        ("4.2", "counters.dyadic_intervals", """
from panpriv_teach import counters
def dyadic_intervals(t, T):
    return counters.dyadic_intervals(t, T)
"""),
        ("4.3", "counters.nodes_containing", """
from panpriv_teach.counters import nodes_containing
def cum_noise_scale(T, epsilon):
    return len(nodes_containing(1, T)) / epsilon
"""),
        ("4.4", "counters.decomposition_sizes", """
from panpriv_teach.counters import decomposition_sizes, tree_levels
def cum_variance(t, T, epsilon):
    return 2 * (tree_levels(T) / epsilon) ** 2 * float(decomposition_sizes(T)[t - 1])
"""),
        ("4.6", "counters.SimpleCounter's randomized-response release", """
import numpy as np
from panpriv_teach.counters import SimpleCounter
def rr_estimates(reports, bias):
    counter = SimpleCounter(mechanism="randomized_response", bias=bias, rng=0)
    return counter._release(np.cumsum(reports).astype(float), np.arange(1, len(reports) + 1))
"""),
    ],
    "05_ppcum": [
        ("5.1", "ppcum.erased_nodes", """
from panpriv_teach.ppcum import erased_nodes
def erased_after(t, T):
    return {node for step in range(1, t + 1) for node in erased_nodes(step, T)}
"""),
        ("5.1", "ppcum.kept_nodes", """
from panpriv_teach.counters import tree_nodes
from panpriv_teach.ppcum import kept_nodes
def erased_after(t, T):
    return set(tree_nodes(T)) - set(kept_nodes(t, T))
"""),
        ("5.2", "ppcum.ppcum_view", """
from panpriv_teach.ppcum import ppcum_view
def view_after(x, N, N_I, T):
    view = ppcum_view(x, T, N, N_I)
    return view["releases"], view["memory"]["X"], view["memory"]["N_I"]
"""),
        ("5.2", "ppcum.PanPrivateTreeCounter.from_noise", """
from panpriv_teach.ppcum import PanPrivateTreeCounter
def view_after(x, N, N_I, T):
    counter = PanPrivateTreeCounter.from_noise(T, 1.0, N, N_I)
    releases = counter.run(x) if len(x) else []
    memory = counter.state()
    return list(releases), memory["X"], memory["N_I"]
"""),
        ("5.3", "ppcum.coupling_shift", """
from panpriv_teach.ppcum import coupling_shift
def coupling(j, T):
    return coupling_shift(j, T)
"""),
        ("5.4", "continual.claim_7_1", """
from panpriv_teach.continual import claim_7_1
def claim(eps):
    p = claim_7_1(eps, exact=True)
    return {"blank": p["blank or not in M"], "repeat": p["repeat appearance"],
            "first": p["first appearance"]}
"""),
        ("5.5", "continual.ContinualDensityEstimator._release", """
from panpriv_teach.continual import ContinualDensityEstimator
def estimate(ocount, t, m, eps):
    return ContinualDensityEstimator(m, eps, m, t)._release(ocount, t)
"""),
        ("5.5", "continual.ContinualDensityEstimator.scale", """
from panpriv_teach.continual import ContinualDensityEstimator
def estimate(ocount, t, m, eps):
    return (ocount - t / 2) / ContinualDensityEstimator(m, eps, m, t).scale
"""),
    ],
    "06_sketches": [
        ("6.1", "stable.stable_sample", """
from panpriv_teach import stable
def stable_sample(p, n, rng):
    return stable.stable_sample(p, n, rng)
"""),
        ("6.2", "stable.StableSketch.estimate", """
from panpriv_teach.stable import StableSketch
def median_estimator(sketch, p):
    return StableSketch(10, p, len(sketch), rng=0).estimate(sketch)
"""),
    ],
    "07_lower_bounds": [
        ("7.1", "reconstruction.reconstruct_exhaustive", """
from panpriv_teach.reconstruction import reconstruct_exhaustive
def exhaustive_attack(answer, n, E):
    return reconstruct_exhaustive(answer, n, E)
"""),
        ("7.2", "reconstruction.reconstruct_lp", """
from panpriv_teach import reconstruction
def decode(queries, answers):
    return reconstruction.reconstruct_lp(queries, answers)
"""),
        ("7.3", "reconstruction.laplace_answers", """
from panpriv_teach.reconstruction import laplace_answers
def private_answers(database, queries, epsilon, rng):
    return laplace_answers(database, queries, epsilon, rng)
"""),
        ("7.5", "lower_bounds.packing_bound", """
from panpriv_teach import lower_bounds
def packing_bound(T, epsilon):
    return lower_bounds.packing_bound(T, epsilon)
"""),
        ("7.6", "intrusion.intrusion_decoding_attack", """
from panpriv_teach.intrusion import intrusion_decoding_attack
def intrusion_attack(algorithm, n_queries, rng):
    return intrusion_decoding_attack(algorithm, n_queries, rng=rng, updates=False, amount=1,
                                     statistic=lambda k: (k > 0).astype(float), output_scale=1)
"""),
    ],
}
