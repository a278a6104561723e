"""Where to fix what stops a release: the step and the field a problem is about, named in words, so that the
release step can list each problem with its place and take the user there with a click.

The core's errors carry their place as data (``core.errors.Place``: step, field, column, statistic; issue 37, 6),
and that is what decides where the user is taken: a reworded message cannot send them elsewhere. Only what has no
structured place (the app's own sentences such as "Open the data file", an error raised without one) is placed
by the words it uses, as before; a budget error without a place goes to the total ε of step 5 (the ledger's refusal
to overspend names its own place, ε or δ, since issue 38).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.core.errors import STEPS, BudgetError, WorkbenchError
from workbench.core.errors import Place as CorePlace
from workbench.core.release import ReleasePlan

STEP_NAMES = ("1 Data", "2 Who is protected", "3 Columns", "4 Statistics", "5 Budget and preview", "6 Release")
_UNIT_WORDS = ("substitute", "add/remove", "add or remove", "neighbour", "rows per person", "per person",
               "public size", "privacy unit", "id column")
_BUDGET_FIELDS = {"epsilon": "the total ε", "delta": "the total δ", "size": "the public size estimate",
                  "sampling": "the sampling rate", "confidence": "the total ε",
                  "dataset delta": "the new dataset's total δ"}


class Problem(str):
    """A problem's message, with the place the core gave it (None where it gave none)."""

    place: CorePlace | None = None

    @classmethod
    def of(cls, error: BaseException | str) -> "Problem":
        problem = cls(str(error))
        problem.place = getattr(error, "place", None)
        if problem.place is None and isinstance(error, BudgetError):
            problem.place = CorePlace("budget", "epsilon")  # the ledger's overspend: the total to lower
        return problem


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


def place_of(problem: str | WorkbenchError, plan: ReleasePlan) -> Place:
    """The place where ``problem`` (a ``Problem`` from ``PlanDocument.problems``, or an error) is fixed: its
    structured place where it has one, else the place its words name."""
    place = problem.place if isinstance(problem, (Problem, WorkbenchError)) else None
    if place is None and isinstance(problem, BudgetError):
        place = CorePlace("budget", "epsilon")
    if place is not None:
        return _from_core(place, plan)
    return _from_words(str(problem), plan)


def _from_core(place: CorePlace, plan: ReleasePlan) -> Place:
    """The app's place (tab, control, words) for the core's."""
    step = STEPS.index(place.step)
    if place.step == "data" and place.field == "encoding":  # File > Text encoding… reads it again, not another file
        return Place(0, "the text file's encoding (File > Text encoding…)", "encoding")
    if place.step == "data":
        return Place(0, "the data file", "file")
    if place.step == "unit":
        if place.field == "public size":
            return Place(1, "the public size (under 'substitute')", "unit")
        if place.column:
            return Place(1, f"the person's id column '{place.column}'", "unit", column=place.column)
        return Place(1, "who is protected", "unit")
    if place.step == "columns":
        if place.column is None:
            return Place(2, "the columns", "kind")
        if place.column == plan.schema.unit.id_column:
            return Place(1, f"the person's id column '{place.column}'", "unit", column=place.column)
        control = place.field if place.field in ("bounds", "categories", "missing") else "kind"
        words = {"missing": "missing values"}.get(control, control)
        return Place(2, f"the {words} of '{place.column}'", control, column=place.column)
    if place.step == "statistics":
        labels = [planned.statistic.label for planned in plan.statistics]
        if place.statistic in labels:
            position = labels.index(place.statistic)
            return Place(3, f"the statistic '{place.statistic}'", "statistic", statistic=position)
        return Place(3, "the list of statistics", "add")
    if place.step == "budget":
        labels = [planned.statistic.label for planned in plan.statistics]
        if place.field in ("target", "weight") and place.statistic in labels:
            position = labels.index(place.statistic)
            return Place(4, f"the accuracy {place.field} of '{place.statistic}'", place.field, statistic=position)
        control = place.field if place.field in _BUDGET_FIELDS else "epsilon"
        return Place(4, _BUDGET_FIELDS[control], "epsilon" if control == "confidence" else control)
    if place.field == "dataset name":
        return Place(5, "the dataset name", "dataset name")
    if place.field == "ledger":
        return Place(5, "the privacy ledger (Tools > Privacy ledger…)", "ledger")
    return Place(step, "the release", "release")


def _from_words(problem: str, plan: ReleasePlan) -> Place:
    """The place a message names in words (for the app's own sentences, and errors raised without a place)."""
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
