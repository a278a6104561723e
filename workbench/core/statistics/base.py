"""What every statistic is: a recipe that reads like a sentence, ``Mean("income")``.

A statistic names the integer queries it needs (with their sensitivity, from the schema
alone), computes their exact answers from prepared data, and turns noisy answers into
released cells with an error bound. It never draws noise itself.

Any statistic can be computed ``by`` one to three categorical columns: one value per public
category of that column (and '(other)' if kept), or per combination of the columns' categories
("mean income by region and sex"). The groups partition the rows however many columns make
them, so all groups are one query whose sensitivity counts every group a person can touch
(``sensitivity.grouped_sum``): parallel composition, so the groups share one ε instead of each
spending it. The helpers here that read columns and
groups are shared by the families (``counts``, ``moments``, ``quantiles``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar, Sequence

import numpy as np

from workbench.core.data import CategoricalColumn, ColumnSpec, NumericColumn, Schema
from workbench.core.data.aggregates import Aggregate, Answer, Categories, CellPart, Engine, Expression
from workbench.core.errors import Place, PlanError, SchemaError
from workbench.core.privacy import MechanismKind, Noise, Sensitivity, sensitivity


@dataclass(frozen=True)
class Query:
    """One integer-valued measurement a statistic needs."""

    name: str
    sensitivity: Sensitivity
    unit: float  # what one integer step is worth in the statistic's own units
    share: float  # share of the statistic's ε and δ spent on this query
    scalar: bool = True  # one number (else a vector: histogram bins, or one value per group)
    level: float | None = None  # for a quantile: its level in (0, 1); the sensitivity is then a row distance
    mechanism: MechanismKind | None = None  # None: the statistic's planned mechanism


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
    cv: float | None = None  # the noise's coefficient of variation (release.reliability); None: not applicable
    flag: str = ""  # reliable / use with caution / too unreliable to publish, by the plan's CV thresholds
    lower: float | None = None  # a confidence interval in the value's own units, where ``error`` is in
    upper: float | None = None  # other units (a quantile's, in ranks): it need not be centred on the value

    @property
    def raw_value(self) -> float | None:
        """The value as the mechanism released it, before any post-processing (DESIGN rule 7)."""
        return self.value if self.raw is None else self.raw


MAX_GROUPING_COLUMNS = 3
MAX_GROUPS = 100_000  # beyond this a table is noise in every cell, and too large to show or check by eye


def grouping(by: str | Sequence[str] | None) -> tuple[str, ...]:
    """``by`` as code or a plan may write it: no column (None), one name, or several names."""
    if by is None or by == "":
        return ()
    return (by,) if isinstance(by, str) else tuple(by)


def grouping_words(columns: Sequence[str]) -> str:
    """'region', 'region and sex', 'region, sex and age group'."""
    return columns[0] if len(columns) == 1 else f"{', '.join(columns[:-1])} and {columns[-1]}"


def grouping_json(columns: tuple[str, ...]) -> str | list[str] | None:
    """``by`` as plans and results write it: one name as a string (as before several were allowed), several as a list."""
    if not columns:
        return None
    return columns[0] if len(columns) == 1 else list(columns)


class Statistic:
    """A released statistic: its queries, their exact answers, and the released cells."""

    type_name: ClassVar[str] = ""
    by: tuple[str, ...] = ()  # categorical columns: one value per group (a combination of their categories)
    weighted_by: str | None = None  # a survey weight column (``weights``), for the statistics that take one
    mechanisms: ClassVar[tuple[MechanismKind, ...]] = (MechanismKind.LAPLACE, MechanismKind.GAUSSIAN)
    error_unit: ClassVar[str] = ""  # what the error bound counts, if not the statistic's own units
    # the noise goes into sums the value is computed from (a mean, a variance), not into the value itself
    computed_from_noisy_sums: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "by", grouping(self.by))  # Mean("income", by="region") names one column

    @property
    def label(self) -> str:
        raise NotImplementedError

    @property
    def column_names(self) -> tuple[str, ...]:
        """Every column the statistic reads (a row missing one of them is left out)."""
        return (*self.by, *self._weight_column())

    def _weight_column(self) -> tuple[str, ...]:
        return (self.weighted_by,) if self.weighted_by else ()

    def _row_sum_sensitivity(self, schema: Schema, lo: int, hi: int) -> Sensitivity:
        """A sum of per-row integers in [lo, hi] over this statistic's rows, per group if ``by``."""
        bound = sensitivity.grouped_sum if self.by else sensitivity.bounded_sum
        return bound(lo, hi, schema.k, schema.min_rows_per_person(self.column_names), schema.neighbouring)

    def planning_size(self, schema: Schema, rows: float | None) -> float | None:
        """What ``rows`` rows add up to in the denominator of ``error_bound``: the rows themselves, or for a
        weighted statistic their weights at the smallest (the largest error: a preview never promises more)."""
        if not self.weighted_by or rows is None:
            return rows
        lower = weight_spec(schema, self.weighted_by, self.label).lower
        assert lower is not None
        return rows * lower

    def grouping_specs(self, schema: Schema) -> tuple[CategoricalColumn, ...]:
        """The grouping columns' descriptions, checked: categorical, different, at most three, and not too
        many groups together."""
        if not self.by:
            return ()
        if len(self.by) > MAX_GROUPING_COLUMNS or len(set(self.by)) != len(self.by):
            raise PlanError(
                f"A {self.type_name} by group is by one to {MAX_GROUPING_COLUMNS} different categorical columns, "
                f"not by {', '.join(self.by)}.",
                place=Place("statistics", "statistic", statistic=self.label),
            )
        specs = tuple(categorical_spec(schema, c, f"{self.type_name} by group", grouping=True) for c in self.by)
        groups = math.prod(len(spec.bins) for spec in specs)
        if groups > MAX_GROUPS:
            raise PlanError(
                f"The {self.type_name} by {grouping_words(self.by)} would release {groups:,} groups (one per "
                f"combination of their categories), more than {MAX_GROUPS:,}: every one would be mostly noise. "
                "Group by fewer columns, or merge categories.",
                place=Place("statistics", "statistic", statistic=self.label),
            )
        return specs

    def group_count(self, schema: Schema) -> int:
        """How many groups ``groups`` names, without naming them (a preview asks on every slider move)."""
        return math.prod(len(spec.bins) for spec in self.grouping_specs(schema))

    def groups(self, schema: Schema) -> tuple[str, ...]:
        """The groups of a statistic ``by`` columns: every combination of their bins, in order ("North / female");
        without ``by``, one unnamed group."""
        specs = self.grouping_specs(schema)
        if not specs:
            return ("",)
        if len(specs) == 1:
            return specs[0].bins
        return tuple(" / ".join(combination) for combination in itertools.product(*(spec.bins for spec in specs)))

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        raise NotImplementedError

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        """Exact integer answers, one list per query. Private: only noise may touch them."""
        raise NotImplementedError

    def requests(self, schema: Schema) -> tuple[Aggregate, ...]:
        """The aggregates ``measure`` asks of the data, known from public inputs alone (an engine may answer those
        that share their cells together): what ``exact`` asks of data that hold no rows."""
        asked = _Asked(schema)
        self.exact(asked)
        return tuple(asked.asked)

    def measure(self, data: Engine, noises: Sequence[Noise], confidence: float = 0.95) -> list[list]:
        """Noisy answers, one list per query: the exact answers plus OpenDP noise. The exact
        answers never leave this function. ``confidence`` is for a mechanism whose steps depend on
        the confidence its result is stated at (a quantile's interval)."""
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
        return {"type": self.type_name, **({"by": grouping_json(self.by)} if self.by else {}),
                **({"weighted_by": self.weighted_by} if self.weighted_by else {})}

    def _by_words(self) -> str:
        """' by region', and ' weighted by wt' for a weighted statistic (every label ends with them)."""
        by = f" by {grouping_words(self.by)}" if self.by else ""
        return by + (f" weighted by {self.weighted_by}" if self.weighted_by else "")

    def _in_each_group(self, preposition: str = "in") -> str:
        """' in each category of region', ' in each combination of region and sex' (for methods)."""
        if not self.by:
            return ""
        what = "category" if len(self.by) == 1 else "combination of the categories"
        return f" {preposition} each {what} of {grouping_words(self.by)}"


@dataclass(frozen=True)
class ColumnStatistic(Statistic):
    """A statistic of one column: ``Mean("income")`` is labelled "mean of income"."""

    column: str
    by: tuple[str, ...] = ()  # one name is accepted too, and made a tuple
    words: ClassVar[str] = ""  # the name in labels, if not the type name

    @property
    def label(self) -> str:
        return f"{self.words or self.type_name} of {self.column}{self._by_words()}"

    @property
    def column_names(self) -> tuple[str, ...]:
        return (self.column, *self.by, *self._weight_column())

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "column": self.column}

    def _public_count(self, schema: Schema) -> bool:
        """Whether the rows are counted by the public size (no groups, and the count needs no noise)."""
        return not self.by and not self.weighted_by and count_is_public(schema, self.column_names)


def numeric_spec(schema: Schema, column: str, statistic: str) -> NumericColumn:
    spec = schema.column(column)
    if not isinstance(spec, NumericColumn):
        raise SchemaError(
            f"The {statistic} of '{column}' needs a numeric column with bounds, but '{column}' is described "
            f"as {spec.kind}. Describe it as numeric, or choose another statistic.",
            place=Place("columns", "kind", column),
        )
    validated_once(spec)  # its bounds set the sensitivity: reversed, equal or missing bounds are named here
    return spec


def weight_spec(schema: Schema, weight: str, label: str) -> NumericColumn:
    """The weight column's description, checked: numeric, with bounds 0 < w_min < w_max."""
    spec = schema.column(weight)
    if not isinstance(spec, NumericColumn):
        raise SchemaError(
            f"'{label}' is weighted by '{weight}', which is described as {spec.kind}. A weight column must be numeric "
            "with public bounds (the smallest and largest weight of the survey design).",
            place=Place("columns", "kind", weight),
        )
    validated_once(spec)  # checked once per description, as every column a statistic reads
    assert spec.lower is not None
    if spec.lower <= 0:
        raise SchemaError(
            f"'{label}' is weighted by '{weight}', whose lower bound is {spec.lower:g}. Survey weights are positive: "
            "enter the smallest weight the design gives (for example 1), so that a row always counts.",
            place=Place("columns", "bounds", weight),
        )
    return spec


def categorical_spec(schema: Schema, column: str, statistic: str, grouping: bool = False) -> CategoricalColumn:
    spec = schema.column(column)
    if not isinstance(spec, CategoricalColumn):
        what = f"A {statistic} of '{column}'" if grouping else f"The {statistic} of '{column}'"
        raise SchemaError(
            f"{what} needs a categorical column with public categories, but '{column}' is described as "
            f"{spec.kind}. Describe it as categorical, or choose another {'grouping' if grouping else 'statistic'}.",
            place=Place("columns", "kind", column),
        )
    validated_once(spec)
    return spec


def validated_once(spec: ColumnSpec) -> None:
    """A column description checked once per object (it is immutable; an edit makes a new one): a
    preview asks on every slider move. A refusal raises and is not remembered, so it is named again
    every time. The mark is on the object, not keyed by value: 1 and True compare equal."""
    if spec.__dict__.get("_validated"):
        return
    spec.validate()
    object.__setattr__(spec, "_validated", True)


class _Asked:
    """Data that hold no rows and remember what was asked of them (``Statistic.requests``): public."""

    rows = 0

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.asked: list[Aggregate] = []

    def aggregate(self, request: Aggregate) -> Answer:
        self.asked.append(request)
        return Answer(np.zeros(0, dtype=np.int64), [], request.size)


def group_parts(statistic: Statistic, schema: Schema) -> tuple[Categories, ...]:
    """The cell parts that split a statistic's rows into its groups (none without ``by``)."""
    return tuple(Categories(spec) for spec in statistic.grouping_specs(schema))


def cell_counts(statistic: Statistic, data: Engine, *parts: CellPart) -> list[int]:
    """Rows per group of ``statistic`` (and per cell of ``parts`` within each group), over its complete rows."""
    return data.aggregate(Aggregate(statistic.column_names, (*group_parts(statistic, data.schema), *parts))).dense()


def cell_sums(statistic: Statistic, data: Engine, value: Expression, *parts: CellPart) -> list[int]:
    """Exact sums of the integer ``value`` per group of ``statistic`` (and per cell of ``parts``)."""
    request = Aggregate(statistic.column_names, (*group_parts(statistic, data.schema), *parts), value)
    return data.aggregate(request).dense()


# Why a cell has no value, from public facts only: whether the group really is empty is private.
EMPTY_GROUP_WORDS = (
    ": the group is empty or holds very few rows. A larger ε helps only if it should hold rows; an '(other)' "
    "group holds only values outside the public categories, and is empty by construction when the list is complete "
    "(then choose to leave values outside the list out, and no '(other)' group is released)"
)


INTEGER_LIMIT_WORDS = (
    "not reliable: an exact sum behind this value may have reached 2^62 steps of its grid (it takes more than 2^30 "
    "rows near the bounds' largest magnitude), the most that noise is added to; a larger sum is released as that "
    "limit, so the value may be too small in magnitude and its error bound does not hold. Release it by group "
    "(each group's sum is smaller), or on a sample of the rows"
)


def marked_at_integer_limit(
    cells: tuple[Cell, ...], noisy: Sequence[Sequence[int]], noises: Sequence[Noise]
) -> tuple[Cell, ...]:
    """``cells`` marked not reliable, with why, if a noisy answer lies so near the limit that ``Noise.sample``
    clamps exact answers to that its exact answer may have been clamped (issue 41, 5). Post-processing: it reads
    the noisy answers only. A statistic with several answers per cell marks all its cells."""
    if not any(noise.may_be_clamped(values) for values, noise in zip(noisy, noises)):
        return cells
    return tuple(cell if cell.value is None else replace(
        cell, reliable=False, note=f"{cell.note}; {INTEGER_LIMIT_WORDS}" if cell.note else INTEGER_LIMIT_WORDS)
        for cell in cells)


def group_cells(groups: Sequence[str], values: Sequence[float | None], errors: Sequence[float | None]) -> tuple[Cell, ...]:
    return tuple(Cell(g, v, e) for g, v, e in zip(groups, values, errors))


def count_sensitivity(schema: Schema, columns: tuple[str, ...], grouped: bool = False) -> Sensitivity:
    """Rows counted over the rows where ``columns`` are present (in every group, if ``grouped``)."""
    bound = sensitivity.grouped_sum if grouped else sensitivity.bounded_sum
    return bound(1, 1, schema.k, schema.min_rows_per_person(columns), schema.neighbouring)


def count_is_public(schema: Schema, columns: tuple[str, ...] = ()) -> bool:
    """Under substitute with one row per person and none dropped, the row count is the public size."""
    return count_sensitivity(schema, columns).l1 == 0
