"""Read a text table (CSV, TSV) with Arrow's CSV reader, every value as the text in the file.

One parser for the in-memory engine (the whole table, on all cores) and the out-of-core engine (a stream
of blocks that DuckDB reads as it goes), so that both see the same rows and the same texts: which lines
are rows (an empty line is none), where a quoted value ends, how a file in Windows-1252 or UTF-16 is
decoded. No value is typed here: ``reading`` reads each one by the plan's description of its column.

A row is a line: a value holding a line break is refused (``refuse_line_breaks``). A quoted value may span lines
in CSV, but then one row's quotation mark left open takes in the lines after it, as one value, until the next
quotation mark: one person's row changes how the rows of others are read, which breaks the guarantee of a release
(200 rows with one such row added before them were read as a single row). Refused by every engine alike.
"""

from __future__ import annotations

import codecs
import csv
import io
import threading
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

from workbench.core.errors import DataFileError

Opener = Callable[[], BinaryIO]
"""Opens the file afresh (a watched file reports progress, and stops the reading when cancelled)."""

BLOCK_BYTES = 1 << 22  # Arrow's reading block: rows are parsed a block at a time (and in parallel)
HEADER_BYTES = 1 << 16  # the block the header is read from first (``column_names``): all but the widest headers
# a stream reads at most this many blocks of text ahead of the rows taken from it (``_Paced``): Arrow's own reading
# thread would read 32 ahead (128 MB), whatever the reader of the stream has taken
STREAM_AHEAD_BLOCKS = 3
# what a reading that fails raises: Arrow's parser, and Python's decoder, which Arrow calls for an encoding other
# than UTF-8 (a byte cp1252 leaves undefined, 0x81, raises UnicodeDecodeError through Arrow)
_FAILURES = (pa.ArrowInvalid, UnicodeError)


@dataclass(frozen=True)
class TextFormat:
    """How a text table is written: its delimiter and encoding, and whether a value may hold a line break
    (only between quotation marks, so a file with none can be split at any line break, faster)."""

    delimiter: str
    encoding: str
    quoted: bool = True

    @property
    def arrow_encoding(self) -> str:
        name = codecs.lookup(self.encoding).name
        return "utf8" if name in ("utf-8", "utf-8-sig") else self.encoding  # Arrow skips a UTF-8 byte-order mark

    def options(self, names: list[str] | None = None, text: pa.DataType = pa.string()) -> tuple[
            pa_csv.ReadOptions, pa_csv.ParseOptions, pa_csv.ConvertOptions]:
        """Arrow's options for this format, the columns ``names`` read as ``text`` (string or large_string)."""
        return (
            pa_csv.ReadOptions(use_threads=True, block_size=BLOCK_BYTES, encoding=self.arrow_encoding),
            pa_csv.ParseOptions(delimiter=self.delimiter, quote_char='"', double_quote=True, escape_char=False,
                                newlines_in_values=self.quoted, ignore_empty_lines=True),
            pa_csv.ConvertOptions(column_types={name: text for name in names or ()}, null_values=[],
                                  strings_can_be_null=False, quoted_strings_can_be_null=False,
                                  check_utf8=True),
        )


def column_names(open_file: Opener, text_format: TextFormat, file_name: str) -> list[str]:
    """The names in the file's first row, as Arrow parses them (a name may repeat: the caller refuses that).

    Arrow reads the first block to find them, and types its rows: a block of ``HEADER_BYTES`` first (a 4 MB block
    took 60 ms of a 1.2 s load), and only where that fails (a header wider than it, a file Arrow cannot parse) a
    block of ``BLOCK_BYTES``, as every header was read before, whose names or failure are the answer."""
    read, parse, _ = text_format.options()
    convert = pa_csv.ConvertOptions(strings_can_be_null=False, null_values=[], check_utf8=False)
    for block in (HEADER_BYTES, BLOCK_BYTES):
        read = pa_csv.ReadOptions(use_threads=False, block_size=block, encoding=read.encoding)
        with open_file() as source:
            try:
                names = list(pa_csv.open_csv(source, read_options=read, parse_options=parse,
                                             convert_options=convert).schema.names)
                refuse_broken_names(names, file_name)
                return names
            except _FAILURES as exc:
                if block == BLOCK_BYTES:
                    raise _error(exc, open_file, text_format, file_name) from None
    raise AssertionError("unreachable")


def read_table(open_file: Opener, text_format: TextFormat, file_name: str, rows: int | None = None) -> pa.Table:
    """The whole table (or its first ``rows`` rows), every column as text; a file Arrow cannot parse is a
    ``DataFileError`` naming the row and what to do.

    The text is large_string, what pandas keeps a text column in: ``to_pandas`` then takes Arrow's buffers as they
    are, where string's were copied into new ones (+150 MB at the peak and 40 ms for a file of 132 MB)."""
    names = column_names(open_file, text_format, file_name)
    options = text_format.options(names, pa.large_string())
    with open_file() as source:
        try:
            if rows is None:
                table = pa_csv.read_csv(source, *options)
            else:
                reader = pa_csv.open_csv(source, *options)
                batches, read = [], 0
                for batch in reader:
                    batches.append(batch)
                    read += batch.num_rows
                    if read >= rows:
                        break
                table = pa.Table.from_batches(batches, schema=reader.schema).slice(0, rows)
        except _FAILURES as exc:
            raise _error(exc, open_file, text_format, file_name) from None
    if text_format.quoted:  # a file without a quotation mark has no value that spans lines
        refuse_line_breaks(table, file_name)
    return table


def read_columns(open_file: Opener, text_format: TextFormat, file_name: str, names: list[str], keep: Sequence[int],
                 each_block: Callable[[pa.RecordBatch], None]) -> pa.Table:
    """The columns at ``keep`` of the whole table (whose first row holds ``names``, as ``column_names`` gives them),
    the same rows, texts and refusals as ``read_table``'s, but read as a stream, a block at a time: every block of
    all columns is handed to ``each_block`` as it is read (to hash the whole table), and only the kept columns stay.

    The file is read paced as ``stream`` reads it, and the columns are made in jemalloc's memory with its freed
    pages given back at once (``_returning_pool``): in Arrow's default pool the blocks read and parsed, once freed,
    stayed in the process between the columns kept (a 132 MB file read to 196 MB of kept text held 330 MB; so,
    250 MB)."""
    source, reader = _open_paced(open_file, text_format, file_name, text_format.options(names, pa.large_string()),
                                 _returning_pool())
    try:
        schema = pa.schema([reader.schema.field(i) for i in keep])
        kept = []
        for block in _taken(source, reader, text_format, file_name):
            each_block(block)
            kept.append(pa.RecordBatch.from_arrays([block.column(i) for i in keep], schema=schema))
        return pa.Table.from_batches(kept, schema=schema)
    except _FAILURES as exc:
        raise _error(exc, open_file, text_format, file_name) from None
    finally:
        source.close()


def _open_paced(open_file: Opener, text_format: TextFormat, file_name: str,
                options: tuple[pa_csv.ReadOptions, pa_csv.ParseOptions, pa_csv.ConvertOptions],
                memory_pool: pa.MemoryPool | None = None) -> tuple["_Paced", pa_csv.CSVStreamingReader]:
    """Arrow's streaming reader of the file, read at most ``STREAM_AHEAD_BLOCKS`` ahead of the batches taken from it
    (``_Paced``; a UTF-8 file), and that paced file, for the caller to close."""
    source = _Paced(open_file(), STREAM_AHEAD_BLOCKS if text_format.arrow_encoding == "utf8" else None)
    try:
        return source, pa_csv.open_csv(source, *options, memory_pool=memory_pool)
    except _FAILURES as exc:
        source.close()
        raise _error(exc, open_file, text_format, file_name) from None


def _taken(source: "_Paced", reader: pa_csv.CSVStreamingReader, text_format: TextFormat,
           file_name: str) -> Iterator[pa.RecordBatch]:
    """The reader's batches, each taken as its paced file counts them (``_Paced.waiting``), and refused if a value
    holds a line break (``refuse_line_breaks``; only in a file holding a quotation mark)."""
    done = 0
    while True:
        with source.waiting():
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
        if text_format.quoted:
            refuse_line_breaks(batch, file_name, done)
            done += batch.num_rows
        yield batch


def _returning_pool() -> pa.MemoryPool | None:
    """Arrow's jemalloc pool, set to give freed pages back to the system at once; None (the default pool) where
    pyarrow is built without it (Windows)."""
    try:
        pool = pa.jemalloc_memory_pool()
        pa.jemalloc_set_decay_ms(0)
    except (NotImplementedError, pa.ArrowNotImplementedError):
        return None
    return pool


def stream(open_file: Opener, text_format: TextFormat, file_name: str,
           names: list[str]) -> tuple[pa.RecordBatchReader, list[DataFileError], Callable[[], None]]:
    """The table as a stream of blocks, every column as text, its columns renamed ``names`` (one per column
    of the file, in order: the file's own may repeat or hold any character). A reading that fails part way
    (a row too long, a byte that is not text) puts its ``DataFileError`` in the list returned, for the
    reader of the stream (DuckDB) to raise in place of its own words. The function returned closes the file: a
    stream left before its end (Cancel, a failure) would otherwise keep Arrow's reading thread held back by
    ``_Paced``, and the file open, until the stream is collected."""
    failures: list[DataFileError] = []
    source, reader = _open_paced(open_file, text_format, file_name,
                                 text_format.options(column_names(open_file, text_format, file_name)))
    schema = pa.schema([pa.field(name, pa.string()) for name in names])

    def batches():
        try:
            for batch in _taken(source, reader, text_format, file_name):
                yield pa.RecordBatch.from_arrays(batch.columns, schema=schema)
        except _FAILURES as exc:
            failures.append(_error(exc, open_file, text_format, file_name))
            raise failures[-1] from None
        except DataFileError as refusal:
            failures.append(refusal)
            raise
        finally:
            source.close()

    return pa.RecordBatchReader.from_batches(schema, batches()), failures, source.close


class _Paced(io.RawIOBase):
    """A file that Arrow's streaming reader reads at most ``ahead`` blocks ahead of the batches taken from it, the
    text read into Arrow's own memory.

    Arrow reads a stream's blocks in a thread of its own, up to 32 blocks ahead of what was asked for (its
    ``MakeBackgroundGenerator``'s queue; no option of pyarrow's): while the stream's reader is slower than the
    disk (DuckDB storing the rows) that was 128 MB of text held in memory for nothing. A UTF-8 file is read a block
    at a time and yields one batch per block once it has the next (a block's last row ends in the next), so the
    batch asked for never waits on a block held back (``ahead`` of 2 would do; one more for safety). A file Arrow
    transcodes is read in other sizes (UTF-16 two reads a block): ``ahead`` None leaves it unpaced, as before.
    Should a batch ever wait on a block held back, the reading goes on after a moment: slower, never stuck. Once a
    read finds the end nothing is held back. Pacing changes when a block is read, never what is read."""

    _PATIENCE = 0.5  # seconds a reader waits for a batch before the reading goes on regardless

    def __init__(self, source: BinaryIO, ahead: int | None) -> None:
        super().__init__()
        self._source = source
        self._ahead = ahead
        self._reads = 0  # blocks read
        self._taken = 0  # batches taken from the stream
        self._ended = False  # a read found the end of the file
        self._waiting_since: float | None = None  # when the stream's reader started waiting for a batch
        self._changed = threading.Condition()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        self._pace()
        count = self._source.readinto(buffer) or 0
        self._ended = self._ended or count < len(memoryview(buffer))
        return count

    def read_buffer(self, size: int) -> pa.Buffer:
        """What Arrow reads a block with: into Arrow's own memory, as Arrow's own files do. Read as a Python bytes
        object, a 4 MB block was glibc's, which kept tens of MB of them freed but in the process."""
        buffer = pa.allocate_buffer(size)
        count = self.readinto(memoryview(buffer))
        return buffer if count == size else buffer.slice(0, count)

    def _pace(self) -> None:
        import time

        with self._changed:
            while (self._ahead is not None and not self._ended and not self.closed
                   and self._reads - self._taken >= self._ahead):
                if self._waiting_since is not None and time.monotonic() - self._waiting_since >= self._PATIENCE:
                    break  # the reader waits for a batch that needs more than the blocks read: let it have them
                self._changed.wait(0.05)
            self._reads += 1

    def waiting(self) -> "_Waiting":
        """A context within which the stream's reader waits for Arrow's next batch; a batch is taken when it ends."""
        return _Waiting(self)

    def _wait(self, started: bool) -> None:
        import time

        with self._changed:
            if started:
                self._waiting_since = time.monotonic()
            else:
                self._waiting_since = None
                self._taken += 1
            self._changed.notify_all()

    def close(self) -> None:
        with self._changed:
            if not self.closed:
                self._source.close()
                super().close()
            self._changed.notify_all()  # a reading held back goes on (and finds the file closed)


class _Waiting:
    def __init__(self, paced: _Paced) -> None:
        self._paced = paced

    def __enter__(self) -> None:
        self._paced._wait(True)

    def __exit__(self, *_: object) -> None:
        self._paced._wait(False)


def _error(exc: Exception, open_file: Opener, text_format: TextFormat, file_name: str) -> DataFileError:
    """Arrow's (or the decoder's) complaint as a message a statistician can act on: which row, which byte, what to
    do."""
    words = str(exc)
    if isinstance(exc, UnicodeError) or "UTF8" in words or "UTF-8" in words or "decode" in words.lower():
        where = _first_undecodable(open_file, text_format.encoding)
        undefined = ""
        if codecs.lookup(text_format.encoding).name == "cp1252":
            undefined = (" (Windows-1252 gives no character to the bytes 0x81, 0x8D, 0x8F, 0x90 and 0x9D; latin-1 "
                         "reads every byte, but check the text it shows)")
        return DataFileError(
            f"{file_name}: the text is not valid {text_format.encoding}{where}. Declare the right encoding (for "
            "example cp1252 or latin-1: --encoding on the command line, \"encoding\" in the plan's dataset) and "
            f"open it again{undefined}."
        )
    if "Expected" in words and "columns" in words:
        return DataFileError(
            f"{file_name}: the rows do not all have the same number of fields ({_ragged_row(open_file, text_format)}). "
            f"The delimiter used was {describe_delimiter(text_format.delimiter)}; if that is wrong, give the right "
            "one, otherwise repair the row in the file."
        )
    if "Empty CSV file" in words:  # Arrow reads no line without a line break after it: a header alone is one
        return no_rows(file_name) if _has_text(open_file, text_format.encoding) else empty_file(file_name)
    return DataFileError(f"{file_name}: the file cannot be read as a table ({words.splitlines()[0]}).")


def refuse_line_breaks(data: "pa.Table | pa.RecordBatch", file_name: str, first_row: int = 0) -> None:
    """Refuse ``data`` (rows of a text file, from its row ``first_row`` + 1 after the header) if a value holds a line
    break (see the module's docstring): each value by itself, in every column, whether a plan reads it or not."""
    for name, column in zip(data.schema.names, data.columns):
        if not (pa.types.is_string(column.type) or pa.types.is_large_string(column.type)):
            continue
        chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
        if not any(_holds_break(chunk) for chunk in chunks):
            continue  # (most files: their text searched at memory speed, where Arrow's search of each value took 10x)
        broken = pc.or_kleene(pc.match_substring(column, "\n"), pc.match_substring(column, "\r"))
        raise line_break(file_name, name, first_row + pc.index(broken, True).as_py() + 1)


_SEARCHED_BYTES = 1 << 24  # a string array's text is searched this many bytes at a time (a copy each: no more held)


def _holds_break(chunk: pa.Array) -> bool:
    """Whether any value of a string array holds LF or CR: its values' bytes (between its first and last offset, so
    a slice sees only its own) searched in parts."""
    import numpy as np

    width = np.int64 if pa.types.is_large_string(chunk.type) else np.int32
    offsets, data = chunk.buffers()[1], chunk.buffers()[2]
    if offsets is None or data is None or len(chunk) == 0:
        return False
    bounds = np.frombuffer(offsets, dtype=width)
    start, end = int(bounds[chunk.offset]), int(bounds[chunk.offset + len(chunk)])
    view = memoryview(data)
    for at in range(start, end, _SEARCHED_BYTES):
        part = bytes(view[at:min(at + _SEARCHED_BYTES, end)])
        if b"\n" in part or b"\r" in part:
            return True
    return False


def refuse_broken_names(names: Sequence[str], file_name: str) -> None:
    """Refuse a header whose name holds a line break, as a value's (``refuse_line_breaks``): every engine."""
    if any("\n" in str(name) or "\r" in str(name) for name in names):
        raise line_break(file_name, header=True)


def line_break(file_name: str, column: str | None = None, row: int | None = None,
               header: bool = False) -> DataFileError:
    """The refusal of a text file a value of which holds a line break (``refuse_line_breaks``), in the words of every
    engine (``column`` and ``row``, counted after the header, where the engine can tell them)."""
    where = ("a column's name" if header else f"the value of '{column}' in row {row:,}"
             if column is not None and row is not None else "a value")
    return DataFileError(
        f"{file_name}: {where} holds a line break: a quoted value spans lines, or a quotation mark is left open and "
        "takes in the lines after it. A release reads one row per line, so that no row can change how the rows after "
        "it are read. Remove the line breaks from such values (or close the quotation mark), or save the table as "
        "Parquet, and open it again."
    )


def empty_file(file_name: str) -> DataFileError:
    """The refusal of a file with nothing in it, in the words of every engine and format."""
    return DataFileError(f"{file_name}: the file is empty. Check that it is the right file.")


def no_rows(file_name: str) -> DataFileError:
    """The refusal of a file with its column names and no rows, in the words of every engine and format."""
    return DataFileError(f"{file_name}: the file has column names but no rows of data. Check that it is the right file.")


def _has_text(open_file: Opener, encoding: str) -> bool:
    """Whether the file's first block holds any character but white space (and a byte-order mark)."""
    with open_file() as source:
        block = source.read(HEADER_BYTES)
    return bool(block.decode(encoding, errors="replace").replace("\ufeff", "").strip())


def _first_undecodable(open_file: Opener, encoding: str) -> str:
    decoder = codecs.getincrementaldecoder(encoding)()
    offset = 0
    with open_file() as source:
        for block in iter(lambda: source.read(1 << 20), b""):
            try:
                decoder.decode(block)
            except UnicodeDecodeError as exc:
                return f" (byte {offset + exc.start} cannot be read)"
            except UnicodeError:  # a UTF-16 stream without its byte-order mark: no byte to name
                return ""
            offset += len(block)
    return ""


def _ragged_row(open_file: Opener, text_format: TextFormat) -> str:
    """Where the first row with another number of fields than the header is (Python's csv reader)."""
    with open_file() as source:
        text = io.TextIOWrapper(source, encoding=text_format.encoding, errors="replace", newline="")
        rows = csv.reader(text, delimiter=text_format.delimiter)
        header = next(rows, [])
        for row in rows:
            if row and len(row) != len(header):
                return f"line {rows.line_num} has {len(row)} fields where the first line has {len(header)}"
    return f"a row has another number of fields than the first line's {len(header)}"


def describe_delimiter(delimiter: str | None) -> str:
    return {",": "a comma", ";": "a semicolon", "\t": "a tab", "|": "a vertical bar"}.get(
        delimiter or ",", repr(delimiter)
    )
