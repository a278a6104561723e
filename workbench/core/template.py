"""A starting plan for a table: kinds proposed, bounds and categories left for the user.

Bounds and categories are never filled in from the data (DESIGN rule 2). The only
categories offered are value labels stored in an SPSS or Stata file's dictionary, which
are metadata written by the data producer, not values observed in the rows.
"""

from __future__ import annotations

from workbench.core.io import ColumnKind, Table, propose_kinds
from workbench.core.mechanisms import MechanismKind
from workbench.core.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.schema import (
    CategoricalColumn,
    ColumnSpec,
    IdentifierColumn,
    IgnoredColumn,
    NumericColumn,
    PrivacyUnit,
    Schema,
)
from workbench.core.statistics import Count, Histogram, Mean, Statistic


def plan_template(table: Table, total_epsilon: float = 1.0) -> ReleasePlan:
    """A plan with a count, a mean per numeric column and a histogram per categorical column.

    The total ε is split evenly; bounds are left empty (null) and must be filled in.
    """
    columns: list[ColumnSpec] = []
    statistics: list[Statistic] = [Count()]
    for proposal in propose_kinds(table):
        if proposal.kind is ColumnKind.NUMERIC:
            columns.append(NumericColumn(proposal.name))
            statistics.append(Mean(proposal.name))
        elif proposal.kind is ColumnKind.CATEGORICAL:
            columns.append(CategoricalColumn(proposal.name, categories=proposal.offered_categories))
            statistics.append(Histogram(proposal.name))
        elif proposal.kind is ColumnKind.IDENTIFIER:
            columns.append(IdentifierColumn(proposal.name))
        else:
            columns.append(IgnoredColumn(proposal.name))
    share = total_epsilon / len(statistics)
    return ReleasePlan(
        dataset=DatasetDescription(name=table.source.stem, file_name=table.source.name),
        schema=Schema(columns=tuple(columns), unit=PrivacyUnit()),
        statistics=tuple(PlannedStatistic(s, MechanismKind.LAPLACE, Budget(share)) for s in statistics),
        total=Budget(total_epsilon),
    )
