"""Planning the budget: the ε a statistic needs for a stated accuracy, or a total split by weights.

Everything here uses public inputs only (bounds, the public size estimate, ε, δ): no data
is read, so planning costs no privacy. The error of a plan is the same ``error_bound``
that releases report, so what is promised here is what the release states.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Sequence

from workbench.core.data import Schema
from workbench.core.errors import Place, PlanError
from workbench.core.privacy import MechanismKind
from workbench.core.release.plan import Budget, PlannedStatistic, PlannedSynthetic, ReleasePlan
from workbench.core.release.reliability import ReliabilityRule, smallest_reliable_value
from workbench.core.statistics import Statistic
from workbench.core.synthetic import OnewayPreview
from workbench.core.synthetic import preview as synthetic_oneway

MIN_EPSILON, MAX_EPSILON = 1e-4, 100.0
_SEARCH_STEPS = 16  # ε to 2e-4 relative, below the 3-digit rounding that follows


def expected_error(
    planned: PlannedStatistic, schema: Schema, size_estimate: float | None, confidence: float, verified: bool = True
) -> float:
    """Half-width of the noise interval of ``planned`` at ``confidence`` (per cell).

    For a statistic by group whose error depends on the size (a mean), the size is the
    planned ``smallest_group`` where given (the group the promise must hold for), else that
    of a group of average size: the estimate divided by the number of groups. A weighted
    statistic's rows count at the smallest weight (``planning_size``): the largest error.
    """
    if isinstance(planned, PlannedSynthetic):
        return synthetic_preview(planned, schema, size_estimate, confidence).per_cell
    statistic = planned.statistic
    size = statistic.planning_size(schema, group_size(planned, schema, size_estimate))
    return statistic.error_bound(planned.noises(schema, verified), schema, size, confidence)


def synthetic_preview(planned: PlannedSynthetic, schema: Schema, size_estimate: float | None,
                      confidence: float = 0.95) -> OnewayPreview:
    """A synthetic table's one-way noise at its ε, before anything is read: ± rows per cell, and each column's
    expected total variation distance from the truth at the size estimate (rows: at least one per person)."""
    cells = {axis.name: len(axis.labels) for axis in planned.statistic.axes(schema)}
    return synthetic_oneway(planned.cost(verified=False), cells, schema, size_estimate, confidence)


def synthetic_words(preview: OnewayPreview) -> tuple[str, str]:
    """The preview of a synthetic table in words: (its error, its error relative to the rows)."""
    error = f"± {preview.per_cell:,.0f} rows per one-way cell"
    if not preview.distances:
        return error, "needs a size estimate"
    worst_column, worst = max(preview.distances, key=lambda d: d[1])
    return error, (f"one-way marginals within {worst:.1%} (expected total variation distance; largest: "
                   f"{worst_column}, at {preview.rows:,.0f} rows)")


def group_size(planned: PlannedStatistic, schema: Schema, size_estimate: float | None) -> float | None:
    """The rows a preview assumes for one cell of ``planned``: the whole estimate, the planned smallest
    group, or the estimate shared evenly by the groups."""
    statistic = planned.statistic
    if not statistic.by:
        return size_estimate
    if planned.smallest_group is not None:
        return float(planned.smallest_group)
    return size_estimate / statistic.group_count(schema) if size_estimate else size_estimate


def error_basis(planned: PlannedStatistic, schema: Schema, size_estimate: float | None) -> str:
    """Which rows a planned error is for, in words ("smallest group, 30 rows", "average group, 59 rows",
    "3,000 rows"); empty where the error does not depend on the rows (a count, a sum, a quantile's ranks)."""
    rows = group_size(planned, schema, size_estimate)
    if not rows or not planned.statistic.computed_from_noisy_sums:
        return ""
    if not planned.statistic.by:
        return f"{rows:,.0f} rows" + (", each at the smallest weight" if planned.statistic.weighted_by else "")
    which = "smallest group" if planned.smallest_group is not None else "average group"
    weights = ", each at the smallest weight" if planned.statistic.weighted_by else ""
    return f"{which}, {rows:,.0f} rows{weights}"


def smallest_group_caveat(planned: PlannedStatistic) -> str:
    """What a planned smallest group does not promise (issue 37, 2): a released group's error is computed at its
    noisy count, which for a group of exactly that size comes out below it about half the time, and then the
    stated error (and a target met at that size) is a little larger. Empty where the error does not depend on
    the rows or no smallest group is planned."""
    if planned.smallest_group is None or not planned.statistic.by or not planned.statistic.computed_from_noisy_sums:
        return ""
    return (f"a group whose noisy count comes out below {planned.smallest_group:,} rows states a little more "
            "than this")


def size_for_error(planned: PlannedStatistic, schema: Schema, target: float, confidence: float) -> int | None:
    """The fewest rows a group (or the table) needs for ``planned`` to be within ±``target``, or None
    where no number of rows is enough (a count's error does not shrink with size)."""
    noises = planned.noises(schema)

    def error(rows: float) -> float:
        return planned.statistic.error_bound(noises, schema, planned.statistic.planning_size(schema, rows), confidence)

    high, current = 1, error(1)
    while current > target:
        previous, high = current, high * 2
        current = error(high)
        if high > 1 << 40 or current == previous:
            return None
    low = high // 2
    while high - low > 1:  # error falls as rows rise
        middle = (low + high) // 2
        low, high = (low, middle) if error(middle) <= target else (middle, high)
    return high


def epsilon_for_error(
    statistic: Statistic,
    mechanism: MechanismKind,
    schema: Schema,
    target: float,
    confidence: float = 0.95,
    delta: float = 0.0,
    size_estimate: float | None = None,
    smallest_group: int | None = None,
) -> float:
    """The smallest ε (to 3 significant digits, rounded up) whose error is at most ``target``
    (for a statistic by group: in its smallest group, where that is given)."""
    if not target > 0 or not math.isfinite(target):
        raise PlanError(f"The accuracy target for '{statistic.label}' must be a positive number, not {target!r}.")

    def error(epsilon: float) -> float:
        planned = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta), smallest_group=smallest_group)
        return expected_error(planned, schema, size_estimate, confidence)

    if error(MAX_EPSILON) > target:
        raise PlanError(
            f"'{statistic.label}' cannot be released within ±{target:g} even with ε = {MAX_EPSILON:g}"
            f"{'' if size_estimate else ' (a mean also needs a public size estimate)'}. Accept a larger error, "
            "narrow the bounds, or protect fewer rows per person.",
            place=Place("budget", "target", statistic=statistic.label),
        )
    if error(MIN_EPSILON) <= target:
        return MIN_EPSILON
    low, high = math.log(MIN_EPSILON), math.log(MAX_EPSILON)
    for _ in range(_SEARCH_STEPS):
        middle = (low + high) / 2
        low, high = (low, middle) if error(math.exp(middle)) <= target else (middle, high)
    epsilon = _round_up(math.exp(high))
    while error(epsilon) > target:  # rounding can never make the promise false
        epsilon = _round_up(math.nextafter(epsilon, math.inf) * 1.001)
    return epsilon


def allocate(total_epsilon: float, weights: Sequence[float]) -> list[float]:
    """Split ``total_epsilon`` in proportion to ``weights`` (all positive)."""
    if not weights or any(not (w > 0 and math.isfinite(w)) for w in weights):
        raise PlanError("Every weight must be a positive number.", place=Place("budget", "weight"))
    whole = math.fsum(weights)
    return [total_epsilon * w / whole for w in weights]


def budget_plan(plan: ReleasePlan) -> ReleasePlan:
    """The plan with ε filled in: from each accuracy target, then the rest of the total by weight.

    Statistics with neither a target nor a weight keep the ε they have.
    """
    size = plan.schema.public_size or plan.dataset.size_estimate
    statistics = list(plan.statistics)
    for i, planned in enumerate(statistics):
        if planned.target_error is not None:
            epsilon = epsilon_for_error(
                planned.statistic, planned.mechanism, plan.schema, planned.target_error,
                plan.confidence, planned.budget.delta, size, planned.smallest_group,
            )
            statistics[i] = replace(planned, budget=Budget(epsilon, planned.budget.delta))
    weighted = [i for i, p in enumerate(statistics) if p.weight is not None and p.target_error is None]
    if weighted:
        fixed = math.fsum(p.budget.epsilon for i, p in enumerate(statistics) if i not in weighted)
        left = plan.total.epsilon - fixed
        if left <= 0:
            raise PlanError(
                f"The accuracy targets and fixed ε already need ε = {fixed:g} of the total {plan.total.epsilon:g}; "
                "nothing is left to share by weight. Raise the total or loosen the targets.",
                place=Place("budget", "epsilon"),
            )
        shares = allocate(left, [statistics[i].weight for i in weighted])  # type: ignore[misc]
        for i, epsilon in zip(weighted, shares):
            statistics[i] = replace(statistics[i], budget=Budget(epsilon, statistics[i].budget.delta))
    return replace(plan, statistics=tuple(statistics))


def _round_up(value: float, digits: int = 3) -> float:
    exponent = math.floor(math.log10(value)) - digits + 1
    return math.ceil(value / 10**exponent) * 10**exponent


def relative_reference(statistic: Statistic, schema: Schema, size_estimate: float | None) -> tuple[float | None, str]:
    """What an error is relative to, from public inputs only: the size estimate for counts and for a
    quantile's rank error, the range of the bounds for a mean, the size times the middle of the
    bounds for a sum."""
    from workbench.core.data import NumericColumn

    column = getattr(statistic, "column", None)
    spec = schema.column(column) if column else None
    if statistic.type_name == "proportion":
        return (100.0 if getattr(statistic, "percent", False) else 1.0), "of the whole"
    if statistic.type_name == "mean" and isinstance(spec, NumericColumn) and spec.lower is not None and spec.upper is not None:
        return (spec.upper - spec.lower) or None, "of the range of the bounds"
    if not size_estimate:
        return None, "needs a size estimate"
    groups = statistic.group_count(schema)
    per_group = " per group" if groups > 1 else ""
    if statistic.error_unit == "ranks":  # a rank error over the rows is a share of them: percentile points
        return size_estimate / groups, "of the rows (percentile points)" + per_group
    if statistic.type_name == "sum" and isinstance(spec, NumericColumn) and spec.lower is not None and spec.upper is not None:
        middle = abs(spec.lower + spec.upper) / 2 or max(abs(spec.lower), abs(spec.upper))
        return size_estimate / groups * middle or None, "of size × middle of the bounds"
    return size_estimate / groups, "of the size estimate" + per_group


COUNTING = ("count", "histogram", "crosstab")  # statistics whose cells count rows


def reliable_from(planned: PlannedStatistic, error: float, rule: ReliabilityRule, confidence: float) -> float | None:
    """The smallest value a cell of ``planned`` must have to be reliable with this error bound: for a count,
    how many rows a group needs at this ε (step 5's planning question). None where no flag applies (ranks)."""
    if planned.statistic.error_unit or not math.isfinite(error):
        return None
    value = smallest_reliable_value(error, rule, confidence)
    counting = planned.statistic.type_name in COUNTING and not planned.statistic.weighted_by
    return float(math.ceil(value)) if counting else value


PRIVACY_TRADE_OFF = (
    "Pure ε-DP (δ = 0) holds with certainty: no outcome, however unlikely, reveals more than ε allows. It uses "
    "Laplace noise, whose rare large values make tails heavier; it is the better choice for a few statistics. "
    "(ε, δ)-DP allows a tiny probability δ (keep it far below one over the number of persons) that the guarantee "
    "is weaker. In exchange it can use Gaussian noise, whose errors grow with the square root of the number of "
    "statistics rather than with their number: for many statistics it is clearly more accurate at the same ε."
)


def with_privacy(plan: ReleasePlan, approximate: bool, delta: float = 0.0) -> ReleasePlan:
    """The plan under pure ε-DP (every Gaussian statistic becomes Laplace, δ = 0) or under (ε, δ)-DP
    with total ``delta`` (every statistic that can use Gaussian noise does, sharing δ evenly)."""
    if not approximate:
        statistics = tuple(
            replace(p, mechanism=MechanismKind.LAPLACE, budget=Budget(p.budget.epsilon, 0.0))
            if p.mechanism is MechanismKind.GAUSSIAN else p
            for p in plan.statistics
        )
        return replace(plan, statistics=statistics, total=Budget(plan.total.epsilon, 0.0))
    if not 0 < delta < 1:
        raise PlanError(f"(ε, δ)-DP needs a δ strictly between 0 and 1, e.g. 1e-7; not {delta!r}.")
    gaussian = [MechanismKind.GAUSSIAN in p.statistic.mechanisms for p in plan.statistics]
    each = delta / max(1, sum(gaussian))
    statistics = tuple(
        replace(p, mechanism=MechanismKind.GAUSSIAN, budget=Budget(p.budget.epsilon, each)) if can else p
        for p, can in zip(plan.statistics, gaussian)
    )
    return replace(plan, statistics=statistics, total=Budget(plan.total.epsilon, delta))
