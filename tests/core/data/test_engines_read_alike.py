"""Every engine reads each value the same way (issue 34): the cases where the in-memory, out-of-core and Spark
engines read a file differently before, each now read alike, value by value, or refused alike with the same
message."""

from __future__ import annotations

import decimal
import functools
import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from workbench.core.data import load_table, prepare
from workbench.core.data.fingerprint import content_digest
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    NumericColumn,
    OutsideCategories,
    PrivacyUnit,
    Schema,
)
from workbench.core.data.spark_engine import SparkData, spark_source
from workbench.core.errors import DataFileError, WorkbenchError

DROP = MissingPolicy(MissingAction.DROP)
ENGINES = ["memory", "out-of-core", "spark"]


def prepared(engine: str, path: Path, schema: Schema, spark=None, **options) -> list[tuple]:
    """The prepared rows, in file order (Spark's in order of their first column)."""
    if engine == "memory":
        frame = prepare(load_table(path, **options), schema).prepared_rows()
    elif engine == "out-of-core":
        with OutOfCoreData(file_source(path, **options), schema) as data:
            frame = data.prepared_rows()
    else:
        with SparkData(spark_source(path, **options), schema, spark=spark) as data:
            frame = data.prepared_rows().sort_values(list(data.prepared_rows().columns[:1]), kind="stable")
    return [tuple(None if isinstance(v, float) and math.isnan(v) else v + 0.0 for v in row)
            for row in frame.itertuples(index=False)]


@pytest.fixture
def session(request):
    return request.getfixturevalue("spark") if "spark" in request.node.callspec.params.values() else None


@pytest.mark.parametrize("engine", ENGINES)
def test_unicode_white_space_is_trimmed_by_every_engine(tmp_path, engine, session):
    """'a\\xa0' (as Excel exports write it) is the category a, and '5\\xa0' the number 5, everywhere."""
    path = tmp_path / "spaces.csv"
    path.write_text("n,word\n1,a\xa0\n2,\u3000b\n3,c\u2003\n4,\x85a\n5\xa0,a\u202f\n", encoding="utf-8")
    schema = Schema((NumericColumn("n", 0, 10), CategoricalColumn("word", ("a", "b", "c"))))
    assert prepared(engine, path, schema, session) == [(1.0, 0.0), (2.0, 1.0), (3.0, 2.0), (4.0, 0.0), (5.0, 0.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_blank_lines_are_no_rows_in_every_engine(tmp_path, engine, session):
    path = tmp_path / "blank.csv"
    path.write_text("x\n\n1\n\n2\n")
    assert prepared(engine, path, Schema((NumericColumn("x", 0, 10, missing=DROP),)), session) == [(1.0,), (2.0,)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("content,message", [
    ("a,b\n", "has column names but no rows"),
    ("a,a,b\n1,2,3\n", "several columns are called 'a'"),
    ("a, a\n1,2\n", "several columns are called 'a'"),
])
def test_a_header_without_rows_and_repeated_names_are_refused_by_every_engine(tmp_path, engine, session, content,
                                                                               message):
    path = tmp_path / "odd.csv"
    path.write_text(content)
    with pytest.raises(DataFileError, match=message):
        prepared(engine, path, Schema((NumericColumn("b", 0, 10),)), session)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("added", ['5,"north\n', '5,"north\r\n', '5,"no\nrth"\n', '5,"no\rrth"\n', '5,"north\n6,"south"\n'],
                         ids=["a quote left open", "left open, CR LF", "a line break in quotes", "a CR in quotes",
                              "left open, closed by another row's"])
def test_one_row_cannot_change_how_the_rows_after_it_are_read(tmp_path, engine, session, added):
    """A helper's audit: one row whose quotation mark is left open took in every row after it as one value, on every
    engine (201 rows counted 1), until the next quotation mark: one person's row changed how the rows of others
    were read. A value holding a line break is now refused by every engine, in a column the plan reads or not; the
    file without that row is read as before."""
    rows = "".join(f"{i},{'south' if i % 2 else 'north'}\n" for i in range(200))
    schema = Schema((CategoricalColumn("region", ("north", "south")),))
    plain = tmp_path / "plain.csv"
    plain.write_text("id,region\n" + rows)
    assert len(prepared(engine, plain, schema, session)) == 200
    for name, plan in (("region", schema), ("id", Schema((NumericColumn("id", 0, 1000),)))):
        neighbour = tmp_path / f"neighbour-{name}.csv"
        neighbour.write_bytes(("id,region\n" + rows[:40] + added + rows[40:]).encode("utf-8"))
        with pytest.raises(DataFileError, match=r"holds a line break: a quoted value spans lines, or a quotation mark "
                                                r"is left open.*save the table as Parquet"):
            prepared(engine, neighbour, plan, session)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_column_name_holding_a_line_break_is_refused_by_every_engine(tmp_path, engine, session):
    path = tmp_path / "named.csv"
    path.write_text('id,"reg\nion"\n1,north\n')
    with pytest.raises(DataFileError, match="a column's name holds a line break"):
        prepared(engine, path, Schema((NumericColumn("id", 0, 10),)), session)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_names_that_differ_only_in_case_are_read_or_refused_with_what_to_do(tmp_path, engine, session, suffix):
    """'a' beside 'A' are two columns in memory. Out of core a plan reading both computed 'A''s statistics from 'a'
    (DuckDB finds a name whatever its case), and Spark stopped with its own AMBIGUOUS_REFERENCE or COLUMN_ALREADY_EXISTS
    (a helper's review). Both now refuse, saying what to do; out of core a plan reading one of them is read."""
    path = tmp_path / f"cased.{suffix}"
    frame = pd.DataFrame({"a": [1, 2], "A": [3, 4], "b": [5, 6]})
    frame.to_csv(path, index=False) if suffix == "csv" else frame.to_parquet(path, index=False)
    both, one = Schema((NumericColumn("a", 0, 10), NumericColumn("A", 0, 10))), Schema((NumericColumn("A", 0, 10),))
    if engine == "memory":
        assert prepared(engine, path, both, session) == [(1.0, 3.0), (2.0, 4.0)]
    else:  # out of core a statistic of 'A' was 'a's: the prepared rows named both 'a', as DuckDB finds names
        with pytest.raises(DataFileError, match=r"the columns 'A', 'a' differ only in upper and lower case.*with the "
                                                r"in-memory engine|two columns are named '[aA]' when upper and lower "
                                                r"case are not told apart.*in-memory engine reads the file"):
            prepared(engine, path, both, session)
    if engine != "spark":  # one of them in the plan: read by every engine but Spark, which refuses the file
        assert prepared(engine, path, one, session) == [(3.0,), (4.0,)]


@pytest.mark.parametrize("engine", ENGINES)
def test_parquet_nan_is_missing_and_decimals_and_large_integers_are_read_as_stored(tmp_path, engine, session):
    """NaN in a numeric column is missing (out of core it was clamped to the upper bound), NaN in a categorical
    column is missing (not the text 'nan'), a decimal 1.50 is the category 1.5, and a uint64 id 2^64 - 1 is one
    person, not rounded through a double into another one's."""
    table = pa.table({
        "person": pa.array([2**64 - 1, 2**64 - 2, 2**64 - 1, 7], pa.uint64()),
        "x": pa.array([1.0, math.nan, 3.0, 4.0]),
        "c": pa.array([1.0, math.nan, 2.0, 1.0]),
        "d": pa.array([decimal.Decimal("1.50"), decimal.Decimal("2.00"), None, decimal.Decimal("1.5")],
                      pa.decimal128(5, 2)),
    })
    path = tmp_path / "typed.parquet"
    pq.write_table(table, path)
    schema = Schema((IdentifierColumn("person"), NumericColumn("x", 0, 2, missing=DROP),
                     CategoricalColumn("c", ("1", "2")), CategoricalColumn("d", ("1.5", "2"))),
                    unit=PrivacyUnit("person", 1))
    rows = prepared(engine, path, schema, session)
    assert sorted(rows, key=str) == sorted([(1.0, 0.0, 0.0), (None, None, 1.0), (2.0, 0.0, 0.0)], key=str)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_text_column_of_nan_words_is_missing_in_every_engine(tmp_path, engine, session):
    """A Parquet column of texts 'NaN' described as numeric: missing values everywhere (it was refused in memory
    and released out of core)."""
    path = tmp_path / "words.parquet"
    pd.DataFrame({"x": ["NaN", "1", "NaN", "n/a"]}).to_parquet(path)
    rows = prepared(engine, path, Schema((NumericColumn("x", 0, 5, missing=DROP),)), session)
    assert sorted(rows, key=repr) == [(1.0,), (None,), (None,), (None,)]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_windows_1252_and_latin_1_text_is_read_by_every_engine(tmp_path, engine, session, encoding):
    path = tmp_path / "towns.csv"
    path.write_bytes("town;n\nKöln;1\nZürich;2\nÅre;3\n".encode(encoding))
    schema = Schema((CategoricalColumn("town", ("Köln", "Zürich", "Åre")), NumericColumn("n", 0, 5)))
    assert prepared(engine, path, schema, session, delimiter=";", encoding=encoding) == [
        (0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_one_persons_windows_1252_row_never_changes_how_the_others_are_read(tmp_path, engine, session):
    """The audit's neighbours: 399 rows of café, thé, eau in UTF-8, and the same with one row 'José' in
    Windows-1252. A guess from the content once read the second as HP Roman-8 (café 0, (other) 268). Now no
    engine guesses: every engine refuses the file (nothing is released) unless its encoding is declared, also
    when the odd byte comes after the first megabyte, which decides the encoding (Spark read it as U+FFFD, in that
    value alone, and released)."""
    drinks = ("café", "thé", "eau")
    rows = "".join(f"{i},{drinks[i % 3]}\n" for i in range(399))
    base, added, late = tmp_path / "base.csv", tmp_path / "added.csv", tmp_path / "late.csv"
    base.write_bytes(("n,drink\n" + rows).encode("utf-8"))
    added.write_bytes(base.read_bytes() + "399,José\n".encode("cp1252"))
    long_rows = "".join(f"{i % 1000},{drinks[i % 3]}\n" for i in range(200_000))
    late.write_bytes(("n,drink\n" + long_rows).encode("utf-8") + "399,José\n".encode("cp1252"))
    assert late.read_bytes().index("José".encode("cp1252")) > 1 << 20
    schema = Schema((NumericColumn("n", 0, 1000), CategoricalColumn("drink", drinks, outside=OutsideCategories.OTHER)))
    before = prepared(engine, base, schema, session)
    assert [row[1] for row in before] == [float(i % 3) for i in range(399)]
    with pytest.raises(DataFileError, match="not UTF-8 text"):
        prepared(engine, added, schema, session)
    with pytest.raises(DataFileError, match="not UTF-8 text|not valid utf-8"):
        prepared(engine, late, schema, session)
    assert len(prepared(engine, late, schema, session, encoding="cp1252")) == 200_001  # declared: read


@pytest.mark.parametrize("engine", ENGINES)
def test_the_delimiter_is_the_one_that_splits_the_header_on_every_engine(tmp_path, engine, session):
    """A semicolon-separated .csv (as Excel writes one where the decimal mark is a comma) is split by semicolons on
    every engine, as its header says (Spark split it by the suffix's comma: one column, 'n;drink')."""
    path = tmp_path / "semicolons.csv"
    path.write_text("n;drink\n1;tea\n2;coffee,black\n3;tea\n", encoding="utf-8")
    schema = Schema((NumericColumn("n", 0, 10), CategoricalColumn("drink", ("tea", "coffee,black"))))
    assert prepared(engine, path, schema, session) == [(1.0, 0.0), (2.0, 1.0), (3.0, 0.0)]
    with pytest.raises(WorkbenchError):  # a delimiter given is the one used: one column, and a ragged row
        prepared(engine, path, schema, session, delimiter=",")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_utf_16_file_with_its_byte_order_mark_is_read_as_utf_16_on_every_engine(tmp_path, engine, session):
    """An undeclared file's byte-order mark declares its encoding on every engine (Spark read a UTF-16 file as
    UTF-8 and could not find its columns), and its header decides the delimiter there too."""
    path = tmp_path / "export.csv"
    path.write_bytes("town\tn\nKöln\t1\nZürich\t2\nÅre\t3\n".encode("utf-16"))
    schema = Schema((CategoricalColumn("town", ("Köln", "Zürich", "Åre")), NumericColumn("n", 0, 5)))
    assert prepared(engine, path, schema, session) == [(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_codes_are_read_by_themselves_whatever_else_the_column_holds(tmp_path, engine, session):
    """'01' and '1' are the category 1 by number, and stay so when another row holds a letter; '1.0' is 1 when
    another row holds 1.5; ±0 are one value, whichever comes first."""
    schema = Schema((NumericColumn("tag", 0, 100), CategoricalColumn("code", ("0", "1", "1.5"),
                                                                     outside=OutsideCategories.OTHER)))
    plain, mixed = tmp_path / "plain.csv", tmp_path / "mixed.csv"
    plain.write_text("tag,code\n1,01\n2,1\n3,1.0\n4,-0\n5,0.0\n")
    mixed.write_text("tag,code\n1,01\n2,1\n3,1.0\n4,-0\n5,0.0\n6,A\n7,1.5\n")
    expected = [(1.0, 1.0), (2.0, 1.0), (3.0, 1.0), (4.0, 0.0), (5.0, 0.0)]
    assert prepared(engine, plain, schema, session) == expected
    assert prepared(engine, mixed, schema, session) == [*expected, (6.0, 3.0), (7.0, 2.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_ids_are_persons_by_their_own_text(tmp_path, engine, session):
    """'00001', '1' and '1.0' are three ids in a text file, whether or not another row holds an id like 'A1'."""
    schema = Schema((IdentifierColumn("id"), NumericColumn("tag", 0, 100)), unit=PrivacyUnit("id", 1))
    plain, mixed = tmp_path / "plain.csv", tmp_path / "mixed.csv"
    plain.write_text("id,tag\n00001,1\n1,2\n1.0,3\n 1 ,4\n")
    mixed.write_text("id,tag\n00001,1\n1,2\n1.0,3\n 1 ,4\nA1,5\n")
    assert prepared(engine, plain, schema, session) == [(1.0,), (2.0,), (3.0,)]  # ' 1 ' is the id 1, seen already
    assert prepared(engine, mixed, schema, session) == [(1.0,), (2.0,), (3.0,), (5.0,)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_nan_id_is_no_person_out_of_core_too(tmp_path, engine, session):
    """Rows whose id is NaN belong to nobody known and are left out; out of core (and on Spark) they made one
    pseudo-person whose first k rows were kept, so one person added with a NaN id could displace another's row."""
    path = tmp_path / "ids.parquet"
    pd.DataFrame({"id": [math.nan, 1.0, math.nan, 2.0, math.nan], "tag": [1, 2, 3, 4, 5]}).to_parquet(path)
    schema = Schema((IdentifierColumn("id"), NumericColumn("tag", 0, 100)), unit=PrivacyUnit("id", 1))
    assert sorted(prepared(engine, path, schema, session)) == [(2.0,), (4.0,)]


@pytest.mark.parametrize("engine", ENGINES)
def test_text_in_a_numeric_column_is_refused_alike(tmp_path, engine, session):
    path = tmp_path / "wages.csv"
    path.write_text("wage\n100\nabout 200\n1 200\n")
    with pytest.raises(WorkbenchError, match=r"'wage'.*2 of its values are not numbers"):
        prepared(engine, path, Schema((NumericColumn("wage", 0, 1000),)), session)


def pandas_indexed(folder: Path) -> dict[str, Path]:
    """Parquet files pandas wrote with their index (``df.to_parquet(path)``): a named index (``pid``, stored as a
    column of that name after the others), an unnamed index of row labels (stored as ``__index_level_0__``), two
    levels of which one is named, a RangeIndex (stored in the metadata alone), and a named RangeIndex (``pid``
    10, 13, 16, 19: in the metadata alone too, as pandas 3 makes of ``set_index('pid')`` on evenly spaced ids; in
    two row groups)."""
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "c": ["u", "v", "u", "w"]})
    paths = {kind: folder / f"{kind}.parquet" for kind in ("named", "unnamed", "levels", "range", "numbered")}
    frame.set_index(pd.RangeIndex(10, 22, 3, name="pid")).to_parquet(paths["numbered"], row_group_size=3)
    assert "pid" not in pq.read_schema(paths["numbered"]).names
    frame.set_index(pd.Index(["a", "b", "c", "a"], name="pid")).to_parquet(paths["named"])
    frame.set_index(pd.Index([30, 10, 20, 40])).to_parquet(paths["unnamed"])
    frame.set_index(pd.MultiIndex.from_arrays([["a", "b", "c", "a"], [3, 1, 2, 4]], names=["pid", None])).to_parquet(
        paths["levels"])
    frame.to_parquet(paths["range"])
    return paths


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_files_pandas_index_is_read_alike_by_every_engine(tmp_path, engine, session):
    """A named index is an ordinary column on every engine (in memory pandas made it the index, out of the table:
    'pid is not in the file', while out of core it was released), a named RangeIndex too, row i of the file
    holding start + step × i (it was no column anywhere, so the same table with pid stored read otherwise);
    pandas' row labels (an unnamed index) and an unnamed RangeIndex are no column on any engine (out of core the
    labels were a column)."""
    paths = pandas_indexed(tmp_path)
    by_person = Schema((NumericColumn("x", 0, 10), IdentifierColumn("pid"), CategoricalColumn("c", ("u", "v", "w"))),
                       unit=PrivacyUnit("pid", 1))
    for kind in ("named", "levels"):
        assert sorted(prepared(engine, paths[kind], by_person, session)) == [(1.0, 0.0), (2.0, 1.0), (3.0, 0.0)], kind
    assert sorted(prepared(engine, paths["numbered"], by_person, session)) == [(1.0, 0.0), (2.0, 1.0), (3.0, 0.0),
                                                                               (4.0, 2.0)]
    ids = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 100)))
    # (sorted: DuckDB may hand two row groups back in either order; each row keeps its own pid)
    assert sorted(prepared(engine, paths["numbered"], ids, session)) == [(1.0, 10.0), (2.0, 13.0), (3.0, 16.0),
                                                                         (4.0, 19.0)]
    everyone = Schema((NumericColumn("x", 0, 10), CategoricalColumn("c", ("u", "v", "w"))))
    for kind in paths:
        assert sorted(prepared(engine, paths[kind], everyone, session)) == [(1.0, 0.0), (2.0, 1.0), (3.0, 0.0),
                                                                            (4.0, 2.0)], kind
    for kind in ("unnamed", "levels", "range"):
        labels = Schema((NumericColumn("__index_level_0__" if kind != "levels" else "__index_level_1__", 0, 100),))
        with pytest.raises(WorkbenchError, match="which is not in"):
            prepared(engine, paths[kind], labels, session)


def test_a_parquet_files_named_index_is_a_column_of_the_sample_and_the_blocks_too(tmp_path):
    """``load_sample`` (a file too large for memory) and ``blocks_of`` (its whole-file checks) see the columns
    ``load_table`` and the SQL engines see, in the file's order."""
    from workbench.core.data.io import blocks_of, load_sample

    paths = pandas_indexed(tmp_path)
    for kind, columns in (("named", ["x", "c", "pid"]), ("unnamed", ["x", "c"]), ("levels", ["x", "c", "pid"]),
                          ("range", ["x", "c"]), ("numbered", ["x", "c", "pid"])):
        whole, sample = load_table(paths[kind]), load_sample(paths[kind], rows=3)
        assert list(whole.frame.columns) == list(sample.frame.columns) == columns, kind
        assert len(sample.frame) == 3
        blocks = pd.concat(list(blocks_of(sample, columns)))
        assert blocks.reset_index(drop=True).equals(whole.frame.reset_index(drop=True)), kind
    assert load_table(paths["named"]).frame["pid"].tolist() == ["a", "b", "c", "a"]
    assert load_table(paths["numbered"]).frame["pid"].tolist() == [10, 13, 16, 19]


def test_a_named_range_index_counts_on_from_block_to_block(tmp_path):
    """Each block of a file read in blocks holds the named RangeIndex of its own rows (their places in the file)."""
    from workbench.core.data.io import blocks_of, load_sample

    path, rows = tmp_path / "long.parquet", 300_000
    pd.DataFrame({"x": range(rows)}, index=pd.RangeIndex(7, 7 + 3 * rows, 3, name="pid")).to_parquet(path)
    blocks = list(blocks_of(load_sample(path, rows=10), ["pid", "x"]))
    assert len(blocks) > 1 and all(list(block.columns) == ["pid", "x"] for block in blocks)
    whole = pd.concat(blocks)
    assert whole["pid"].tolist() == [7 + 3 * x for x in whole["x"]] and whole["x"].tolist() == list(range(rows))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_column_of_bytes_is_read_as_its_text_by_every_engine(tmp_path, engine, session):
    """Legacy writers (Hive, Impala) store text as BINARY without its UTF-8 mark. In memory each value was decoded
    with its bad bytes replaced (ids b'\\xff' and b'\\xfe' one person), out of core it was DuckDB's escape text
    ('caf\\xC3\\xA9', so 'other'), and a number stored so was refused there only (a helper's audit). Every engine now
    reads such a value by its text, and refuses bytes that are not UTF-8 as it refuses them in a text column."""
    as_bytes = functools.partial(pa.array, type=pa.binary())
    table = pa.table({"pid": as_bytes([b"p1", b"p2", b"p1", b"p3"]), "job": as_bytes(["café".encode(), b"a\x00b",
                                                                                      b"nurse", b" nurse "]),
                      "n": as_bytes([b"5", b"7", None, b" 9"]),
                      "size": pa.array([b"S1", "é".encode(), b"S1", b"L3"], pa.binary(2)),  # fixed-size bytes
                      "kind": as_bytes([b"x", "ü".encode(), b"x", b"y"]).dictionary_encode()})  # a dictionary of them
    path = tmp_path / "legacy.parquet"
    pq.write_table(table, path)
    schema = Schema((IdentifierColumn("pid"), CategoricalColumn("job", ("café", "a\x00b", "nurse")),
                     NumericColumn("n", 0, 10, missing=DROP), CategoricalColumn("size", ("S1", "é", "L3")),
                     CategoricalColumn("kind", ("x", "ü"))), unit=PrivacyUnit("pid", 1))
    assert sorted(prepared(engine, path, schema, session), key=repr) == sorted(
        [(0.0, 5.0, 0.0, 0.0), (1.0, 7.0, 1.0, 1.0), (2.0, 9.0, 2.0, 2.0)], key=repr)
    if engine != "spark":
        data = (load_table(path).frame if engine == "memory" else None)
        if data is not None:
            assert content_digest(data) == content_digest(load_table(_as_text(table, tmp_path)).frame)
        else:
            with OutOfCoreData(file_source(path), schema) as sql:
                assert sql.content_digest() == content_digest(load_table(path).frame)
    for stored in (as_bytes([b"p1", b"\xff"]), pa.array([b"p1", b"\xff\xfe"], pa.binary(2)),
                   as_bytes([b"p1", b"\xff"]).dictionary_encode()):
        bad = tmp_path / "not_text.parquet"
        pq.write_table(pa.table({"pid": stored, "n": pa.array([1, 2])}), bad)
        with pytest.raises(DataFileError, match=r"'pid' holds bytes that are not UTF-8"):
            prepared(engine, bad, Schema((IdentifierColumn("pid"), NumericColumn("n", 0, 10)),
                                         unit=PrivacyUnit("pid", 1)), session)
    labelled = tmp_path / "labelled.parquet"  # pandas' row labels are read by no engine, whatever bytes they hold
    pd.DataFrame({"n": [1, 2]}, index=pd.Index([b"\xff", b"ok"])).to_parquet(labelled)
    assert prepared(engine, labelled, Schema((NumericColumn("n", 0, 10),)), session) == [(1.0,), (2.0,)]


def _as_text(table: pa.Table, folder: Path) -> Path:
    """The same table with its columns of bytes written as text."""
    path = folder / "as_text.parquet"
    pq.write_table(table.cast(pa.schema([pa.field(f.name, pa.string()) for f in table.schema])), path)
    return path
