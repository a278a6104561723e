"""Counts of rows, histograms of a column, and cross-tabulations of two or three columns:
every public category (or combination) gets a bin, empty ones too (DESIGN rule 2)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from workbench.core.data import CategoricalColumn, NumericColumn, Schema
from workbench.core.data.aggregates import Bins, Categories, CellPart, Column, Engine
from workbench.core.errors import PlanError
from workbench.core.privacy import sensitivity
from workbench.core.statistics.base import (
    Cell,
    ColumnStatistic,
    Query,
    Statistic,
    categorical_spec,
    cell_counts,
    cell_sums,
    count_is_public,
    count_sensitivity,
    group_cells,
    marked_at_integer_limit,
    numeric_spec,
)
from workbench.core.statistics.weights import relative_weight_rounding, weight_grid


@dataclass(frozen=True)
class Count(Statistic):
    """The number of rows that remain after preparation (in each group, with ``by``); with ``weight``,
    the sum of their survey weights (an estimate of the population's size)."""

    by: tuple[str, ...] = ()
    weighted_by: str | None = None
    type_name: ClassVar[str] = "count"

    @property
    def label(self) -> str:
        return f"{'weighted ' if self.weighted_by else ''}count of rows{self._by_words()}"

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        if not self.by and not self.weighted_by and count_is_public(schema):
            return ()
        self.groups(schema)  # checks the grouping column
        grouped = bool(self.by)
        if self.weighted_by:
            grid = weight_grid(schema, self.weighted_by, self.label)
            weighted = self._row_sum_sensitivity(schema, grid.lo, grid.hi)
            return (Query("weighted count", weighted, grid.unit, 1.0, not grouped),)
        return (Query("count", count_sensitivity(schema, self.column_names, grouped), 1.0, 1.0, not grouped),)

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        if self.weighted_by:
            grid = weight_grid(data.schema, self.weighted_by, self.label)
            return (cell_sums(self, data, grid.steps(Column(self.weighted_by))),)
        if not self.by:
            return () if count_is_public(data.schema) else ([data.rows],)
        return (cell_counts(self, data),)

    def estimate(self, noisy, noises, schema, confidence):
        if not noises:
            return (Cell("", float(schema.public_size), 0.0, "the public size you entered; no noise needed"),)
        error = self.error_bound(noises, schema, None, confidence)
        unit = self.queries(schema)[0].unit
        values = [float(v) * unit for v in noisy[0]]
        cells = group_cells(self.groups(schema), values, [error + weights_rounding(self, schema, v, error) for v in values])
        return marked_at_integer_limit(cells, noisy, noises)

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        return (0.0, math.inf)

    def method(self, schema: Schema) -> str:
        if not self.queries(schema):
            return "Under 'substitute one person' with one row per person the count is the public size."
        if self.weighted_by:
            return (f"Sum of the weights in {self.weighted_by} (clamped to their bounds and summed exactly on an integer "
                    f"grid){self._in_each_group()}, plus integer noise on that grid.")
        if self.by:
            return f"Number of rows{self._in_each_group()}, plus integer noise in every group."
        return "Number of rows, plus integer noise."


class _CellCounts:
    """Counts in labelled disjoint cells (histogram bins, cross-tabulation cells): one noisy
    integer per cell, each with the same error bound, never below 0 in truth."""

    def _cell_labels(self, schema: Schema) -> list[str]:
        raise NotImplementedError

    def estimate(self, noisy, noises, schema, confidence):
        error = self.error_bound(noises, schema, None, confidence)  # type: ignore[attr-defined]
        unit = self.queries(schema)[0].unit  # type: ignore[attr-defined]  # a weight's grid step, or 1 row
        cells = tuple(Cell(label, float(value) * unit, error + weights_rounding(self, schema, float(value) * unit, error))
                      for label, value in zip(self._cell_labels(schema), noisy[0]))
        return marked_at_integer_limit(cells, noisy, noises)

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        return (0.0, math.inf)


def weights_rounding(statistic: Any, schema: Schema, value: float, error: float) -> float:
    """For a weighted count or bin: the most that rounding the weights to their grid moved the sum of weights,
    given its released ``value`` and noise bound ``error`` (the sum on the grid is at most value + error whenever
    the noise's bound holds); 0 when unweighted (counting rows rounds nothing)."""
    if not getattr(statistic, "weighted_by", None):
        return 0.0
    return relative_weight_rounding(schema, statistic.weighted_by, statistic.label) * max(0.0, value + error)


@dataclass(frozen=True)
class Histogram(_CellCounts, ColumnStatistic):
    """Counts of every public category of a column (empty ones too), and of 'other' if kept; or, for a
    numeric column, counts in the intervals that public ``edges`` cut its bounds into (age bands).

    Numeric values were clamped to the bounds when the data were prepared, so a value outside them is
    counted in the first or last interval, as every other statistic of the column counts it at the bound.
    """

    edges: tuple[float, ...] = ()
    weighted_by: str | None = None
    type_name: ClassVar[str] = "histogram"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "edges", tuple(float(edge) for edge in self.edges))

    @property
    def label(self) -> str:
        return f"histogram of {self.column}{self.cut_words()}"

    def cut_words(self) -> str:
        """What follows the column in the label: its edges, groups and weight (' cut at 18, 65 by region')."""
        cut = f" cut at {', '.join(_exactly(edge) for edge in self.edges)}" if self.edges else ""
        return f"{cut}{self._by_words()}"

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        self._bins(schema)
        self.groups(schema)  # checks the grouping column
        if self.weighted_by:  # each row adds its weight to one bin: a grouped sum of the weights
            grid = weight_grid(schema, self.weighted_by, self.label)
            rows = schema.min_rows_per_person(self.column_names)
            weighted = sensitivity.grouped_sum(grid.lo, grid.hi, schema.k, rows, schema.neighbouring)
            return (Query("weighted bins", weighted, grid.unit, 1.0, scalar=False),)
        return (Query("bins", sensitivity.histogram(schema.k, schema.neighbouring), 1.0, 1.0, scalar=False),)

    def _bins(self, schema: Schema) -> tuple[str, ...]:
        """The bins' labels: the categories (and '(other)'), or the intervals between the edges."""
        spec = schema.column(self.column)
        if not isinstance(spec, NumericColumn):
            if self.edges:
                raise PlanError(
                    f"The histogram of '{self.column}' has interval edges, which are for a numeric column, but "
                    f"'{self.column}' is described as {spec.kind}. Remove the edges to count its categories."
                )
            return categorical_spec(schema, self.column, "histogram").bins
        spec = numeric_spec(schema, self.column, "histogram")
        if not self.edges:
            raise PlanError(
                f"The histogram of '{self.column}' needs the edges that cut its bounds [{spec.lower:g}, "
                f"{spec.upper:g}] into intervals, e.g. \"edges\": [18, 65]: public values, never read from the data."
            )
        points = (spec.lower, *self.edges, spec.upper)
        if any(not low < high for low, high in zip(points, points[1:])):
            raise PlanError(
                f"The edges of the histogram of '{self.column}' ({', '.join(f'{e:g}' for e in self.edges)}) must "
                f"increase and lie strictly between its bounds {spec.lower:g} and {spec.upper:g}."
            )
        return tuple(f"[{_exactly(low)}, {_exactly(high)}{']' if i == len(points) - 2 else ')'}"
                     for i, (low, high) in enumerate(zip(points, points[1:])))

    def _cell_labels(self, schema: Schema) -> list[str]:
        bins = self._bins(schema)
        return [f"{group} / {b}" if self.by else b for group in self.groups(schema) for b in bins]

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        self._bins(data.schema)  # checks the edges or the categories
        part: CellPart  # clamped to the bounds already: [lower, e1) is 0, ..., [ek, upper] is k
        part = Bins(self.column, self.edges) if self.edges else Categories(
            categorical_spec(data.schema, self.column, "histogram"))
        if self.weighted_by:
            grid = weight_grid(data.schema, self.weighted_by, self.label)
            return (cell_sums(self, data, grid.steps(Column(self.weighted_by)), part),)
        return (cell_counts(self, data, part),)

    def method(self, schema: Schema) -> str:
        where = f",{self._in_each_group('within')}" if self.by else ""
        counted = f"Weights in {self.weighted_by} summed" if self.weighted_by else "Rows counted"
        if self.edges:
            return (f"{counted} in each interval of {self.column} between the public edges (values outside the "
                    f"bounds in the first or last interval){where}, plus integer noise in every bin.")
        spec = categorical_spec(schema, self.column, "histogram")
        outside = (
            "values outside the list are counted in '(other)'"
            if len(spec.bins) > len(spec.categories)
            else "values outside the list are left out"
        )
        return f"{counted} in each public category ({outside}){where}, plus integer noise in every bin."

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), **({"edges": list(self.edges)} if self.edges else {})}


def _exactly(value: float) -> str:
    """An interval's end as typed: 1000000 and 100000.1, not 1e+06 and 100000 (two edges never read alike)."""
    return np.format_float_positional(value, trim="-")


@dataclass(frozen=True)
class CrossTab(_CellCounts, Statistic):
    """Counts of every combination of the public categories of two or three columns (empty
    combinations too): one disjoint bin per combination, so it costs what one histogram does."""

    columns: tuple[str, ...] = ()
    by: tuple[str, ...] = ()
    type_name: ClassVar[str] = "crosstab"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "columns", tuple(self.columns))

    @property
    def label(self) -> str:
        return f"cross-tabulation of {' × '.join(self.columns)}{self._by_words()}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return (*self.columns, *self.by)

    def _specs(self, schema: Schema) -> list[CategoricalColumn]:
        if not 2 <= len(self.columns) <= 3 or len(set(self.column_names)) != len(self.column_names):
            raise PlanError(
                f"A cross-tabulation needs two or three different categorical columns (and a grouping column other "
                f"than them), not {', '.join(self.column_names) or 'none'}."
            )
        return [categorical_spec(schema, column, "cross-tabulation") for column in self.columns]

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        self._specs(schema)
        self.groups(schema)  # checks the grouping column
        return (Query("cells", sensitivity.histogram(schema.k, schema.neighbouring), 1.0, 1.0, scalar=False),)

    def _cell_labels(self, schema: Schema) -> list[str]:
        labels = [g for g in self.groups(schema)] if self.by else [""]
        for spec in self._specs(schema):
            labels = [f"{prefix} / {b}" if prefix else b for prefix in labels for b in spec.bins]
        return labels

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        return (cell_counts(self, data, *(Categories(spec) for spec in self._specs(data.schema))),)

    def method(self, schema: Schema) -> str:
        where = f",{self._in_each_group('within')}" if self.by else ""
        return (
            f"Rows counted in every combination of the public categories of {', '.join(self.columns)}{where} "
            "(each row in one cell), plus integer noise in every cell."
        )

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "columns": list(self.columns)}
