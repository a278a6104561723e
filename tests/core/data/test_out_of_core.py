"""The out-of-core engine (DuckDB on the file) gives the in-memory engine's exact answers, identically:
every statistic kind, by group, weighted, with k > 1 rows per person and missing values, from CSV and
Parquet. Then: it refuses what it cannot read with a message, and runs in less memory than the file."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from engine_tables import DROP, STATISTICS, schema, survey_files
from realistic_tables import REGIONS

from workbench.core.data import category_presence, load_table, prepare
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    Neighbouring,
    NumericColumn,
    PrivacyUnit,
    Schema,
)
from workbench.core.errors import DataFileError, SchemaError
from workbench.core.statistics import statistic_from_json
from workbench.core.statistics.quantiles import BoundsSearch, Quantiles


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return survey_files(tmp_path_factory.mktemp("out_of_core"))


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("neighbouring,k", [(Neighbouring.ADD_REMOVE, 2), (Neighbouring.SUBSTITUTE, 1)])
def test_every_statistic_has_identical_exact_answers_in_both_engines(files, kind, neighbouring, k):
    plan_schema = schema(k, neighbouring)
    table = load_table(files[kind])
    memory = prepare(table, plan_schema)
    with OutOfCoreData(file_source(files[kind]), plan_schema) as engine:
        assert engine.rows == memory.rows
        for described in STATISTICS:
            statistic = statistic_from_json(described, "test")
            assert statistic.exact(engine) == statistic.exact(memory), statistic.label
        for column in ("region", "state", "code", "ethnicity"):  # what the check of the public lists reads
            assert engine.category_presence(plan_schema.column(column)) == category_presence(
                table.frame[column], plan_schema.column(column)), column


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_the_ranks_behind_quantiles_and_bounds_search_are_identical(files, kind):
    plan_schema = schema()
    memory = prepare(load_table(files[kind]), plan_schema)
    with OutOfCoreData(file_source(files[kind]), plan_schema) as engine:
        for statistic in (Quantiles("income", by=("region", "sex"), levels=(0.1, 0.5, 0.9)), Quantiles("share"),
                          BoundsSearch("income")):
            candidates = statistic.candidates(plan_schema)
            ours, theirs = statistic.ranks(engine, candidates), statistic.ranks(memory, candidates)
            assert len(ours) == len(theirs) == statistic.group_count(plan_schema)
            for a, b in zip(ours, theirs):
                assert a.total == b.total
                assert np.array_equal(a.below(), b.below()) and np.array_equal(a.at_or_below(), b.at_or_below())


def test_ranks_count_values_equal_to_a_candidate_and_between_them(tmp_path):
    """Every kind of position: below the first candidate, on one, between two, on the last."""
    values = [0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 2.5, 10.0, np.nan]
    path = tmp_path / "ranks.csv"
    pd.DataFrame({"x": values}).to_csv(path, index=False)
    plan_schema = Schema((NumericColumn("x", 0, 10, missing=DROP),))
    statistic = Quantiles("x")
    candidates = (0.0, 1.0, 2.5, 10.0)
    with OutOfCoreData(file_source(path), plan_schema) as engine:
        (ranks,) = statistic.ranks(engine, candidates)
    assert ranks.below().tolist() == [0, 3, 6, 7] and ranks.at_or_below().tolist() == [2, 6, 7, 8]
    assert ranks.total == 8


def test_text_is_typed_as_pandas_types_it(tmp_path):
    """Leading zeros, whole floats, True/False, spaces and pandas' missing-value words."""
    path = tmp_path / "typed.csv"
    path.write_text("id,code,flag,level,x\n007,1.0,True,  a ,NA\n7,2.0,false,b,3\n8,NaN,TRUE,a ,n/a\n9,3,False,,4.5\n")
    plan_schema = Schema((
        IdentifierColumn("id"), CategoricalColumn("code", ("1", "2", "3")), CategoricalColumn("flag", ("True", "False")),
        CategoricalColumn("level", ("a", "b")), NumericColumn("x", 0, 10, missing=DROP),
    ), unit=PrivacyUnit("id", 1))
    table = load_table(path)
    memory = prepare(table, plan_schema)
    with OutOfCoreData(file_source(path), plan_schema) as engine:
        for column in ("code", "flag", "level"):
            assert engine.category_presence(plan_schema.column(column)) == category_presence(
                table.frame[column], plan_schema.column(column))
        assert engine.rows == memory.rows == 4  # 007 and 7 are two ids as written: two persons
        for described in ({"type": "histogram", "column": "code"}, {"type": "histogram", "column": "flag"},
                          {"type": "sum", "column": "x", "by": "level"}):
            statistic = statistic_from_json(described, "test")
            assert statistic.exact(engine) == statistic.exact(memory)


def test_what_it_cannot_read_is_refused_with_what_to_do(tmp_path):
    text = tmp_path / "wages.csv"
    text.write_text("wage\n100\nabout 200\n")
    with pytest.raises(SchemaError, match=r"'wage'.*numeric.*'about 200'"):
        OutOfCoreData(file_source(text), Schema((NumericColumn("wage", 0, 1000),)))
    with pytest.raises(SchemaError, match="not in wages.csv"):
        OutOfCoreData(file_source(text), Schema((NumericColumn("income", 0, 1000),)))
    workbook = tmp_path / "wages.xlsx"
    workbook.write_bytes(b"PK\x03\x04")
    with pytest.raises(DataFileError, match="CSV, TSV and Parquet"):
        file_source(workbook)
    unknown = tmp_path / "names.csv"
    unknown.write_bytes("名前,年齢\n山田,30\n".encode("shift_jis"))
    with pytest.raises(DataFileError, match="unknown text encoding 'klingon'"):
        file_source(unknown, encoding="klingon")


def test_a_file_twice_the_memory_limit_is_prepared_in_less_memory_than_the_file(tmp_path):
    """A CSV of about 250 MB through DuckDB held to 64 MB: the process's peak memory grows by well under the
    file's size over what the program takes to start (pandas would take about three times the file), and the
    answers equal pandas' on the same file."""
    rows = 1_500_000
    rng = np.random.default_rng(9)
    frame = pd.DataFrame({
        "person": rng.integers(0, rows // 2, rows), "region": rng.choice(REGIONS, rows),
        "income": np.round(rng.lognormal(7.5, 1.1, rows), 2), "hours": rng.integers(0, 80, rows),
        "note": rng.choice(["a long free-text comment that no statistic reads, as real files have them; " * 2], rows),
    })
    path = tmp_path / "large.csv"
    frame.to_csv(path, index=False)
    size = path.stat().st_size
    assert size > 2 * 64 * 2**20
    statistics = [{"type": "mean", "column": "income", "by": "region"}, {"type": "sum", "column": "hours"}]
    run = f"""
        from workbench.core.data.out_of_core import OutOfCoreData, file_source
        from workbench.core.data.schema import CategoricalColumn, IdentifierColumn, NumericColumn, PrivacyUnit, Schema
        from workbench.core.statistics import statistic_from_json
        schema = Schema((IdentifierColumn("person"), CategoricalColumn("region", {REGIONS!r}),
                         NumericColumn("income", 0, 100000), NumericColumn("hours", 0, 60)), unit=PrivacyUnit("person", 2))
        with OutOfCoreData(file_source({str(path)!r}), schema, memory_limit="64MB", threads=1) as engine:
            answers = [statistic_from_json(s, "test").exact(engine) for s in {statistics!r}]
    """
    started, _ = _peak_and_answers("answers = None\n" + textwrap.dedent(run).split("schema =")[0])
    peak, answers = _peak_and_answers(textwrap.dedent(run))
    assert peak - started < size / 2, (peak, started, size)  # the file never was in memory
    expected = prepare(load_table(path), Schema((
        IdentifierColumn("person"), CategoricalColumn("region", REGIONS), NumericColumn("income", 0, 100000),
        NumericColumn("hours", 0, 60)), unit=PrivacyUnit("person", 2)))
    assert answers == [list(map(list, statistic_from_json(s, "test").exact(expected))) for s in statistics]


def _peak_and_answers(script: str) -> tuple[int, object]:
    """Peak resident memory (bytes) of a fresh Python that runs ``script``, and the ``answers`` it leaves."""
    report = "\nimport json, resource\nprint(json.dumps([resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, answers]))"
    done = subprocess.run([sys.executable, "-c", script + report], check=True, capture_output=True, text=True)
    kilobytes, answers = json.loads(done.stdout.strip().splitlines()[-1])
    return kilobytes * 1024, answers  # Linux reports kilobytes


@pytest.mark.parametrize("bounds", [(0.0, 80.0), (-3.7, 12345.6789), (0.0, 1.0)])
def test_ranks_are_exact_at_every_candidate_and_one_ulp_either_side(tmp_path, bounds):
    """Evenly spaced candidates are found by a guess and a check (no join over all of them): the values where
    a guess could be off are the candidates themselves and their neighbouring doubles."""
    statistic = Quantiles("x")
    plan_schema = Schema((NumericColumn("x", *bounds),))
    candidates = np.asarray(statistic.candidates(plan_schema))
    values = np.concatenate([candidates, np.nextafter(candidates, -np.inf), np.nextafter(candidates, np.inf),
                             (candidates[1:] + candidates[:-1]) / 2])
    path = tmp_path / "edges.parquet"
    pd.DataFrame({"x": values}).to_parquet(path, index=False)
    memory = prepare(load_table(path), plan_schema)
    with OutOfCoreData(file_source(path), plan_schema) as engine:
        (ours,), (theirs,) = statistic.ranks(engine, candidates), statistic.ranks(memory, candidates)
    assert np.array_equal(ours.below(), theirs.below()) and np.array_equal(ours.at_or_below(), theirs.at_or_below())


@pytest.mark.parametrize("unit", [PrivacyUnit(), PrivacyUnit("person", 2)], ids=["row", "person"])
def test_two_columns_with_the_same_public_list_are_binned_each_by_its_own_values(tmp_path, unit):
    """Two yes/no questions share one public list (and so one lookup table in SQL): each column's bins are its own,
    identically to the in-memory engine, whether the rows are stored prepared in one pass or each person's first
    rows are binned after."""
    from workbench.core.statistics.counts import CrossTab

    path = tmp_path / "two_questions.csv"
    path.write_text("person,smokes,drinks,code\n1,yes,no,1\n2,no,yes,2\n2,yes,yes,1\n3,no,,2\n4,maybe,no,3\n",
                    encoding="utf-8")
    yes_no = ("yes", "no")
    plan_schema = Schema((IdentifierColumn("person"), CategoricalColumn("smokes", yes_no),
                          CategoricalColumn("drinks", yes_no), CategoricalColumn("code", ("1", "2"))), unit=unit)
    memory = prepare(load_table(path), plan_schema)
    with OutOfCoreData(file_source(path), plan_schema) as engine:
        for statistic in (CrossTab(columns=("smokes", "drinks")), CrossTab(columns=("drinks", "smokes", "code"))):
            assert statistic.exact(engine) == statistic.exact(memory), statistic.label
        for column in ("smokes", "drinks"):
            assert engine.category_presence(plan_schema.column(column)) == category_presence(
                load_table(path).frame[column], plan_schema.column(column)), column
