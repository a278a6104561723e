"""The statistics a plan may name by ``type``, and reading one from a plan's JSON with a
message that says what is wrong and what to write instead."""

from __future__ import annotations

from typing import Any

from workbench.core.errors import PlanError
from workbench.core.real import is_finite_real
from workbench.core.statistics.base import MAX_GROUPING_COLUMNS, Statistic
from workbench.core.statistics.counts import Count, CrossTab, Histogram
from workbench.core.statistics.moments import Mean, StandardDeviation, Sum, Variance
from workbench.core.statistics.proportions import Proportion
from workbench.core.statistics.quantiles import Quantiles
from workbench.core.statistics.weights import WEIGHTED_TYPES

STATISTIC_TYPES: dict[str, type[Statistic]] = {
    cls.type_name: cls
    for cls in (Count, Sum, Mean, Variance, StandardDeviation, Histogram, CrossTab, Quantiles, Proportion)
}


def statistic_from_json(data: Any, where: str) -> Statistic:
    if not isinstance(data, dict) or not isinstance(data.get("type"), str) or data["type"] not in STATISTIC_TYPES:
        kind = data.get("type") if isinstance(data, dict) else data
        raise PlanError(f"{where}: {kind!r} is not a statistic; choose one of {', '.join(STATISTIC_TYPES)}.")
    cls = STATISTIC_TYPES[data["type"]]
    by = _grouping_from_json(data.get("by"), where)
    weight = data.get("weighted_by")  # a survey weight column ("weight" is the statistic's share of ε)
    if weight is not None and (not isinstance(weight, str) or not weight):
        raise PlanError(f"{where}: 'weighted_by' names the survey weight column, e.g. \"weighted_by\": \"wt\"; "
                        f"it is {weight!r}.")
    if weight is not None and data["type"] not in WEIGHTED_TYPES:
        raise PlanError(f"{where}: a {data['type']} cannot be weighted; 'weighted_by' is for "
                        f"{', '.join(WEIGHTED_TYPES)}. Remove 'weighted_by'.")
    if cls is Count:
        return Count(by=by, weighted_by=weight)
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
                or any(not is_finite_real(a) or not 0 < a < 1 for a in levels)):
            raise PlanError(
                f"{where}: 'levels' must be a list of quantile levels strictly between 0 and 1, such as "
                f"[0.25, 0.5, 0.75]; it is {levels!r}."
            )
        interval = data.get("interval", False)
        if not isinstance(interval, bool):
            raise PlanError(f"{where}: 'interval' is true (each quantile with a confidence interval in the column's "
                            f"units) or false; it is {interval!r}.")
        return Quantiles(column=column, by=by, levels=tuple(levels), interval=interval)
    edges: tuple[float, ...] = ()
    if cls in (Histogram, Proportion) and data.get("edges") is not None:
        edges = data["edges"]
        if (not isinstance(edges, list) or not edges
                or any(not is_finite_real(e) for e in edges)):
            raise PlanError(
                f"{where}: 'edges' must be a list of numbers that cut the column's bounds into intervals, such as "
                f"[18, 30, 45, 65]; it is {edges!r}."
            )
        edges = tuple(edges)
    if cls is Histogram:
        return Histogram(column=column, by=by, edges=edges, weighted_by=weight)
    if cls is Proportion:
        percent = data.get("percent", False)
        if not isinstance(percent, bool):
            raise PlanError(f"{where}: 'percent' is true (shares in percent) or false (shares between 0 and 1); "
                            f"it is {percent!r}.")
        return Proportion(column=column, by=by, percent=percent, edges=edges, weighted_by=weight)
    if cls in (Sum, Mean):
        return cls(column=column, by=by, weighted_by=weight)  # type: ignore[call-arg]
    return cls(column=column, by=by)  # type: ignore[call-arg]


def _grouping_from_json(by: Any, where: str) -> tuple[str, ...]:
    """``"by": "region"`` or ``"by": ["region", "sex"]`` (up to three different categorical columns)."""
    if by is None:
        return ()
    names = [by] if isinstance(by, str) else by
    if (not isinstance(names, list) or not 1 <= len(names) <= MAX_GROUPING_COLUMNS
            or not all(isinstance(name, str) and name for name in names)):
        raise PlanError(
            f"{where}: 'by' names one categorical column, e.g. \"by\": \"region\", or a list of up to "
            f"{MAX_GROUPING_COLUMNS}, e.g. \"by\": [\"region\", \"sex\"]; it is {by!r}. Leave it out for no groups."
        )
    if len(set(names)) != len(names):
        raise PlanError(f"{where}: 'by' names a column twice ({', '.join(names)}); name each grouping column once.")
    return tuple(names)
