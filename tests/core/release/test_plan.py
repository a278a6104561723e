"""Plan files: lossless round trip, versioning, validation before any data is read."""

import json
import re
from pathlib import Path

import pytest

from workbench.core.errors import BudgetError, PlanError, SchemaError, WorkbenchError
from workbench.core.release.plan import PLAN_VERSION, ReleasePlan

ROOT = Path(__file__).resolve().parents[3]


def test_sample_plan_round_trips_losslessly(sample_plan_path, tmp_path):
    plan = ReleasePlan.load(sample_plan_path)
    plan.validate()
    again = ReleasePlan.from_json(json.loads(json.dumps(plan.to_json())))
    assert again == plan
    plan.save(tmp_path / "copy.plan.json")
    assert ReleasePlan.load(tmp_path / "copy.plan.json") == plan
    assert json.loads((tmp_path / "copy.plan.json").read_text()) == plan.to_json()


def test_documented_example_is_the_shipped_sample_plan(sample_plan_path):
    doc = (ROOT / "docs" / "plan-format.md").read_text()
    examples = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", doc, re.S)]
    whole = [example for example in examples if "format" in example]  # a whole plan, not one entry of it
    assert whole and whole[0] == json.loads(sample_plan_path.read_text())


def edited(sample_plan_path, change):
    data = json.loads(sample_plan_path.read_text())
    change(data)
    return ReleasePlan.from_json(data)


def test_future_version_is_refused_with_advice(sample_plan_path):
    with pytest.raises(PlanError, match=f"newer DP Workbench.*version {PLAN_VERSION + 1}.*Update"):
        edited(sample_plan_path, lambda d: d.update(version=PLAN_VERSION + 1))


def test_truncated_plan_file_says_where(sample_plan_path, tmp_path):
    path = tmp_path / "cut.plan.json"
    path.write_text(sample_plan_path.read_text()[:300])
    with pytest.raises(PlanError, match=r"cut.plan.json is not a complete plan file.*line \d+"):
        ReleasePlan.load(path)


def test_overspending_plan_is_refused_with_the_amount(sample_plan_path):
    plan = edited(sample_plan_path, lambda d: d["total_budget"].update(epsilon=0.5))
    with pytest.raises(BudgetError, match=r"ε = 1, .*budget of ε = 0.5.*over by ε 0.5"):
        plan.validate()


def test_a_statistic_without_epsilon_weight_or_target_is_refused_with_what_to_write(sample_plan_path):
    def change(data):
        data["statistics"][0] = {"type": "count", "mechanism": "laplace", "delta": 0.0}

    with pytest.raises(PlanError, match=r"Statistic 1 \(count of rows\) has no 'epsilon': give one, e.g. \"epsilon\": 0.1, "
                                        r"or a 'weight' .* or a 'target_error'"):
        edited(sample_plan_path, change)


@pytest.mark.parametrize("extra", [{"weight": 2}, {"target_error": 50}])
def test_a_weight_or_target_needs_no_placeholder_epsilon(sample_plan_path, extra):
    from workbench.core.release.planner import budget_plan

    def change(data):
        data["statistics"][0] = {"type": "count", "mechanism": "laplace", "delta": 0.0, **extra}

    plan = edited(sample_plan_path, change)
    assert "epsilon" not in plan.statistics[0].to_json()  # saved as written: the planner fills it in
    with pytest.raises(PlanError, match="plan the budget first"):
        plan.validate()
    planned = budget_plan(plan)
    assert planned.statistics[0].budget.epsilon > 0
    if "weight" not in extra:
        planned.validate()


@pytest.mark.parametrize("epsilon", [0, -1, float("nan"), 1e9])
def test_invalid_epsilon_is_refused(sample_plan_path, epsilon):
    with pytest.raises(WorkbenchError, match="ε"):  # NaN when the plan is read, the others when it is checked
        edited(sample_plan_path, lambda d: d["statistics"][0].update(epsilon=epsilon)).validate()


def test_delta_at_or_above_one_over_size_is_refused(sample_plan_path):
    plan = edited(sample_plan_path, lambda d: d["total_budget"].update(delta=1e-4))
    with pytest.raises(BudgetError, match=r"at least 1 / 25000"):
        plan.validate()


def test_reversed_bounds_are_refused(sample_plan_path):
    def reverse(d):
        d["schema"]["columns"][1].update(lower=100, upper=0)

    with pytest.raises(SchemaError, match=r"'age': the lower bound 100 is above the upper bound 0"):
        edited(sample_plan_path, reverse).validate()


def test_statistic_on_a_column_of_the_wrong_kind_is_refused(sample_plan_path):
    plan = edited(sample_plan_path, lambda d: d["statistics"].append(
        {"type": "mean", "column": "region", "mechanism": "laplace", "epsilon": 0.0001}))
    with pytest.raises(SchemaError, match=r"mean of 'region' needs a numeric column"):
        plan.validate()


def test_statistics_by_group_round_trip_and_share_one_epsilon(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [
        {"type": "mean", "column": "annual_income", "by": "region", "mechanism": "laplace", "epsilon": 0.4, "delta": 0.0},
        {"type": "histogram", "column": "education", "by": "sex", "mechanism": "laplace", "epsilon": 0.4, "delta": 0.0},
    ]
    plan = ReleasePlan.from_json(data)
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    assert [p.statistic.label for p in plan.statistics] == ["mean of annual_income by region", "histogram of education by sex"]
    assert plan.guarantee().epsilon == pytest.approx(0.8, rel=1e-4)  # eight regions, one ε: parallel composition


def test_by_takes_one_column_or_a_list_of_up_to_three_and_writes_them_back_as_read(sample_plan_path):
    plan = edited(sample_plan_path, lambda d: d["statistics"][3].update(by=["region"]))
    assert plan.statistics[3].statistic.by == ("region",)
    assert plan.statistics[3].to_json()["by"] == "region"  # one column is written as a name, as before
    plan = edited(sample_plan_path, lambda d: d["statistics"][3].update(by=["region", "sex"]))
    assert plan.statistics[3].statistic.by == ("region", "sex")
    assert plan.statistics[3].to_json()["by"] == ["region", "sex"]
    assert ReleasePlan.from_json(plan.to_json()) == plan
    with pytest.raises(PlanError, match=r"Statistic 4: 'by' names one categorical column.*or a list of up to 3"):
        edited(sample_plan_path, lambda d: d["statistics"][3].update(by=["region", "sex", "a", "b"]))
    with pytest.raises(PlanError, match=r"Statistic 4: 'by' names a column twice \(region, region\)"):
        edited(sample_plan_path, lambda d: d["statistics"][3].update(by=["region", "region"]))
    with pytest.raises(PlanError, match=r"Statistic 4: 'by' names one categorical column"):
        edited(sample_plan_path, lambda d: d["statistics"][3].update(by=[]))


def test_numeric_histogram_round_trips_with_its_edges(sample_plan_path):
    plan = edited(sample_plan_path, lambda d: d["statistics"].append(
        {"type": "histogram", "column": "age", "edges": [18, 30.5, 65], "mechanism": "laplace", "epsilon": 0.1}))
    assert plan.statistics[-1].statistic.edges == (18.0, 30.5, 65.0)
    assert plan.statistics[-1].to_json()["edges"] == [18.0, 30.5, 65.0]
    assert ReleasePlan.from_json(plan.to_json()) == plan
    plan = edited(sample_plan_path, lambda d: d["total_budget"].update(epsilon=1.1) or d["statistics"].append(
        {"type": "histogram", "column": "age", "edges": [18, 30.5, 65], "mechanism": "laplace", "epsilon": 0.1}))
    plan.validate()


@pytest.mark.parametrize("edges", [[], "18, 65", [18, "65"], [18, float("inf")], [True]])
def test_histogram_edges_that_are_not_a_list_of_numbers_are_refused(sample_plan_path, edges):
    with pytest.raises(PlanError, match=r"'edges' must be a list of numbers .* such as \[18, 30, 45, 65\]"):
        edited(sample_plan_path, lambda d: d["statistics"].append({"type": "histogram", "column": "age", "edges": edges}))


def test_grouping_by_a_column_that_is_not_categorical_is_refused(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [{"type": "count", "by": "age", "mechanism": "laplace", "epsilon": 0.1, "delta": 0.0}]
    with pytest.raises(SchemaError, match="A count by group of 'age' needs a categorical column"):
        ReleasePlan.from_json(data).validate()


def test_three_way_crosstab_round_trips_and_costs_one_histogram(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [{"type": "crosstab", "columns": ["sex", "region", "education"], "mechanism": "laplace", "epsilon": 0.5}]
    plan = ReleasePlan.from_json(data)
    plan.validate()
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    assert plan.statistics[0].statistic.label == "cross-tabulation of sex × region × education"
    assert plan.guarantee().epsilon == pytest.approx(0.5)
    data["statistics"][0]["columns"] = ["sex", "age"]
    with pytest.raises(SchemaError, match="The cross-tabulation of 'age' needs a categorical column"):
        ReleasePlan.from_json(data).validate()
    data["statistics"][0]["columns"] = ["sex"]
    with pytest.raises(PlanError, match="two or three different categorical columns"):
        ReleasePlan.from_json(data).validate()


def test_quantiles_round_trip_with_the_exponential_mechanism_by_default(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [
        {"type": "quantiles", "column": "annual_income", "levels": [0.75, 0.25, 0.5], "epsilon": 0.6},
        {"type": "quantiles", "column": "age", "by": "region", "epsilon": 0.3},
    ]
    plan = ReleasePlan.from_json(data)
    plan.validate()
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    assert [p.mechanism.value for p in plan.statistics] == ["exponential", "exponential"]
    assert [p.statistic.label for p in plan.statistics] == [
        "quantiles 25%, 50%, 75% of annual_income", "median of age by region"
    ]
    assert plan.guarantee().epsilon == pytest.approx(0.9, rel=1e-9)  # pure ε-DP: the levels add up


@pytest.mark.parametrize(
    "statistic,message",
    [
        ({"type": "quantiles", "column": "age", "mechanism": "laplace", "epsilon": 0.3}, "cannot be released with the Laplace"),
        ({"type": "mean", "column": "age", "mechanism": "exponential", "epsilon": 0.3}, "cannot be released with the exponential"),
        ({"type": "quantiles", "column": "age", "levels": [0.5, 1.0], "epsilon": 0.3}, "strictly between 0 and 1"),
        ({"type": "quantiles", "column": "age", "levels": [], "epsilon": 0.3}, "strictly between 0 and 1"),
        ({"type": "quantiles", "column": "sex", "epsilon": 0.3}, "needs a numeric column"),
        ({"type": "quantiles", "column": "age", "epsilon": 0.3, "delta": 1e-9}, "spends no δ"),
    ],
)
def test_unsound_quantiles_are_refused_with_the_reason(sample_plan_path, statistic, message):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"] = [statistic]
    with pytest.raises((PlanError, BudgetError, SchemaError), match=message):
        ReleasePlan.from_json(data).validate()


def test_a_weighted_count_is_not_the_total_a_histogram_is_made_consistent_with(sample_plan_path):
    """A sum of weights estimates the population, not the rows the bins add up to."""
    plan = edited(sample_plan_path, lambda d: (
        d["schema"]["columns"][6].update(lower=1, missing={"action": "impute", "value": 1}),
        d["statistics"].insert(0, {"type": "count", "weighted_by": "weekly_hours", "mechanism": "laplace",
                                   "epsilon": 0.1})))
    assert plan.statistics[0].statistic.weighted_by == "weekly_hours"
    assert plan.total_count() == 1  # the plan's own count of rows, after the weighted one


def test_a_plan_declares_a_text_files_encoding_and_refuses_one_that_is_not_text():
    from workbench.core.release.plan import DatasetDescription

    declared = DatasetDescription.from_json({"name": "towns", "encoding": "cp1252"})
    assert declared.encoding == "cp1252" and DatasetDescription.from_json(declared.to_json()) == declared
    assert "encoding" not in DatasetDescription(name="towns").to_json()  # absent: UTF-8 or a byte-order mark's
    for wrong in ("base64", "no-such-code", 1252):
        with pytest.raises(PlanError, match="not a text encoding"):
            DatasetDescription.from_json({"name": "towns", "encoding": wrong})


def test_a_sampling_rate_below_what_the_weights_tell_is_said_to_fall_short_for_those_persons():
    """A design weight is one over a person's chance of being sampled: weights down to 250 tell of chances up to
    1/250, above a claimed rate of 0.001, and the conditions of the amplification say so (a helper's audit: the
    report stated ε = 0.017 for a weighted ε = 1 release whose weights contradicted the rate)."""
    described = json.loads((Path(__file__).resolve().parents[3] / "resources/sample/household_survey.tables.plan.json").read_text())
    described["dataset"]["sampling_rate"] = 0.001
    words = ReleasePlan.from_json(described).sampling_conditions()
    assert "Poisson sampling" in words and "'weight' go down to 250" in words and "up to 0.004" in words
    described["dataset"]["sampling_rate"] = 0.005  # above 1/250: the weights tell nothing against it
    assert "go down to" not in ReleasePlan.from_json(described).sampling_conditions()
