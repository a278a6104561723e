"""Basic and zero-concentrated DP (zCDP) composition of events.

- basic composition: the ε and the δ of all events add up (exact for pure ε-DP);
- zCDP (Bun & Steinke 2016): a Gaussian event with sensitivity Δ and standard deviation σ
  is ρ-zCDP with ρ = Δ² / (2σ²), also for the multi-dimensional discrete Gaussian (Canonne,
  Kamath & Steinke 2020); an ε-DP event is (ε²/2)-zCDP. The ρ add up and are converted to
  (ε, δ) by OpenDP, the same conversion that calibrated each Gaussian event.

Reads events only; ``composition`` compares these with the PLD accountant (``privacy_loss``).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterable

from workbench.core.privacy import opendp_api as dp
from workbench.core.privacy.events import Guarantee, MechanismEvent
from workbench.core.privacy.mechanisms import zcdp_to_epsilon

dp.enable_features("contrib")

BASIC = "basic composition (the ε and δ of all statistics add up)"
ZCDP = "zero-concentrated DP composition (Bun & Steinke 2016), converted to (ε, δ) by OpenDP"


def basic_composition(events: Iterable[MechanismEvent]) -> Guarantee:
    """The ε and the δ of ``events`` added up: valid for any events."""
    events = list(events)
    return Guarantee(math.fsum(e.epsilon for e in events), math.fsum(e.delta for e in events), BASIC)


def zcdp_applies(events: Iterable[MechanismEvent]) -> bool:
    """Whether every event is zCDP by itself: a Gaussian, or a pure ε-DP event."""
    return all(e.mechanism == "gaussian" or e.delta == 0 for e in events)


def zcdp_composition(events: Iterable[MechanismEvent], delta: float, quick: bool = False) -> Guarantee:
    """The ε of the summed ρ of ``events`` at ``delta`` (every event must be zCDP: ``zcdp_applies``).

    ``quick``: the same CKS20 conversion in Python, without a call into OpenDP per new ρ."""
    rho = math.fsum(e.rho for e in events)
    epsilon = zcdp_to_epsilon(rho, delta) if quick else zcdp_epsilon(rho, delta)
    return Guarantee(epsilon, delta, ZCDP)


@lru_cache(maxsize=4096)
def zcdp_epsilon(rho: float, delta: float) -> float:
    """The ε of a ρ-zCDP mechanism at ``delta``, by OpenDP's conversion."""
    if rho <= 0:
        return 0.0
    # A Gaussian measurement with sensitivity 1 and scale 1/sqrt(2 rho) is exactly rho-zCDP.
    scale = 1.0 / math.sqrt(2.0 * rho)
    while (1.0 / scale) ** 2 / 2.0 < rho:  # float rounding: never understate rho
        scale = math.nextafter(scale, 0.0)
    measurement = dp.m.make_gaussian(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=scale)
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(measurement), delta=delta)
    try:
        return approx.map(1.0)[0]
    except dp.OpenDPException:  # an ε too large to represent (ρ in the thousands): no bound from zCDP
        return math.inf
