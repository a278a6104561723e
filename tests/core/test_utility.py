"""Utility: the stated 95% error bound holds for every statistic and mechanism.

Each case releases the statistic 4,000 times from its exact answers (the real
calibration, OpenDP sampling and estimation code) and counts how often the released value
lies within the stated bound of the exact value. A correct bound covers at least 95%;
the test fails below 93.5%, which a correct bound does with probability below 1e-5
(normal approximation, 4.3 standard errors). For Laplace counts, whose bound is exact up
to the integer step, coverage above 97% would mean a needlessly loose bound.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.io import Table
from workbench.core.mechanisms import MechanismKind
from workbench.core.plan import Budget, PlannedStatistic
from workbench.core.prepare import prepare
from workbench.core.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    Neighbouring,
    NumericColumn,
    PrivacyUnit,
    Schema,
)
from workbench.core.statistics import Count, Histogram, Mean, StandardDeviation, Sum, SumGrid, Variance

REPEATS = 4000
pytestmark = pytest.mark.statistical

rng = np.random.default_rng(7)  # synthetic test data only; no noise is drawn with numpy
FRAME = pd.DataFrame(
    {
        "pid": np.repeat(np.arange(400), 3),
        "x": rng.uniform(-20, 120, 1200).round(2),
        "c": rng.choice(["a", "b", "c", "d"], 1200),
    }
)
TABLE = Table(frame=FRAME, source=Path("utility.csv"), file_format="text")


def schema(neighbouring: Neighbouring, k: int) -> Schema:
    return Schema(
        columns=(
            IdentifierColumn("pid"),
            NumericColumn("x", lower=0, upper=100, missing=MissingPolicy(MissingAction.IMPUTE, 50.0)),
            CategoricalColumn("c", ("a", "b", "c")),
        ),
        unit=PrivacyUnit("pid", k) if k > 1 else PrivacyUnit(),
        neighbouring=neighbouring,
        public_size=len(FRAME) if neighbouring is Neighbouring.SUBSTITUTE and k == 1 else 400,  # one row per person
    )


def truth(statistic, exact, s: Schema) -> np.ndarray:
    grid = SumGrid(0.0, 100.0)
    if isinstance(statistic, Variance):  # also StandardDeviation
        _, squares, _ = statistic._grids(s)
        count = np.array(exact[2], dtype=float) if len(exact) > 2 else float(s.public_size)
        first = np.array(exact[0], dtype=float) * grid.unit
        second = np.array(exact[1], dtype=float) * squares.unit
        return statistic._finish(statistic._from_moments(first, second, count, squares.upper))
    if isinstance(statistic, Sum):
        return np.array(exact[0], dtype=float) * grid.unit
    if isinstance(statistic, Mean):
        count = np.array(exact[1], dtype=float) if len(exact) > 1 else s.public_size
        return ((grid.lo + grid.hi) // 2 + np.array(exact[0], dtype=float) / count) * grid.unit
    return np.array(exact[0], dtype=float)  # counts and histograms, one value per group or bin


CASES = [
    (Count(), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 3, 0.1),
    (Count(), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 1, 0.3),
    (Sum("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Sum("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 0.5),
    (Mean("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 3, 1.0),
    (Mean("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 0.5),  # divided by the public size
    (Mean("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 3, 0.5),
    (Histogram("c"), MechanismKind.LAPLACE, Neighbouring.SUBSTITUTE, 1, 0.2),
    (Histogram("c"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Variance("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 1, 1.0),
    (Variance("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 1.0),  # over the public size
    (StandardDeviation("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 2, 2.0),
    (StandardDeviation("x", by="c"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 1, 2.0),
    (Count(by="c"), MechanismKind.LAPLACE, Neighbouring.SUBSTITUTE, 1, 0.3),
    (Sum("x", by="c"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Mean("x", by="c"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 1, 1.0),
    (Histogram("c", by="c"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 1, 0.5),
]


@pytest.mark.parametrize("statistic,mechanism,neighbouring,k,epsilon", CASES, ids=lambda v: str(v))
def test_error_bound_covers_95_percent(statistic, mechanism, neighbouring, k, epsilon):
    s = schema(neighbouring, k)
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    noises = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta)).noises(s)
    exact = statistic.exact(prepare(TABLE, s))
    expected = truth(statistic, exact, s)

    draws = [noise.sample(list(values) * REPEATS).reshape(REPEATS, -1) for noise, values in zip(noises, exact)]
    covered = []
    for r in range(REPEATS):
        cells = statistic.estimate([row[r] for row in draws], noises, s, 0.95)
        released = np.array([c.value for c in cells], dtype=float)
        bounds = np.array([c.error for c in cells], dtype=float)
        covered.extend(np.abs(released - expected) <= bounds)
    coverage = float(np.mean(covered))

    print(f"coverage {coverage:.4f}")
    assert 0.935 <= coverage <= 0.965, coverage  # within 1.5 points of 95%: honest and not loose
