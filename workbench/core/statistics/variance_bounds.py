"""The error bound of a released variance or standard deviation, valid whatever the true moments.

A variance is released from three noisy answers: the sum S1 of the values centred on the middle of the
bounds (each in [-R, R]), the sum S2 of their squares, and the count n (or the public size), as
ĝ = (S̃2 - S̃1²/ñ) / (ñ - 1). With the true centred mean m = S1/n and variance v (divisor n - 1), and
Z1, Z2, Zn the noises in the values' units (ñ = n + Zn), the error is exactly

    ĝ - v = F / (ñ - 1),   F = L - Q/ñ,   L = Z2 - 2m·Z1 + (m² - v)·Zn,   Q = (Z1 - m·Zn)²,

and the released mean of the centred values is S̃1/ñ = m + (Z1 - m·Zn)/ñ, so |S̃1/ñ - m| = √Q/ñ. For each true
(m, v, n), F is a function of the noises alone, so the event

    A = {|F| <= a(m, v, n)} ∩ {Q <= q(m)} ∩ {|Zn| <= t}

(a, q, t the points of |F|, Q and |Zn| that leave 94%, 5% and 1% of the miss probability 1 - confidence, by
the union bound) has probability at least the confidence whatever the data. On A the truth lies in

    C = {(m, v, n): |ñ - n| <= t,  |S̃1/ñ - m| <= √q(m)/ñ,  |ĝ - v| <= a(m, v, n)/(ñ - 1)},

computed from released values only; the stated bound is the largest distance from the released value
(clamped into its range, or its square root for a standard deviation) to any v of C: a test inversion, as the
mean's self-consistent bound is one in a single parameter. A plug-in bound, simulated at the released moments,
covered 88-95% on groups of 8-60 rows near a bound (issue 37, 1). With a public count Zn = 0, n = ñ, and t = 0.

a is bounded on cells of a lattice in (|m|, c = m² - v, n) (v <= n(R² - m²)/(n - 1), any n >= 2 rows in
[-R, R]): for fixed noises L is linear in (m, c), Q convex in m, and Q/ñ falls as n grows, so on a cell
|F| <= max(max L over its four (m, c) corners, max of -L over them + max Q over its two m ends / (n_low + Zn)).
The quantile of that per-draw bound over simulated noises (their public distributions, fixed seed) bounds a for
every (m, v, n) in the cell; q likewise per strip of m. |m| is enough: the noises are symmetric. Draws in which
no value would be released (ñ < 2) are no miss. Written here because no library states an interval for a noisy
ratio of noisy moments.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from workbench.core.privacy.accuracy import simulated_noise, simulation_rng

SHARES = {"F": 0.94, "Q": 0.05, "count": 0.01}  # of the miss probability (union bound)
TABLE_DRAWS = 20_000  # draws per lattice: a simulated point is within about 0.15 percentage points
M_CELLS = 24  # lattice cells over |m| in [0, R]
M_CELLS_PUBLIC = 400  # with a public count there is no lattice over c, and the strips of m can be narrow
C_CELLS = 48  # lattice cells over c = m² - v in [-2R², R²]
N_RATIO = 1.25  # the lattice of n: 2, 2.5, 3.125, ..., each cell 25% wider than the one before
N_LARGEST = 1e9  # the last cell of n reaches from here to infinity (Q/ñ = 0 there)


@dataclass(frozen=True, eq=False)
class MomentLattice:
    """The simulated noises of one statistic, and the bounds a (per cell of n, computed when first needed) and q."""

    reach: float  # R, the largest |centred value|
    z1: np.ndarray
    z2: np.ndarray
    zn: np.ndarray
    confidence: float
    public: float | None  # the public count, if the count is public
    count_bound: float  # t: |Zn| <= t on A (0 for a public count)
    m_edges: np.ndarray  # |m| from 0 to R
    c_edges: np.ndarray  # c from -2R² to R²
    q: np.ndarray  # per strip of |m|: a bound on q(m) anywhere in the strip of |m|
    _a: dict = field(default_factory=dict)

    def n_cells(self, low: float, high: float) -> list[tuple[float, float]]:
        """The cells of n that meet [low, high] (n >= 2)."""
        if self.public is not None:
            return [(self.public, self.public)]
        low = max(low, 2.0)
        if high < low:
            return []
        first = int(math.floor(math.log(low / 2.0) / math.log(N_RATIO))) if low < N_LARGEST else None
        cells = []
        k = first if first is not None else None
        while k is not None:
            start = 2.0 * N_RATIO ** k
            if start >= N_LARGEST:
                break
            cells.append((start, 2.0 * N_RATIO ** (k + 1)))
            if cells[-1][1] > high:
                return cells
            k += 1
        cells.append((N_LARGEST, math.inf))
        return cells

    def a(self, cell: tuple[float, float]) -> np.ndarray:
        """(strips of m, cells of c): a bound on a(m, v, n) anywhere in the (m, c) cell for n in ``cell``."""
        if cell not in self._a:
            self._a[cell] = self._compute_a(*cell)
        return self._a[cell]

    def _compute_a(self, n_low: float, n_high: float) -> np.ndarray:
        z1, z2, zn = (x.astype(np.float32) for x in (self.z1, self.z2, self.zn))
        released = n_high + self.zn >= 2  # else no value is released for any n of the cell: no miss
        if self.public is not None:
            inverse = np.float32(1.0 / self.public)
        else:
            inverse = np.where(released, 1.0 / np.maximum(n_low + self.zn, 2.0), 0.0).astype(np.float32)
        a = np.empty((len(self.m_edges) - 1, len(self.c_edges) - 1))
        base = z2[None, :] + self.c_edges.astype(np.float32)[:, None] * zn[None, :]  # (C nodes, draws): Z2 + c Zn
        level = 1.0 - SHARES["F"] * (1.0 - self.confidence)

        def row(m: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # L at one row of nodes: pairwise max, min
            nodes = base - np.float32(2.0 * m) * z1[None, :]
            return np.maximum(nodes[:-1], nodes[1:]), np.minimum(nodes[:-1], nodes[1:]), (z1 - np.float32(m) * zn) ** 2

        below = row(self.m_edges[0])
        for i in range(len(a)):
            above = row(self.m_edges[i + 1])
            bound = np.maximum(np.maximum(below[0], above[0]),
                               np.maximum(below[2], above[2]) * inverse - np.minimum(below[1], above[1]))
            if not released.all():
                bound[:, ~released] = 0.0
            a[i] = _upper_point(bound, level) * (1.0 + 1e-5)  # float32's rounding, far below this, is covered
            below = above
        return a


def _upper_point(values: np.ndarray, probability: float) -> np.ndarray:
    """Along the last axis, the ``probability`` point of simulated values, raised by one standard error of the
    simulated probability and one draw, so that the simulation's own error does not understate it."""
    draws = values.shape[-1]
    raised = probability + math.sqrt(probability * (1.0 - probability) / draws)
    index = min(draws - 1, math.ceil(raised * draws))
    return np.partition(values, index, axis=-1)[..., index]


PREVIEW = {"draws": 8000, "m_cells": 8, "c_cells": 12}  # a preview redraws on every slider move: coarser cells


@lru_cache(maxsize=64)
def moment_lattice(sum_noise: tuple[str, float, float], square_noise: tuple[str, float, float],
                   count: tuple[str, float] | float, reach: float, confidence: float,
                   draws: int = TABLE_DRAWS, m_cells: int | None = None, c_cells: int = C_CELLS) -> MomentLattice:
    """The lattice for noises given as (kind, scale, unit) for S1 and S2 and (kind, scale) for the count, or
    the public count itself. Public: the noises' distributions, the bounds and the confidence. Coarser cells
    (``PREVIEW``) give larger bounds: a preview on them states at least what a release on the fine ones does,
    up to the simulation's error (0.3 percentage points of probability)."""
    rng = simulation_rng()
    public = None if isinstance(count, tuple) else float(count)
    z1 = simulated_noise(sum_noise[0], sum_noise[1], draws, rng) * sum_noise[2]
    z2 = simulated_noise(square_noise[0], square_noise[1], draws, rng) * square_noise[2]
    zn = np.zeros(draws) if public is not None else simulated_noise(count[0], count[1], draws, rng)
    miss = 1.0 - confidence
    count_bound = 0.0 if public is not None else float(_upper_point(np.abs(zn), 1.0 - SHARES["count"] * miss))
    m_edges = np.linspace(0.0, reach, (m_cells or (M_CELLS if public is None else M_CELLS_PUBLIC)) + 1)
    c_edges = np.linspace(-2.0 * reach * reach, reach * reach, (1 if public is not None else c_cells) + 1)
    q = np.empty(len(m_edges) - 1)
    level = 1.0 - SHARES["Q"] * miss
    q_below = (z1 - m_edges[0] * zn) ** 2
    for i in range(len(q)):
        q_above = (z1 - m_edges[i + 1] * zn) ** 2
        q[i] = _upper_point(np.maximum(q_below, q_above), level)
        q_below = q_above
    return MomentLattice(reach, z1, z2, zn, confidence, public, count_bound, m_edges, c_edges, q)


def _strips(lattice: MomentLattice) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The strips of m over both signs: their ends, and q."""
    m_low = np.concatenate([lattice.m_edges[:-1], -lattice.m_edges[1:]])
    m_high = np.concatenate([lattice.m_edges[1:], -lattice.m_edges[:-1]])
    return m_low, m_high, np.concatenate([lattice.q, lattice.q])


def _variance_ranges(lattice: MomentLattice, m_low, m_high, n_low: float):
    """The variances each cell allows: v = m² - c, within [0, n(R² - m²)/(n - 1)] for n >= ``n_low``."""
    c_low, c_high = lattice.c_edges[:-1], lattice.c_edges[1:]
    square_low = np.where((m_low <= 0) & (m_high >= 0), 0.0, np.minimum(m_low ** 2, m_high ** 2))
    square_high = np.maximum(m_low ** 2, m_high ** 2)
    factor = n_low / (n_low - 1.0) if math.isfinite(n_low) else 1.0
    v_low = np.maximum(square_low[:, None] - c_high[None, :], 0.0)
    v_high = np.minimum(square_high[:, None] - c_low[None, :], factor * (lattice.reach ** 2 - square_low[:, None]))
    return v_low, v_high


def released_halfwidth(lattice: MomentLattice, first: float, second: float, size: float, released: float,
                       root: bool) -> float:
    """The stated bound: the largest |released - v| (|released - √v| with ``root``, released then a standard
    deviation) over the variances v of the confidence set C (module docstring), from the released sums
    ``first`` (S̃1) and ``second`` (S̃2) and count ``size`` (ñ >= 2). Post-processing of released values only."""
    estimate = (second - first * first / size) / (size - 1.0)  # ĝ, before clamping
    mean = first / size
    m_low, m_high, q = _strips(lattice)
    reach = np.sqrt(q) / size
    m_from, m_to = np.maximum(m_low, mean - reach), np.minimum(m_high, mean + reach)
    possible = m_from <= m_to
    point = math.sqrt(max(released, 0.0)) if root else released
    best, fallback = -math.inf, math.inf
    for n_low, n_high in lattice.n_cells(size - lattice.count_bound, size + lattice.count_bound):
        a = lattice.a((n_low, n_high))
        width = np.concatenate([a, a]) / (size - 1.0)
        v_low, v_high = _variance_ranges(lattice, np.where(possible, m_from, m_low),
                                         np.where(possible, m_to, m_high), n_low)
        v_from, v_to = np.maximum(v_low, estimate - width), np.minimum(v_high, estimate + width)
        inside = possible[:, None] & (v_from <= v_to)
        if inside.any():
            ends = (np.sqrt(np.maximum(v_from, 0.0)), np.sqrt(np.maximum(v_to, 0.0))) if root else (v_from, v_to)
            distance = np.maximum(np.abs(point - ends[0]), np.abs(point - ends[1]))
            best = max(best, float(distance[inside].max()))
        fallback = min(fallback, float(width[v_low <= v_high].min(initial=math.inf)))
    if best == -math.inf:  # no (m, v, n) fits the released values: A failed, and any statement is as good
        return fallback if math.isfinite(fallback) else 0.0
    return best


def planned_halfwidth(lattice: MomentLattice, size: float) -> float:
    """The most any release at ñ = ``size`` can state for a variance: the largest a/(ñ - 1) over the cells that
    hold a possible (m, v, n), and never more than the largest possible variance (a released value lies in
    [0, R²], the truth in [0, n R²/(n - 1)]) (previews and accuracy targets: a release at that size never
    states more)."""
    m_low, m_high, _ = _strips(lattice)
    most = 0.0
    for n_low, n_high in lattice.n_cells(size - lattice.count_bound, size + lattice.count_bound):
        a = lattice.a((n_low, n_high))
        v_low, v_high = _variance_ranges(lattice, m_low, m_high, n_low)
        width = float(np.concatenate([a, a])[v_low <= v_high].max(initial=0.0)) / (size - 1.0)
        most = max(most, min(width, float(v_high.max())))
    return most
