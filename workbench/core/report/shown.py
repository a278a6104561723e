"""Which cells of a released statistic are shown: by default a statistic by group shows the groups of its
public categories only, and its "(other)" groups are folded into one line.

A grouping column whose public list keeps an "(other)" bin (``"outside": "other"``, the default of a typed
list) gives every statistic by it a group per combination with "(other)": a mean by region × sex then has 11
groups (of 27) that hold only rows outside the public lists, mostly empty ("n/a") or too noisy to read. They are
released and charged like every group, and results.json keeps them all; the command line, step 6 and the
report fold them away by default and say how many, where they are and how to show them (a presentation
choice, stated where it is made, DESIGN rule 7). A cell is in such a group when one of its label's first
``len(by)`` parts (the group's, "North / (other)" before any " / bin") is "(other)": the name no public
category of a list with an "(other)" bin may take. A statistic's own "(other)" bin (a histogram's, a
cross-tabulation's, the shares of a proportion) is a released bin of its own column, and always shown.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.data import OTHER_BIN
from workbench.core.release import ReleasedStatistic
from workbench.core.statistics import Cell

GROUP_SEPARATOR = " / "  # as ``Statistic.groups`` joins a group's categories and a bin to its group


@dataclass(frozen=True)
class ShownCells:
    """The cells of a statistic to show, and the "(other)" groups folded away (how many, and in words)."""

    cells: tuple[Cell, ...]
    folded_groups: int = 0
    folded_cells: int = 0
    words: str = ""  # "11 groups ... are not shown: ... in results.json"; empty when nothing is folded

    @property
    def short(self) -> str:
        """The folded groups in a table's cell: "11 '(other)' groups"; empty when nothing is folded."""
        if not self.folded_groups:
            return ""
        return f"{self.folded_groups:,} '{OTHER_BIN}' group{'s' if self.folded_groups != 1 else ''}"


def other_group(statistic: ReleasedStatistic, cell: Cell) -> bool:
    """Whether ``cell`` belongs to a group of ``statistic.by`` that holds rows outside the public categories."""
    if not statistic.by:
        return False
    return OTHER_BIN in cell.label.split(GROUP_SEPARATOR)[: len(statistic.by)]


def shown_cells(statistic: ReleasedStatistic, show_other: bool = False, how: str = "") -> ShownCells:
    """The cells of ``statistic`` to show: all of them with ``show_other``, else those of the public categories'
    groups, with a sentence saying how many groups were folded and that they are in results.json; ``how`` says how
    to show them in the caller's terms ("--show-other shows them")."""
    if show_other or not statistic.by:
        return ShownCells(statistic.cells)
    folded = [c for c in statistic.cells if other_group(statistic, c)]
    if not folded:
        return ShownCells(statistic.cells)
    groups = len({GROUP_SEPARATOR.join(c.label.split(GROUP_SEPARATOR)[: len(statistic.by)]) for c in folded})
    kept = tuple(c for c in statistic.cells if not other_group(statistic, c))
    return ShownCells(kept, groups, len(folded), folded_words(groups, statistic.by, how))


def folded_words(groups: int, by: tuple[str, ...], how: str = "") -> str:
    """'11 groups with '(other)' in region or sex (rows outside the public categories) are not shown: their values
    are in results.json (--show-other shows them).'"""
    columns = by[0] if len(by) == 1 else f"{', '.join(by[:-1])} or {by[-1]}"
    several = groups != 1
    return (f"{groups:,} group{'s' if several else ''} with '{OTHER_BIN}' in {columns} (rows outside the public "
            f"categories) {'are' if several else 'is'} not shown: {'their values are' if several else 'its values are'} "
            f"in results.json{f' ({how})' if how else ''}.")
