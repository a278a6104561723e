"""Cross-tabulations that add up: a table fitted jointly with its released margins and total.

Offices publish a cross-tabulation with its margins and grand total, and readers add them up.
Released separately, each with its own noise, they do not agree. Here the table's cells x are
chosen to fit every released measurement at once, each weighted by its noise's variance
(generalised least squares, as in Hay, Rastogi, Miklau & Suciu 2010, "Boosting the accuracy of
differentially private histograms through consistency", and the US Census Bureau's TopDown):

    minimise  Σ over measurements m  ‖aggregate_m(x) − y_m‖² / v_m   subject to  x ≥ 0,

where a measurement is the table itself, the histogram of one of its columns (a margin) or
the count of rows (the total). The margins and the total are then the sums of the fitted
cells, so everything agrees and nothing is negative. It reads released values only: it is
post-processing and costs no ε.

The fit is solved by conjugate gradients on the normal equations, which need only sums over
the table's axes and their broadcasts, so a table of a million cells is fitted in memory
linear in its size. Non-negativity: cells that come out negative are fixed at 0 and the rest
refitted, and a fixed cell whose gradient says it should grow is freed again, until neither
happens (the Lawson–Hanson conditions for the non-negative least-squares optimum), within
``MAX_ROUNDS`` rounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MAX_ROUNDS = 50
_CG_STEPS = 2000


@dataclass(frozen=True)
class Measurement:
    """One released statistic in the fit: the table's axes it keeps (all of them: the table; one: a
    margin; none: the total), its raw noisy values in that shape, and its noise's variance."""

    keeps: tuple[int, ...]
    values: np.ndarray
    variance: float


def consistent_table(shape: tuple[int, ...], measurements: list[Measurement]) -> np.ndarray:
    """The non-negative table that best fits ``measurements`` by variance-weighted least squares."""
    axes = tuple(range(len(shape)))

    def aggregate(x: np.ndarray, keeps: tuple[int, ...]) -> np.ndarray:
        return x.sum(axis=tuple(a for a in axes if a not in keeps))

    def spread(u: np.ndarray, keeps: tuple[int, ...]) -> np.ndarray:
        """The adjoint of ``aggregate``: each kept value copied over the summed axes."""
        expanded = np.asarray(u, dtype=float).reshape([shape[a] if a in keeps else 1 for a in axes])
        return np.broadcast_to(expanded, shape)

    def normal(x: np.ndarray) -> np.ndarray:
        return sum(spread(aggregate(x, m.keeps), m.keeps) / m.variance for m in measurements)

    target = sum(spread(m.values, m.keeps) / m.variance for m in measurements)
    free = np.ones(shape, dtype=bool)
    x = np.zeros(shape)
    for _ in range(MAX_ROUNDS):
        x = _solve(normal, target, free, x)
        negative = free & (x < 0)
        if negative.any():
            free &= ~negative
            x[~free] = 0.0
            continue
        gradient = normal(x) - target  # at the optimum a fixed cell's gradient is >= 0 (growing it would not help)
        wants_to_grow = ~free & (gradient < -1e-9 * max(1.0, float(np.abs(target).max())))
        if not wants_to_grow.any():
            break
        free |= wants_to_grow
    return np.maximum(x, 0.0)


def _solve(normal, target: np.ndarray, free: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Conjugate gradients for normal(x) = target on the free cells (the others held at 0)."""
    x = np.where(free, start, 0.0)
    residual = np.where(free, target - normal(x), 0.0)
    direction = residual.copy()
    size = float(np.sum(residual * residual))
    stop = 1e-24 * max(1.0, float(np.sum(np.where(free, target, 0.0) ** 2)))
    for _ in range(_CG_STEPS):
        if size <= stop:
            break
        step_image = np.where(free, normal(direction), 0.0)
        alpha = size / float(np.sum(direction * step_image))
        x = x + alpha * direction
        residual = residual - alpha * step_image
        new_size = float(np.sum(residual * residual))
        direction = residual + (new_size / size) * direction
        size = new_size
    return x
