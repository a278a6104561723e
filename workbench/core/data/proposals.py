"""A proposed kind for each column of a table (numeric, categorical, identifier, ignored),
with the reason the user sees; the user confirms or changes it. Nothing here is released."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from enum import Enum

import pandas as pd

from workbench.core.data.io import Table, code_text


class ColumnKind(str, Enum):
    """What a column is to the privacy analysis; the user confirms the proposal."""

    NUMERIC = "numeric"
    CATEGORICAL = "categorical"
    IDENTIFIER = "identifier"
    IGNORED = "ignored"


@dataclass(frozen=True)
class ColumnProposal:
    """The proposed kind of one column, with the reason shown to the user."""

    name: str
    storage: str
    kind: ColumnKind
    reason: str
    offered_categories: tuple[str, ...] = ()
    label: str = ""  # the file's variable label, if it gives one


def _zero_one(values: pd.Series) -> bool:
    """Whether the values present are exactly the codes 0 and 1 (a yes/no or dummy column)."""
    present = pd.unique(values.dropna())
    return len(present) == 2 and set(float(v) for v in present) == {0.0, 1.0}


def _short(label: str, length: int = 30) -> str:
    return label if len(label) <= length else label[: length - 1].rstrip() + "…"


_ID_NAME = re.compile(r"(^|[_\W])(id|key|identifier|uuid)($|[_\W])|^id[A-Z0-9_]|Id$|ID$", re.IGNORECASE)


_MAX_PROPOSED_CATEGORIES = 50


_MAX_CODED_CATEGORIES = 500  # more distinct texts than this are proposed as free text however many rows there are


_ROWS_PER_CATEGORY = 20  # a text column with this many rows per distinct value on average reads as a coded list


def propose_kinds(table: Table) -> tuple[ColumnProposal, ...]:
    """A proposed kind for every column, from its storage type and name; the user confirms.

    Nothing here is released: proposals stay on the curator's screen.
    """
    return tuple(
        replace(proposal, label=table.variable_labels.get(proposal.name, ""))
        for proposal in (_propose(table, str(name)) for name in table.frame.columns)
    )


def _propose(table: Table, name: str) -> ColumnProposal:
    series = table.frame[name]
    storage = str(series.dtype)
    if name in table.value_labels:
        offered = table.value_labels[name]
        present = series.dropna()
        unlabelled = [code_text(value) for value in pd.unique(present[~present.isin(offered)])]
        reason = "the file gives value labels"
        if unlabelled:
            shown = ", ".join(unlabelled[:5]) + (f" and {len(unlabelled) - 5} more" if len(unlabelled) > 5 else "")
            codes = "1 code without a label" if len(unlabelled) == 1 else f"{len(unlabelled)} codes without a label"
            reason += f"; {codes} ({shown}) {'counts' if len(unlabelled) == 1 else 'count'} as outside the categories"
        return ColumnProposal(name, storage, ColumnKind.CATEGORICAL, reason, offered)
    if series.isna().all():
        return ColumnProposal(name, storage, ColumnKind.IGNORED, "every value is missing")
    if _ID_NAME.search(name):
        return ColumnProposal(name, storage, ColumnKind.IDENTIFIER, "the name looks like an identifier")
    if pd.api.types.is_bool_dtype(series):
        return ColumnProposal(name, storage, ColumnKind.CATEGORICAL, "yes/no values")
    if pd.api.types.is_numeric_dtype(series) and name not in table.code_labels and _zero_one(series):
        return ColumnProposal(
            name, storage, ColumnKind.CATEGORICAL,
            "codes 0 and 1: both kinds fit; categorical counts each code, numeric (bounds 0 and 1) gives the share of 1s",
        )
    if pd.api.types.is_numeric_dtype(series):
        reason = "the values are numbers"
        if name in table.code_labels:
            named = list(table.code_labels[name].items())
            shown = ", ".join(f"{code} = {_short(label)}" for code, label in named[:3]) + (", ..." if len(named) > 3 else "")
            reason += (f"; the file labels only a few of them ({shown}): a labelled code that means no answer "
                       "(such as 99 = refused) counts as that number unless the file marks it missing")
        return ColumnProposal(name, storage, ColumnKind.NUMERIC, reason)
    distinct, present = series.nunique(dropna=True), int(series.notna().sum())
    if distinct <= _MAX_PROPOSED_CATEGORIES:
        return ColumnProposal(name, storage, ColumnKind.CATEGORICAL, "text with few distinct values")
    if distinct <= _MAX_CODED_CATEGORIES and distinct * _ROWS_PER_CATEGORY <= present:
        return ColumnProposal(
            name, storage, ColumnKind.CATEGORICAL,
            f"{distinct:,} distinct texts in {present:,} rows (about {present // distinct:,} each): a coded list",
        )
    if distinct >= 0.9 * present:
        return ColumnProposal(name, storage, ColumnKind.IDENTIFIER, "text that is nearly unique per row")
    return ColumnProposal(name, storage, ColumnKind.IGNORED, "free text with many distinct values")
