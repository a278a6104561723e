"""Every released cell carries its noise coefficient of variation and a three-level flag (issue 21, 6)."""

import csv
import json
import math

import pytest

from workbench.cli import main
from workbench.core.errors import PlanError
from workbench.core.release import COUNTING, Flag, ReleasePlan, ReliabilityRule, expected_error, reliable_from
from workbench.core.release.reliability import flagged, noise_cv, smallest_reliable_value
from workbench.core.statistics import Cell

Z95 = 1.959963984540054


def test_the_cv_is_the_error_bound_read_as_a_standard_error_over_the_value():
    assert noise_cv(100.0, 10 * Z95, 0.95) == pytest.approx(0.10)
    assert noise_cv(-50.0, 10 * Z95, 0.95) == pytest.approx(0.20)  # of the magnitude
    assert noise_cv(0.0, 3.0, 0.95) == math.inf
    assert noise_cv(None, 3.0, 0.95) is None and noise_cv(3.0, None, 0.95) is None
    assert noise_cv(100.0, 10 * 1.6448536269514722, 0.90) == pytest.approx(0.10)  # ACS: SE = MOE / 1.645


@pytest.mark.parametrize(("cv", "flag"), [
    (0.0, Flag.RELIABLE), (0.165, Flag.RELIABLE), (0.1651, Flag.CAUTION), (0.333, Flag.CAUTION),
    (0.3331, Flag.SUPPRESS), (math.inf, Flag.SUPPRESS),
])
def test_statistics_canada_bands_are_the_default(cv, flag):
    assert ReliabilityRule().flag(cv) is flag


def test_a_cell_gets_its_cv_and_flag_and_a_quantile_or_an_empty_cell_none():
    rule = ReliabilityRule()
    cell = flagged(Cell("North", 1000.0, 0.25 * 1000 * Z95), rule, 0.95)
    assert cell.cv == pytest.approx(0.25) and cell.flag == "use with caution"
    assert flagged(Cell("median", 40.0, 12.0, error_unit="ranks"), rule, 0.95).flag == ""
    assert flagged(Cell("empty", None, None, "no rows"), rule, 0.95).flag == ""
    # an error bar wider than the whole range is too unreliable whatever the CV says
    wide = flagged(Cell("share", 0.9, 0.01, reliable=False), rule, 0.95)
    assert wide.flag == "too unreliable to publish"


def test_the_thresholds_are_public_plan_settings_checked_with_a_message(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    assert ReleasePlan.from_json(data).reliability == ReliabilityRule()
    assert "reliability" not in ReleasePlan.from_json(data).to_json()  # the default is not written
    data["reliability"] = {"caution_above": 0.12, "suppress_above": 0.4}  # the ACS's bands
    plan = ReleasePlan.from_json(data)
    assert plan.reliability == ReliabilityRule(0.12, 0.4)
    assert ReleasePlan.from_json(plan.to_json()) == plan
    for bad in ({"caution_above": 0.4, "suppress_above": 0.2}, {"caution_above": True, "suppress_above": 0.4},
                {"caution_above": 0.1, "suppress_above": math.inf}, {"cv": 0.1}, [0.1, 0.3], {"caution_above": -0.1}):
        data["reliability"] = bad
        with pytest.raises(PlanError, match="reliability|thresholds"):
            ReleasePlan.from_json(data)


def test_the_planned_size_for_a_reliable_count_is_where_the_flag_turns(sample_plan_path):
    plan = ReleasePlan.load(sample_plan_path)
    rule = plan.reliability
    for planned in plan.statistics:
        error = expected_error(planned, plan.schema, plan.dataset.size_estimate, plan.confidence)
        smallest = reliable_from(planned, error, rule, plan.confidence)
        assert smallest is not None
        if planned.statistic.type_name in COUNTING:  # whole rows: the first count whose cell is reliable
            assert flagged(Cell("", smallest, error), rule, plan.confidence).flag == "reliable"
            assert flagged(Cell("", smallest - 1, error), rule, plan.confidence).flag == "use with caution"
        else:
            assert smallest == pytest.approx(smallest_reliable_value(error, rule, plan.confidence))


def test_a_release_states_each_cell_s_cv_and_flag_everywhere(sample_path, sample_plan_path, tmp_path, capsys):
    from importlib import resources

    import jsonschema

    from workbench.core.release import Release
    from workbench.core.report import write_report

    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out),
                 "--dataset-budget", "10", "1e-6"]) == 0
    assert "CV: the noise's coefficient of variation. Above 16.5%" in capsys.readouterr().out
    data = json.loads((out / "results.json").read_text())
    schema = json.loads(resources.files("workbench").joinpath("resources/results.schema.json").read_text())
    jsonschema.validate(data, schema)
    assert data["reliability"] == {"caution_above": 0.165, "suppress_above": 0.333}
    cells = [c for s in data["statistics"] for c in s["cells"]]
    assert all(c["flag"] in {f.value for f in Flag} for c in cells)
    other = [c for s in data["statistics"] if s["type"] == "histogram" for c in s["cells"] if c["label"] == "(other)"]
    assert other and all(c["flag"] == "too unreliable to publish" for c in other if c["value"] == 0)
    release = Release.from_json(data)
    assert Release.from_json(release.to_json()) == release  # an infinite CV is written as null and read back
    rows = list(csv.DictReader((out / "results.csv").open(encoding="utf-8")))
    assert {"cv", "flag"} <= set(rows[0]) and all(r["flag"] for r in rows)
    write_report(release, tmp_path / "report", formats=("html",))
    html = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    # the two empty '(other)' bins are both reliable only if both noises land far out (about 7e-6)
    assert "<th>Reliability</th>" in html and ">suppressed<" in html and "Statistics Canada" in html
    assert "suppressed or unreleased cell is not drawn" in html  # the bar chart agrees with the table
