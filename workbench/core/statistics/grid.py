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

GRID_BITS = 32  # a bound's magnitude spans 2^32 grid steps: steps below 1e-9 of the bound


_CHUNK = 1 << 20  # rows per exact int64 partial sum: 2^20 * 2^32 < 2^63


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


def exact_sum(values: np.ndarray) -> int:
    """The exact integer sum of int64 values (partial sums stay far below 2^63)."""
    return sum(int(values[i : i + _CHUNK].sum(dtype=np.int64)) for i in range(0, len(values), _CHUNK))


def grid_of(spec: NumericColumn) -> SumGrid:
    assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
    return SumGrid(float(spec.lower), float(spec.upper))
