"""Planning from accuracy targets and weights, checked against closed forms and the release's own bound."""

import json
import math
from dataclasses import replace

import pytest

from workbench.core.data.schema import IdentifierColumn, NumericColumn, PrivacyUnit, Schema
from workbench.core.errors import PlanError
from workbench.core.privacy.accuracy import discrete_laplace_tail
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.plan import Budget, PlannedStatistic, ReleasePlan
from workbench.core.release.planner import allocate, budget_plan, epsilon_for_error, expected_error
from workbench.core.statistics.counts import Count
from workbench.core.statistics.moments import Mean

SCHEMA = Schema((IdentifierColumn("pid"), NumericColumn("x", lower=0, upper=100)), PrivacyUnit("pid", 2))


def test_count_within_50_at_95_percent_matches_the_laplace_tail():
    epsilon = epsilon_for_error(Count(), MechanismKind.LAPLACE, SCHEMA, target=50)
    scale = 2 / epsilon  # k = 2
    assert discrete_laplace_tail(scale, 50) <= 0.05  # the promise holds
    assert discrete_laplace_tail(2 / (epsilon * 0.99), 50) > 0.05  # and ε is not much more than needed
    # Closed form: P(|Z| > t) ≈ exp(-(t + 1)/b) for large b, so ε ≈ 2 ln(20 / (1 + a)... ) / 51
    assert epsilon == pytest.approx(2 * math.log(2 / 0.05 / 2) / 51, rel=0.05)


def test_gaussian_and_mean_targets_are_met_by_the_release_bound():
    from workbench.core.release.plan import Budget, PlannedStatistic

    for statistic, mechanism, delta, target in [
        (Count(), MechanismKind.GAUSSIAN, 1e-6, 30.0),
        (Mean("x"), MechanismKind.LAPLACE, 0.0, 0.5),
        (Mean("x"), MechanismKind.GAUSSIAN, 1e-6, 0.5),
    ]:
        epsilon = epsilon_for_error(statistic, mechanism, SCHEMA, target, 0.95, delta, size_estimate=5000)
        planned = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta))
        assert expected_error(planned, SCHEMA, 5000, 0.95) <= target
        slightly_less = PlannedStatistic(statistic, mechanism, Budget(epsilon * 0.98, delta))
        assert expected_error(slightly_less, SCHEMA, 5000, 0.95) > target


def test_unreachable_target_is_explained():
    with pytest.raises(PlanError, match="cannot be released within ±0.001"):
        epsilon_for_error(Mean("x"), MechanismKind.LAPLACE, SCHEMA, 0.001, size_estimate=10)


def test_allocation_by_weights():
    assert allocate(1.0, [1, 1, 2]) == pytest.approx([0.25, 0.25, 0.5])
    with pytest.raises(PlanError):
        allocate(1.0, [1, 0])


def test_plan_file_targets_and_weights_become_epsilons(sample_plan_path):
    data = json.loads(sample_plan_path.read_text())
    data["statistics"][0].update(target_error=500)  # count within ±500
    for statistic in data["statistics"][1:]:
        statistic["weight"] = 1
    data["statistics"][6]["weight"] = 3
    plan = ReleasePlan.from_json(data)
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan  # targets and weights round-trip

    budgeted = budget_plan(plan)
    count = budgeted.statistics[0]
    assert expected_error(count, plan.schema, None, 0.95) <= 500
    rest = [s.budget.epsilon for s in budgeted.statistics[1:]]
    assert sum(rest) == pytest.approx(1.0 - count.budget.epsilon)
    assert rest[5] == pytest.approx(3 * rest[0])
    budgeted.validate()


def test_a_plan_switches_between_pure_and_approximate_dp(sample_plan_path):
    from workbench.core.release.planner import PRIVACY_TRADE_OFF, with_privacy
    from workbench.core.statistics.quantiles import Quantiles

    plan = ReleasePlan.load(sample_plan_path)
    plan = replace(plan, statistics=(*plan.statistics, PlannedStatistic(Quantiles("age"), MechanismKind.EXPONENTIAL, Budget(0.05))),
                   total=Budget(1.05, plan.total.delta))
    pure = with_privacy(plan, approximate=False)
    pure.validate()
    assert pure.total.delta == 0 and pure.guarantee().delta == 0
    assert {p.mechanism for p in pure.statistics} == {MechanismKind.LAPLACE, MechanismKind.EXPONENTIAL}
    approximate = with_privacy(pure, approximate=True, delta=1e-7)
    approximate.validate()
    assert [p.mechanism for p in approximate.statistics][-1] is MechanismKind.EXPONENTIAL  # quantiles stay pure
    assert all(p.mechanism is MechanismKind.GAUSSIAN for p in approximate.statistics[:-1])
    assert sum(p.budget.delta for p in approximate.statistics) == pytest.approx(1e-7)
    assert ReleasePlan.from_json(json.loads(json.dumps(approximate.to_json()))) == approximate
    assert "square root" in PRIVACY_TRADE_OFF and "δ = 0" in PRIVACY_TRADE_OFF
    with pytest.raises(PlanError, match="strictly between 0 and 1"):
        with_privacy(plan, approximate=True, delta=0.0)
