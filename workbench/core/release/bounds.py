"""Help with bounds: a differentially private estimate, for a user who does not know good ones.

Bounds are public input (DESIGN rule 2). Taking a column's minimum and maximum from the data
would leak the most extreme persons, so the only way the data may suggest bounds is a DP
release that spends a stated share of the budget and is charged to the ledger like any
other: here, a low and a high quantile (by default the 1st and 99th percentiles, so about
1% of the values on each side will be clamped) chosen among log-spaced points of a wide
public search range. The suggestion is rounded outwards to two significant digits
(post-processing) and is the user's to accept or change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from workbench.core.data import IdentifierColumn, MissingAction, MissingPolicy, NumericColumn, Schema, Table
from workbench.core.errors import SchemaError
from workbench.core.privacy import Guarantee, MechanismKind
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import Budget, PlannedStatistic, ReleasePlan
from workbench.core.release.run import Release, release
from workbench.core.statistics import BoundsSearch
from workbench.core.statistics.quantiles import level_problem, snapped_level

SEARCH_RANGE = (-1e9, 1e9)
DEFAULT_COVERAGE = 0.98


@dataclass(frozen=True)
class BoundsEstimate:
    column: str
    lower: float  # suggested bounds: the released quantiles rounded outwards
    upper: float
    coverage: float  # the share of values the released quantiles are meant to enclose
    released: Release  # what was released and charged (the raw quantiles and their rank error)

    def in_words(self) -> str:
        cells = self.released.statistics[0].cells
        low, high = (cell.value for cell in cells)
        tail = (1 - self.coverage) / 2
        return (
            f"Suggested bounds for '{self.column}': {self.lower:g} to {self.upper:g} (the released {100 * tail:g}th and "
            f"{100 * (1 - tail):g}th percentiles, {low:.4g} and {high:.4g}, rounded outwards). About {100 * tail:g}% of "
            f"the values on each side may lie outside and will be clamped. With 95% probability each released value's "
            f"position is within {cells[0].error:,.0f} rows of its percentile's; if that is a large share of your rows, "
            f"the suggestion is rough: spend more ε, or narrow the search range. This estimate spent ε = "
            f"{self.released.guarantee.epsilon:g}, charged to the ledger."
        )


def estimate_bounds(
    table: Table,
    plan: ReleasePlan,
    column: str,
    epsilon: float,
    ledger: Ledger,
    dataset_budget: Guarantee | None = None,
    coverage: float = DEFAULT_COVERAGE,
    search: tuple[float, float] = SEARCH_RANGE,
) -> BoundsEstimate:
    """Release DP low and high quantiles of ``column`` (charged to ``ledger`` under the plan's
    dataset, privacy unit and relation) and suggest bounds from them."""
    spec = plan.schema.column(column)
    if not isinstance(spec, NumericColumn):
        raise SchemaError(f"Bounds can be estimated for numeric columns only; '{column}' is described as {spec.kind}.")
    if not 0.5 < coverage < 1:
        raise SchemaError(f"The share of values the bounds should enclose must lie between 0.5 and 1, not {coverage!r}.")
    columns: list = [NumericColumn(column, lower=search[0], upper=search[1], missing=MissingPolicy(MissingAction.DROP))]
    if plan.schema.unit.id_column:
        columns.insert(0, IdentifierColumn(plan.schema.unit.id_column))
    schema = Schema(columns=tuple(columns), unit=plan.schema.unit, neighbouring=plan.schema.neighbouring,
                    public_size=plan.schema.public_size)
    tail = (1 - coverage) / 2
    if level_problem(snapped_level(tail)):  # OpenDP computes quantile levels in ten-thousandths (issue 41, 6)
        raise SchemaError(
            f"A coverage of {coverage:g} leaves {tail:.6g} of the values outside on each side, finer than the "
            "ten-thousandths OpenDP computes quantile levels with. Choose a coverage that leaves whole "
            "ten-thousandths on each side, such as 0.98 or 0.9998."
        )
    statistic = BoundsSearch(column, levels=(tail, 1 - tail))
    search_plan = ReleasePlan(
        dataset=plan.dataset,
        schema=schema,
        statistics=(PlannedStatistic(statistic, MechanismKind.EXPONENTIAL, Budget(epsilon)),),
        total=Budget(epsilon),
        confidence=plan.confidence,
    )
    released = release(table, search_plan, ledger, dataset_budget)
    low, high = (cell.value for cell in released.statistics[0].cells)
    lower, upper = round_outwards(low, up=False), round_outwards(high, up=True)
    if lower == upper:
        upper = round_outwards(upper + max(abs(upper), 1.0) * 0.01, up=True)
    return BoundsEstimate(column, lower, upper, coverage, released)


def with_bounds(plan: ReleasePlan, column: str, lower: float, upper: float) -> ReleasePlan:
    """The plan with the column's bounds set (everything else kept)."""
    columns = tuple(
        replace(c, lower=lower, upper=upper) if c.name == column and isinstance(c, NumericColumn) else c
        for c in plan.schema.columns
    )
    return replace(plan, schema=replace(plan.schema, columns=columns))


def round_outwards(value: float, up: bool, digits: int = 2) -> float:
    """``value`` rounded to ``digits`` significant digits, away from the inside of the bounds."""
    if value == 0 or not math.isfinite(value):
        return value
    step = 10.0 ** (math.floor(math.log10(abs(value))) - digits + 1)
    rounded = (math.ceil if up else math.floor)(value / step) * step
    return float(f"{rounded:.{digits + 2}g}")
