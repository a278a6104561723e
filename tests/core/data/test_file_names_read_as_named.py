"""A file is read by its name, never as a pattern of names. DuckDB's readers take a path holding any of ``[*?`` as
a pattern, and Spark's any of ``{}[]*?\\``: out of core, survey[1].parquet read survey1.parquet (the ledger had
hashed survey[1].parquet's bytes), and a*b.parquet every file matching it. Spark was also given a local path bare,
which a Spark whose default file system is a cluster's looks up there, and a cluster's location after a command
line had made it a path ('hdfs:/namenode/x.csv': its host read as a folder)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest

from workbench.core.data import load_table, prepare
from workbench.core.data.engines import BYTES_PER_PREPARED_VALUE, choose_engine, estimated_rows
from workbench.core.data.io import FileState, local_path
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.data.spark_engine import SparkData, file_system_location, read_pattern, spark_source
from workbench.core.errors import DataFileError

SCHEMA = Schema((NumericColumn("x", 0, 1000),))

# each named file beside files its name, read as a pattern, would match instead (or as well)
NAMED = {
    "survey[1]": ["survey1"],  # a class of characters: the other file alone
    "a*b": ["axxb"],  # any characters: both files
    "a?c": ["abc"],  # one character: both files
    "wave{1,2}": ["wave1", "wave2"],  # Spark's alternatives (DuckDB reads braces as they are)
    "w[2]/s": ["w2/s"],  # in a folder's name
}


def _files(folder: Path, name: str, suffix: str) -> Path:
    """The named file with three rows, and its decoys with one row each, of another value."""
    for path, values in [(name, [1, 2, 3]), *((decoy, [500]) for decoy in NAMED[name])]:
        target = folder / f"{path}.{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        frame = pd.DataFrame({"x": values})
        if suffix == "csv":
            frame.to_csv(target, index=False)
        else:
            frame.to_parquet(target, index=False)
    return folder / f"{name}.{suffix}"


def _exact_sum(engine) -> float:
    from workbench.core.statistics.moments import Sum

    return Sum("x").exact(engine)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("name", list(NAMED))
def test_out_of_core_reads_the_file_named_not_files_its_name_matches(tmp_path, name, suffix):
    path = _files(tmp_path, name, suffix)
    memory = prepare(load_table(path), SCHEMA)
    with OutOfCoreData(file_source(path), SCHEMA) as engine:
        assert engine.rows == memory.rows == 3
        assert _exact_sum(engine) == _exact_sum(memory)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("name", ["survey[1]", "a*b", "wave{1,2}", "w[2]/s"])
def test_spark_reads_the_file_named_not_files_its_name_matches(spark, tmp_path, name, suffix):
    path = _files(tmp_path, name, suffix)
    memory = prepare(load_table(path), SCHEMA)
    with SparkData(spark_source(path), SCHEMA, spark=spark) as engine:
        assert engine.rows == memory.rows == 3
        assert _exact_sum(engine) == _exact_sum(memory)


def test_spark_is_given_a_local_file_as_one_and_a_clusters_as_written():
    def given(location: str) -> str:
        source = spark_source(location)
        assert source.location == file_system_location(location)  # the same from the text as written
        return read_pattern(source.location, Path(location).name)

    assert given("/data/surveys/2026 wave.csv") == "file:///data/surveys/2026 wave.csv"  # not percent-encoded:
    assert given("file:///data/surveys/2026 wave.csv") == "file:///data/surveys/2026 wave.csv"  # Hadoop reads it so
    assert given("hdfs://namenode:8020/surveys/2026.csv") == "hdfs://namenode:8020/surveys/2026.csv"
    assert given("hdfs:///surveys/2026.csv") == "hdfs:///surveys/2026.csv"  # the default namenode: no host
    assert given("s3a://bucket/w[2]/a*b?.parquet") == r"s3a://bucket/w\[2\]/a\*b\?.parquet"
    assert given("/data/x{1,2}\\y.csv") == r"file:///data/x\{1,2\}\\y.csv"
    # where a Path has collapsed the slashes, a host is taken to follow (a file: location has none)
    assert file_system_location(Path("hdfs://namenode/surveys/2026.csv")) == "hdfs://namenode/surveys/2026.csv"
    assert file_system_location(Path("file:///data/2026.csv")) == "file:///data/2026.csv"


@pytest.mark.parametrize("written", ["file://{}", "file:{}"])
def test_a_file_location_on_this_machine_is_the_file_the_ledger_hashes_and_checks(spark, tmp_path, written):
    """'file:///x' names this machine's /x: its state is taken before Spark reads it (so a write meanwhile is
    told), the ledger hashes its bytes, and Spark reads it as written."""
    path = _files(tmp_path, "survey[1]", "csv")
    source = spark_source(written.format(path.as_posix()))
    assert source.path == path and source.state == FileState.of(path)
    assert source.location == written.format(path.as_posix())
    with SparkData(source, SCHEMA, spark=spark) as engine:
        assert engine.rows == 3
    elsewhere = spark_source(f"file://node{path.as_posix()}")  # a host: not a file here
    assert elsewhere.state is None and not elsewhere.path.is_file()


@pytest.mark.skipif(os.name == "nt", reason="links and POSIX paths")
def test_a_file_locations_parent_steps_are_taken_away_as_hadoop_does_not_through_a_link(tmp_path):
    """Hadoop reads 'file:///a/link/../x.csv' as /a/x.csv, without following the link: the ledger must hash that
    file, not the one beside the link's target (which resolving the path first would name)."""
    (tmp_path / "elsewhere" / "inner").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere" / "inner")
    read, decoy = tmp_path / "x.csv", tmp_path / "elsewhere" / "x.csv"
    read.write_text("x\n1\n2\n3\n")
    decoy.write_text("x\n500\n")
    source = spark_source(f"file://{tmp_path.as_posix()}/link/../x.csv")
    assert source.path == read and source.state == FileState.of(read)
    # a drive letter names no drive here: Hadoop reads file:///C:/x.csv as /C:/x.csv
    assert spark_source("file:///C:/data/x.csv").path == Path("/C:/data/x.csv")


def test_the_command_line_keeps_a_clusters_location_as_written():
    import argparse

    from workbench.cli.arguments import data_arguments

    parser = argparse.ArgumentParser()
    data_arguments(parser)
    args = parser.parse_args(["hdfs:///surveys/2026.csv"])
    assert args.data == Path("hdfs:/surveys/2026.csv") and args.data_text == "hdfs:///surveys/2026.csv"
    assert spark_source(args.data_text).location == "hdfs:///surveys/2026.csv"


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_a_folder_named_tilde_is_read_not_the_home_folder(tmp_path, monkeypatch, suffix):
    """'./~/t.parquet' is the Path '~/t.parquet', which pyarrow, pandas and DuckDB read in the home folder, where
    the ledger fingerprints the file here."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "here").mkdir()
    monkeypatch.chdir(tmp_path / "here")
    for folder, values in [(tmp_path / "here" / "~", [1, 2, 3]), (home, [500])]:
        folder.mkdir(exist_ok=True)
        frame = pd.DataFrame({"x": values})
        target = folder / f"t.{suffix}"
        frame.to_csv(target, index=False) if suffix == "csv" else frame.to_parquet(target, index=False)
    path = Path("./~") / f"t.{suffix}"
    assert str(path) == f"~/t.{suffix}"
    table = load_table(path)
    assert len(table.frame) == 3 and table.source == tmp_path / "here" / "~" / f"t.{suffix}"
    with OutOfCoreData(file_source(path), SCHEMA) as engine:
        assert engine.rows == 3


def test_out_of_core_refuses_a_backslash_beside_a_pattern_character_where_it_is_a_names_character(tmp_path):
    """DuckDB splits a pattern at every backslash: k\\[1].parquet would read k/[1].parquet, another file."""
    if os.sep == "\\":
        pytest.skip("on Windows a backslash is the folder separator, as DuckDB reads it")
    (tmp_path / "k").mkdir()
    named, other = tmp_path / "k\\[1].parquet", tmp_path / "k" / "[1].parquet"
    pd.DataFrame({"x": [1, 2, 3]}).to_parquet(named, index=False)
    pd.DataFrame({"x": [500]}).to_parquet(other, index=False)
    assert len(load_table(named).frame) == 3
    with pytest.raises(DataFileError, match=r"backslash and any of \[ \* \?.*in-memory engine"):
        OutOfCoreData(file_source(named), SCHEMA)
    plain = tmp_path / "a\\b.parquet"  # a backslash without a pattern character is read as it is
    pd.DataFrame({"x": [1, 2, 3]}).to_parquet(plain, index=False)
    with OutOfCoreData(file_source(plain), SCHEMA) as engine:
        assert engine.rows == 3


def test_the_engine_is_chosen_for_the_file_named_not_one_in_the_home_folder(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (tmp_path / "here" / "~").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(tmp_path / "here")
    pd.DataFrame({"x": range(1000)}).to_parquet(tmp_path / "here" / "~" / "t.parquet", index=False)
    pd.DataFrame({"x": range(10)}).to_parquet(home / "t.parquet", index=False)
    assert estimated_rows(local_path("./~/t.parquet"), 0) == 1000
    decision = choose_engine(Path("./~/t.parquet"), used_columns=1, memory=1 << 40)
    assert decision.peak >= 1000 * BYTES_PER_PREPARED_VALUE  # this file's 1,000 rows, not the home folder's 10
