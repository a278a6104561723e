"""Prepared data computed by DuckDB on the file itself, for tables larger than memory (``sql_engine``
holds what the SQL engines share: typing as pandas does, preparing, cells, exact sums).

DuckDB reads the CSV or Parquet file, keeps the prepared columns in a temporary database on disk,
and answers each aggregate with one GROUP BY. It runs with its extensions' download switched off
(no network, ever) and spills to a temporary folder of its own, removed when the data is closed.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any, Callable

from workbench.core.data.arrow_text import PANDAS_MISSING
from workbench.core.data.io import TEXT_SUFFIXES, FileState, detect_delimiter, detect_encoding, first_line
from workbench.core.data.schema import Schema
from workbench.core.data.sql_engine import FileSource, Progress, SqlData
from workbench.core.errors import DataFileError

__all__ = ["FileSource", "OUT_OF_CORE_SUFFIXES", "OutOfCoreData", "file_source"]

OUT_OF_CORE_SUFFIXES = (*TEXT_SUFFIXES, ".parquet", ".pq")
_ENCODINGS = {"utf-8": "utf-8", "utf-8-sig": "utf-8", "ascii": "utf-8", "utf-16": "utf-16", "latin-1": "latin-1",
              "iso-8859-1": "latin-1", "latin1": "latin-1"}
_CSV_BUFFER = 1 << 23  # bytes DuckDB reads a CSV in (its default, 32 MB per thread, does not fit a small memory limit)


def file_source(path: str | Path, *, delimiter: str | None = None, encoding: str | None = None) -> FileSource:
    """Describe a CSV/TSV or Parquet file for the out-of-core engine, detecting a text file's encoding and
    delimiter from its first megabyte as ``load_table`` does."""
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"{path}: no such file. Check the path and try again.")
    suffix = path.suffix.lower()
    if suffix not in OUT_OF_CORE_SUFFIXES:
        raise DataFileError(
            f"{path.name}: the out-of-core engine reads CSV, TSV and Parquet files, not '{suffix}'. Open the file "
            "with the in-memory engine (--engine memory), or export it as Parquet or CSV."
        )
    state = FileState.of(path)
    if suffix in (".parquet", ".pq"):
        return FileSource(path, "parquet", state=state)
    with path.open("rb") as handle:
        sample = handle.read(1 << 20)
    if not sample.strip():
        raise DataFileError(f"{path.name}: the file is empty. Check that it is the right file.")
    encoding = encoding or detect_encoding(sample)
    if encoding.lower() not in _ENCODINGS:
        raise DataFileError(
            f"{path.name} is written in the {encoding} encoding, which the out-of-core engine does not read (it reads "
            "UTF-8, UTF-16 and Latin-1). Save the file as UTF-8 (in Excel: CSV UTF-8), or open it with the in-memory "
            "engine (--engine memory) if it fits in memory."
        )
    text = sample.decode(encoding, errors="ignore")
    found = delimiter or detect_delimiter(text, TEXT_SUFFIXES[suffix] or ",")
    return FileSource(path, "text", encoding, found, state)


class OutOfCoreData(SqlData):
    """Prepared data in a temporary DuckDB database: answers ``Aggregate`` requests exactly. Private.

    ``memory_limit`` (e.g. "2GB") caps DuckDB's memory; what does not fit is spilled to disk.
    ``progress`` hears the fraction of the file prepared; raising from it (``Cancelled``) stops the work.
    """

    def __init__(self, source: FileSource, schema: Schema, *, memory_limit: str | None = None,
                 threads: int | None = None, progress: Callable[[float], None] | None = None) -> None:
        import duckdb

        schema.validate()
        self.schema = schema
        self.source = source
        self._folder = Path(tempfile.mkdtemp(prefix="dp-workbench-engine-"))
        config: dict[str, Any] = {
            "autoinstall_known_extensions": False,  # never download anything: offline, for sensitive data
            "autoload_known_extensions": False,
            "preserve_insertion_order": True,  # the file's row order: each person keeps their first k rows
            "temp_directory": str(self._folder / "spill"),
        }
        if memory_limit:
            config["memory_limit"] = memory_limit
        if threads:
            config["threads"] = threads
        try:
            self._db = duckdb.connect(str(self._folder / "prepared.duckdb"), config=config)
        except duckdb.Error as exc:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise DataFileError(f"The out-of-core engine could not start ({exc}).") from None
        self._duckdb = duckdb
        self._tables = 0
        self._db.execute("SET enable_progress_bar = false").fetchall()  # DuckDB would print it; ``progress`` reads it
        try:
            self._prepare(progress)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        try:
            self._db.close()
        except Exception:  # noqa: BLE001 - closing twice, or after a failed start
            pass
        shutil.rmtree(self._folder, ignore_errors=True)

    # ------------------------------------------------------------ DuckDB's ways

    def _read(self) -> str:
        text = self.dialect.text
        path = text(str(self.source.path))
        if self.source.file_format == "parquet":
            return f"read_parquet({path})"
        encoding = _ENCODINGS[(self.source.encoding or "utf-8").lower()]
        missing = ", ".join(text(m) for m in PANDAS_MISSING)
        return (f"read_csv({path}, delim={text(self.source.delimiter or ',')}, header=true, all_varchar=true, "
                f"quote='\"', escape='\"', encoding={text(encoding)}, nullstr=[{missing}], buffer_size={_CSV_BUFFER})")

    def _file_types(self) -> list[tuple[str, str]]:
        try:
            return [(str(r[0]), str(r[1])) for r in self._all(f"DESCRIBE SELECT * FROM {self._read()}")]
        except DataFileError:
            raise
        except self._duckdb.Error as exc:
            raise DataFileError(f"{self.source.name}: the file cannot be read ({first_line(exc)}).") from None

    def _store(self, name: str, query: str, progress: Progress | None) -> None:
        self._run(f"CREATE TABLE {name} AS {query}", progress)

    def _first_rows(self, rows: str, id_column: str, k: int, progress: Progress | None) -> str:
        # the typed rows are stored first, in file order (their rowid); then each person keeps their first k
        # (a grouped list of each person's k smallest rowids: DuckDB spills it to disk, where a window over
        # all rows must fit in memory)
        q = self.dialect.quote
        self._run(f"CREATE TABLE typed AS {rows}", progress)
        self._texts_from = "typed"
        self._run(f"CREATE TABLE kept AS SELECT unnest(min(rowid, {k})) AS kept FROM typed "
                  f"WHERE {q(id_column)} IS NOT NULL GROUP BY {q(id_column)}", None)
        return "SELECT typed.* FROM typed SEMI JOIN kept ON typed.rowid = kept.kept"

    def _uneven_ranks(self, table: str, alias: str, column: str) -> tuple[str, str, str]:
        return f"ASOF LEFT JOIN {table} AS {alias} ON {column} >= {alias}.value", f"{alias}.position", f"{alias}.value"

    def _exact_sum(self, value: str) -> str:
        return f"sum({value})"  # of BIGINT: DuckDB sums into a 128-bit integer, exactly

    def _lookup(self, columns: dict[str, list]) -> str:
        import pandas as pd

        self._tables += 1
        name = f"_lookup_{self._tables}"
        self._db.register(f"{name}_frame", pd.DataFrame(columns))
        self._db.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM {name}_frame").fetchall()
        self._db.unregister(f"{name}_frame")
        return name

    # ------------------------------------------------------------ running SQL

    def _run(self, query: str, progress: Callable[[float], None] | None) -> None:
        if progress is None:
            self._guarded(lambda: self._db.execute(query).fetchall())
            return
        import threading

        failure: list[BaseException] = []

        def work() -> None:
            try:
                self._guarded(lambda: self._db.execute(query).fetchall())
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                failure.append(exc)

        worker = threading.Thread(target=work, name="out-of-core-prepare", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.2)
                fraction = self._db.query_progress()
                progress(max(0.0, min(1.0, fraction / 100.0)) if fraction >= 0 else 0.0)
        except BaseException:
            self._db.interrupt()  # Cancel: DuckDB stops at its next vector
            worker.join()
            raise
        if failure:
            raise failure[0]
        progress(1.0)

    def _guarded(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except self._duckdb.OutOfMemoryException as exc:
            raise DataFileError(
                f"{self.source.name}: the out-of-core engine ran out of memory and disk for spilling ({first_line(exc)}). "
                "Free disk space in the temporary folder, or give it a larger memory limit."
            ) from None
        except self._duckdb.ConversionException as exc:
            raise DataFileError(f"{self.source.name}: a value cannot be read ({first_line(exc)}).") from None
        except (self._duckdb.InvalidInputException, self._duckdb.IOException) as exc:
            raise DataFileError(
                f"{self.source.name}: the file cannot be read ({first_line(exc)}). Check that it is complete and "
                "that its delimiter and encoding are right."
            ) from None

    def _all(self, query: str) -> list[tuple]:
        return self._guarded(lambda: self._db.execute(query).fetchall())
