"""Privacy events and their composition.

Modelled after ``dp_accounting``: each noisy query becomes a small immutable event, and
``compose`` turns a sequence of events into one (ε, δ) guarantee, naming its method.
Three accountants, each valid where it applies, and the tightest is used:

- basic composition: the ε and the δ of all events add up (exact for pure ε-DP);
- zero-concentrated DP (Bun & Steinke 2016): a Gaussian event with sensitivity Δ and
  standard deviation σ is ρ-zCDP with ρ = Δ² / (2σ²), also for the multi-dimensional
  discrete Gaussian (Canonne, Kamath & Steinke 2020); an ε-DP event is (ε²/2)-zCDP;
  the ρ add up and are converted to (ε, δ) by OpenDP, the same conversion that
  calibrated each Gaussian event. It is tried whenever a δ > 0 is allowed and every event is
  Gaussian or pure, so many small pure statistics also gain from it when PLD is skipped;
- privacy loss distributions (``privacy_loss``, dp-accounting's method over numpy arrays,
  checked against dp-accounting in the tests): numerically the tightest, and the one that lets
  many Laplace statistics share a budget with δ > 0; its grid is chosen from the events.

The tightest valid result is used. Parallel composition needs no accountant of its own:
a statistic by group is one query over all its groups, whose sensitivity counts how many
groups one person can touch (``sensitivity.grouped``), so ε is spent once, not per group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from workbench.core.privacy import opendp_api as dp

from workbench.core.privacy import privacy_loss
from workbench.core.privacy.mechanisms import Noise, zcdp_to_epsilon

dp.enable_features("contrib")


@dataclass(frozen=True)
class MechanismEvent:
    """One noisy query: which mechanism, how sensitive, how much noise, what it costs.

    ``sensitivity`` and ``scale`` are in the statistic's own units; ``unit`` is the value of
    one integer step of the noise (so ``sensitivity / unit`` is an integer). ``scalar`` says
    the query is one number; a vector (a histogram, a statistic by group) is accounted
    by its (ε, δ) alone where a finer analysis would need the shape of its sensitivity.
    """

    label: str
    mechanism: str
    sensitivity: float
    scale: float
    epsilon: float
    delta: float
    unit: float = 1.0
    scalar: bool = False

    @classmethod
    def from_noise(cls, label: str, noise: Noise, unit: float = 1.0, scalar: bool = False) -> "MechanismEvent":
        """The event of ``noise`` on integers worth ``unit`` each."""
        return cls(
            label, noise.kind.value, noise.sensitivity * unit, noise.scale * unit, noise.epsilon, noise.delta,
            unit, scalar,
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "MechanismEvent":
        """Read an event written by ``to_json`` (older records without unit/scalar: the cautious default)."""
        return cls(
            data["query"], data["mechanism"], data["sensitivity"], data["scale"], data["epsilon"], data["delta"],
            data.get("unit", 1.0), bool(data.get("scalar", False)),
        )

    @property
    def rho(self) -> float:
        """The zCDP parameter of this event: Δ²/(2σ²) for a Gaussian, ε²/2 for any ε-DP event.

        (OpenDP's pure-DP quantile uses permute-and-flip, which is not known to have the
        exponential mechanism's bounded range, so it gets the general ε²/2, not ε²/8.)"""
        if self.mechanism == "gaussian" and self.scale > 0:
            return (self.sensitivity / self.scale) ** 2 / 2.0
        return self.epsilon**2 / 2.0

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.label,
            "mechanism": self.mechanism,
            "sensitivity": self.sensitivity,
            "scale": self.scale,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "unit": self.unit,
            "scalar": self.scalar,
        }


@dataclass(frozen=True)
class Guarantee:
    """A total (ε, δ) and the composition method that proves it."""

    epsilon: float
    delta: float
    method: str

    def to_json(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "method": self.method}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Guarantee":
        return cls(float(data["epsilon"]), float(data["delta"]), str(data.get("method", "")))


BUDGET_TOLERANCE = 1e-9  # relative; absorbs float rounding when ε of parts add up to a total


def overspend(spent: Guarantee, epsilon: float, delta: float) -> tuple[float, float] | None:
    """By how much ``spent`` exceeds the budget (ε, δ), or None if it fits (up to float rounding)."""
    over_epsilon, over_delta = spent.epsilon - epsilon, spent.delta - delta
    if over_epsilon > BUDGET_TOLERANCE * epsilon or over_delta > BUDGET_TOLERANCE * max(delta, 1e-300):
        return max(over_epsilon, 0.0), max(over_delta, 0.0)
    return None


BASIC = "basic composition (the ε and δ of all statistics add up)"
ZCDP = "zero-concentrated DP composition (Bun & Steinke 2016), converted to (ε, δ) by OpenDP"
PLD = "privacy loss distribution accounting (pessimistic PLD, computed as dp-accounting does)"
PREFER_BASIC_WITHIN = 1e-3  # relative ε a tighter accountant must save to be worth its larger δ


def spent_in_words(spent: Guarantee, budget: Guarantee) -> str:
    """What a dataset has spent of its budget, in words that cannot be read as 'all of δ is gone'.

    Under basic composition the δ of the releases add up, so a spent δ is a share of the budget's
    δ. The other accountants state the ε of all releases together at the budget's own δ: there the
    δ is the fixed small chance that the guarantee fails, not an amount used up."""
    if spent.method == BASIC or budget.delta == 0:
        return (f"spent ε = {spent.epsilon:.4g}, δ = {spent.delta:.3g} of its total ε = {budget.epsilon:g}, "
                f"δ = {budget.delta:g}")
    return (f"spent ε = {spent.epsilon:.4g} of its total ε = {budget.epsilon:g}; δ = {budget.delta:g} is the fixed "
            "small chance that the guarantee fails, stated with every ε here, not an amount used up")


def compose(events: Iterable[MechanismEvent], delta: float | None = None, tight: bool = True) -> Guarantee:
    """The smallest ε that a valid accountant proves for ``events`` at the given δ.

    ``delta`` defaults to the sum of the events' δ. Basic composition is valid when that
    sum is at most ``delta``; zCDP and PLD accounting are valid for any ``delta`` > 0.
    ``tight=False`` skips PLD accounting (tenths of a second for a thousand distinct
    events) where a quick, still valid, answer is wanted, e.g. while a slider moves.
    """
    events = list(events)
    basic = Guarantee(math.fsum(e.epsilon for e in events), math.fsum(e.delta for e in events), BASIC)
    target = basic.delta if delta is None else delta
    candidates = [basic] if basic.delta <= target else []
    if target > 0 and events and all(e.mechanism == "gaussian" or e.delta == 0 for e in events):
        rho = math.fsum(e.rho for e in events)  # every Gaussian is zCDP, and so is every pure ε-DP event
        # quick: the same CKS20 conversion in Python, without a call into OpenDP per new rho
        epsilon = zcdp_epsilon(rho, target) if tight else zcdp_to_epsilon(rho, target)
        candidates.append(Guarantee(epsilon, target, ZCDP))
    if tight and target > 0 and len(events) > 1:
        candidates.append(Guarantee(privacy_loss.composed_epsilon(events, target), target, PLD))
    if not candidates:
        return basic  # no accountant reaches the target δ; the caller sees δ above it
    best = min(candidates, key=lambda g: g.epsilon)
    if candidates[0] is basic and basic.epsilon <= best.epsilon * (1 + PREFER_BASIC_WITHIN):
        return basic  # as good, with a smaller δ and a one-line proof
    return best


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


SAMPLING_CONDITIONS = (
    "The file must be a sample in which every person of the population was included independently with "
    "the stated probability (Poisson sampling), drawn before and apart from this analysis, and who was "
    "sampled must stay secret: if someone can learn that a person is in the file, the guarantee for that "
    "person is the one without amplification."
)


def amplified_by_sampling(guarantee: Guarantee, rate: float) -> Guarantee:
    """The guarantee for a person of the population when the data are a Poisson sample with
    inclusion probability ``rate``: ε' = ln(1 + rate·(e^ε − 1)), δ' = rate·δ (Balle, Barthe &
    Gaboardi 2018, Thm 8, add/remove neighbours). It applies to everything released from the
    same sample together, so it is applied to a total, never to each release separately."""
    if not 0 < rate <= 1:
        raise ValueError(f"a sampling rate lies in (0, 1], not {rate!r}")
    epsilon = math.log1p(rate * math.expm1(guarantee.epsilon))
    return Guarantee(epsilon, rate * guarantee.delta, f"{guarantee.method}, amplified by sampling at rate {rate:g}")
