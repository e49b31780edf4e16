"""panpriv_teach: differential privacy for data streams — pan-privacy and continual observation.

The library behind the course: every algorithm of the five source texts (full references in course/references.md),
each exposing what an intruder would see (`state()`), with its privacy and accuracy
guarantees stated in its docstring and shown by the tests.
"""
from panpriv_teach.core import ContinualCounter, StreamAlgorithm, as_rng

__all__ = ["StreamAlgorithm", "ContinualCounter", "as_rng"]
__version__ = "0.1.0"
