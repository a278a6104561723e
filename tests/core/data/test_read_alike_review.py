"""Files the in-memory and out-of-core engines once read differently, or refused with a traceback, after issue 34
(its review): each now read alike, or refused alike with a message that says what to do. (What the Spark engine must
do to agree is said where it does not yet.)"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from workbench.core.data import load_table, prepare
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import CategoricalColumn, NumericColumn, OutsideCategories, Schema
from workbench.core.errors import DataFileError, WorkbenchError

ENGINES = ["memory", "out-of-core"]


def prepared(engine: str, path: Path, schema: Schema, **options) -> list[tuple]:
    """The prepared rows, sorted (DuckDB may hand row groups back in either order; each row keeps its values)."""
    if engine == "memory":
        frame = prepare(load_table(path, **options), schema).prepared_rows()
    else:
        with OutOfCoreData(file_source(path, **options), schema) as data:
            frame = data.prepared_rows()
    return sorted(tuple(None if isinstance(v, float) and math.isnan(v) else v + 0.0 for v in row)
                  for row in frame.itertuples(index=False))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stored_column_named_like_the_engines_own_is_not_read_for_a_named_range_index(tmp_path, engine):
    """Out of core the RangeIndex's values had a fixed name, dp_range_index: a file storing a column so named had
    that column read as pid (100, 200, 300), where in memory pid is 1, 2, 3."""
    path = tmp_path / "collide.parquet"
    pd.DataFrame({"x": [1.0, 2, 3], "dp_range_index": [100, 200, 300], "DP_RANGE_INDEX_": [7, 8, 9]},
                 index=pd.RangeIndex(1, 4, name="pid")).to_parquet(path)
    schema = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 1000), NumericColumn("dp_range_index", 0, 1000)))
    assert prepared(engine, path, schema) == [(1.0, 1.0, 100.0), (2.0, 2.0, 200.0), (3.0, 3.0, 300.0)]


def test_a_file_row_number_column_of_any_case_is_refused_with_a_named_range_index_out_of_core(tmp_path):
    path = tmp_path / "numbered.parquet"
    pd.DataFrame({"x": [1.0, 2], "File_Row_Number": [5, 6]}, index=pd.RangeIndex(1, 3, name="pid")).to_parquet(path)
    schema = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 10)))
    assert prepared("memory", path, schema) == [(1.0, 1.0), (2.0, 2.0)]
    with pytest.raises(DataFileError, match="column 'File_Row_Number' and a named pandas RangeIndex"):
        prepared("out-of-core", path, schema)


def _range_files(tmp_path: Path) -> dict[str, Path]:
    """A named RangeIndex (pid 1..6) that pandas keeps in the metadata alone, and files whose rows no longer match
    it, written through pyarrow keeping that metadata: filtered to 3 rows, and doubled to 12."""
    whole = tmp_path / "whole.parquet"
    pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6]}, index=pd.RangeIndex(1, 7, name="pid")).to_parquet(whole)
    table = pq.read_table(whole)
    paths = {"whole": whole, "filtered": tmp_path / "filtered.parquet", "doubled": tmp_path / "doubled.parquet"}
    pq.write_table(table.filter(pc.greater(table["x"], 3)), paths["filtered"])
    pq.write_table(pa.concat_tables([table, table]), paths["doubled"], row_group_size=6)
    return paths


@pytest.mark.parametrize("engine", ENGINES)
def test_a_named_range_index_of_another_length_than_the_file_is_no_column(tmp_path, engine):
    """pandas and pyarrow drop a RangeIndex whose length is not the file's number of rows; every engine made up
    pid = start + step × row for it (pid 1, 2, 3 for the rows that were 4, 5, 6). Now it is no column anywhere."""
    paths = _range_files(tmp_path)
    for kind in ("filtered", "doubled"):
        assert "pid" not in pd.read_parquet(paths[kind]).reset_index().columns, kind  # as pandas reads it
    ids = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 100)))
    assert prepared(engine, paths["whole"], ids) == [(float(i), float(i)) for i in range(1, 7)]
    for kind in ("filtered", "doubled"):
        with pytest.raises(WorkbenchError, match="'pid', which is not in"):
            prepared(engine, paths[kind], ids)
    assert prepared(engine, paths["filtered"], Schema((NumericColumn("x", 0, 10),))) == [(4.0,), (5.0,), (6.0,)]


def test_a_named_range_index_of_another_length_is_no_column_of_the_sample_or_the_blocks(tmp_path):
    from workbench.core.data.io import blocks_of, load_sample, pandas_range_index

    paths = _range_files(tmp_path)
    assert pandas_range_index(pq.read_schema(paths["doubled"]).metadata, rows=12) is None
    assert pandas_range_index(pq.read_schema(paths["doubled"]).metadata, rows=6) == ("pid", 1, 1)
    for kind in ("filtered", "doubled"):
        sample = load_sample(paths[kind], rows=6)  # the first block is as long as the range
        assert list(sample.frame.columns) == ["x"] and list(sample.frame.index) == list(range(len(sample.frame)))
        assert list(load_table(paths[kind]).frame.columns) == ["x"]
        assert pd.concat(list(blocks_of(sample, ["x"])))["x"].tolist() == load_table(paths[kind]).frame["x"].tolist()


def _not_utf8(values: list[bytes]) -> pa.Array:
    return pa.array(values, pa.binary()).view(pa.string())  # a text column as a careless writer stores it


@pytest.mark.parametrize("engine", ENGINES)
def test_a_parquet_text_column_holding_bytes_that_are_not_utf8_is_refused_alike(tmp_path, engine):
    """In memory ``prepare`` crashed with a raw UnicodeDecodeError; DuckDB refused with advice about the delimiter
    and the encoding, which a Parquet file has not. Now both name the file, the column (the first in the file's
    order that holds such bytes, whichever row group they are in) and its first such row, and say what to do."""
    path = tmp_path / "words.parquet"
    table = pa.table({"n": [1, 2, 3, 4], "word": _not_utf8([b"aa", b"bb", b"aa", b"caf\xe9"]),
                      "other": _not_utf8([b"aa", b"th\xe9", b"aa", b"bb"])})
    pq.write_table(table, path, row_group_size=2)  # 'other' goes wrong in the first row group, 'word' in the second
    schema = Schema((NumericColumn("n", 0, 10), CategoricalColumn("word", ("aa", "bb"), outside=OutsideCategories.OTHER)))
    with pytest.raises(DataFileError) as refused:
        prepared(engine, path, schema)
    said = str(refused.value)
    assert said.startswith("words.parquet: the column 'word' holds bytes that are not UTF-8 text (row 4 is the first)")
    assert "Re-save it" in said and "delimiter" not in said
    pq.write_table(table.drop_columns(["other"]).slice(0, 3), path)
    assert prepared(engine, path, schema) == [(1.0, 0.0), (2.0, 1.0), (3.0, 0.0)]


def test_a_parquet_text_column_not_utf8_is_refused_by_the_sample_and_the_blocks_too(tmp_path):
    from workbench.core.data.io import blocks_of, load_sample

    path = tmp_path / "words.parquet"
    pq.write_table(pa.table({"n": range(6), "word": _not_utf8([b"aa"] * 5 + [b"caf\xe9"])}), path, row_group_size=3)
    sample = load_sample(path, rows=3)  # its rows are text
    with pytest.raises(DataFileError, match="the column 'word' holds bytes that are not UTF-8 text .row 6 is"):
        list(blocks_of(sample, ["n", "word"]))
    with pytest.raises(DataFileError, match="the column 'word' holds bytes that are not UTF-8 text .row 6 is"):
        load_sample(path, rows=10)


def test_a_large_tables_text_checked_column_beside_column_is_refused_as_column_by_column(tmp_path):
    """A large table's columns are checked side by side (``io._places_not_utf8``); the refusal is still the one
    column by column gives: the first column in the file's order holding such bytes (here the second one checked to
    be refused finishes first, its bad value at the start), and its first such row."""
    from workbench.core.data import io

    rows = 300_000
    table = pa.table({"n": range(rows), "word": _not_utf8([b"word"] * (rows - 1) + [b"caf\xe9"]),
                      "other": _not_utf8([b"th\xe9"] + [b"word"] * (rows - 1))})
    assert sum(column.nbytes for column in table.columns) >= io._CHECKED_SIDE_BY_SIDE
    path = tmp_path / "large.parquet"
    pq.write_table(table, path)
    with pytest.raises(DataFileError, match=r"the column 'word' holds bytes that are not UTF-8 text \(row 300000 is"):
        load_table(path)
    table = table.drop_columns(["word"])
    assert sum(column.nbytes for column in table.columns) >= io._CHECKED_SIDE_BY_SIDE
    pq.write_table(table, path)
    with pytest.raises(DataFileError, match=r"the column 'other' holds bytes that are not UTF-8 text \(row 1 is"):
        load_table(path)


def test_checked_side_by_side_a_column_after_the_first_refused_one_is_not_looked_at(monkeypatch):
    """Its own failure (here offsets going back) would otherwise replace the refusal column by column gives."""
    from workbench.core.data import io

    monkeypatch.setattr(io, "_CHECKED_SIDE_BY_SIDE", 0)
    offsets = pa.array([0, 2, 1], pa.int32()).buffers()[1]  # going back: found by the full check only
    broken = pa.Array.from_buffers(pa.string(), 2, [None, offsets, pa.py_buffer(b"ab")])
    with pytest.raises(pa.ArrowInvalid):
        broken.validate(full=True)
    batch = pa.RecordBatch.from_arrays([_not_utf8([b"caf\xe9", b"aa"]), broken], names=["word", "broken"])
    with pytest.raises(DataFileError, match=r"the column 'word' holds bytes that are not UTF-8 text \(row 1 is"):
        io.check_parquet_text(batch, "words.parquet")


@pytest.mark.parametrize("engine", ENGINES)
def test_a_nul_byte_in_the_first_megabyte_is_binary_data_on_every_engine(tmp_path, engine):
    """In memory refused a NUL byte in the file's first megabyte as binary data, out of core read it: now both
    decide by the release rule (io.release_text_format, from the first megabyte); after it, both read the NUL as a
    character of its value. A UTF-16 file (NUL halves of its letters) is text."""
    schema = Schema((NumericColumn("n", 0, 10), CategoricalColumn("word", ("aa",), outside=OutsideCategories.OTHER)))
    early, late, wide = tmp_path / "early.csv", tmp_path / "late.csv", tmp_path / "wide.csv"
    early.write_bytes(b"n,word\n1,a\x00b\n2,aa\n")
    with pytest.raises(DataFileError, match="early.csv: this is not a text table .it contains binary data"):
        prepared(engine, early, schema)
    late.write_bytes(b"n,word\n" + b"2,aa\n" * 300_000 + b"1,a\x00b\n")
    assert late.read_bytes().index(b"\x00") > 1 << 20
    assert prepared(engine, late, schema)[:2] == [(1.0, 1.0), (2.0, 0.0)]
    wide.write_bytes("n,word\n1,aa\n2,b\n".encode("utf-16-le"))
    assert prepared(engine, wide, schema, encoding="utf-16-le") == [(1.0, 0.0), (2.0, 1.0)]


@pytest.mark.parametrize("engine", ENGINES)
def test_a_byte_the_declared_encoding_leaves_undefined_is_refused_with_what_to_do(tmp_path, engine):
    """cp1252 gives no character to 0x81 (nor 0x8D, 0x8F, 0x90, 0x9D): Python's decoder, which Arrow calls, raised
    a UnicodeDecodeError that reached the user as a traceback (the app showed "'charmap' codec can't decode…"),
    in the first megabyte and after it. A UTF-16 file declared without its byte-order mark did the same."""
    early, late, wide = tmp_path / "early.csv", tmp_path / "late.csv", tmp_path / "wide.csv"
    early.write_bytes(b"n,word\n1,caf\xe9\n2,a\x81b\n")
    late.write_bytes(b"n,word\n" + b"1,caf\xe9\n" * 200_000 + b"2,a\x81b\n")
    wide.write_bytes("n,word\n1,aa\n".encode("utf-16-le"))
    schema = Schema((NumericColumn("n", 0, 10), CategoricalColumn("word", ("café",), outside=OutsideCategories.OTHER)))
    for path in (early, late):
        with pytest.raises(DataFileError) as refused:
            prepared(engine, path, schema, encoding="cp1252")
        said, byte = str(refused.value), path.read_bytes().index(bytes([0x81]))
        assert said.startswith(f"{path.name}: the text is not valid cp1252 (byte {byte} cannot be read)")
        assert "latin-1 reads every byte" in said
        assert len(prepared(engine, path, schema, encoding="latin-1")) == path.read_bytes().count(b"\n") - 1
    with pytest.raises(DataFileError, match="wide.csv: the text is not valid utf-16. Declare the right encoding"):
        prepared(engine, wide, schema, encoding="utf-16")


def test_inspect_says_what_to_do_with_a_byte_the_declared_encoding_leaves_undefined(tmp_path, capsys):
    from workbench.cli import main

    path = tmp_path / "late.csv"
    path.write_bytes(b"n,word\n" + b"1,caf\xe9\n" * 200_000 + b"2,a\x81b\n")
    assert main(["inspect", str(path), "--encoding", "cp1252"]) == 2
    said = " ".join("".join(capsys.readouterr()).split())
    assert "late.csv: the text is not valid cp1252" in said and "Traceback" not in said


@pytest.mark.parametrize("wrong", ["unicode_escape", "raw_unicode_escape", "idna", "punycode", "undefined", "base64",
                                   "no-such-code", "", 1252])
def test_a_plan_refuses_a_codec_no_text_file_is_written_in(wrong):
    """unicode_escape, raw_unicode_escape and idna were accepted as a dataset's encoding (with unicode_escape a
    backslash at a line's end joined the next row to it), and 'undefined' raised a bare UnicodeError from the plan's
    loading instead of a PlanError."""
    from workbench.core.errors import PlanError
    from workbench.core.release.plan import DatasetDescription

    with pytest.raises(PlanError, match="not a text encoding a file is written in. Write the file's own") as refused:
        DatasetDescription.from_json({"name": "towns", "encoding": wrong})
    assert "dataset.encoding" in str(refused.value) and refused.value.place.step == "data"
    assert refused.value.place.field == "encoding"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_codec_no_text_file_is_written_in_is_refused_when_declared_and_real_ones_are_read(tmp_path, engine):
    from workbench.core.release.plan import DatasetDescription

    path = tmp_path / "towns.csv"
    path.write_bytes(b"n,town\n1,K\\\n2,Z\n")  # a backslash at a line's end
    schema = Schema((NumericColumn("n", 0, 10),))
    for wrong in ("unicode_escape", "raw_unicode_escape", "idna", "undefined"):
        with pytest.raises(DataFileError, match=f"'{wrong}' is not an encoding a text file is written in"):
            prepared(engine, path, schema, encoding=wrong)
    for right in ("utf-8", "cp1252", "latin-1", "ascii", "UTF8"):
        assert DatasetDescription.from_json({"name": "towns", "encoding": right}).encoding == right
        assert prepared(engine, path, schema, encoding=right) == [(1.0,), (2.0,)]
