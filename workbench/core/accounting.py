"""Privacy events and their composition.

Modelled after ``dp_accounting``: each noisy query becomes a small immutable event, and
an accountant turns a sequence of events into one (ε, δ) guarantee, naming its method.
This slice composes by basic composition (ε and δ add up), which is valid for any mix of
pure and approximate DP events; tighter accountants (PLD, zCDP) plug in behind the same
``compose`` call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

from workbench.core.mechanisms import Noise


@dataclass(frozen=True)
class MechanismEvent:
    """One noisy query: which mechanism, how sensitive, how much noise, what it costs."""

    label: str
    mechanism: str
    sensitivity: float
    scale: float
    epsilon: float
    delta: float

    @classmethod
    def from_noise(cls, label: str, noise: Noise, unit: float = 1.0) -> "MechanismEvent":
        """The event of ``noise``; sensitivity and scale in units of ``unit`` (their ratio is what counts)."""
        return cls(label, noise.kind.value, noise.sensitivity * unit, noise.scale * unit, noise.epsilon, noise.delta)

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.label,
            "mechanism": self.mechanism,
            "sensitivity": self.sensitivity,
            "scale": self.scale,
            "epsilon": self.epsilon,
            "delta": self.delta,
        }


@dataclass(frozen=True)
class Guarantee:
    """A total (ε, δ) and the composition method that proves it."""

    epsilon: float
    delta: float
    method: str

    def to_json(self) -> dict[str, Any]:
        return {"epsilon": self.epsilon, "delta": self.delta, "method": self.method}


BASIC = "basic composition (the ε and δ of all statistics add up)"


def compose(events: Iterable[MechanismEvent]) -> Guarantee:
    """Basic composition: sum of ε and of δ; exact for pure-DP sequences, valid for all."""
    events = list(events)
    return Guarantee(
        epsilon=math.fsum(e.epsilon for e in events), delta=math.fsum(e.delta for e in events), method=BASIC
    )
