"""A δ far above what the number of persons allows is refused, also when the plan gives no number (issue 41
§5): δ is the probability that the guarantee fails outright, so with n persons it must be well below 1 / n."""

import json
from dataclasses import replace

import pytest

from workbench.cli import main
from workbench.core.data.schema import Neighbouring, NumericColumn, Schema
from workbench.core.errors import BudgetError, Place
from workbench.core.privacy.events import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.ledger import Ledger, Registration, Terms
from workbench.core.release.plan import (
    DELTA_CEILING,
    Budget,
    DatasetDescription,
    PlannedStatistic,
    ReleasePlan,
    suggested_dataset_delta,
)
from workbench.core.statistics.moments import Mean

WHY = r"probability that the guarantee fails outright"


def plan(delta: float, total_delta: float | None = None, size_estimate: int | None = None,
         public_size: int | None = None) -> ReleasePlan:
    schema = Schema((NumericColumn("x", lower=0.0, upper=10.0),), public_size=public_size,
                    neighbouring=Neighbouring.SUBSTITUTE if public_size else Neighbouring.ADD_REMOVE)
    return ReleasePlan(
        DatasetDescription("d", size_estimate=size_estimate), schema,
        (PlannedStatistic(Mean("x"), MechanismKind.GAUSSIAN, Budget(1.0, delta)),),
        Budget(1.0, delta if total_delta is None else total_delta),
    )


def test_a_large_delta_without_a_number_of_persons_is_refused_with_the_reason():
    with pytest.raises(BudgetError, match=rf"δ = 0.5 is above 1e-05.*{WHY}.*well below 1 / n.*at most 1e-05"):
        plan(0.5).validate()
    with pytest.raises(BudgetError, match=rf"'mean of x': δ = 0.5 is above 1e-05.*{WHY}"):  # the statistic's own δ
        plan(0.5, total_delta=1e-6).validate()
    plan(DELTA_CEILING).validate()
    with pytest.raises(BudgetError, match=WHY):
        plan(2 * DELTA_CEILING).validate()


def test_a_number_of_persons_allows_a_larger_delta_only_far_below_one_over_it():
    plan(1e-4, size_estimate=100).validate()  # 1 / (100 n)
    plan(1e-4, public_size=100).validate()
    with pytest.raises(BudgetError, match=rf"δ = 0.001 is above 1e-05 and not far below 1 / 100.*{WHY}"):
        plan(1e-3, size_estimate=100).validate()
    with pytest.raises(BudgetError, match=r"at least 1 / 100 \(one over the number of persons\)"):
        plan(0.02, size_estimate=100).validate()
    with pytest.raises(BudgetError, match=r"at least 1 / 1000000"):  # below the ceiling, still not below 1 / n
        plan(5e-6, size_estimate=1_000_000).validate()


def test_the_dataset_total_delta_is_held_to_the_same_rule(tmp_path):
    terms = Terms("add_remove", "one row of the table")
    with pytest.raises(BudgetError, match=rf"The dataset's total δ = 0.5 is above 1e-05.*{WHY}"):
        Registration(Guarantee(2.0, 0.5, "total budget"), terms)
    Registration(Guarantee(2.0, 1e-4, "total budget"), replace(terms, public_size=100))
    Registration(Guarantee(2.0, 1e-4, "total budget"), terms, size_estimate=100)
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.register("d", Guarantee(2.0, 1e-6, "total budget"), terms)
    with pytest.raises(BudgetError, match=WHY):
        ledger.raise_budget("d", Guarantee(2.0, 0.01, "total budget"))
    ledger.raise_budget("d", Guarantee(3.0, 1e-6, "total budget"))  # ε alone
    ledger.register("n", Guarantee(2.0, 1e-4, "total budget"), replace(terms, public_size=100))
    ledger.raise_budget("n", Guarantee(3.0, 1e-4, "total budget"))  # δ unchanged: not checked again
    with pytest.raises(BudgetError, match=r"not far below 1 / 100"):
        ledger.raise_budget("n", Guarantee(3.0, 1e-3, "total budget"))


def test_the_command_line_refuses_it_with_the_same_words(sample_path, tmp_path, capsys):
    data = json.loads((sample_path.parent / "household_survey.plan.json").read_text())
    data["dataset"]["size_estimate"] = None
    data["total_budget"]["delta"] = 0.5
    for statistic in data["statistics"]:
        if statistic["mechanism"] == "gaussian":
            statistic["delta"] = 0.25
    path = tmp_path / "large-delta.plan.json"
    path.write_text(json.dumps(data))
    assert main(["release", str(sample_path), "--plan", str(path), "--out", str(tmp_path / "o"),
                 "--dataset-budget", "3", "1e-6"]) == 2
    assert WHY in " ".join(capsys.readouterr().err.split())
    assert main(["plan-budget", str(path)]) == 2
    assert WHY in " ".join(capsys.readouterr().err.split())
    sample_plan = sample_path.parent / "household_survey.plan.json"  # the sample's size estimate is 25,000
    assert main(["release", str(sample_path), "--plan", str(sample_plan), "--out", str(tmp_path / "o"),
                 "--dataset-budget", "3", "0.5"]) == 2
    assert "at least 1 / 25000" in " ".join(capsys.readouterr().err.split())
    assert main(["plan-template", str(sample_path), "--out", str(tmp_path / "t.plan.json"), "--delta", "0.01"]) == 2
    assert WHY in " ".join(capsys.readouterr().err.split())
    assert not (tmp_path / "o").exists() and not (tmp_path / "t.plan.json").exists()


@pytest.mark.parametrize("persons", [None, 100, 25_000, 999_999, 1_000_000, 16_000_000, 400_000_000])
@pytest.mark.parametrize("plan_delta", [0.0, 1e-12, 1e-9, 1e-7, 1e-6])
def test_the_total_delta_proposed_for_a_new_dataset_is_registered_and_covers_the_plan(persons, plan_delta):
    """The app proposes a new dataset's total δ (step 5) from its plan: far below one over the number of persons,
    at least the plan's δ, so that a plan the rule accepts is never refused for the total proposed beside it."""
    planned = plan(plan_delta, size_estimate=persons)
    try:
        planned.validate()
    except BudgetError:
        return  # a plan δ the rule refuses for this many persons: its own refusal, whatever the total
    proposed = suggested_dataset_delta(plan_delta, persons)
    assert proposed >= plan_delta
    if persons and persons >= 1_000_000:  # where 1e-6 is refused: far below one over the persons
        assert proposed <= 0.01 / persons or proposed == plan_delta
    else:
        assert proposed == max(1e-6, plan_delta)  # as before
    Registration(Guarantee(1.0, proposed, "total budget"), Terms("add_remove", "one row of the table"), persons)  # not refused


def test_a_new_datasets_total_delta_refused_is_placed_at_that_total():
    with pytest.raises(BudgetError, match="at least 1 / 25000") as refused:
        Registration(Guarantee(1.0, 1e-3, "total budget"), Terms("add_remove", "one row of the table"), 25_000)
    assert refused.value.place == Place("budget", "dataset delta")
