"""What a release spends, as small immutable values (as dp_accounting's ``dp_event.py``).

A ``MechanismEvent`` is one noisy query, with everything an accountant needs to bound its
privacy loss; a ``Guarantee`` is a total (ε, δ) and the method that proves it. Accountants
(``accounting`` for basic and zCDP composition, ``privacy_loss`` for PLD) read events and
never each other; ``composition`` picks the tightest of them.
"""

from __future__ import annotations

import math

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from workbench.core.privacy.mechanisms import Noise


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
            return _rounded_up((self.sensitivity / self.scale) ** 2 / 2.0)
        return _rounded_up(self.epsilon**2 / 2.0)

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


def _rounded_up(value: float) -> float:
    """``value`` moved up past the float rounding of the two or three operations that made it: the zCDP
    accountant adds these up, and OpenDP's own map rounds ρ up (it stated up to 2 ulp more than Δ²/(2σ²))."""
    for _ in range(4):
        value = math.nextafter(value, math.inf)
    return value


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
