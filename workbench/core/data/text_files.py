"""Read a text table (CSV, TSV) with Arrow's CSV reader, every value as the text in the file.

One parser for the in-memory engine (the whole table, on all cores) and the out-of-core engine (a stream
of blocks that DuckDB reads as it goes), so that both see the same rows and the same texts: which lines
are rows (an empty line is none), where a quoted value ends, how a file in Windows-1252 or UTF-16 is
decoded. No value is typed here: ``reading`` reads each one by the plan's description of its column.
"""

from __future__ import annotations

import codecs
import csv
import io
from dataclasses import dataclass
from typing import BinaryIO, Callable

import pyarrow as pa
import pyarrow.csv as pa_csv

from workbench.core.errors import DataFileError

Opener = Callable[[], BinaryIO]
"""Opens the file afresh (a watched file reports progress, and stops the reading when cancelled)."""

BLOCK_BYTES = 1 << 22  # Arrow's reading block: rows are parsed a block at a time (and in parallel)
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

    def options(self, names: list[str] | None = None) -> tuple[pa_csv.ReadOptions, pa_csv.ParseOptions,
                                                              pa_csv.ConvertOptions]:
        return (
            pa_csv.ReadOptions(use_threads=True, block_size=BLOCK_BYTES, encoding=self.arrow_encoding),
            pa_csv.ParseOptions(delimiter=self.delimiter, quote_char='"', double_quote=True, escape_char=False,
                                newlines_in_values=self.quoted, ignore_empty_lines=True),
            pa_csv.ConvertOptions(column_types={name: pa.string() for name in names or ()}, null_values=[],
                                  strings_can_be_null=False, quoted_strings_can_be_null=False,
                                  check_utf8=True),
        )


def column_names(open_file: Opener, text_format: TextFormat, file_name: str) -> list[str]:
    """The names in the file's first row, as Arrow parses them (a name may repeat: the caller refuses that)."""
    read, parse, _ = text_format.options()
    read = pa_csv.ReadOptions(use_threads=False, block_size=BLOCK_BYTES, encoding=read.encoding)  # a wide header
    convert = pa_csv.ConvertOptions(strings_can_be_null=False, null_values=[], check_utf8=False)
    with open_file() as source:
        try:
            return list(pa_csv.open_csv(source, read_options=read, parse_options=parse, convert_options=convert)
                        .schema.names)
        except _FAILURES as exc:
            raise _error(exc, open_file, text_format, file_name) from None


def read_table(open_file: Opener, text_format: TextFormat, file_name: str, rows: int | None = None) -> pa.Table:
    """The whole table (or its first ``rows`` rows), every column as text; a file Arrow cannot parse is a
    ``DataFileError`` naming the row and what to do."""
    names = column_names(open_file, text_format, file_name)
    options = text_format.options(names)
    with open_file() as source:
        try:
            if rows is None:
                return pa_csv.read_csv(source, *options)
            reader = pa_csv.open_csv(source, *options)
            batches, read = [], 0
            for batch in reader:
                batches.append(batch)
                read += batch.num_rows
                if read >= rows:
                    break
            return pa.Table.from_batches(batches, schema=reader.schema).slice(0, rows)
        except _FAILURES as exc:
            raise _error(exc, open_file, text_format, file_name) from None


def stream(open_file: Opener, text_format: TextFormat, file_name: str,
           names: list[str]) -> tuple[pa.RecordBatchReader, list[DataFileError]]:
    """The table as a stream of blocks, every column as text, its columns renamed ``names`` (one per column
    of the file, in order: the file's own may repeat or hold any character). A reading that fails part way
    (a row too long, a byte that is not text) puts its ``DataFileError`` in the list returned, for the
    reader of the stream (DuckDB) to raise in place of its own words."""
    failures: list[DataFileError] = []
    options = text_format.options(column_names(open_file, text_format, file_name))
    source = open_file()
    try:
        reader = pa_csv.open_csv(source, *options)
    except _FAILURES as exc:
        source.close()
        raise _error(exc, open_file, text_format, file_name) from None
    schema = pa.schema([pa.field(name, pa.string()) for name in names])

    def batches():
        try:
            for batch in reader:
                yield pa.RecordBatch.from_arrays(batch.columns, schema=schema)
        except _FAILURES as exc:
            failures.append(_error(exc, open_file, text_format, file_name))
            raise failures[-1] from None
        finally:
            source.close()

    return pa.RecordBatchReader.from_batches(schema, batches()), failures


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
    if "Empty CSV file" in words:
        return DataFileError(f"{file_name}: the file is empty. Check that it is the right file.")
    return DataFileError(f"{file_name}: the file cannot be read as a table ({words.splitlines()[0]}).")


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
