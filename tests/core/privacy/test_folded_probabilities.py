"""A combined half-width's enumerated noise (issue 39, 6): worked in place, without the temporary arrays of
megabytes a small ε asked for at every slider move; every probability must be the one computed before, to the bit."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from workbench.core.privacy.accuracy import _folded_probabilities, discrete_laplace_halfwidth


def _as_before(kind: str, scale: float, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """``_folded_probabilities`` as it was written, each step a new array."""
    if kind == "laplace":
        half = discrete_laplace_halfwidth(scale, 1.0 - tail)
        magnitude = np.arange(0, half + 1, dtype=float)
        q = math.exp(-1.0 / scale)
        p = (1 - q) / (1 + q) * np.exp(-np.abs(magnitude) / scale)
    else:
        half = math.ceil(scale * NormalDist().inv_cdf(1.0 - tail / 2.0)) + 1
        magnitude = np.arange(0, half + 1, dtype=float)
        weights = np.exp(-(magnitude * magnitude) / (2.0 * scale * scale))
        total = np.concatenate([weights[:0:-1], weights]).sum()
        p = weights / total * (1.0 - tail)
    mass = p + p
    mass[0] = p[0] + 0.0
    return magnitude, mass


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_the_probabilities_are_those_computed_before_to_the_bit(kind):
    rng = np.random.default_rng(639)
    scales = [0.3, 1.0, 2.5, 80.0, 4000.0, 40_000.0] + list(10 ** rng.uniform(-0.5, 4.5, 150))
    for scale in scales:
        tail = 10 ** rng.uniform(-12, -2)
        magnitude, mass = _folded_probabilities(kind, float(scale), tail)
        before_magnitude, before_mass = _as_before(kind, float(scale), tail)
        assert magnitude.tobytes() == before_magnitude.tobytes() and mass.tobytes() == before_mass.tobytes()


def test_the_kept_whole_numbers_are_numpys_arange_and_read_only():
    from workbench.core.privacy import accuracy

    for stop in (1, 2, 7, 1 << 14, (1 << 14) + 1, 100_003, accuracy._MOST_COUNTED, accuracy._MOST_COUNTED + 5, 40):
        counted = accuracy._counting(stop)
        assert counted.tobytes() == np.arange(0, stop, dtype=float).tobytes()
        if stop <= accuracy._MOST_COUNTED:
            assert not counted.flags.writeable
    assert len(accuracy._COUNTED) <= accuracy._MOST_COUNTED  # never more than 8 MB kept
