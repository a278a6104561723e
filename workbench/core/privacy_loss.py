"""Privacy loss distributions (PLD) of our events, and their composition.

The PLD of a mechanism is the distribution of ln(P(output | D) / P(output | D')) for the
worst pair of neighbours; composing mechanisms convolves their PLDs, and the (ε, δ) read
off the result is the tightest that any accountant can prove for the composition
(Meiser & Mohammadi 2018; Koskela et al. 2020). Every PLD here is *pessimistic*:
privacy losses are rounded up onto a grid of width ``INTERVAL``, so the ε it reports is an
upper bound, never an underestimate.

This is dp-accounting's "privacy buckets" construction and its FFT composition, written
over numpy arrays. Why by hand, although DESIGN.md has dp-accounting do PLD composition:
dp-accounting composed a 1,000-statistic ledger in about 6 s (its truncation bounds go
through SciPy's logsumexp, its discrete Gaussian PLD loops in Python), where the preview
and the ledger need well under a second (benchmarks/compose_1000.py: about 50 ms here);
and importing it imports SciPy, which cost seconds at every start and 74 MB in the
desktop bundle. Tests check every event's PLD, compositions and the ε read off them
against dp-accounting's own functions, release ``CHECKED_AGAINST``, which --version and
every report name.

Per event:

- a one-number query with discrete Laplace noise: its exact PLD in closed form (so that the
  integer sensitivities of sums on a fine grid, up to 2^40, cost nothing);
- a one-number query with discrete Gaussian noise whose support can be enumerated: its PLD
  over that support (as dp-accounting's ``from_discrete_gaussian_mechanism``);
- anything else (a vector of counts, a very wide Gaussian): the worst PLD of any mechanism
  with that event's (ε, δ), which is valid for every (ε, δ)-DP mechanism.

All of these PLDs are the same for adding and for removing a person, so one distribution
per event is composed.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

import numpy as np

if TYPE_CHECKING:
    from workbench.core.accounting import MechanismEvent

CHECKED_AGAINST = "0.6.0"  # the dp-accounting release whose functions tests/core/test_accounting.py compares with
INTERVAL = 1e-3  # width of the privacy-loss grid; losses are rounded up to it
_MAX_GAUSSIAN_SIGMA = 2_000.0  # above this, the discrete Gaussian is accounted by its (ε, δ)
_GAUSSIAN_TRUNCATION = 11.6  # support ±11.6σ: the mass beyond is below 1e-30 (Canonne et al., as dp-accounting)
_MAX_COMPOSED_SIZE = 1 << 23  # grid points of a composition (its FFT: ~200 MB); beyond, PLD is not attempted


@dataclass(frozen=True, eq=False)
class LossDistribution:
    """Probabilities of the privacy losses ``(lower + i) * INTERVAL``, and of an infinite loss."""

    lower: int
    probs: np.ndarray
    infinity: float = 0.0

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε ≥ 0 whose hockey-stick divergence P(∞) + Σ p_i (1 - e^(ε - L_i))⁺ is at most
        ``delta``: dp-accounting's scan from the largest loss down, done over arrays."""
        if self.infinity > delta:
            return math.inf
        keep = self.probs > 0
        losses = ((self.lower + np.nonzero(keep)[0]) * INTERVAL)[::-1]  # largest first
        probs = self.probs[keep][::-1]
        if not len(losses):
            return 0.0
        with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
            upper_after = self.infinity + np.cumsum(probs)  # mass of the losses scanned so far, and ∞
            lower_after = np.cumsum(probs * np.exp(-losses))  # the same, discounted by e^-L
            upper = np.append(self.infinity, upper_after[:-1])  # before scanning loss j
            lower = np.append(0.0, lower_after[:-1])
            # ε is at least loss j (which then does not count) when log((upper - δ)/lower) >= L_j
            stops = (upper > delta) & (lower > 0) & (np.log((upper - delta) / lower) >= losses)
            # e^-L underflowed to 0 for every loss scanned: ε is that (huge) loss
            underflows = (upper_after >= delta) & (lower_after == 0)
        stop = int(np.argmax(stops)) if stops.any() else len(losses)
        underflow = int(np.argmax(underflows)) if underflows.any() else len(losses)
        if underflow < stop:
            return max(0.0, float(losses[underflow]))
        mass_upper = float(upper[stop]) if stop < len(losses) else float(upper_after[-1])
        mass_lower = float(lower[stop]) if stop < len(losses) else float(lower_after[-1])
        if mass_upper <= mass_lower + delta:
            return 0.0
        return math.log((mass_upper - delta) / mass_lower)


def composed_epsilon(events: Iterable["MechanismEvent"], delta: float) -> float:
    """The ε at which the composition of ``events`` is (ε, ``delta``)-DP, by PLD accounting."""
    counts = Counter(_key(event) for event in events)
    return _composed_epsilon(tuple(sorted(counts.items())), delta)


@lru_cache(maxsize=256)
def _composed_epsilon(counted_keys: tuple[tuple[tuple, int], ...], delta: float) -> float:
    """Cached: a release asks for the same composition several times (plan, ledger, check)."""
    if not counted_keys:
        return 0.0
    composed = compose([(_event_pld(*key), times) for key, times in counted_keys])
    return composed.epsilon_for_delta(delta)


def compose(parts: list[tuple[LossDistribution, int]]) -> LossDistribution:
    """The PLD of running every part its number of times: one FFT of each distinct PLD, raised
    to its count, multiplied, and transformed back (as dp-accounting composes, without its tail
    truncation). Infinite losses compose as 1 - Π(1 - P(∞))^count."""
    lower = sum(pld.lower * times for pld, times in parts)
    size = sum((len(pld.probs) - 1) * times for pld, times in parts) + 1
    survive = math.prod((1.0 - pld.infinity) ** times for pld, times in parts)
    if size > _MAX_COMPOSED_SIZE:
        return LossDistribution(lower, np.zeros(1), 1.0)  # too fine to compute: reports ε = ∞ (others are used)
    length = 1 << (size - 1).bit_length()
    spectrum = np.ones(length // 2 + 1, dtype=np.complex128)
    for pld, times in parts:
        spectrum *= np.fft.rfft(pld.probs, length) ** times
    probs = np.maximum(np.fft.irfft(spectrum, length)[:size], 0.0)  # FFT rounding can leave -1e-18
    return LossDistribution(lower, probs, 1.0 - survive)


def _key(event: "MechanismEvent") -> tuple:
    if event.scalar and event.mechanism in ("laplace", "gaussian") and event.scale > 0:
        steps = event.sensitivity / event.unit  # an integer: sensitivities are counted in grid steps
        return (event.mechanism, int(round(steps)), event.scale / event.unit, event.epsilon, event.delta)
    return ("any", 0, 0.0, event.epsilon, event.delta)


@lru_cache(maxsize=1024)
def _event_pld(mechanism: str, steps: int, scale: float, epsilon: float, delta: float) -> LossDistribution:
    if mechanism == "laplace" and steps == 0:  # a query no person can move
        return LossDistribution(0, np.ones(1))
    if mechanism == "laplace":
        return discrete_laplace_pld(scale, steps)
    if mechanism == "gaussian" and 0 < steps and scale <= _MAX_GAUSSIAN_SIGMA:
        return discrete_gaussian_pld(scale, steps)
    return worst_case_pld(epsilon, delta)


def _bucket(loss: float) -> int:
    """The grid point a loss is rounded up to (exact multiples stay put despite float rounding)."""
    return math.ceil(loss / INTERVAL - 1e-9)


def _dense(masses: dict[int, float], infinity: float = 0.0) -> LossDistribution:
    lower = min(masses)
    probs = np.zeros(max(masses) - lower + 1)
    for bucket, mass in masses.items():
        probs[bucket - lower] += mass
    return LossDistribution(lower, probs, infinity)


def discrete_laplace_pld(scale: float, sensitivity: int) -> LossDistribution:
    """The exact, pessimistically rounded PLD of discrete Laplace noise P(x) ∝ exp(-|x|/scale).

    With X centred on 0 and the neighbour's output centred on Δ = ``sensitivity``, the loss
    at x is (|x - Δ| - |x|) / scale: +Δ/scale for x <= 0 (mass 1/(1+q), q = exp(-1/scale)),
    -Δ/scale for x >= Δ (mass q^Δ/(1+q)), and (Δ - 2x)/scale in between (mass
    q^x (1-q)/(1+q)). The integers x whose loss rounds up to the same grid point form a
    range, whose mass is a geometric sum. The PLD is the same for adding and removing.
    """
    if sensitivity < 1 or scale <= 0:
        raise ValueError("the sensitivity must be a positive integer and the scale positive")
    inv = 1.0 / scale
    one_plus_q = 1.0 + math.exp(-inv)
    pmf: dict[int, float] = Counter()
    pmf[_bucket(sensitivity * inv)] += 1.0 / one_plus_q
    pmf[_bucket(-sensitivity * inv)] += math.exp(-sensitivity * inv) / one_plus_q
    # x in (0, Δ): loss (Δ - 2x)/scale lies in ((i-1)h, ih] for x in [(Δ - i h s)/2, (Δ - (i-1) h s)/2).
    x = 1
    while x < sensitivity:
        i = _bucket((sensitivity - 2 * x) * inv)
        # the last x that lands in the same bucket i: (Δ - 2x)/scale > (i - 1) h
        last = math.ceil((sensitivity - (i - 1) * INTERVAL * scale) / 2.0) - 1
        last = min(max(last, x), sensitivity - 1)
        while last > x and _bucket((sensitivity - 2 * last) * inv) != i:  # float guard at the boundary
            last -= 1
        while last + 1 < sensitivity and _bucket((sensitivity - 2 * (last + 1)) * inv) == i:
            last += 1
        # sum_{y=x}^{last} q^y (1-q) = q^x - q^(last+1)
        mass = math.exp(-x * inv) * -math.expm1(-(last + 1 - x) * inv) / one_plus_q
        pmf[i] += mass
        x = last + 1
    return _dense(pmf)


def discrete_gaussian_pld(sigma: float, sensitivity: int) -> LossDistribution:
    """The pessimistically rounded PLD of the discrete Gaussian P(x) ∝ exp(-x²/2σ²) shifted by
    Δ = ``sensitivity``, over the support ±11.6σ (as dp-accounting; the mass beyond is below
    1e-30): the loss at x is (Δ² - 2xΔ)/(2σ²); outputs the neighbour cannot give (x below
    Δ - T) have an infinite loss."""
    if sensitivity < 1 or sigma <= 0:
        raise ValueError("the sensitivity must be a positive integer and sigma positive")
    bound = math.ceil(_GAUSSIAN_TRUNCATION * sigma)
    if 2 * bound < sensitivity:
        return worst_case_pld(math.inf, 0.0)
    x = np.arange(-bound, bound + 1, dtype=np.float64)
    log_mass = -0.5 * x**2 / sigma**2
    mass = np.exp(log_mass - log_mass.max())
    mass /= mass.sum()
    finite = x >= sensitivity - bound
    losses = (sensitivity**2 - 2.0 * x[finite] * sensitivity) / (2.0 * sigma**2)
    buckets = np.ceil(losses / INTERVAL).astype(np.int64)
    lower = int(buckets.min())
    probs = np.bincount(buckets - lower, weights=mass[finite])
    return LossDistribution(lower, probs, float(mass[~finite].sum()))


def worst_case_pld(epsilon: float, delta: float) -> LossDistribution:
    """The PLD that dominates every (ε, δ)-DP mechanism (Kairouz, Oh & Viswanath 2015), as
    dp-accounting's ``from_privacy_parameters``: loss ε with mass (1-δ)/(1+e^-ε), -ε with mass
    (1-δ)e^-ε/(1+e^-ε), and ∞ with mass δ."""
    if math.isinf(epsilon):
        return LossDistribution(0, np.zeros(1), 1.0)
    if epsilon == 0:
        return LossDistribution(0, np.array([1.0 - delta]), delta)
    low = math.exp(-epsilon) / (1.0 + math.exp(-epsilon))
    high = 1.0 / (1.0 + math.exp(-epsilon))
    masses: dict[int, float] = Counter()
    masses[_bucket(epsilon)] += (1.0 - delta) * high
    masses[_bucket(-epsilon)] += (1.0 - delta) * low
    return _dense(masses, delta)
