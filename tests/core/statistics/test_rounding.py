"""Error statements that include their own rounding (issue 41, 6).

Values are summed exactly on a power-of-two grid whose step is set by the bounds' magnitude; a grid with
too few steps between the bounds is refused, and the error bound of a mean, a variance or a standard
deviation adds the most that rounding to the grid can move it. Quantile levels are used exactly as
entered, or refused with a message naming the level and what to enter. Deterministic.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data.io import Table
from workbench.core.data.prepare import prepare
from workbench.core.data.schema import (
    CategoricalColumn,
    MissingAction,
    MissingPolicy,
    Neighbouring,
    NumericColumn,
    Schema,
)
from workbench.core.errors import PlanError, SchemaError
from workbench.core.privacy.mechanisms import MechanismKind, Noise, quantile_fraction
from workbench.core.statistics import statistic_from_json
from workbench.core.statistics.counts import Count, Histogram
from workbench.core.statistics.grid import grid_of
from workbench.core.statistics.moments import Mean, StandardDeviation, Sum, Variance
from workbench.core.statistics.proportions import Proportion
from workbench.core.statistics.quantiles import Quantiles

MIN_GRID_STEPS = 2**20  # grid.MIN_GRID_STEPS (imported in the tests that need it, so the file runs on older code)


def _schema(lower: float, upper: float, weights=(1.0, 100.0), relation=Neighbouring.SUBSTITUTE, size=1000):
    return Schema(
        columns=(NumericColumn("x", lower=lower, upper=upper, missing=MissingPolicy(MissingAction.IMPUTE, lower)),
                 NumericColumn("w", lower=weights[0], upper=weights[1],
                               missing=MissingPolicy(MissingAction.IMPUTE, weights[0])),
                 CategoricalColumn("g", categories=("a", "b"))),
        neighbouring=relation, public_size=size if relation is Neighbouring.SUBSTITUTE else None,
    )


def _prepared(frame: pd.DataFrame, schema: Schema):
    return prepare(Table(frame=frame, source=Path("rounding.csv"), file_format="text"), schema)


@pytest.mark.parametrize("statistic", [Mean("x"), Sum("x"), Variance("x"), StandardDeviation("x"), Mean("x", by="g")])
def test_bounds_too_narrow_for_their_grid_are_refused_with_what_to_enter(statistic):
    """[1e12, 1e12 + 1000] has a grid step of 256: a mean of values all at 1e12 + 127 was released as
    1e12 + 0.03 ± 0.04, 127 from the truth."""
    schema = _schema(1e12, 1e12 + 1000)
    assert grid_of(schema.column("x")).unit == 256
    with pytest.raises(SchemaError) as refused:
        statistic.queries(schema)
    message = str(refused.value)
    assert "[1000000000000, 1000000001000]" in message and "step, 256" in message and "only 3 steps" in message
    assert "relative to a public reference value" in message and "268435456 apart" in message.replace(",", "")


def test_subnormal_bounds_are_refused_with_a_message_not_a_crash():
    """Bounds below 2^-1042 gave a grid step of 0 and a ZeroDivisionError (the fuzz found it)."""
    for statistic in (Sum("x"), Mean("x"), Variance("x"), Sum("x", weighted_by="w")):
        with pytest.raises(SchemaError, match="so close to zero"):
            statistic.queries(_schema(0.0, 5e-324))
    with pytest.raises(SchemaError, match="the weights in 'w'"):
        Count(weighted_by="w").queries(_schema(0.0, 1.0, weights=(1e-323, 2e-323)))


def test_the_least_accepted_grid_has_the_stated_number_of_steps():
    from workbench.core.statistics import grid

    assert grid.MIN_GRID_STEPS == MIN_GRID_STEPS
    lower = 2.0**40
    unit = 2.0**(41 - 32)
    Mean("x").queries(_schema(lower, lower + MIN_GRID_STEPS * unit))  # exactly 2^20 steps: accepted
    with pytest.raises(SchemaError):
        Mean("x").queries(_schema(lower, lower + (MIN_GRID_STEPS - 1) * unit))


def _noiseless(queries) -> list[Noise]:
    """Noise of scale 0 for each query: the released value is the exact value on the grid, so what is left
    between it and the truth is the rounding, which the stated bound must hold."""
    return [Noise(MechanismKind.LAPLACE, q.sensitivity.l1, 0.0, 1.0, 0.0) for q in queries]


ROUNDING_LOWER = 2.0**40  # the grid step is 512 and the bounds span exactly 2^20 of them
ROUNDING_UPPER = ROUNDING_LOWER + MIN_GRID_STEPS * 512.0


@pytest.mark.parametrize("size", [1000, None])  # the public size, or a noisy count
def test_a_mean_states_the_rounding_of_its_grid(size):
    """Every value 255 above a grid point is rounded down by 255, just under half a step: the noise-free mean
    is 255 from the truth, and the stated error must hold that (before issue 41, 6 it stated 0)."""
    relation = Neighbouring.SUBSTITUTE if size else Neighbouring.ADD_REMOVE
    schema = _schema(ROUNDING_LOWER, ROUNDING_UPPER, relation=relation, size=size)
    statistic = Mean("x")
    frame = pd.DataFrame({"x": [ROUNDING_LOWER + 255.0] * 1000, "w": 1.0, "g": "a"})
    queries = statistic.queries(schema)
    noises = _noiseless(queries)
    exact = statistic.exact(_prepared(frame, schema))
    (cell,) = statistic.estimate([list(e) for e in exact], noises, schema, 0.95)
    truth = ROUNDING_LOWER + 255.0
    assert abs(cell.value - truth) == 255.0
    assert abs(cell.value - truth) <= cell.error <= 256.0 * 1.0001
    assert statistic.error_bound(noises, schema, 1000.0, 0.95) >= 256.0  # a preview states it too


@pytest.mark.parametrize("weights", [(1.0, 100.0), (0.5, 2.0), (3.0, 3e6)])
def test_a_weighted_mean_states_the_rounding_of_its_grids(weights):
    rng = np.random.default_rng(6)
    lower, upper = 1e6 + 0.5, 1e6 + 1000.25
    schema = _schema(lower, upper, weights=weights, relation=Neighbouring.ADD_REMOVE)
    statistic = Mean("x", weighted_by="w")
    frame = pd.DataFrame({"x": rng.uniform(lower, upper, 500), "w": rng.uniform(*weights, 500), "g": "a"})
    frame.loc[:100, "x"] = upper
    frame.loc[:100, "w"] = weights[1]
    noises = _noiseless(statistic.queries(schema))
    exact = statistic.exact(_prepared(frame, schema))
    (cell,) = statistic.estimate([list(e) for e in exact], noises, schema, 0.95)
    truth = float(np.average(frame["x"], weights=frame["w"]))
    assert abs(cell.value - truth) <= cell.error
    # and it is small: about 2^-30 of the width times the weights' ratio (the numerator's grid is set by w_max)
    assert cell.error < (upper - lower) * weights[1] / weights[0] * 2.0**-29



@pytest.mark.parametrize("weights", [(0.001, 1e7), (1e-6, 1e4), (3.0, 3e9)])
@pytest.mark.parametrize("statistic", [Count(weighted_by="w"), Histogram("g", weighted_by="w"),
                                       Mean("x", weighted_by="w"), Proportion("g", weighted_by="w")])
def test_weights_too_far_apart_for_their_grid_are_refused_with_what_to_enter(statistic, weights):
    """Weights are summed on a grid set by the largest: bounds [0.001, 1e7] rounded the smallest weight to no step,
    and the error bars stated were negative (a weighted count 0.5 ± -31,430,634). Such bounds are refused by every
    statistic that sums weights (a weighted sum adds up products on a grid of their own, checked as a sum's)."""
    with pytest.raises(SchemaError, match="too far apart.*Raise the lower bound"):
        statistic.queries(_schema(0.0, 1.0, weights=weights))


@pytest.mark.parametrize("weights", [(1.0, 1e6), (0.5, 1e6), (1e-3, 2e3)])
def test_weights_a_million_times_apart_are_accepted_and_their_rounding_stays_under_a_thousandth(weights):
    from workbench.core.statistics.weights import relative_weight_rounding

    schema = _schema(0.0, 1.0, weights=weights)
    Count(weighted_by="w").queries(schema)
    assert 0 < relative_weight_rounding(schema, "w", "count") < 1.01e-3
@pytest.mark.parametrize("cls", [Variance, StandardDeviation])
def test_a_variance_and_a_standard_deviation_state_the_rounding_of_their_grids(cls):
    """Low values rounded down by 255 and high ones up by 255 (just under half of a 512 step): the rounded
    variance is far from the true one, and the stated bound holds it."""
    schema = _schema(ROUNDING_LOWER, ROUNDING_UPPER, size=4)
    statistic = cls("x")
    frame = pd.DataFrame({"x": [ROUNDING_LOWER + 255.0, ROUNDING_LOWER + 2.0**28 + 257.0] * 2, "w": 1.0, "g": "a"})
    noises = _noiseless(statistic.queries(schema))
    exact = statistic.exact(_prepared(frame, schema))
    (cell,) = statistic.estimate([list(e) for e in exact], noises, schema, 0.95)
    truth = float(np.var(frame["x"] - ROUNDING_LOWER, ddof=1))
    truth = truth if cls is Variance else math.sqrt(truth)
    assert abs(cell.value - truth) > (1e10 if cls is Variance else 100)  # the rounding is visible
    assert abs(cell.value - truth) <= cell.error


def test_rounding_adds_next_to_nothing_on_ordinary_bounds():
    schema = _schema(0.0, 100.0, relation=Neighbouring.ADD_REMOVE)
    noises = _noiseless(Mean("x").queries(schema))
    assert Mean("x").error_bound(noises, schema, 1000.0, 0.95) <= 100 * 2.0**-31
    assert Variance("x").error_bound(_noiseless(Variance("x").queries(schema)), schema, 1000.0, 0.95) < 1e-4


# ---------------------------------------------------------------- quantile levels


def test_every_level_with_four_decimals_is_used_exactly():
    """OpenDP truncates α · 10,000: for 573 of these levels (0.0003 among them) the product falls just below the
    whole number and OpenDP computed with the level below (0.0002). Each is now handed to OpenDP so that its
    fraction is the level's own."""
    for k in range(1, 10_000):
        numerator, denominator = quantile_fraction(k / 10_000)
        assert numerator * 10_000 == k * denominator, k
    assert quantile_fraction(0.0003) == (3, 10_000)
    assert quantile_fraction(0.5) == (1, 2) and quantile_fraction(2**-10) == (1, 1024)


def test_the_scores_are_opendps_own_at_the_level_handed_to_it():
    from workbench.core.privacy import opendp_api as dp
    from workbench.core.privacy.mechanisms import opendp_level, quantile_scores

    values = np.round(np.random.default_rng(3).lognormal(3, 1, 700), 1)
    candidates = list(np.linspace(0, 100, 201))
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    ordered, points = np.sort(values), np.array(candidates)
    for alpha in (0.0003, 0.0006, 0.9977, 0.25):
        theirs = dp.t.make_quantile_score_candidates(domain, dp.symmetric_distance(), candidates, opendp_level(alpha))
        ours = quantile_scores(np.searchsorted(ordered, points, "left"), np.searchsorted(ordered, points, "right"),
                               len(values), alpha)
        assert ours.tolist() == list(theirs(values))


@pytest.mark.parametrize("level,used,such", [
    (0.123456789, "the 0.1234 quantile", "0.1234 or 0.1235"),
    (1e-6, "its smallest value", "0.0001"),
    (0.99999, "the 0.9999 quantile", "0.9999"),
    (1 / 3, "the 0.3333 quantile", "0.3333 or 0.3334"),
])
def test_a_level_finer_than_opendp_computes_with_is_refused_by_plan_validation(level, used, such):
    """0.123456789 was released as the 0.1234 quantile, "within 1 rank" of a position 57 ranks away on 100,000
    rows; 1e-6 became 0, the smallest value."""
    from workbench.core.privacy.mechanisms import quantile_level_fraction

    schema = _schema(0.0, 100.0)
    assert quantile_level_fraction(level) is None
    with pytest.raises(PlanError) as refused:
        Quantiles("x", levels=(0.5, level)).queries(schema)
    message = str(refused.value)
    assert f"{level:.10g}" in message and used in message and f"such as {such}." in message
    plan_statistic = statistic_from_json({"type": "quantiles", "column": "x", "levels": [level]}, "statistic 1")
    with pytest.raises(PlanError):
        plan_statistic.queries(schema)


def test_levels_computed_in_floating_point_mean_their_ten_thousandths():
    """A bounds search at 98% coverage asks for the (1 - 0.98) / 2 = 0.010000000000000009 quantile: it is the
    1st percentile, used exactly, not refused."""
    from workbench.core.statistics.quantiles import level_problem

    statistic = Quantiles("x", levels=((1 - 0.98) / 2, 1 - (1 - 0.98) / 2))
    assert statistic.levels == (0.01, 0.99)
    statistic.queries(_schema(0.0, 100.0))
    assert level_problem(0.25) is None and level_problem(2**-12) is None and level_problem(0.0001) is None
    assert "strictly between 0 and 1" in level_problem(1.0)


def test_weighted_counts_and_shares_state_the_rounding_of_the_weights():
    """Weights rounded to their grid move a weighted count by at most a relative u / (2 w_min): a count of a
    billion rows at the largest weight keeps it within its stated error (issue 41, 6)."""
    weights = (1.0, 1000.0)
    schema = _schema(0.0, 1.0, weights=weights, relation=Neighbouring.ADD_REMOVE)
    for statistic in (Count(weighted_by="w"), Histogram("g", weighted_by="w"), Proportion("g", weighted_by="w")):
        (query,) = statistic.queries(schema)
        unit = query.unit
        # a billion rows, every weight 1 + 0.49 steps above a grid point: each rounds down by 0.49 steps
        rows = 10**9
        true_total = rows * (1.0 + 0.49 * unit)
        summed = rows * round(1.0 / unit)  # the exact sum of the rounded weights, in steps
        noisy = [[summed, 0, 0]] if statistic.type_name != "count" else [[summed]]
        noises = _noiseless((query,))
        cells = statistic.estimate(noisy, noises, schema, 0.95)
        if statistic.type_name == "proportion":
            assert cells[0].value == 1.0 and cells[0].error > 0
            continue
        assert abs(cells[0].value - true_total) <= cells[0].error
