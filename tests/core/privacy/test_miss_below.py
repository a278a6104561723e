"""A combined half-width's miss (issue 39, 6): the tails below k = 1 (Laplace), or below 0 (the Gaussian's erfc),
are found by a binary search where the shifts rise from 0 (a mean's), by a mask otherwise; either way every miss is
the mask's, to the bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from workbench.core.privacy import accuracy


def _masked_miss(kind: str, scale: float, a: float, shift: np.ndarray, mass: np.ndarray, cut: float):
    """The miss as written before: the tails below k = 1 (or the erfc's x below 0) found by a mask over both halves."""
    n = len(shift)
    both = np.concatenate([-shift, shift])
    if kind == "gaussian":

        def gaussian_miss(t: float) -> float:
            x = np.add(t, both)
            x /= a
            np.floor(x, out=x)
            x += 1.0
            x -= 1.0
            x /= scale * math.sqrt(2.0)
            tails = accuracy._erfc(x)  # its own mask
            tails *= 0.5
            pairs = tails[:n] + tails[n:]
            pairs *= mass
            return float(np.sum(pairs)) + cut

        return gaussian_miss
    log_q = -1.0 / scale
    one_plus_q = 1.0 + math.exp(log_q)

    def miss(t: float) -> float:
        k = np.add(t, both)
        k /= a
        np.floor(k, out=k)
        k += 1.0
        below = ~(k >= 1)
        lower = None
        if below.any():
            lower = np.subtract(1.0, k[below])
            lower *= log_q
            np.exp(lower, out=lower)
            lower /= one_plus_q
            np.subtract(1.0, lower, out=lower)
            k[below] = 0.0
        k *= log_q
        np.exp(k, out=k)
        k /= one_plus_q
        if lower is not None:
            k[below] = lower
        pairs = k[:n] + k[n:]
        pairs *= mass
        return float(np.sum(pairs)) + cut

    return miss


@pytest.mark.parametrize("kind", ["laplace", "gaussian"])
def test_every_miss_is_the_masks_to_the_bit(kind):
    rng = np.random.default_rng(396)
    for _ in range(150):
        scale_b, cut = 10 ** rng.uniform(-0.3, 4.5), 10 ** rng.uniform(-8, -3)
        magnitude, mass = accuracy._folded_magnitudes(kind, scale_b, cut)
        scale_a, a = 10 ** rng.uniform(-0.3, 9), 10 ** rng.uniform(-9, 2)
        shift = 10 ** rng.uniform(-4, 6) * magnitude
        if rng.uniform() < 0.2:  # shifts that do not rise: the mask's way
            shift = rng.permutation(shift)
        reach = a * (accuracy.discrete_laplace_halfwidth(scale_a, 0.999) + 2) + float(shift[-1])
        fast = accuracy._miss(kind, scale_a, a, shift, mass, cut)
        masked = _masked_miss(kind, scale_a, a, shift, mass, cut)
        for t in [0.0, reach, *rng.uniform(0, reach, 20), *rng.uniform(-reach, 0, 3)]:
            assert fast(float(t)) == masked(float(t))
