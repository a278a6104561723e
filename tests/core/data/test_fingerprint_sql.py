"""The content fingerprint's SQL (issue 39): DuckDB's faster spelling of it (``DuckDBDialect``: md5_number's bytes
swapped into the two halves, each row's text built from its tokens' parts, the number pattern tried only on a text
that can start a number, the trim checked by two comparisons first) gives every row the hash that the portable SQL
(``Dialect``, the one Spark runs) and Python give it, on values of every stored kind chosen to reach each branch;
and the digest of a fixed table is the one ledgers already hold."""

from __future__ import annotations

import datetime as dt
import decimal
import hashlib
import re

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from workbench.core.data import fingerprint
from workbench.core.data.fingerprint import ROW_HASH, cell_token, content_digest, digest, hashed_rows
from workbench.core.data.reading import MISSING_WORDS, NUMBER, WHITESPACE, read_cell
from workbench.core.data.sql_reading import (
    DATE,
    DECIMAL,
    FLOAT,
    INTEGER,
    NUMBER_STARTS,
    TEXT,
    TIMESTAMP,
    TRUTH,
    Dialect,
    DuckDBDialect,
    StoredColumn,
    token_layers,
)

# content_digest(edge_frame()) as the code before issue 39's DuckDB spelling computed it: ledgers hold this value
EDGE_DIGEST = "90084b0f71811d1d811f91150efe6fc2035c710d7fe429259abaf0f3731551aa"


def edge_texts(rng: np.random.Generator, rows: int) -> list[str | None]:
    """Texts that reach every branch of the reading and of the tokens: white space of every kind at either end,
    missing words, numbers in many spellings (whole, fractional, large, signed, exponents, infinities), texts that
    start like a number and are none, truth words, other scripts, empty and NULL."""
    fixed = ["", " ", "North", "north ", "NA", " n/a", "None", "null", "1", "01", "+1", "-0", "1.0", "1.", ".5", "-.5",
             "1e3", "1E-3", "-2.5e+300", "1e999", "-1e999", "inf", "-Infinity", "INF", "+inf", "infinity", "1.5e-7",
             "123456789012345678", "9007199254740993", "-9007199254740992", "0.1", "3.14159", "2.675", "1e-320",
             "True", "false", "+", "-", ".", "1a", "1,5", "1/2", "i", "Inf2", "in", "e5", "x y", "Åland", "ÿ",
             "\u0301", "東京", "\U0001F600", "a\x00b", "\x7f", "\x80", "\x84x", "1 2", "#N/A N/A", "-1.#IND"]
    spaced = [f"{space}{word}" for space in WHITESPACE for word in ("a", "5")] + \
             [f"{word}{space}" for space in WHITESPACE for word in ("b", "-7.25")] + \
             [f"{space}x{space}" for space in WHITESPACE] + list(WHITESPACE)
    words = [*fixed, *spaced, *MISSING_WORDS]
    numbers = [repr(float(v)) for v in rng.lognormal(0, 40, 200) * rng.choice([-1, 1], 200)] + \
              [str(int(v)) for v in rng.integers(-10**15, 10**15, 200)]
    pool = words + numbers
    picked = [pool[i] for i in rng.integers(0, len(pool), rows)]
    return [None if i % 29 == 3 else value for i, value in enumerate(picked)]


def edge_floats(rng: np.random.Generator, rows: int) -> np.ndarray:
    """Doubles of every exponent and sign, whole and not, below and above 2^53, at the 33-bit rounding's carry,
    subnormal, infinite and NaN."""
    fixed = [0.0, -0.0, 0.5, -0.5, 1.0, 2.0**53, 2.0**53 + 2, -(2.0**53), 2.0**53 - 1, 2.0**60, 1e308, -1e308, 5e-324,
             1e-310, float("inf"), float("-inf"), float("nan"), 1 / 3, 2.675, 1 - 2.0**-40, 2 - 2.0**-35, 3 - 2.0**-34,
             np.nextafter(1.0, 2.0), np.nextafter(2.0, 0.0), 1.5 * 2.0**-1022, 0.1, -123.456]
    randoms = rng.lognormal(0, 60, rows) * rng.choice([-1, 1], rows)
    wholes = np.round(rng.normal(0, 1e6, rows))
    values = np.concatenate([fixed, randoms, wholes])
    return values[rng.integers(0, len(values), rows)]


def edge_frame(rows: int = 4_000, seed: int = 39) -> pd.DataFrame:
    """A table with a column of each kind the engines store (text, integer, nullable integer, float, truth, date),
    its values from ``edge_texts`` and ``edge_floats``; its column names out of order."""
    rng = np.random.default_rng(seed)
    big = [0, 1, -1, 2**53 - 1, 2**53, 2**53 + 1, -(2**53) - 1, 2**62 + 12345, -(2**63), 2**63 - 1]
    integers = np.array(big + list(rng.integers(-10**12, 10**12, rows - len(big))), dtype=np.int64)
    nullable = pd.array([None if i % 7 == 0 else int(v) for i, v in enumerate(rng.integers(-50, 50, rows))],
                        dtype="Int64")
    stamps = pd.to_datetime("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**6, rows) * 1_000_000_007, unit="ns")
    return pd.DataFrame({
        "text": pd.array(edge_texts(rng, rows), dtype="str"),
        "amount": edge_floats(rng, rows),
        "id": rng.permutation(integers),
        "count": nullable,
        "flag": rng.random(rows) < 0.5,
        "when": pd.Series(stamps).where(rng.random(rows) < 0.9),
        " spaced name": pd.array(edge_texts(rng, rows), dtype="str"),
    })


def python_digest(frame: pd.DataFrame) -> bytes:
    """The digest by its definition, in Python: each row's tokens (``read_cell``, ``cell_token``) in the order of the
    sorted column names, joined by U+001F, hashed by MD5; the hashes' first and last 8 bytes, each big-endian,
    added up."""
    names = [str(column).strip() for column in frame.columns]
    order = sorted(range(len(names)), key=lambda i: names[i])
    columns = [frame.iloc[:, i].to_numpy(dtype=object, na_value=None) for i in order]
    first = second = 0
    for row in zip(*columns):
        text = "\x1f".join(cell_token(read_cell(value)) or "" for value in row)
        md5 = hashlib.md5(text.encode("utf-8")).digest()
        first += int.from_bytes(md5[:8], "big")
        second += int.from_bytes(md5[8:], "big")
    return digest(names, len(frame), first, second)


def test_the_digest_is_the_one_ledgers_hold_and_its_definition():
    frame = edge_frame()
    made = content_digest(frame)
    assert made.hex() == EDGE_DIGEST
    assert made == python_digest(frame)


def test_the_digest_is_the_same_with_text_columns_read_row_by_row(monkeypatch):
    frame = edge_frame(1_000, seed=5)
    made = content_digest(frame, threads=1)
    monkeypatch.setattr(fingerprint, "_few_distinct", lambda series: None)
    assert content_digest(frame) == made == python_digest(frame)


def _row_hashes(d: Dialect, table: pa.Table, kinds: dict[str, str]) -> list[tuple[int, int]]:
    """Each row's two halves by ``hashed_rows`` in dialect ``d``, in the table's order."""
    columns = [(name, StoredColumn(d.quote(name), kind)) for name, kind in kinds.items()]
    query = hashed_rows(d, columns, "dp_table", extra=["dp_i AS dp_i"])
    with duckdb.connect() as db:
        db.register("dp_table", table.append_column("dp_i", pa.array(range(len(table)), pa.int64())))
        rows = db.execute(f"SELECT dp_i, {', '.join(ROW_HASH)} FROM ({query}) AS hashed ORDER BY dp_i").fetchall()
    return [(int(a), int(b)) for _, a, b in rows]


@pytest.mark.parametrize("seed", [1, 2])
def test_every_row_has_the_same_hash_halves_in_both_spellings_and_in_python(seed):
    """Row by row, not only their sums: the halves' byte order (md5_number reads the digest's bytes little-endian)
    and each token's parts, for text, whole and other numbers, truth values, dates, timestamps and decimals."""
    rng = np.random.default_rng(seed)
    rows = 6_000
    floats = edge_floats(rng, rows)
    integers = rng.integers(-2**63, 2**63 - 1, rows, dtype=np.int64, endpoint=True)
    integers[::5] = rng.integers(-1000, 1000, len(integers[::5]))
    days = rng.integers(-20_000, 40_000, rows)
    table = pa.table({
        "t": pa.array(edge_texts(rng, rows), pa.string()),
        "f": pa.array(floats, pa.float64()),
        "i": pa.array([None if k % 11 == 0 else int(v) for k, v in enumerate(integers)], pa.int64()),
        "u": pa.array(rng.integers(0, 2**64 - 1, rows, dtype=np.uint64, endpoint=True), pa.uint64()),
        "b": pa.array([None if k % 13 == 0 else bool(v) for k, v in enumerate(rng.random(rows) < 0.5)], pa.bool_()),
        "d": pa.array([dt.date(1970, 1, 1) + dt.timedelta(days=int(v)) for v in days], pa.date32()),
        "s": pa.array(rng.integers(0, 10**17, rows), pa.timestamp("us")),
        "m": pa.array([None if k % 17 == 0 else decimal.Decimal(int(v)).scaleb(-3)
                       for k, v in enumerate(rng.integers(-10**12, 10**12, rows))], pa.decimal128(18, 3)),
    })
    kinds = {"t": TEXT, "f": FLOAT, "i": INTEGER, "u": INTEGER, "b": TRUTH, "d": DATE, "s": TIMESTAMP, "m": DECIMAL}
    fast = _row_hashes(DuckDBDialect(), table, kinds)
    assert fast == _row_hashes(Dialect(), table, kinds)
    names = sorted(kinds)
    values = zip(*(table[name].to_pylist() for name in names))
    python = []
    for row in values:
        md5 = hashlib.md5("\x1f".join(cell_token(read_cell(v)) or "" for v in row).encode("utf-8")).digest()
        python.append((int.from_bytes(md5[:8], "big"), int.from_bytes(md5[8:], "big")))
    assert fast == python


def test_a_number_starts_with_one_of_the_characters_the_pattern_is_tried_on():
    """DuckDB tries the number pattern only on a text whose first character is in NUMBER_STARTS: the pattern is the
    one those were read from, and no text starting otherwise matches it."""
    assert NUMBER == r"[+-]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|Inf|INF|infinity|Infinity|INFINITY)", \
        "the number pattern changed: check NUMBER_STARTS (the characters a number may start with)"
    pattern = re.compile(NUMBER)
    for code in range(0x3000):
        c = chr(code)
        if c not in NUMBER_STARTS:
            assert not any(pattern.fullmatch(c + rest) for rest in ("", "1", "5.5", "nf", "nfinity", "e3")), c


def many_doubles(seed: int = 39) -> np.ndarray:
    """Hundreds of thousands of finite doubles where a number's rounding to 33 bits could go wrong: every power of
    two and of ten, random bit patterns (every exponent, subnormals among them), wide random magnitudes, exact ties
    at the rounding's half and mantissas that carry into the next power of two at every exponent, the smallest and
    largest doubles, zeros of both signs, integers near 2^53; each with its neighbours on either side, and both
    signs."""
    rng = np.random.default_rng(seed)
    bits = np.frombuffer(rng.integers(0, 2**63, 60_000, dtype=np.int64).tobytes(), dtype=np.float64)
    tie = (rng.integers(2**52, 2**53, 20_000, dtype=np.int64) >> 19 << 19) | (1 << 18)  # a 53-bit mantissa at the half
    carried = np.int64(2**53 - 1) >> 19 << 19 | np.int64(1 << 18)  # rounds up to the next power of two
    values = np.concatenate([
        2.0 ** np.arange(-1074, 1024), 10.0 ** np.arange(-323, 309), bits,
        rng.lognormal(0, 200, 20_000), rng.uniform(0.5, 3, 20_000).round(4), np.exp(rng.normal(10.2, 0.7, 10_000)).round(2),
        tie * 2.0 ** rng.integers(-1100, 970, len(tie)).astype(np.float64),
        carried * 2.0 ** np.arange(-1100, 970, dtype=np.float64),
        [5e-324, 2.0**-1022, np.nextafter(2.0**-1022, 0), np.finfo(np.float64).max, 0.0, -0.0, 2.0**53 - 1, 2.0**53,
         2.0**53 + 2, 2.0**52 + 0.5, 2.0**52 - 0.5, 0.1, 2.675],
    ])
    values = values[np.isfinite(values)]
    with np.errstate(over="ignore"):
        values = np.concatenate([values, np.nextafter(values, np.inf), np.nextafter(values, -np.inf)])
    values = values[np.isfinite(values)]
    return np.concatenate([values, -values])


def _tokens(d: Dialect, table: pa.Table, name: str, kind: str) -> list[str | None]:
    """Each row's token of column ``name`` (stored as ``kind``) by ``token_layers`` in dialect ``d``, in order."""
    layers, token, _ = token_layers(d, StoredColumn(d.quote(name), kind), "dp_v")
    query, carried = "dp_table", []
    for depth, layer in enumerate([["dp_i", *layers[0]], *layers[1:]]):
        query = f"(SELECT {', '.join([*carried, *layer])} FROM {query}) AS dp_layer{depth}"
        carried = [*carried, *(expression.rsplit(" AS ", 1)[-1] for expression in layer)]
    with duckdb.connect() as db:
        db.register("dp_table", table.append_column("dp_i", pa.array(range(len(table)), pa.int64())))
        rows = db.execute(f"SELECT {token.sql}, concat({token.mark}, {token.rest}) FROM {query} ORDER BY dp_i").fetchall()
    assert all(whole == (parts or None) for whole, parts in rows)  # the token and its two parts joined
    return [whole for whole, _ in rows]


def test_a_number_is_rounded_alike_by_its_bits_in_duckdb_by_log2_and_pow_and_in_python():
    """DuckDB rounds a number to 33 significant bits from the double's own bits (``DuckDBDialect.rounded_layers``),
    the portable SQL (Spark's) by log2 and pow: every token is the same in both and as Python's, on hundreds of
    thousands of doubles, stored as floats and as text."""
    values = many_doubles()
    assert len(values) > 300_000 and np.any(np.abs(values[values != 0]) < 2.0**-1022)
    python = [fingerprint.number_token(float(v)) for v in values]
    table = pa.table({"f": pa.array(values, pa.float64()), "t": pa.array([repr(float(v)) for v in values], pa.string())})
    for name, kind in (("f", FLOAT), ("t", TEXT)):
        fast = _tokens(DuckDBDialect(), table, name, kind)
        assert fast == python, kind
        assert _tokens(Dialect(), table, name, kind) == fast, kind
