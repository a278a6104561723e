"""Survey weights: a count, histogram, sum, mean or proportion weighted by a column with public
bounds [w_min, w_max], 0 < w_min < w_max, as published survey estimates are.

A weighted statistic sums per-row products (w, or w·x) clamped into public bounds, on the
power-of-two grid of those bounds (``grid``): one person's rows move the sum by at most k
times the largest product, as for any bounded sum, so the sensitivity is derived like every
other (``sensitivity.bounded_sum`` / ``grouped_sum`` on the products' integer bounds). The
error bar covers the DP noise only, never the sampling error of the survey design.
"""

from __future__ import annotations

from workbench.core.data import NumericColumn, Schema
from workbench.core.errors import Place, SchemaError
from workbench.core.statistics.base import weight_spec
from workbench.core.statistics.grid import SumGrid, grid_of, summing_grid

WEIGHTED_TYPES = ("count", "histogram", "sum", "mean", "proportion")


# the most that rounding to the weights' grid may move the smallest weight, relative to it: the grid's step is set by
# the largest weight (2^-32 of its power of two), so bounds far apart round the smallest weights coarsely, and past
# half a step below w_min the error bounds that state the rounding (``relative_weight_rounding``) went negative
WEIGHT_ROUNDING = 1e-3


def weight_grid(schema: Schema, weight: str, label: str) -> SumGrid:
    """The grid on which weights are summed exactly (a weighted count), with a step that is not zero (``summing_grid``)
    and fine enough for the smallest weight (``WEIGHT_ROUNDING``)."""
    spec = weight_spec(schema, weight, label)
    grid = summing_grid(grid_of(spec), f"the weights in '{weight}'", fine=False)
    assert spec.lower is not None and spec.upper is not None
    if grid.rounding > WEIGHT_ROUNDING * float(spec.lower):
        raise SchemaError(
            f"The bounds of the weights in '{weight}', [{spec.lower:g}, {spec.upper:g}], are too far apart: weights "
            f"are summed exactly on a grid whose step, {grid.unit:.3g}, is set by the largest weight, and rounding to "
            f"it would move the smallest weight by up to {grid.rounding / float(spec.lower):.3g} of itself (at most "
            f"{WEIGHT_ROUNDING:g} is accepted). Raise the lower bound (a smaller weight is then counted at it) or "
            "lower the upper bound: the largest weight may be about four million times the smallest.",
            place=Place("columns", "bounds", weight),
        )
    return grid


def product_grid(lower: float, upper: float, weight: NumericColumn) -> SumGrid:
    """The grid of w·x for x in [lower, upper] and w in the weight's bounds (w > 0): its extremes are at the corners,
    in floating point too (a rounded product is monotone in each factor of fixed sign), whatever the signs of the
    bounds: all four corners, so that a row's w_min·x is inside it even when x's bounds have one sign."""
    assert weight.lower is not None and weight.upper is not None
    corners = [float(w) * x for w in (weight.lower, weight.upper) for x in (lower, upper)]
    return SumGrid(min(corners), max(corners))


def relative_weight_rounding(schema: Schema, weight: str, label: str) -> float:
    """The most that rounding each weight to its grid moves a sum of weights, relative to the rounded sum: each
    weight moves by at most half a step u/2, so the sum of n weights by n·u/2 <= r·W with r = u / (2 w_min) and W
    the true sum, and W <= W̃ / (1 - r) (issue 41, 6). A share of two such sums moves by at most twice this."""
    spec = weight_spec(schema, weight, label)
    assert spec.lower is not None
    grid = weight_grid(schema, weight, label)
    return grid.rounding / (float(spec.lower) - grid.rounding)


def weighted_rounding(values: SumGrid, weights: SumGrid, w_min: float, reach: float) -> float:
    """The most a weighted mean moves when each w·(x - c) is put on ``values``' grid and each weight on
    ``weights``': with |x - c| <= ``reach``, numerator errors below one step each (half a step of rounding,
    and under 2^-20 of a step of floating-point error in w·(x - c)) and weights' below half a step, the
    ratio moves by at most (u_S + reach·u_W / 2) / (w_min - u_W / 2) (issue 41, 6)."""
    return (values.unit + reach * weights.rounding) / (w_min - weights.rounding)


def weighted_words(weight: str | None) -> str:
    return f" weighted by {weight}" if weight else ""


FIXED_WEIGHTS_WORDS = (
    "The guarantee takes each row's weight to depend on that row alone: design weights, or weights taken as given. "
    "Weights adjusted on the sample itself (for non-response, post-stratification, calibration or raking) depend on "
    "other respondents, so adding or removing one person can change the weights of others, which the stated ε does "
    "not cover: release with the design weights, or count the adjustment's own dependence on the data separately."
)

SAMPLING_ERROR_WORDS = (
    "A weighted estimate's error bar covers the differential-privacy noise only, not the survey's sampling error. "
    "The two are independent: with a design-based standard error SE (from the survey's own variance estimation) "
    "and the DP error bound t at 95%, the total standard error is √(SE² + (t / 1.96)²), and a 95% interval for the "
    "population value is ± 1.96 times that."
)
