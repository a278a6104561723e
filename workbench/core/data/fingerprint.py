"""A digest of a table's content, the same whatever file format, row order or column order it came in, and
whichever engine reads it.

The ledger recognises a data file by a keyed hash of its bytes; the same table saved as .sav instead of
.csv, or sorted differently, has other bytes and would start with a fresh budget. This digest is of the
values as ``reading`` reads them: a number (stored, or text that is a decimal number) by its value
rounded to 33 significant bits (so 1, 1.0 and a stored 1 agree, and a text round trip of a double does
not matter), any other value by its trimmed text, a missing value as missing. Each row is hashed (MD5 of
its values in the order of the sorted column names) and the rows are combined by adding their hashes, so
that the order of rows does not matter and an engine can compute it where the data are: DuckDB on a file
larger than memory, Spark on a cluster, and DuckDB on a loaded frame, all with the same SQL
(``sql_reading.token_layers``; DuckDB's spelling of the row's text and hash, ``DuckDBDialect``, is its own and
gives every row the same hash). It never leaves memory: the ledger stores only its HMAC under a key kept
outside the ledger (``Ledger.content_fingerprint_of``).
"""

from __future__ import annotations

import hashlib
import math
from typing import TYPE_CHECKING, Any, Callable, Sequence

import pandas as pd

from workbench.core.data.reading import (  # the reading's own thresholds for "few distinct values"
    _DISTINCT_SHARE,
    _FEW_VALUES,
    _SAMPLE_ROWS,
    Cell,
    read_cell,
    stored_kind,
)
from workbench.core.data.sql_reading import (
    DATE,
    FLOAT,
    INTEGER,
    TEXT,
    TIMESTAMP,
    TOKEN,
    TRUTH,
    Dialect,
    DuckDBDialect,
    StoredColumn,
    read_value,
    token_layers,
)

if TYPE_CHECKING:
    import duckdb
    import pyarrow as pa

# the definition of the content digest described above: a ledger's recorded fingerprint is taken for a file again
# (``Ledger.recorded_content_fingerprint``) only under the definition it was made with
DIGEST_VERSION = 1
# how the engines find the rows of a file: 2 since a file is read by its name, never as a pattern of names (out of
# core and on Spark, a file named survey[1].parquet had been read as the pattern, that is survey1.parquet, and the
# ledger recorded that file's content fingerprint for survey[1].parquet's bytes); 3 since a Spark cluster's release
# of a local path records no reading (its executors each read their own disk's copy, whose content fingerprint was
# recorded for this machine's bytes: ``SqlData.reads_the_bytes_hashed``); 4 since a Parquet column of bytes (BINARY
# without its UTF-8 mark) is read as its text by every engine (before: DuckDB's escape text out of core, bad bytes
# replaced in memory, so its recorded content fingerprint was not the same table's saved as text). A reading recorded
# before is not taken: the file is hashed again once
READING_VERSION = 4


def reading_key(file_format: str, encoding: str | None, delimiter: str | None) -> dict[str, str | int | None]:
    """How a file's bytes are read into a table and its content digested (its format, a text file's encoding and
    delimiter, ``DIGEST_VERSION``, ``READING_VERSION``): the same bytes read another way are another table. Every
    engine says it alike (``FileSource.read_as``, ``Table.read_as``): the ledger keys a recorded content fingerprint
    by it."""
    return {"format": file_format, "encoding": encoding, "delimiter": delimiter, "digest": DIGEST_VERSION,
            "reading": READING_VERSION}

# each row's hash (md5 of its tokens) as two numbers, its first and last 16 hexadecimal digits: stored as numbers,
# a row's hash takes 16 bytes where its 32 digits as text took three times that
ROW_HASH = ("dp_row_hash_1", "dp_row_hash_2")


def hashed_rows(d: Dialect, columns: Sequence[tuple[str, StoredColumn]], source: str,
                keep: Sequence[tuple[str, str, str]] = (), extra: Sequence[str] = (), hashed: bool = True) -> str:
    """A query of ``source``'s rows: each row's hash of all ``columns`` (name, stored column) as ``ROW_HASH``; for
    each (alias, name, role) of ``keep``, that column's value read for that role (``sql_reading.read_value``)
    under ``alias``; and the ``extra`` expressions of ``source`` ("expression AS alias"). One pass reads each value
    once, for the fingerprint and for the statistics. Not ``hashed``: the values read alike, without the rows'
    hashes (the content digest is already known: ``Ledger.recorded_content_fingerprint``)."""
    ordered = sorted(columns, key=lambda item: item[0])
    layers: list[list[str]] = [list(extra), [], [], [], [], []]
    tokens, read = [], {}
    for i, (name, column) in enumerate(ordered):
        column_layers, token, value = token_layers(d, column, f"dp_v{i}")
        if not hashed:  # the value as read is in the first three layers (``ReadAliases``); the rest make the token
            column_layers = column_layers[:3]
        for layer, new in zip(layers, column_layers):
            layer.extend(new)
        tokens.append(token)
        read[name] = value
    carried: list[str] = []
    query = source
    for depth, layer in enumerate(layers):
        if not layer and carried:
            continue  # no column's token needs this layer (DuckDB rounds a number in one layer, ``rounded_layers``)
        query = f"SELECT {', '.join([*carried, *layer]) or '1 AS dp_one'} FROM {query}"
        carried = [*carried, *_aliases(layer)]
        query = f"({query}) AS dp_layer{depth}"
    outputs = [*(f"{read_value(d, read[name], role)} AS {alias}" for alias, name, role in keep), *_aliases(extra)]
    if not hashed:
        return f"SELECT {', '.join(outputs) or '1 AS dp_one'} FROM {query}"
    query = f"(SELECT {', '.join([*outputs, f'{d.md5(d.row_text(tokens))} AS dp_md5'])} FROM {query}) AS dp_hashing"
    halves = [f"{half} AS {alias}" for half, alias in zip(d.md5_halves("dp_md5"), ROW_HASH)]
    return f"SELECT {', '.join([*(_aliases(outputs)), *halves])} FROM {query}"


def _aliases(expressions: Sequence[str]) -> list[str]:
    """The alias of each ``expression AS alias`` (the last word)."""
    return [expression.rsplit(" AS ", 1)[-1].strip() for expression in expressions]


def digest_query(d: Dialect, rows: str) -> str:
    """Count the rows of ``rows`` (a table with ``ROW_HASH``) and add up their hashes' two halves."""
    return f"SELECT count(*), {', '.join(d.exact_sum(half) for half in ROW_HASH)} FROM {rows}"


def digest(names: Sequence[str], count: int, first: int | None, second: int | None) -> bytes:
    """The digest from the count of rows and the sums of their hashes (modulo 2^64)."""
    material = (f"{int(count)} rows; columns {sorted(names)!r}; "
                f"{int(first or 0) % (1 << 64):016x}{int(second or 0) % (1 << 64):016x}")
    return hashlib.sha256(material.encode("utf-8")).digest()


NARROWED = "workbench.narrowed"  # the mark (in ``frame.attrs``) of a frame that holds only some of a file's columns


def mark_narrowed(frame: pd.DataFrame) -> pd.DataFrame:
    """Mark ``frame`` as some of a table's columns (``load_table(columns=...)``): ``content_digest`` refuses it,
    since its digest would not recognise the table (a fresh budget for known data)."""
    frame.attrs[NARROWED] = True
    return frame


def content_digest(frame: pd.DataFrame, threads: int | None = None) -> bytes:
    """The digest of a loaded table, computed by DuckDB on the frame with the engines' SQL, on ``threads`` threads
    (None: DuckDB's default, one per core). A frame narrowed to some columns (``mark_narrowed``) is refused: its
    table's digest is the one hashed as it was read (``Table.pending_digest``).

    A text column of few distinct values (a category, an age, a count: most columns of most tables) has its
    tokens computed once per distinct value, by the same SQL (``_distinct_tokens``), and handed to the row
    hashes as tokens: a value's token depends on that value alone, so every row's token is the one its value
    gets by itself, and the digest is the same (1.4 s of work on 500,000 rows of ten columns became 0.8 s)."""
    import pyarrow as pa

    if frame.attrs.get(NARROWED):
        raise ValueError("the content digest of a table narrowed to some of its columns would not recognise it: use "
                         "the digest hashed as it was read (Table.pending_digest)")
    names = [str(column).strip() for column in frame.columns]
    values, tokens, columns = {}, {}, []
    d = DuckDBDialect()
    for i, (name, column) in enumerate(zip(names, frame.columns)):
        series = frame[column]
        alias = f"c{i}"
        kind = stored_kind(series)
        if kind == "text":
            few = _few_distinct(series)
            if few is not None:
                tokens[alias] = few
                columns.append((name, StoredColumn(d.quote(alias), TOKEN)))
                continue
        if kind == "date":
            if getattr(series.dt, "tz", None) is not None:
                series = series.dt.tz_convert("UTC").dt.tz_localize(None)
            kind = TIMESTAMP
        elif kind in ("category", "cells"):
            series = pd.Series([cell_token(read_cell(v)) for v in series.to_numpy(dtype=object, na_value=None)],
                               index=series.index, dtype=object)
            kind = TOKEN
        elif kind == "truth":
            kind = TRUTH
        values[alias] = series.reset_index(drop=True)
        columns.append((name, StoredColumn(d.quote(alias), {"text": TEXT, "integer": INTEGER, "float": FLOAT}.get(
            kind, kind))))
    # handed to DuckDB as Arrow: it scans Arrow's columns as they are, where a frame's texts go through Python
    table = pa.Table.from_pandas(pd.DataFrame(values), preserve_index=False) if values else \
        pa.table({"dp_one": pa.nulls(len(frame), pa.int8())})
    with hashing_connection(threads) as db:
        count, first, second = _sums(db, d, columns, table, tokens)
    return digest(names, count, first, second)


def hashing_connection(threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to hash rows on (``threads``: None, one per core), set as the out-of-core engine's."""
    import duckdb

    db = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    db.execute("SET disabled_optimizers = 'in_clause'")  # as out of core (``out_of_core.KEEP_IN_LISTS``)
    if threads is not None:
        db.execute(f"SET threads = {int(threads)}")
    return db


def text_sums(db: duckdb.DuckDBPyConnection, rows: pa.Table | pa.RecordBatch,
              names: Sequence[str]) -> tuple[int, int, int]:
    """The count of ``rows`` and the sums of their hashes (``digest``'s parts, unreduced), every column text named
    ``names`` (the stripped names, in the file's order): what ``content_digest`` adds up for the same rows of a
    frame of those texts, so that the parts of a file read in blocks add up to the digest of the whole (the hashes
    are summed, and a value's token is its own whichever block it is in). ``db``: a ``hashing_connection``."""
    import pyarrow as pa

    d = DuckDBDialect()
    values, tokens, columns = {}, {}, []
    for i, (name, array) in enumerate(zip(names, rows.columns)):
        alias = f"c{i}"
        few = _few_distinct_array(array.cast(pa.large_string()))
        if few is not None:
            tokens[alias] = few
            columns.append((name, StoredColumn(d.quote(alias), TOKEN)))
        else:
            values[alias] = array
            columns.append((name, StoredColumn(d.quote(alias), TEXT)))
    table = pa.table(values) if values else pa.table({"dp_one": pa.nulls(rows.num_rows, pa.int8())})
    count, first, second = _sums(db, d, columns, table, tokens)
    return int(count), int(first or 0), int(second or 0)


def _sums(db: duckdb.DuckDBPyConnection, d: Dialect, columns: list[tuple[str, StoredColumn]], table: "pa.Table",
          tokens: "dict[str, pa.DictionaryArray]") -> tuple[Any, Any, Any]:
    """The count of rows and their hashes' sums, of ``table``'s columns with the ``tokens`` columns added."""
    for alias, array in zip(tokens, _distinct_tokens(db, d, list(tokens.values()))):
        table = table.append_column(alias, array)
    db.register("dp_frame", table)
    try:
        query = digest_query(d, f"({hashed_rows(d, columns, 'dp_frame')}) AS dp_hashed")
        return db.execute(query).fetchall()[0]
    finally:
        db.unregister("dp_frame")


def _few_distinct(series: pd.Series) -> "pa.DictionaryArray | None":
    """A text column's rows as indices into its distinct values, if these are few (at most a quarter of the rows, or
    ``_FEW_VALUES``); None for a column of mostly distinct values (each row is then read by the SQL itself)."""
    import pyarrow as pa

    def as_arrow(part: pd.Series) -> "pa.Array | pa.ChunkedArray":
        # large_string: a column of more than 2 GiB of text would not fit string's 32-bit offsets
        return pa.array(part.to_numpy(dtype=object, na_value=None) if pd.api.types.is_object_dtype(part.dtype)
                        else part, type=pa.large_string())

    return _few_distinct_array(as_arrow(series.iloc[:_SAMPLE_ROWS]), lambda: as_arrow(series))


def _few_distinct_array(sample: "pa.Array | pa.ChunkedArray",
                        whole: "Callable[[], pa.Array | pa.ChunkedArray] | None" = None) -> "pa.DictionaryArray | None":
    """``_few_distinct`` of a column of large_string, decided on its first ``_SAMPLE_ROWS`` (``sample``: the whole
    column when ``whole``, which makes it, is None) before the whole column is encoded."""
    import pyarrow as pa
    import pyarrow.compute as pc

    head = sample.slice(0, _SAMPLE_ROWS) if whole is None else sample
    if pc.count_distinct(head).as_py() > max(len(head) // 2, _FEW_VALUES):
        return None  # mostly distinct (an id, an amount): not worth hashing every value to find out
    array = sample if whole is None else whole()
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    encoded = pc.dictionary_encode(array)
    return encoded if len(encoded.dictionary) <= max(len(array) // _DISTINCT_SHARE, _FEW_VALUES) else None


def _distinct_tokens(db: Any, d: Dialect, columns: "list[pa.DictionaryArray]") -> "list[pa.Array]":
    """Each row's token of text columns (``_few_distinct``), made once per distinct value by ``token_layers``' SQL
    for text (the one the rows would be read by), all columns' values in one query, and given to every row as the
    index of its value's token."""
    import pyarrow as pa

    if not columns:
        return []
    layers, token, _ = token_layers(d, StoredColumn(d.quote("dp_value"), TEXT), "dp_t")
    layers = [["dp_c", "dp_i", *layers[0]], *layers[1:]]
    query, carried = "dp_distinct", []
    for depth, layer in enumerate(layers):
        query = f"(SELECT {', '.join([*carried, *layer])} FROM {query}) AS dp_layer{depth}"
        carried = [*carried, *_aliases(layer)]
    sizes = [len(column.dictionary) for column in columns]
    distinct = pa.table({
        "dp_c": pa.array([c for c, size in enumerate(sizes) for _ in range(size)], pa.int64()),
        "dp_i": pa.array([i for size in sizes for i in range(size)], pa.int64()),
        "dp_value": pa.concat_arrays([column.dictionary for column in columns]),
    })
    db.register("dp_distinct", distinct)
    try:
        made = db.execute(f"SELECT dp_c, dp_i, {token.sql} AS dp_token FROM {query} ORDER BY dp_c, dp_i").fetchall()
    finally:
        db.unregister("dp_distinct")
    assert [(c, i) for c, i, _ in made] == list(zip(distinct["dp_c"].to_pylist(), distinct["dp_i"].to_pylist()))
    out, start = [], 0
    for column, size in zip(columns, sizes):
        by_value = pa.array([made_token for _, _, made_token in made[start:start + size]], pa.large_string())
        # each row's token as an index into its value's: DuckDB reads a dictionary as the texts it stands for, and
        # the column of every row's token is never made (seven such columns of 2,000,000 rows took 230 MB)
        out.append(pa.DictionaryArray.from_arrays(column.indices, by_value))
        start += size
    return out


def cell_token(cell: Cell) -> str | None:
    """A value's token, as ``sql_reading.token_layers`` writes it, for a value read in Python."""
    if cell.kind == "missing":
        return None
    if cell.number is not None and cell.kind in ("number", "text"):
        return number_token(cell.number)
    return "$" + (cell.text or "")


def number_token(value: float) -> str:
    """A whole number below 2^53 as '#' and its digits; an infinity as '#inf' or '#-inf'; any other number as '~'
    and its value rounded to 33 significant bits, one exact integer: ±((exponent + 1100) * 2^35 + mantissa)."""
    if math.isinf(value):
        return "#inf" if value > 0 else "#-inf"
    if value == math.floor(value) and abs(value) < 2.0**53:
        return f"#{int(value)}"
    fraction, exponent = math.frexp(abs(value))  # |value| = fraction * 2^exponent, fraction in [0.5, 1)
    mantissa = (int(fraction * (1 << 53)) + (1 << 18)) >> 19
    exponent -= 1
    if mantissa == 1 << 34:
        mantissa, exponent = 1 << 33, exponent + 1
    return f"~{(-1 if value < 0 else 1) * ((exponent + 1100) * (1 << 35) + mantissa)}"
