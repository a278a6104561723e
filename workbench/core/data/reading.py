"""How each value of a data file is read: by the value itself, the plan's public description of its
column and what the file declares about the column (its stored type, its value labels), never by the
other rows. Every engine follows this rule; this module states it and is the in-memory engine's copy
(numpy and Arrow), ``sql_reading`` is the SQL engines' copy, and the tests compare them value by value.

Why it matters: a reading decided for a whole column (pandas' type inference, "every value is whole, so
write 1.0 as 1") lets one person change how everybody else is read. One added row holding 1.5 turned
every "1" of a column into "1.0" and moved 400 rows into "(other)"; the sensitivities in
``privacy.sensitivity`` hold only if one person changes nothing but their own rows (DESIGN rule 3).

The rule (docs/methodology.md says it in words):

- A value is stored as text (every value of a CSV or TSV file; text columns of other files), or as
  what the file declares: a number, a truth value or a date (Excel cells, SPSS, Stata, SAS, Parquet).
- Text is trimmed of white space (``WHITESPACE``: every character Python's ``str.strip`` removes) and
  is missing if nothing is left or it is one of ``MISSING_WORDS``. A stored NaN, null or system-missing
  value is missing.
- Numeric column: text must be a decimal number (``NUMBER``: -3, 0.5, .5, 1e3, inf) or a truth word
  (True/False in three spellings: 1 and 0); anything else is not a number and the column is refused. A
  stored number is itself, a stored truth value 1 or 0; a date is refused.
- Categorical column: a value is in a public category if its text (trimmed text; a stored number's
  value label, where the file labels it; True/False; a date as 2024-01-31) is the category's text; else,
  if the value is a number (stored, or text that is a decimal number) and exactly one public category
  is a decimal number equal to it ("1.0" and "01" for the category "1"), it is in that one; else it is
  outside the list.
- Identifier: the trimmed text; a stored number as text (a whole one without a decimal point: 1.0 is 1).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
from numbers import Number
import re
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from workbench.core.data.schema import CategoricalColumn, OutsideCategories
from workbench.core.errors import SchemaError

# every character Python's str.strip() removes: the SQL engines trim exactly these, not only ASCII's
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
              "\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
# texts that mean "no value" (pandas' and R's usual spellings), compared after trimming, case as written
MISSING_WORDS = ("#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                 "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
# a decimal number, ASCII digits only, or an infinity (as spreadsheets and pandas write one); the same pattern
# in Python, RE2 (Arrow, DuckDB) and Java (Spark)
NUMBER = r"[+-]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|inf|Inf|INF|infinity|Infinity|INFINITY)"
TRUE_WORDS, FALSE_WORDS = ("True", "TRUE", "true"), ("False", "FALSE", "false")  # 1 and 0 in a numeric column

MISSING_BIN = -2  # a category bin: the value is missing (-1: outside the list and dropped)
LEFT_OUT = -1

_NUMBER = re.compile(NUMBER)
_MISSING = frozenset(MISSING_WORDS)
_TRUTH = {**{w: 1.0 for w in TRUE_WORDS}, **{w: 0.0 for w in FALSE_WORDS}}


# ---------------------------------------------------------------- one value


@dataclass(frozen=True)
class Cell:
    """One value as the rule reads it: ``kind`` is missing, text, number, truth or date; ``text`` is what a
    categorical column compares as text (a stored number has none, unless the file labels it), ``number`` its
    value where it is one, ``shown`` how the curator's checks write it (a stored number as ``number_text``)."""

    kind: str
    text: str | None = None
    number: float | None = None
    shown: str | None = None

    def __post_init__(self) -> None:
        if self.shown is None and self.text is not None:
            object.__setattr__(self, "shown", self.text)


MISSING_CELL = Cell("missing")


def read_cell(value: Any, labels: Mapping[Any, str] | None = None) -> Cell:
    """The reading of one stored value (a Python object as pandas holds it)."""
    if value is None or value is pd.NA or value is pd.NaT:
        return MISSING_CELL
    if isinstance(value, str):
        return read_text(value, labels)
    if isinstance(value, (bool, np.bool_)):
        return Cell("truth", "True" if value else "False", 1.0 if value else 0.0)
    if isinstance(value, (Number, decimal.Decimal)) and not isinstance(value, complex):
        number = float(value)
        if math.isnan(number):
            return MISSING_CELL
        label = _label(labels, value)
        return Cell("number", label, number, label if label is not None else number_text(value))
    if isinstance(value, (_dt.datetime, _dt.date, pd.Timestamp, np.datetime64)):
        return Cell("date", date_text(value))
    if isinstance(value, bytes):
        return read_text(value.decode("utf-8", errors="replace"), labels)
    return read_text(str(value), labels)


def read_text(value: str, labels: Mapping[Any, str] | None = None) -> Cell:
    text = value.strip(WHITESPACE)
    if not text or text in _MISSING:
        return MISSING_CELL
    label = _label(labels, value) if labels else None
    if label is None and labels:
        label = _label(labels, text)
    if label is not None:
        return Cell("text", label, None)
    return Cell("text", text, float(text) if _NUMBER.fullmatch(text) else None)


def _label(labels: Mapping[Any, str] | None, value: Any) -> str | None:
    if not labels:
        return None
    try:
        found = labels.get(value)
    except TypeError:  # an unhashable value
        return None
    return None if found is None else str(found)


def number_text(value: Any) -> str:
    """A stored number as text: a whole one without a decimal point (1.0 is "1"), others as Python writes
    them shortest (0.1, 1e-07), infinities as inf and -inf."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    number = float(value)
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    if isinstance(value, decimal.Decimal) and value == value.to_integral_value():
        return str(int(value))
    if number == math.floor(number):
        return str(int(number))
    return repr(number)


def date_text(value: Any) -> str:
    """A stored date as text: 2024-01-31, with the time where it is not midnight (UTC for a time zone)."""
    if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return value.isoformat()
    stamp = pd.Timestamp(value)
    if stamp.tzinfo is not None:
        stamp = stamp.tz_convert("UTC").tz_localize(None)
    if stamp == stamp.normalize():
        return stamp.strftime("%Y-%m-%d")
    if stamp.microsecond == 0 and stamp.nanosecond == 0:
        return stamp.strftime("%Y-%m-%d %H:%M:%S")
    return stamp.strftime("%Y-%m-%d %H:%M:%S.%f")


# ---------------------------------------------------------------- the public category list


class CategoryMatcher:
    """Which bin of a categorical column's public list a value falls in, by the rule above."""

    def __init__(self, spec: CategoricalColumn) -> None:
        self.spec = spec
        self.exact = {category: i for i, category in enumerate(spec.categories)}
        by_number: dict[float, list[int]] = {}
        for i, category in enumerate(spec.categories):
            if _NUMBER.fullmatch(category):
                by_number.setdefault(float(category), []).append(i)
        # a number equal to two public categories ("1" and "01") is in neither: only its exact text decides
        self.by_number = {number: found[0] for number, found in by_number.items() if len(found) == 1}
        self.other = len(spec.categories) if spec.outside is OutsideCategories.OTHER else LEFT_OUT

    def bin(self, cell: Cell) -> int:
        if cell.kind == "missing":
            return MISSING_BIN
        found = self.exact.get(cell.text) if cell.text is not None else None
        if found is None and cell.number is not None:
            found = self.by_number.get(cell.number)
        return self.other if found is None else found

    def text_bin(self, text: str) -> int:
        """The bin of a public text, such as the category that replaces missing values."""
        return self.bin(read_text(text))


# ---------------------------------------------------------------- a column (the in-memory engine)


def stored_kind(series: pd.Series) -> str:
    """How a column's values are stored: text, integer, float, truth, date, category or cells (a mix,
    read value by value). Decided from the column's declared type, never from its values' content, except
    that a column of Python objects is text only when every value is a text (then each is read as text
    anyway, value by value)."""
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return "category"
    if pd.api.types.is_bool_dtype(dtype):
        return "truth"
    if pd.api.types.is_integer_dtype(dtype):
        return "integer"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return "date"
    if pd.api.types.is_string_dtype(dtype) and not pd.api.types.is_object_dtype(dtype):
        return "text"
    if pd.api.types.is_object_dtype(dtype) and pd.api.types.infer_dtype(series, skipna=True) in ("string", "empty"):
        return "text"
    return "cells"


def _text_array(series: pd.Series) -> "pa.Array | pa.ChunkedArray":
    """A text column as Arrow's large_string, the type pandas keeps Arrow's text in: its own chunks, not copied (a
    cast to string copied every column of a loaded CSV, and joining the chunks copied it again)."""
    values = series.to_numpy(dtype=object, na_value=None) if pd.api.types.is_object_dtype(series.dtype) else series
    return pa.array(values, type=pa.large_string())


_PIECE_ROWS = 1 << 16  # rows a column is read in at a time by Arrow's kernels: their intermediate arrays stay small


def _pieces(array: "pa.Array | pa.ChunkedArray") -> "list[pa.Array]":
    """``array`` in consecutive pieces of at most ``_PIECE_ROWS`` rows (slices: nothing is copied)."""
    chunks = array.chunks if isinstance(array, pa.ChunkedArray) else [array]
    return [chunk.slice(start, _PIECE_ROWS) for chunk in chunks for start in range(0, len(chunk), _PIECE_ROWS)]


def _trimmed_piece(array: pa.Array) -> pa.Array:
    """Text trimmed, null where the value is missing."""
    text = pc.utf8_trim(array, characters=WHITESPACE)
    missing = pc.or_kleene(pc.equal(text, ""), pc.is_in(text, value_set=pa.array(MISSING_WORDS, pa.large_string())))
    return pc.if_else(pc.fill_null(missing, True), pa.scalar(None, pa.large_string()), text)


def _trimmed(series: pd.Series) -> pa.ChunkedArray:
    """A text column trimmed, null where the value is missing."""
    return pa.chunked_array([_trimmed_piece(piece) for piece in _pieces(_text_array(series))], pa.large_string())


def _unique_cells(series: pd.Series, labels: Mapping[Any, str] | None) -> tuple[np.ndarray, list[Cell]]:
    """Each row's index into the distinct values (-1 missing) and each distinct value's reading."""
    codes, uniques = _distinct(series)
    return codes, [read_cell(value, labels) for value in _listed(uniques)]


def _listed(uniques: "list | pa.Array") -> list:
    return uniques.to_pylist() if isinstance(uniques, pa.Array) else uniques


def _distinct(series: pd.Series) -> "tuple[np.ndarray, list | pa.Array]":
    """Each row's index into the distinct values (-1 missing), and those values (Arrow's text as an Arrow array:
    a list of a million texts takes longer to make than to read)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return np.asarray(series.cat.codes.to_numpy(), dtype=np.int64), list(series.cat.categories)
    if stored_kind(series) == "text" and not pd.api.types.is_object_dtype(series.dtype):  # Arrow's text: its own hash
        # in order of first appearance, as pandas' factorize; the chunks of a chunked column are encoded one after
        # the other with one table of the values seen, so each chunk's dictionary starts with the ones before it and
        # the last chunk's holds them all
        encoded = pc.dictionary_encode(_text_array(series))
        chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
        if not chunks:
            return np.empty(0, dtype=np.int64), pa.array([], pa.large_string())
        codes = np.empty(len(series), dtype=np.int64)
        start = 0
        for chunk in chunks:
            codes[start:start + len(chunk)] = pc.fill_null(chunk.indices, -1).to_numpy(zero_copy_only=False)
            start += len(chunk)
        return codes, chunks[-1].dictionary
    codes, found = pd.factorize(series, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), list(found)


def read_numbers(series: pd.Series, column: str, file_name: str) -> np.ndarray:
    """A numeric column's values as doubles (NaN where missing); a value that is not a number refuses the
    column, naming one such value and how many there are."""
    return counted_numbers(series, column, file_name).checked(column, file_name)


@dataclass(frozen=True)
class NumbersRead:
    """A numeric column's values as doubles (NaN where missing), and how many of its values are not numbers with the
    first of them in file order (its trimmed text): the column is refused when there is any (``values`` then mean
    nothing). A column read in blocks adds up its blocks' counts, and keeps the first block's example that has one."""

    values: np.ndarray
    bad: int = 0
    example: str | None = None

    def checked(self, column: str, file_name: str) -> np.ndarray:
        """The values, or the refusal of the column naming the first value that is not a number and how many."""
        if self.bad:
            _refuse(column, file_name, self.bad, self.example or "")
        return self.values


def counted_numbers(series: pd.Series, column: str, file_name: str) -> NumbersRead:
    """``read_numbers`` without refusing the values that are not numbers: they are counted (a column stored as dates
    is refused at once: that is the file's declaration, no value's)."""
    kind = stored_kind(series)
    if kind in ("integer", "float"):
        return NumbersRead(series.to_numpy(dtype=np.float64, na_value=np.nan))
    if kind == "truth":
        return NumbersRead(series.astype("float64").to_numpy(dtype=np.float64, na_value=np.nan))
    if kind == "date":
        raise SchemaError(
            f"Column '{column}' in {file_name} is described as numeric, but the file stores dates in it. "
            "Describe it as categorical or ignored."
        )
    if kind == "text" and _mostly_distinct(series):
        return _text_numbers(series)  # an amount, an id: read at once by Arrow's kernels
    codes, uniques = _distinct(series)
    if kind == "text" and len(uniques) > max(len(series) // _DISTINCT_SHARE, _FEW_VALUES):
        return _text_numbers(series)  # mostly distinct values: read at once by Arrow's kernels
    cells = [read_cell(value) for value in _listed(uniques)]
    bad = np.array([c.kind == "date" or (c.kind == "text" and c.number is None and c.text not in _TRUTH)
                    for c in cells] + [False])
    if bad.any():  # the distinct values in order of first appearance: the first bad one is the file's first
        return NumbersRead(np.empty(0), int(bad[codes].sum()), next(c.text or "" for c, b in zip(cells, bad) if b))
    values = [np.nan if c.kind == "missing" else _TRUTH[c.text] if c.number is None else c.number for c in cells]
    return NumbersRead(np.append(np.asarray(values, dtype=np.float64), np.nan)[codes])


# a column of text is read value by distinct value (each the same reading) unless most of its values are distinct
_DISTINCT_SHARE, _FEW_VALUES = 4, 1000
_SAMPLE_ROWS = 1 << 16  # the first rows: where most of them are distinct, the column is read by Arrow's kernels at once


def _mostly_distinct(series: pd.Series) -> bool:
    """Whether most of a text column's first ``_SAMPLE_ROWS`` values are distinct (of a shorter column, a block of a
    file prepared as it is read: its first ``_SHORT_SAMPLE_ROWS``): then finding every distinct value of the column
    (a hash of each) would be work thrown away. Either way each value is read the same."""
    if pd.api.types.is_object_dtype(series.dtype):
        return False
    rows = _SAMPLE_ROWS if len(series) > _SAMPLE_ROWS else _SHORT_SAMPLE_ROWS if len(series) > 4 * _FEW_VALUES else 0
    if not rows:
        return False
    sample = pa.array(series.iloc[:rows], type=pa.large_string())
    return pc.count_distinct(sample).as_py() > max(rows // 2, _FEW_VALUES)


_SHORT_SAMPLE_ROWS = 1 << 12  # a block of 60,000 incomes: its first 4,096 counted in 4 ms, where finding the
# distinct values of all took 18 ms


def _text_numbers(series: pd.Series) -> NumbersRead:
    """``read_numbers`` of a text column by Arrow's kernels, row by row: for columns of mostly distinct values. Read a
    piece at a time (``_pieces``), each value by itself as ever: the intermediate arrays of a whole column (its
    trimmed text, the texts of its numbers) took 150 MB for a column of 2,000,000 amounts."""
    out = np.empty(len(series), dtype=np.float64)
    count, example, start = 0, None, 0
    truth_words = pa.array(list(_TRUTH), pa.large_string())
    for piece in _pieces(_text_array(series)):
        into, start = out[start:start + len(piece)], start + len(piece)
        text = _trimmed_piece(piece)
        is_number = pc.fill_null(pc.match_substring_regex(text, f"^(?:{NUMBER})$"), False)
        truth = pc.fill_null(pc.is_in(text, value_set=truth_words), False)
        bad = pc.and_(pc.is_valid(text), pc.invert(pc.or_(is_number, truth)))
        found = pc.sum(bad).as_py() or 0
        if found and example is None:
            example = pc.filter(text, bad)[0].as_py()  # the first in file order
        count += found
        if count:
            continue  # refused: the rest is only counted
        values = pc.cast(pc.if_else(is_number, text, pa.scalar(None, pa.large_string())), pa.float64())
        into[:] = values.to_numpy(zero_copy_only=False)
        into[np.asarray(pc.is_null(values))] = np.nan
        if pc.any(truth).as_py():
            truths = np.asarray(truth.to_numpy(zero_copy_only=False), dtype=bool)
            words = np.asarray(text.to_numpy(zero_copy_only=False), dtype=object)
            into[truths] = [_TRUTH[w] for w in words[truths]]
    return NumbersRead(out, count, example)


def _refuse(column: str, file_name: str, count: int, example: str) -> None:
    raise SchemaError(
        f"Column '{column}' in {file_name} is described as numeric, but {count:,} of its values "
        f"{'is' if count == 1 else 'are'} not numbers (for example '{example}'). A number is written with "
        "digits, a decimal point and an optional sign or exponent (-3, 0.5, 1e3). Describe the column as "
        "categorical or ignored, or correct those values in the file (leave a cell empty for a missing value)."
    )


def category_bins(series: pd.Series, spec: CategoricalColumn, labels: Mapping[Any, str] | None = None) -> np.ndarray:
    """Each row's bin in ``spec.bins`` (``LEFT_OUT``: outside the list and dropped; ``MISSING_BIN``: missing)."""
    matcher = CategoryMatcher(spec)  # read by distinct value: a categorical column holds few
    codes, cells = _unique_cells(series, labels)
    lookup = np.array([matcher.bin(cell) for cell in cells] + [MISSING_BIN], dtype=np.int64)
    return lookup[codes]


def value_texts(series: pd.Series, labels: Mapping[Any, str] | None = None) -> pd.Series:
    """Each row's text as a categorical column compares it (None where missing). For the curator's checks
    and for identifiers; never released."""
    if stored_kind(series) == "text" and not labels:
        return pd.Series(_trimmed(series).to_numpy(zero_copy_only=False), index=series.index, dtype=object)
    codes, cells = _unique_cells(series, labels)
    texts = np.array([cell.shown for cell in cells] + [None], dtype=object)
    return pd.Series(texts[codes], index=series.index, dtype=object)


def person_keys(series: pd.Series) -> pd.Series:
    """Each row's person, as the identifier rule reads it (None: no id, the row belongs to nobody known). A
    column of stored numbers is grouped by the numbers themselves: the same persons as their texts, faster."""
    if stored_kind(series) in ("integer", "float"):
        return pd.Series(series.to_numpy(dtype=object, na_value=None), index=series.index, dtype=object)
    return value_texts(series)


def person_ranks(series: pd.Series) -> np.ndarray:
    """Each row's place among its person's rows in file order (0: the person's first row), -1 for a row with no id;
    the persons as ``person_keys`` tells them apart. A text column's trimmed texts are put in order by Arrow's
    stable sort, never made into Python strings nor hashed (2,000,000 ids took 2.5 s and 330 MB as strings grouped by
    pandas, 1.3 s and 190 MB by Arrow's hash of them)."""
    if stored_kind(series) == "text" and not pd.api.types.is_object_dtype(series.dtype):
        text = _trimmed(series)
        order = pc.sort_indices(text)  # stable: a person's rows stay in file order (a missing id: its own run)
        ordered = pc.take(text, order)
        new_person = np.ones(len(text), dtype=bool)
        if len(text) > 1:  # where a text differs from the one before it (a missing one: always)
            new_person[1:] = ~pc.fill_null(pc.equal(ordered.slice(1), ordered.slice(0, len(text) - 1)),
                                           False).to_numpy(zero_copy_only=False)
        ranks = _ranks(order.to_numpy(zero_copy_only=False), new_person)
        ranks[np.asarray(pc.is_null(text))] = -1
        return ranks
    if stored_kind(series) == "integer" and series.dtype.kind in "iu":  # whole numbers: equal as Python's are
        codes = pd.factorize(series.to_numpy(), use_na_sentinel=True)[0]
    else:
        codes = pd.factorize(person_keys(series).to_numpy(dtype=object), use_na_sentinel=True)[0]
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    new_person = np.ones(len(codes), dtype=bool)
    new_person[1:] = ordered[1:] != ordered[:-1]
    ranks = _ranks(order, new_person)
    ranks[codes < 0] = -1
    return ranks


def _ranks(order: np.ndarray, new_person: np.ndarray) -> np.ndarray:
    """Each row's place within its run of rows in ``order`` (the rows sorted by person, stably), where
    ``new_person`` marks the first row of each run, put back in file order."""
    places = np.arange(len(order), dtype=np.int64)
    ranks = np.empty(len(order), dtype=np.int64)
    ranks[order] = places - np.maximum.accumulate(np.where(new_person, places, 0))
    return ranks


def missing_count(series: pd.Series, labels: Mapping[Any, str] | None = None) -> int:
    """How many values of a column the rule reads as missing."""
    return int(value_texts(series, labels).isna().sum())


@dataclass(frozen=True)
class CategoryPresence:
    """Which public categories a column's values fall in, and the texts of the values in none of them, as the
    rule reads every row of the file (before any row is left out or imputed). Private: for the curator's check
    of the public lists before a release (``release.category_check``), never released."""

    categories: frozenset[int]  # positions in the public list that hold at least one row
    outside: frozenset[str]  # the texts of values outside the list
    any_value: bool  # whether any value is present at all


def category_presence(series: pd.Series, spec: CategoricalColumn, labels: Mapping[Any, str] | None = None,
                      bins: np.ndarray | None = None) -> CategoryPresence:
    """``bins``: the column's ``category_bins``, where they are read already (a file prepared as it is read)."""
    bins = category_bins(series, spec, labels) if bins is None else bins
    # the bins present, by counting (bins run from MISSING_BIN up): a sort of every row's took twice as long
    present = set((np.flatnonzero(np.bincount(bins - MISSING_BIN)) + MISSING_BIN).tolist()) if len(bins) else set()
    listed = frozenset(b for b in present if 0 <= b < len(spec.categories))
    outside_rows = (bins >= len(spec.categories)) | (bins == LEFT_OUT)
    outside = frozenset(t for t in value_texts(series[outside_rows], labels).dropna().unique().tolist())
    return CategoryPresence(listed, outside, bool((bins != MISSING_BIN).any()))


def merged(first: CategoryPresence, second: CategoryPresence, limit: int = 10_000) -> CategoryPresence:
    """The presence over two parts of a file (a file read block by block)."""
    outside = first.outside | second.outside
    if len(outside) > limit:  # the check needs the spellings, not every one of a free-text column's values
        outside = frozenset(sorted(outside)[:limit])
    return CategoryPresence(first.categories | second.categories, outside, first.any_value or second.any_value)
