"""The statistics a plan can release; each reads like a sentence: ``Mean("income")``.

A statistic is a recipe: the integer queries it needs (with their sensitivity, from the
schema alone), how to compute their exact answers from prepared data, and how to turn
noisy answers into released values with a 95% error bound. It never draws noise itself.

Sums are computed exactly on integers: each clamped value is scaled onto a power-of-two
grid (``SumGrid``) and rounded, so one person moves the integer sum by at most the
stated sensitivity, with no floating-point slack (DESIGN rule 4).

Any statistic can be computed ``by`` a categorical column: one value per public category
of that column (and '(other)' if kept). All groups are one query whose sensitivity counts
every group a person can touch (``sensitivity.grouped_sum``): parallel composition, so
the groups share one ε instead of each spending it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np
import pandas as pd

from workbench.core.privacy import sensitivity
from workbench.core.privacy.accuracy import (
    SIMULATIONS,
    combined_halfwidth,
    simulated_halfwidth,
    simulated_noise,
    simulation_rng,
)
from workbench.core.errors import PlanError, SchemaError
from workbench.core.privacy.mechanisms import (
    QUANTILE_CANDIDATES,
    MechanismKind,
    Noise,
    bounds_candidates,
    person_distance,
    quantile_candidates,
    quantile_rank_halfwidth,
)
from workbench.core.data.prepare import PreparedData
from workbench.core.data.schema import (
    CategoricalColumn,
    ColumnSpec,
    Neighbouring,
    NumericColumn,
    OutsideCategories,
    Schema,
)
from workbench.core.privacy.sensitivity import Sensitivity

GRID_BITS = 32  # a bound's magnitude spans 2^32 grid steps: steps below 1e-9 of the bound
_CHUNK = 1 << 20  # rows per exact int64 partial sum: 2^20 * 2^32 < 2^63


@dataclass(frozen=True)
class Query:
    """One integer-valued measurement a statistic needs."""

    name: str
    sensitivity: Sensitivity
    unit: float  # what one integer step is worth in the statistic's own units
    share: float  # share of the statistic's ε and δ spent on this query
    scalar: bool = True  # one number (else a vector: histogram bins, or one value per group)
    level: float | None = None  # for a quantile: its level in (0, 1); the sensitivity is then a row distance


@dataclass(frozen=True)
class Cell:
    """One released number: a scalar statistic has one cell, a histogram one per bin."""

    label: str
    value: float | None
    error: float | None  # half-width of the interval that holds the noise with the stated confidence
    note: str = ""
    error_unit: str = ""  # what ``error`` counts if not the value's own units ("ranks" for a quantile)
    raw: float | None = None  # the noisy value before post-processing (None: post-processing left it as it is)
    reliable: bool = True  # False: the error bar is wider than the range the value can take

    @property
    def raw_value(self) -> float | None:
        """The value as the mechanism released it, before any post-processing (DESIGN rule 7)."""
        return self.value if self.raw is None else self.raw


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


class Statistic:
    """A released statistic: its queries, their exact answers, and the released cells."""

    type_name: ClassVar[str] = ""
    by: str | None = None  # a categorical column: one value per group
    mechanisms: ClassVar[tuple[MechanismKind, ...]] = (MechanismKind.LAPLACE, MechanismKind.GAUSSIAN)
    error_unit: ClassVar[str] = ""  # what the error bound counts, if not the statistic's own units
    # the noise goes into sums the value is computed from (a mean, a variance), not into the value itself
    computed_from_noisy_sums: ClassVar[bool] = False

    @property
    def label(self) -> str:
        raise NotImplementedError

    @property
    def column_names(self) -> tuple[str, ...]:
        """Every column the statistic reads (a row missing one of them is left out)."""
        return (self.by,) if self.by else ()

    def groups(self, schema: Schema) -> tuple[str, ...]:
        """The groups of a statistic ``by`` a column: that column's bins; else one unnamed group."""
        if not self.by:
            return ("",)
        return _categorical(schema, self.by, f"{self.type_name} by group", grouping=True).bins

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        raise NotImplementedError

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        """Exact integer answers, one list per query. Private: only noise may touch them."""
        raise NotImplementedError

    def measure(self, data: PreparedData, noises: Sequence[Noise]) -> list[list]:
        """Noisy answers, one list per query: the exact answers plus OpenDP noise. The exact
        answers never leave this function."""
        return [list(noise.sample(values)) for noise, values in zip(noises, self.exact(data))]

    def estimate(
        self, noisy: Sequence[Sequence[int]], noises: Sequence[Noise], schema: Schema, confidence: float
    ) -> tuple[Cell, ...]:
        """Released cells from noisy answers (post-processing only)."""
        raise NotImplementedError

    def error_bound(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """Half-width of the interval holding the noise's effect on each cell, from public inputs only.

        ``size`` is a number of rows (a public estimate, or a released noisy count); only
        statistics whose error depends on it use it.
        """
        (query,) = self.queries(schema) or (None,)
        if query is None:
            return 0.0
        return noises[0].halfwidth(confidence) * query.unit

    def method(self, schema: Schema) -> str:
        """One sentence on how the value is computed, for results and reports."""
        raise NotImplementedError

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        """The values the exact statistic can take on any data (public): clamping a released
        value into it moves the value closer to the truth, never further."""
        return (-math.inf, math.inf)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type_name, **({"by": self.by} if self.by else {})}

    def _by_words(self) -> str:
        return f" by {self.by}" if self.by else ""


@dataclass(frozen=True)
class ColumnStatistic(Statistic):
    """A statistic of one column: ``Mean("income")`` is labelled "mean of income"."""

    column: str
    by: str | None = None
    words: ClassVar[str] = ""  # the name in labels, if not the type name

    @property
    def label(self) -> str:
        return f"{self.words or self.type_name} of {self.column}{self._by_words()}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return (self.column, *super().column_names)

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "column": self.column}

    def _public_count(self, schema: Schema) -> bool:
        """Whether the rows are counted by the public size (no groups, and the count needs no noise)."""
        return not self.by and count_is_public(schema, self.column_names)

    def _row_sum_sensitivity(self, schema: Schema, lo: int, hi: int) -> Sensitivity:
        """A sum of per-row integers in [lo, hi] over this statistic's rows, per group if ``by``."""
        bound = sensitivity.grouped_sum if self.by else sensitivity.bounded_sum
        return bound(lo, hi, schema.k, schema.min_rows_per_person(self.column_names), schema.neighbouring)


def _numeric(schema: Schema, column: str, statistic: str) -> NumericColumn:
    spec = schema.column(column)
    if not isinstance(spec, NumericColumn):
        raise SchemaError(
            f"The {statistic} of '{column}' needs a numeric column with bounds, but '{column}' is described "
            f"as {spec.kind}. Describe it as numeric, or choose another statistic."
        )
    _validated(spec)  # its bounds set the sensitivity: reversed, equal or missing bounds are named here
    return spec


def _categorical(schema: Schema, column: str, statistic: str, grouping: bool = False) -> CategoricalColumn:
    spec = schema.column(column)
    if not isinstance(spec, CategoricalColumn):
        what = f"A {statistic} of '{column}'" if grouping else f"The {statistic} of '{column}'"
        raise SchemaError(
            f"{what} needs a categorical column with public categories, but '{column}' is described as "
            f"{spec.kind}. Describe it as categorical, or choose another {'grouping' if grouping else 'statistic'}."
        )
    _validated(spec)
    return spec


def _validated(spec: ColumnSpec) -> None:
    """A column description checked once per object (it is immutable; an edit makes a new one): a
    preview asks on every slider move. A refusal raises and is not remembered, so it is named again
    every time. The mark is on the object, not keyed by value: 1 and True compare equal."""
    if spec.__dict__.get("_validated"):
        return
    spec.validate()
    object.__setattr__(spec, "_validated", True)


def bin_codes(spec: CategoricalColumn, values: pd.Series | np.ndarray) -> np.ndarray:
    """The index of each value's bin in ``spec.bins``; -1 for a value left out (outside the list).

    Categorical values (as ``prepare`` makes them) are coded through their few categories."""
    if isinstance(values, pd.Series) and isinstance(values.dtype, pd.CategoricalDtype):
        categories = np.append(values.cat.categories.to_numpy(dtype=object), None)  # the last: a missing value
        return _bin_codes(spec, categories)[values.cat.codes.to_numpy()]  # code -1 picks the last
    return _bin_codes(spec, np.asarray(values, dtype=object))


def _bin_codes(spec: CategoricalColumn, values: np.ndarray) -> np.ndarray:
    codes = pd.Index(spec.categories).get_indexer(values)
    if spec.outside is OutsideCategories.OTHER:
        return np.where(codes < 0, len(spec.categories), codes)
    return codes


def _group_codes(statistic: Statistic, data: PreparedData) -> np.ndarray:
    """Group index of every complete row of ``statistic`` (all 0 without ``by``; -1: left out)."""
    rows = data.complete(statistic.column_names)
    if not statistic.by:
        return np.zeros(len(rows), dtype=np.int64)
    spec = _categorical(data.schema, statistic.by, f"{statistic.type_name} by group", grouping=True)
    return bin_codes(spec, rows[statistic.by])


def _counts_by_group(codes: np.ndarray, groups: int) -> list[int]:
    """Rows per group code (codes -1 are left out)."""
    return [int(c) for c in np.bincount(codes[codes >= 0], minlength=groups)[:groups]]


def _sums_by_group(values: np.ndarray, codes: np.ndarray, groups: int) -> list[int]:
    """Exact integer sums of ``values`` per group code (codes -1 are left out)."""
    return [exact_sum(values[codes == g]) for g in range(groups)]


# Why a cell has no value, from public facts only: whether the group really is empty is private.
_EMPTY_GROUP_WORDS = (
    ": the group is empty or holds very few rows. A larger ε helps only if it should hold rows; an '(other)' "
    "group holds only values outside the public categories, and is empty by construction when the list is complete "
    "(then choose to leave values outside the list out, and no '(other)' group is released)"
)


def _group_cells(groups: Sequence[str], values: Sequence[float | None], errors: Sequence[float | None]) -> tuple[Cell, ...]:
    return tuple(Cell(g, v, e) for g, v, e in zip(groups, values, errors))


def _grid(spec: NumericColumn) -> SumGrid:
    assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
    return SumGrid(float(spec.lower), float(spec.upper))


def _count_sensitivity(schema: Schema, columns: tuple[str, ...], grouped: bool = False) -> Sensitivity:
    """Rows counted over the rows where ``columns`` are present (in every group, if ``grouped``)."""
    bound = sensitivity.grouped_sum if grouped else sensitivity.bounded_sum
    return bound(1, 1, schema.k, schema.min_rows_per_person(columns), schema.neighbouring)


def count_is_public(schema: Schema, columns: tuple[str, ...] = ()) -> bool:
    """Under substitute with one row per person and none dropped, the row count is the public size."""
    return _count_sensitivity(schema, columns).l1 == 0


@dataclass(frozen=True)
class Count(Statistic):
    """The number of rows that remain after preparation (in each group, with ``by``)."""

    by: str | None = None
    type_name: ClassVar[str] = "count"

    @property
    def label(self) -> str:
        return f"count of rows{self._by_words()}"

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        if not self.by and count_is_public(schema):
            return ()
        self.groups(schema)  # checks the grouping column
        grouped = self.by is not None
        return (Query("count", _count_sensitivity(schema, self.column_names, grouped), 1.0, 1.0, not grouped),)

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        if not self.by:
            return () if count_is_public(data.schema) else ([data.rows],)
        codes = _group_codes(self, data)
        groups = len(self.groups(data.schema))
        return (_counts_by_group(codes, groups),)

    def estimate(self, noisy, noises, schema, confidence):
        if not noises:
            return (Cell("", float(schema.public_size), 0.0, "the public size you entered; no noise needed"),)
        error = self.error_bound(noises, schema, None, confidence)
        return _group_cells(self.groups(schema), [float(v) for v in noisy[0]], [error] * len(noisy[0]))

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        return (0.0, math.inf)

    def method(self, schema: Schema) -> str:
        if not self.queries(schema):
            return "Under 'substitute one person' with one row per person the count is the public size."
        if self.by:
            return f"Number of rows in each category of {self.by}, plus integer noise in every group."
        return "Number of rows, plus integer noise."


@dataclass(frozen=True)
class Sum(ColumnStatistic):
    """The sum of a numeric column, each value clamped into its public bounds."""

    type_name: ClassVar[str] = "sum"

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        grid = _grid(_numeric(schema, self.column, "sum"))
        self.groups(schema)  # checks the grouping column
        return (Query("sum", self._row_sum_sensitivity(schema, grid.lo, grid.hi), grid.unit, 1.0, not self.by),)

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        grid = _grid(_numeric(data.schema, self.column, "sum"))
        values = grid.to_integers(data.complete(self.column_names)[self.column].to_numpy(dtype=np.float64))
        return (_sums_by_group(values, _group_codes(self, data), len(self.groups(data.schema))),)

    def estimate(self, noisy, noises, schema, confidence):
        unit = self.queries(schema)[0].unit
        error = self.error_bound(noises, schema, None, confidence)
        return _group_cells(self.groups(schema), [v * unit for v in noisy[0]], [error] * len(noisy[0]))

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        grid = _grid(_numeric(schema, self.column, "sum"))
        return (0.0 if grid.lower >= 0 else -math.inf, 0.0 if grid.upper <= 0 else math.inf)

    def method(self, schema: Schema) -> str:
        unit = self.queries(schema)[0].unit
        where = f" in each category of {self.by}" if self.by else ""
        return (
            f"Values clamped to the bounds, scaled to integer multiples of {unit:.3g} and summed exactly{where}, "
            "plus integer noise on that grid."
        )


@dataclass(frozen=True)
class Mean(ColumnStatistic):
    """The mean of a numeric column: a noisy centred sum over a noisy (or public) count."""

    type_name: ClassVar[str] = "mean"
    computed_from_noisy_sums: ClassVar[bool] = True

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        grid = _grid(_numeric(schema, self.column, "mean"))
        self.groups(schema)  # checks the grouping column
        centred = self._row_sum_sensitivity(schema, grid.lo - grid.centre, grid.hi - grid.centre)
        if self._public_count(schema):
            return (Query("centred sum", centred, grid.unit, 1.0),)
        count = Query("count", _count_sensitivity(schema, self.column_names, bool(self.by)), 1.0, 0.5, not self.by)
        return (Query("centred sum", centred, grid.unit, 0.5, not self.by), count)

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        grid = _grid(_numeric(data.schema, self.column, "mean"))
        values = grid.to_integers(data.complete(self.column_names)[self.column].to_numpy(dtype=np.float64))
        codes, groups = _group_codes(self, data), len(self.groups(data.schema))
        centred = _sums_by_group(values - grid.centre, codes, groups)
        if self._public_count(data.schema):
            return (centred,)
        return (centred, _counts_by_group(codes, groups))

    def estimate(self, noisy, noises, schema, confidence):
        grid = _grid(_numeric(schema, self.column, "mean"))
        centre = grid.centre * grid.unit
        cells = []
        for i, group in enumerate(self.groups(schema)):
            size = float(schema.public_size) if self._public_count(schema) else float(noisy[1][i])
            if size < 1:
                note = f"the noisy count of rows is below 1, so no mean can be formed{_EMPTY_GROUP_WORDS}"
                cells.append(Cell(group, None, None, note))
                continue
            value = centre + noisy[0][i] * grid.unit / size
            error = self.error_bound(noises, schema, size, confidence, offset=value - centre)
            cells.append(Cell(group, value, error))
        return tuple(cells)

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
        """
        grid = _grid(_numeric(schema, self.column, "mean"))
        if self._public_count(schema):
            size = float(schema.public_size)
        if not size or size < 1:
            return math.inf
        if len(noises) == 1:
            return noises[0].halfwidth(confidence) * grid.unit / size
        centre = grid.centre
        half_range = max(grid.hi - centre, centre - grid.lo) * grid.unit
        total, count = noises

        def halfwidth(distance: float) -> float:  # in the mean's units, for a true offset of ``distance``
            distance = min(distance, half_range)
            return combined_halfwidth(total.kind.value, total.scale, grid.unit, count.scale, distance, confidence) / size

        if offset is None:  # a preview, or planning: the largest offset, which no release exceeds
            return halfwidth(half_range)
        return _self_consistent_halfwidth(halfwidth, min(abs(offset), half_range), half_range)

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        grid = _grid(_numeric(schema, self.column, "mean"))
        return (grid.lower, grid.upper)

    def method(self, schema: Schema) -> str:
        if self._public_count(schema):
            return "Noisy sum of values centred on the middle of the bounds, divided by the public size."
        where = f", in each category of {self.by}" if self.by else ""
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


class _CellCounts:
    """Counts in labelled disjoint cells (histogram bins, cross-tabulation cells): one noisy
    integer per cell, each with the same error bound, never below 0 in truth."""

    def _cell_labels(self, schema: Schema) -> list[str]:
        raise NotImplementedError

    def estimate(self, noisy, noises, schema, confidence):
        error = self.error_bound(noises, schema, None, confidence)  # type: ignore[attr-defined]
        return tuple(Cell(label, float(value), error) for label, value in zip(self._cell_labels(schema), noisy[0]))

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        return (0.0, math.inf)


@dataclass(frozen=True)
class Histogram(_CellCounts, ColumnStatistic):
    """Counts of every public category of a column (empty ones too), and of 'other' if kept; or, for a
    numeric column, counts in the intervals that public ``edges`` cut its bounds into (age bands).

    Numeric values were clamped to the bounds when the data were prepared, so a value outside them is
    counted in the first or last interval, as every other statistic of the column counts it at the bound.
    """

    edges: tuple[float, ...] = ()
    type_name: ClassVar[str] = "histogram"

    def __post_init__(self) -> None:
        object.__setattr__(self, "edges", tuple(float(edge) for edge in self.edges))

    @property
    def label(self) -> str:
        cut = f" cut at {', '.join(_exactly(edge) for edge in self.edges)}" if self.edges else ""
        return f"histogram of {self.column}{cut}{self._by_words()}"

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        self._bins(schema)
        self.groups(schema)  # checks the grouping column
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
            return _categorical(schema, self.column, "histogram").bins
        spec = _numeric(schema, self.column, "histogram")
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

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        bins = self._bins(data.schema)
        rows = data.complete(self.column_names)
        if self.edges:  # clamped to the bounds already: [lower, e1) is 0, ..., [ek, upper] is k
            codes = np.searchsorted(np.asarray(self.edges), rows[self.column].to_numpy(dtype=np.float64), side="right")
        else:
            codes = bin_codes(_categorical(data.schema, self.column, "histogram"), rows[self.column])
        groups = _group_codes(self, data)
        cells = len(bins) * len(self.groups(data.schema))
        codes = np.where((codes >= 0) & (groups >= 0), groups * len(bins) + codes, -1)
        return (_counts_by_group(codes, cells),)

    def method(self, schema: Schema) -> str:
        where = f", within each category of {self.by}" if self.by else ""
        if self.edges:
            return (f"Rows counted in each interval of {self.column} between the public edges (values outside the "
                    f"bounds in the first or last interval){where}, plus integer noise in every bin.")
        spec = _categorical(schema, self.column, "histogram")
        outside = (
            "values outside the list are counted in '(other)'"
            if len(spec.bins) > len(spec.categories)
            else "values outside the list are left out"
        )
        return f"Rows counted in each public category ({outside}){where}, plus integer noise in every bin."

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), **({"edges": list(self.edges)} if self.edges else {})}


def _exactly(value: float) -> str:
    """An interval's end as typed: 1000000 and 100000.1, not 1e+06 and 100000 (two edges never read alike)."""
    return np.format_float_positional(value, trim="-")


@dataclass(frozen=True)
class Variance(ColumnStatistic):
    """The variance of a numeric column (divisor n - 1): noisy centred sums of values and of
    squares over a noisy (or public) count, a third of ε and δ each (half each with a public count).

    Its error bound comes from simulation: the three noises are drawn from their public
    distributions (fixed seed) around the released moments, and the 95% point of the
    estimator's error is stated; previews use the worst case for bounded data instead.
    """

    type_name: ClassVar[str] = "variance"
    computed_from_noisy_sums: ClassVar[bool] = True

    def _grids(self, schema: Schema) -> tuple[SumGrid, SumGrid, int]:
        grid = _grid(_numeric(schema, self.column, self.type_name))
        reach = max(grid.hi - grid.centre, grid.centre - grid.lo) * grid.unit
        return grid, SumGrid(0.0, reach * reach), grid.centre

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
            parts.append(Query("count", _count_sensitivity(schema, self.column_names, bool(self.by)), 1.0, share, scalar))
        return tuple(parts)

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        grid, squares, centre = self._grids(data.schema)
        values = data.complete(self.column_names)[self.column].to_numpy(dtype=np.float64)
        centred = grid.to_integers(values) - centre
        deviations = centred * grid.unit
        square_steps = np.clip(squares.to_integers(deviations * deviations), 0, squares.hi)
        codes, groups = _group_codes(self, data), len(self.groups(data.schema))
        answers = [_sums_by_group(centred, codes, groups), _sums_by_group(square_steps, codes, groups)]
        if not self._public_count(data.schema):
            answers.append(_counts_by_group(codes, groups))
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
        cells = []
        for i, group in enumerate(self.groups(schema)):
            size = float(schema.public_size) if self._public_count(schema) else float(noisy[2][i])
            if size < 2:
                note = f"the noisy count of rows is below 2, so no {self.words or self.type_name} can be formed{_EMPTY_GROUP_WORDS}"
                cells.append(Cell(group, None, None, note))
                continue
            first, second = noisy[0][i] * grid.unit, noisy[1][i] * squares.unit
            value = float(self._finish(self._from_moments(np.array([first]), np.array([second]), np.array([size]), largest))[0])
            error = self._simulated_error(noises, schema, size, first / size, second / size, confidence)
            cells.append(Cell(group, value, error))
        return tuple(cells)

    def _simulated_error(self, noises, schema, size, mean, second, confidence, draws: int = SIMULATIONS) -> float:
        grid, squares, _ = self._grids(schema)
        largest = squares.upper
        mean = min(max(mean, -math.sqrt(largest)), math.sqrt(largest))
        second = min(max(second, mean * mean), largest)
        rng = simulation_rng()
        z1 = simulated_noise(noises[0].kind.value, noises[0].scale, draws, rng) * grid.unit
        z2 = simulated_noise(noises[1].kind.value, noises[1].scale, draws, rng) * squares.unit
        zn = simulated_noise(noises[2].kind.value, noises[2].scale, draws, rng) if len(noises) > 2 else np.zeros(draws)
        truth = self._finish(self._from_moments(np.array([mean * size]), np.array([second * size]), np.array([size]), largest))
        released = self._finish(self._from_moments(mean * size + z1, second * size + z2, size + zn, largest))
        return simulated_halfwidth(released - truth[0], confidence)

    def error_bound(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """For previews: simulated at a public size, the largest over data shapes from values all at
        the bounds to a spread of an eighth of the range, centred or off-centre."""
        if self._public_count(schema):
            size = float(schema.public_size)
        if not size or size < 2:
            return math.inf
        _, squares, _ = self._grids(schema)
        largest, reach = squares.upper, math.sqrt(squares.upper)
        shapes = [(m, m * m + v * largest) for m in (0.0, reach / 2) for v in (1.0, 1 / 4, 1 / 16)]
        draws = SIMULATIONS // 4  # a preview redraws on every slider move; its worst case already leans high
        return max(self._simulated_error(noises, schema, size, m, m2, confidence, draws) for m, m2 in shapes)

    def method(self, schema: Schema) -> str:
        where = f", in each category of {self.by}" if self.by else ""
        divisor = "the public size" if self._public_count(schema) else "a noisy count"
        return (
            f"Noisy sums of values and of squared values, both centred on the middle of the bounds, over {divisor}"
            f"{where}; divisor n - 1. The error bound is simulated from the noise distributions."
        )


@dataclass(frozen=True)
class StandardDeviation(Variance):
    """The standard deviation: the square root of ``Variance`` (post-processing)."""

    type_name: ClassVar[str] = "stddev"
    words: ClassVar[str] = "standard deviation"

    def _finish(self, variance: np.ndarray) -> np.ndarray:
        return np.sqrt(variance)


@dataclass(frozen=True)
class CrossTab(_CellCounts, Statistic):
    """Counts of every combination of the public categories of two or three columns (empty
    combinations too): one disjoint bin per combination, so it costs what one histogram does."""

    columns: tuple[str, ...] = ()
    by: str | None = None
    type_name: ClassVar[str] = "crosstab"

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))

    @property
    def label(self) -> str:
        return f"cross-tabulation of {' × '.join(self.columns)}{self._by_words()}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return (*self.columns, *super().column_names)

    def _specs(self, schema: Schema) -> list[CategoricalColumn]:
        if not 2 <= len(self.columns) <= 3 or len(set(self.column_names)) != len(self.column_names):
            raise PlanError(
                f"A cross-tabulation needs two or three different categorical columns (and a grouping column other "
                f"than them), not {', '.join(self.column_names) or 'none'}."
            )
        return [_categorical(schema, column, "cross-tabulation") for column in self.columns]

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        self._specs(schema)
        self.groups(schema)  # checks the grouping column
        return (Query("cells", sensitivity.histogram(schema.k, schema.neighbouring), 1.0, 1.0, scalar=False),)

    def _cell_labels(self, schema: Schema) -> list[str]:
        labels = [g for g in self.groups(schema)] if self.by else [""]
        for spec in self._specs(schema):
            labels = [f"{prefix} / {b}" if prefix else b for prefix in labels for b in spec.bins]
        return labels

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        rows = data.complete(self.column_names)
        codes = _group_codes(self, data)
        cells = len(self.groups(data.schema))
        for spec, column in zip(self._specs(data.schema), self.columns):
            bins = bin_codes(spec, rows[column])
            codes = np.where((codes >= 0) & (bins >= 0), codes * len(spec.bins) + bins, -1)
            cells *= len(spec.bins)
        return (_counts_by_group(codes, cells),)

    def method(self, schema: Schema) -> str:
        where = f", within each category of {self.by}" if self.by else ""
        return (
            f"Rows counted in every combination of the public categories of {', '.join(self.columns)}{where} "
            "(each row in one cell), plus integer noise in every cell."
        )

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "columns": list(self.columns)}


def level_words(level: float) -> str:
    """A quantile level as statisticians say it: 'median', '25th percentile', '2.5th percentile'."""
    if level == 0.5:
        return "median"
    percent = f"{100 * level:.10g}"
    if "." in percent or 11 <= int(percent) % 100 <= 13:
        suffix = "th"
    else:
        suffix = {"1": "st", "2": "nd", "3": "rd"}.get(percent[-1], "th")
    return f"{percent}{suffix} percentile"


@dataclass(frozen=True)
class Quantiles(ColumnStatistic):
    """Quantiles of a numeric column at public levels (the median is level 0.5), each chosen by
    the exponential mechanism among ``QUANTILE_CANDIDATES`` evenly spaced points of the bounds.

    The error is stated in ranks, the one measure of a quantile's error that depends on no
    data: how many rows the released value's position may lie from the level's. (How far that
    is in the column's units depends on how dense the data are there, which is private.)
    """

    levels: tuple[float, ...] = (0.5,)
    type_name: ClassVar[str] = "quantiles"
    mechanisms: ClassVar[tuple[MechanismKind, ...]] = (MechanismKind.EXPONENTIAL,)
    error_unit: ClassVar[str] = "ranks"

    def __post_init__(self) -> None:
        levels = tuple(sorted({float(level) for level in self.levels}))
        object.__setattr__(self, "levels", levels)

    @property
    def label(self) -> str:
        if len(self.levels) == 1:
            return f"{level_words(self.levels[0])} of {self.column}{self._by_words()}"
        return f"quantiles {', '.join(f'{100 * a:.10g}%' for a in self.levels)} of {self.column}{self._by_words()}"

    def _check(self, schema: Schema) -> NumericColumn:
        spec = _numeric(schema, self.column, "quantiles")
        if not self.levels:
            raise PlanError(f"The quantiles of '{self.column}' need at least one level, e.g. 0.5 for the median.")
        for level in self.levels:
            if not 0 < level < 1:
                raise PlanError(
                    f"A quantile level of '{self.column}' is {level:g}; levels lie strictly between 0 and 1 "
                    "(0.5 is the median, 0.25 and 0.75 the quartiles)."
                )
        self.groups(schema)  # checks the grouping column
        return spec

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        self._check(schema)
        distance = person_distance(schema.k, schema.neighbouring is not Neighbouring.ADD_REMOVE)
        rows = Sensitivity(distance, distance)  # a person's rows move every group's quantile by this much in total
        share = 1.0 / len(self.levels)
        return tuple(Query(level_words(a), rows, 1.0, share, not self.by, level=a) for a in self.levels)

    def candidates(self, schema: Schema) -> tuple[float, ...]:
        spec = self._check(schema)
        assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
        return quantile_candidates(float(spec.lower), float(spec.upper))

    def measure(self, data: PreparedData, noises: Sequence[Noise]) -> list[list]:
        """For each level, in each group, one candidate chosen by OpenDP from the group's values.
        Groups are disjoint, and a person's rows are split among them: the privacy loss adds up
        over the groups to that of ``person_distance`` rows in one group (the map is linear)."""
        candidates = self.candidates(data.schema)
        values = data.complete(self.column_names)[self.column].to_numpy(dtype=np.float64)
        codes, groups = _group_codes(self, data), len(self.groups(data.schema))
        per_group = [values[codes == g] for g in range(groups)]
        return [
            [noise.select_quantile(group, candidates, level) for group in per_group]
            for noise, level in zip(noises, self.levels)
        ]

    def exact(self, data: PreparedData) -> tuple[list[int], ...]:
        raise TypeError("quantiles have no integer answers to add noise to; they are measured by selection")

    def estimate(self, noisy, noises, schema, confidence):
        error = self.error_bound(noises, schema, None, confidence)
        cells = []
        for i, group in enumerate(self.groups(schema)):
            ordered = sorted(float(per_level[i]) for per_level in noisy)  # consistent order: post-processing
            for level, value in zip(self.levels, ordered):
                label = f"{group} / {level_words(level)}" if self.by else level_words(level)
                note = f"its position is within {error:,} rows of the true {level_words(level)}'s ({confidence:.0%})"
                cells.append(Cell(label, value, float(error), note, self.error_unit))
        return tuple(cells)

    def error_bound(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """Ranks: the largest over the levels, so that sorting the released values keeps every
        level within its bound (the intervals are then ordered like the levels)."""
        count = len(self.candidates(schema))
        return max(quantile_rank_halfwidth(noise.scale, confidence, count) for noise in noises)

    def method(self, schema: Schema) -> str:
        where = f" in each category of {self.by}" if self.by else ""
        share = f"ε is split evenly over the {len(self.levels)} levels; " if len(self.levels) > 1 else ""
        step = self.candidates(schema)
        return (
            f"Permute-and-flip selection (an exponential mechanism, OpenDP){where}: among {QUANTILE_CANDIDATES:,} evenly spaced points of the bounds "
            f"(a step of {step[1] - step[0]:.3g}), a point is chosen with a probability that falls with the "
            f"distance of its rank from the level's; {share}the values are released in increasing order. "
            "The error is in ranks (rows), since its size in the column's units depends on the data."
        )

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "levels": list(self.levels)}


@dataclass(frozen=True)
class BoundsSearch(Quantiles):
    """Low and high quantiles of a column whose bounds are not known, over log-spaced candidates
    of a wide public search range: a DP estimate of bounds that spends budget like any release.

    The column's own bounds in the schema are the search range (e.g. ±1e9), not tight bounds.
    """

    levels: tuple[float, ...] = (0.01, 0.99)
    type_name: ClassVar[str] = "bounds"

    @property
    def label(self) -> str:
        return f"bounds search of {self.column} (levels {', '.join(f'{100 * a:.10g}%' for a in self.levels)})"

    def candidates(self, schema: Schema) -> tuple[float, ...]:
        spec = self._check(schema)
        assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
        return bounds_candidates(float(spec.lower), float(spec.upper))

    def method(self, schema: Schema) -> str:
        return (
            f"Permute-and-flip selection (OpenDP) of the {', '.join(level_words(a) for a in self.levels)} among "
            f"{len(self.candidates(schema)):,} points spaced evenly on a log scale (20 per factor of ten) over the "
            "search range; ε is split evenly over the levels. A bounds estimate: it is charged like any release."
        )


STATISTIC_TYPES: dict[str, type[Statistic]] = {
    cls.type_name: cls for cls in (Count, Sum, Mean, Variance, StandardDeviation, Histogram, CrossTab, Quantiles)
}


def statistic_from_json(data: Any, where: str) -> Statistic:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or data["type"] not in STATISTIC_TYPES:
        kind = data.get("type") if isinstance(data, dict) else data
        raise PlanError(f"{where}: {kind!r} is not a statistic; choose one of {', '.join(STATISTIC_TYPES)}.")
    cls = STATISTIC_TYPES[data["type"]]
    by = data.get("by")
    if isinstance(by, list) and len(by) == 1:  # ["region"]: one column written as a list
        by = by[0]
    if isinstance(by, list):
        raise PlanError(f"{where}: 'by' names one categorical column, e.g. \"by\": \"region\", not a list of "
                        f"{len(by)}. For counts by two or three columns, use a crosstab.")
    if by is not None and (not isinstance(by, str) or not by):
        raise PlanError(f"{where}: 'by' must name a categorical column, e.g. \"by\": \"region\", or be left out.")
    if cls is Count:
        return Count(by=by)
    if cls is CrossTab:
        columns = data.get("columns")
        if not isinstance(columns, list) or not all(isinstance(c, str) and c for c in columns):
            raise PlanError(f"{where}: a crosstab needs 'columns', a list of two or three categorical column names.")
        return CrossTab(columns=tuple(columns), by=by)
    column = data.get("column")
    if not isinstance(column, str) or not column:
        raise PlanError(f"{where}: a {data['type']} needs the name of its 'column'.")
    if cls is Quantiles:
        levels = data.get("levels", [0.5])
        if (not isinstance(levels, list) or not levels
                or any(isinstance(a, bool) or not isinstance(a, (int, float)) or not 0 < a < 1 for a in levels)):
            raise PlanError(
                f"{where}: 'levels' must be a list of quantile levels strictly between 0 and 1, such as "
                f"[0.25, 0.5, 0.75]; it is {levels!r}."
            )
        return Quantiles(column=column, by=by, levels=tuple(levels))
    if cls is Histogram and data.get("edges") is not None:
        edges = data["edges"]
        if (not isinstance(edges, list) or not edges
                or any(isinstance(e, bool) or not isinstance(e, (int, float)) or not math.isfinite(e) for e in edges)):
            raise PlanError(
                f"{where}: 'edges' must be a list of numbers that cut the column's bounds into intervals, such as "
                f"[18, 30, 45, 65]; it is {edges!r}."
            )
        return Histogram(column=column, by=by, edges=tuple(edges))
    return cls(column=column, by=by)  # type: ignore[call-arg]
