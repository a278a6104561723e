"""The reading rule of ``reading`` in SQL, for the engines that run on the file itself (DuckDB out of core,
Spark): each value read by itself, its column's public description and the file's declared type of the
column, never by other rows. ``Dialect`` says how one engine spells what SQL engines spell differently;
each function here builds the SQL of one part of the rule for a column of a declared ``Stored`` kind.

The in-memory engine's copy is ``reading``; ``tests/core/data/test_row_independence.py`` reads the same
files with all three engines and compares every value."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from workbench.core.data.reading import FALSE_WORDS, MISSING_WORDS, NUMBER, TRUE_WORDS, WHITESPACE, CategoryMatcher
from workbench.core.errors import DataFileError

# how a file declares a column: its values are read by this kind, never by their content
TEXT, INTEGER, FLOAT, DECIMAL, TRUTH, DATE, TIMESTAMP, OTHER = (
    "text", "integer", "float", "decimal", "truth", "date", "timestamp", "other")
TOKEN = "token"  # a column of values already turned into tokens (``fingerprint``)
CLEAN = "clean"  # text already read by the rule: trimmed, NULL where missing (the engines' stored copy of a file)
NUMBERS = (INTEGER, FLOAT, DECIMAL)
EMPTY = "''"
# the characters a text that ``reading.NUMBER`` matches can start with: a sign, a point, a digit, the i of inf
NUMBER_STARTS = "+-.0123456789iI"
# the widest range of code points around the letters in which none is white space (``Dialect.trim``): 33 to 132
_PRINTABLE = (max(ord(c) for c in WHITESPACE if c < "A") + 1, min(ord(c) for c in WHITESPACE if c > "A") - 1)


class Dialect:
    """How one engine spells what SQL engines spell differently (DuckDB's spelling here)."""

    def quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def text(self, value: str) -> str:
        return "'" + value.replace("'", "''") + "'"

    def trim(self, value: str) -> str:
        # trimming by a set of 29 characters costs a microsecond a value: only where a value starts or ends with one.
        # Most values start and end with a character between the set's ASCII ones and its others (a letter, a
        # digit), which two comparisons tell: the set is looked up only for the rest
        codes = ", ".join(str(ord(c)) for c in WHITESPACE)
        low, high = _PRINTABLE
        plain = (f"unicode({value}) BETWEEN {low} AND {high} AND "
                 f"unicode(substr({value}, -1)) BETWEEN {low} AND {high}")
        return (f"(CASE WHEN {plain} THEN {value} "
                f"WHEN unicode({value}) IN ({codes}) OR unicode(right({value}, 1)) IN ({codes}) "
                f"THEN trim({value}, {self.text(WHITESPACE)}) ELSE {value} END)")

    def full_match(self, value: str, pattern: str) -> str:
        return f"regexp_full_match({value}, {self.text(pattern)})"

    def finite(self, value: str) -> str:
        return f"isfinite({value})"

    def is_nan(self, value: str) -> str:
        # not isnan: DuckDB 2.0's isnan is false for a NaN read straight from a Parquet file (its sign bit set)
        return f"(NOT isfinite({value}) AND NOT isinf({value}))"

    def round_even(self, value: str) -> str:
        return f"round_even({value}, 0)"

    def number(self, value: float) -> str:
        """A double literal, exactly (a bare 0.1 would be a decimal)."""
        if np.isinf(value):
            return f"CAST({self.text('inf' if value > 0 else '-inf')} AS DOUBLE)"
        return f"CAST({self.text(repr(float(value)))} AS DOUBLE)"

    def string(self, value: str) -> str:
        return f"CAST({value} AS VARCHAR)"

    def small_integer(self, value: str, largest: int) -> str:
        """An integer from -2 up to ``largest`` in the smallest signed type that holds every such value."""
        kind = "TINYINT" if largest <= 127 else "SMALLINT" if largest <= 32767 else "INTEGER" if largest < 2**31 else "BIGINT"
        return f"CAST({value} AS {kind})"

    def integer_divide(self, left: str, right: str) -> str:
        return f"({left}) // ({right})"

    def date_text(self, value: str, pattern: str) -> str:
        """``pattern`` in strftime's letters (%Y-%m-%d %H:%M:%S.%f)."""
        return f"strftime({value}, {self.text(pattern)})"

    def is_midnight(self, value: str) -> str:
        return f"(CAST({value} AS TIME) = TIME '00:00:00')"

    def whole_seconds(self, value: str) -> str:
        return f"(microsecond({value}) % 1000000 = 0)"

    def utc(self, value: str) -> str:
        """A timestamp with a time zone as the wall time in UTC."""
        return f"timezone('UTC', {value})"

    def hex_number(self, hex_digits: str) -> str:
        """16 hexadecimal digits as an unsigned 64-bit integer."""
        return f"CAST(('0x' || {hex_digits}) AS UBIGINT)"

    # The methods below are portable SQL (a dialect that does not spell them otherwise runs them as they are);
    # ``DuckDBDialect`` spells them with DuckDB's own, faster functions.

    def is_number(self, text: str) -> str:
        """Whether a text (trimmed) is a decimal number or an infinity (``reading.NUMBER``)."""
        return self.full_match(text, NUMBER)

    def row_text(self, tokens: "list[Token]") -> str:
        """A row's tokens (in the order of the sorted column names) joined by U+001F, a missing value's empty."""
        if not tokens:
            return EMPTY
        return f"concat_ws({self.row_separator()}, {', '.join(f'coalesce({t.sql}, {EMPTY})' for t in tokens)})"

    def md5(self, text: str) -> str:
        """The MD5 digest of a text, in the form ``md5_halves`` reads."""
        return f"md5({text})"

    def md5_halves(self, digest: str) -> tuple[str, str]:
        """An ``md5`` digest's first and last 8 bytes, each read big-endian (its first and last 16 hexadecimal
        digits), as unsigned 64-bit integers."""
        return self.hex_number(f"substr({digest}, 1, 16)"), self.hex_number(f"substr({digest}, 17, 16)")

    def exact_sum(self, unsigned: str) -> str:
        """The exact sum of a column of ``hex_number``s."""
        return f"sum(CAST({unsigned} AS HUGEINT))"

    def row_separator(self) -> str:
        return "chr(31)"

    def rounded_layers(self, n: str, w: str, alias: str) -> tuple[list[list[str]], str]:
        """The layers (after the one of ``w``, whether ``n`` is a whole number below 2^53) that compute a number's
        value rounded to 33 significant bits as ``fingerprint.number_token`` writes it after '~' (NULL where ``n``
        is NULL, not finite or whole), and the SQL of that signed integer over them."""
        # the exponent e with 2^e <= |x| < 2^(e+1) (floor(log2) corrected by one either way), and the 53-bit
        # mantissa (exact) rounded half up to 33 bits, in [2^33, 2^34]; computed only for such numbers
        a, e0, e, m = f"abs({n})", f"CAST(floor(log2(abs({n}))) AS BIGINT)", f"{alias}_e", f"{alias}_m"
        exponent = [f"(CASE WHEN {w} OR {n} IS NULL OR NOT {self.finite(n)} THEN NULL ELSE {e0} "
                    f"- (CASE WHEN pow(2.0, {e0}) > {a} THEN 1 ELSE 0 END) "
                    f"+ (CASE WHEN pow(2.0, {e0} + 1) <= {a} THEN 1 ELSE 0 END) END) AS {e}"]
        mantissa = [f"(CASE WHEN {e} IS NULL THEN NULL ELSE "
                    + self.integer_divide(f"CAST({a} / pow(2.0, {e}) * 4503599627370496.0 AS BIGINT) + 262144", "524288")
                    + f" END) AS {m}"]
        carry = self.integer_divide(m, "17179869184")  # 1 where rounding carried into the next power of two
        key = f"({e} + {carry} + 1100) * 34359738368 + {m} - {carry} * 8589934592"
        return [exponent, mantissa], f"(CASE WHEN {n} < 0 THEN -1 ELSE 1 END) * ({key})"


class DuckDBDialect(Dialect):
    """DuckDB's spelling with its own functions where ``Dialect``'s portable SQL is slower, for the engines that
    run DuckDB (out of core, and the content fingerprint of a loaded table). Each method gives what the portable
    one gives, value by value (``tests/core/data/test_fingerprint_sql.py``)."""

    def file(self, path: str | Path) -> str:
        """A file's path as DuckDB's readers take it, exactly that file: they read a path holding any of ``[*?`` as
        a pattern of file names (survey[1].parquet would read survey1.parquet, and survey[12].parquet two files),
        so each is written as a class of itself (``[[]``, ``[*]``, ``[?]``). Such a pattern is split at every
        backslash, a folder's separator to DuckDB: where a backslash is a name's character (not on Windows), a path
        holding one and any of ``[*?`` is refused (k\\[1].parquet would read k/[1].parquet)."""
        text = str(path)
        pattern = re.search(r"[\[*?]", text)
        if pattern and "\\" in text and os.sep != "\\":
            raise DataFileError(
                f"{Path(text).name}: the out-of-core engine cannot read a file whose path holds a backslash and any "
                "of [ * ? (it would read another file). Rename the file or its folder, or release it with the "
                "in-memory engine.")
        return self.text(re.sub(r"([\[*?])", r"[\1]", text) if pattern else text)

    def is_number(self, text: str) -> str:
        # the pattern (RE2: 50 ns a value) only on a text whose first character can start a number; the other texts
        # (most of a categorical column's) are told by a comparison or two
        return number_by_first_code(self, text, f"unicode({text})")

    def row_text(self, tokens: "list[Token]") -> str:
        # each token as its two parts, which concat joins (leaving out a NULL part) without making the token first
        if not tokens:
            return EMPTY
        return f"concat({f', {self.row_separator()}, '.join(f'{t.mark}, {t.rest}' for t in tokens)})"

    def md5(self, text: str) -> str:
        return f"md5_number({text})"  # the 16 bytes as a number: no hexadecimal digits written and read back

    def md5_halves(self, digest: str) -> tuple[str, str]:
        # md5_number reads the digest's bytes as one little-endian 128-bit integer: its low 64 bits are the first
        # 8 bytes read little-endian, its high 64 bits the last 8; each has its bytes' order reversed here
        low = f"CAST({digest} & CAST({(1 << 64) - 1} AS UHUGEINT) AS UBIGINT)"
        high = f"CAST({digest} >> 64 AS UBIGINT)"
        return _byte_swapped(low), _byte_swapped(high)

    def rounded_layers(self, n: str, w: str, alias: str) -> tuple[list[list[str]], str]:
        # from the double's own bits (a cast to BIT and on to BIGINT), in one layer: where the portable SQL finds
        # the exponent by log2 and two pow and divides by a third (0.4 s of processor time a pass of three such
        # columns of 2,000,000 rows). Adding 2^18 to the bits of |x| and dropping the low 19 rounds the mantissa
        # half up to 33 bits, a carry going into the exponent: the result is (biased exponent) * 2^33 + the
        # rounded 33 bits after the leading one, which is the key with the biased exponent (e + 1023) moved up by
        # two bits and the leading one and 77 * 2^35 (1100 - 1023) added. A subnormal |x| is made normal first
        # (times 2^64, exact) and its exponent lowered by 64 after
        k = f"{alias}_k"

        def key(magnitude: str) -> str:
            r = f"((CAST(CAST({magnitude} AS BIT) AS BIGINT) + 262144) >> 19)"
            return f"({r} + ({r} >> 33) * {3 << 33} + {77 * (1 << 35) + (1 << 33)})"

        a = f"abs({n})"
        unsigned = (f"(CASE WHEN {a} >= {self.number(2.0 ** -1022)} THEN {key(a)} "
                    f"ELSE {key(f'({a} * {self.number(2.0 ** 64)})')} - {64 << 35} END)")
        return ([[f"(CASE WHEN {w} OR {n} IS NULL OR NOT {self.finite(n)} THEN NULL "
                  f"ELSE (CASE WHEN {n} < 0 THEN -1 ELSE 1 END) * {unsigned} END) AS {k}"]], k)


def number_by_first_code(d: Dialect, text: str, first: str) -> str:
    """``Dialect.is_number(text)``'s answer with the pattern tried only where ``first`` (the code point of ``text``'s
    first character, in the dialect's spelling) is one that can start a number (``NUMBER_STARTS``): other texts, most
    of a categorical column's, are told by a comparison or two."""
    codes = sorted({ord(c) for c in NUMBER_STARTS})
    low, others = [c for c in codes if c <= ord("9")], [c for c in codes if c > ord("9")]
    return (f"(CASE WHEN {first} BETWEEN {low[0]} AND {low[-1]} OR {first} IN ({', '.join(map(str, others))}) "
            f"THEN {d.full_match(text, NUMBER)} WHEN {text} IS NOT NULL THEN false END)")


def _byte_swapped(unsigned: str) -> str:
    """An unsigned 64-bit integer with the order of its 8 bytes reversed: its bytes swapped in pairs, the pairs in
    pairs, and its halves (ten operations, where a byte at a time took thirty-two). Each part is masked before it is
    shifted left, since DuckDB refuses a shift that loses bits; every operation in parentheses, since SQL's bitwise
    operators share one precedence."""
    swapped = unsigned
    for width in (8, 16):
        mask = f"CAST({sum(((1 << width) - 1) << (2 * width * k) for k in range(64 // (2 * width)))} AS UBIGINT)"
        swapped = f"(((({swapped}) & {mask}) << {width}) | ((({swapped}) >> {width}) & {mask}))"
    return f"(((({swapped}) & CAST({(1 << 32) - 1} AS UBIGINT)) << 32) | (({swapped}) >> 32))"


def _in(d: Dialect, value: str, words: tuple[str, ...]) -> str:
    return f"{value} IN ({', '.join(d.text(w) for w in words)})"


def text_value(d: Dialect, column: str, kind: str = TEXT) -> str:
    """A text column's value trimmed, NULL where the rule reads it as missing."""
    if kind == CLEAN:
        return column
    trimmed = d.trim(column)
    return f"(CASE WHEN {_in(d, trimmed, ('', *MISSING_WORDS))} THEN NULL ELSE {trimmed} END)"


def is_number_text(d: Dialect, text: str) -> str:
    return d.is_number(text)


def number_value(d: Dialect, column: str, kind: str) -> str:
    """A value of a numeric column as a double (NULL where missing); for text, a value that is neither a
    number nor a truth word is NULL here and counted by ``bad_number``."""
    if kind in (TEXT, CLEAN):
        t = text_value(d, column, kind)
        return (f"(CASE WHEN {is_number_text(d, t)} THEN CAST({t} AS DOUBLE) WHEN {_in(d, t, TRUE_WORDS)} THEN "
                f"CAST(1 AS DOUBLE) WHEN {_in(d, t, FALSE_WORDS)} THEN CAST(0 AS DOUBLE) END)")
    if kind == FLOAT:
        return f"(CASE WHEN {d.is_nan(f'CAST({column} AS DOUBLE)')} THEN NULL ELSE CAST({column} AS DOUBLE) END)"
    if kind in (INTEGER, DECIMAL):
        return f"CAST({column} AS DOUBLE)"
    if kind == TRUTH:
        return f"(CASE WHEN {column} THEN CAST(1 AS DOUBLE) WHEN NOT {column} THEN CAST(0 AS DOUBLE) END)"
    raise ValueError(f"a column stored as {kind} has no numbers")


def bad_number(d: Dialect, column: str, kind: str = TEXT) -> str:
    """Whether a value of a text column described as numeric is not a number (the column is then refused)."""
    t = text_value(d, column, kind)
    return (f"({t} IS NOT NULL AND NOT {is_number_text(d, t)} AND NOT {_in(d, t, TRUE_WORDS)} "
            f"AND NOT {_in(d, t, FALSE_WORDS)})")


def date_value_text(d: Dialect, column: str, kind: str, zoned: bool = False) -> str:
    """A stored date as text: 2024-01-31, with the time where it is not midnight (``reading.date_text``)."""
    if kind == DATE:
        return d.date_text(column, "%Y-%m-%d")
    value = d.utc(column) if zoned else column
    return (f"(CASE WHEN {d.is_midnight(value)} THEN {d.date_text(value, '%Y-%m-%d')} "
            f"WHEN {d.whole_seconds(value)} THEN {d.date_text(value, '%Y-%m-%d %H:%M:%S')} "
            f"ELSE {d.date_text(value, '%Y-%m-%d %H:%M:%S.%f')} END)")


@dataclass(frozen=True)
class StoredColumn:
    """A column of the file as the engine reads it: its SQL, and how the file declares it."""

    sql: str
    kind: str
    zoned: bool = False  # a timestamp with a time zone


def category_parts(d: Dialect, column: StoredColumn) -> tuple[str | None, str | None]:
    """The SQL of a value's text and of its number, as a categorical column compares them (either NULL)."""
    c, kind = column.sql, column.kind
    if kind in (TEXT, CLEAN):
        t = text_value(d, c, kind)
        return t, f"(CASE WHEN {is_number_text(d, t)} THEN CAST({t} AS DOUBLE) END)"
    if kind in NUMBERS:
        return None, number_value(d, c, kind)
    if kind == TRUTH:
        return f"(CASE WHEN {c} THEN 'True' WHEN NOT {c} THEN 'False' END)", number_value(d, c, kind)
    if kind in (DATE, TIMESTAMP):
        return date_value_text(d, c, kind, column.zoned), None
    return text_value(d, d.string(c)), None


def missing(d: Dialect, column: StoredColumn) -> str:
    """Whether the rule reads a value as missing."""
    text, number = category_parts(d, column)
    return f"({text if text is not None else number} IS NULL)"


def category_bin(d: Dialect, column: StoredColumn, matcher: CategoryMatcher, exact: str, numeric: str,
                 filler_bin: int | None, alias: str) -> tuple[str, str]:
    """The joins and the SQL of a value's bin in the public list (``reading.CategoryMatcher``): ``exact`` and
    ``numeric`` name small tables (text, code) and (number, code) of the matcher, joined under names made from
    ``alias`` (one per column of a query: two columns with the same public list join the same tables). Missing is
    NULL, or ``filler_bin`` where missing values are replaced by a public category."""
    text, number = category_parts(d, column)
    joins, found = [], []
    if text is not None:
        joins.append(f"LEFT JOIN {exact} AS {alias}_text ON {text} = {alias}_text.text")
        found.append(f"{alias}_text.code")
    if number is not None:
        joins.append(f"LEFT JOIN {numeric} AS {alias}_number ON {number} = {alias}_number.number")
        found.append(f"{alias}_number.code")
    absent = "NULL" if filler_bin is None else str(filler_bin)
    value = f"coalesce({', '.join(found)}, {matcher.other})" if found else str(matcher.other)
    return " ".join(joins), f"(CASE WHEN {missing(d, column)} THEN {absent} ELSE {value} END)"


def display_text(d: Dialect, column: StoredColumn) -> str:
    """A value's text as the curator's check of the public lists shows it (a stored number as text)."""
    text, number = category_parts(d, column)
    if text is not None:
        return text
    assert number is not None
    whole = f"({d.finite(number)} AND {number} = {d.round_even(number)} AND abs({number}) < 1e38)"
    if column.kind == INTEGER:
        return d.string(column.sql)
    return f"(CASE WHEN {whole} THEN {d.string(f'CAST({number} AS DECIMAL(38, 0))')} ELSE {d.string(number)} END)"


def person_key(d: Dialect, column: StoredColumn) -> str:
    """A row's person (NULL: no id). Stored numbers are grouped by their value as stored, never through a double
    (2^64 - 1 and 2^64 - 2 are two persons); a NaN is no id."""
    if column.kind in (INTEGER, DECIMAL):
        return column.sql
    if column.kind == FLOAT:
        return number_value(d, column.sql, column.kind)
    text, _ = category_parts(d, column)
    assert text is not None
    return text


# ---------------------------------------------------------------- tokens: a value as the content fingerprint hashes it


@dataclass(frozen=True)
class ReadAliases:
    """Where the layers of ``token_layers`` left a column's value: as stored (``stored``), its text as the rule
    reads it (``text``: trimmed, NULL where missing) and its number (``number``: a stored number, or text that
    is a decimal number; NULL otherwise)."""

    kind: str
    stored: str
    text: str
    number: str


@dataclass(frozen=True)
class Token:
    """A value's token for the content fingerprint (``token_layers``): ``sql`` the token, NULL where the value is
    missing; and the same as two parts that joined make it (``Dialect.row_text``): ``mark`` ('#', '#inf',
    '#-inf', '~' or '$'; NULL where missing) and ``rest`` (the number's digits or the text; NULL where none)."""

    sql: str
    mark: str
    rest: str


ROLES = ("text", "number", "bad", "person")


def read_value(d: Dialect, value: ReadAliases, role: str) -> str:
    """A column's value read for one use, from the aliases the fingerprint's layers computed anyway (the file is
    read once, and no cast or trim is repeated): "text" for a categorical column (text as read; a stored value
    as stored, compared by ``category_bin``), "number" for a numeric one (a truth word 1 or 0), "bad" (text of a
    numeric column that is not a number, else NULL: the column is then refused), "person" for the id."""
    kind, r, t, n = value.kind, value.stored, value.text, value.number
    textual = kind in (TEXT, CLEAN)
    if role == "text":
        return t if textual else r
    if role == "number":
        if textual:
            return (f"(CASE WHEN {n} IS NOT NULL THEN {n} WHEN {_in(d, t, TRUE_WORDS)} THEN CAST(1 AS DOUBLE) "
                    f"WHEN {_in(d, t, FALSE_WORDS)} THEN CAST(0 AS DOUBLE) END)")
        if kind == TRUTH:
            return f"(CASE WHEN {r} THEN CAST(1 AS DOUBLE) WHEN NOT {r} THEN CAST(0 AS DOUBLE) END)"
        return n
    if role == "bad":
        if not textual:
            return d.string("NULL")
        return (f"(CASE WHEN {t} IS NOT NULL AND {n} IS NULL AND NOT {_in(d, t, TRUE_WORDS)} "
                f"AND NOT {_in(d, t, FALSE_WORDS)} THEN {t} END)")
    assert role == "person"
    if kind in (INTEGER, DECIMAL):
        return r
    return n if kind == FLOAT else t


def token_layers(d: Dialect, column: StoredColumn, alias: str) -> tuple[list[list[str]], Token, ReadAliases]:
    """A value's token for the content fingerprint (``fingerprint``), in layers of SELECT so that no trim or cast
    is repeated: each layer's new columns (every alias stays available to the layers after it), the token over the
    last (``Token``: its SQL, and its two parts), and where the value as the rule reads it is (``ReadAliases``,
    for ``read_value``). A number (stored, or text that is a decimal number) is '#' and its digits if it is whole
    (below 2^53), else '~' and its value rounded to 33 significant bits as one exact integer
    (``fingerprint.number_token``); any other value '$' and its text; a missing value NULL."""
    c, kind = column.sql, column.kind
    r, t, n, e = f"{alias}_r", f"{alias}_t", f"{alias}_n", f"{alias}_e"
    no_text, no_number = d.string("NULL"), "CAST(NULL AS DOUBLE)"
    first = [f"{d.trim(c) if kind == TEXT else c} AS {r}"]
    if kind == TEXT:
        second = [f"(CASE WHEN {_in(d, r, ('', *MISSING_WORDS))} THEN NULL ELSE {r} END) AS {t}", f"{no_number} AS {n}0"]
    elif kind in (CLEAN, TOKEN):
        second = [f"{r} AS {t}", f"{no_number} AS {n}0"]
    elif kind in NUMBERS:
        second = [f"{no_text} AS {t}", f"{number_value(d, r, kind)} AS {n}0"]
    elif kind == TRUTH:
        second = [f"(CASE WHEN {r} THEN 'True' WHEN NOT {r} THEN 'False' END) AS {t}", f"{no_number} AS {n}0"]
    elif kind in (DATE, TIMESTAMP):
        second = [f"{date_value_text(d, r, kind, column.zoned)} AS {t}", f"{no_number} AS {n}0"]
    else:
        second = [f"{text_value(d, d.string(r))} AS {t}", f"{no_number} AS {n}0"]
    textual = kind in (TEXT, CLEAN)
    w = f"{alias}_w"  # a whole number below 2^53: written as its digits (most values of most tables; cheap)
    number = f"(CASE WHEN {is_number_text(d, t)} THEN CAST({t} AS DOUBLE) END)" if textual else f"{n}0"
    third = [f"{number} AS {n}"]
    # (floor only below 2^53: Spark's floor is a 64-bit integer, which a larger double would overflow)
    fourth = [f"(CASE WHEN {n} IS NOT NULL AND {d.finite(n)} AND abs({n}) < 9007199254740992.0 THEN floor({n}) = {n} "
              f"ELSE false END) AS {w}"]
    # other numbers: their value rounded to 33 significant bits, computed only for them
    rounding, signed = d.rounded_layers(n, w, alias)
    whole, rounded = d.string(f"CAST({n} AS BIGINT)"), d.string(signed)
    infinite = f"(CASE WHEN {n} > 0 THEN '#inf' ELSE '#-inf' END)"
    number_token = (f"(CASE WHEN {w} THEN '#' || {whole} WHEN NOT {d.finite(n)} THEN {infinite} "
                    f"ELSE '~' || {rounded} END)")
    if kind == TOKEN:
        return [first, second, third, fourth, *rounding], Token(t, t, d.string("NULL")), ReadAliases(kind, r, t, n)
    token = f"(CASE WHEN {n} IS NOT NULL THEN {number_token} WHEN {t} IS NOT NULL THEN '$' || {t} END)"
    if kind == INTEGER:  # a whole number below 2^53 is its stored integer exactly: its digits, not the double's
        whole = d.string(r)
    mark = (f"(CASE WHEN {w} THEN '#' WHEN {n} IS NULL THEN (CASE WHEN {t} IS NOT NULL THEN '$' END) "
            f"WHEN NOT {d.finite(n)} THEN {infinite} ELSE '~' END)")
    rest = f"(CASE WHEN {w} THEN {whole} WHEN {n} IS NULL THEN {t} WHEN {d.finite(n)} THEN {rounded} END)"
    return [first, second, third, fourth, *rounding], Token(token, mark, rest), ReadAliases(kind, r, t, n)
