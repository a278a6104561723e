"""The example plans shipped in resources/sample: they must keep releasing, and the tables plan must
keep showing every kind of table an office publishes (issue 21), since docs/example-report is made
from it."""

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from workbench.cli import main

SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample"
TABLES_PLAN = SAMPLE / "household_survey.tables.plan.json"
FLAGS = {"reliable", "use with caution", "too unreliable to publish"}


def test_the_tables_plan_uses_every_item_offices_publish():
    plan = json.loads(TABLES_PLAN.read_text())
    statistics = plan["statistics"]
    assert any(s["type"] == "quantiles" and s.get("interval") for s in statistics)  # an interval in units
    assert any(isinstance(s.get("by"), list) and len(s["by"]) >= 2 for s in statistics)  # by several columns
    assert {s["type"] for s in statistics if s.get("weighted_by")} >= {"count", "mean"}  # survey weights
    assert any(s["type"] == "crosstab" and s.get("post_processing", {}).get("consistent") for s in statistics)
    assert any(s["type"] == "proportion" and s.get("percent") for s in statistics)
    assert set(plan["reliability"]) == {"caution_above", "suppress_above"}


@pytest.fixture(scope="module")
def tables_release(tmp_path_factory):
    out = tmp_path_factory.mktemp("tables") / "release"
    ledger = out.parent / "ledger.json"
    code = main(["release", str(SAMPLE / "household_survey.csv"), "--plan", str(TABLES_PLAN), "--out", str(out), "--report",
                 "--ledger", str(ledger), "--dataset-budget", "5"])
    assert code == 0
    return out


def test_the_tables_plan_releases_every_table_with_its_report(tables_release):
    results = json.loads((tables_release / "results.json").read_text())
    jsonschema.validate(results, json.loads(resources.files("workbench").joinpath(
        "resources/results.schema.json").read_text()))
    by_label = {s["label"]: s for s in results["statistics"]}

    median = by_label["median of annual_income"]["cells"][0]
    assert median["lower"] <= median["value"] <= median["upper"] and median["lower"] < median["upper"]

    def values(label):
        return {c["label"]: c["value"] for c in by_label[label]["cells"]}

    table, regions = values("cross-tabulation of region × sex"), values("histogram of region")
    for region, margin in regions.items():  # the published table adds up to its published margins and total
        assert sum(v for cell, v in table.items() if cell.split(" / ")[0] == region) == pytest.approx(margin)
    assert sum(table.values()) == pytest.approx(by_label["count of rows"]["cells"][0]["value"])

    shares = by_label["percentages of employed by region"]["cells"]
    assert all(0 <= c["value"] <= 100 for c in shares if c["value"] is not None)
    assert len(by_label["mean of annual_income by region and sex"]["cells"]) == 9 * 3
    weighted = values("weighted count of rows by region weighted by weight")
    assert 5e6 < sum(weighted.values()) < 2e7  # about 10 million persons represented

    flags = [c["flag"] for s in results["statistics"] for c in s["cells"] if c.get("flag")]
    assert flags and set(flags) <= FLAGS

    html = (tables_release / "report.html").read_text()
    assert "; interval " in html and "upright bars are the 95% intervals" in html
    assert "suppressed" in html and "sampling error" in html
    assert "depend on that row alone" in html and "raking" in html  # weights adjusted on the sample: not covered
