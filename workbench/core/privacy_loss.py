"""Privacy loss distributions (PLD) of our events, and their composition via dp-accounting.

The PLD of a mechanism is the distribution of ln(P(output | D) / P(output | D')) for the
worst pair of neighbours; composing mechanisms convolves their PLDs, and the (ε, δ) read
off the result is the tightest that any accountant can prove for the composition
(Meiser & Mohammadi 2018; Koskela et al. 2020). Every PLD here is *pessimistic*:
privacy losses are rounded up onto a grid of width ``INTERVAL``, so the ε it reports is an
upper bound, never an underestimate.

Per event:

- a one-number query with discrete Laplace noise: its exact PLD, built in closed form (so
  that the integer sensitivities of sums on a fine grid, up to 2^40, cost nothing);
- a one-number query with discrete Gaussian noise whose support dp-accounting can
  enumerate: dp-accounting's own discrete Gaussian PLD;
- anything else (a vector of counts, a very wide Gaussian): the worst PLD of any
  mechanism with that event's (ε, δ), which is valid for every (ε, δ)-DP mechanism.
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from dp_accounting.pld import privacy_loss_distribution as pld

    from workbench.core.accounting import MechanismEvent

INTERVAL = 1e-3  # width of the privacy-loss grid; losses are rounded up to it
TAIL_TRUNCATION = 1e-15  # probability mass moved to "infinite loss" when composing (pessimistic)
_MAX_GAUSSIAN_SIGMA = 2_000.0  # above this, enumerating the discrete Gaussian costs too much


def composed_epsilon(events: Iterable["MechanismEvent"], delta: float) -> float:
    """The ε at which the composition of ``events`` is (ε, ``delta``)-DP, by PLD accounting."""
    counts = Counter(_key(event) for event in events)
    return _composed_epsilon(tuple(sorted(counts.items())), delta)


@lru_cache(maxsize=256)
def _composed_epsilon(counted_keys: tuple[tuple[tuple, int], ...], delta: float) -> float:
    """Cached: a release asks for the same composition several times (plan, ledger, check)."""
    total = None
    for key, times in counted_keys:
        part = _event_pld(*key)
        if times > 1:
            part = part.self_compose(times, tail_mass_truncation=TAIL_TRUNCATION)
        total = part if total is None else total.compose(part, tail_mass_truncation=TAIL_TRUNCATION)
    if total is None:
        return 0.0
    return max(total.get_epsilon_for_delta(delta), 0.0)


def _key(event: "MechanismEvent") -> tuple:
    if event.scalar and event.mechanism in ("laplace", "gaussian") and event.scale > 0:
        steps = event.sensitivity / event.unit  # an integer: sensitivities are counted in grid steps
        return (event.mechanism, int(round(steps)), event.scale / event.unit, event.epsilon, event.delta)
    return ("any", 0, 0.0, event.epsilon, event.delta)


@lru_cache(maxsize=1024)
def _event_pld(mechanism: str, steps: int, scale: float, epsilon: float, delta: float) -> pld.PrivacyLossDistribution:
    # imported here: dp-accounting brings SciPy (more than a second), needed only once something is composed
    from dp_accounting.pld import common, privacy_loss_distribution as pld

    if mechanism == "laplace" and steps == 0:  # a query no person can move
        return pld.identity(INTERVAL)
    if mechanism == "laplace":
        return discrete_laplace_pld(scale, steps)
    if mechanism == "gaussian" and 0 < steps and scale <= _MAX_GAUSSIAN_SIGMA:
        return pld.from_discrete_gaussian_mechanism(scale, sensitivity=steps, value_discretization_interval=INTERVAL)
    return pld.from_privacy_parameters(common.DifferentialPrivacyParameters(epsilon, delta), INTERVAL)


def discrete_laplace_pld(scale: float, sensitivity: int) -> pld.PrivacyLossDistribution:
    """The exact, pessimistically rounded PLD of discrete Laplace noise P(x) ∝ exp(-|x|/scale).

    With X centred on 0 and the neighbour's output centred on Δ = ``sensitivity``, the loss
    at x is (|x - Δ| - |x|) / scale: +Δ/scale for x <= 0 (mass 1/(1+q), q = exp(-1/scale)),
    -Δ/scale for x >= Δ (mass q^Δ/(1+q)), and (Δ - 2x)/scale in between (mass
    q^x (1-q)/(1+q)). The integers x whose loss rounds up to the same grid point form a
    range, whose mass is a geometric sum. The PLD is the same for adding and removing.
    """
    from dp_accounting.pld import privacy_loss_distribution as pld

    if sensitivity < 1 or scale <= 0:
        raise ValueError("the sensitivity must be a positive integer and the scale positive")
    inv = 1.0 / scale
    one_plus_q = 1.0 + math.exp(-inv)
    bucket = lambda loss: math.ceil(loss / INTERVAL - 1e-9)  # noqa: E731 - tolerance: exact multiples stay put
    pmf: dict[int, float] = Counter()
    pmf[bucket(sensitivity * inv)] += 1.0 / one_plus_q
    pmf[bucket(-sensitivity * inv)] += math.exp(-sensitivity * inv) / one_plus_q
    # x in (0, Δ): loss (Δ - 2x)/scale lies in ((i-1)h, ih] for x in [(Δ - i h s)/2, (Δ - (i-1) h s)/2).
    x = 1
    while x < sensitivity:
        i = bucket((sensitivity - 2 * x) * inv)
        # the last x that lands in the same bucket i: (Δ - 2x)/scale > (i - 1) h
        last = math.ceil((sensitivity - (i - 1) * INTERVAL * scale) / 2.0) - 1
        last = min(max(last, x), sensitivity - 1)
        while last > x and bucket((sensitivity - 2 * last) * inv) != i:  # float guard at the boundary
            last -= 1
        while last + 1 < sensitivity and bucket((sensitivity - 2 * (last + 1)) * inv) == i:
            last += 1
        # sum_{y=x}^{last} q^y (1-q) = q^x - q^(last+1)
        mass = math.exp(-x * inv) * -math.expm1(-(last + 1 - x) * inv) / one_plus_q
        pmf[i] += mass
        x = last + 1
    return pld.PrivacyLossDistribution.create_from_rounded_probability(dict(pmf), 0.0, INTERVAL)
