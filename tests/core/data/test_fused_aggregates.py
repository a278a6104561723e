"""Requests that share their cells, answered together by a SQL engine (``SqlData.expect``): each answer is the one
its own query gives, cell for cell, and what a statistic declares it asks is what it asks."""

from __future__ import annotations

import numpy as np
import pytest
from engine_tables import STATISTICS, schema, survey_files

from workbench.core.data import load_table, prepare
from workbench.core.data.aggregates import Aggregate, Answer
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.statistics import statistic_from_json
from workbench.core.statistics.quantiles import Quantiles

QUANTILES = [Quantiles("income", by=("region", "sex"), levels=(0.1, 0.5, 0.9)), Quantiles("share")]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return survey_files(tmp_path_factory.mktemp("fused"))


def _statistics():
    return [statistic_from_json(described, "test") for described in STATISTICS] + QUANTILES


class _Recording:
    """Data that pass every request on and remember it."""

    def __init__(self, data):
        self.data, self.schema, self.asked = data, data.schema, []

    @property
    def rows(self) -> int:
        return self.data.rows

    def aggregate(self, request: Aggregate) -> Answer:
        self.asked.append(request)
        return self.data.aggregate(request)


def test_a_statistic_declares_the_requests_it_asks(files):
    plan_schema = schema()
    memory = prepare(load_table(files["parquet"]), plan_schema)
    with OutOfCoreData(file_source(files["parquet"]), plan_schema) as engine:
        for statistic in _statistics():
            recording = _Recording(memory)
            if isinstance(statistic, Quantiles):
                statistic.ranks(recording, statistic.candidates(plan_schema))
            else:
                statistic.exact(recording)
            declared = statistic.requests(plan_schema)
            assert [engine._request_key(r) for r in declared] == [engine._request_key(r) for r in recording.asked]


def test_fused_answers_are_each_requests_own_cell_for_cell(files):
    plan_schema = schema()
    requests = [request for statistic in _statistics() for request in statistic.requests(plan_schema)]
    with OutOfCoreData(file_source(files["parquet"]), plan_schema) as alone:
        expected = [alone.aggregate(request) for request in requests]
    with OutOfCoreData(file_source(files["parquet"]), plan_schema) as fused:
        queries = []
        run = fused._all
        fused._all = lambda query: queries.append(query) or run(query)
        fused.expect(requests)
        answers = [fused.aggregate(request) for request in requests]
    assert len(queries) < len(requests)  # some were answered together
    for request, ours, theirs in zip(requests, answers, expected):
        assert ours.size == theirs.size
        assert np.array_equal(ours.cells, theirs.cells), request
        assert list(ours.totals) == list(theirs.totals), request


def test_every_statistic_has_the_in_memory_answers_when_its_requests_are_fused(files):
    plan_schema = schema()
    memory = prepare(load_table(files["csv"]), plan_schema)
    statistics = _statistics()
    with OutOfCoreData(file_source(files["csv"]), plan_schema) as engine:
        engine.expect([request for statistic in statistics for request in statistic.requests(plan_schema)])
        for statistic in statistics:
            if isinstance(statistic, Quantiles):
                candidates = statistic.candidates(plan_schema)
                for ours, theirs in zip(statistic.ranks(engine, candidates), statistic.ranks(memory, candidates)):
                    assert ours.total == theirs.total
                    assert np.array_equal(ours.below(), theirs.below())
            else:
                assert statistic.exact(engine) == statistic.exact(memory), statistic.label


def test_a_release_leaves_no_exact_answer_in_the_engine(tmp_path):
    """The fused exact answers are private: once a release has its values (or fails), the engine keeps none of them."""
    import pandas as pd

    from workbench.core.data.schema import NumericColumn, Schema
    from workbench.core.privacy.events import Guarantee
    from workbench.core.privacy.mechanisms import MechanismKind
    from workbench.core.release.ledger import Ledger
    from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
    from workbench.core.release.run import release
    from workbench.core.statistics.counts import Count
    from workbench.core.statistics.moments import Mean, Sum

    path = tmp_path / "data.csv"
    pd.DataFrame({"x": [float(i % 11) for i in range(300)]}).to_csv(path, index=False)
    plan = ReleasePlan(
        dataset=DatasetDescription("fused"), schema=Schema((NumericColumn("x", lower=0, upper=10),)),
        statistics=tuple(PlannedStatistic(s, MechanismKind.LAPLACE, Budget(0.1)) for s in (Count(), Sum("x"), Mean("x"))),
        total=Budget(0.3))
    with OutOfCoreData(file_source(path), plan.used_schema()) as engine:
        release(file_source(path), plan, Ledger(tmp_path / "ledger.sqlite"), dataset_budget=Guarantee(10.0, 0.0, "total"),
                data=engine)
        assert not engine.__dict__.get("_answers") and not engine.__dict__.get("_fused")


def test_an_engine_refuses_a_file_with_more_rows_than_it_sums_exactly(tmp_path, monkeypatch):
    """Spark's exact sums hold below 2^41 rows; a file past an engine's limit is refused, never summed wrong."""
    from workbench.core.data.schema import NumericColumn, Schema
    from workbench.core.errors import DataFileError

    path = tmp_path / "data.csv"
    path.write_text("x\n1\n2\n3\n", encoding="utf-8")
    monkeypatch.setattr(OutOfCoreData, "_exact_rows", 3)
    with pytest.raises(DataFileError, match="3 rows, more than this engine sums exactly"):
        OutOfCoreData(file_source(path), Schema((NumericColumn("x", 0, 10),)))
    monkeypatch.setattr(OutOfCoreData, "_exact_rows", 4)
    with OutOfCoreData(file_source(path), Schema((NumericColumn("x", 0, 10),))) as engine:
        assert engine.rows == 3
