"""Sums computed exactly on integers, so that the stated sensitivity holds (DESIGN rule 4).

Each clamped value is scaled onto a power-of-two grid (``SumGrid``) and rounded, so one
person moves the integer sum by at most the stated sensitivity, with no floating-point
slack (Casacuberta et al., CCS 2022); partial sums stay within int64. Each row's steps are
also kept within the grid's [lo, hi] (``steps``), so the sensitivity derived from lo and hi
holds whatever floating-point arithmetic did before the rounding.

The grid's step is set by the bounds' magnitude (``GRID_BITS``), so bounds far from zero and
narrow for their size get few steps between them, and rounding a value to the grid would
move it by a visible share of their width (bounds [1e12, 1e12 + 1000] have a step of 256).
``summing_grid`` refuses a grid with fewer than ``MIN_GRID_STEPS`` steps between its bounds:
then rounding moves a value by at most 2^-21 of the width, which the error bounds that can
(a mean's, a variance's) add to the noise's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from workbench.core.data import NumericColumn
from workbench.core.data.aggregates import Expression, clip, exact_sum, rint
from workbench.core.errors import SchemaError

__all__ = ["GRID_BITS", "MIN_GRID_STEPS", "SumGrid", "exact_sum", "grid_of", "summing_grid"]

GRID_BITS = 32  # a bound's magnitude spans 2^32 grid steps: steps below 1e-9 of the bound
MIN_GRID_STEPS = 2**20  # fewer steps between the bounds and rounding to the grid is refused (issue 41, 6)


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
    def rounding(self) -> float:
        """The most that putting one value on the grid moves it: half a step."""
        return self.unit / 2

    @property
    def centre(self) -> int:
        """The grid step in the middle of the bounds: sums centred on it have the smallest sensitivity."""
        return (self.lo + self.hi) // 2

    def to_integers(self, values: np.ndarray) -> np.ndarray:
        return np.rint(values / self.unit).astype(np.int64)

    def steps(self, value: Expression) -> Expression:
        """``value`` in steps of the grid, per row (as ``to_integers``, for any engine), kept within [lo, hi]:
        the sensitivity is derived from lo and hi, so no row may fall outside them, whatever the arithmetic
        that computed ``value`` did (for a value monotone in clamped inputs the clip changes nothing)."""
        return clip(rint(value / self.unit), self.lo, self.hi)


def grid_of(spec: NumericColumn) -> SumGrid:
    assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
    return SumGrid(float(spec.lower), float(spec.upper))


def summing_grid(grid: SumGrid, what: str, fine: bool = True) -> SumGrid:
    """``grid``, checked fine enough to sum values on: a step that is not zero (the bounds are not
    subnormal) and, if ``fine``, at least ``MIN_GRID_STEPS`` steps between the bounds. ``what`` names the
    values in the message ("the values of 'income'", "'w' times 'income'"). Weights need no number of steps
    between their bounds: each moves by at most half a step, at most 2^-32 of the largest weight, which the
    error bounds of the statistics that sum weights include (``weights.relative_weight_rounding``), and the
    smallest weight must hold many steps (``weights.weight_grid``)."""
    bounds = f"[{grid.lower:.17g}, {grid.upper:.17g}]"
    if grid.unit == 0.0:
        raise SchemaError(
            f"The bounds of {what}, {bounds}, are so close to zero that no grid of steps fits between them, so "
            "their sums cannot be computed exactly. Enter the values in other units (multiplied by a power of ten)."
        )
    if fine and grid.unit * MIN_GRID_STEPS > grid.upper - grid.lower:
        steps = int((grid.upper - grid.lower) / grid.unit)
        raise SchemaError(
            f"The bounds of {what}, {bounds}, are narrow for how far from zero they lie: values are summed exactly "
            f"on a grid whose step, {grid.unit:.6g}, is set by the bounds' size, and only {steps:,} steps fit between "
            f"the bounds (at least {MIN_GRID_STEPS:,} are needed for rounding to the grid to stay below a millionth "
            "of their width). Enter the values relative to a public reference value (subtract a round number near "
            f"the bounds from the column and from its bounds), or widen the bounds to at least "
            f"{grid.unit * MIN_GRID_STEPS:,.10g} apart."
        )
    return grid
