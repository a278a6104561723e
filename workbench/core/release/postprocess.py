"""Post-processing the user chooses for a statistic: clamping into the possible range, rounding.

Post-processing never weakens the privacy guarantee (it reads only released values and
public inputs), but it changes the numbers, so each step is the user's visible choice and
says what it does to bias and to the error bound (DESIGN rule 7):

- clamping moves a released value into the range the exact statistic can take (a count is
  never below 0, a mean never outside the bounds). The exact value lies in that range, so
  the released value only gets closer to it: the error bound still holds. Near the edge of
  the range it biases the value towards the inside (a count near 0 comes out too large on
  average).
- rounding to a step (for example whole persons, or tens as in many official tables) moves
  a value by at most half the step, so half the step is added to the error bound. It
  adds no bias on average when the noise is wide compared with the step.

Quantiles are already on a grid of the bounds, released in increasing order; rounding them
would break the rank statement of their error, so it is refused.

Defaults (``PostProcessing.default_for``): a statistic whose exact value has a limited range
(every count, a mean, a variance, a standard deviation, a sum of values of one sign) is
clamped into it unless the plan says otherwise, because a negative count or a mean outside
its bounds is a number no statistician would publish. Counts are integers already (integer
noise on integer counts), so clamped counts are non-negative integers. The raw noisy value
stays in results.json beside the published one.

Whatever was chosen, a cell whose error bar is wider than the whole range its value can take
is marked not reliable: the number says nothing the bounds did not already say.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from workbench.core.data import Schema
from workbench.core.errors import PlanError
from workbench.core.privacy import SIMULATIONS, Noise, simulated_halfwidth, simulated_noise, simulation_rng
from workbench.core.real import is_finite_real
from workbench.core.statistics import Cell, Count, CrossTab, Histogram, Mean, Proportion, Statistic, Sum, Variance


def can_be_made_consistent(statistic: Statistic) -> bool:
    """A histogram (made to sum to the count) or a cross-tabulation (fitted with its margins), neither by group
    nor weighted: their cells then count the same rows as the totals they are made to agree with."""
    return isinstance(statistic, (Histogram, CrossTab)) and not statistic.by and not statistic.weighted_by


CLAMPED = "Clamped into the possible range"  # the start of the clamping sentence, which a console groups by


def clamp_bias(statistic: Statistic) -> str:
    """What clamping does on average to this kind of statistic, in its own words."""
    if isinstance(statistic, (Count, Histogram, CrossTab)):
        return "small counts come out slightly too large on average"
    if isinstance(statistic, Proportion):
        return "shares near 0% or 100% come out slightly nearer the middle on average"
    if isinstance(statistic, Variance):  # and the standard deviation, a variance's square root
        return f"a small {statistic.words or 'variance'} comes out slightly too large on average"
    if isinstance(statistic, Mean):
        return "a mean close to one of its bounds comes out slightly nearer the middle on average"
    if isinstance(statistic, Sum):
        return "a sum close to one of its bounds comes out slightly nearer the middle on average"
    return "a value close to an edge comes out slightly nearer the middle on average"


@dataclass(frozen=True)
class PostProcessing:
    clamp: bool = False
    round_to: float | None = None  # a positive step, e.g. 1 or 10
    consistent: bool = False  # histogram bins made to sum to the plan's released count of rows

    @staticmethod
    def default_for(statistic: Statistic) -> "PostProcessing":
        """What a plan that says nothing gets: clamping into the possible range wherever that range is
        limited (quantiles are on a grid of the bounds already)."""
        return PostProcessing(clamp=not statistic.error_unit)

    def check(self, statistic: Statistic) -> None:
        if self.consistent and not can_be_made_consistent(statistic):
            raise PlanError(
                f"'{statistic.label}' cannot be made consistent: a histogram (not by group, not weighted) is adjusted to sum to the released count of rows, and a cross-tabulation (not by "
                "group) to agree with its released margins and count. Remove 'consistent'."
            )
        if self.consistent and (self.clamp or self.round_to is not None):
            raise PlanError(
                f"'{statistic.label}': clamping or rounding after making the bins sum to the total would break the "
                "sum again. Choose 'consistent' alone, or clamping and rounding without it."
            )
        if self.round_to is not None and statistic.error_unit:
            raise PlanError(
                f"'{statistic.label}' cannot be rounded: its values are already on a grid of the bounds and its "
                "error is stated in ranks, which rounding would no longer describe. Remove 'round_to'."
            )

    def apply(self, cells: tuple[Cell, ...], statistic: Statistic, schema: Schema) -> tuple[Cell, ...]:
        """The cells after clamping, then rounding (post-processing of released values only); each keeps
        its raw noisy value, and is marked not reliable if its error bar is wider than its possible range."""
        low, high = statistic.possible_range(schema)
        out = []
        for cell in cells:
            if cell.value is None:
                out.append(cell)
                continue
            value, error = cell.value, cell.error
            if self.clamp:
                value = min(max(value, low), high)
            if self.round_to is not None:
                value = round(value / self.round_to) * self.round_to
                error = None if error is None else error + self.round_to / 2
            raw = cell.raw_value if value != cell.value or cell.raw is not None else None
            out.append(marked_reliability(replace(cell, value=value, error=error, raw=raw), low, high))
        return tuple(out)

    def describe(self, statistic: Statistic, schema: Schema) -> list[str]:
        """One sentence per chosen step: what it does and its bias."""
        words = []
        if self.clamp:
            low, high = statistic.possible_range(schema)
            if not (math.isinf(low) and math.isinf(high)):  # a value that can be anything is left as it is
                edges = [f"below {low:g} raised to {low:g}" if not math.isinf(low) else "",
                         f"above {high:g} lowered to {high:g}" if not math.isinf(high) else ""]
                words.append(
                    f"{CLAMPED} (values {' and '.join(e for e in edges if e)}): this never moves a value away from "
                    f"the truth, but near the edge it biases values towards the inside ({clamp_bias(statistic)}). "
                    "The raw noisy values are kept in results.json."
                )
        if self.round_to is not None:
            words.append(
                f"Rounded to the nearest {self.round_to:g}: this moves a value by at most {self.round_to / 2:g}, "
                "which is added to the error bound; on average it adds no bias when the noise is wide compared "
                "with the step."
            )
        if self.consistent and isinstance(statistic, CrossTab):
            words.append(TABLE_CONSISTENCY_WORDS)
        elif self.consistent:
            words.append(
                "Made consistent: the difference between the released count of rows and the sum of the bins is "
                "shared equally among the bins, so they add up to that count. This adds no bias; each bin's error "
                "bound (simulated from the two noise distributions) includes the count's noise."
            )
        return words

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"clamp": self.clamp}  # always written: leaving it out means the default
        if self.round_to is not None:
            out["round_to"] = self.round_to
        if self.consistent:
            out["consistent"] = True
        return out

    @classmethod
    def from_json(cls, data: Any, where: str) -> "PostProcessing":
        if data is None:
            return cls()
        if not isinstance(data, dict) or set(data) - {"clamp", "round_to", "consistent"}:
            raise PlanError(
                f"{where}: 'post_processing' may hold 'clamp' (true or false), 'round_to' (a step) and 'consistent' "
                "(true or false)."
            )
        clamp, consistent = data.get("clamp", False), data.get("consistent", False)
        if not isinstance(consistent, bool):
            raise PlanError(f"{where}: 'consistent' must be true or false, not {consistent!r}.")
        step = data.get("round_to")
        if not isinstance(clamp, bool):
            raise PlanError(f"{where}: 'clamp' must be true or false, not {clamp!r}.")
        if step is not None and (not is_finite_real(step) or step <= 0):
            raise PlanError(f"{where}: 'round_to' must be a positive step such as 1 or 10, not {step!r}.")
        return cls(clamp, None if step is None else float(step), consistent)


TABLE_CONSISTENCY_WORDS = (
    "Made consistent with its released margins and count of rows: the table, the histograms of its columns and the "
    "count were fitted together by least squares (each weighted by its noise's variance) with no cell below 0, and "
    "the margins and the total are the sums of the fitted cells, so every published total adds up. This costs no ε. "
    "Each value keeps the error bound its own noise gave: the fit combines several noisy measurements of each total, "
    "so its errors are smaller on average, and a coverage test checks that the bound still holds. Keeping cells at "
    "or above 0 raises small cells slightly on average. The raw noisy values are kept in results.json."
)
MARGIN_CONSISTENCY_WORDS = (
    "Made consistent with the cross-tabulation {table}: fitted together with it by least squares, so that its values "
    "are that table's sums (see the table's post-processing)."
)


NOT_RELIABLE = (
    "not reliable: the error bar is wider than the whole range this value can take, so the number says no more "
    "than the bounds do. Spend more ε on it, or widen the group"
)


def marked_reliability(cell: Cell, low: float, high: float) -> Cell:
    """The cell marked not reliable when its error bar (2 × the half-width, in the value's units) is wider than
    [low, high]. Public: it depends on the error bound and the bounds only."""
    if cell.value is None or cell.error is None or cell.error_unit or not math.isfinite(high - low):
        return cell
    if 2 * cell.error < high - low:
        return cell
    note = NOT_RELIABLE if not cell.note else f"{cell.note}; {NOT_RELIABLE}"
    return replace(cell, reliable=False, note=note)


def consistent_with_total(
    cells: tuple[Cell, ...], total: float, bin_noise: Noise, total_noise: Noise | None, total_slack: float,
    confidence: float,
) -> tuple[Cell, ...]:
    """Bins shifted equally so that they sum to the released ``total`` (post-processing).

    The shifted error of a bin is e_i + (e_total - sum of e_j) / m, for m bins with independent
    noises; its bound is simulated from the public noise distributions (fixed seed), plus
    ``total_slack`` / m for a total that was rounded (half its step).
    """
    m = len(cells)
    shift = (total - sum(c.value for c in cells if c.value is not None)) / m
    rng = simulation_rng()
    bins = simulated_noise(bin_noise.kind.value, bin_noise.scale, SIMULATIONS * m, rng).reshape(SIMULATIONS, m)
    outer = np.zeros(SIMULATIONS) if total_noise is None else simulated_noise(
        total_noise.kind.value, total_noise.scale, SIMULATIONS, rng)
    errors = bins[:, 0] + (outer - bins.sum(axis=1)) / m
    error = simulated_halfwidth(errors, confidence) + total_slack / m
    return tuple(replace(c, value=None if c.value is None else c.value + shift, error=error, raw=c.raw_value) for c in cells)
