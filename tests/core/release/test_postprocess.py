"""Post-processing: clamping keeps the error bound, rounding widens it by half a step; both are recorded."""

import json
import math

import numpy as np
import pytest

from workbench.core.data.schema import CategoricalColumn, NumericColumn, PrivacyUnit, Schema
from workbench.core.errors import PlanError
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import ReleasePlan
from workbench.core.release.postprocess import PostProcessing
from workbench.core.release.run import release
from workbench.core.statistics.base import Cell
from workbench.core.statistics.counts import Count, Histogram
from workbench.core.statistics.moments import Mean, Sum

SCHEMA = Schema(
    columns=(NumericColumn("x", lower=10, upper=20), NumericColumn("y", lower=-5, upper=5), CategoricalColumn("c", ("a", "b"))),
    unit=PrivacyUnit(),
)


def test_clamping_moves_values_into_the_possible_range_and_keeps_the_bound():
    cells = (Cell("a", -3.0, 4.0), Cell("b", 7.0, 4.0), Cell("c", None, None, "no value"))
    clamped = PostProcessing(clamp=True).apply(cells, Histogram("c"), SCHEMA)
    assert [c.value for c in clamped] == [0.0, 7.0, None] and [c.error for c in clamped] == [4.0, 4.0, None]
    assert PostProcessing(clamp=True).apply((Cell("", 23.0, 2.0),), Mean("x"), SCHEMA)[0].value == 20.0
    assert Sum("y").possible_range(SCHEMA) == (-math.inf, math.inf)
    assert Sum("x").possible_range(SCHEMA) == (0.0, math.inf)


def test_clamping_never_moves_a_value_away_from_a_truth_in_range():
    rng = np.random.default_rng(3)  # synthetic numbers only; no privacy noise is drawn here
    truth = rng.uniform(0, 5, 2000)
    released = truth + rng.laplace(0, 3, 2000)
    clamped = [c.value for c in PostProcessing(clamp=True).apply(tuple(Cell("", v, 1.0) for v in released), Count(), SCHEMA)]
    assert np.all(np.abs(np.array(clamped) - truth) <= np.abs(released - truth) + 1e-12)
    assert np.mean(clamped) > np.mean(truth)  # the bias the description warns of


def test_rounding_adds_half_a_step_to_the_error_and_says_so():
    (cell,) = PostProcessing(round_to=10).apply((Cell("", 1234.0, 21.0),), Count(), SCHEMA)
    assert (cell.value, cell.error) == (1230.0, 26.0)
    words = PostProcessing(clamp=True, round_to=10).describe(Count(), SCHEMA)
    assert "below 0 raised to 0" in words[0] and "biases" in words[0]
    assert "at most 5" in words[1] and "added to the error bound" in words[1]


def test_rounding_quantiles_is_refused(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [{"type": "quantiles", "column": "age", "epsilon": 0.3, "post_processing": {"round_to": 1}}]
    with pytest.raises(PlanError, match="cannot be rounded"):
        ReleasePlan.from_json(data).validate()
    data["statistics"][0]["post_processing"] = {"round_to": -1}
    with pytest.raises(PlanError, match="positive step"):
        ReleasePlan.from_json(data)


def test_a_release_applies_and_records_the_chosen_post_processing(sample_path, sample_plan_path, tmp_path):
    from workbench.core.data.io import load_table
    from workbench.core.privacy.events import Guarantee

    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [
        {"type": "histogram", "column": "region", "epsilon": 0.05, "post_processing": {"clamp": True, "round_to": 5}},
    ]
    plan = ReleasePlan.from_json(data)
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    result = release(load_table(sample_path), plan, Ledger(tmp_path / "ledger.sqlite"), Guarantee(1.0, 1e-6, "budget"))
    (statistic,) = result.statistics
    assert all(c.value >= 0 and c.value % 5 == 0 for c in statistic.cells)
    assert len(statistic.post_processing) == 2
    assert json.loads(json.dumps(result.to_json()))["statistics"][0]["post_processing"] == list(statistic.post_processing)


def keeping_every_region(plan: dict) -> dict:
    """The sample plan with missing regions imputed, so that the region histogram counts every row."""
    region = next(c for c in plan["schema"]["columns"] if c["name"] == "region")
    region["missing"] = {"action": "impute", "value": "Capital"}
    return plan


def test_a_histogram_made_consistent_sums_to_the_released_count_and_its_bound_holds(sample_path, sample_plan_path, tmp_path):
    from workbench.core.data.io import load_table
    from workbench.core.privacy.events import Guarantee

    data = keeping_every_region(json.loads(sample_plan_path.read_text()))
    data["statistics"] = [
        {"type": "count", "epsilon": 0.3},
        {"type": "histogram", "column": "region", "epsilon": 0.3, "post_processing": {"consistent": True}},
    ]
    plan = ReleasePlan.from_json(data)
    plan.validate()
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    result = release(load_table(sample_path), plan, Ledger(tmp_path / "ledger.sqlite"), Guarantee(1.0, 1e-6, "budget"))
    count, histogram = result.statistics
    assert sum(c.value for c in histogram.cells) == pytest.approx(count.cells[0].value)
    bins = len(histogram.cells)
    plain = histogram.noise[0].scale  # the bound grows a little: the count's noise is shared among the bins
    assert histogram.cells[0].error > 0 and histogram.cells[0].error < 3 * 2 * plain + count.noise[0].scale
    assert "Made consistent" in histogram.post_processing[0] and bins == 9


def test_consistency_simulated_bound_covers_95_percent():
    """The adjusted error e_i + (e_T - sum e_j)/m, drawn independently of the bound's own
    simulation (another seed): the bound's coverage lies within 1.5 points of 95%."""
    from workbench.core.privacy.mechanisms import MechanismKind, calibrate
    from workbench.core.release.postprocess import consistent_with_total

    bin_noise, total_noise = calibrate(MechanismKind.LAPLACE, 1, 0.3), calibrate(MechanismKind.LAPLACE, 1, 0.3)
    m = 5
    (cell, *_) = consistent_with_total(tuple(Cell(str(i), 0.0, 0.0) for i in range(m)), 0.0, bin_noise, total_noise, 0.0, 0.95)
    rng = np.random.default_rng(99)  # test draws, apart from the bound's fixed-seed simulation
    p = -np.expm1(-1 / bin_noise.scale)
    bins = rng.geometric(p, (20000, m)) - rng.geometric(p, (20000, m))
    total = rng.geometric(p, 20000) - rng.geometric(p, 20000)
    errors = bins[:, 0] + (total - bins.sum(axis=1)) / m
    coverage = np.mean(np.abs(errors) <= cell.error)
    assert 0.935 <= coverage <= 0.965, coverage


@pytest.mark.parametrize("change,message", [
    (lambda d: d["statistics"].pop(0), "has no count of rows"),
    (lambda d: d["statistics"][1].update(post_processing={"consistent": True, "clamp": True}), "would break the"),
    (lambda d: d["statistics"][1].update(by="sex"), "a histogram \\(not by group, not weighted\\) is adjusted"),
    (lambda d: d["statistics"][1].update(column="employed"), "leaves some rows out"),
])
def test_unsound_consistency_is_refused(sample_plan_path, change, message):
    data = keeping_every_region(json.loads(sample_plan_path.read_text()))
    data["statistics"] = [
        {"type": "count", "epsilon": 0.3},
        {"type": "histogram", "column": "region", "epsilon": 0.3, "post_processing": {"consistent": True}},
    ]
    change(data)
    with pytest.raises(PlanError, match=message):
        ReleasePlan.from_json(data).validate()
