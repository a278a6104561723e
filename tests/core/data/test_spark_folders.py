"""A folder of Parquet data files on Spark: one person's rows in one file must not change how another person's
rows are read (which k rows count, which id a row has). Found by a review of issue 34's Spark reading:

- Spark packs a folder's files into tasks largest first, so ordering rows by Spark's increasing id made "a person's
  first k rows" follow the files' sizes: one person added to a file flipped which row every other person kept;
- pandas decides by the ids themselves whether a named index is stored as a column or as a RangeIndex in the
  metadata alone; only the first file's metadata was read, so another file's ids were read as missing (its people
  dropped) depending on one person;
- a data file whose name holds a space or ``%`` (percent-encoded in Spark's ``_metadata.file_name``) got no ids."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from workbench.core.data.schema import IdentifierColumn, NumericColumn, PrivacyUnit, Schema
from workbench.core.data.spark_engine import SparkData, spark_source
from workbench.core.errors import DataFileError

BY_PERSON = Schema((NumericColumn("x", 0, 1000), IdentifierColumn("pid")), unit=PrivacyUnit("pid", 1))


def _write(frame: pd.DataFrame, path: Path, index: bool = False) -> None:
    """``index``: as ``DataFrame.to_parquet`` keeps it (a RangeIndex in pandas' metadata alone, another as a column)."""
    table = pa.Table.from_pandas(frame, preserve_index=None if index else False)
    pq.write_table(table, path, compression="NONE", use_dictionary=False)


def _prepared(spark, folder: Path, schema: Schema = BY_PERSON) -> pd.DataFrame:
    with SparkData(spark_source(folder), schema, spark=spark) as data:
        return data.prepared_rows()


def _folder(root: Path, name: str, extra: bool) -> Path:
    """a.parquet: persons 1-7 (x = 0); b.parquet: person 1 again (x = 100), persons 8-12, and with ``extra`` a person
    13 with two rows, which makes b the larger file."""
    folder = root / name
    folder.mkdir()
    _write(pd.DataFrame({"pid": [1, 2, 3, 4, 5, 6, 7], "x": [0.0] * 7}), folder / "a.parquet")
    b = {"pid": [1, 8, 9, 10, 11, 12], "x": [100.0] + [0.0] * 5}
    if extra:
        b = {"pid": b["pid"] + [13, 13], "x": b["x"] + [0.0, 0.0]}
    _write(pd.DataFrame(b), folder / "b.parquet")
    return folder


def test_a_persons_first_row_follows_the_files_order_not_their_sizes(spark, tmp_path):
    """Person 1 has a row in a.parquet and one in b.parquet; with k = 1 the row of a (the first file by name)
    counts, whether or not person 13 makes b the larger file (it flipped to b's row: x summed 0, then 100)."""
    small, large = _folder(tmp_path, "d.parquet", False), _folder(tmp_path, "d2.parquet", True)
    assert (large / "b.parquet").stat().st_size > (large / "a.parquet").stat().st_size
    for folder in (small, large):
        prepared = _prepared(spark, folder)
        assert prepared["x"].sum() == 0, folder.name


def test_a_folder_whose_files_keep_the_index_differently_is_refused(spark, tmp_path):
    """pandas stores consecutive ids as a RangeIndex in its metadata only, other ids as a column: a folder of both
    is refused whichever file comes first (the second file's people were dropped as having no id)."""
    for order, name in ((("0", "1"), "column-first.parquet"), (("1", "0"), "range-first.parquet")):
        folder = tmp_path / name
        folder.mkdir()
        _write(pd.DataFrame({"pid": [1, 3, 4], "x": [1.0, 2.0, 3.0]}).set_index("pid"), folder / f"part-{order[0]}",
               index=True)
        _write(pd.DataFrame({"pid": [10, 11, 12, 13], "x": [4.0] * 4}).set_index("pid"), folder / f"part-{order[1]}",
               index=True)
        with pytest.raises(DataFileError, match="keep different pandas indexes"):
            _prepared(spark, folder)


def test_every_file_of_a_folder_gets_its_range_index_also_with_a_space_or_percent_in_its_name(spark, tmp_path):
    folder = tmp_path / "spaced.parquet"
    folder.mkdir()
    for i, (name, start) in enumerate((("part 0.parquet", 0), ("part%1.parquet", 10), ("partë2.parquet", 20))):
        frame = pd.DataFrame({"x": [float(i)] * 3}, index=pd.RangeIndex(start, start + 3, name="pid"))
        _write(frame, folder / name, index=True)
    schema = Schema((NumericColumn("x", 0, 100), NumericColumn("pid", 0, 100)))
    assert all("pid" not in pq.read_schema(path).names for path in folder.iterdir())  # in the metadata alone
    prepared = _prepared(spark, folder, schema)
    assert sorted(prepared["pid"].tolist()) == [0, 1, 2, 10, 11, 12, 20, 21, 22]


@pytest.mark.parametrize("spelling", ["windows-1252", "cp1252", "utf8", "UTF-8", "latin_1", "iso8859-1", "latin-1"])
def test_every_spelling_of_an_encoding_the_other_engines_take_is_taken_on_spark(spelling, tmp_path):
    """Found by the same review: Spark refused "windows-1252", "utf8", "latin_1", which the plan and the other
    engines accept (the names were compared as written)."""
    assert spark_source(tmp_path / "towns.csv", encoding=spelling).encoding == spelling


def test_an_encoding_spark_cannot_read_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(DataFileError, match="not koi8-r. Save the file as UTF-8"):
        spark_source(tmp_path / "towns.csv", encoding="koi8-r")


def test_a_named_range_index_of_another_length_than_the_file_is_no_column_on_spark(spark, tmp_path):
    """As in memory and out of core (test_read_alike_review): pandas drops a RangeIndex whose length is not the
    file's number of rows, so no engine makes up ids for it."""
    from test_read_alike_review import _range_files

    from workbench.core.errors import WorkbenchError

    paths = _range_files(tmp_path)
    ids = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 100)))
    assert sorted(_prepared(spark, paths["whole"], ids)["pid"].tolist()) == [1, 2, 3, 4, 5, 6]
    for kind in ("filtered", "doubled"):
        with pytest.raises(WorkbenchError, match="'pid', which is not in"):
            _prepared(spark, paths[kind], ids)


def test_a_parquet_text_column_not_utf8_is_refused_on_spark_as_by_the_other_engines(spark, tmp_path):
    """Spark read such bytes as they are and released them; the other engines refuse the file, naming the column
    and row (io.check_parquet_text): so does Spark now, in the pass that reads the file."""
    from test_read_alike_review import _not_utf8

    from workbench.core.data.schema import CategoricalColumn, OutsideCategories

    path = tmp_path / "words.parquet"
    table = pa.table({"n": [1, 2, 3, 4], "word": _not_utf8([b"aa", b"bb", b"aa", b"caf\xe9"]),
                      "other": _not_utf8([b"aa", b"th\xe9", b"aa", b"bb"])})
    pq.write_table(table, path, row_group_size=2)
    schema = Schema((NumericColumn("n", 0, 10), CategoricalColumn("word", ("aa", "bb"), outside=OutsideCategories.OTHER)))
    with pytest.raises(DataFileError) as refused:
        _prepared(spark, path, schema)
    assert str(refused.value).startswith("words.parquet: the column 'word' holds bytes that are not UTF-8 text (row 4")
    pq.write_table(table.drop_columns(["other"]).slice(0, 3), path)
    assert sorted(_prepared(spark, path, schema)["n"].tolist()) == [1, 2, 3]
