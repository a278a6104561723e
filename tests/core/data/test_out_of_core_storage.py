"""What the out-of-core engine stores per row (``SqlData._prepare``): a bin in the smallest integer type that holds
its public list's codes, and the text of a numeric column's value that is not a number only where the file stores
the column as text. The answers stay the in-memory engine's, whichever type holds the bins."""

from __future__ import annotations

import pandas as pd
import pytest

from workbench.core.data import category_presence, load_table, prepare
from workbench.core.data.aggregates import Aggregate, Categories
from workbench.core.data.fingerprint import ROW_HASH
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    NumericColumn,
    PrivacyUnit,
    Schema,
)
from workbench.core.errors import DataFileError, SchemaError
from workbench.core.statistics.counts import CrossTab, Histogram
from workbench.core.statistics.moments import Sum

MANY = tuple(f"c{i}" for i in range(2000))  # codes up to 2000: a SMALLINT; three such columns: 8e9 cells


def _table(rows: int = 300) -> pd.DataFrame:
    return pd.DataFrame({
        "person": [i // 2 for i in range(rows)],
        "few": [("yes", "no", "maybe", "")[i % 4] for i in range(rows)],
        "a": [f"c{(i * 7) % 2003}" for i in range(rows)],  # a few values outside the list
        "b": [f"c{(i * 13) % 1999}" for i in range(rows)],
        "c": [f"c{(i * 31) % 2000}" if i % 9 else "" for i in range(rows)],
        "amount": [float(i % 17) - 3.5 for i in range(rows)],
    })


def _schema(unit: PrivacyUnit) -> Schema:
    drop = MissingPolicy(MissingAction.DROP)
    return Schema((IdentifierColumn("person"), CategoricalColumn("few", ("yes", "no"), missing=drop),
                   CategoricalColumn("a", MANY), CategoricalColumn("b", MANY, outside="drop"),
                   CategoricalColumn("c", MANY, missing=MissingPolicy(MissingAction.IMPUTE, "c5")),
                   NumericColumn("amount", -10, 10)), unit=unit)


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("unit", [PrivacyUnit(), PrivacyUnit("person", 1)], ids=["row", "person"])
def test_bins_in_small_types_give_the_in_memory_answers_even_past_two_billion_cells(tmp_path, kind, unit):
    path = tmp_path / f"many.{kind}"
    frame = _table()
    frame.to_csv(path, index=False) if kind == "csv" else frame.to_parquet(path, index=False)
    plan_schema = _schema(unit)
    table = load_table(path)
    memory = prepare(table, plan_schema)
    with OutOfCoreData(file_source(path), plan_schema) as engine:
        for statistic in (Histogram("few"), Histogram("a"), CrossTab(columns=("few", "c")), Sum("amount", by=("b",))):
            assert statistic.exact(engine) == statistic.exact(memory), statistic.label
        columns = ("a", "b", "c")  # 2001 * 2000 * 2000 cells: past a 32-bit integer's range
        wide = Aggregate(columns, tuple(Categories(plan_schema.column(name)) for name in columns))
        ours, theirs = engine.aggregate(wide), memory.aggregate(wide)
        assert wide.size > 2**32 and ours.cells.tolist() == theirs.cells.tolist() and ours.totals == theirs.totals
        for column in ("few", "a", "b", "c"):
            assert engine.category_presence(plan_schema.column(column)) == category_presence(
                table.frame[column], plan_schema.column(column)), column
        stored = dict(engine._all("SELECT column_name, column_type FROM (DESCRIBE prepared)"))
    assert stored["few"] == "TINYINT" and stored["a"] == stored["b"] == stored["c"] == "SMALLINT"


@pytest.mark.parametrize("unit", [PrivacyUnit(), PrivacyUnit("person", 1)], ids=["row", "person"])
def test_cells_past_two_billion_give_the_in_memory_answers_on_spark_without_ansi(request, tmp_path, unit):
    """Cells are computed as BIGINT from the small stored bins (``_part_sql``): Spark with ANSI off would otherwise
    wrap a cell past a 32-bit integer's range silently."""
    from workbench.core.data.spark_engine import SparkData, spark_source

    path = tmp_path / "many.parquet"
    _table().to_parquet(path, index=False)
    plan_schema = _schema(unit)
    memory = prepare(load_table(path), plan_schema)
    columns = ("a", "b", "c")
    wide = Aggregate(columns, tuple(Categories(plan_schema.column(name)) for name in columns))
    with SparkData(spark_source(path), plan_schema, spark=request.getfixturevalue("spark_ansi_off")) as engine:
        ours, theirs = engine.aggregate(wide), memory.aggregate(wide)
    assert wide.size > 2**32 and ours.cells.tolist() == theirs.cells.tolist() and ours.totals == theirs.totals


def test_a_column_stored_as_numbers_keeps_no_not_a_number_text(tmp_path):
    frame = pd.DataFrame({"x": [1.5, None, 3.0], "y": ["1", "True", " 2 "]})
    parquet, csv = tmp_path / "t.parquet", tmp_path / "t.csv"
    frame.to_parquet(parquet, index=False)
    frame.to_csv(csv, index=False)
    plan_schema = Schema((NumericColumn("x", 0, 5), NumericColumn("y", 0, 5)))
    with OutOfCoreData(file_source(parquet), plan_schema) as engine:
        kept = {row[0] for row in engine._all("DESCRIBE file_rows")}
        assert engine.prepared_rows().equals(prepare(load_table(parquet), plan_schema).frame[["x", "y"]]
                                             .astype("float64").reset_index(drop=True))
    assert "dp_bad0" not in kept and "dp_bad1" in kept  # x is stored as numbers, y as text
    with OutOfCoreData(file_source(csv), plan_schema) as engine:
        assert {"dp_bad0", "dp_bad1"} <= {row[0] for row in engine._all("DESCRIBE file_rows")}
    csv.write_text("x,y\n1,2\nabc,3\n", encoding="utf-8")
    with pytest.raises(SchemaError, match="'x'.*not numbers"):
        OutOfCoreData(file_source(csv), plan_schema)


@pytest.mark.parametrize("unit", [PrivacyUnit(), PrivacyUnit("person", 1)], ids=["row", "person"])
def test_a_text_file_stored_in_many_compressed_parts_gives_the_in_memory_answers(tmp_path, monkeypatch, unit):
    """Each part of a text file is compressed once stored (a CHECKPOINT after its INSERT): the rows keep the file's
    order (each person's first rows are the file's), and every answer and the content digest are the in-memory
    engine's."""
    from workbench.core.data import out_of_core, text_files
    from workbench.core.data.fingerprint import content_digest

    monkeypatch.setattr(text_files, "BLOCK_BYTES", 16384)  # Arrow's blocks of a few hundred rows
    monkeypatch.setattr(out_of_core, "_PART_BYTES", 4096)  # each block a part of its own
    inserted = []
    run = OutOfCoreData._run
    monkeypatch.setattr(OutOfCoreData, "_run", lambda self, query, *rest, **named: (
        inserted.append(query.split(" ", 1)[0]), run(self, query, *rest, **named))[1])
    path = tmp_path / "many_parts.csv"
    _table(3000).to_csv(path, index=False)
    plan_schema = _schema(unit)
    table = load_table(path)
    memory = prepare(table, plan_schema)
    with OutOfCoreData(file_source(path), plan_schema) as engine:
        assert engine.rows == memory.rows
        for statistic in (Histogram("few"), CrossTab(columns=("few", "c")), Sum("amount", by=("b",))):
            assert statistic.exact(engine) == statistic.exact(memory), statistic.label
        assert engine.content_digest() == content_digest(table.frame)
        assert engine._all("SELECT count(*) FROM file_rows")[0][0] == 3000
        kinds = {row[0] for row in engine._all("SELECT DISTINCT compression FROM pragma_storage_info('file_rows')")}
        stored = {row[0] for row in engine._all("DESCRIBE file_rows")}
    assert inserted.count("INSERT") >= 4 and inserted.count("CHECKPOINT") == inserted.count("INSERT") + 1
    assert kinds - {"Uncompressed"}, kinds  # compressed, not kept as inserted
    assert not stored & set(ROW_HASH), stored  # the rows' hashes added up part by part, not stored


def test_the_hashes_added_up_part_by_part_are_the_sums_of_all_the_rows():
    """``_added``: counts and hash halves summed exactly past 64 bits; a part without rows (SQL's sum: None) adds
    nothing."""
    from workbench.core.data.out_of_core import _added

    big = 2**64 - 1
    assert _added((0, None, None), (2, big, 5)) == (2, big, 5)
    assert _added((2, big, 5), (0, None, None)) == (2, big, 5)
    assert _added((2, big, 5), (3, big, 7)) == (5, 2 * big, 12)


@pytest.fixture
def spark_ansi_off(spark):
    """The Spark session with ANSI mode off, where a cast that overflows wraps silently instead of failing: a bin or
    a cell stored in too small a type would give wrong answers, not an error."""
    before = spark.conf.get("spark.sql.ansi.enabled")
    spark.conf.set("spark.sql.ansi.enabled", "false")
    yield spark
    spark.conf.set("spark.sql.ansi.enabled", before)


def _engines(request, path, plan_schema):
    """The Spark engine (ANSI off, where a wrong type gives wrong answers rather than an error) and the out-of-core
    engine on the same file."""
    from workbench.core.data.spark_engine import SparkData, spark_source

    yield SparkData(spark_source(path), plan_schema, spark=request.getfixturevalue("spark_ansi_off"))
    yield OutOfCoreData(file_source(path), plan_schema)


@pytest.mark.parametrize("n", [127, 128, 32767, 32768])
def test_a_list_at_the_edge_of_a_small_type_keeps_its_other_and_imputed_values(request, tmp_path, n):
    """The codes of a list of n categories run up to n (its "other" value): at 127 and 32767 categories they fit a
    TINYINT and a SMALLINT, at 128 and 32768 they need the next type (Spark without ANSI would wrap 128 to -128)."""
    values = ["c0", f"c{n - 1}", "zzz", "", "c1", "yyy", f"c{n - 2}", ""]
    path = tmp_path / "edge.csv"
    pd.DataFrame({"v": values * 3, "w": ["other", "", "x"] * 8}).to_csv(path, index=False)
    categories = tuple(f"c{i}" for i in range(n))
    plan_schema = Schema((CategoricalColumn("v", categories, missing=MissingPolicy(MissingAction.IMPUTE, "c1")),
                          CategoricalColumn("w", ("x",), missing=MissingPolicy(MissingAction.IMPUTE, "absent"))))
    memory = prepare(load_table(path), plan_schema)
    expected = [Histogram(c).exact(memory) for c in ("v", "w")]
    assert expected[0][0][n] == 6 and expected[0][0][1] == 9  # the "other" and the imputed rows are counted
    for engine in _engines(request, path, plan_schema):
        with engine:
            assert [Histogram(c).exact(engine) for c in ("v", "w")] == expected, type(engine).__name__


@pytest.mark.parametrize("declared, kind", [
    ("INTEGER[]", "other"), ("VARCHAR[]", "other"), ("INTERVAL", "other"), ("STRUCT(a BIGINT)", "other"),
    ("MAP(VARCHAR, INTEGER)", "other"), ("TIME", "other"), ("BLOB", "other"), ("UUID", "other"),
    ("TINYINT", "integer"), ("UBIGINT", "integer"), ("HUGEINT", "integer"), ("INTEGER", "integer"),
    ("DECIMAL(18,3)", "decimal"), ("DOUBLE", "float"), ("FLOAT", "float"), ("BOOLEAN", "truth"), ("VARCHAR", "text"),
    ("DATE", "date"), ("TIMESTAMP_NS", "timestamp"), ("TIMESTAMP WITH TIME ZONE", "timestamp"),
])
def test_a_parquet_type_is_read_by_its_whole_name(declared, kind):
    from workbench.core.data.out_of_core import stored_kind_of

    assert stored_kind_of(declared) == (kind, declared.endswith("TIME ZONE"))


@pytest.mark.parametrize("values", [[["a"], [], None], [{"a": 1}, {"a": 2}, None]], ids=["list", "struct"])
def test_a_parquet_column_of_lists_or_structs_is_refused_out_of_core_with_what_to_do(tmp_path, values):
    """The in-memory engine hashes such a value as Python writes it, DuckDB otherwise: the out-of-core engine
    refuses the file (even when the plan does not use the column) rather than give it another content digest."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    path = tmp_path / "nested.parquet"
    pq.write_table(pa.table({"x": [1.5, 2.0, None], "nested": pa.array(values)}), path)
    plan_schema = Schema((NumericColumn("x", 0, 5),))
    assert Sum("x").exact(prepare(load_table(path), plan_schema))  # in memory it loads
    with pytest.raises(DataFileError, match="column 'nested' holds .*in-memory engine"):
        OutOfCoreData(file_source(path), plan_schema)
