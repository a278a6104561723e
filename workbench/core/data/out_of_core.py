"""Prepared data computed by DuckDB on the file itself, for tables larger than memory (``sql_engine`` holds
what the SQL engines share: reading each value by the rule, preparing, cells, exact sums).

A text file is parsed by Arrow's CSV reader (``text_files``, the in-memory engine's parser: the same rows
and texts, any encoding) and streamed into DuckDB block by block; a Parquet file is read by DuckDB. The
file's rows and the prepared columns live in DuckDB's memory, up to its memory limit, and beyond it in a
folder of this process's own that is removed when the data is closed, when the process ends (an interrupt or SIGTERM included:
``remove_on_signals``), and, after a crash that left one behind, when the command line or the app next starts and by
the next engine that starts (``sweep_leftovers``). DuckDB runs with its extensions' download switched off (no network, ever).
"""

from __future__ import annotations

import atexit
import io
import os
import queue
import re
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any, BinaryIO, Callable

from workbench.core.data.fingerprint import ROW_HASH, digest_query
from workbench.core.data.io import TEXT_SUFFIXES, FileState, first_line, local_path, release_text_format
from workbench.core.data.schema import Schema
from workbench.core.data.sql_engine import FileSource, Progress, SqlData
from workbench.core.data.sql_reading import (
    DATE,
    DECIMAL,
    FLOAT,
    INTEGER,
    OTHER,
    TEXT,
    TIMESTAMP,
    TRUTH,
    DuckDBDialect,
    StoredColumn,
)
from workbench.core.data.text_files import TextFormat, column_names, stream
from workbench.core.errors import DataFileError

__all__ = ["EngineFolder", "FileSource", "OUT_OF_CORE_SUFFIXES", "OutOfCoreData", "file_source",
           "remove_on_signals", "sweep_leftovers"]

OUT_OF_CORE_SUFFIXES = (*TEXT_SUFFIXES, ".parquet", ".pq")
# DuckDB turns a list of more than a few constants (``x IN ('NA', 'N/A', ...)``) into a join with a hash table;
# the reading rule has several such lists per column, and as joins they took a microsecond a value and more
# memory than a small memory limit has: evaluated as lists they cost almost nothing
KEEP_IN_LISTS = "in_clause"
FOLDER_PREFIX = "dp-workbench-engine-"
_TEXT_ROWS = "dp_text_rows"  # what a query of a text file's rows names them
_RANGE_INDEX = "dp_range_index"  # the column of a Parquet file's named pandas RangeIndex (made unlike the file's)
_PART = "dp_text_part"  # a part of a text file's rows with their hashes, until they are added up (``_store_text``)
_PART_BYTES = 16 << 20  # a text file is stored in parts of about this many bytes of Arrow batches (their text and
# offsets: batch.nbytes), two in memory at a time


def _added(sums: tuple, part: tuple) -> tuple:
    """``digest_query``'s rows of two sets of rows, as that of both: the counts and each hash half added up exactly
    (None: no row, as SQL's sum of none)."""
    return tuple(a if b is None else b if a is None else int(a) + int(b) for a, b in zip(sums, part))


def _put(parts: "queue.Queue[object]", item: object, stop: threading.Event) -> None:
    """Hand ``item`` to the reading thread, unless it has stopped (then nothing waits for it)."""
    while not stop.is_set():
        try:
            parts.put(item, timeout=0.1)
            return
        except queue.Full:
            continue


def file_source(path: str | Path, *, delimiter: str | None = None, encoding: str | None = None) -> FileSource:
    """Describe a CSV/TSV or Parquet file for the out-of-core engine, a text file's encoding and delimiter
    decided as ``load_table`` decides them (declared, by its byte-order mark, or UTF-8; split by its header)."""
    path = local_path(path)
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
    encoding, found = release_text_format(sample, path.name, TEXT_SUFFIXES[suffix] or ",", delimiter, encoding)
    return FileSource(path, "text", encoding, found, state)


# ---------------------------------------------------------------- the engine's folder: never left behind

_LIVE: set[Path] = set()
_LOCK = threading.Lock()


def _remove_live_folders() -> None:
    with _LOCK:
        folders = list(_LIVE)
        _LIVE.clear()
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


atexit.register(_remove_live_folders)


def remove_on_signals() -> None:
    """End the process on SIGTERM and SIGHUP as on an interrupt, so that ``atexit`` and every ``finally``
    run: an engine's folder holds the prepared private data. Call from the program's main thread."""
    if threading.current_thread() is not threading.main_thread():
        return

    def stop(signum: int, _frame: Any) -> None:
        _remove_live_folders()
        raise SystemExit(128 + signum)

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) in (signal.SIG_DFL, None):
            signal.signal(number, stop)


def sweep_leftovers(folder: Path | None = None) -> list[Path]:
    """Remove engine folders (``EngineFolder``: the out-of-core engine's, Spark's) that a process which no longer
    runs left in the temporary folder (killed, or the machine lost power): they hold prepared private data. Returns
    what was removed. Called when the command line and the app start, and by every engine that starts; cheap (a glob
    of the temporary folder).

    A folder is named after the process that made it, and is kept while that process runs (whoever's it is, and
    whatever it is doing: another release, the app). A process that looks gone may be alive where its number
    means something else (a container that shares the temporary folder): the engine holds a lock on a file in
    its folder for as long as the folder exists, and a folder whose lock is held is kept too."""
    base = Path(folder or tempfile.gettempdir())
    removed = []
    try:
        candidates = list(base.glob(f"{FOLDER_PREFIX}*"))
    except OSError:  # a temporary folder that cannot be listed holds nothing this can remove
        return removed
    for candidate in candidates:
        owner = _owner(candidate)
        if owner is None or owner == os.getpid() or _running(owner) or _held_elsewhere(candidate):
            continue
        shutil.rmtree(candidate, ignore_errors=True)
        if not candidate.exists():
            removed.append(candidate)
    return removed


class EngineFolder:
    """A folder of this process's own for an engine's private files (DuckDB's spill, Spark's block manager and
    shuffle files): made by ``mkdtemp`` in the temporary folder (0700: no other user reads it), named after this
    process (``FOLDER_PREFIX`` + its PID), its lock held for as long as it exists (``_hold``), removed by ``remove``,
    when the process ends (``atexit``) or on SIGTERM and SIGHUP (``remove_on_signals``), and swept at the next start
    after a kill or a power cut (``sweep_leftovers``). Whatever writes into it must have stopped before ``remove``."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-"))
        with _LOCK:
            _LIVE.add(self.path)
        self._held = _hold(self.path)

    def remove(self) -> None:
        """Remove the folder and what is in it (again: nothing)."""
        shutil.rmtree(self.path, ignore_errors=True)
        with _LOCK:
            _LIVE.discard(self.path)
        held, self._held = self._held, None
        if held is not None:
            held.close()  # after the folder is gone: until then a sweep sees it held


_HOLD_FILE = "in-use.lock"


def _hold(folder: Path) -> BinaryIO | None:
    """Lock a file in ``folder`` for as long as it is open (POSIX: the lock ends with the process, however it ends)."""
    if sys.platform == "win32":  # the engine's open files cannot be removed while it runs: the PID decides alone
        return None
    import fcntl

    try:
        handle = (folder / _HOLD_FILE).open("wb")
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return None
    return handle


def _held_elsewhere(folder: Path) -> bool:
    """Whether a live process holds ``folder``'s lock (see ``_hold``)."""
    if sys.platform == "win32":
        return False
    import fcntl

    try:
        with (folder / _HOLD_FILE).open("rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            except OSError:
                return True  # cannot tell: keep it
            fcntl.flock(handle, fcntl.LOCK_UN)
    except FileNotFoundError:
        return False  # a folder from before the lock, or one whose owner died before taking it
    except OSError:
        return True  # cannot tell: keep it
    return False


def _owner(folder: Path) -> int | None:
    try:
        return int(folder.name[len(FOLDER_PREFIX):].split("-", 1)[0])
    except ValueError:
        return None


def _running(pid: int) -> bool:
    """Whether process ``pid`` runs; True when that cannot be told (another user's process, access denied)."""
    if pid <= 0:
        return True  # not a process's number: os.kill(0) would ask about this process group
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        kernel32.OpenProcess.restype = ctypes.c_void_p
        handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if not handle:  # ERROR_INVALID_PARAMETER: no such process; anything else (access denied): alive
            return ctypes.get_last_error() != 87  # type: ignore[attr-defined]
        kernel32.GetExitCodeProcess.argtypes = (ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulong))
        kernel32.CloseHandle.argtypes = (ctypes.c_void_p,)
        code = ctypes.c_ulong()
        kernel32.GetExitCodeProcess(handle, ctypes.byref(code))
        kernel32.CloseHandle(handle)
        return code.value == 259  # STILL_ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: another user's, alive
        return True
    return True


def _release_arrow_memory() -> None:
    """Hand the memory Arrow's pool holds freed back to the system. Arrow's threads allocate a part's text and
    columns, and other threads free them (DuckDB, this one): mimalloc keeps such pages until the owner comes back
    for them, and a text file's reading held 60 MB and more of them beside DuckDB's own memory. Called after each
    part is stored: it takes well under a millisecond."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


class _CountedFile(io.RawIOBase):
    """A file whose bytes read so far are counted: how far Arrow's reading is, seen from another thread."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._file = path.open("rb")
        self.size = max(path.stat().st_size, 1)
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        count = self._file.readinto(buffer)
        self.read_bytes += count or 0
        return count

    def close(self) -> None:
        self._file.close()
        super().close()


# DuckDB's whole type names (a list such as INTEGER[], a struct, a map or an interval is none of them: OTHER)
_DUCKDB_KINDS = (
    (re.compile(r"BOOLEAN"), TRUTH), (re.compile(r"DECIMAL\(\d+,\s*\d+\)"), DECIMAL),
    (re.compile(r"U?(TINY|SMALL|BIG|HUGE)?INT(EGER)?"), INTEGER), (re.compile(r"FLOAT|DOUBLE|REAL"), FLOAT),
    (re.compile(r"VARCHAR"), TEXT), (re.compile(r"TIMESTAMP(_S|_MS|_NS)?( WITH TIME ZONE)?"), TIMESTAMP),
    (re.compile(r"DATE"), DATE),
)


# a Parquet column of bytes (BINARY without its UTF-8 mark, as legacy writers leave it) read as text, as in memory
# (``io.parquet_columns_as_stored``) and on Spark; bytes that are not UTF-8 are refused, as a text column's are
_BYTES_AS_TEXT = "binary_as_string = true"


def stored_kind_of(duckdb_type: str) -> tuple[str, bool]:
    """How a Parquet column's declared type (as DuckDB names it) is read, and whether it carries a time zone."""
    upper = duckdb_type.strip().upper()
    for pattern, kind in _DUCKDB_KINDS:
        if pattern.fullmatch(upper):
            return kind, upper.endswith("WITH TIME ZONE")
    return OTHER, False


def nested_kind(duckdb_type: str) -> str | None:
    """What a Parquet column of a type no engine reads as values holds (a list, a struct, a map, a union, an
    interval), or None: the in-memory engine hashes such a value as Python writes it, DuckDB otherwise."""
    upper = duckdb_type.strip().upper()
    if upper.endswith("]"):
        return "lists"
    for start, what in (("STRUCT", "structs"), ("MAP", "maps"), ("UNION", "unions"), ("INTERVAL", "intervals")):
        if upper.startswith(start):
            return what
    return None


class OutOfCoreData(SqlData):
    """Prepared data in a temporary DuckDB database: answers ``Aggregate`` requests exactly. Private.

    ``memory_limit`` (e.g. "2GB") caps DuckDB's memory; what does not fit is spilled to disk.
    ``progress`` hears the fraction of the file prepared; raising from it (``Cancelled``) stops the work.
    ``hashes_content``: as ``SqlData.hashes_content``.
    """

    dialect = DuckDBDialect()  # DuckDB's own functions where the portable SQL is slower (the row hash, the number test)

    def __init__(self, source: FileSource, schema: Schema, *, memory_limit: str | None = None,
                 threads: int | None = None, progress: Callable[[float], None] | None = None,
                 hashes_content: bool = True) -> None:
        import duckdb

        schema.validate()
        sweep_leftovers()
        self.schema = schema
        self.source = source
        self.hashes_content = hashes_content
        self._engine_folder = EngineFolder()
        self._folder = self._engine_folder.path
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
            # an in-memory database that spills what does not fit to the folder: a database file would be written
            # (and compressed) as it is filled, which took longer than reading the file
            self._db = duckdb.connect(":memory:", config=config)
        except duckdb.Error as exc:
            self._remove_folder()
            raise DataFileError(f"The out-of-core engine could not start ({exc}).") from None
        self._duckdb = duckdb
        self._tables = 0
        self._counted: _CountedFile | None = None
        self._stream_failures: list[DataFileError] = []
        self._text_rows: Any = None  # a text file's rows, until they are stored
        self._close_text: Callable[[], None] = lambda: None  # closes the text file's stream (``stream``)
        self._numbered: tuple[str, int, int] | None = None  # a Parquet file's named RangeIndex (``_columns``)
        self._range_column = _RANGE_INDEX  # the query's name for its values: no column of the file's (``_columns``)
        self._db.execute("SET enable_progress_bar = false").fetchall()  # DuckDB would print it; ``progress`` reads it
        self._db.execute(f"SET disabled_optimizers = '{KEEP_IN_LISTS}'").fetchall()
        try:
            self._prepare(progress)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self._close_text()  # a text file's stream never stored (a failure before it was)
        try:
            self._db.close()
        except Exception:  # noqa: BLE001 - closing twice, or after a failed start
            pass
        self._remove_folder()

    def _remove_folder(self) -> None:
        self._engine_folder.remove()

    # ------------------------------------------------------------ DuckDB's ways

    def _text_format(self) -> TextFormat:
        from workbench.core.data.io import has_quotes

        return TextFormat(self.source.delimiter or ",", self.source.encoding or "utf-8", has_quotes(self.source.path))

    def _columns(self) -> list[tuple[str, StoredColumn]]:
        q = self.dialect.quote
        if self.source.file_format == "text":
            names = column_names(lambda: self.source.path.open("rb"), self._text_format(), self.source.name)
            return [(name, StoredColumn(q(f"c{i}"), TEXT)) for i, name in enumerate(names)]
        try:
            import pyarrow.parquet as pq

            from workbench.core.data.io import pandas_range_index, pandas_row_labels

            schema = pq.read_schema(self.source.path)
            declared = schema.names  # DuckDB renames repeated names; the file's own
            labels = set(pandas_row_labels(schema.metadata))  # pandas' row labels: no column in memory either
            # a named RangeIndex as long as the file: a column in memory too
            self._numbered = pandas_range_index(schema.metadata, rows=pq.read_metadata(self.source.path).num_rows)
            described = self._all(f"DESCRIBE SELECT * FROM read_parquet({self.dialect.file(self.source.path)}, "
                                  f"{_BYTES_AS_TEXT})")
        except DataFileError:
            raise
        except Exception as exc:  # pyarrow's and DuckDB's own exception types
            raise DataFileError(f"{self.source.name}: the file cannot be read as a Parquet file ({first_line(exc)}).") from None
        for name, row in zip(declared, described):
            nested = nested_kind(str(row[1]))
            if nested is not None and name not in labels:
                raise DataFileError(
                    f"{self.source.name}: column '{name}' holds {nested} ({row[1]}), which the out-of-core engine "
                    "cannot read as the in-memory engine does (the file's content digest would differ). Release it "
                    "with the in-memory engine, or write the file without that column."
                )
        columns = [(name, StoredColumn(q(str(row[0])), *stored_kind_of(str(row[1]))))
                   for name, row in zip(declared, described) if name not in labels]
        if self._numbered is not None:  # after the others, as in memory
            taken = {name.casefold() for name in declared}  # DuckDB's names ignore case
            if "file_row_number" in taken:  # DuckDB's name for a row's place in the file
                same = next(name for name in declared if name.casefold() == "file_row_number")
                raise DataFileError(
                    f"{self.source.name}: the file has a column '{same}' and a named pandas RangeIndex "
                    f"('{self._numbered[0]}'), which the out-of-core engine cannot read together. Rename that column, "
                    "or read the file in memory."
                )
            # the RangeIndex's values under a name no column of the file has: a stored 'dp_range_index' would be
            # read in its place
            self._range_column = _RANGE_INDEX
            while self._range_column.casefold() in taken:
                self._range_column += "_"
            columns.append((self._numbered[0], StoredColumn(q(self._range_column), INTEGER)))
        return columns

    def _source(self) -> str:
        if self.source.file_format == "parquet":
            location = self.dialect.file(self.source.path)
            if self._numbered is None:
                return f"read_parquet({location}, {_BYTES_AS_TEXT})"
            # a named RangeIndex: row i of the file (from 0, DuckDB's file_row_number, whatever its row groups and
            # threads) holds start + step * i, as in memory (io.parquet_columns_as_stored)
            _, start, step = self._numbered
            return (f"(SELECT *, CAST({int(start)} + {int(step)} * file_row_number AS BIGINT) "
                    f"AS {self.dialect.quote(self._range_column)} "
                    f"FROM read_parquet({location}, {_BYTES_AS_TEXT}, file_row_number = true)) AS dp_parquet")
        names = [f"c{i}" for i in range(len(self._file_columns))]

        def open_file() -> BinaryIO:
            self._counted = _CountedFile(self.source.path)
            return self._counted  # type: ignore[return-value]

        self._text_rows, self._stream_failures, self._close_text = stream(open_file, self._text_format(),
                                                                          self.source.name, names)
        return _TEXT_ROWS

    def _store(self, name: str, query: str, progress: Progress | None) -> None:
        if self._text_rows is not None and _TEXT_ROWS in query:
            rows, self._text_rows = self._text_rows, None
            self._store_text(name, query, rows, progress)
        else:
            self._run(f"CREATE TABLE {name} AS {query}", progress)

    def _store_digested(self, name: str, query: str, digest: str, progress: Progress | None) -> tuple:
        # a text file's rows with their hashes added up part by part, when ``digest`` adds up just those
        if self._text_rows is not None and _TEXT_ROWS in query and digest == digest_query(self.dialect, name):
            rows, self._text_rows = self._text_rows, None
            return self._store_text(name, query, rows, progress, digested=True)
        return super()._store_digested(name, query, digest, progress)

    def _store_text(self, name: str, query: str, rows: "pa.RecordBatchReader", progress: Progress | None,
                    digested: bool = False) -> tuple:
        """Store ``query`` of a text file's rows part by part: Arrow parses the next part in a thread of its own
        while DuckDB reads the one before with all its threads (a stream handed to DuckDB whole is read by one
        thread). The parts are inserted in file order, so rowid keeps the file's order. Two parts at most are in
        memory: the one DuckDB reads and the one being parsed (the parser hands a part over only when DuckDB takes
        it, and starts the next then; each part is let go as soon as it is stored).

        Each part's stored rows are compressed as soon as they are in (a CHECKPOINT: an in-memory database keeps
        rows uncompressed until one), so that what the stored rows take grows by a quarter of what it did
        (2,000,000 rows of the benchmark table: 50 MB compressed, 200 MB not).

        ``digested``: the rows' hashes (``ROW_HASH``) are counted and added up part by part (``digest_query`` of
        each part, summed exactly here) and not stored: they are only ever added up, and two random 64-bit
        numbers a row do not compress (16 bytes a row kept: 1 GB of a 64,000,000-row file, beyond a 1 GB memory
        limit and spilled). Returns ``digest_query``'s row for all the rows (empty when not ``digested``)."""
        import pyarrow as pa

        parts: "queue.Queue[object]" = queue.Queue(maxsize=1)
        taken = threading.Semaphore(0)  # released when the reading thread takes a part
        stop = threading.Event()

        def hand_over(item: object) -> None:
            _put(parts, item, stop)
            while not stop.is_set() and not taken.acquire(timeout=0.1):
                continue

        def parse() -> None:
            try:
                batches, size = [], 0
                for batch in rows:
                    if stop.is_set():  # the reading thread stopped (Cancel, or a failure): read no further
                        return
                    batches.append(batch)
                    size += batch.nbytes
                    if size >= _PART_BYTES:
                        part, batches, size = pa.Table.from_batches(batches, rows.schema), [], 0
                        hand_over(part)
                        del part
                hand_over(pa.Table.from_batches(batches, rows.schema))
                del batches
                _put(parts, None, stop)
            except BaseException as exc:  # noqa: BLE001 - raised again by the reading thread
                _put(parts, exc, stop)

        parser = threading.Thread(target=parse, name="out-of-core-parse", daemon=True)
        parser.start()
        made = False
        sums: tuple = (0, None, None)
        try:
            while True:
                part = parts.get()
                taken.release()
                if part is None:
                    break
                if isinstance(part, BaseException):
                    raise part
                self._db.register(_TEXT_ROWS, part)
                del part  # DuckDB holds it while registered, and lets go of it when unregistered
                try:
                    if digested:  # the part's rows, hashes and all, then their sums, then the rows without them
                        self._run(f"CREATE OR REPLACE TEMP TABLE {_PART} AS {query}", progress, finish=False)
                    else:
                        self._run(f"{f'INSERT INTO {name}' if made else f'CREATE TABLE {name} AS'} {query}", progress,
                                  finish=False)
                finally:
                    self._db.unregister(_TEXT_ROWS)
                if digested:
                    sums = _added(sums, self._all(digest_query(self.dialect, _PART))[0])
                    kept = f"SELECT * EXCLUDE ({', '.join(ROW_HASH)}) FROM {_PART}"
                    self._run(f"INSERT INTO {name} {kept}" if made else f"CREATE TABLE {name} AS {kept}", None)
                    self._run(f"DROP TABLE {_PART}", None)
                made = True
                self._run("CHECKPOINT", None)  # the part's rows compressed (see above)
                _release_arrow_memory()
            if progress is not None:
                progress(1.0)
        finally:
            stop.set()
            parser.join()
            self._close_text()  # a stream left part way (Cancel, a failure) lets go of Arrow's thread and the file
        return sums if digested else ()

    def _view(self, name: str, query: str) -> None:
        self._run(f"CREATE VIEW {name} AS {query}", None)

    def _first_rows(self, table: str, person: str, k: int) -> str:
        # each person's k smallest rowids (the stored rows keep the file's order): a grouped list, which DuckDB
        # spills to disk, where a window over all rows must fit in memory
        self._run(f"CREATE TABLE kept AS SELECT unnest(min(rowid, {k})) AS kept FROM {table} "
                  f"WHERE {person} IS NOT NULL GROUP BY {person}", None)
        return f"SELECT {table}.* FROM {table} SEMI JOIN kept ON {table}.rowid = kept.kept"

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

    def _fraction(self) -> float:
        if self._counted is not None:  # a text file: how much of it Arrow has read
            return min(self._counted.read_bytes / self._counted.size, 1.0)
        fraction = self._db.query_progress()
        return max(0.0, min(1.0, fraction / 100.0)) if fraction >= 0 else 0.0

    def _run(self, query: str, progress: Callable[[float], None] | None, finish: bool = True) -> None:
        if progress is None:
            self._guarded(lambda: self._db.execute(query).fetchall())
            return
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
                progress(self._fraction())
        except BaseException:
            self._db.interrupt()  # Cancel: DuckDB stops at its next vector
            worker.join()
            raise
        if failure:
            raise failure[0]
        if finish:
            progress(1.0)

    def _guarded(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except DataFileError:
            raise
        except self._duckdb.InterruptException:  # Ctrl+C while a query runs: a stop, as in Python's own code
            raise KeyboardInterrupt from None
        except RuntimeError as exc:
            if "interrupted" in str(exc).lower():  # DuckDB's Python client: RuntimeError('Query interrupted')
                raise KeyboardInterrupt from None
            raise
        except self._duckdb.OutOfMemoryException as exc:
            raise DataFileError(
                f"{self.source.name}: the out-of-core engine ran out of memory and disk for spilling ({first_line(exc)}). "
                "Free disk space in the temporary folder, or give it a larger memory limit."
            ) from None
        except self._duckdb.ConversionException as exc:
            raise DataFileError(f"{self.source.name}: a value cannot be read ({first_line(exc)}).") from None
        except self._duckdb.Error as exc:
            if self._is_spill_failure(exc):
                raise DataFileError(
                    f"{self.source.name}: the out-of-core engine could not write to its temporary folder "
                    f"{self._folder.parent} ({first_line(exc)}). Free disk space there, or give the engine a larger "
                    "memory limit."
                ) from None
            if self._stream_failures:  # Arrow could not parse the text file: its own message says why
                raise self._stream_failures[0] from None
            if not isinstance(exc, (self._duckdb.InvalidInputException, self._duckdb.IOException)):
                raise
            if self.source.file_format == "parquet" and "UTF8" in str(exc):  # a text column's bytes are not UTF-8
                from workbench.core.data.io import parquet_text_refusal

                refusal = parquet_text_refusal(self.source.path, self.source.name)  # the column memory names
                if refusal is not None:
                    raise refusal from None
            raise DataFileError(
                f"{self.source.name}: the file cannot be read ({first_line(exc)}). Check that it is complete and "
                "that its delimiter and encoding are right."
            ) from None

    def _is_spill_failure(self, exc: Exception) -> bool:
        """Whether DuckDB failed on its own files rather than on the data file: a fatal error (a CHECKPOINT or a
        spill that could not be written leaves the database unusable) or an I/O error about the engine's folder."""
        if isinstance(exc, self._duckdb.FatalException):
            return True
        return isinstance(exc, self._duckdb.IOException) and str(self._folder) in str(exc)

    def _all(self, query: str) -> list[tuple]:
        return self._guarded(lambda: self._db.execute(query).fetchall())
