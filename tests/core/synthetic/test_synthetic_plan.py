"""A synthetic table as a plan entry (issue 36): its own JSON (plan version 2), its cost as one event the accountants
compose, and every refusal before anything is read, each with what to do instead. Nothing here reads data or fits."""

from __future__ import annotations

import json
import math

import pytest

from workbench.core.data import CategoricalColumn, IdentifierColumn, Neighbouring, NumericColumn, PrivacyUnit, Schema
from workbench.core.data.schema import OutsideCategories
from workbench.core.errors import BudgetError, PlanError, WorkbenchError
from workbench.core.privacy import MechanismKind, compose
from workbench.core.privacy.accounting import zcdp_epsilon
from workbench.core.release.plan import (
    PLAN_VERSION,
    Budget,
    DatasetDescription,
    PlannedStatistic,
    PlannedSynthetic,
    ReleasePlan,
)
from workbench.core.statistics import Count
from workbench.core.synthetic import MAX_ROWS, cost_of, epsilon_for_distance
from workbench.core.synthetic.budget import oneway_scale

SCHEMA = Schema((
    IdentifierColumn("person"),
    CategoricalColumn("state", tuple(f"S{i}" for i in range(51)), outside=OutsideCategories.DROP),
    NumericColumn("educ", lower=0, upper=20),
    NumericColumn("weekinc", lower=0, upper=5000),
    CategoricalColumn("single", ("yes",), outside=OutsideCategories.DROP),
), unit=PrivacyUnit("person", 2))

ENTRY = {"type": "synthetic", "columns": ["state", "educ", "weekinc"],
         "edges": {"educ": [9, 12, 13, 16], "weekinc": [250, 500, 1000, 2000]},
         "rows": None, "keep": [["educ", "weekinc"]], "numeric_values": "interval",
         "algorithm": "mst", "mechanism": "gaussian", "epsilon": 1.0, "delta": 1e-7}


def _plan(entry: dict | None = None, size: int | None = 30_000, others=()) -> ReleasePlan:
    data = {"format": "dp-workbench-plan", "version": 2,
            "dataset": {"name": "census extract", "size_estimate": size}, "schema": SCHEMA.to_json(),
            "statistics": [*others, {**ENTRY, **(entry or {})}], "total_budget": {"epsilon": 2.0, "delta": 1e-6}}
    return ReleasePlan.from_json(json.loads(json.dumps(data)))


def test_the_issue_s_entry_reads_validates_and_writes_back_as_it_was():
    plan = _plan()
    plan.validate()
    (entry,) = plan.statistics
    assert isinstance(entry, PlannedSynthetic) and entry.statistic.keep == (("educ", "weekinc"),)
    written = plan.to_json()
    assert written["version"] == 2 == PLAN_VERSION
    assert written["statistics"][0] == ENTRY
    assert ReleasePlan.from_json(written) == plan


def test_a_plan_without_a_synthetic_table_is_still_written_as_version_1():
    plan = ReleasePlan(DatasetDescription("x", size_estimate=100), SCHEMA,
                       (PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(1.0)),), Budget(1.0))
    assert plan.to_json()["version"] == 1  # older programs still open it


def test_it_is_one_zcdp_event_that_the_accountants_compose_at_its_rho():
    plan = _plan()
    (event,) = plan.events()
    cost = plan.statistics[0].cost()
    assert event.mechanism == "gaussian" and not event.scalar
    assert math.isclose(event.rho, cost.rho, rel_tol=1e-12) and event.rho >= cost.rho
    assert event.epsilon <= 1.0 and math.isclose(event.epsilon, 1.0, rel_tol=1e-6)
    assert math.isclose(zcdp_epsilon(cost.rho, 1e-7), event.epsilon, rel_tol=1e-12)
    assert plan.guarantee().epsilon <= 1.0 + 1e-9
    # beside a pure-DP count, zCDP composes the two below their sum
    with_count = _plan(others=[{"type": "count", "mechanism": "laplace", "epsilon": 0.5}])
    total = compose(with_count.events(), delta=1e-6)
    assert total.epsilon < 1.5 + compose(with_count.events()[1:], delta=1e-6).epsilon


def test_laplace_makes_it_pure_epsilon_dp():
    plan = _plan({"mechanism": "laplace", "delta": 0})
    plan.validate()
    (event,) = plan.events()
    assert event.delta == 0 and event.epsilon == 1.0 and plan.guarantee().delta == 0


@pytest.mark.parametrize(("change", "words"), [
    ({"edges": {"educ": [9, 12]}}, "'weekinc' needs public edges"),
    ({"columns": ["state", "single"], "edges": {}, "keep": []}, "one category"),
    ({"rows": MAX_ROWS + 1}, "rows asked"),
    ({"epsilon": 0.001}, "every one-way marginal would be expected within 5%"),
    ({"algorithm": "gan"}, "'algorithm' is \"mst\""),
    ({"keep": [["educ", "age"]]}, "not one of its columns"),
    ({"edges": {"educ": [9, 30], "weekinc": [250]}}, "strictly between its bounds"),
    ({"columns": ["state"], "edges": {}, "keep": []}, "at least two columns"),
    ({"target_error": 0.1}, "'target_error' is not for a synthetic table"),
    ({"mechanism": "laplace"}, "spends no δ"),
])
def test_bad_input_is_refused_before_anything_is_read_with_what_to_do(change, words):
    with pytest.raises(WorkbenchError, match=words.replace("(", r"\(")):
        _plan(change).validate()


def test_without_a_size_estimate_it_cannot_be_checked_and_says_where_to_give_one():
    with pytest.raises(PlanError, match="size estimate"):
        _plan(size=None).validate()


def test_an_epsilon_too_small_names_the_epsilon_that_keeps_marginals_within_five_percent():
    with pytest.raises(BudgetError) as refused:
        _plan({"epsilon": 0.001}).validate()
    needed = float(str(refused.value).split("ε = ")[2].split(" ")[0])
    cells = {"state": 51, "educ": 5, "weekinc": 5}
    assert needed == epsilon_for_distance(MechanismKind.GAUSSIAN, 1e-7, cells, SCHEMA, 30_000)
    _plan({"epsilon": needed}).validate()  # that ε is accepted


def test_the_one_way_noise_scale_is_opendps():
    """The preview's σ = k·√(m/ρ) (and b = 2km/ε) is what make_contingency_table returns, under both relations."""
    from workbench.core.synthetic.fit import measurement

    table = _plan().statistics[0].statistic
    for relation, mechanism in ((Neighbouring.ADD_REMOVE, MechanismKind.GAUSSIAN),
                                (Neighbouring.SUBSTITUTE, MechanismKind.LAPLACE)):
        schema = Schema(SCHEMA.columns, unit=SCHEMA.unit, neighbouring=relation,
                        public_size=30_000 if relation is Neighbouring.SUBSTITUTE else None)
        cost = cost_of(mechanism, 1.0, 1e-7 if mechanism is MechanismKind.GAUSSIAN else 0.0)
        _made, scale, d_in = measurement(table, table.axes(schema), schema, cost)
        assert d_in[0].per_group == (4 if relation is Neighbouring.SUBSTITUTE else 2)
        assert math.isclose(scale, oneway_scale(cost, 3, schema), rel_tol=1e-6)
