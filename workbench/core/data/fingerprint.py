"""A digest of a table's content, the same whatever file format, row order or column order it came in, and
whichever engine reads it.

The ledger recognises a data file by a keyed hash of its bytes; the same table saved as .sav instead of
.csv, or sorted differently, has other bytes and would start with a fresh budget. This digest is of the
values as ``reading`` reads them: a number (stored, or text that is a decimal number) by its value
rounded to 33 significant bits (so 1, 1.0 and a stored 1 agree, and a text round trip of a double does
not matter), any other value by its trimmed text, a missing value as missing. It never leaves memory: the ledger
stores only its HMAC under a key kept outside the ledger (``Ledger.content_fingerprint_of``).

Version 2 (``DIGEST_VERSION``) adds up each value's feature (``sql_reading.packed_feature``: its kind and number as
two residues, a text's by the MD5 of the text), mixed with its column's name by integer arithmetic (``_mixed``), over
every value of every column: a sum of integers that DuckDB (a file larger than memory, or a loaded frame) and Spark
(a cluster) compute alike with the same SQL, in a fifth of the time version 1 took. Version 1 hashed each row (MD5 of
its values written as text, in the order of the sorted column names) and added up the rows' hashes; writing every
number as text was most of a release's time on a large file (issue 39). What version 2 gives up: it does not tie a
row's values together, so two tables whose columns hold the same values, paired otherwise, have one digest. That
errs on the safe side: the ledger then takes them for one table, which shares one budget. A ledger that records
version 1's fingerprints (``LEGACY_DIGEST_VERSION``) still recognises those tables: where it holds any, the engines
compute both digests in the same pass (``ContentDigest``).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
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
    FEATURE,
    FEATURE_PRIMES,
    FEATURE_SHIFT,
    FEATURE_TAG_STEPS,
    FEATURE_TAGS,
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
# (``Ledger.recorded_content_fingerprint``) only under the definition it was made with. 2 since a digest adds up its
# values' features (before: its rows' MD5, ``LEGACY_DIGEST_VERSION``, computed still for a ledger that records it)
DIGEST_VERSION = 2
LEGACY_DIGEST_VERSION = 1
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

# each row's two sums of its values' mixed features (``_mixed``), each below 2^31 times the number of columns
ROW_HASH = ("dp_row_hash_1", "dp_row_hash_2")
# version 1's hash of each row (md5 of its tokens) as two numbers, its first and last 16 hexadecimal digits: stored
# as numbers, a row's hash takes 16 bytes where its 32 digits as text took three times that
LEGACY_ROW_HASH = ("dp_legacy_hash_1", "dp_legacy_hash_2")


CURRENT = (DIGEST_VERSION,)  # the digests a pass computes (``hashed_rows``' versions): this version's alone
BOTH = (DIGEST_VERSION, LEGACY_DIGEST_VERSION)  # and version 1's, for a ledger that records it


def hash_columns(versions: Sequence[int] = CURRENT) -> list[str]:
    """The columns ``hashed_rows`` adds to each row for ``versions``: ``ROW_HASH``, then ``LEGACY_ROW_HASH``."""
    return [*(ROW_HASH if DIGEST_VERSION in versions else ()),
            *(LEGACY_ROW_HASH if LEGACY_DIGEST_VERSION in versions else ())]


@dataclass(frozen=True)
class ContentDigest:
    """A table's content digest (``DIGEST_VERSION``), and version 1's (``LEGACY_DIGEST_VERSION``) where it was asked
    for: a ledger that records fingerprints of version 1 recognises its tables by it (``Ledger.holds_legacy_content``)."""

    current: bytes
    legacy: bytes | None = None


def column_salts(name: str) -> tuple[int, int, int, int]:
    """Four numbers from a column's name (stripped), below the primes they are added to: a value's feature is
    mixed with them (``_mixed``), so that the same values in two columns add up to other sums."""
    material = hashlib.sha256(f"dp-workbench content digest 2\x00{name}".encode("utf-8")).digest()
    words = [int.from_bytes(material[i:i + 8], "big") for i in range(0, 32, 8)]
    p, q = FEATURE_PRIMES
    return words[0] % p, words[1] % p, words[2] % q, words[3] % q


def mixed(feature: int | None, salts: tuple[int, int, int, int]) -> tuple[int, int]:
    """A value's two addends (``ROW_HASH``) from its feature (``token_feature``) and its column's ``salts``: each
    residue shifted by a salt, the two multiplied, and squared, modulo each prime (0 for a missing value). In
    Python, as ``_mixed`` writes it in SQL."""
    if feature is None:
        return 0, 0
    u, v = divmod(feature, FEATURE_SHIFT)
    out = []
    for prime, (s, t) in zip(FEATURE_PRIMES, (salts[:2], salts[2:])):
        g = ((u + s) % prime) * ((v + t) % prime) % prime
        out.append(g * g % prime)
    return out[0], out[1]


def token_feature(token: str | None) -> int | None:
    """A value's feature (``sql_reading.packed_feature``) from its token (``cell_token``, ``number_token``), in
    Python: what the engines' SQL computes from the value itself."""
    if token is None:
        return None
    tags = FEATURE_TAGS
    if token in ("#inf", "#-inf"):
        tag, first, second = tags[token[1:]], 0, 0
    elif token[0] in "#~":
        tag, first = tags["whole" if token[0] == "#" else "rounded"], int(token[1:])
        second = first
    else:
        md5 = hashlib.md5(token[1:].encode("utf-8")).digest()
        tag, first, second = tags["text"], int.from_bytes(md5[:4], "big"), int.from_bytes(md5[4:8], "big")
    (p, q), (a, b) = FEATURE_PRIMES, FEATURE_TAG_STEPS
    return ((first + tag * a) % p) * FEATURE_SHIFT + (second + tag * b) % q


def hashed_rows(d: Dialect, columns: Sequence[tuple[str, StoredColumn]], source: str,
                keep: Sequence[tuple[str, str, str]] = (), extra: Sequence[str] = (),
                versions: Sequence[int] = CURRENT) -> str:
    """A query of ``source``'s rows: for ``versions`` of the digest, each row's sums of all ``columns``' (name,
    stored column) mixed features as ``ROW_HASH`` (``DIGEST_VERSION``) and its hash of version 1 as
    ``LEGACY_ROW_HASH``; for each (alias, name, role) of ``keep``, that column's value read for that role
    (``sql_reading.read_value``) under ``alias``; and the ``extra`` expressions of ``source`` ("expression AS
    alias"). One pass reads each value once, for the fingerprint and for the statistics. No ``versions``: the values
    read alike, unhashed (the content digest is already known: ``Ledger.recorded_content_fingerprint``)."""
    hashed, current, legacy = bool(versions), DIGEST_VERSION in versions, LEGACY_DIGEST_VERSION in versions
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
    features = [f"{token.feature} AS dp_f{i}" for i, token in enumerate(tokens)] if current else []
    if legacy:
        features.append(f"{d.md5(d.row_text(tokens))} AS dp_md5")
    query = f"(SELECT {', '.join([*outputs, *features])} FROM {query}) AS dp_features"
    named = _aliases(outputs)
    mixing = [_mixed(d, f"dp_f{i}", column_salts(name), i) for i, (name, _) in enumerate(ordered)] if current else []
    halves = [f"{half} AS {alias}" for half, alias in zip(d.md5_halves("dp_md5"), LEGACY_ROW_HASH)] if legacy else []
    query = f"(SELECT {', '.join([*named, *(m for pair in mixing for m in pair), *halves])} FROM {query}) AS dp_mixing"
    sums = [" + ".join(f"coalesce((dp_g{i}_{k} * dp_g{i}_{k}) % {prime}, 0)" for i in range(len(ordered)))
            or "CAST(0 AS BIGINT)" for k, prime in enumerate(FEATURE_PRIMES, start=1)]
    totals = [f"{total} AS {alias}" for total, alias in zip(sums, ROW_HASH)] if current else []
    return f"SELECT {', '.join([*named, *totals, *_aliases(halves)])} FROM {query}"


def _mixed(d: Dialect, feature: str, salts: tuple[int, int, int, int], i: int) -> tuple[str, str]:
    """The SQL of ``mixed`` before its squaring (done where its sums are made): each prime's product of the feature's
    two residues shifted by the column's salts, as ``dp_g{i}_1`` and ``dp_g{i}_2``."""
    u, v = d.integer_divide(feature, str(FEATURE_SHIFT)), f"({feature} % {FEATURE_SHIFT})"
    out = []
    for k, (prime, (s, t)) in enumerate(zip(FEATURE_PRIMES, (salts[:2], salts[2:])), start=1):
        out.append(f"((({u} + {s}) % {prime}) * (({v} + {t}) % {prime}) % {prime}) AS dp_g{i}_{k}")
    return out[0], out[1]


def _aliases(expressions: Sequence[str]) -> list[str]:
    """The alias of each ``expression AS alias`` (the last word)."""
    return [expression.rsplit(" AS ", 1)[-1].strip() for expression in expressions]


def digest_query(d: Dialect, rows: str, versions: Sequence[int] = CURRENT) -> str:
    """Count the rows of ``rows`` (a table with ``hash_columns(versions)``) and add up each of those columns."""
    return f"SELECT count(*), {', '.join(d.exact_sum(half) for half in hash_columns(versions))} FROM {rows}"


def digest(names: Sequence[str], count: int, first: int | None, second: int | None,
           version: int = DIGEST_VERSION) -> bytes:
    """The digest from the count of rows and the two sums of their hashes (modulo 2^64), of ``version``."""
    material = (f"{int(count)} rows; columns {sorted(names)!r}; "
                f"{int(first or 0) % (1 << 64):016x}{int(second or 0) % (1 << 64):016x}")
    if version != LEGACY_DIGEST_VERSION:
        material = f"content digest {version}; {material}"
    return hashlib.sha256(material.encode("utf-8")).digest()


def digests(names: Sequence[str], sums: Sequence[Any], versions: Sequence[int]) -> ContentDigest:
    """The ``ContentDigest`` from a row of ``digest_query`` for ``versions`` (this version's among them)."""
    count, parts = sums[0], list(sums[1:])
    current = digest(names, count, parts[0], parts[1])
    legacy = digest(names, count, parts[2], parts[3], LEGACY_DIGEST_VERSION) if LEGACY_DIGEST_VERSION in versions else None
    return ContentDigest(current, legacy)


NARROWED = "workbench.narrowed"  # the mark (in ``frame.attrs``) of a frame that holds only some of a file's columns


def mark_narrowed(frame: pd.DataFrame) -> pd.DataFrame:
    """Mark ``frame`` as some of a table's columns (``load_table(columns=...)``): ``content_digest`` refuses it,
    since its digest would not recognise the table (a fresh budget for known data)."""
    frame.attrs[NARROWED] = True
    return frame


def content_digest(frame: pd.DataFrame, threads: int | None = None, legacy: bool = False) -> ContentDigest:
    """The digest of a loaded table, computed by DuckDB on the frame with the engines' SQL, on ``threads`` threads
    (None: DuckDB's default, one per core); with version 1's where ``legacy``. A frame narrowed to some columns
    (``mark_narrowed``) is refused: its table's digest is the one hashed as it was read (``Table.pending_digest``).

    A text column of few distinct values (a category, an age, a count: most columns of most tables) has its
    features (or tokens) computed once per distinct value, by the same SQL (``_distinct_features``), and handed to
    the rows: a value's feature depends on that value alone, so every row's is the one its value gets by itself, and
    the digest is the same (1.4 s of work on 500,000 rows of ten columns became 0.8 s)."""
    if frame.attrs.get(NARROWED):
        raise ValueError("the content digest of a table narrowed to some of its columns would not recognise it: use "
                         "the digest hashed as it was read (Table.pending_digest)")
    names = [str(column).strip() for column in frame.columns]
    with hashing_connection(threads) as db:
        count, first, second = _frame_sums(db, frame, names, CURRENT)
        old = _frame_sums(db, frame, names, (LEGACY_DIGEST_VERSION,)) if legacy else None
    return ContentDigest(digest(names, count, first, second),
                         None if old is None else digest(names, count, old[1], old[2], LEGACY_DIGEST_VERSION))


def _frame_sums(db: duckdb.DuckDBPyConnection, frame: pd.DataFrame, names: list[str],
                versions: tuple[int]) -> tuple[Any, Any, Any]:
    """The count of ``frame``'s rows and the two sums of one version of the digest (``versions``: one of them)."""
    import pyarrow as pa

    legacy = versions == (LEGACY_DIGEST_VERSION,)
    values, few, columns = {}, {}, []
    d = DuckDBDialect()
    made = TOKEN if legacy else FEATURE  # what a value computed in Python is handed over as
    for i, (name, column) in enumerate(zip(names, frame.columns)):
        series = frame[column]
        alias = f"c{i}"
        kind = stored_kind(series)
        if kind == "text":
            distinct = _few_distinct(series)
            if distinct is not None:
                few[alias] = distinct
                columns.append((name, StoredColumn(d.quote(alias), made)))
                continue
        if kind == "date":
            if getattr(series.dt, "tz", None) is not None:
                series = series.dt.tz_convert("UTC").dt.tz_localize(None)
            kind = TIMESTAMP
        elif kind in ("category", "cells"):
            tokens = [cell_token(read_cell(v)) for v in series.to_numpy(dtype=object, na_value=None)]
            series = pd.Series(tokens if legacy else pd.array([token_feature(t) for t in tokens], dtype="Int64"),
                               index=series.index, dtype=object if legacy else "Int64")
            kind = made
        elif kind == "truth":
            kind = TRUTH
        values[alias] = series.reset_index(drop=True)
        columns.append((name, StoredColumn(d.quote(alias), {"text": TEXT, "integer": INTEGER, "float": FLOAT}.get(
            kind, kind))))
    # handed to DuckDB as Arrow: it scans Arrow's columns as they are, where a frame's texts go through Python
    table = pa.Table.from_pandas(pd.DataFrame(values), preserve_index=False) if values else \
        pa.table({"dp_one": pa.nulls(len(frame), pa.int8())})
    return _sums(db, d, columns, table, few, versions)


def hashing_connection(threads: int | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB connection to hash rows on (``threads``: None, one per core), set as the out-of-core engine's."""
    import duckdb

    db = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    db.execute("SET disabled_optimizers = 'in_clause'")  # as out of core (``out_of_core.KEEP_IN_LISTS``)
    if threads is not None:
        db.execute(f"SET threads = {int(threads)}")
    return db


def text_sums(db: duckdb.DuckDBPyConnection, rows: pa.Table | pa.RecordBatch, names: Sequence[str],
              versions: tuple[int, ...] = CURRENT) -> tuple[int, ...]:
    """The count of ``rows`` and the sums of their hashes (``digest``'s parts, unreduced; for ``versions``, in the
    order of ``hash_columns``), every column text named ``names`` (the stripped names, in the file's order): what
    ``content_digest`` adds up for the same rows of a frame of those texts, so that the parts of a file read in
    blocks add up to the digest of the whole (the hashes are summed, and a value's feature is its own whichever
    block it is in). ``db``: a ``hashing_connection``."""
    import pyarrow as pa

    d = DuckDBDialect()
    out: list[int] = []
    for version in sorted(versions, reverse=True):  # this version's sums first (``hash_columns``)
        values, few, columns = {}, {}, []
        for i, (name, array) in enumerate(zip(names, rows.columns)):
            alias = f"c{i}"
            distinct = _few_distinct_array(array.cast(pa.large_string()))
            if distinct is not None:
                few[alias] = distinct
                columns.append((name, StoredColumn(d.quote(alias), TOKEN if version == LEGACY_DIGEST_VERSION else FEATURE)))
            else:
                values[alias] = array
                columns.append((name, StoredColumn(d.quote(alias), TEXT)))
        table = pa.table(values) if values else pa.table({"dp_one": pa.nulls(rows.num_rows, pa.int8())})
        count, first, second = _sums(db, d, columns, table, few, (version,))
        out = out or [int(count)]
        out += [int(first or 0), int(second or 0)]
    return tuple(out)


def _sums(db: duckdb.DuckDBPyConnection, d: Dialect, columns: list[tuple[str, StoredColumn]], table: "pa.Table",
          few: "dict[str, pa.DictionaryArray]", versions: tuple[int]) -> tuple[Any, Any, Any]:
    """The count of rows and their hashes' sums for one of the digest's ``versions``, of ``table``'s columns with
    the ``few`` columns (``_few_distinct``) added as their values' features (or, for version 1, tokens)."""
    legacy = versions == (LEGACY_DIGEST_VERSION,)
    for alias, array in zip(few, _distinct_features(db, d, list(few.values()), legacy)):
        table = table.append_column(alias, array)
    db.register("dp_frame", table)
    try:
        query = digest_query(d, f"({hashed_rows(d, columns, 'dp_frame', versions=versions)}) AS dp_hashed", versions)
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


def _distinct_features(db: Any, d: Dialect, columns: "list[pa.DictionaryArray]", legacy: bool = False) -> "list[pa.Array]":
    """Each row's feature (``legacy``: token) of text columns (``_few_distinct``), made once per distinct value: its
    token by ``token_layers``' SQL for text (the one the rows would be read by), all columns' values in one query, its
    feature from that token (``token_feature``); given to every row as the index of its value's."""
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
        tokens = [made_token for _, _, made_token in made[start:start + size]]
        by_value = pa.array(tokens, pa.large_string()) if legacy else pa.array([token_feature(t) for t in tokens],
                                                                                pa.int64())
        # each row's feature as an index into its value's: DuckDB reads a dictionary as the values it stands for,
        # and the column of every row's is never made (seven such columns of 2,000,000 rows took 230 MB)
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
