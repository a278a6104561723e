"""A quantile's confidence interval in the column's own units: cuts on a ladder either side of the
released value, each kept as an end only if a noisy count confirms it lies on its side of the quantile.

Permute-and-flip's error in ranks has no data-free bound tighter than the union over its
candidates, and its size in the column's units depends on how dense the data are there. But once
the value q̂ is released it is public, and a second DP step may read it (sequential composition):

1. around q̂, cuts at 1, 2, 4, 8, ... steps of the candidates' grid, below it and above it, up to
   the bounds (a ladder: near q̂ to be narrow where the value is good, far out to reach the
   quantile where it is not, as on a tie or in a gap between two modes);
2. one noisy histogram by group, cut at every cut, checks each: a lower cut L is kept when
   (1 - α) x (rows at or below L) - α x (rows above it), from the noisy bins, is below -h, where
   P(noise < -h) <= (1 - confidence) / 2 / (cuts on that side) (``rank_check_halfwidth``, exact
   for discrete Laplace). That says fewer than αn rows lie at or below L, so L is below the
   quantile; likewise an upper cut needs more than αn rows below it. The end is the innermost kept
   cut, or the bound where none is kept.

The interval holds the quantile (any value with at most αn rows below it and at least αn at or
below it) with probability at least the confidence whatever the data: given q̂, the cuts are fixed
and only the check's noise, independent of q̂, can keep a wrong one; each side is allowed half the
miss probability, split over its cuts. q̂ changes the width only, never the coverage.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from workbench.core.privacy import Noise
from workbench.core.privacy.accuracy import rank_check_halfwidth

LADDER_RATIO = 2  # each cut twice as far from the value as the one before
_LOWER, _UPPER = 1, 0  # at equal values, an upper cut (rows below it go left) sorts before a lower cut


@dataclass(frozen=True, eq=False)
class Ranks:
    """One group's rows below and at or below each candidate, kept sparse: the rank slots that hold rows
    (``aggregates.RankSlots``: 2j strictly between c_{j-1} and c_j, 2j + 1 equal to c_j), ascending, and
    the rows in the slots up to each. A thousand groups of 10,001 candidates stay small. Private."""

    slots: np.ndarray
    cumulative: np.ndarray
    candidates: int

    @classmethod
    def of(cls, slots: np.ndarray, rows: Sequence[int], candidates: int) -> "Ranks":
        return cls(np.asarray(slots, dtype=np.int64), np.cumsum(np.asarray(rows, dtype=np.int64)), candidates)

    @property
    def total(self) -> int:
        return int(self.cumulative[-1]) if len(self.cumulative) else 0

    def _through(self, last_slots: np.ndarray) -> np.ndarray:
        """Rows in the slots up to and including each of ``last_slots``."""
        return np.concatenate([[0], self.cumulative])[np.searchsorted(self.slots, last_slots, side="right")]

    def below(self, which: np.ndarray | None = None) -> np.ndarray:
        """Rows strictly below candidate j (slots 0..2j), for every candidate or the ``which`` given."""
        j = np.arange(self.candidates) if which is None else np.asarray(which)
        return self._through(2 * j)

    def at_or_below(self, which: np.ndarray | None = None) -> np.ndarray:
        """Rows at or below candidate j (slots 0..2j + 1)."""
        j = np.arange(self.candidates) if which is None else np.asarray(which)
        return self._through(2 * j + 1)


def quantile_intervals(
    per_group: Sequence[Ranks],
    candidates: Sequence[float],
    levels: Sequence[float],
    points: Sequence[Sequence[float]],
    check_noise: Noise,
    confidence: float,
) -> list[list[tuple[float, float]]]:
    """For each level, in each group, the interval (low, high) in the column's units.

    ``per_group`` holds each group's ranks, ``points[i][g]`` the value released for level i in
    group g, ``check_noise`` the check histogram's noise."""
    groups = per_group
    low, high = float(candidates[0]), float(candidates[-1])
    cuts: list[list[tuple[float, int, int]]] = []  # per group: (value, kind, level index)
    for g in range(len(groups)):
        mine = []
        for i in range(len(levels)):
            for kind, side in ((_LOWER, -1), (_UPPER, +1)):
                mine += [(cut, kind, i) for cut in _ladder(candidates, float(points[i][g]), side)]
        cuts.append(sorted(mine))

    exact = [_bin_counts(ranks, group_cuts, candidates) for ranks, group_cuts in zip(groups, cuts)]
    noisy = check_noise.sample([n for counts in exact for n in counts]).astype(float)
    intervals = [[(low, high) for _ in groups] for _ in levels]
    start = 0
    for g, group_cuts in enumerate(cuts):
        bins = len(group_cuts) + 1
        counts = noisy[start:start + bins]
        start += bins
        left = np.cumsum(counts)[:-1]  # noisy rows left of each cut
        total = counts.sum()
        for i, alpha in enumerate(levels):
            for kind in (_LOWER, _UPPER):
                mine = [j for j, (_, k, level) in enumerate(group_cuts) if k == kind and level == i]
                miss = (1.0 - confidence) / 2.0 / max(len(mine), 1)  # a side is wrong if any of its cuts is
                for j in (reversed(mine) if kind == _LOWER else mine):  # innermost first: the first kept is the end
                    score = (1.0 - alpha) * left[j] - alpha * (total - left[j])  # noisy rows left of it, less αn
                    if _confirms(score, _check_halfwidth(check_noise, alpha, j + 1, bins - j - 1, miss, score), kind):
                        lo, hi = intervals[i][g]
                        intervals[i][g] = (group_cuts[j][0], hi) if kind == _LOWER else (lo, group_cuts[j][0])
                        break
    return intervals


def _check_halfwidth(noise: Noise, alpha: float, left: int, right: int, miss: float, score: float) -> float:
    """The smaller of two true bounds on the check's noise: Chebyshev's from its variance, which costs
    nothing, and ``rank_check_halfwidth``'s, tighter, computed only where the score lies between 0 and
    Chebyshev's bound and the answer turns on it. Each call's work and memory are bounded by public
    quantities (the scale and the number of cuts; ``rank_check_halfwidth``), and there are at most
    2 x 14 cuts per level and group, so no data can make this step slow or make it fail (issue 41, 5)."""
    chebyshev = math.sqrt(noise.variance * ((1 - alpha) ** 2 * left + alpha ** 2 * right) / miss)
    if abs(score) > chebyshev or score == 0:
        return chebyshev  # confirmed, or on neither side (h >= 0): the exact bound cannot change that
    return min(chebyshev, rank_check_halfwidth(noise.scale, alpha, left, right, miss))


def _confirms(score: float, halfwidth: float, kind: int) -> bool:
    """A lower cut has fewer than αn rows at or below it, an upper one more than αn below it, beyond
    what the noise can do with the check's confidence."""
    return score < -halfwidth if kind == _LOWER else score > halfwidth


def _ladder(candidates: Sequence[float], point: float, side: int) -> list[float]:
    """The grid points 1, 2, 4, ... steps from the released value on ``side``, short of the bound (the
    bound is the end where no cut is kept). Public: it depends on the released value and the grid."""
    last = len(candidates) - 1
    i = int(np.clip(np.searchsorted(candidates, point), 0, last))
    out, steps = [], 1
    while 0 < i + side * steps < last:
        out.append(float(candidates[i + side * steps]))
        steps *= LADDER_RATIO
    return out


def _bin_counts(ranks: Ranks, cuts: Sequence[tuple[float, int, int]], candidates: Sequence[float]) -> list[int]:
    """Rows between consecutive cuts: a lower cut keeps its own value on its left, an upper cut on its
    right; ``cuts`` are sorted, upper before lower at equal values, so the positions never decrease.
    Every cut is a candidate, so the group's ranks hold its position."""
    where = np.searchsorted(np.asarray(candidates, dtype=np.float64), [value for value, _, _ in cuts])
    lower = np.array([kind == _LOWER for _, kind, _ in cuts], dtype=bool)
    positions = np.where(lower, ranks.at_or_below(where), ranks.below(where)).tolist()
    edges = [0, *positions, ranks.total]
    return [b - a for a, b in zip(edges, edges[1:])]
