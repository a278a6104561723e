"""One way to write a released number, for the report, the command line and the app alike:
its error sets the digits, so a value never shows more precision than the noise leaves it."""

from __future__ import annotations

import math

from workbench.core.release import COUNTING, PlannedStatistic, ReleasePlan, reliable_from


def released_number(value: float, error: float | None) -> str:
    """``value`` with thousands separators, to the digits its ``error`` allows.

    An error of 240 gives whole numbers (12,345); one of 1.2 gives one decimal (37.5); one of
    0.012 gives three (0.347): the error's first two significant digits are shown, the value
    to the same place. A whole number with a whole-number error (a count) stays whole. Without a usable error (none, zero, infinite, or in other units, such as a
    quantile's ranks) a whole number is written whole and any other to two decimals.
    """
    if error is None or error <= 0 or not math.isfinite(error):
        digits = 0 if float(value).is_integer() else 2
    elif float(value).is_integer() and float(error).is_integer():
        digits = 0  # a count and its whole-number bound (discrete noise): 1,648 ± 6, never 1,648.0 ± 6.0
    else:
        digits = max(0, 1 - math.floor(math.log10(error)))
    return f"{value:,.{digits}f}"


def released_error(error: float, unit: str = "") -> str:
    """An error bound written by its own rule (two significant digits), with its unit when it has one
    ("12 ranks"); a caller puts "±" before it where its layout wants one."""
    text = released_number(error, error)
    return f"{text} {unit}" if unit else text


def error_words(error: float, unit: str = "", lower: float | None = None, upper: float | None = None) -> str:
    """A cell's error as the report and the app print it: "± 12 ranks", followed by its interval in
    the value's units where it has one ("; interval 30,100 to 32,900", each end to the digits the
    interval's width allows)."""
    text = f"± {released_error(error, unit)}"
    if lower is None or upper is None:
        return text
    width = (upper - lower) / 2 or None
    return f"{text}; interval {released_number(lower, width)} to {released_number(upper, width)}"


def interval_preview_words(preview, rows: float | None, short: bool = False) -> str:
    """Step 5's words for a quantile's interval before release (a ``quantiles.IntervalPreview``): its planned
    half-width in the column's units, then what it costs the values: "; interval about ± 950 (10,000 rows spread
    evenly); the interval takes 60% of ε, so the value is within ± 29 ranks rather than ± 12". ``short``: the
    width alone ("; interval about ± 950"), for a table cell whose tooltip has the rest."""
    if math.isfinite(preview.halfwidth) and rows:
        width = f"; interval about ± {released_error(preview.halfwidth)}"
        spread = f" ({rows:,.0f} rows spread evenly)"
    else:
        width, spread = "; interval width needs a size estimate", ""
    if short:
        return width
    return (f"{width}{spread}; the interval takes {preview.interval_share:.0%} of ε, so the value is within "
            f"± {preview.ranks:,} ranks rather than ± {preview.ranks_without_interval:,}")


def interval_cost_words(preview, rows: float | None, what: str = "the value") -> str:
    """Step 4's words beside a ticked "with 95% interval" (a ``quantiles.IntervalPreview``, as step 5's cell has it):
    "The interval check takes 60% of this statistic's ε: the median's error becomes ± 29 ranks (± 12 without the
    interval); interval about ± 950 (10,000 rows spread evenly)." ``what``: "the median", "the values"."""
    width = (f"interval about ± {released_error(preview.halfwidth)} ({rows:,.0f} rows spread evenly)"
             if math.isfinite(preview.halfwidth) and rows else "the interval's width needs a size estimate (step 5)")
    several = what.endswith("s")
    whose, become = (f"{what}'", "errors become") if several else (f"{what}'s", "error becomes")
    return (f"The interval check takes {preview.interval_share:.0%} of this statistic's ε: {whose} {become} "
            f"± {preview.ranks:,} ranks (± {preview.ranks_without_interval:,} without the interval); {width}.")


def coefficient_of_variation(cv: float) -> str:
    """A cell's CV as a percentage: one decimal below 10% ("4.3%"), whole above ("21%"), "∞" for a value of 0."""
    if not math.isfinite(cv):
        return "∞"
    return f"{cv:.1%}" if cv < 0.1 else f"{cv:,.0%}"


def reliability_words(flag: str, cv: float | None) -> str:
    """'use with caution (CV 21%)': a cell's flag and its CV, or nothing where no flag applies (a quantile)."""
    if not flag:
        return ""
    return flag if cv is None else f"{flag} (CV {coefficient_of_variation(cv)})"


def reliable_from_words(planned: PlannedStatistic, error: float, plan: ReleasePlan) -> str:
    """From what size a cell of ``planned`` is reliable at this error bound (CV at most the plan's
    threshold): "372 rows" for a count, the value in the column's units for a sum or a mean; nothing
    where no flag applies (a quantile's ranks, an unknown error). As step 5 and ``plan-budget`` say it."""
    smallest = reliable_from(planned, error, plan.reliability, plan.confidence)
    if smallest is None:
        return ""
    if planned.statistic.type_name in COUNTING and not planned.statistic.weighted_by:
        return f"{smallest:,.0f} rows"
    if planned.statistic.type_name == "proportion":  # in percent either way: "shares from 16%"
        percent = smallest * (1 if getattr(planned.statistic, "percent", False) else 100)
        return f"shares from {percent:.2g}%" if percent < 100 else "no share"
    return released_number(smallest, smallest * plan.reliability.caution_above)
