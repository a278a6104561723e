"""Proportions and percentages: the share of rows in each public category of a column, within
the table or within each group ("share of employed by region"), as ratios of released counts.

The counts are one histogram (every category, and '(other)' if kept), so a proportion costs
what that histogram costs and its privacy is the histogram's. Each group's shares are its
noisy counts over their noisy sum, so they add up to 1 in every group and need no second
query for the denominator (post-processing, DESIGN rule 7).

The error. With n_j the rows in category j, N the group's rows, p = n_j / N, and Z_j, Z_R
the noise on category j and on the group's other categories together, the released share
minus the true one is exactly ((1 - p) Z_j - p Z_R) / Ñ, Ñ = N + Z_j + Z_R the released
total. So with 95% probability it is within w(p) / Ñ, w(p) the 95% point of
|(1 - p) Z_j - p Z_R|, from the noise's public distribution (simulated with a fixed seed).
The true p is unknown; the stated bound is the largest t with t <= max of w over
[p̂ - t, p̂ + t] ∩ [0, 1] / Ñ (p̂ clamped into [0, 1]), as the mean does with its unknown
offset: it holds whenever the true share lies within its own interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Sequence

import numpy as np

from workbench.core.data import Schema
from workbench.core.data.aggregates import Engine
from workbench.core.privacy import Noise, simulated_halfwidth, simulated_noise, simulation_rng
from workbench.core.statistics.base import EMPTY_GROUP_WORDS, Cell, ColumnStatistic, Query, marked_at_integer_limit
from workbench.core.statistics.counts import Histogram
from workbench.core.statistics.weights import relative_weight_rounding

SHARE_STEPS = 100  # the share axis is cut into this many intervals; w is bounded on each from simulation
SHARE_DRAWS = 20_000  # simulated releases behind each interval's bound (fixed seed)


@dataclass(frozen=True)
class Proportion(ColumnStatistic):
    """The share of rows in each public category of a column (or each interval between ``edges`` of a
    numeric one), within the table or within each group; with ``percent``, in percent."""

    percent: bool = False
    edges: tuple[float, ...] = ()
    weighted_by: str | None = None  # shares of the weights' sum (a survey's estimated population shares)
    type_name: ClassVar[str] = "proportion"
    computed_from_noisy_sums: ClassVar[bool] = True  # its error depends on the group's rows

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "edges", tuple(float(edge) for edge in self.edges))

    @property
    def counts(self) -> Histogram:
        """The histogram whose noisy counts the shares are computed from."""
        return Histogram(self.column, by=self.by, edges=self.edges, weighted_by=self.weighted_by)

    @property
    def scale(self) -> float:
        return 100.0 if self.percent else 1.0

    @property
    def label(self) -> str:
        return f"{'percentages' if self.percent else 'proportions'} of {self.column}{self.counts.cut_words()}"

    def queries(self, schema: Schema) -> tuple[Query, ...]:
        return self.counts.queries(schema)

    def exact(self, data: Engine) -> tuple[list[int], ...]:
        return self.counts.exact(data)

    def estimate(self, noisy, noises, schema, confidence):
        bins = self.counts._bins(schema)
        (query,) = self.queries(schema)
        widths = self._widths(noises, schema, confidence)  # once: every cell's bound reads them
        smallest = self.planning_size(schema, 1.0)  # one row, or one row's smallest weight
        rounding = self._rounding(schema)
        cells = []
        for g, group in enumerate(self.groups(schema)):
            counts = [float(v) * query.unit for v in noisy[0][g * len(bins) : (g + 1) * len(bins)]]
            total = sum(counts)
            for name, count in zip(bins, counts):
                label = f"{group} / {name}" if self.by else name
                if total < smallest:
                    what = f"weights is below the smallest weight, {smallest:g}" if self.weighted_by else "rows is below 1"
                    note = f"the noisy total of {what}, so no share can be formed{EMPTY_GROUP_WORDS}"
                    cells.append(Cell(label, None, None, note))
                    continue
                share = count / total
                bound = min(1.0, _share_bound(widths, total, share) + rounding)
                cells.append(Cell(label, share * self.scale, bound * self.scale))
        return marked_at_integer_limit(tuple(cells), noisy, noises)

    def error_bound(
        self, noises: Sequence[Noise], schema: Schema, size: float | None, confidence: float,
        share: float | None = None,
    ) -> float:
        """Bound on |released share - exact share| for a group of ``size`` rows (the released total, or a
        preview's estimate; weighted, in the weights' units). Without ``share`` (previews and planning), the
        largest over every share: no release at that size states more."""
        if not size or size < self.planning_size(schema, 1.0):
            return math.inf
        widths = self._widths(noises, schema, confidence)
        rounding = self._rounding(schema)
        if share is None:
            return min(1.0, float(widths.max()) / size + rounding) * self.scale
        return min(1.0, _share_bound(widths, size, share) + rounding) * self.scale

    def _rounding(self, schema: Schema) -> float:
        """Weighted, the most that rounding the weights to their grid moves a share: the bin's sum and the total
        each move by a relative r at most, so the share by at most 2r / (1 - r) (issue 41, 6); unweighted, 0."""
        if not self.weighted_by:
            return 0.0
        return 2 * relative_weight_rounding(schema, self.weighted_by, self.label)

    def _widths(self, noises: Sequence[Noise], schema: Schema, confidence: float) -> np.ndarray:
        """w on each interval of the share, in the counts' units (a weight's grid step, or one row)."""
        (noise,) = noises
        (query,) = self.queries(schema)
        return share_halfwidths(noise.kind.value, noise.scale, len(self.counts._bins(schema)), confidence) * query.unit

    def possible_range(self, schema: Schema) -> tuple[float, float]:
        return (0.0, self.scale)

    def method(self, schema: Schema) -> str:
        counted = self.counts.method(schema).split(", plus integer noise")[0]  # the histogram's, by group too
        unit = "percent of" if self.percent else "the share of"
        return (
            f"{counted}, plus integer noise in every bin; each bin's noisy count is "
            f"then divided by the noisy total of its {'group' if self.by else 'table'} ({unit} its rows), so the "
            "shares add up to the whole. The error comes from the noise's distribution at the released share "
            "and total."
        )

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), **({"percent": True} if self.percent else {}),  # weight: by the base
                **({"edges": list(self.edges)} if self.edges else {})}


def _share_bound(widths: np.ndarray, size: float, share: float) -> float:
    """The largest t with t <= max of w over [share - t, share + t] / size, from above (every step is a
    valid bound); at most 1, since a share and the truth both lie in [0, 1]."""
    bound = float(widths.max()) / size
    # The true share lies in [0, 1], so it is as close to the released share clamped there: search around that.
    share = min(max(share, 0.0), 1.0)
    for _ in range(60):
        low = min(SHARE_STEPS - 1, max(0, math.floor((share - bound) * SHARE_STEPS)))
        high = min(SHARE_STEPS, max(low + 1, math.ceil((share + bound) * SHARE_STEPS)))
        tighter = min(bound, float(widths[low:high].max()) / size)
        converged = tighter >= bound * (1 - 1e-4)
        bound = tighter
        if converged:
            break
    return min(1.0, bound)


@lru_cache(maxsize=256)
def share_halfwidths(kind: str, scale: float, bins: int, confidence: float) -> np.ndarray:
    """For each interval [i, i + 1] / SHARE_STEPS of the share p: a bound on w(p), the ``confidence``
    point of |(1 - p) Z_j - p Z_R| (Z_j one bin's noise, Z_R the sum of the other bins'), over the
    whole interval. |Z_j - p (Z_j + Z_R)| is convex in p for each draw, so its largest value on the
    interval is at an end, and the point of that per-draw largest value bounds w everywhere on it."""
    rng = simulation_rng()
    own = simulated_noise(kind, scale, SHARE_DRAWS, rng)
    rest = np.zeros(SHARE_DRAWS)
    for _ in range(bins - 1):
        rest += simulated_noise(kind, scale, SHARE_DRAWS, rng)
    total = own + rest
    ends = [np.abs(own - (i / SHARE_STEPS) * total) for i in range(SHARE_STEPS + 1)]
    return np.array([simulated_halfwidth(np.maximum(ends[i], ends[i + 1]), confidence) for i in range(SHARE_STEPS)])
