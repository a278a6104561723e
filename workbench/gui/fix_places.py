"""Where to fix what stops a release: the step and the field a problem is about, named in words, so that the
release step can list each problem with its place and take the user there with a click.

The core's messages name what they are about the same way everywhere: a statistic by its label in quotes
('mean of income'), a column by its name in quotes ('age'), and the budget by ε and δ. The place is read
from those; a message that names none of them is placed at the step whose words it uses, else at step 6.
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.release import ReleasePlan

STEP_NAMES = ("1 Data", "2 Who is protected", "3 Columns", "4 Statistics", "5 Budget and preview", "6 Release")
_UNIT_WORDS = ("substitute", "add/remove", "add or remove", "neighbour", "rows per person", "per person",
               "public size", "privacy unit", "id column")


@dataclass(frozen=True)
class Place:
    step: int  # the tab, 0 to 5
    field: str  # in words: "the bounds of 'age'"
    control: str = ""  # which control of the step: "bounds", "categories", "kind", "epsilon", "delta", …
    column: str | None = None
    statistic: int | None = None  # position in the plan

    @property
    def words(self) -> str:
        return f"Step {STEP_NAMES[self.step]}, {self.field}"


def place_of(problem: str, plan: ReleasePlan) -> Place:
    """The place where ``problem`` (a message from ``PlanDocument.problems``) is fixed."""
    lowered = problem.lower()
    if "open the data file" in lowered:
        return Place(0, "the data file", "file")
    for position, planned in enumerate(plan.statistics):
        if f"'{planned.statistic.label}'" in problem or f"statistic {position + 1}" in lowered:
            return Place(3, f"the statistic '{planned.statistic.label}'", "statistic", statistic=position)
    if "no statistics" in lowered or "at least one statistic" in lowered:
        return Place(3, "the list of statistics", "add")
    unit = any(words in lowered for words in _UNIT_WORDS)
    for spec in plan.schema.columns:
        if f"'{spec.name}'" in problem:
            if unit or spec.name == plan.schema.unit.id_column:
                return Place(1, f"the person's id column '{spec.name}'", "unit", column=spec.name)
            control = "bounds" if "bound" in lowered else "categories" if "categor" in lowered else "kind"
            return Place(2, f"the {control} of '{spec.name}'", control, column=spec.name)
    if unit:
        return Place(1, "who is protected", "unit")
    for words, control, field in (("sampling", "sampling", "the sampling rate"),
                                  ("size estimate", "size", "the public size estimate"),
                                  ("budget", "epsilon", "the total ε"),  # overspending: ε first
                                  ("δ", "delta", "the total δ"), ("delta", "delta", "the total δ"),
                                  ("ε", "epsilon", "the total ε"), ("epsilon", "epsilon", "the total ε")):
        if words in lowered:
            return Place(4, field, control)
    return Place(5, "the release", "release")
