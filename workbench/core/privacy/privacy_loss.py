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
from typing import Iterable

import numpy as np

from workbench.core.privacy.events import Guarantee, MechanismEvent

CHECKED_AGAINST = "0.6.0"  # the dp-accounting release whose functions tests/core/privacy/test_accounting.py compares with
INTERVAL = 1e-3  # the coarsest privacy-loss grid; losses are rounded up to the grid
_FINEST_INTERVAL = INTERVAL / 2**20  # about 1e-9: finer grids than this gain nothing a reader sees
_FINE_GRID_POINTS = 1 << 20  # grid points of a composition worth a finer grid (shared by its distinct events)
_MAX_GAUSSIAN_SIGMA = 2_000.0  # above this, the discrete Gaussian is accounted by its (ε, δ)
_GAUSSIAN_TRUNCATION = 11.6  # support ±11.6σ: the mass beyond is below 1e-30 (Canonne et al., as dp-accounting)
_MAX_COMPOSED_SIZE = 1 << 23  # grid points of a composition (its FFT: ~200 MB); beyond, PLD is not attempted


@dataclass(frozen=True, eq=False)
class LossDistribution:
    """Probabilities of the privacy losses ``(lower + i) * interval``, and of an infinite loss."""

    lower: int
    probs: np.ndarray
    infinity: float = 0.0
    interval: float = INTERVAL

    def epsilon_for_delta(self, delta: float) -> float:
        """The smallest ε ≥ 0 whose hockey-stick divergence P(∞) + Σ p_i (1 - e^(ε - L_i))⁺ is at most
        ``delta``: dp-accounting's scan from the largest loss down, done over arrays."""
        if self.infinity > delta:
            return math.inf
        keep = self.probs > 0
        losses = ((self.lower + np.nonzero(keep)[0]) * self.interval)[::-1]  # largest first
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


PLD = "privacy loss distribution accounting (pessimistic PLD, computed as dp-accounting does)"


def pld_composition(events: Iterable[MechanismEvent], delta: float) -> Guarantee:
    """The (ε, ``delta``) of ``events`` together, by PLD accounting."""
    return Guarantee(composed_epsilon(events, delta), delta, PLD)


def composed_epsilon(events: Iterable[MechanismEvent], delta: float) -> float:
    """The ε at which the composition of ``events`` is (ε, ``delta``)-DP, by PLD accounting."""
    return composition(events).epsilon_for_delta(delta)


def composition(events: Iterable[MechanismEvent]) -> LossDistribution:
    """The pessimistic PLD of all ``events`` together, on the grid ``grid_interval`` picks for them."""
    counts = Counter(_key(event) for event in events)
    return _composition(tuple(sorted(counts.items())))


def grid_interval(events: Iterable[MechanismEvent]) -> float:
    """The grid the composition of ``events`` is computed on (tests compare with dp-accounting on it)."""
    counts = Counter(_key(event) for event in events)
    return _grid_interval(tuple(sorted(counts.items())))


@lru_cache(maxsize=8)  # a composition on a fine grid holds up to a few million floats
def _composition(counted_keys: tuple[tuple[tuple, int], ...]) -> LossDistribution:
    """Cached: a release reads the same composition several times (plan, ledger, check, risk curve)."""
    if not counted_keys:
        return LossDistribution(0, np.ones(1))
    interval = _grid_interval(counted_keys)
    return compose([(_event_pld(*key, interval), times) for key, times in counted_keys])


def _grid_interval(counted_keys: tuple[tuple[tuple, int], ...]) -> float:
    """The finest grid INTERVAL / 2^k on which the composition has at most about ``_FINE_GRID_POINTS``
    points over its distinct events (one transform each), and never a coarser grid than INTERVAL."""
    span = sum(_loss_span(*key) * times for key, times in counted_keys)  # of the composed losses
    points = max(_FINE_GRID_POINTS // len(counted_keys), 1)
    interval = INTERVAL
    while interval / 2 >= _FINEST_INTERVAL and span / (interval / 2) <= points:
        interval /= 2
    return interval


def _loss_span(mechanism: str, steps: int, scale: float, epsilon: float, delta: float) -> float:
    """The width of the range of finite privacy losses of one event's PLD."""
    if mechanism == "laplace":
        return 2.0 * steps / scale
    if mechanism == "gaussian" and 0 < steps and scale <= _MAX_GAUSSIAN_SIGMA:
        bound = math.ceil(_GAUSSIAN_TRUNCATION * scale)
        return steps * max(2 * bound - steps, 0) / scale**2
    return 2.0 * epsilon if math.isfinite(epsilon) else 0.0


def compose(parts: list[tuple[LossDistribution, int]]) -> LossDistribution:
    """The PLD of running every part its number of times: one FFT of each distinct PLD, raised
    to its count, multiplied, and transformed back (as dp-accounting composes, without its tail
    truncation). Infinite losses compose as 1 - Π(1 - P(∞))^count. All parts share one grid."""
    interval = parts[0][0].interval
    if any(pld.interval != interval for pld, _ in parts):
        raise ValueError("the loss distributions to compose are on different grids")
    lower = sum(pld.lower * times for pld, times in parts)
    size = sum((len(pld.probs) - 1) * times for pld, times in parts) + 1
    survive = math.prod((1.0 - pld.infinity) ** times for pld, times in parts)
    if size > _MAX_COMPOSED_SIZE:
        return LossDistribution(lower, np.zeros(1), 1.0, interval)  # too fine to compute: ε = ∞ (others are used)
    length = 1 << (size - 1).bit_length()
    spectrum = np.ones(length // 2 + 1, dtype=np.complex128)
    for pld, times in parts:
        spectrum *= np.fft.rfft(pld.probs, length) ** times
    probs = np.maximum(np.fft.irfft(spectrum, length)[:size], 0.0)  # FFT rounding can leave -1e-18
    return LossDistribution(lower, probs, 1.0 - survive, interval)


def _key(event: MechanismEvent) -> tuple:
    if event.scalar and event.mechanism in ("laplace", "gaussian") and event.scale > 0:
        steps = event.sensitivity / event.unit  # an integer: sensitivities are counted in grid steps
        return (event.mechanism, int(round(steps)), event.scale / event.unit, event.epsilon, event.delta)
    return ("any", 0, 0.0, event.epsilon, event.delta)


@lru_cache(maxsize=1024)
def _event_pld(
    mechanism: str, steps: int, scale: float, epsilon: float, delta: float, interval: float = INTERVAL
) -> LossDistribution:
    if mechanism == "laplace" and steps == 0:  # a query no person can move
        return LossDistribution(0, np.ones(1), 0.0, interval)
    if mechanism == "laplace":
        return discrete_laplace_pld(scale, steps, interval)
    if mechanism == "gaussian" and 0 < steps and scale <= _MAX_GAUSSIAN_SIGMA:
        return discrete_gaussian_pld(scale, steps, interval)
    return worst_case_pld(epsilon, delta, interval)


def _bucket(loss: float, interval: float) -> int:
    """The grid point a loss is rounded up to (exact multiples stay put despite float rounding)."""
    return math.ceil(loss / interval - 1e-9)


def _dense(masses: dict[int, float], infinity: float, interval: float) -> LossDistribution:
    lower = min(masses)
    probs = np.zeros(max(masses) - lower + 1)
    for bucket, mass in masses.items():
        probs[bucket - lower] += mass
    return LossDistribution(lower, probs, infinity, interval)


def discrete_laplace_pld(scale: float, sensitivity: int, interval: float = INTERVAL) -> LossDistribution:
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
    pmf[_bucket(sensitivity * inv, interval)] += 1.0 / one_plus_q
    pmf[_bucket(-sensitivity * inv, interval)] += math.exp(-sensitivity * inv) / one_plus_q
    if sensitivity > 1:
        first, mass = _laplace_between(sensitivity, scale, interval)
        for offset in np.nonzero(mass)[0]:
            pmf[first + int(offset)] += float(mass[offset]) / one_plus_q
    return _dense(pmf, 0.0, interval)


def _laplace_between(sensitivity: int, scale: float, interval: float) -> tuple[int, np.ndarray]:
    """The buckets of the losses (Δ - 2x)/scale of x in (0, Δ), from the lowest bucket up, and
    their masses times (1 + q). Over the x themselves where they are few; otherwise over the
    buckets, each holding the range x ∈ [(Δ - i·h·s)/2, (Δ - (i-1)·h·s)/2) whose mass is
    q^first - q^end. An x on a boundary goes to the higher bucket (rounding up, never down)."""
    inv = 1.0 / scale
    low = _bucket((2 - sensitivity) * inv, interval)  # the bucket of x = Δ - 1
    high = _bucket((sensitivity - 2) * inv, interval)  # the bucket of x = 1
    if sensitivity - 1 <= 4 * (high - low + 1):
        x = np.arange(1, sensitivity, dtype=np.float64)
        buckets = np.ceil((sensitivity - 2.0 * x) * inv / interval - 1e-9).astype(np.int64)
        mass = np.exp(-x * inv) * -math.expm1(-inv)
        return int(buckets.min()), np.bincount(buckets - buckets.min(), weights=mass)
    i = np.arange(low, high + 1, dtype=np.float64)
    guard = 1e-9 * (1.0 + interval * scale) + 1e-12 * sensitivity  # float slack, to the higher bucket
    # bucket i holds x in [firsts_i, firsts_(i-1)): x falls as i rises; the lowest reaches Δ - 1, the highest 1
    firsts = np.clip(np.ceil((sensitivity - i * interval * scale) / 2.0 + guard), 1.0, float(sensitivity))
    firsts[-1] = 1.0
    tops = np.append(float(sensitivity), firsts[:-1])
    mass = np.exp(-firsts * inv) * -np.expm1(-(tops - firsts) * inv)
    return low, mass


def discrete_gaussian_pld(sigma: float, sensitivity: int, interval: float = INTERVAL) -> LossDistribution:
    """The pessimistically rounded PLD of the discrete Gaussian P(x) ∝ exp(-x²/2σ²) shifted by
    Δ = ``sensitivity``: the loss at x is (Δ² - 2xΔ)/(2σ²), listed over the support ±T with
    T = 11.6σ (as dp-accounting). Outputs the neighbour gives only beyond T (x below Δ - T), and
    the tails beyond ±T themselves (below 1e-30), count as an infinite loss: OpenDP samples the
    untruncated distribution, so its tails are not renormalised away as for a truncated one."""
    if sensitivity < 1 or sigma <= 0:
        raise ValueError("the sensitivity must be a positive integer and sigma positive")
    bound = math.ceil(_GAUSSIAN_TRUNCATION * sigma)
    if 2 * bound < sensitivity:
        return worst_case_pld(math.inf, 0.0, interval)
    x = np.arange(-bound, bound + 1, dtype=np.float64)
    log_mass = -0.5 * x**2 / sigma**2
    mass = np.exp(log_mass - log_mass.max())
    listed = mass.sum()  # the normaliser over ±T, at most the true one: listed masses are overstated
    # Σ_{|x|>T} e^(-x²/2σ²) <= 2∫_T^∞ e^(-t²/2σ²) dt = σ√(2π)·erfc(T/(σ√2)), and the normaliser is >= 1
    tails = min(1.0, sigma * math.sqrt(2 * math.pi) * math.erfc(bound / (sigma * math.sqrt(2))))
    mass /= listed
    finite = x >= sensitivity - bound
    losses = (sensitivity**2 - 2.0 * x[finite] * sensitivity) / (2.0 * sigma**2)
    buckets = np.ceil(losses / interval - 1e-9).astype(np.int64)
    lower = int(buckets.min())
    probs = np.bincount(buckets - lower, weights=mass[finite])
    return LossDistribution(lower, probs, min(1.0, float(mass[~finite].sum()) + tails), interval)


def worst_case_pld(epsilon: float, delta: float, interval: float = INTERVAL) -> LossDistribution:
    """The PLD that dominates every (ε, δ)-DP mechanism (Kairouz, Oh & Viswanath 2015), as
    dp-accounting's ``from_privacy_parameters``: loss ε with mass (1-δ)/(1+e^-ε), -ε with mass
    (1-δ)e^-ε/(1+e^-ε), and ∞ with mass δ."""
    if math.isinf(epsilon):
        return LossDistribution(0, np.zeros(1), 1.0, interval)
    if epsilon == 0:
        return LossDistribution(0, np.array([1.0 - delta]), delta, interval)
    low = math.exp(-epsilon) / (1.0 + math.exp(-epsilon))
    high = 1.0 / (1.0 + math.exp(-epsilon))
    masses: dict[int, float] = Counter()
    masses[_bucket(epsilon, interval)] += (1.0 - delta) * high
    masses[_bucket(-epsilon, interval)] += (1.0 - delta) * low
    return _dense(masses, delta, interval)
