"""What a synthetic table measures is read as every other statistic reads it (issues 34 and 36): each value by itself
through the engine's prepared rows, categories as their public bins, numbers cut at the public edges, each person's
first k rows only. In memory, out of core (DuckDB) and on Spark the joint counts handed to OpenDP are identical, and
the same as those of a file from which each person's later rows were removed by hand: truncation happens before
anything is counted."""

from __future__ import annotations

import pandas as pd
import pytest
from engine_tables import schema, survey_files

from workbench.core.data import load_table, prepare
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import Neighbouring
from workbench.core.data.spark_engine import SparkData, spark_source
from workbench.core.synthetic import SyntheticTable
from workbench.core.synthetic.fit import _joint_counts


# categories kept as "(other)" or dropped, an imputed missing value, numbers with missing values dropped or imputed
TABLE = SyntheticTable(("region", "sex", "code", "ethnicity", "income", "hours"),
                       edges=(("income", (1000, 2500, 10000)), ("hours", (20, 40))))


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synthetic-engines")
    found = survey_files(folder, 3000)
    for k in (1, 2):  # each person's first k rows in file order, kept by hand, every text as it was written
        text = pd.read_csv(found["csv"], dtype=str, keep_default_na=False)
        text[text.groupby("person", sort=False).cumcount() < k].to_csv(folder / f"first-{k}.csv", index=False)
        found[f"first-{k}"] = folder / f"first-{k}.csv"
    return found


def _counts(answer) -> tuple[list[int], list[int]]:
    return answer.cells.tolist(), [int(t) for t in answer.totals]


@pytest.mark.parametrize("neighbouring,k", [(Neighbouring.ADD_REMOVE, 2), (Neighbouring.SUBSTITUTE, 1)])
def test_every_engine_counts_the_same_cells_from_each_persons_first_k_rows(spark, files, neighbouring, k):
    plan_schema = schema(k, neighbouring)
    axes = TABLE.axes(plan_schema)
    truncated_by_hand = _counts(_joint_counts(prepare(load_table(files[f"first-{k}"]), plan_schema), axes))
    untruncated = _counts(_joint_counts(prepare(load_table(files["csv"]), schema(100, neighbouring)), axes))
    assert untruncated != truncated_by_hand  # some persons have more than k rows: the test has teeth
    for kind in ("csv", "parquet"):
        memory = _counts(_joint_counts(prepare(load_table(files[kind]), plan_schema), axes))
        with OutOfCoreData(file_source(files[kind]), plan_schema) as engine:
            disk = _counts(_joint_counts(engine, axes))
        with SparkData(spark_source(files[kind]), plan_schema, spark=spark) as engine:
            cluster = _counts(_joint_counts(engine, axes))
        assert memory == truncated_by_hand, kind
        assert disk == truncated_by_hand, kind
        assert cluster == truncated_by_hand, kind
