"""Before any ε is spent: does a public category list fit the data it is meant for?

A codebook spells "Northeast" where the file says "northeast"; a release would then put every
row in "(other)" (or drop it) and the budget would be spent on a visible typo. These checks
compare the public lists with the values in the file, which the trusted curator may look at
(step 1 shows the rows). They are never released, never written to results or the ledger, and
their messages name only the public categories and the column, never a value of the data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from workbench.core.data import CategoricalColumn, Table, category_presence
from workbench.core.data.io import Progress, blocks_of
from workbench.core.data.reading import CategoryPresence, merged
from workbench.core.data.sql_engine import SqlData
from workbench.core.release.plan import ReleasePlan


@dataclass(frozen=True)
class CategoryWarning:
    """A public category list that does not fit the data, in words for the curator."""

    column: str
    message: str


def check_categories(table: Table | SqlData, plan: ReleasePlan, progress: Progress | None = None,
                     presences: Mapping[str, CategoryPresence] | None = None) -> list[CategoryWarning]:
    """Warnings for each categorical column a statistic of ``plan`` reads: a public category that matches
    no row but matches values once case and spaces are ignored, and a column whose every value lies
    outside its public categories. Every row of the file is looked at, also when only its first rows were
    loaded (a file read out of core): then it is read again, block by block (``progress`` hears how far).
    ``presences``: each column's, gathered as the file was read (``BlockPreparer.presences``), the table's frame
    holding none of its rows."""
    specs = [s for s in plan.used_schema().columns if isinstance(s, CategoricalColumn)]
    if presences is not None:
        specs = [s for s in specs if s.name in presences]
    elif isinstance(table, Table):  # the loaded file; else an engine's view of the file (out of core)
        specs = [s for s in specs if s.name in table.columns]
        presences = _presences(table, specs, progress)
    else:
        presences = {spec.name: table.category_presence(spec) for spec in specs}
    warnings = []
    for spec in specs:
        presence = presences[spec.name]
        if not presence.any_value:
            continue  # every value missing: the missing-value policy decides, and step 1 says so
        loose = {_loosely(text) for text in presence.outside}
        respelled = [c for i, c in enumerate(spec.categories) if i not in presence.categories and _loosely(c) in loose]
        if respelled:
            names = ", ".join(f"'{c}'" for c in respelled[:5]) + (f" and {len(respelled) - 5} more" if len(respelled) > 5 else "")
            warnings.append(CategoryWarning(spec.name, (
                f"Column '{spec.name}': the public {'category' if len(respelled) == 1 else 'categories'} {names} "
                "match no row as written, but match values in the data once upper/lower case and spaces are "
                "ignored. Those rows would be released as outside the categories. Type the categories as the "
                "data spell them (step 1 shows the rows), or correct the file."
            )))
        elif not presence.categories:
            where = "counted in '(other)'" if spec.bins != spec.categories else "left out"
            warnings.append(CategoryWarning(spec.name, (
                f"Column '{spec.name}': no row has any of its public categories, so every row would be {where}. "
                "Check that the categories are the ones this file uses (codes or labels, their spelling), "
                "or that the plan is meant for this file."
            )))
    return warnings


def _presences(table: Table, specs: list[CategoricalColumn], progress: Progress | None) -> dict[str, CategoryPresence]:
    found = {spec.name: CategoryPresence(frozenset(), frozenset(), False) for spec in specs}
    if not specs:
        return found
    for block in blocks_of(table, list(dict.fromkeys(spec.name for spec in specs)), progress):
        for spec in specs:
            found[spec.name] = merged(found[spec.name], category_presence(block[spec.name], spec,
                                                                          table.label_maps.get(spec.name)))
    return found


def _loosely(text: str) -> str:
    """A category compared without case and with runs of spaces (and none at the ends) alike."""
    return " ".join(text.split()).casefold()
