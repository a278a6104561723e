"""A quantile's confidence interval in the column's own units: two selected ends, each kept only
if a noisy count confirms it lies on its side of the quantile.

Permute-and-flip's error in ranks has no data-free bound tighter than the union over its
candidates, and its size in the column's units depends on how dense the data are there. So the
interval is built in three steps, each DP, composed in sequence (each step may read what the
ones before released):

1. the rows of each group are counted with noise (n̂);
2. each end is selected by permute-and-flip at the level α ∓ m / n̂, a margin of m rows beyond
   the quantile's position (m: the check's half-width plus three of the selection's scales);
3. one noisy histogram by group, cut at every end, checks each end: a lower end L is kept when
   (1 - α) x (rows at or below L) - α x (rows above it), from the noisy bins, is below -h, where
   P(noise < -h) <= (1 - confidence) / 2 (``rank_check_halfwidth``, exact for discrete Laplace).
   That says fewer than αn rows lie at or below L, so L is below the quantile; likewise an upper
   end needs more than αn rows below it. An end that is not confirmed falls back to the bound.

The interval holds the quantile (any value with at most αn rows below it and at least αn at or
below it) with probability at least the confidence whatever the data, because only the checks'
noise can make it miss and each side is allowed half the miss probability. The selections affect
the width only: a selection that lands on the wrong side is refused by its check, not trusted.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from workbench.core.privacy import Noise, calibrate_quantile
from workbench.core.privacy.accuracy import discrete_laplace_halfwidth, rank_check_halfwidth

_LADDER_STEPS = (1, 16, 256, 4096)  # grid steps from a selected end to its cuts (see ``_ladder``)
CUTS_PER_END = len(_LADDER_STEPS)
SELECTION_MARGIN = 3.0  # selection scales added to the margin: an end misses its check about 2.5% of the time
_LOWER, _UPPER = 1, 0  # at equal values, an upper cut (rows below it go left) sorts before a lower cut


def quantile_intervals(
    per_group: Sequence[np.ndarray],
    candidates: Sequence[float],
    levels: Sequence[float],
    distance: int,
    noises: Sequence[Noise],
    confidence: float,
) -> list[list[tuple[float, float]]]:
    """For each level, in each group, the interval (low, high) in the column's units.

    ``per_group`` holds each group's values, ``noises`` the size count's, then each level's lower
    and upper selection's (their ε only: they are recalibrated at the level each group needs), then
    the check histogram's."""
    size_noise, ends, check_noise = noises[0], noises[1:-1], noises[-1]
    groups = [np.sort(np.asarray(values, dtype=np.float64)) for values in per_group]
    sizes = size_noise.sample([len(values) for values in groups]).astype(float)
    size_margin = discrete_laplace_halfwidth(size_noise.scale, confidence) if size_noise.scale else 0
    miss = (1.0 - confidence) / 2.0 / CUTS_PER_END  # per cut: an end is wrong if any of its cuts is
    cuts_per_group = len(levels) * 2 * CUTS_PER_END
    widest_check = max(_check_halfwidth(check_noise.scale, a, cuts_per_group, miss) for a in levels)
    low, high = float(candidates[0]), float(candidates[-1])

    cuts: list[list[tuple[float, int, int]]] = []  # per group: (value, kind, level index)
    for values, size in zip(groups, sizes):
        mine = []
        for i, level in enumerate(levels):
            lower_noise, upper_noise = ends[2 * i], ends[2 * i + 1]
            below = _select_end(values, candidates, level, -1, size, size_margin, widest_check, distance, lower_noise)
            above = _select_end(values, candidates, level, +1, size, size_margin, widest_check, distance, upper_noise)
            mine += [(cut, _LOWER, i) for cut in _ladder(candidates, below, -1)]
            mine += [(cut, _UPPER, i) for cut in _ladder(candidates, above, +1)]
        cuts.append(sorted(mine))

    exact = [_bin_counts(values, group_cuts) for values, group_cuts in zip(groups, cuts)]
    noisy = check_noise.sample([n for counts in exact for n in counts]).astype(float)
    bins = cuts_per_group + 1
    intervals = [[(low, high) for _ in groups] for _ in levels]
    for g, group_cuts in enumerate(cuts):
        counts = noisy[g * bins:(g + 1) * bins]
        left = np.cumsum(counts)[:-1]  # noisy rows left of each cut
        total = counts.sum()
        for j, (value, kind, i) in enumerate(group_cuts):
            alpha = levels[i]
            score = (1.0 - alpha) * left[j] - alpha * (total - left[j])  # noisy rows left of it, less αn
            h = rank_check_halfwidth(check_noise.scale, alpha, j + 1, bins - j - 1, miss)
            if _confirms(score, h, kind):
                lo, hi = intervals[i][g]
                intervals[i][g] = (max(lo, value), hi) if kind == _LOWER else (lo, min(hi, value))
    return intervals


def _confirms(score: float, halfwidth: float, kind: int) -> bool:
    """A lower cut has fewer than αn rows at or below it, an upper one more than αn below it, beyond
    what the noise can do with the check's confidence."""
    return score < -halfwidth if kind == _LOWER else score > halfwidth


def _check_halfwidth(scale: float, alpha: float, cuts: int, miss: float) -> float:
    """The widest check half-width over a cut's possible positions among ``cuts`` cuts."""
    return max(rank_check_halfwidth(scale, alpha, j, cuts + 1 - j, miss) for j in range(1, cuts + 1))


def _select_end(
    values: np.ndarray, candidates: Sequence[float], alpha: float, side: int, size: float, size_margin: int,
    check: float, distance: int, noise: Noise,
) -> float | None:
    """A candidate about m rows to ``side`` of the α-quantile, by permute-and-flip at α ± m / n̂;
    None where that level leaves (0, 1): the bound is then the end."""
    if size <= 0:
        return None
    scale = calibrate_quantile(distance, alpha, noise.epsilon).scale  # the scale near α, for the margin
    margin = (check + SELECTION_MARGIN * scale) * (size + size_margin) / size  # at least m rows even if n̂ is high
    level = alpha + side * margin / size
    if not 0 < level < 1:
        return None
    selection = calibrate_quantile(distance, level, noise.epsilon)
    return selection.select_quantile(values, candidates, level)


def _ladder(candidates: Sequence[float], selected: float | None, side: int) -> list[float]:
    """The cuts that may become an end: the candidate next to the selected one on ``side``, then
    points 16, 256 and 4,096 steps of the grid further out. Where the quantile sits on a tie the
    selection can land just beyond the tie, on the wrong side; a cut further out then crosses the
    tie. Without a selection (its level left (0, 1)) every cut is the bound."""
    last = len(candidates) - 1
    if selected is None:
        return [float(candidates[0 if side < 0 else last])] * CUTS_PER_END
    i = int(np.searchsorted(candidates, selected))
    return [float(candidates[min(max(i + side * step, 0), last)]) for step in _LADDER_STEPS]


def _bin_counts(values: np.ndarray, cuts: Sequence[tuple[float, int, int]]) -> list[int]:
    """Rows between consecutive cuts: a lower cut keeps its own value on its left, an upper cut on its
    right; ``cuts`` are sorted, upper before lower at equal values, so the positions never decrease."""
    positions = [int(np.searchsorted(values, value, side="right" if kind == _LOWER else "left"))
                 for value, kind, _ in cuts]
    edges = [0, *positions, len(values)]
    return [b - a for a, b in zip(edges, edges[1:])]
