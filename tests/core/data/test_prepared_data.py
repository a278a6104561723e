"""The in-memory engine's prepared columns: a categorical column's bins kept as small integers answer every
aggregate as the same values kept as doubles (NaN where missing) do."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data.aggregates import Aggregate, Bins, Categories, Column, RankSlots, clip, rint
from workbench.core.data.io import Table
from workbench.core.data.prepare import PreparedData, prepare
from workbench.core.data.schema import (
    CategoricalColumn,
    MissingAction,
    MissingPolicy,
    NumericColumn,
    OutsideCategories,
    Schema,
)

ROWS = 3000


def _table() -> tuple[Table, Schema]:
    rng = np.random.default_rng(7)
    small = rng.choice(["a", "b", "c", "zz", "", None], size=ROWS)  # zz: outside the list
    wide = [None if i % 97 == 0 else f"w{rng.integers(0, 320)}" for i in range(ROWS)]  # 300 bins: 16-bit; w300 on: outside
    x = rng.normal(50, 30, size=ROWS).round(2).astype(object)
    x[::41] = None
    frame = pd.DataFrame({"small": small, "wide": wide, "x": x.astype(str), "y": rng.choice(["yes", "no"], ROWS)})
    frame.loc[frame["x"] == "None", "x"] = ""
    schema = Schema((
        CategoricalColumn("small", categories=("a", "b", "c"), outside=OutsideCategories.OTHER),
        CategoricalColumn("wide", categories=tuple(f"w{i}" for i in range(300)), outside=OutsideCategories.DROP),
        CategoricalColumn("y", categories=("yes", "no"), outside=OutsideCategories.DROP,
                          missing=MissingPolicy(MissingAction.IMPUTE, "no")),
        NumericColumn("x", lower=0, upper=100),
    ))
    return Table(frame=frame, source=Path("t.csv"), file_format="text"), schema


def _requests(schema: Schema) -> list[Aggregate]:
    small, wide, y = (Categories(schema.column(name)) for name in ("small", "wide", "y"))
    value = clip(rint(Column("x") * 100), 0, 10_000)
    return [
        Aggregate(("small",), (small,)),
        Aggregate(("wide", "small"), (wide, small)),  # 300 x 4 cells: more than a byte's codes hold
        Aggregate(("small", "wide", "y"), (small, wide, y)),
        Aggregate(("x", "wide"), (wide,), value),
        Aggregate(("x", "small"), (small, Bins("x", (10.0, 50.0))), value),
        Aggregate(("x", "y"), (y, RankSlots("x", tuple(float(c) for c in range(0, 101, 5))))),
        Aggregate(("x",), (), value),
        Aggregate(()),
    ]


def test_bins_kept_as_small_integers_answer_as_doubles_do():
    table, schema = _table()
    data = prepare(table, schema)
    assert data._bins("small").dtype == np.int8 and data._bins("wide").dtype == np.int16
    as_doubles = PreparedData(data.frame, schema)  # the same prepared values, categorical bins as doubles
    assert np.isnan(data.frame["small"]).any() and (data.frame["wide"] == -1).any()
    for request in _requests(schema):
        ours, theirs = data.aggregate(request), as_doubles.aggregate(request)
        assert ours.cells.tolist() == theirs.cells.tolist() and list(ours.totals) == list(theirs.totals), request
    assert data.aggregate(_requests(schema)[1]).cells.max() > 127


def test_a_categorical_column_reads_as_its_bins_with_missing_values_as_nan():
    table, schema = _table()
    frame = prepare(table, schema).frame
    assert frame["small"].dtype == np.float64
    small = table.frame["small"]
    assert (np.isnan(frame["small"]) == (small.isna() | (small == "")).to_numpy()).all()
    assert frame["small"][(small == "zz").to_numpy()].eq(3).all()  # the "other" bin
    assert not np.isnan(frame["y"]).any()  # imputed


@pytest.mark.parametrize("largest,expected", [(2, np.int8), (127, np.int8), (128, np.int16), (40_000, np.int32)])
def test_bins_take_the_smallest_integers_that_hold_them(largest, expected):
    from workbench.core.data.prepare import _smallest_integers

    assert _smallest_integers(largest) is expected


def test_counts_and_sums_that_leave_no_row_out_are_every_rows():
    """One cell, or cells every row is in (an "other" bin, no value missing): counted and summed over every row
    complete in the request's columns, as a plain count and a sum of Python integers say."""
    table, schema = _table()
    data = prepare(table, schema)
    frame = data.frame
    x = frame["x"].dropna()
    assert data.aggregate(Aggregate(())).totals == [len(frame)]
    assert data.aggregate(Aggregate(("x",))).totals == [len(x)]
    cents = clip(rint(Column("x") * 100), 0, 10_000)
    assert data.aggregate(Aggregate(("x",), (), cents)).totals == [sum(int(np.rint(v * 100)) for v in x)]
    y = Categories(schema.column("y"))  # imputed, both values in the list: no row left out
    answer = data.aggregate(Aggregate(("x", "y"), (y,), cents))
    for cell, total in zip(answer.cells, answer.totals):
        assert total == sum(int(np.rint(v * 100)) for v in frame.loc[frame["y"] == cell, "x"].dropna())
    counts = data.aggregate(Aggregate(("y",), (y,)))
    assert dict(zip(counts.cells.tolist(), counts.totals)) == frame["y"].value_counts().to_dict()


def _ranks_as_grouped(series: pd.Series) -> list[int]:
    """Each row's place among its person's rows, as pandas groups ``person_keys`` (the reading before
    ``person_ranks``): -1 for a row with no id."""
    from workbench.core.data.reading import person_keys

    keys = person_keys(series)
    known = keys.notna().to_numpy()
    ranks = np.full(len(series), -1, dtype=np.int64)
    ranks[known] = keys[known].groupby(keys[known], sort=False).cumcount().to_numpy()
    return ranks.tolist()


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", "string[python]", object, "int64", "Int64", "float64"])
def test_each_persons_rows_are_ranked_as_pandas_groups_their_ids(dtype):
    from workbench.core.data.reading import person_ranks

    rng = np.random.default_rng(11)
    if dtype in ("int64", "Int64", "float64"):
        values = rng.integers(-5, 40, size=5000).astype(object)
        if dtype != "int64":
            values[::13] = None
        series = pd.Series(values.tolist(), dtype=dtype)
        if dtype == "float64":
            series[::17] = -0.0  # the same person as 0
    else:
        spellings = ["a", " a", "a ", "\u00a0a", "b", "B", "", "NA", None, "  ", "ab", "é", "e\u0301"]
        series = _chunked_text([spellings[i] for i in rng.integers(0, len(spellings), size=5000)], dtype)
    assert person_ranks(series).tolist() == _ranks_as_grouped(series)
    assert person_ranks(series.iloc[:0]).tolist() == [] and person_ranks(series.iloc[:1]).tolist() == \
        _ranks_as_grouped(series.iloc[:1])


def _chunked_text(values: list, dtype) -> pd.Series:
    import pyarrow as pa

    chunks = [pa.array(values[i:i + 700], pa.large_string()) for i in range(0, len(values), 700)]
    return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks))).astype(dtype)


def test_each_person_keeps_their_first_rows_and_only_the_described_columns_are_read():
    from workbench.core.data.schema import IdentifierColumn, IgnoredColumn, PrivacyUnit

    frame = pd.DataFrame({"pid": [" p1", "p2", "p1", None, "p1 ", "p2", "p3", ""],
                          "x": ["1", "2", "3", "4", "5", "6", "7", "8"], "note": list("abcdefgh"),
                          "other": list("ABCDEFGH")})
    table = Table(frame=frame, source=Path("t.csv"), file_format="text")
    schema = Schema((IdentifierColumn("pid"), NumericColumn("x", lower=0, upper=10), IgnoredColumn("note")),
                    PrivacyUnit("pid", 2))
    from workbench.core.data.prepare import kept_rows

    kept = kept_rows(table, schema)
    assert kept["x"].tolist() == ["1", "2", "3", "6", "7"] and list(kept.columns) == ["pid", "x", "note"]
    assert prepare(table, schema).frame["x"].tolist() == [1.0, 2.0, 3.0, 6.0, 7.0]
    everyone = Schema(schema.columns, PrivacyUnit("pid", 5))
    assert kept_rows(Table(frame=frame.iloc[:3], source=Path("t.csv"), file_format="text"), everyone)["x"].tolist() \
        == ["1", "2", "3"]
