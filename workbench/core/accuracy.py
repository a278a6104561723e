"""Error of the noise, from public inputs only: half-widths of intervals that hold the noise.

Discrete Laplace with scale b has P(Z = z) proportional to a^|z|, a = exp(-1/b), so
P(|Z| > t) = 2 a^(t+1) / (1 + a) exactly. For the discrete Gaussian with parameter sigma,
P(Z > t) is at most the continuous Gaussian tail beyond t (its normaliser is at least
that of the continuous density), so the continuous quantile, rounded up, is a valid and
nearly tight bound.
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import Sequence


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, not {confidence!r}")


def discrete_laplace_tail(scale: float, t: int) -> float:
    """P(|Z| > t) for the discrete Laplace distribution with this scale (t >= 0)."""
    log_a = -1.0 / scale
    return 2.0 * math.exp((t + 1) * log_a) / (1.0 + math.exp(log_a))


def discrete_laplace_halfwidth(scale: float, confidence: float) -> int:
    """Smallest integer t >= 0 with P(|Z| > t) <= 1 - confidence."""
    _check_confidence(confidence)
    log_a = -1.0 / scale
    needed = (math.log(2.0) - math.log1p(math.exp(log_a)) - math.log(1.0 - confidence)) / -log_a
    t = max(0, math.ceil(needed) - 1)
    if scale > 1e6:  # past float resolution of the tail: stay on the conservative side by one unit
        return t + 1
    while t > 0 and discrete_laplace_tail(scale, t - 1) <= 1.0 - confidence:
        t -= 1
    while discrete_laplace_tail(scale, t) > 1.0 - confidence:
        t += 1
    return t


def discrete_gaussian_halfwidth(sigma: float, confidence: float) -> int:
    """An integer t with P(|Z| > t) <= 1 - confidence for the discrete Gaussian (conservative)."""
    _check_confidence(confidence)
    return math.ceil(sigma * NormalDist().inv_cdf((1.0 + confidence) / 2.0))


def split_confidence(confidence: float, parts: int) -> float:
    """Per-part confidence so that all parts hold together with ``confidence`` (union bound)."""
    _check_confidence(confidence)
    return 1.0 - (1.0 - confidence) / parts


def noise_probability(kind: str, scale: float, steps: Sequence[float]) -> list[float]:
    """P(noise = z) at the integers ``steps`` (for plots): discrete Laplace exactly; discrete
    Gaussian by its continuous density, which differs from it by less than 1e-8 relative for
    the σ ≥ 1 we use."""
    if scale <= 0:
        return [1.0 if z == 0 else 0.0 for z in steps]
    if kind == "laplace":
        a = math.exp(-1.0 / scale)
        return [(1 - a) / (1 + a) * math.exp(-abs(z) / scale) for z in steps]
    norm = 1.0 / (math.sqrt(2 * math.pi) * scale)
    return [norm * math.exp(-(z * z) / (2 * scale * scale)) for z in steps]
