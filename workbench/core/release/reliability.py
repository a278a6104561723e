"""A reliability flag on every released cell, as statistical offices print one.

Agencies publish a cell by its coefficient of variation (CV): its standard error over the
estimate. Here the standard error is the noise's, derived from the stated error bound the way
agencies derive one from a margin of error (half-width / z at the stated confidence, as the
US Census Bureau's ACS does from its 90% margins). The CV depends only on released values and
public error bounds, so flagging is post-processing: it costs no ε.

Defaults follow Statistics Canada's Labour Force Survey: a CV up to 16.5% is reliable, up to
33.3% is to be used with caution, and above that the cell is too unreliable to publish. The
thresholds are public settings of the plan. The CV counts the DP noise only, not sampling error.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import Enum
from statistics import NormalDist
from typing import Any

from workbench.core.errors import PlanError
from workbench.core.real import is_finite_real
from workbench.core.statistics import Cell

CAUTION_ABOVE, SUPPRESS_ABOVE = 0.165, 0.333  # Statistics Canada's LFS quality bands (A-C, D-E, F)


class Flag(str, Enum):
    RELIABLE = "reliable"
    CAUTION = "use with caution"
    SUPPRESS = "too unreliable to publish"


@dataclass(frozen=True)
class ReliabilityRule:
    """The public CV thresholds: above ``caution_above`` a cell is to be used with caution, above
    ``suppress_above`` it is too unreliable to publish."""

    caution_above: float = CAUTION_ABOVE
    suppress_above: float = SUPPRESS_ABOVE

    def flag(self, cv: float) -> Flag:
        if cv > self.suppress_above:
            return Flag.SUPPRESS
        return Flag.CAUTION if cv > self.caution_above else Flag.RELIABLE

    def to_json(self) -> dict[str, Any]:
        return {"caution_above": self.caution_above, "suppress_above": self.suppress_above}

    @classmethod
    def from_json(cls, data: Any) -> "ReliabilityRule":
        if data is None:
            return cls()
        if not isinstance(data, dict) or set(data) - {"caution_above", "suppress_above"}:
            raise PlanError(
                "The plan's 'reliability' holds 'caution_above' and 'suppress_above': the coefficients of variation "
                f"(such as 0.165 and 0.333) above which a cell is flagged; it is {data!r}."
            )
        caution, suppress = data.get("caution_above", CAUTION_ABOVE), data.get("suppress_above", SUPPRESS_ABOVE)
        if not (is_finite_real(caution) and is_finite_real(suppress) and 0 < caution < suppress):
            raise PlanError(
                f"The reliability thresholds must be positive coefficients of variation with 'caution_above' below "
                f"'suppress_above' (such as 0.165 and 0.333); they are {caution!r} and {suppress!r}."
            )
        return cls(float(caution), float(suppress))


def _standard_error(error: float, confidence: float) -> float:
    """An error bound at ``confidence`` read as a standard error, as agencies read a margin of error: t / z."""
    return error / NormalDist().inv_cdf((1 + confidence) / 2)


def noise_cv(value: float | None, error: float | None, confidence: float) -> float | None:
    """The noise's standard error over |value|; infinite at 0. None without a value or an error
    (``flagged`` leaves out an error in other units, a quantile's ranks)."""
    if value is None or error is None:
        return None
    return math.inf if value == 0 else _standard_error(error, confidence) / abs(value)


def flagged(cell: Cell, rule: ReliabilityRule, confidence: float) -> Cell:
    """``cell`` with its CV and flag; a cell already marked not reliable (its error bar is wider than
    its whole range) is too unreliable to publish whatever its CV."""
    if cell.error_unit:
        return cell
    cv = noise_cv(cell.value, cell.error, confidence)
    if cv is None:
        return cell
    flag = Flag.SUPPRESS if not cell.reliable else rule.flag(cv)
    return replace(cell, cv=cv, flag=flag.value)


def smallest_reliable_value(error: float, rule: ReliabilityRule, confidence: float) -> float:
    """The smallest |value| whose cell, with this error bound, is reliable (CV at most ``caution_above``):
    for a count, the rows a group needs for its cell to be reliable at this ε."""
    return _standard_error(error, confidence) / rule.caution_above
