"""Prepared data computed by Spark where the table lives: a cluster, or Spark's local mode.

The same SQL as the out-of-core engine (``sql_engine``), in Spark's spelling: Spark reads the file, reads each
value by the rule (``sql_reading``) and prepares it, keeps the prepared columns cached on its executors, and
answers the aggregates with one GROUP BY for each set of cells, those with the same cells side by side, as out of
core (``SqlData.expect``). What comes back to the curator's machine is what ``collect()`` returns for those
queries: one integer per cell (a count or an exact sum), the column names and types of the file, the sums of the
rows' hashes for the content fingerprint, and, for the category check, the distinct texts outside the public
lists. Never a row. The noise is drawn and the ledger charged on the curator's machine, as for every engine.

A text file is read as one piece (Spark's ``multiLine``: a quoted value may hold a line break, and every
line is parsed as the other engines parse it), so a single large CSV is read by one task: on a cluster,
store large tables as Parquet, which Spark reads in parallel.

Spark is used only when asked for (``--engine spark``): it talks to its own JVM through a local socket
(py4j), and to the cluster its configuration names; the rest of DP Workbench opens no socket.
"""

from __future__ import annotations

import codecs
import ntpath
import os
import posixpath
import re
import subprocess
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from workbench.core.data.io import TEXT_SUFFIXES, FileState, check_names, first_line, not_utf8, release_text_format
from workbench.core.data.reading import WHITESPACE
from workbench.core.data.schema import Schema
from workbench.core.data.sql_engine import FileSource, Progress, SqlData, refuse_names_alike_but_case
from workbench.core.data.sql_reading import (
    DATE,
    DECIMAL,
    FLOAT,
    INTEGER,
    OTHER,
    TEXT,
    TIMESTAMP,
    TRUTH,
    Dialect,
    StoredColumn,
    number_by_first_code,
)
from workbench.core.data.text_files import empty_file, line_break, refuse_broken_names
from workbench.core.errors import DataFileError, PlanError

SPARK_SUFFIXES = (*TEXT_SUFFIXES, ".parquet", ".pq")
_JAVA_ENCODINGS = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8", "ascii": "UTF-8", "utf-16": "UTF-16",
                   "iso8859-1": "ISO-8859-1", "cp1252": "windows-1252"}  # by Python's own name of the codec


def _java_charset(encoding: str | None) -> str | None:
    """The Java charset Spark reads ``encoding`` with, whatever the spelling Python accepts (windows-1252, utf8,
    latin_1…), or None for one it cannot read."""
    try:
        return _JAVA_ENCODINGS.get(codecs.lookup(encoding or "utf-8").name)
    except LookupError:
        return None


_SPARK_CHARSETS = {"UTF-8", "UTF-16", "ISO-8859-1"}  # what Spark 4's CSV reader takes without its legacy setting
_SNIFF_BYTES = 1 << 20  # a text file's first bytes, from which its encoding and delimiter are decided (as io's)
# Spark's whole-stage code generation compiles the reading and hashing of a file's every column into one Java method
# longer than the JVM's compiler takes by default (8,000 bytes of bytecode), which then leaves it interpreted: reading
# and caching 2,000,000 rows took 100 s of processor time with it and 71 s without it (Spark's own per-expression code
# generation). A session started here lets the JVM compile such methods (``HUGE_METHODS``), and keeps whole-stage code
# generation on: the pass then took 16-19 s of processor time against 32-43 s without it once compiled (2,000,000 rows;
# its first run also waits for the compiler). In another session it is off while the file's rows are read and cached
_WHOLE_STAGE = "spark.sql.codegen.wholeStage"
HUGE_METHODS = "-XX:-DontCompileHugeMethods"
_NOT_TEXT = "dp-workbench: a byte is not text in the file's encoding"  # raised by Spark while reading (``_open``)
_LINE_BREAK = "dp-workbench: a value holds a line break"  # raised by Spark while reading (``_open``)
_NOT_UTF8 = "dp-workbench: a Parquet text value is not UTF-8"  # the same, for a Parquet file's text column


def _check_spark_names(names: list[str], file_name: str) -> None:
    """``io.check_names``, and no two names that differ only in case, of any column of the file: Spark stopped on 'a'
    beside 'A' with its own words (AMBIGUOUS_REFERENCE, COLUMN_ALREADY_EXISTS) where the in-memory engine reads both
    (``spark.sql.caseSensitive`` is off by default, and the session's own)."""
    check_names(names, file_name)
    refuse_names_alike_but_case(names, file_name)


_ASCII_PRINTABLE = (33, 126)  # '!' to '~': no character of WHITESPACE is among them (tested)


class SparkDialect(Dialect):
    def quote(self, name: str) -> str:
        return "`" + name.replace("`", "``") + "`"

    def text(self, value: str) -> str:
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"

    def trim(self, value: str) -> str:
        # trimming by a set of 29 characters finds each end's character in the set, and lists every character's
        # place to trim the right end (a tenth of the file's reading): only where a value does not start and end
        # with a printable ASCII character, none of which is white space (the other characters' ascii() is outside
        # 33-126, whether Spark gives their code point or their first byte), as most values do
        plain = " AND ".join(f"ascii({end}) BETWEEN {_ASCII_PRINTABLE[0]} AND {_ASCII_PRINTABLE[1]}"
                             for end in (value, f"right({value}, 1)"))
        return f"(CASE WHEN {plain} THEN {value} ELSE trim(BOTH {self.text(WHITESPACE)} FROM {value}) END)"

    def full_match(self, value: str, pattern: str) -> str:
        return f"({value} RLIKE {self.text('^(?:' + pattern + ')$')})"

    def is_number(self, text: str) -> str:
        # the pattern (Java's regular expressions) only on a text whose first character can start a number, as
        # DuckDB's dialect does: most texts of a categorical column are told by ascii() (outside 0-127 for others)
        return number_by_first_code(self, text, f"ascii({text})")

    def finite(self, value: str) -> str:
        return f"(NOT isnan({value}) AND abs({value}) < CAST('Infinity' AS DOUBLE))"

    def round_even(self, value: str) -> str:
        # Java's Math.rint (ties to even), where bround(value, 0) made each double a decimal through its text
        # (BigDecimal.valueOf): a fifth of the aggregates' processor time. Every value rounded here is a double, and
        # on a double both give the same number, but for the sign of a zero (bround's is never negative), which no
        # comparison and no integer tells apart (tested)
        return f"rint({value})"

    def is_nan(self, value: str) -> str:
        return f"isnan({value})"

    def number(self, value: float) -> str:
        if value in (float("inf"), float("-inf")):
            return f"CAST({self.text('Infinity' if value > 0 else '-Infinity')} AS DOUBLE)"
        return f"CAST({self.text(repr(float(value)))} AS DOUBLE)"

    def string(self, value: str) -> str:
        return f"CAST({value} AS STRING)"

    def integer_divide(self, left: str, right: str) -> str:
        return f"(({left}) div ({right}))"

    def date_text(self, value: str, pattern: str) -> str:
        java = pattern.replace("%Y", "yyyy").replace("%m", "MM").replace("%d", "dd").replace("%H", "HH") \
            .replace("%M", "mm").replace("%S", "ss").replace("%f", "SSSSSS")
        return f"date_format({value}, {self.text(java)})"

    def is_midnight(self, value: str) -> str:
        return f"(CAST(CAST({value} AS DATE) AS TIMESTAMP) = {value})"

    def whole_seconds(self, value: str) -> str:
        return f"(unix_micros(CAST({value} AS TIMESTAMP)) % 1000000 = 0)"

    def utc(self, value: str) -> str:
        return f"to_utc_timestamp({value}, current_timezone())"

    def md5_halves(self, digest: str) -> tuple[str, str]:
        # each half as a signed 64-bit integer (two's complement: the same number modulo 2^64, which is all the
        # content digest keeps of their sums): a long is carried through the cache where a DECIMAL(20, 0) was made
        # a BigInteger at every read (a tenth of the reading's processor time)
        return tuple(f"CAST(conv(substr({digest}, {start}, 16), 16, -10) AS BIGINT)" for start in (1, 17))  # type: ignore[return-value]

    def exact_sum(self, unsigned: str) -> str:
        # the sum of 64-bit integers as three sums of their 22-bit pieces, each a long that cannot overflow below
        # 2^41 rows, put together as a decimal: exact, where a sum of longs overflows (an error with ANSI SQL) and
        # a sum of decimals of 20 digits makes a BigInteger a row
        pieces = [f"({unsigned}) & 4194303", f"shiftright({unsigned}, 22) & 4194303", f"shiftright({unsigned}, 44)"]
        return " + ".join(f"CAST(sum({piece}) AS DECIMAL(38, 0)) * {1 << (22 * i)}" for i, piece in enumerate(pieces))

    def row_separator(self) -> str:
        return "char(31)"


_SPARK_KINDS = (("boolean", TRUTH), ("decimal", DECIMAL), ("tinyint", INTEGER), ("smallint", INTEGER),
                ("int", INTEGER), ("bigint", INTEGER), ("float", FLOAT), ("double", FLOAT), ("string", TEXT),
                ("timestamp_ntz", TIMESTAMP), ("timestamp", TIMESTAMP), ("date", DATE))


def stored_kind_of(spark_type: str) -> tuple[str, bool]:
    """How a column Spark declares as ``spark_type`` is read, and whether it is an instant (a time zone)."""
    for name, kind in _SPARK_KINDS:
        if spark_type == name or spark_type.startswith(name + "("):
            return kind, spark_type == "timestamp"
    return OTHER, False


def spark_source(location: str | Path, *, delimiter: str | None = None, encoding: str | None = None) -> FileSource:
    """A CSV/TSV or Parquet file wherever Spark reads it (a local path, hdfs://, s3a://): its format from the
    suffix, a text file's delimiter and encoding as declared (``delimiter``, ``encoding``; None where not). Nothing
    is read from it here (it may live on the cluster): what is not declared is decided when Spark opens it, from
    its first megabyte read through Spark's file system, as the other engines decide it (``SparkData._open``)."""
    text = spark_location(location)
    path = _path_here(text)
    suffix = path.suffix.lower()
    if suffix not in SPARK_SUFFIXES:
        raise DataFileError(f"{path.name}: the Spark engine reads CSV, TSV and Parquet files, not '{suffix}'.")
    # a file on this machine: its state before Spark reads it, so that the ledger knows the bytes it hashes are
    # those read (``run._hashed_bytes_were_read``)
    state = FileState.of(path) if path.is_file() else None
    where = file_system_location(text)  # as written: a Path would collapse 'hdfs:///x' into 'hdfs:/x'
    if suffix in (".parquet", ".pq"):
        return FileSource(path, "parquet", state=state, location=where)
    if _java_charset(encoding) is None:
        raise DataFileError(f"{path.name}: the Spark engine reads UTF-8, UTF-16, Latin-1 and Windows-1252 text, "
                            f"not {encoding}. Save the file as UTF-8.")
    return FileSource(path, "text", encoding, delimiter, state, location=where)


_WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:")


def _path_here(location: str) -> Path:
    """The file on this machine that a location as ``spark_location`` gives it names, which the ledger hashes and
    checks: a file: location's path ('file:///x' and 'file:/x' are /x, as Hadoop reads them: not percent-decoded),
    a local path itself. Another location (a cluster's, or a file: location with a host) as a Path, which names no
    file here."""
    scheme = _SCHEME.match(location)
    if not scheme or scheme.group(1).lower() != "file" or len(scheme.group(2)) == 2:  # 'file://host/x': a host
        return Path(location)
    rest = location[scheme.end():]
    if os.name == "nt" and _WINDOWS_DRIVE.match(rest):
        return Path(ntpath.normpath(rest))
    # '..' taken away as text, as Hadoop does before it opens the file: a link followed first (as the system would,
    # and ``Path.resolve``) could name another file than Spark reads
    return Path(posixpath.normpath("/" + rest))


_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]+):(/+)")
_HADOOP_GLOB = re.compile(r"([{}\[\]*?\\])")


def spark_location(location: str | Path) -> str:
    """A location as Spark wants it: a text with a scheme as written ('hdfs://nn/x.csv'; 'hdfs:///x.csv' and
    'hdfs:/x.csv' on the default namenode); a Path's, which collapsed its slashes, with a host taken to follow the
    scheme ('hdfs:/nn/x.csv' is 'hdfs://nn/x.csv'), and none after 'file:' ('file:/x.csv' is 'file:///x.csv'); a
    local path made absolute."""
    text = str(location)
    scheme = _SCHEME.match(text)
    if scheme and not isinstance(location, Path):
        return text
    if scheme:
        name, rest = scheme.group(1), text[scheme.end():]
        return f"{name}:///{rest}" if name.lower() == "file" else f"{name}://{rest}"
    return str(Path(text).resolve())


def file_system_location(location: str | Path) -> str:
    """Where Hadoop's file system (Spark's) finds the file: a cluster's location as ``spark_location`` gives it,
    with its host; a file here as a file: URI, so that a Spark whose default file system is a cluster's (HDFS) reads
    this machine's file, not one at the same path there. Written as it is: Hadoop does not percent-decode it."""
    text = spark_location(location)
    if _SCHEME.match(text):
        return text
    posix = Path(text).as_posix()
    return f"file://{posix}" if posix.startswith("/") else f"file:///{posix}"


def read_pattern(location: str, file_name: str) -> str:
    """A location as ``file_system_location`` gives it, as Spark's readers take it, exactly that file or folder:
    they read a location holding any of ``{}[]*?\\`` as a pattern of file names (survey[1].csv would read
    survey1.csv, and survey[12].csv two files), so each is escaped. Refused on Windows, where Hadoop reads the
    escape as a folder's separator."""
    if not _HADOOP_GLOB.search(location):
        return location
    if os.name == "nt":
        raise DataFileError(f"{file_name}: the Spark engine on Windows cannot read a file or folder whose path holds "
                            "any of { } [ ] * ?. Rename it (or its folder), or release it with the in-memory or "
                            "out-of-core engine.")
    return _HADOOP_GLOB.sub(r"\\\1", location)


class SparkData(SqlData):
    """Prepared data cached in Spark: answers ``Aggregate`` requests exactly. Private.

    ``spark`` is a running SparkSession (tests share one); without it, the one running in this process, or else
    one started with ``master`` (default: Spark's own configuration, else local mode on every core) and stopped
    on ``close``. ``hashes_content``: as ``SqlData.hashes_content``.
    """

    dialect = SparkDialect()
    _exact_rows = 1 << 41  # its sums of 22-bit pieces in longs (``SparkDialect.exact_sum``)

    def __init__(self, source: FileSource, schema: Schema, *, spark: Any = None, master: str | None = None,
                 progress: Progress | None = None, hashes_content: bool = True) -> None:
        schema.validate()
        self.schema = schema
        self.source = source
        self.hashes_content = hashes_content
        if spark is None:
            from workbench.core.data.spark_quiet import ignore_pandas_version_warning

            ignore_pandas_version_warning()  # before pyspark is imported
            from pyspark.sql import SparkSession

            spark = SparkSession.getActiveSession()  # a session already running here is used, and left running
        self._own_session = spark is None
        if spark is None:
            spark = start_session(master)
        self.spark = spark
        if not runs_in_this_process(spark):  # executors elsewhere, each reading a local path on its own disk
            self.reads_the_bytes_hashed = False
            self.hashes_content = True
        self._cached: list[Any] = []
        self._tables = 0
        self._declared = source.encoding  # a text file's encoding as declared (None: by its byte-order mark or UTF-8)
        self._huge_methods = compiles_huge_methods(spark)
        try:
            self._open()
            self._prepare(progress)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        for frame in self._cached:
            try:
                frame.unpersist()
            except Exception:  # noqa: BLE001 - a session already stopped
                pass
        self._cached = []
        if self._own_session:
            self._own_session = False  # closed once: a second close finds the JVM ended
            stop_session(self.spark)  # and its folder of Spark's files removed (``start_session``)

    # ------------------------------------------------------------ Spark's ways

    def _open(self) -> None:
        """The file as the view ``dp_file``, every value as the file stores it (a text file's as text), and each
        row's place in the file (``dp_file_order``): its data file's path, then its row in that file (Parquet's
        ``_metadata.row_index``; a text file is read whole by one task, multi-line, so Spark's increasing id follows
        its rows). Not Spark's increasing id alone: Spark packs a folder's files into tasks largest first, so one
        person's rows added to one file would change which of another person's rows come first."""
        from pyspark.sql import functions as F

        location = self.source.location or file_system_location(self.source.path)  # what Hadoop's file system looks up
        pattern = read_pattern(location, self.source.name)  # what Spark's readers read: that file, not a pattern
        try:
            if self.source.file_format == "parquet":
                frame = self.spark.read.parquet(pattern)
                _check_spark_names(list(frame.columns), self.source.name)
                frame = self._as_stored(frame, location)
                # a column of bytes (BINARY without its UTF-8 mark, as legacy writers leave it) is text, as in memory
                # (``io.parquet_columns_as_stored``) and out of core: Spark's cast keeps the bytes, checked below
                binary = [name for name, kind in frame.dtypes if kind == "binary"]
                if binary:
                    frame = frame.withColumns({name: F.col(self.dialect.quote(name)).cast("string") for name in binary})
                # a text column holding bytes that are not UTF-8: the other engines refuse the file (io.
                # check_parquet_text), Spark would read the bytes as they are; refused in the one pass that reads it
                texts = [name for name, kind in frame.dtypes if kind == "string"]
                if texts:
                    bad = F.lit(False)
                    for name in texts:
                        bad = bad | ~F.coalesce(F.is_valid_utf8(F.col(self.dialect.quote(name))), F.lit(True))
                    frame = frame.where(F.when(bad, F.raise_error(F.lit(_NOT_UTF8))).otherwise(F.lit(True)))
            else:
                self.source = self._text_format(location)
                charset = _java_charset(self.source.encoding)
                if charset not in _SPARK_CHARSETS:  # Spark 4 reads other Java charsets only when asked to
                    self.spark.conf.set("spark.sql.legacy.javaCharsets", "true")
                reader = (self.spark.read.option("sep", self.source.delimiter or ",")
                          .option("encoding", charset)
                          .option("quote", '"').option("escape", '"').option("inferSchema", False)
                          .option("multiLine", True).option("mode", "FAILFAST"))
                header = reader.option("header", False).csv(pattern).first()
                if header is None:
                    raise empty_file(self.source.name)
                _check_spark_names([str(name or "").lstrip("\ufeff") for name in header], self.source.name)
                refuse_broken_names([str(name or "") for name in header], self.source.name)
                frame = reader.option("header", True).csv(pattern)
                # Spark's decoder reads bytes that are not text in the file's encoding as U+FFFD, each in its own
                # value, where the other engines refuse the file (Arrow's check of every byte): here a row holding
                # U+FFFD stops the reading, refused as not text (``_refused``). So a file that holds U+FFFD itself,
                # written so on purpose, is refused on Spark only (the other engines read it).
                joined = F.concat_ws("", *(F.col(self.dialect.quote(c)) for c in frame.columns))
                frame = frame.where(F.when(joined.contains("\ufffd"), F.raise_error(F.lit(_NOT_TEXT)))
                                    .otherwise(F.lit(True)))
                # a value holding a line break: refused, as by the other engines (``text_files.refuse_line_breaks``)
                broken = joined.contains("\n") | joined.contains("\r")
                frame = frame.where(F.when(broken, F.raise_error(F.lit(_LINE_BREAK))).otherwise(F.lit(True)))
            within = (F.col("_metadata.row_index") if self.source.file_format == "parquet"
                      else F.monotonically_increasing_id())
            frame = frame.withColumn("dp_file_order", F.struct(F.col("_metadata.file_path").alias("file"),
                                                               within.alias("row")))
            frame.createOrReplaceTempView("dp_file")
        except DataFileError:
            raise
        except Exception as exc:  # Spark's own exception types (AnalysisException, Py4JJavaError)
            clash = re.search(r"COLUMN_ALREADY_EXISTS\] The column `([^`]*)`", str(exc))  # a Parquet file's 'a' and 'A'
            if clash:  # or two 'a': Spark's words do not say which, and the in-memory engine refuses only the latter
                raise DataFileError(
                    f"{self.source.name}: two columns are named '{clash[1]}' when upper and lower case are not told "
                    "apart, as Spark finds a column by its name. Give every column a name of its own in the file, not "
                    "only by its case; if the two differ in case alone, the in-memory engine reads the file."
                ) from None
            raise DataFileError(f"{self.source.name}: Spark cannot read the file ({first_line(exc)}).") from None

    def _text_format(self, location: str) -> FileSource:
        """The source with a text file's encoding and delimiter as every engine decides them for a release
        (``io.release_text_format``), from the file's first megabyte, read where Spark reads it."""
        declared, given = self.source.encoding, self.source.delimiter
        usual = TEXT_SUFFIXES.get(Path(location).suffix.lower()) or ","
        sample = self._first_bytes(location)
        if sample is None:  # a Spark Connect session, the file elsewhere: only what is declared can be read
            if not (declared and given):
                raise DataFileError(
                    f"{self.source.name}: this Spark session cannot look at the file's first line from here. Declare "
                    "its encoding and delimiter (--encoding and --delimiter on the command line)."
                )
            return replace(self.source, encoding=declared, delimiter=given)
        encoding, delimiter = release_text_format(sample, self.source.name, usual, given, declared)
        if _java_charset(encoding) is None:
            raise DataFileError(f"{self.source.name}: the Spark engine reads UTF-8, UTF-16, Latin-1 and Windows-1252 "
                                f"text, not {encoding}. Save the file as UTF-8.")
        return replace(self.source, encoding=encoding, delimiter=delimiter)

    def _refused(self, exc: BaseException) -> DataFileError | None:
        """The refusal of a file Spark found not to be text (``_NOT_TEXT``, ``_NOT_UTF8``: raised while reading), else
        None. A Parquet file here is named with the column and row the other engines name (``io``'s refusal)."""
        if _NOT_UTF8 in str(exc):
            from workbench.core.data.io import parquet_not_text, parquet_text_refusal

            path = Path(self.source.path)
            refusal = parquet_text_refusal(path, self.source.name) if path.is_file() else None
            if refusal is not None:
                return refusal
            return DataFileError(str(parquet_not_text(self.source.name, "?")).replace(
                "the column '?' holds", "a text column holds"))
        if _LINE_BREAK in str(exc):
            return line_break(self.source.name)
        if _NOT_TEXT not in str(exc):
            return None
        encoding = self.source.encoding or "utf-8"
        if self._declared is None and codecs.lookup(encoding).name == "utf-8":
            return not_utf8(self.source.name)
        return DataFileError(
            f"{self.source.name}: the text is not valid {encoding}. Declare the right encoding (for example cp1252 or "
            "latin-1: --encoding on the command line, \"encoding\" in the plan's dataset) and open it again."
        )

    # ------------------------------------------------------------ the file, through Spark's file system

    def _data_files(self, location: str) -> tuple[Any, Any, list[Any]]:
        """Hadoop's configuration, file system and the data files at ``location`` (a file, or a folder's data
        files by name) as Spark's JVM sees them."""
        jvm = self.spark._jvm
        conf = self.spark._jsc.hadoopConfiguration()
        path = jvm.org.apache.hadoop.fs.Path(location)
        files = path.getFileSystem(conf)
        if not files.getFileStatus(path).isDirectory():
            return conf, files, [path]
        parts = sorted((status.getPath() for status in files.listStatus(path) if status.isFile()
                        and not status.getPath().getName().startswith(("_", "."))), key=lambda p: p.getName())
        return conf, files, parts

    def _first_bytes(self, location: str) -> bytes | None:
        """The first megabyte of the text file (a folder's first data file), read through Spark's file system;
        None where this process cannot read it (a Spark Connect session, the file not here)."""
        if getattr(self.spark, "_jvm", None) is None:
            path = Path(self.source.path)  # a file here, if it is here (not its file: URI)
            if not path.is_file():
                return None
            with path.open("rb") as handle:
                return handle.read(_SNIFF_BYTES)
        _, files, parts = self._data_files(location)
        if not parts:
            return b""
        stream = files.open(parts[0])
        try:
            return bytes(stream.readNBytes(_SNIFF_BYTES))
        finally:
            stream.close()

    def _pandas_metadata(self, location: str) -> list[tuple[str, dict[bytes, bytes] | None, int]]:
        """Each Parquet data file's name (as Spark's ``_metadata.file_name`` spells it: percent-encoded) and pandas
        metadata (as a schema's ``metadata``), from its footer, read where Spark reads the file (through its Hadoop
        file system), and its number of rows (a RangeIndex of another length is no column, as pandas reads it).
        Every data file's: pandas decides by the ids themselves whether a named index is stored as a column or as a
        RangeIndex in the metadata alone, so a folder's files may differ by one person."""
        jvm = getattr(self.spark, "_jvm", None)
        if jvm is None:  # a Spark Connect session: the file is read here, if it is here
            import pyarrow.parquet as pq

            path = Path(self.source.path)  # a file here, if it is here (not its file: URI)
            if not path.is_file():
                return []
            footer = pq.read_metadata(path)
            return [(path.name, footer.schema.to_arrow_schema().metadata, footer.num_rows)]
        conf, _, parts = self._data_files(location)
        parquet = jvm.org.apache.parquet.hadoop
        found = []
        for path in parts:
            reader = parquet.ParquetFileReader.open(parquet.util.HadoopInputFile.fromPath(path, conf))
            try:
                text = reader.getFooter().getFileMetaData().getKeyValueMetaData().get("pandas")
                rows = int(reader.getRecordCount())
            finally:
                reader.close()
            name = str(path.toUri().getRawPath()).rsplit("/", 1)[-1]
            found.append((name, {b"pandas": str(text).encode()} if text is not None else None, rows))
        return found

    def _as_stored(self, frame: Any, location: str) -> Any:
        """The Parquet file's columns as every engine reads them (``io.parquet_columns_as_stored``): pandas' row labels
        left out, a named RangeIndex a column after the others, row i of its file (Spark's ``_metadata.row_index``,
        the row's place in the file whatever the row groups and tasks) holding start + step × i."""
        from pyspark.sql import functions as F

        from workbench.core.data.io import pandas_range_index, pandas_row_labels

        found = self._pandas_metadata(location)
        if not found:
            return frame
        labels = sorted({label for _, metadata, _ in found for label in pandas_row_labels(metadata)})
        numbered = {name: pandas_range_index(metadata, rows=rows) for name, metadata, rows in found}
        names = {entry[0] if entry else None for entry in numbered.values()}
        if names != {None}:
            if len(names) != 1:
                raise DataFileError(f"{self.source.name}: its data files keep different pandas indexes (one as a "
                                    "column, another in pandas' metadata only, or under other names). Save the table "
                                    "as one Parquet file, or with the index as a column (reset_index()).")
            (name,) = names
            check_names([*(c for c in frame.columns if c not in labels), name], self.source.name)  # a second 'pid'
            place = F.col("_metadata.row_index")
            value = None
            for file_name, (_, start, step) in numbered.items():
                term = F.lit(start).cast("bigint") + F.lit(step).cast("bigint") * place
                if len(numbered) == 1:
                    value = term
                elif value is None:
                    value = F.when(F.col("_metadata.file_name") == file_name, term)
                else:
                    value = value.when(F.col("_metadata.file_name") == file_name, term)
            if len(numbered) > 1:  # a row of a file not listed would have no id: refused, never a missing value
                value = value.otherwise(F.raise_error(F.lit("a data file was added to the folder after it was opened")))
            frame = frame.withColumn(name, value.cast("bigint"))
        return frame.drop(*labels)  # no column in memory or out of core either

    def _source(self) -> str:
        return "dp_file"

    def _exact_sum(self, value: str) -> str:
        return self.dialect.exact_sum(value)  # of longs in three pieces: a sum of 38-digit decimals is slower

    def _columns(self) -> list[tuple[str, StoredColumn]]:
        q = self.dialect.quote
        return [(name.lstrip("\ufeff"), StoredColumn(q(name), *stored_kind_of(kind)))
                for name, kind in self.spark.table("dp_file").dtypes if name != "dp_file_order"]

    def _all(self, query: str) -> list[tuple]:
        try:
            return [tuple(row) for row in self.spark.sql(query).collect()]
        except Exception as exc:  # noqa: BLE001 - Spark's errors come through py4j
            refused = self._refused(exc)
            if refused is not None:
                raise refused from None
            raise DataFileError(f"{self.source.name}: Spark could not compute an aggregate ({first_line(exc)}).") from None

    def _store(self, name: str, query: str, progress: Progress | None) -> None:
        self._kept(name, query, progress, lambda frame: frame.count())

    def _store_digested(self, name: str, query: str, digest: str, progress: Progress | None) -> tuple:
        # the digest's query is the job that fills the cache: the file's rows are read and hashed by one pass,
        # where a count filled it and the digest read it again
        return self._kept(name, query, progress, lambda _: tuple(self.spark.sql(digest).collect()[0]))

    def _kept(self, name: str, query: str, progress: Progress | None, fill: Callable[[Any], Any]) -> Any:
        """``query``'s rows cached as ``name``, filled by ``fill`` (a job reading them all), whose result is returned."""
        from pyspark import StorageLevel

        conf = self.spark.conf
        whole_stage = conf.get(_WHOLE_STAGE, None)
        try:
            if name == "file_rows" and self.hashes_content and not self._huge_methods:  # one very long expression per row
                conf.set(_WHOLE_STAGE, "false")
            frame = self.spark.sql(query).persist(StorageLevel.MEMORY_AND_DISK)
            frame.createOrReplaceTempView(name)
            self._cached.append(frame)
            filled = fill(frame)  # computed now, once: the aggregates read the cached rows
        except Exception as exc:  # noqa: BLE001 - Spark's errors come through py4j
            refused = self._refused(exc)
            if refused is not None:
                raise refused from None
            raise DataFileError(
                f"{self.source.name}: Spark could not read and prepare the file ({first_line(exc)}). Check that it is "
                "complete and that its delimiter and encoding are right (--delimiter, --encoding)."
            ) from None
        finally:
            if whole_stage is None:
                conf.unset(_WHOLE_STAGE)
            else:
                conf.set(_WHOLE_STAGE, whole_stage)
        if progress is not None:
            progress(1.0)
        return filled

    def _view(self, name: str, query: str) -> None:
        self.spark.sql(query).createOrReplaceTempView(name)

    def _lookup(self, columns: dict[str, list]) -> str:
        import pyarrow as pa
        from pyspark.sql import functions as F

        self._tables += 1
        name = f"dp_lookup_{self._tables}"
        # handed over as Arrow, the table is a local relation of the driver's: from a list of rows it was an RDD of
        # Python objects, which every query joining it read again in Python workers (a job of its own, 0.5-1 s each);
        # the same types (a text is a string, an integer a bigint, a float a double). Marked small all the same
        table = pa.table({column: pa.array(values) for column, values in columns.items()})
        F.broadcast(self.spark.createDataFrame(table)).createOrReplaceTempView(name)
        return name

    def _file_order(self) -> str:
        return "dp_file_order"

    def _first_rows(self, table: str, person: str, k: int) -> str:
        # a window partitioned by person: Spark sorts each person's rows, spilling as it must
        return (f"SELECT * FROM (SELECT *, row_number() OVER (PARTITION BY {person} ORDER BY dp_file_order) "
                f"AS dp_rank FROM {table}) WHERE {person} IS NOT NULL AND dp_rank <= {k}")

    def _uneven_ranks(self, table: str, alias: str, column: str) -> tuple[str, str, str]:
        raise PlanError(
            "The Spark engine selects quantiles among evenly spaced candidates; a bounds search (log-spaced) runs "
            "with the in-memory or out-of-core engine."
        )


def start_session(master: str | None = None) -> Any:
    """A SparkSession for DP Workbench: ``master`` if given, else what Spark's configuration (spark-defaults.conf,
    SPARK_MASTER) says, else local mode on every core; its web UI off. Stop it with ``stop_session``.

    Every file the session's driver writes on this machine is kept in an engine folder of this process's own
    (``out_of_core.EngineFolder``, as the out-of-core engine's: 0700, locked while it exists, removed on SIGTERM
    and SIGHUP and at exit, swept at the next start after a kill or a power cut): Spark's local folder
    (``spark.local.dir``: the block manager's files, among them the prepared rows a release caches and spills,
    shuffle files, PySpark's temporary files) and the JVM's temporary folder (``java.io.tmpdir``, added to the
    driver's Java options). In local mode that is every file of the release: the tasks run in the driver's JVM.
    For a cluster's master it is the driver's files only: executors' disks are their cluster's business (YARN's
    LOCAL_DIRS, a standalone worker's SPARK_LOCAL_DIRS, Kubernetes' volumes take the place of ``spark.local.dir``
    there). ``stop_session`` ends the JVM this launched and then removes the folder.

    Limits: a SparkContext already running in this process is returned by ``getOrCreate`` as it is, and a
    static setting given now does not apply to it: no folder is made for it, and its files are wherever it was
    configured to put them. A JVM that was started before (a session stopped without ``stop_session``, whose
    JVM outlives it, or a gateway given by PYSPARK_GATEWAY_PORT) keeps the temporary folder it was launched
    with; Spark's local folder of the new session is in the engine folder all the same. SPARK_LOCAL_DIRS in the
    environment (or in spark-env.sh) takes the place of ``spark.local.dir``, as Spark documents: the user's own
    choice of place. The folder is where ``tempfile`` puts temporary files (TMPDIR), as the out-of-core
    engine's; a ``spark.local.dir`` of spark-defaults.conf is not used."""
    from workbench.core.data.spark_quiet import ignore_pandas_version_warning, log4j_option, quietly_started

    ignore_pandas_version_warning()
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    from workbench.core.data.out_of_core import EngineFolder

    _end_stopped()  # a session of ours stopped by its own stop(): its JVM ended and its folder removed
    _end_at_exit()
    folder = EngineFolder() if _starts_a_context() else None
    launches = SparkContext._gateway is None  # a JVM of its own, with the folder as its temporary folder
    # errors only (no start-up warnings); the generated code of a file's reading compiled (``HUGE_METHODS``: the
    # driver runs the tasks in local mode; a cluster's executors keep the options their owner gave them)
    java_options = f"{log4j_option()} {HUGE_METHODS}"
    if folder is not None:
        java_options += " " + _java_option(f"-Djava.io.tmpdir={folder.path}")
    builder = (SparkSession.builder.appName("DP Workbench").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")  # no progress bars over the command line's output
               .config("spark.driver.extraJavaOptions", java_options))
    if folder is not None:
        builder = builder.config("spark.local.dir", str(folder.path))
    if master:
        builder = builder.master(master)
    elif not _configured_master():
        builder = builder.master("local[*]")
    try:
        session = quietly_started(builder.getOrCreate)
    except BaseException:
        if folder is not None:
            gateway = _launched_gateway(launches)
            if gateway is not None:
                # a JVM launched for a context that failed to start (or was interrupted): it wrote there too
                _end_gateway(gateway, force=True)
            folder.remove()
        raise
    context = SparkContext._active_spark_context
    if folder is not None:
        if context is None:  # a Spark Connect session: no context here, and the server's files are its own
            folder.remove()
        else:
            with _STARTED_LOCK:
                _STARTED.append(_Started(context, folder, _launched_gateway(launches)))
    session.sparkContext.setLogLevel("ERROR")
    return session


def _launched_gateway(launches: bool) -> Any:
    """The py4j gateway (its JVM) that ``getOrCreate`` launched just now if ``launches``, else None (a JVM that ran
    already, or one given by PYSPARK_GATEWAY_PORT: no process of ours)."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway if launches else None
    return gateway if getattr(gateway, "proc", None) is not None else None


def stop_session(spark: Any) -> None:
    """Stop ``spark`` and, for a session ``start_session`` started, remove its engine folder after the JVM has
    stopped writing there: the SparkContext stopped, then the JVM ``start_session`` launched for it ended (its
    temporary folder was the folder; the next session launches its own), then the folder removed. Another
    session is only stopped."""
    spark.stop()
    _end_stopped()


@dataclass
class _Started:
    """A SparkContext that ``start_session`` started, with its engine folder and the py4j gateway (its JVM) it
    launched for it (None: a JVM that was running already, or one given by PYSPARK_GATEWAY_PORT)."""

    context: Any
    folder: Any  # out_of_core.EngineFolder
    gateway: Any


_STARTED: list[_Started] = []
_STARTED_LOCK = threading.Lock()


def _starts_a_context() -> bool:
    """Whether ``getOrCreate`` will start a SparkContext in this process, and so apply a static setting: not where
    one runs already (it returns that one's session), nor for Spark Connect (no context here)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if any(name in os.environ for name in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")):
        return False
    return SparkContext._active_spark_context is None and SparkSession._instantiatedSession is None


def _end_stopped(every: bool = False) -> None:
    """End what ``start_session`` started for each context that has stopped (``every``: for every context, at exit):
    its JVM, if launched for it and no other context runs there (at exit: whatever runs there), then its folder."""
    with _STARTED_LOCK:
        ended = [started for started in _STARTED if every or getattr(started.context, "_jsc", None) is None]
        _STARTED[:] = [started for started in _STARTED if started not in ended]
    for started in ended:
        if started.gateway is not None and not _end_gateway(started.gateway, force=every):
            from pyspark import SparkContext

            with _STARTED_LOCK:  # a context started on that JVM since: it writes there still (removed at exit)
                _STARTED.append(replace(started, context=SparkContext._active_spark_context))
            continue
        started.folder.remove()


def _end_gateway(gateway: Any, *, force: bool = False, wait: float = 60.0) -> bool:
    """End the JVM behind ``gateway`` (launched by PySpark for ``start_session``) and wait for it, so that it
    writes nothing more; False (and nothing done) where a SparkContext runs on it now, unless ``force``. PySpark's
    gateway server exits when its standard input closes, its shutdown hooks stopping whatever Spark still runs;
    killed after ``wait`` seconds. The next session launches a JVM of its own."""
    from pyspark import SparkContext

    with SparkContext._lock:
        if SparkContext._gateway is gateway:
            if SparkContext._active_spark_context is not None and not force:
                return False
            SparkContext._gateway = None
            SparkContext._jvm = None
    try:
        gateway.shutdown()
    except Exception:  # noqa: BLE001 - a JVM already gone
        pass
    process = gateway.proc
    if os.name == "nt":  # the process is spark-submit.cmd, and the JVM reads no end of its input: the tree killed
        subprocess.run(["taskkill", "/f", "/t", "/pid", str(process.pid)], capture_output=True, check=False)
    else:
        try:
            process.stdin.close()
        except Exception:  # noqa: BLE001 - closed already
            pass
    try:
        process.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    return True


_AT_EXIT: list[bool] = []


def _end_at_exit() -> None:
    """At exit (an interrupt, SIGTERM or SIGHUP through ``out_of_core.remove_on_signals`` included) the JVMs
    ``start_session`` launched are ended, so that they write nothing more, and then their folders removed: before
    ``out_of_core`` removes the engine folders left (``atexit`` runs the handler registered last first)."""
    import atexit

    with _STARTED_LOCK:
        if _AT_EXIT:
            return
        _AT_EXIT.append(True)
    atexit.register(_end_stopped, every=True)


def _java_option(option: str) -> str:
    """``option`` as one Java option among Spark's Java options, which are split at spaces, quotes and backslashes
    read as the shell does (a temporary folder's path may hold a space, or on Windows backslashes)."""
    return '"' + option.replace("\\", "\\\\").replace('"', '\\"') + '"'


def compiles_huge_methods(spark: Any) -> bool:
    """Whether the JVMs that run ``spark``'s tasks compile methods of any length: in local mode the driver's JVM
    itself is asked (a session's options say what was asked for, not what its JVM runs with: a JVM started before,
    by another context on the same gateway, keeps its own flags); otherwise ``HUGE_METHODS`` in the executors' Java
    options. False where that cannot be told (Spark Connect)."""
    try:
        if _local_master(spark):  # (local-cluster's executors are JVMs of their own)
            return _driver_compiles_huge_methods(spark)
        options = spark.conf.get("spark.executor.extraJavaOptions", None) or ""
    except Exception:  # noqa: BLE001 - a session that does not show its static configuration or its JVM
        return False
    return HUGE_METHODS in options.split()


def _local_master(spark: Any) -> bool:
    """Whether ``spark``'s configuration names local mode (raises where it shows no static configuration)."""
    master = spark.conf.get("spark.master", None) or ""
    return master == "local" or master.startswith("local[")


def runs_in_this_process(spark: Any) -> bool:
    """Whether ``spark``'s tasks run in this process's own JVM (local mode): only then is a file on this machine
    that they read the one the ledger hashes here. Not on a cluster, where each executor opens a local path on its
    own disk (a stale copy there would be released as this file), nor in local-cluster mode (executors are JVMs of
    their own), nor on Spark Connect (its server's master is another machine's, whatever it says)."""
    if getattr(spark, "_jvm", None) is None:  # a Spark Connect session: no JVM in this process
        return False
    try:
        return _local_master(spark)
    except Exception:  # noqa: BLE001 - a session that does not show its static configuration
        return False


def _driver_compiles_huge_methods(spark: Any) -> bool:
    """The driver JVM's own DontCompileHugeMethods flag, from HotSpot's diagnostic bean (the last of several options
    given wins, and an option given after the JVM started is not in it)."""
    jvm = spark.sparkContext._jvm
    bean = jvm.java.lang.management.ManagementFactory.getPlatformMXBean(
        jvm.java.lang.Class.forName("com.sun.management.HotSpotDiagnosticMXBean"))
    return str(bean.getVMOption("DontCompileHugeMethods").getValue()) == "false"


def _configured_master() -> bool:
    import os

    return bool(os.environ.get("SPARK_MASTER") or os.environ.get("SPARK_CONF_DIR"))
