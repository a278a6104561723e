"""Sensitivity tables: every statistic, both neighbouring relations, k contributions.

The formulas are also checked against brute force: enumerate what one person can
contribute and take the largest change between neighbours.
"""

import itertools
import math

import pytest

from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    Neighbouring,
    NumericColumn,
    PrivacyUnit,
    Schema,
)
from workbench.core.privacy import sensitivity
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.statistics.counts import Count, CrossTab, Histogram
from workbench.core.statistics.moments import Mean, StandardDeviation, Sum, Variance
from workbench.core.statistics.quantiles import Quantiles

ADD, SUB = Neighbouring.ADD_REMOVE, Neighbouring.SUBSTITUTE


def brute_force_sum(lo: int, hi: int, k: int, a_min: int, neighbouring: Neighbouring) -> int:
    """Largest |change of the sum| when one person's rows (values in {lo, hi}) change."""
    def contributions(rows):
        return {sum(values) for values in itertools.product((lo, hi), repeat=rows)} if rows else {0}

    people = {a: contributions(a) for a in range(0, k + 1)}
    if neighbouring is ADD:
        return max(abs(s) for a in range(1, k + 1) for s in people[a])
    return max(abs(new - old) for a in range(a_min, k + 1) for b in range(a_min, k + 1)
               for old in people[a] for new in people[b])


@pytest.mark.parametrize("neighbouring", [ADD, SUB])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("a_min", [0, 1])
@pytest.mark.parametrize("lo,hi", [(1, 1), (0, 10), (3, 10), (-4, 10), (-10, -2), (-7, 0)])
def test_bounded_sum_matches_brute_force(lo, hi, k, a_min, neighbouring):
    assert sensitivity.bounded_sum(lo, hi, k, a_min, neighbouring).l1 == brute_force_sum(lo, hi, k, a_min, neighbouring)


def brute_force_histogram(k: int, bins: int, neighbouring: Neighbouring) -> tuple[int, float]:
    people = [tuple(sum(1 for r in rows if r == b) for b in range(bins))
              for n in range(1, k + 1) for rows in itertools.product(range(bins), repeat=n)]
    if neighbouring is ADD:
        return max(sum(p) for p in people), max(math.hypot(*p) for p in people)
    changes = [tuple(x - y for x, y in zip(p, q)) for p in people for q in people]
    return max(sum(map(abs, c)) for c in changes), max(math.hypot(*c) for c in changes)


@pytest.mark.parametrize("neighbouring", [ADD, SUB])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_histogram_matches_brute_force(k, neighbouring):
    l1, l2 = brute_force_histogram(k, bins=3, neighbouring=neighbouring)
    stated = sensitivity.histogram(k, neighbouring)
    assert stated.l1 == l1
    assert stated.l2 == pytest.approx(l2, rel=1e-12) and stated.l2 >= l2


def schema(neighbouring=ADD, k=1, missing=MissingAction.IMPUTE, lower=0.0, upper=100.0, public_size=None):
    policy = MissingPolicy(missing, lower if missing is MissingAction.IMPUTE else None)
    unit = PrivacyUnit("pid", k) if k > 1 else PrivacyUnit()
    return Schema(
        columns=(
            IdentifierColumn("pid"),
            NumericColumn("x", lower=lower, upper=upper, missing=policy),
            CategoricalColumn("c", categories=("a", "b", "c")),
            CategoricalColumn("c2", categories=("u", "v")),
            CategoricalColumn("c3", categories=("p", "q")),
        ),
        unit=unit,
        neighbouring=neighbouring,
        public_size=public_size or (1000 if neighbouring is SUB else None),
    )


# (statistic, neighbouring, k, missing policy, bounds) -> sensitivity per query in the statistic's units
TABLE = [
    # count: k rows appear or vanish; under substitute only the number of rows per person varies
    (Count(), ADD, 1, MissingAction.IMPUTE, (0, 100), {"count": 1}),
    (Count(), ADD, 4, MissingAction.IMPUTE, (0, 100), {"count": 4}),
    (Count(), SUB, 1, MissingAction.IMPUTE, (0, 100), {}),  # public size: no noise needed
    (Count(), SUB, 4, MissingAction.IMPUTE, (0, 100), {"count": 3}),
    # sum: k * max(|lower|, |upper|) under add/remove
    (Sum("x"), ADD, 1, MissingAction.IMPUTE, (0, 100), {"sum": 100}),
    (Sum("x"), ADD, 3, MissingAction.IMPUTE, (-50, 20), {"sum": 150}),
    (Sum("x"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"sum": 100}),
    (Sum("x"), SUB, 1, MissingAction.IMPUTE, (10, 100), {"sum": 90}),
    (Sum("x"), SUB, 1, MissingAction.DROP, (10, 100), {"sum": 100}),  # a row may vanish: 0 vs 100
    (Sum("x"), SUB, 3, MissingAction.IMPUTE, (10, 100), {"sum": 290}),  # 3 x 100 in, 1 x 10 out
    (Sum("x"), SUB, 2, MissingAction.IMPUTE, (-50, 20), {"sum": 140}),
    # mean: centred sum (half range per row) and count, each with half the budget
    (Mean("x"), ADD, 1, MissingAction.IMPUTE, (0, 100), {"centred sum": 50, "count": 1}),
    (Mean("x"), ADD, 2, MissingAction.IMPUTE, (10, 30), {"centred sum": 20, "count": 2}),
    (Mean("x"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"centred sum": 100}),  # divided by public size
    (Mean("x"), SUB, 1, MissingAction.DROP, (0, 100), {"centred sum": 100, "count": 1}),
    (Mean("x"), SUB, 3, MissingAction.IMPUTE, (0, 100), {"centred sum": 300, "count": 2}),
    # histogram: L1
    (Histogram("c"), ADD, 1, MissingAction.IMPUTE, (0, 100), {"bins": 1}),
    (Histogram("c"), ADD, 5, MissingAction.IMPUTE, (0, 100), {"bins": 5}),
    (Histogram("c"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"bins": 2}),
    (Histogram("c"), SUB, 5, MissingAction.IMPUTE, (0, 100), {"bins": 10}),
    # by group (parallel composition): one vector over all groups; substitute can move a person across groups
    (Count(by="c"), ADD, 3, MissingAction.IMPUTE, (0, 100), {"count": 3}),
    (Count(by="c"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"count": 2}),  # never the public size
    (Sum("x", by="c"), ADD, 2, MissingAction.IMPUTE, (-50, 20), {"sum": 100}),
    (Sum("x", by="c"), SUB, 1, MissingAction.IMPUTE, (10, 100), {"sum": 200}),
    (Mean("x", by="c"), ADD, 1, MissingAction.IMPUTE, (0, 100), {"centred sum": 50, "count": 1}),
    (Mean("x", by="c"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"centred sum": 100, "count": 2}),
    (Histogram("c", by="c"), SUB, 2, MissingAction.IMPUTE, (0, 100), {"bins": 4}),
    # variance: centred sum (half range), centred squares ((half range)^2 per row), count
    (Variance("x"), ADD, 1, MissingAction.IMPUTE, (0, 100), {"centred sum": 50, "sum of squares": 2500, "count": 1}),
    (Variance("x"), ADD, 3, MissingAction.IMPUTE, (10, 30), {"centred sum": 30, "sum of squares": 300, "count": 3}),
    (Variance("x"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"centred sum": 100, "sum of squares": 2500}),
    (StandardDeviation("x"), SUB, 2, MissingAction.DROP, (0, 100), {"centred sum": 200, "sum of squares": 5000, "count": 2}),
    # cross-tabulation: one bin per combination, like a histogram
    (CrossTab(("c", "c2")), ADD, 3, MissingAction.IMPUTE, (0, 100), {"cells": 3}),
    (CrossTab(("c", "c2"), by="c3"), SUB, 2, MissingAction.IMPUTE, (0, 100), {"cells": 4}),
    # quantiles: rows that differ between neighbours (OpenDP's symmetric distance), per level; by group the same
    (Quantiles("x"), ADD, 1, MissingAction.IMPUTE, (0, 100), {"median": 1}),
    (Quantiles("x", levels=(0.1, 0.9)), ADD, 3, MissingAction.DROP, (0, 100), {"10th percentile": 3, "90th percentile": 3}),
    (Quantiles("x"), SUB, 1, MissingAction.IMPUTE, (0, 100), {"median": 2}),
    (Quantiles("x", by="c"), SUB, 2, MissingAction.IMPUTE, (0, 100), {"median": 4}),
]


@pytest.mark.parametrize("statistic,neighbouring,k,missing,bounds,expected", TABLE)
def test_statistic_sensitivity_table(statistic, neighbouring, k, missing, bounds, expected):
    queries = statistic.queries(schema(neighbouring, k, missing, *bounds))
    stated = {q.name: q.sensitivity.l1 * q.unit for q in queries}
    assert stated == pytest.approx(expected, rel=1e-8)
    assert sum(q.share for q in queries) == pytest.approx(1.0) or not queries


def test_histogram_l2_under_substitute_is_sqrt2_k():
    (query,) = Histogram("c").queries(schema(SUB, k=3))
    assert query.sensitivity.l2 == pytest.approx(3 * math.sqrt(2))


def test_gaussian_noise_is_calibrated_to_l2_and_laplace_to_l1():
    from workbench.core.release.plan import Budget, PlannedStatistic

    s = schema(SUB, k=3)
    (laplace,) = PlannedStatistic(Histogram("c"), MechanismKind.LAPLACE, Budget(1.0)).noises(s)
    (gauss,) = PlannedStatistic(Histogram("c"), MechanismKind.GAUSSIAN, Budget(1.0, 1e-6)).noises(s)
    assert laplace.sensitivity == 6 and laplace.scale == pytest.approx(6.0)
    assert gauss.sensitivity == pytest.approx(3 * math.sqrt(2))


def brute_force_grouped(lo: int, hi: int, k: int, a_min: int, groups: int, neighbouring: Neighbouring):
    """Largest change (L1, L2) of the vector of per-group sums when one person's rows change."""
    def people(rows):
        found = set()
        for values in itertools.product((lo, hi), repeat=rows):
            for where in itertools.product(range(groups), repeat=rows):
                vector = [0] * groups
                for value, group in zip(values, where):
                    vector[group] += value
                found.add(tuple(vector))
        return found

    if neighbouring is ADD:
        candidates = [v for a in range(1, k + 1) for v in people(a)]
    else:
        persons = [v for a in range(a_min, k + 1) for v in people(a)]
        candidates = [tuple(x - y for x, y in zip(p, q)) for p in persons for q in persons]
    return max(sum(map(abs, c)) for c in candidates), max(math.hypot(*c) for c in candidates)


@pytest.mark.parametrize("neighbouring", [ADD, SUB])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("a_min", [0, 1])
@pytest.mark.parametrize("lo,hi", [(1, 1), (0, 10), (3, 10), (-4, 10), (-10, -2), (-1, 3)])
def test_grouped_sum_matches_brute_force(lo, hi, k, a_min, neighbouring):
    l1, l2 = brute_force_grouped(lo, hi, k, a_min, groups=3, neighbouring=neighbouring)
    stated = sensitivity.grouped_sum(lo, hi, k, a_min, neighbouring)
    assert stated.l1 == l1
    assert stated.l2 == pytest.approx(l2, rel=1e-12) and stated.l2 >= l2


def brute_force_people(statistic, s, k: int, others: list[tuple], row_choices: list[tuple], columns: list[str],
                       ) -> list[tuple[float, float]]:
    """Per query, the largest (L1, L2) change of the exact answer vector when one person (up to k rows, each any
    of ``row_choices``) is added to ``others`` or removed, or replaced by another, computed through ``prepare``
    and ``statistic.exact`` themselves."""
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from workbench.core.data.io import Table
    from workbench.core.data.prepare import prepare

    def exact(rows):
        frame = pd.DataFrame(rows, columns=columns)
        return statistic.exact(prepare(Table(frame=frame, source=Path("people.csv"), file_format="text"), s))

    people = [rows for n in range(1, k + 1) for rows in itertools.product(row_choices, repeat=n)]
    answers = [exact(others)] + [exact(others + [(1, *row) for row in rows]) for rows in people]
    worst = []
    for q in range(len(answers[0])):
        vectors = np.array([a[q] for a in answers], dtype=float)
        if s.neighbouring is ADD:
            changes = vectors[1:] - vectors[0]
        else:  # the same others, and one person replaced by another (each with at least one row)
            changes = (vectors[1:, None, :] - vectors[None, 1:, :]).reshape(-1, vectors.shape[1])
        worst.append((float(np.abs(changes).sum(axis=1).max()), float(np.sqrt((changes ** 2).sum(axis=1)).max())))
    return worst


def brute_force_statistic(statistic, s, k: int) -> list[tuple[float, float]]:
    """Every person of extreme values and every combination of grouping categories, or a missing one."""
    x = s.column("x")
    row_choices = list(itertools.product((x.lower, x.upper), ("a", "b"), ("u", "v"), ("p", None)))
    others = [(100, 7.0, "a", "u", "p"), (101, 0.0, "b", "v", "q"), (102, 3.0, "c", "u", "q")]
    return brute_force_people(statistic, s, k, others, row_choices, ["pid", "x", "c", "c2", "c3"])


@pytest.mark.parametrize("neighbouring", [ADD, SUB])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("make", [
    lambda: Count(by=("c2", "c3")),
    lambda: Sum("x", by=("c2", "c3")),
    lambda: Mean("x", by=("c", "c2", "c3")),
    lambda: Variance("x", by=("c2", "c3")),
    lambda: Histogram("c", by=("c2", "c3")),
    lambda: CrossTab(("c", "c2"), by=("c3",)),
], ids=["count", "sum", "mean", "variance", "histogram", "crosstab"])
def test_statistics_by_several_columns_match_brute_force(make, k, neighbouring):
    """Groups made by two or three columns partition the rows like groups by one, so the stated sensitivity
    (``grouped_sum``) must be exactly the largest change brute force finds, for both relations and k > 1."""
    statistic = make()
    s = schema(neighbouring, k=k, lower=-2.0, upper=3.0)
    found = brute_force_statistic(statistic, s, k)
    queries = statistic.queries(s)
    assert [q.name for q in queries] and len(found) == len(queries)
    for query, (l1, l2) in zip(queries, found):
        assert query.sensitivity.l1 == pytest.approx(l1, rel=1e-12), query.name
        assert query.sensitivity.l2 >= l2 * (1 - 1e-12) and query.sensitivity.l2 == pytest.approx(l2, rel=1e-9), query.name


def test_the_statistic_brute_force_catches_groups_treated_as_one_sum():
    """The check above is not vacuous: under substitute a person moved between two groups of (c2, c3) changes
    the vector by twice what one sum can, so the one-sum sensitivity is found too small."""
    s = schema(SUB, k=2, lower=-2.0, upper=3.0)
    statistic = Sum("x", by=("c2", "c3"))
    ((l1, _),) = brute_force_statistic(statistic, s, 2)
    one_sum = Sum("x").queries(s)[0].sensitivity.l1
    assert one_sum < l1


def weighted_schema(neighbouring, k):
    """``schema`` plus a weight column w in [0.5, 4], a missing weight imputed (so every row counts: a_min = 1;
    with missing weights dropped the stated sensitivity allows a person whose rows all vanish)."""
    base = schema(neighbouring, k=k, lower=-2.0, upper=3.0)
    weight = NumericColumn("w", lower=0.5, upper=4.0, missing=MissingPolicy(MissingAction.IMPUTE, 1.0))
    return Schema(columns=(*base.columns, weight), unit=base.unit,
                  neighbouring=neighbouring, public_size=base.public_size)


def brute_force_weighted(statistic, s, k: int) -> list[tuple[float, float]]:
    """As ``brute_force_statistic``, each row also taking the smallest or largest weight."""
    rows = [(x, c, c2, "p", w) for x, c, c2, w in itertools.product((-2.0, 3.0), ("a", "b"), ("u", "v"), (0.5, 4.0))]
    others = [(100, 2.0, "a", "u", "p", 1.0), (101, 0.0, "b", "v", "q", 3.5)]
    return brute_force_people(statistic, s, k, others, rows, ["pid", "x", "c", "c2", "c3", "w"])


@pytest.mark.parametrize("neighbouring", [ADD, SUB])
@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("make", [
    lambda: Count(weighted_by="w"),
    lambda: Count(by="c2", weighted_by="w"),
    lambda: Sum("x", weighted_by="w"),
    lambda: Sum("x", by=("c", "c2"), weighted_by="w"),
    lambda: Mean("x", weighted_by="w"),
    lambda: Mean("x", by="c2", weighted_by="w"),
    lambda: Histogram("c", weighted_by="w"),
    lambda: __import__("workbench.core.statistics", fromlist=["Proportion"]).Proportion("c", by="c2", weighted_by="w"),
], ids=["count", "count-by", "sum", "sum-by-2", "mean", "mean-by", "histogram", "proportion-by"])
def test_weighted_statistics_match_brute_force(make, k, neighbouring):
    """Issue 21, 3: a person's contribution is bounded by the weight bound times the value bound; the stated
    sensitivity (from the products' integer bounds) is exactly the largest change brute force finds."""
    statistic = make()
    s = weighted_schema(neighbouring, k)
    found = brute_force_weighted(statistic, s, k)
    queries = statistic.queries(s)
    assert len(found) == len(queries)
    for query, (l1, l2) in zip(queries, found):
        assert query.sensitivity.l1 == pytest.approx(l1, rel=1e-12), query.name
        assert query.sensitivity.l2 >= l2 * (1 - 1e-12) and query.sensitivity.l2 == pytest.approx(l2, rel=1e-9), query.name


def test_the_weighted_brute_force_catches_a_sensitivity_that_forgets_the_weight():
    s = weighted_schema(SUB, 2)
    ((l1, _),) = brute_force_weighted(Sum("x", weighted_by="w"), s, 2)
    unweighted = Sum("x").queries(s)[0]
    weighted = Sum("x", weighted_by="w").queries(s)[0]
    assert unweighted.sensitivity.l1 * unweighted.unit < l1 * weighted.unit  # in the column's units: too small
