"""Quantiles chosen by the exponential mechanism among public candidates, and the DP search
for a column's bounds (low and high quantiles over a wide, log-spaced range)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence

import numpy as np

from workbench.core.data import Neighbouring, NumericColumn, Schema
from workbench.core.data.aggregates import Aggregate, Engine, RankSlots
from workbench.core.errors import PlanError, after_noise
from workbench.core.privacy import (
    QUANTILE_CANDIDATES,
    MechanismKind,
    Noise,
    Sensitivity,
    bounds_candidates,
    person_distance,
    quantile_candidates,
    quantile_rank_halfwidth,
)
from workbench.core.privacy.mechanisms import QUANTILE_LEVEL_DENOMINATOR, quantile_fraction, quantile_level_fraction
from workbench.core.real import is_finite_real
from workbench.core.statistics.base import Cell, ColumnStatistic, Query, group_parts, numeric_spec
from workbench.core.statistics.quantile_intervals import (
    Ranks,
    ordered_across_levels,
    planned_interval_halfwidth,
    quantile_intervals,
)


def level_words(level: float) -> str:
    """A quantile level as statisticians say it: 'median', '25th percentile', '2.5th percentile'."""
    if level == 0.5:
        return "median"
    percent = f"{100 * level:.10g}"
    if "." in percent or 11 <= int(percent) % 100 <= 13:
        suffix = "th"
    else:
        suffix = {"1": "st", "2": "nd", "3": "rd"}.get(percent[-1], "th")
    return f"{percent}{suffix} percentile"


def snapped_level(level: float) -> float:
    """A level as the float of the ten-thousandths it stands for, when it is that up to floating-point
    rounding: (1 - 0.98) / 2 is 0.010000000000000009, which means 0.01. Any other level is kept as it is."""
    if not is_finite_real(level):
        return level
    k = round(level * QUANTILE_LEVEL_DENOMINATOR)
    exact = k / QUANTILE_LEVEL_DENOMINATOR
    return exact if 0 < k < QUANTILE_LEVEL_DENOMINATOR and math.isclose(level, exact, rel_tol=1e-12) else level


def level_problem(level: float) -> str | None:
    """Why ``level`` cannot be a quantile's level (None if it can): outside (0, 1), or finer than OpenDP computes
    with. OpenDP turns a level into a fraction over 10,000 (rounding down) unless it is a fraction with a smaller
    power-of-two denominator, so 0.123456789 would select the 0.1234 quantile and 1e-6 the smallest value, while
    the release said otherwise (issue 41, 6). The plan, the command line and the app all ask this function."""
    if not is_finite_real(level) or not 0 < level < 1:
        return (f"{level!r} is not a quantile level: levels lie strictly between 0 and 1 (0.5 is the median, 0.25 and "
                "0.75 the quartiles).")
    if quantile_level_fraction(level) is not None:
        return None
    numerator, denominator = quantile_fraction(level)
    scaled = level * QUANTILE_LEVEL_DENOMINATOR
    low = max(1, math.floor(scaled)) / QUANTILE_LEVEL_DENOMINATOR
    high = min(QUANTILE_LEVEL_DENOMINATOR - 1, math.ceil(scaled)) / QUANTILE_LEVEL_DENOMINATOR
    used = "its smallest value" if numerator == 0 else f"the {numerator / denominator:.4f} quantile"
    such = f"{low:.4f} or {high:.4f}" if high != low else f"{low:.4f}"
    return (
        f"The quantile level {level:.10g} cannot be used as entered: OpenDP, which selects the quantile, computes "
        f"with levels in whole ten-thousandths, so it would select {used} instead. Enter a level with at most four "
        f"decimals, from 0.0001 to 0.9999, such as {such}."
    )


def _person_distance(schema: Schema) -> int:
    """The rows that differ between neighbours: every selection's and every count's sensitivity here."""
    return person_distance(schema.k, schema.neighbouring is not Neighbouring.ADD_REMOVE)


INTERVAL_SHARES = {"value": 0.4, "check": 0.6}  # of a quantile statistic's ε, with an interval


@dataclass(frozen=True)
class IntervalPreview:
    """Step 5's words for a quantile with its interval: the values' error in ranks, what it would be without the
    interval (all of ε to the values), the interval's planned half-width in the column's units (for rows spread
    evenly over the bounds), and the share of ε the interval takes."""

    ranks: int
    ranks_without_interval: int
    halfwidth: float
    interval_share: float


@dataclass(frozen=True)
class Quantiles(ColumnStatistic):
    """Quantiles of a numeric column at public levels (the median is level 0.5), each chosen by
    the exponential mechanism among ``QUANTILE_CANDIDATES`` evenly spaced points of the bounds.

    The error is stated in ranks, the one measure of a quantile's error that depends on no
    data: how many rows the released value's position may lie from the level's. (How far that
    is in the column's units depends on how dense the data are there, which is private.)
    With ``interval`` each value also gets a confidence interval in the column's units, released
    with part of the statistic's ε (``INTERVAL_SHARES``, ``quantile_intervals``).
    """

    levels: tuple[float, ...] = (0.5,)
    interval: bool = False
    type_name: ClassVar[str] = "quantiles"
    mechanisms: ClassVar[tuple[MechanismKind, ...]] = (MechanismKind.EXPONENTIAL,)
    error_unit: ClassVar[str] = "ranks"

    def __post_init__(self) -> None:
        super().__post_init__()
        levels = tuple(sorted({snapped_level(float(level)) for level in self.levels}))
        object.__setattr__(self, "levels", levels)

    @property
    def label(self) -> str:
        if len(self.levels) == 1:
            return f"{level_words(self.levels[0])} of {self.column}{self._by_words()}"
        return f"quantiles {', '.join(f'{100 * a:.10g}%' for a in self.levels)} of {self.column}{self._by_words()}"

    def _check(self, schema: Schema) -> NumericColumn:
        spec = numeric_spec(schema, self.column, "quantiles")
        if not self.levels:
            raise PlanError(f"The quantiles of '{self.column}' need at least one level, e.g. 0.5 for the median.")
        for level in self.levels:
            if not 0 < level < 1:
                raise PlanError(
                    f"A quantile level of '{self.column}' is {level:g}; levels lie strictly between 0 and 1 "
                    "(0.5 is the median, 0.25 and 0.75 the quartiles)."
                )
            problem = level_problem(level)
            if problem:
                raise PlanError(f"Quantiles of '{self.column}': {problem}")
        self.groups(schema)  # checks the grouping column
        return spec

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        """One selection per level; with an interval, with less ε, then the histogram that checks the
        interval's cuts around the released values."""
        self._check(schema)
        distance = _person_distance(schema)
        rows = Sensitivity(distance, distance)  # a person's rows move every group's quantile by this much in total
        per_level = 1.0 / len(self.levels)
        value_share = INTERVAL_SHARES["value"] if self.interval else 1.0
        points = tuple(Query(level_words(a), rows, 1.0, value_share * per_level, not self.by, level=a)
                       for a in self.levels)
        if not self.interval:
            return points
        check = Query("check of the interval's ends", rows, 1.0, INTERVAL_SHARES["check"], False,
                      mechanism=MechanismKind.LAPLACE)
        return (*points, check)

    def candidates(self, schema: Schema) -> tuple[float, ...]:
        spec = self._check(schema)
        assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
        return quantile_candidates(float(spec.lower), float(spec.upper))

    def measure(self, data: Engine, noises: Sequence[Noise], confidence: float = 0.95) -> list[list]:
        """For each level, in each group, one candidate chosen by OpenDP from the group's ranks.
        Groups are disjoint, and a person's rows are split among them: the privacy loss adds up
        over the groups to that of ``person_distance`` rows in one group (the map is linear)."""
        candidates = self.candidates(data.schema)
        per_group = self.ranks(data, candidates)
        with after_noise(self.label):  # the first selection draws noise, and what follows reads its result
            points = [
                [candidates[noise.select_by_ranks(r.below(), r.at_or_below(), r.total, level)] for r in per_group]
                for noise, level in zip(noises, self.levels)
            ]
            if not self.interval:
                return points
            check = noises[len(self.levels)]
            return points + quantile_intervals(per_group, candidates, self.levels, points, check, confidence)

    def ranks(self, data: Engine, candidates: Sequence[float]) -> list[Ranks]:
        """Each group's rows below and at or below every candidate: the exact answers behind the selection
        and the interval's check, counted by the engine (rows never come back). Private."""
        request = self._ranks_request(data.schema, candidates)
        slots = request.parts[-1]
        answer = data.aggregate(request)
        starts = np.searchsorted(answer.cells, np.arange(self.group_count(data.schema) + 1) * slots.size)
        totals = np.asarray(answer.totals, dtype=np.int64)
        return [Ranks.of(answer.cells[a:b] - g * slots.size, totals[a:b], len(candidates))
                for g, (a, b) in enumerate(zip(starts, starts[1:]))]

    def _ranks_request(self, schema: Schema, candidates: Sequence[float]) -> Aggregate:
        return Aggregate(self.column_names, (*group_parts(self, schema), RankSlots(self.column, tuple(candidates))))

    def requests(self, schema: Schema) -> tuple[Aggregate, ...]:
        return (self._ranks_request(schema, self.candidates(schema)),)

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        raise TypeError("quantiles have no integer answers to add noise to; they are measured by selection")

    def estimate(self, noisy, noises, schema, confidence):
        error = self.error_bound(noises, schema, None, confidence)
        points, intervals = noisy[:len(self.levels)], noisy[len(self.levels):]
        cells = []
        for i, group in enumerate(self.groups(schema)):
            ordered = sorted(float(per_level[i]) for per_level in points)  # consistent order: post-processing
            raw = [tuple(float(end) for end in per_level[i]) for per_level in intervals]
            widened = ordered_across_levels(raw) if raw else []  # ordered like the levels, by widening only
            for j, (level, value) in enumerate(zip(self.levels, ordered)):
                label = f"{group} / {level_words(level)}" if self.by else level_words(level)
                note = f"its position is within {error:,} rows of the true {level_words(level)}'s ({confidence:.0%})"
                lower = upper = None
                if intervals:
                    lower, upper = widened[j]
                    note += f"; the true {level_words(level)} lies in [{lower:,.10g}, {upper:,.10g}] ({confidence:.0%})"
                    if (lower, upper) != raw[j]:
                        note += (f" (widened from [{raw[j][0]:,.10g}, {raw[j][1]:,.10g}] so that the levels' intervals "
                                 "are in order; it still holds the quantile)")
                    if not lower <= value <= upper:  # a reader would otherwise take one of the two for a mistake
                        note += ("; the value lies outside that interval: the two are drawn with separate noise, and "
                                 "the interval is what holds the true quantile")
                cells.append(Cell(label, value, float(error), note, self.error_unit, lower=lower, upper=upper))
        return tuple(cells)

    def error_bound(self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float) -> float:
        """Ranks: the largest over the levels, so that sorting the released values keeps every
        level within its bound (the intervals are then ordered like the levels). Only the values'
        selections count: an interval's queries come after them."""
        count = len(self.candidates(schema))
        return max(quantile_rank_halfwidth(noise.scale, confidence, count) for noise in noises[:len(self.levels)])

    def interval_preview(self, noises: Sequence[Noise], schema: Schema, size: float | None,
                         confidence: float) -> "IntervalPreview | None":
        """With ``interval``, what step 5 says before any release (issue 37, 3): the values' rank bound with the
        interval and what it would be with the whole ε, and the interval's planned half-width in the column's
        units (``planned_interval_halfwidth``) at ``size`` rows (one group's). Public inputs only."""
        if not self.interval:
            return None
        spec = self._check(schema)
        assert spec.lower is not None and spec.upper is not None
        count = len(self.candidates(schema))
        ranks = self.error_bound(noises, schema, size, confidence)
        whole = [Noise(n.kind, n.sensitivity, n.scale * INTERVAL_SHARES["value"], n.epsilon / INTERVAL_SHARES["value"],
                       n.delta) for n in noises[:len(self.levels)]]  # the value's selections at the whole ε
        alone = max(quantile_rank_halfwidth(n.scale, confidence, count) for n in whole)
        width = planned_interval_halfwidth(noises[len(self.levels)], self.levels, ranks, size or 0.0,
                                           float(spec.upper) - float(spec.lower), count, confidence)
        return IntervalPreview(int(ranks), int(alone), width, INTERVAL_SHARES["check"])

    def method(self, schema: Schema) -> str:
        where = self._in_each_group()
        share = f"ε is split evenly over the {len(self.levels)} levels; " if len(self.levels) > 1 else ""
        step = self.candidates(schema)
        text = (
            f"Permute-and-flip selection (an exponential mechanism, OpenDP){where}: among {QUANTILE_CANDIDATES:,} evenly spaced points of the bounds "
            f"(a step of {step[1] - step[0]:.3g}), a point is chosen with a probability that falls with the "
            f"distance of its rank from the level's; {share}the values are released in increasing order. "
            "The error is in ranks (rows), since its size in the column's units depends on the data."
        )
        if not self.interval:
            return text
        return text + (
            f" Each value comes with an interval in the column's units{where}, from {INTERVAL_SHARES['check']:.0%} of "
            "the statistic's ε: around the released value, cuts 1, 2, 4, 8, ... steps of the grid away on each side; "
            "one noisy count of the rows between the cuts keeps a cut as an end only if it shows, with the stated "
            "confidence, that the cut lies on its side of the quantile; the end is the innermost kept cut, or the "
            "column's bound where none is kept. The interval holds the true quantile with at least the stated "
            "confidence whatever the data."
            + (" Where the intervals of two levels would cross, an end is widened to the next level's (never "
               "narrowed), so that they are in order and each still holds its quantile." if len(self.levels) > 1 else "")
        )

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "levels": list(self.levels), **({"interval": True} if self.interval else {})}


@dataclass(frozen=True)
class BoundsSearch(Quantiles):
    """Low and high quantiles of a column whose bounds are not known, over log-spaced candidates
    of a wide public search range: a DP estimate of bounds that spends budget like any release.

    The column's own bounds in the schema are the search range (e.g. ±1e9), not tight bounds.
    """

    levels: tuple[float, ...] = (0.01, 0.99)
    type_name: ClassVar[str] = "bounds"

    @property
    def label(self) -> str:
        return f"bounds search of {self.column} (levels {', '.join(f'{100 * a:.10g}%' for a in self.levels)})"

    def candidates(self, schema: Schema) -> tuple[float, ...]:
        spec = self._check(schema)
        assert spec.lower is not None and spec.upper is not None  # validated by Schema.validate
        return bounds_candidates(float(spec.lower), float(spec.upper))

    def method(self, schema: Schema) -> str:
        return (
            f"Permute-and-flip selection (OpenDP) of the {', '.join(level_words(a) for a in self.levels)} among "
            f"{len(self.candidates(schema)):,} points spaced evenly on a log scale (20 per factor of ten) over the "
            "search range; ε is split evenly over the levels. A bounds estimate: it is charged like any release."
        )
