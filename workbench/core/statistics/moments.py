"""Sums, means, variances and standard deviations of a bounded numeric column, from exact
integer sums (``grid``) and, where needed, a noisy count of rows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, ClassVar, Sequence

import numpy as np

from workbench.core.data import Schema
from workbench.core.data.aggregates import Column, Engine
from workbench.core.privacy import Noise, combined_halfwidth
from workbench.core.statistics.base import (
    EMPTY_GROUP_WORDS,
    Cell,
    ColumnStatistic,
    Query,
    cell_counts,
    cell_sums,
    count_sensitivity,
    group_cells,
    marked_at_integer_limit,
    numeric_spec,
    weight_spec,
)
from workbench.core.statistics.grid import SumGrid, grid_of, summing_grid
from workbench.core.statistics.variance_bounds import (
    PREVIEW,
    MomentLattice,
    moment_lattice,
    planned_halfwidth,
    released_halfwidth,
)
from workbench.core.statistics.weights import product_grid, weight_grid, weighted_rounding


@dataclass(frozen=True)
class Sum(ColumnStatistic):
    """The sum of a numeric column, each value clamped into its public bounds; with ``weight``, the sum of
    weight times value (a survey's estimated population total)."""

    weighted_by: str | None = None
    type_name: ClassVar[str] = "sum"

    def _grid(self, schema: Schema) -> SumGrid:
        spec = numeric_spec(schema, self.column, "sum")
        if not self.weighted_by:
            return summing_grid(grid_of(spec), f"the values of '{self.column}'")
        assert spec.lower is not None and spec.upper is not None
        weight = weight_spec(schema, self.weighted_by, self.label)
        return summing_grid(product_grid(float(spec.lower), float(spec.upper), weight),
                            f"'{self.weighted_by}' times '{self.column}'")

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        grid = self._grid(schema)
        self.groups(schema)  # checks the grouping column
        return (Query("weighted sum" if self.weighted_by else "sum", self._row_sum_sensitivity(schema, grid.lo, grid.hi),
                      grid.unit, 1.0, not self.by),)

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        grid = self._grid(data.schema)
        value = Column(self.column) * Column(self.weighted_by) if self.weighted_by else Column(self.column)
        return (cell_sums(self, data, grid.steps(value)),)

    def estimate(self, noisy, noises, schema, confidence):
        unit = self.queries(schema)[0].unit
        error = self.error_bound(noises, schema, None, confidence)
        cells = group_cells(self.groups(schema), [v * unit for v in noisy[0]], [error] * len(noisy[0]))
        return marked_at_integer_limit(cells, noisy, noises)

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        grid = self._grid(schema)
        return (0.0 if grid.lower >= 0 else -math.inf, 0.0 if grid.upper <= 0 else math.inf)

    def method(self, schema: Schema) -> str:
        unit = self.queries(schema)[0].unit
        where = self._in_each_group()
        rounding = (f" Rounding to that grid moves each row's term by at most {unit / 2:.3g}, which the error bound "
                    "(the noise's) does not include.")
        if self.weighted_by:
            return (
                f"Each value clamped to its bounds times its weight in {self.weighted_by} (clamped to the weight's bounds), "
                f"scaled to integer multiples of {unit:.3g} and summed exactly{where}, plus integer noise on that grid."
                + rounding
            )
        return (
            f"Values clamped to the bounds, scaled to integer multiples of {unit:.3g} and summed exactly{where}, "
            "plus integer noise on that grid." + rounding
        )


@dataclass(frozen=True)
class Mean(ColumnStatistic):
    """The mean of a numeric column: a noisy centred sum over a noisy (or public) count."""

    weighted_by: str | None = None
    type_name: ClassVar[str] = "mean"
    computed_from_noisy_sums: ClassVar[bool] = True

    def _parts(self, schema: Schema) -> tuple[SumGrid, int, float, float]:
        """The grid of the centred per-row values, the integer centre subtracted on it (unweighted), the
        centre in the column's units, and one integer step of the denominator (a row, or a weight's grid step).

        Unweighted, values are put on their grid and centred there. Weighted, each row's w·(x - c), c the middle
        of the bounds, is put on the grid spanned by the four corners of [w_min, w_max] × [L - c, U - c], so that
        every row's product lies on it whatever the signs (issue 41, 2: with c taken from a coarse grid it could
        fall outside [L, U], and w_min·(x - c) then lay outside a grid built from w_max alone)."""
        spec = numeric_spec(schema, self.column, "mean")
        if not self.weighted_by:
            grid = summing_grid(grid_of(spec), f"the values of '{self.column}'")
            return grid, grid.centre, grid.centre * grid.unit, 1.0
        weight = weight_spec(schema, self.weighted_by, self.label)
        assert spec.lower is not None and spec.upper is not None
        lower, upper = float(spec.lower), float(spec.upper)
        centre = min(max(lower / 2 + upper / 2, lower), upper)  # in [L, U], and no overflow
        centred = summing_grid(product_grid(lower - centre, upper - centre, weight),
                               f"'{self.weighted_by}' times '{self.column}' less the middle of its bounds")
        return centred, 0, centre, weight_grid(schema, self.weighted_by, self.label).unit

    def _rounding(self, schema: Schema) -> tuple[float, float]:
        """How far putting the rows on the grids can move the mean (at most), and how far the mean of the values
        as summed can lie from the centre (at most): public, from the bounds and grids alone."""
        grid, _, centre, _ = self._parts(schema)
        if not self.weighted_by:  # each value moves by at most half a step, so their mean does
            return grid.rounding, max(grid.hi - grid.centre, grid.centre - grid.lo) * grid.unit
        spec, weight = numeric_spec(schema, self.column, "mean"), weight_spec(schema, self.weighted_by, self.label)
        assert spec.lower is not None and spec.upper is not None and weight.lower is not None
        reach = max(centre - float(spec.lower), float(spec.upper) - centre)
        rounding = weighted_rounding(grid, weight_grid(schema, self.weighted_by, self.label), float(weight.lower), reach)
        return rounding, reach + rounding

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        grid, offset, _, step = self._parts(schema)
        self.groups(schema)  # checks the grouping column
        centred = self._row_sum_sensitivity(schema, grid.lo - offset, grid.hi - offset)
        if self._public_count(schema):
            return (Query("centred sum", centred, grid.unit, 1.0),)
        if self.weighted_by:
            weights = weight_grid(schema, self.weighted_by, self.label)
            count = Query("weighted count", self._row_sum_sensitivity(schema, weights.lo, weights.hi), step, 0.5,
                          not self.by)
        else:
            count = Query("count", count_sensitivity(schema, self.column_names, bool(self.by)), 1.0, 0.5, not self.by)
        return (Query("centred sum", centred, grid.unit, 0.5, not self.by), count)

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        grid, offset, centre, _ = self._parts(data.schema)
        if self.weighted_by:
            weight = Column(self.weighted_by)
            centred = cell_sums(self, data, grid.steps(weight * (Column(self.column) - centre)))
            weights = weight_grid(data.schema, self.weighted_by, self.label)
            return (centred, cell_sums(self, data, weights.steps(weight)))
        centred = cell_sums(self, data, grid.steps(Column(self.column)) - offset)
        if self._public_count(data.schema):
            return (centred,)
        return (centred, cell_counts(self, data))

    def estimate(self, noisy, noises, schema, confidence):
        grid, _, centre, step = self._parts(schema)
        cells = []
        smallest = self.planning_size(schema, 1.0)  # a denominator below one row (or its smallest weight)
        for i, group in enumerate(self.groups(schema)):
            size = float(schema.public_size) if self._public_count(schema) else float(noisy[1][i]) * step
            if size < smallest:
                what = "weights" if self.weighted_by else "count of rows"
                below = f"the smallest weight, {smallest:g}" if self.weighted_by else "1"
                note = f"the noisy {what} is below {below}, so no mean can be formed{EMPTY_GROUP_WORDS}"
                cells.append(Cell(group, None, None, note))
                continue
            value = centre + noisy[0][i] * grid.unit / size
            error = self.error_bound(noises, schema, size, confidence, offset=value - centre)
            cells.append(Cell(group, value, error))
        return marked_at_integer_limit(tuple(cells), noisy, noises)

    def error_bound(
        self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float,
        offset: float | None = None,
    ) -> float:
        """Bound on |released - exact| given the (noisy or estimated) number of rows ``size`` (of one group).

        With public count N: error = unit * Z_sum / N. Otherwise the released mean minus the
        exact one is (unit * Z_sum - (mean - centre) * Z_count) / noisy count exactly; with 95%
        probability it is within w(|mean - centre|) / noisy count, w the half-width of that
        combination of the two noises (``combined_halfwidth``, not a union bound). The true
        offset |mean - centre| is unknown, and the released one (``offset``) may be far smaller
        when the count is noisy, so the bound is the largest t with t <= w(|offset| + t) / size:
        any true mean further than that from the released one would contradict its own 95%
        interval (``_self_consistent_halfwidth``). Without ``offset`` (previews and planning),
        the offset is taken at its largest, half the range: the bound the release starts its
        search from, so no release at that size states more (and a mean near a bound gets it).

        The noise moves the mean of the values as they were summed, on the grid; putting them there moved
        that mean by at most ``_rounding`` (half a grid step unweighted), which is added (issue 41, 6).
        """
        grid, _, centre, step = self._parts(schema)
        rounding, half_range = self._rounding(schema)
        if self._public_count(schema):
            size = float(schema.public_size)
        if not size or size < self.planning_size(schema, 1.0):
            return math.inf
        if len(noises) == 1:
            return noises[0].halfwidth(confidence) * grid.unit / size + rounding
        total, count = noises

        def halfwidth(distance: float) -> float:  # in the mean's units, for a true offset of ``distance``
            distance = min(distance, half_range)
            return combined_halfwidth(total.kind.value, total.scale, grid.unit, count.scale, distance * step,
                                      confidence) / size

        if offset is None:  # a preview, or planning: the largest offset, which no release exceeds
            return halfwidth(half_range) + rounding
        return _self_consistent_halfwidth(halfwidth, min(abs(offset), half_range), half_range) + rounding

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        spec = numeric_spec(schema, self.column, "mean")
        assert spec.lower is not None and spec.upper is not None
        return (float(spec.lower), float(spec.upper))

    def method(self, schema: Schema) -> str:
        if self._public_count(schema):
            return "Noisy sum of values centred on the middle of the bounds, divided by the public size."
        where = f",{self._in_each_group()}" if self.by else ""
        return (
            f"Noisy sum of values centred on the middle of the bounds, divided by a noisy count{where}; "
            "half of ε (and δ) is spent on each."
        )


def _self_consistent_halfwidth(halfwidth: Callable[[float], float], released: float, largest: float) -> float:
    """The largest t with t <= halfwidth(released + t): a bound on |released mean - true mean| that
    holds whenever the true mean lies within its own interval, whatever the true offset.

    ``halfwidth`` grows with the offset and stops growing at ``largest``, so its value there is
    such a t already. Iterating t <- halfwidth(released + t) from it never passes below the
    largest fixed point (each step maps t >= t* to at least halfwidth(released + t*) = t*), so
    every iterate is a valid bound, and the steps shrink geometrically towards t*."""
    bound = halfwidth(largest)
    for _ in range(40):
        tighter = min(halfwidth(released + bound), bound)
        converged = tighter >= bound * (1 - 1e-4)
        bound = tighter
        if converged:
            break
    return bound


@dataclass(frozen=True)
class Variance(ColumnStatistic):
    """The variance of a numeric column (divisor n - 1): noisy centred sums of values and of
    squares over a noisy (or public) count, a third of ε and δ each (half each with a public count).

    Its error bound holds whatever the true moments (``variance_bounds``, issue 37, 1): the largest distance
    from the released value to any variance consistent with the released sums and count at the confidence,
    from simulated quantiles of the noises' combinations (fixed seed). Previews state the most a release at the
    planned size can state.
    """

    type_name: ClassVar[str] = "variance"
    computed_from_noisy_sums: ClassVar[bool] = True

    def _grids(self, schema: Schema) -> tuple[SumGrid, SumGrid, int]:
        grid = summing_grid(grid_of(numeric_spec(schema, self.column, self.type_name)), f"the values of '{self.column}'")
        reach = max(grid.hi - grid.centre, grid.centre - grid.lo) * grid.unit
        return grid, SumGrid(0.0, reach * reach), grid.centre

    def _rounding(self, schema: Schema) -> float:
        """The most putting the rows on the grids moves the variance of the values (for n >= 2), public: each
        centred value moves by r_i, |r_i| <= u/2, and each square by at most one step s of its grid (half a
        step of rounding, and under 2^-20 of a step of floating-point error in the product). The sample
        variance of x + r differs from x's by 2 cov(x, r) + var(r), at most (U - L)·u + u²/2 with divisor
        n - 1, and the squares' errors add at most n·s / (n - 1) <= 2s (issue 41, 6)."""
        grid, squares, _ = self._grids(schema)
        return 2 * squares.unit + (grid.upper - grid.lower) * grid.unit + grid.unit * grid.unit / 2

    def _rounding_of_value(self, schema: Schema, value: float, noise_error: float) -> float:
        """``_rounding`` in the released value's units, given the value and its noise's bound."""
        return self._rounding(schema)

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        grid, squares, centre = self._grids(schema)
        self.groups(schema)  # checks the grouping column
        scalar = not self.by
        public = self._public_count(schema)
        share = 1 / 2 if public else 1 / 3
        parts = [
            Query("centred sum", self._row_sum_sensitivity(schema, grid.lo - centre, grid.hi - centre),
                  grid.unit, share, scalar),
            Query("sum of squares", self._row_sum_sensitivity(schema, 0, squares.hi), squares.unit, share, scalar),
        ]
        if not public:
            parts.append(Query("count", count_sensitivity(schema, self.column_names, bool(self.by)), 1.0, share, scalar))
        return tuple(parts)

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        grid, squares, centre = self._grids(data.schema)
        centred = grid.steps(Column(self.column)) - centre
        deviations = centred * grid.unit
        square_steps = squares.steps(deviations * deviations)  # kept within [0, squares.hi]
        answers = [cell_sums(self, data, centred), cell_sums(self, data, square_steps)]
        if not self._public_count(data.schema):
            answers.append(cell_counts(self, data))
        return tuple(answers)

    @staticmethod
    def _from_moments(first: np.ndarray, second: np.ndarray, size: np.ndarray, largest: float) -> np.ndarray:
        """Variance from centred sums (post-processing), kept within [0, the largest possible]."""
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = first / size
            variance = (second / size - mean * mean) * size / (size - 1)
        return np.clip(np.nan_to_num(variance, nan=largest), 0.0, largest)

    def _finish(self, variance: np.ndarray) -> np.ndarray:
        return variance

    def estimate(self, noisy, noises, schema, confidence):
        grid, squares, _ = self._grids(schema)
        largest = (squares.upper if squares.upper else 0.0)  # (half range)^2 bounds any variance of the data
        lattice = self._lattice(noises, schema, confidence)
        cells = []
        for i, group in enumerate(self.groups(schema)):
            size = float(schema.public_size) if self._public_count(schema) else float(noisy[2][i])
            if size < 2:
                note = f"the noisy count of rows is below 2, so no {self.words or self.type_name} can be formed{EMPTY_GROUP_WORDS}"
                cells.append(Cell(group, None, None, note))
                continue
            first, second = noisy[0][i] * grid.unit, noisy[1][i] * squares.unit
            variance = float(self._from_moments(np.array([first]), np.array([second]), np.array([size]), largest)[0])
            value = float(self._finish(np.array([variance]))[0])
            error = released_halfwidth(lattice, first, second, size, variance, self._root)
            cells.append(Cell(group, value, error + self._rounding_of_value(schema, value, error)))
        return marked_at_integer_limit(tuple(cells), noisy, noises)

    _root: ClassVar[bool] = False  # the released value is the variance's square root

    def _lattice(self, noises: Sequence[Noise], schema: Schema, confidence: float, preview: bool = False) -> MomentLattice:
        """The simulated bounds behind the error of every group (``variance_bounds``), for these noises; coarser
        and quicker for a preview, which only needs their largest."""
        grid, squares, _ = self._grids(schema)
        reach = max(grid.hi - grid.centre, grid.centre - grid.lo) * grid.unit
        count = (noises[2].kind.value, noises[2].scale) if len(noises) > 2 else float(schema.public_size)
        return moment_lattice((noises[0].kind.value, noises[0].scale, grid.unit),
                              (noises[1].kind.value, noises[1].scale, squares.unit), count, reach, confidence,
                              **(PREVIEW if preview else {}))

    def error_bound(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """For previews and accuracy targets: the most a release at ``size`` rows can state, whatever the true
        moments (``variance_bounds.planned_halfwidth``), with the rounding."""
        noise = self._planned_noise(noises, schema, size, confidence)
        return noise + self._rounding_of_value(schema, 0.0, noise)  # at a value of 0: the largest

    def _planned_noise(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """The variance's bound for the noise alone at ``size`` rows (the public size where there is one)."""
        if self._public_count(schema):
            size = float(schema.public_size)
        if not size or size < 2:
            return math.inf
        return planned_halfwidth(self._lattice(noises, schema, confidence, preview=True), size)

    def method(self, schema: Schema) -> str:
        where = f",{self._in_each_group()}" if self.by else ""
        divisor = "the public size" if self._public_count(schema) else "a noisy count"
        return (
            f"Noisy sums of values and of squared values, both centred on the middle of the bounds, over {divisor}"
            f"{where}; divisor n - 1. The error bound holds whatever the true mean and variance: it reaches every "
            "variance consistent with the released sums and count (from simulated quantiles of the noises)."
        )


@dataclass(frozen=True)
class StandardDeviation(Variance):
    """The standard deviation: the square root of ``Variance`` (post-processing)."""

    type_name: ClassVar[str] = "stddev"
    words: ClassVar[str] = "standard deviation"

    _root: ClassVar[bool] = True

    def _finish(self, variance: np.ndarray) -> np.ndarray:
        return np.sqrt(variance)

    def error_bound(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """For previews: for a standard deviation of at least a quarter of the half-range (as previews said
        before issue 37), the most a release at ``size`` rows states: the variance's planned bound T around a
        variance x = (R/4)² reaches √(x ± T). (Near 0 a standard deviation's error is up to √T, which no
        preview of a spread can usefully promise.)"""
        noise = self._planned_noise(noises, schema, size, confidence)
        if math.isinf(noise):
            return noise
        grid, _, _ = self._grids(schema)
        x = (max(grid.hi - grid.centre, grid.centre - grid.lo) * grid.unit / 4) ** 2
        spread = max(math.sqrt(x + noise) - math.sqrt(x), math.sqrt(x) - math.sqrt(max(0.0, x - noise)))
        return spread + self._rounding_of_value(schema, math.sqrt(x), spread)

    def _rounding_of_value(self, schema: Schema, value: float, noise_error: float) -> float:
        """The variance's rounding r moves its square root by |√a - √b| = |a - b| / (√a + √b): at most √r, and at
        most r / (value - noise_error) when the noise-free standard deviation is at least that (it is whenever
        the noise's bound holds, and only then is the stated bound claimed)."""
        rounding = self._rounding(schema)
        below = value - noise_error
        return min(math.sqrt(rounding), rounding / below) if below > 0 else math.sqrt(rounding)
