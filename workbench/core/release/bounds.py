"""Help with bounds: a differentially private estimate, for a user who does not know good ones.

Bounds are public input (DESIGN rule 2). Taking a column's minimum and maximum from the data
would leak the most extreme persons, so the only way the data may suggest bounds is a DP
release that spends a stated share of the budget and is charged to the ledger like any
other: here, a low and a high quantile (by default the 1st and 99th percentiles, so about
1% of the values on each side will be clamped) chosen among log-spaced points of a wide
public search range. The suggestion is rounded outwards to two significant digits
(post-processing) and is the user's to accept or change.

A selection whose rank error exceeds the rows meant to lie outside is no estimate at all: the
empty candidates of a wide search range then win often (a test at ε = 0.1 suggested 354,000,000
for incomes up to 200,000). The rank error depends on ε and the search range only, so with a
public size (the plan's estimate) such a request is refused before anything is spent, naming the
ε that would do; without one the words say from what table size the suggestion means anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from workbench.core.data import IdentifierColumn, MissingAction, MissingPolicy, NumericColumn, Schema, Table
from workbench.core.data.aggregates import Engine
from workbench.core.data.sql_engine import FileSource
from workbench.core.errors import SchemaError
from workbench.core.privacy import Guarantee, MechanismKind
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import Budget, PlannedStatistic, ReleasePlan
from workbench.core.release.planner import expected_error
from workbench.core.release.run import Release, release
from workbench.core.statistics import BoundsSearch
from workbench.core.statistics.quantiles import level_problem, level_words, snapped_level

SEARCH_RANGE = (-1e9, 1e9)
DEFAULT_COVERAGE = 0.98


@dataclass(frozen=True)
class BoundsEstimate:
    column: str
    lower: float  # suggested bounds: the released quantiles rounded outwards
    upper: float
    coverage: float  # the share of values the released quantiles are meant to enclose
    released: Release  # what was released and charged (the raw quantiles and their rank error)
    search: tuple[float, float] | None = None  # the public range searched

    def in_words(self) -> str:
        cells = self.released.statistics[0].cells
        low, high = (cell.value for cell in cells)
        tail = (1 - self.coverage) / 2
        error = cells[0].error
        text = (
            f"Suggested bounds for '{self.column}': {self.lower:g} to {self.upper:g} (the released "
            f"{level_words(tail)} and {level_words(1 - tail)}, {low:.4g} and {high:.4g}, rounded outwards). About "
            f"{100 * tail:g}% of the values on each side may lie outside and will be clamped. With 95% probability "
            f"each released value's position is within {error:,.0f} rows of its percentile's: the suggestion means "
            f"something only for a table of at least {useful_size(error, tail):,} rows (else spend more ε, or narrow "
            f"the search range with --search)."
        )
        ends = self.search  # a value at an end of the range says only that the percentile is there or beyond
        if ends and (low <= ends[0] or high >= ends[1]):
            text += (
                f" A released value is at an end of the search range ({ends[0]:g} to {ends[1]:g}): the percentile "
                "lies there or beyond it; if values beyond that end are possible, widen the range or enter a bound "
                "from public knowledge (a legal or published limit)."
            )
        return text + f" This estimate spent ε = {self.released.guarantee.epsilon:g}, charged to the ledger."


def estimate_bounds(
    table: Table | FileSource,
    plan: ReleasePlan,
    column: str,
    epsilon: float,
    ledger: Ledger,
    dataset_budget: Guarantee | None = None,
    coverage: float = DEFAULT_COVERAGE,
    search: tuple[float, float] = SEARCH_RANGE,
    data: Engine | None = None,
) -> BoundsEstimate:
    """Release DP low and high quantiles of ``column`` (charged to ``ledger`` under the plan's
    dataset, privacy unit and relation) and suggest bounds from them. A file read out of core is
    given as its ``FileSource`` with ``data``, its prepared data for ``search_schema``."""
    if not 0.5 < coverage < 1:
        raise SchemaError(f"The share of values the bounds should enclose must lie between 0.5 and 1, not {coverage!r}.")
    schema = search_schema(plan, column, search)
    tail = (1 - coverage) / 2
    if level_problem(snapped_level(tail)):  # OpenDP computes quantile levels in ten-thousandths (issue 41, 6)
        raise SchemaError(
            f"A coverage of {coverage:g} leaves {tail:.6g} of the values outside on each side, finer than the "
            "ten-thousandths OpenDP computes quantile levels with. Choose a coverage that leaves whole "
            "ten-thousandths on each side, such as 0.98 or 0.9998."
        )
    search_plan = _search_plan(plan, schema, BoundsSearch(column, levels=(tail, 1 - tail)), epsilon)
    _refuse_useless(search_plan, plan.schema.public_size or plan.dataset.size_estimate, tail, column)
    released = release(table, search_plan, ledger, dataset_budget, data=data)
    low, high = (cell.value for cell in released.statistics[0].cells)
    lower, upper = round_outwards(low, up=False), round_outwards(high, up=True)
    if lower == upper:
        upper = round_outwards(upper + max(abs(upper), 1.0) * 0.01, up=True)
    return BoundsEstimate(column, lower, upper, coverage, released, (float(search[0]), float(search[1])))


def search_schema(plan: ReleasePlan, column: str, search: tuple[float, float] = SEARCH_RANGE) -> Schema:
    """The schema a bounds search reads: the column within the search range, and the person's identifier."""
    spec = plan.schema.column(column)
    if not isinstance(spec, NumericColumn):
        raise SchemaError(f"Bounds can be estimated for numeric columns only; '{column}' is described as {spec.kind}.")
    columns: list = [NumericColumn(column, lower=search[0], upper=search[1], missing=MissingPolicy(MissingAction.DROP))]
    if plan.schema.unit.id_column:
        columns.insert(0, IdentifierColumn(plan.schema.unit.id_column))
    return Schema(columns=tuple(columns), unit=plan.schema.unit, neighbouring=plan.schema.neighbouring,
                  public_size=plan.schema.public_size)


def _search_plan(plan: ReleasePlan, schema: Schema, statistic: BoundsSearch, epsilon: float) -> ReleasePlan:
    return ReleasePlan(
        dataset=plan.dataset,
        schema=schema,
        statistics=(PlannedStatistic(statistic, MechanismKind.EXPONENTIAL, Budget(epsilon)),),
        total=Budget(epsilon),
        confidence=plan.confidence,
    )


def rank_error(search_plan: ReleasePlan) -> float:
    """The selection's rank error at the plan's confidence: from ε and the search range only, no data."""
    return expected_error(search_plan.statistics[0], search_plan.schema, None, search_plan.confidence)


def useful_size(error: float, tail: float) -> int:
    """The fewest rows for which a rank error of ``error`` stays within the ``tail`` share meant to lie outside."""
    return math.ceil(error / tail)


def _refuse_useless(search_plan: ReleasePlan, size: float | None, tail: float, column: str) -> None:
    """Refuse, before anything is spent, a search whose rank error exceeds the rows of a tail at the public size."""
    error = rank_error(search_plan)
    if not size or error <= tail * size:
        return
    epsilon = search_plan.total.epsilon
    needed = epsilon
    while rank_error(replace(search_plan, statistics=(replace(search_plan.statistics[0], budget=Budget(needed)),),
                             total=Budget(needed))) > tail * size:
        needed = float(f"{needed * 1.1:.2g}") if needed * 1.1 > needed + 0.01 else needed + 0.01
    raise SchemaError(
        f"Nothing was spent: at ε = {epsilon:g} each suggested bound of '{column}' would be placed only to within "
        f"{error:,.0f} rows, more than the {tail * size:,.0f} rows ({100 * tail:g}% of the {size:,.0f} the plan "
        f"estimates) meant to lie outside it, so it could land anywhere in the search range. Spend at least "
        f"ε = {needed:g}, or ask for a wider share outside (--coverage 0.9), or enter bounds from public knowledge "
        "(a legal or published limit): a bound need not be tight, only never too narrow."
    )


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
