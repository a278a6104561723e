"""Cross-tabulations that add up (issue 21, 4): the table, its margins and the count fitted jointly by
variance-weighted least squares with no cell below 0; checked against SciPy's bounded least squares, end to
end through a release, and for coverage of the stated bounds after the fit."""

import json

import numpy as np
import pytest
from scipy.optimize import lsq_linear

from workbench.cli import main
from workbench.core.errors import PlanError
from workbench.core.privacy.mechanisms import MechanismKind, calibrate
from workbench.core.release.plan import ReleasePlan
from workbench.core.release.tables import Measurement, consistent_table

BUDGET = ["--dataset-budget", "20", "1e-5"]


def _design(shape, measurements):
    """The measurements as one weighted linear system, for SciPy."""
    cells = int(np.prod(shape))
    rows, targets = [], []
    for m in measurements:
        for index in np.ndindex(*[shape[a] for a in m.keeps]):
            mask = np.ones(shape, dtype=bool)
            for a, i in zip(m.keeps, index):
                taken = np.zeros(shape[a], dtype=bool)
                taken[i] = True
                mask &= taken.reshape([shape[a] if b == a else 1 for b in range(len(shape))])
            rows.append(mask.ravel().astype(float) / np.sqrt(m.variance))
            targets.append(float(np.asarray(m.values)[index]) / np.sqrt(m.variance))
    return np.array(rows).reshape(-1, cells), np.array(targets)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(4, 3), (3, 2, 4)])
def test_the_fit_is_the_non_negative_least_squares_optimum(shape, seed):
    rng = np.random.default_rng(seed)
    truth = rng.poisson(rng.gamma(0.4, 8, shape)).astype(float)  # many small and empty cells
    axes = tuple(range(len(shape)))
    measurements = [Measurement(axes, truth + rng.laplace(0, 3, shape), 18.0)]
    for a in axes:
        measurements.append(Measurement((a,), truth.sum(axis=tuple(b for b in axes if b != a))
                                        + rng.laplace(0, 2, shape[a]), 8.0))
    measurements.append(Measurement((), np.array(truth.sum() + rng.laplace(0, 5)), 50.0))
    fitted = consistent_table(shape, measurements)
    a, b = _design(shape, measurements)
    reference = lsq_linear(a, b, bounds=(0, np.inf), tol=1e-12, max_iter=10_000).x.reshape(shape)
    assert fitted.min() >= 0
    assert np.sum((a @ fitted.ravel() - b) ** 2) <= np.sum((a @ reference.ravel() - b) ** 2) * (1 + 1e-6) + 1e-9
    assert np.allclose(fitted, reference, atol=1e-4)


def test_consistent_measurements_are_left_as_they_are():
    truth = np.array([[3.0, 0.0, 5.0], [1.0, 2.0, 4.0]])
    fitted = consistent_table(truth.shape, [
        Measurement((0, 1), truth, 2.0), Measurement((0,), truth.sum(1), 2.0), Measurement((1,), truth.sum(0), 2.0),
        Measurement((), np.array(truth.sum()), 2.0)])
    assert np.allclose(fitted, truth)


def test_the_variance_of_the_noise_weights_the_fit():
    assert calibrate(MechanismKind.LAPLACE, 1, 0.1).variance == pytest.approx(2 * 10.0**2, rel=0.01)
    gauss = calibrate(MechanismKind.GAUSSIAN, 1.0, 1.0, 1e-6)
    assert gauss.variance == gauss.scale**2


def _table_plan(sample_plan_path, tmp_path, **crosstab):
    plan = json.loads(sample_plan_path.read_text())
    for column in plan["schema"]["columns"]:  # every row in the table and its margins: none left out
        if column["name"] in ("sex", "education"):
            column["missing"] = {"action": "impute", "value": column["categories"][0]}
    plan["statistics"] = [
        {"type": "count", "mechanism": "laplace", "epsilon": 0.2},
        {"type": "histogram", "column": "sex", "mechanism": "laplace", "epsilon": 0.2},
        {"type": "histogram", "column": "education", "mechanism": "laplace", "epsilon": 0.2},
        {"type": "crosstab", "columns": ["sex", "education"], "mechanism": "laplace", "epsilon": 0.2,
         "post_processing": {"clamp": False, "consistent": True}, **crosstab},
    ]
    plan["total_budget"] = {"epsilon": 0.8, "delta": 0}
    path = tmp_path / "table.plan.json"
    path.write_text(json.dumps(plan))
    return path


def test_a_released_table_adds_up_to_its_released_margins_and_count(sample_path, sample_plan_path, tmp_path):
    path = _table_plan(sample_plan_path, tmp_path)
    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(path), "--out", str(out), *BUDGET]) == 0
    count, sex, education, table = json.loads((out / "results.json").read_text())["statistics"]
    cells = np.array([c["value"] for c in table["cells"]]).reshape(len(sex["cells"]), len(education["cells"]))
    assert cells.min() >= 0
    assert np.allclose(cells.sum(axis=1), [c["value"] for c in sex["cells"]])
    assert np.allclose(cells.sum(axis=0), [c["value"] for c in education["cells"]])
    assert cells.sum() == pytest.approx(count["cells"][0]["value"])
    assert any("fitted together" in line for line in sex["post_processing"])
    assert any("least squares" in line for line in table["post_processing"])
    assert all(c["raw_value"] is not None for c in table["cells"])  # the raw noisy values stay beside them


def test_plans_that_cannot_be_made_to_add_up_are_refused(sample_plan_path, tmp_path):
    plan = json.loads(_table_plan(sample_plan_path, tmp_path).read_text())
    plan["statistics"][1]["post_processing"] = {"clamp": False, "consistent": True}
    with pytest.raises(PlanError, match="fitted together with .* neither made consistent on its own nor rounded"):
        ReleasePlan.from_json(plan).validate()
    plan = json.loads(_table_plan(sample_plan_path, tmp_path).read_text())
    plan["statistics"] = plan["statistics"][3:]
    plan["total_budget"]["epsilon"] = 0.2
    with pytest.raises(PlanError, match="releases neither a histogram of its columns nor a noisy count"):
        ReleasePlan.from_json(plan).validate()
    plan = json.loads(_table_plan(sample_plan_path, tmp_path, by="region").read_text())
    with pytest.raises(PlanError, match="cannot be made consistent"):
        ReleasePlan.from_json(plan).validate()


REPEATS = 3000


@pytest.mark.statistical
@pytest.mark.parametrize("mechanism", [MechanismKind.LAPLACE, MechanismKind.GAUSSIAN])
def test_the_stated_bounds_still_cover_after_the_fit(mechanism):
    """A 6 × 4 table of a skewed population (a huge row, empty cells) with both margins and the count, each
    with its own noise: after the fit, every value is within the bound its own noise gave in at least 95% of
    releases (cells, margins and total counted together), and the fitted cells are closer to the truth on
    average than the raw ones."""
    rng = np.random.default_rng(4)
    truth = rng.poisson(np.outer([900, 120, 40, 8, 2, 0.5], [0.5, 0.3, 0.15, 0.05])).astype(float)
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    sensitivity = 2.0 if mechanism is MechanismKind.LAPLACE else 2 ** 0.5
    noise = calibrate(mechanism, sensitivity, 0.5, delta)  # substitute: a histogram's sensitivity
    bound = noise.halfwidth(0.95)
    variance = noise.variance
    parts = [((0, 1), truth), ((0,), truth.sum(1)), ((1,), truth.sum(0)), ((), np.array(truth.sum()))]
    covered, raw_error, fitted_error = [], [], []
    for _ in range(REPEATS):
        measurements = [Measurement(keeps, values + noise.sample(np.rint(values).astype(int).ravel() * 0)
                                    .reshape(np.shape(values)), variance) for keeps, values in parts]
        fitted = consistent_table(truth.shape, measurements)
        for keeps, values in parts:
            summed = fitted.sum(axis=tuple(a for a in (0, 1) if a not in keeps))
            covered.extend(np.ravel(np.abs(summed - values) <= bound))
        raw_error.append(np.abs(measurements[0].values - truth).mean())
        fitted_error.append(np.abs(fitted - truth).mean())
    coverage = float(np.mean(covered))
    print(f"coverage {coverage:.4f}; mean abs. error of cells raw {np.mean(raw_error):.3f}, fitted "
          f"{np.mean(fitted_error):.3f}")
    assert coverage >= 0.95
    assert np.mean(fitted_error) < np.mean(raw_error)
