"""The Spark engine (Spark's local mode here; a cluster in use) gives the in-memory engine's exact answers,
identically, on the tables the out-of-core engine is checked on; and the command line releases through it.

Java and PySpark are installed by the project's setup (``./dev``), so these tests run in CI, never skip."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from engine_tables import STATISTICS, schema, survey_files

from workbench.core.data import category_presence, load_table, prepare
from workbench.core.data.schema import Neighbouring
from workbench.core.data.spark_engine import SparkData, spark_location, spark_source, start_session
from workbench.core.errors import PlanError
from workbench.core.statistics import statistic_from_json
from workbench.core.statistics.quantiles import BoundsSearch, Quantiles


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return survey_files(tmp_path_factory.mktemp("spark"), 3000)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("neighbouring,k", [(Neighbouring.ADD_REMOVE, 2), (Neighbouring.SUBSTITUTE, 1)])
def test_every_statistic_has_identical_exact_answers_on_spark(spark, files, kind, neighbouring, k):
    plan_schema = schema(k, neighbouring)
    table = load_table(files[kind])
    memory = prepare(table, plan_schema)
    with SparkData(spark_source(files[kind]), plan_schema, spark=spark) as engine:
        assert engine.rows == memory.rows
        for described in STATISTICS:
            statistic = statistic_from_json(described, "test")
            assert statistic.exact(engine) == statistic.exact(memory), statistic.label
        quantiles = Quantiles("income", by=("region", "sex"), levels=(0.1, 0.5, 0.9))
        candidates = quantiles.candidates(plan_schema)
        for ours, theirs in zip(quantiles.ranks(engine, candidates), quantiles.ranks(memory, candidates)):
            assert ours.total == theirs.total and np.array_equal(ours.below(), theirs.below())
            assert np.array_equal(ours.at_or_below(), theirs.at_or_below())
        for column in ("region", "code", "ethnicity"):
            assert engine.category_presence(plan_schema.column(column)) == category_presence(
                table.frame[column], plan_schema.column(column)), column


def test_requests_that_share_their_cells_are_answered_together_on_spark_with_the_in_memory_answers(spark, files):
    """Fused as out of core (``SqlData.expect``): one job per set of cells, each answer its own query's."""
    plan_schema = schema(2, Neighbouring.ADD_REMOVE)
    memory = prepare(load_table(files["parquet"]), plan_schema)
    statistics = [statistic_from_json(described, "test") for described in STATISTICS]
    quantiles = Quantiles("income", by=("region", "sex"), levels=(0.1, 0.5, 0.9))
    requests = [request for statistic in [*statistics, quantiles] for request in statistic.requests(plan_schema)]
    with SparkData(spark_source(files["parquet"]), plan_schema, spark=spark) as engine:
        queries = []
        run = engine._all
        engine._all = lambda query: queries.append(query) or run(query)
        engine.expect(requests)
        for statistic in statistics:
            assert statistic.exact(engine) == statistic.exact(memory), statistic.label
        candidates = quantiles.candidates(plan_schema)
        for ours, theirs in zip(quantiles.ranks(engine, candidates), quantiles.ranks(memory, candidates)):
            assert ours.total == theirs.total and np.array_equal(ours.below(), theirs.below())
    assert 0 < len(queries) < len(requests)  # some were answered together


def test_a_bounds_search_is_refused_on_spark_with_where_to_run_it(spark, files):
    plan_schema = schema()
    with SparkData(spark_source(files["parquet"]), plan_schema, spark=spark) as engine:
        statistic = BoundsSearch("income")
        with pytest.raises(PlanError, match="in-memory or out-of-core"):
            statistic.ranks(engine, statistic.candidates(plan_schema))


def test_cluster_locations_survive_a_command_line_path():
    assert spark_location(Path("hdfs://namenode/surveys/2026.csv")) == "hdfs://namenode/surveys/2026.csv"
    assert spark_location("hdfs:/surveys/2026.csv") == "hdfs:/surveys/2026.csv"  # as written: the default namenode
    assert spark_location("s3a://bucket/key.parquet") == "s3a://bucket/key.parquet"
    assert spark_location("relative.csv").endswith("/relative.csv")
    source = spark_source("hdfs://namenode/surveys/2026.tsv")
    # nothing is read here (the file may live on the cluster): the delimiter and encoding not given are decided
    # from the file's first line when Spark opens it, as the other engines decide them
    assert source.delimiter is None and source.encoding is None and source.file_format == "text"
    assert spark_source("hdfs://namenode/surveys/2026.tsv", delimiter=";").delimiter == ";"


def test_release_with_engine_spark_from_the_command_line(sample_path, sample_plan_path, tmp_path, capsys):
    from workbench.cli import main

    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out), "--engine", "spark",
                 "--spark-master", "local[2]", "--ledger", str(tmp_path / "ledger.sqlite"),
                 "--dataset-budget", "3", "1e-6"]) == 0
    printed = capsys.readouterr().out
    assert "Spark" in printed and "Total: ε = 1" in printed
    result = json.loads((out / "results.json").read_text())
    mean_income = next(s for s in result["statistics"] if s["label"] == "mean of annual_income")
    assert 10_000 < mean_income["cells"][0]["value"] < 35_000  # the exact mean is about 21,000


def test_what_spark_cannot_read_is_refused_with_what_to_do(spark, tmp_path):
    from workbench.core.data.schema import NumericColumn, Schema
    from workbench.core.errors import SchemaError

    text = tmp_path / "wages.csv"
    text.write_text("wage\n100\nabout 200\n")
    with pytest.raises(SchemaError, match=r"'wage'.*numeric.*'about 200'"):
        SparkData(spark_source(text), Schema((NumericColumn("wage", 0, 1000),)), spark=spark)
    with pytest.raises(SchemaError, match="not in wages.csv"):
        SparkData(spark_source(text), Schema((NumericColumn("income", 0, 1000),)), spark=spark)


@pytest.mark.parametrize("k", [1, 2])
def test_two_columns_with_the_same_public_list_are_binned_each_by_its_own_values_on_spark(spark, tmp_path, k):
    """Two yes/no questions share one public list, and so one lookup table: each column's bins are its own."""
    from workbench.core.data.schema import CategoricalColumn, IdentifierColumn, PrivacyUnit, Schema
    from workbench.core.statistics.counts import CrossTab

    path = tmp_path / "two_questions.csv"
    path.write_text("person,smokes,drinks\n1,yes,no\n2,no,yes\n2,yes,yes\n3,no,\n4,maybe,no\n", encoding="utf-8")
    unit = PrivacyUnit() if k == 1 else PrivacyUnit("person", k)
    plan_schema = Schema((IdentifierColumn("person"), CategoricalColumn("smokes", ("yes", "no")),
                          CategoricalColumn("drinks", ("yes", "no"))), unit=unit)
    memory = prepare(load_table(path), plan_schema)
    with SparkData(spark_source(path), plan_schema, spark=spark) as engine:
        statistic = CrossTab(columns=("smokes", "drinks"))
        assert statistic.exact(engine) == statistic.exact(memory)
