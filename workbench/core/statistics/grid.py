"""Sums computed exactly on integers, so that the stated sensitivity holds (DESIGN rule 4).

Each clamped value is scaled onto a power-of-two grid (``SumGrid``) and rounded, so one
person moves the integer sum by at most the stated sensitivity, with no floating-point
slack (Casacuberta et al., CCS 2022); partial sums stay within int64.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.core.data import NumericColumn
from workbench.core.data.aggregates import Expression, exact_sum, rint

__all__ = ["GRID_BITS", "SumGrid", "exact_sum", "grid_of"]

GRID_BITS = 32  # a bound's magnitude spans 2^32 grid steps: steps below 1e-9 of the bound


@dataclass(frozen=True)
class SumGrid:
    """Scale clamped values in [lower, upper] to integers on a public power-of-two grid."""

    lower: float
    upper: float

    @property
    def unit(self) -> float:
        _, exponent = math.frexp(max(abs(self.lower), abs(self.upper)))
        return math.ldexp(1.0, exponent - GRID_BITS)

    @property
    def lo(self) -> int:
        return int(round(self.lower / self.unit))

    @property
    def hi(self) -> int:
        return int(round(self.upper / self.unit))

    @property
    def centre(self) -> int:
        """The grid step in the middle of the bounds: sums centred on it have the smallest sensitivity."""
        return (self.lo + self.hi) // 2

    def to_integers(self, values: np.ndarray) -> np.ndarray:
        return np.rint(values / self.unit).astype(np.int64)

    def steps(self, value: Expression) -> Expression:
        """``value`` in steps of the grid, per row (as ``to_integers``, for any engine)."""
        return rint(value / self.unit)


def grid_of(spec: NumericColumn) -> SumGrid:
    assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
    return SumGrid(float(spec.lower), float(spec.upper))
