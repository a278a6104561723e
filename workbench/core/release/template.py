"""A starting plan for a table: kinds proposed, bounds and categories left for the user.

Bounds and categories are never filled in from the data (DESIGN rule 2). The only
categories offered are value labels stored in an SPSS or Stata file's dictionary, which
are metadata written by the data producer, not values observed in the rows.
"""

from __future__ import annotations

import codecs

from dataclasses import replace
from typing import Sequence

from workbench.core.data import (
    CategoricalColumn,
    ColumnKind,
    ColumnProposal,
    ColumnSpec,
    IdentifierColumn,
    IgnoredColumn,
    NumericColumn,
    OutsideCategories,
    PrivacyUnit,
    Schema,
    Table,
    propose_kinds,
)
from workbench.core.errors import SchemaError
from workbench.core.privacy import MechanismKind
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.statistics import Count, Histogram, Mean, Statistic


def describe_columns(proposals: Sequence[ColumnProposal]) -> tuple[ColumnSpec, ...]:
    """A first description of each column from its proposed kind: bounds empty, categories only
    from value labels (never read off the data)."""
    specs: list[ColumnSpec] = []
    for proposal in proposals:
        if proposal.kind is ColumnKind.NUMERIC:
            spec: ColumnSpec = NumericColumn(proposal.name)
        elif proposal.kind is ColumnKind.CATEGORICAL:
            spec = categorical_column(proposal.name, proposal.offered_categories)
        elif proposal.kind is ColumnKind.IDENTIFIER:
            spec = IdentifierColumn(proposal.name)
        else:
            spec = IgnoredColumn(proposal.name)
        specs.append(replace(spec, label=proposal.label))
    return tuple(specs)


def categorical_column(name: str, labelled: Sequence[str] = ()) -> CategoricalColumn:
    """A categorical column as first proposed. With categories from the file's value labels (the producer's
    complete list of codes), values outside the list are left out, so no '(other)' cell that is empty by
    construction is released; the check before a release names any row that falls outside. A list still to
    be typed keeps an '(other)' bin by default, so that a row whose spelling the list misses is counted
    somewhere rather than silently lost."""
    if labelled:
        return CategoricalColumn(name, categories=tuple(labelled), outside=OutsideCategories.DROP)
    return CategoricalColumn(name)


def proposed_identifiers(schema: Schema) -> list[str]:
    """The columns described as identifiers: candidates for the privacy unit, never chosen silently."""
    return [c.name for c in schema.columns if isinstance(c, IdentifierColumn)]


NEUTRAL_NAME = "Unnamed dataset"  # never the file's name: it would be the report's title and the ledger's key

PROPOSAL_WORDS = (
    "The statistics proposed here (a count, a mean of each numeric column, a histogram of each categorical one) "
    "follow the column kinds proposed from the data; keeping them is your choice, made after looking at the data. "
    "Keep only those you would have chosen without seeing it."
)


CHOSEN_AFTER_LOOKING_WORDS = (
    "The kind of each column (and any categories taken from the file's value labels) was proposed after reading "
    "the file; keeping a proposal is a choice made after looking at the data. Bounds, categories and statistics "
    "should be ones you would have chosen without seeing it."
)


def plan_template(table: Table, total_epsilon: float = 1.0, name: str = NEUTRAL_NAME,
                  unit: PrivacyUnit = PrivacyUnit()) -> ReleasePlan:
    """A plan with a count, a mean per numeric column and a histogram per categorical column.

    The total ε is split evenly; bounds are left empty (null) and must be filled in. The dataset is
    given a neutral ``name`` for the user to confirm, never the file's: a file called
    "Patients_StMary_2026_confidential" must not become the title of a published report.
    The privacy ``unit`` is the user's: a column that looks like an identifier is only proposed
    (``proposed_identifiers``), since how many rows one value may hold is public knowledge to state.
    """
    columns = describe_columns(propose_kinds(table))
    if unit.id_column is not None:
        if unit.id_column not in {c.name for c in columns}:
            raise SchemaError(f"There is no column '{unit.id_column}' to identify a person by. The columns are: "
                              f"{', '.join(c.name for c in columns)}.")
        columns = tuple(IdentifierColumn(c.name, label=c.label) if c.name == unit.id_column else c for c in columns)
    statistics: list[Statistic] = [Count()]
    for spec in columns:
        if isinstance(spec, NumericColumn):
            statistics.append(Mean(spec.name))
        elif isinstance(spec, CategoricalColumn):
            statistics.append(Histogram(spec.name))
    share = total_epsilon / len(statistics)
    return ReleasePlan(
        dataset=DatasetDescription(name=name, encoding=declarable_encoding(table)),
        schema=Schema(columns=columns, unit=unit),
        statistics=tuple(PlannedStatistic(s, MechanismKind.LAPLACE, Budget(share)) for s in statistics),
        total=Budget(total_epsilon),
    )


def declarable_encoding(table: Table) -> str | None:
    """The encoding a plan should declare for ``table``'s file: the one it was read in, unless a release
    would read it so without being told (UTF-8, or a byte-order mark)."""
    if table.file_format != "text" or not table.encoding:
        return None
    return None if codecs.lookup(table.encoding).name in ("utf-8", "utf-8-sig", "utf-16") else table.encoding
