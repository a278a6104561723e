"""Proportions and percentages (issue 21, 5): shares of released counts, within the table or each group,
with a 95% interval whose coverage is tested on skewed 0/1 codes, a huge and a tiny group."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data.io import Table
from workbench.core.data.prepare import prepare
from workbench.core.data.schema import CategoricalColumn, Neighbouring, NumericColumn, OutsideCategories, Schema
from workbench.core.errors import PlanError
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.plan import Budget, PlannedStatistic
from workbench.core.statistics import statistic_from_json
from workbench.core.statistics.counts import Histogram
from workbench.core.statistics.proportions import Proportion

DROP = OutsideCategories.DROP
rng = np.random.default_rng(21)  # synthetic test data only; no noise is drawn with numpy
ROWS = 6000
REGION = rng.choice(["big", "mid", "small"], ROWS, p=[0.8, 0.18, 0.02]).astype(object)
REGION[:3] = "tiny"  # a group of three rows
FRAME = pd.DataFrame({
    "region": REGION,
    "employed": np.where(rng.random(ROWS) < 0.9, "1", "0"),  # 0/1 codes, skewed
    "tenure": rng.choice(["owner", "renter", "social", "other"], ROWS, p=[0.6, 0.3, 0.09, 0.01]),
    "age": rng.integers(16, 90, ROWS).astype(float),
})
TABLE = Table(FRAME, Path("shares.csv"), "csv")


def schema(neighbouring: Neighbouring = Neighbouring.ADD_REMOVE) -> Schema:
    return Schema((
        CategoricalColumn("region", ("big", "mid", "small", "tiny"), outside=DROP),
        CategoricalColumn("employed", ("0", "1"), outside=DROP),
        CategoricalColumn("tenure", ("owner", "renter", "social", "other"), outside=DROP),
        NumericColumn("age", lower=16, upper=90),
    ), neighbouring=neighbouring, public_size=ROWS if neighbouring is Neighbouring.SUBSTITUTE else None)


def test_shares_add_up_to_one_in_every_group_and_read_like_the_table():
    s = schema()
    statistic = Proportion("employed", by="region")
    assert statistic.label == "proportions of employed by region"
    assert Proportion("employed", by=("region", "tenure"), percent=True).label == (
        "percentages of employed by region and tenure")
    assert statistic.queries(s) == Histogram("employed", by="region").queries(s)  # costs what the histogram costs
    (noise,) = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(1.0)).noises(s)
    (exact,) = statistic.exact(prepare(TABLE, s))
    cells = statistic.estimate([noise.sample(exact)], [noise], s, 0.95)
    assert [c.label for c in cells[:2]] == ["big / 0", "big / 1"]
    for g in range(3):  # the tiny group's noisy total may fall below one row
        assert cells[2 * g].value + cells[2 * g + 1].value == pytest.approx(1.0)
    assert "divided by the noisy total of its group" in statistic.method(s)
    percent = Proportion("employed", percent=True)
    cells = percent.estimate([noise.sample([sum(exact[0::2]), sum(exact[1::2])])], [noise], s, 0.95)
    assert sum(c.value for c in cells) == pytest.approx(100.0) and 85 < cells[1].value < 95
    assert percent.possible_range(s) == (0.0, 100.0)


def test_a_numeric_column_is_shared_out_between_public_edges():
    s = schema()
    statistic = Proportion("age", edges=(18, 65), percent=True)
    assert statistic.label == "percentages of age cut at 18, 65"
    assert statistic_from_json(statistic.to_json(), "Statistic 1") == statistic
    (noise,) = PlannedStatistic(statistic, MechanismKind.GAUSSIAN, Budget(1.0, 1e-6)).noises(s)
    cells = statistic.estimate([noise.sample(statistic.exact(prepare(TABLE, s))[0])], [noise], s, 0.95)
    assert [c.label for c in cells] == ["[16, 18)", "[18, 65)", "[65, 90]"]
    assert cells[1].value == pytest.approx(100 * 47 / 74, abs=3)  # ages 16-89 evenly


def test_an_empty_group_gets_no_share_and_says_why():
    s = schema()
    statistic = Proportion("employed", by="region")
    (noise,) = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(1.0)).noises(s)
    cells = statistic.estimate([[10, 90, 5, 5, 1, 0, -1, 0]], [noise], s, 0.95)
    assert cells[6].value is None and "noisy total of rows is below 1" in cells[6].note
    assert cells[4].value == 1.0 and cells[4].error == 1.0  # one noisy row: the bound is the whole range


def test_the_preview_bound_is_never_smaller_than_a_releases_at_that_size():
    s = schema()
    statistic = Proportion("tenure", by="region")
    (noise,) = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(0.5)).noises(s)
    preview = statistic.error_bound([noise], s, 400.0, 0.95)
    for share in np.linspace(0, 1, 41):
        assert statistic.error_bound([noise], s, 400.0, 0.95, share=float(share)) <= preview
    assert statistic.error_bound([noise], s, 4000.0, 0.95) < preview  # larger groups, smaller errors


def test_plans_refuse_a_percent_that_is_not_true_or_false():
    with pytest.raises(PlanError, match="'percent' is true .* or false"):
        statistic_from_json({"type": "proportion", "column": "employed", "percent": "yes"}, "Statistic 1")
    assert statistic_from_json({"type": "proportion", "column": "employed", "by": ["region", "tenure"],
                                "percent": True}, "Statistic 1") == Proportion("employed", ("region", "tenure"), True)


REPEATS = 4000


@pytest.mark.statistical
@pytest.mark.parametrize("statistic,mechanism,neighbouring,epsilon", [
    (Proportion("employed", by="region"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 0.5),
    (Proportion("tenure", by="region", percent=True), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1.0),
    (Proportion("tenure"), MechanismKind.LAPLACE, Neighbouring.SUBSTITUTE, 0.05),
    (Proportion("employed", by=("region", "tenure")), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 2.0),
], ids=lambda v: str(v))
def test_the_interval_covers_the_true_share_95_percent(statistic, mechanism, neighbouring, epsilon):
    """Released many times from the exact counts (real calibration, OpenDP's noise, the real estimate): the
    true share lies within the stated bound in at least 93.5% of cells (a correct 95% bound falls below that
    with probability under 1e-5), and in at most 97.5% (the bound is not needlessly loose). Cells whose bound
    is the whole range (the tiny group) are counted apart: they cover by construction."""
    s = schema(neighbouring)
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    (noise,) = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta)).noises(s)
    (exact,) = statistic.exact(prepare(TABLE, s))
    bins = len(statistic.counts._bins(s))
    counts = np.array(exact, dtype=float).reshape(-1, bins)
    totals = counts.sum(axis=1, keepdims=True)
    truth = (np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0) * statistic.scale).ravel()
    draws = noise.sample(list(exact) * REPEATS).reshape(REPEATS, -1)
    covered, whole = [], 0
    for r in range(REPEATS):
        cells = statistic.estimate([draws[r]], [noise], s, 0.95)
        for cell, true in zip(cells, truth):
            if cell.value is None or cell.error >= statistic.scale:
                whole += 1
                continue
            clamped = min(max(cell.value, 0.0), statistic.scale)  # the default post-processing
            covered.append(abs(clamped - true) <= cell.error)
    coverage = float(np.mean(covered))
    print(f"coverage {coverage:.4f} over {len(covered)} cells; {whole} with the whole range")
    assert 0.935 <= coverage <= 0.975, coverage
