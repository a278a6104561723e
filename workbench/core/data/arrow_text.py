"""Read a UTF-8 text table with Arrow's multi-threaded CSV reader, typed exactly as pandas' C parser types it.

pandas' C parser reads on one core; Arrow's reader parses blocks on all of them. The columns must come
out as pandas would type them: the out-of-core engines imitate pandas' typing, and a release must give
the same exact answers whichever engine read the file. Arrow types a few spellings differently from
pandas (ISO dates, "+3", "Infinity", integers beyond 64 bits, blank cells among numbers). Dates are read
again as text; for every other column that could be one of these, ``read_like_pandas`` returns None and
the caller reads the file with pandas, so the odd file is slower, never typed differently.
"""

from __future__ import annotations

from collections import Counter
from typing import BinaryIO, Callable

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv

# pandas' default missing-value spellings (pandas._libs.parsers.STR_NA_VALUES, copied so that a private
# name is not imported; tests check they are still the same); the SQL engines type text by them too
PANDAS_MISSING = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
                  "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
_TRUE, _FALSE = ("True", "TRUE", "true"), ("False", "FALSE", "false")
# A text that pandas might read as a number or a truth value, or a blank line that it skips: a text
# column whose every value looks like this may be typed otherwise by pandas
_MIGHT_BE_TYPED = r"(?i)^\s*([+-]?(\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?|inf(inity)?|nan)|true|false)?\s*$"
_FIRST_VALUES = 4096  # a text column's first values, checked before all of its distinct values

Opener = Callable[[], BinaryIO]
"""Opens the file afresh (a watched file reports progress, and stops the reading when cancelled)."""


def read_like_pandas(open_file: Opener, delimiter: str, quoted: bool = True) -> pd.DataFrame | None:
    """The table typed as ``pandas.read_csv(engine="c")`` would type it, or None where Arrow cannot say
    that (a row with too many fields, invalid UTF-8, a column Arrow may type otherwise, no rows): then
    pandas reads the file, and gives its own messages. ``quoted=False`` says the file has no quotation
    marks, so no value holds a line break: Arrow then splits it into blocks at any line break, faster."""
    if len(delimiter) != 1:
        return None
    table = _read(open_file, delimiter, quoted, {})
    if table is None:
        return None
    as_text = {name: pa.string() for name, column in zip(table.column_names, table.columns) if not _plain(column.type)}
    if as_text:  # dates and times, which pandas leaves as text
        table = _read(open_file, delimiter, quoted, as_text)
        if table is None or not all(_plain(column.type) for column in table.columns):
            return None
    names = table.column_names
    repeated = {name for name, times in Counter(names).items() if times > 1}
    if table.num_rows == 0 or any(not _typed_as_pandas_would(table.column(i), names[i], names[i] not in repeated,
                                                             open_file, delimiter) for i in range(table.num_columns)):
        return None
    empty = [i for i, column in enumerate(table.columns) if column.null_count == table.num_rows]
    truths_missing = [i for i, column in enumerate(table.columns)
                      if pa.types.is_boolean(column.type) and 0 < column.null_count < table.num_rows]
    # one block per column saves a copy of a long table; a wide one converts far faster into few blocks
    frame = table.to_pandas(split_blocks=table.num_columns <= 100, self_destruct=True)
    del table
    for position in empty:  # an empty column: pandas reads it as numbers, all NaN
        frame.isetitem(position, frame.iloc[:, position].astype(float))
    for position in truths_missing:  # truth values with missing ones: pandas writes NaN where Arrow writes None
        column = frame.iloc[:, position]
        frame.isetitem(position, column.where(column.notna(), float("nan")))
    return frame


def _read(open_file: Opener, delimiter: str, quoted: bool, column_types: dict[str, pa.DataType]) -> pa.Table | None:
    options = (
        pa_csv.ReadOptions(use_threads=True),
        pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=quoted),
        pa_csv.ConvertOptions(column_types=column_types, null_values=list(PANDAS_MISSING), strings_can_be_null=True,
                              quoted_strings_can_be_null=True, true_values=list(_TRUE), false_values=list(_FALSE)),
    )
    with open_file() as source:
        try:
            return pa_csv.read_csv(source, *options)
        except pa.ArrowInvalid:  # a parse or conversion error: pandas reads it again and names the problem
            return None


def _plain(kind: pa.DataType) -> bool:
    return (pa.types.is_int64(kind) or pa.types.is_float64(kind) or pa.types.is_boolean(kind)
            or pa.types.is_string(kind) or pa.types.is_null(kind))


def _typed_as_pandas_would(column: pa.ChunkedArray, name: str, unique_name: bool, open_file: Opener,
                           delimiter: str) -> bool:
    kind = column.type
    if pa.types.is_string(kind):
        return not _all_match(column.slice(0, _FIRST_VALUES)) or not _all_match(pc.unique(column))
    if pa.types.is_float64(kind):
        if not _all_true(pc.is_finite(column)):  # "Infinity", "INF", "1.#INF": pandas decides
            return False
        if column.null_count == 0 and _all_true(pc.equal(pc.floor(column), column)):
            # whole numbers that pandas reads as integers unless one is written with a point ("3.0"): "+3",
            # or beyond 64 bits
            return unique_name and _some_written_with_point(open_file, delimiter, name)
    return True


def _all_match(texts: pa.ChunkedArray | pa.Array) -> bool:
    return _all_true(pc.match_substring_regex(texts, _MIGHT_BE_TYPED))


def _all_true(flags: pa.ChunkedArray | pa.Array) -> bool:
    return pc.all(flags).as_py() is not False  # nulls are skipped; no values at all is "all"


def _some_written_with_point(open_file: Opener, delimiter: str, name: str) -> bool:
    options = pa_csv.ConvertOptions(include_columns=[name], column_types={name: pa.string()})
    with open_file() as source:
        texts = pa_csv.read_csv(source, parse_options=pa_csv.ParseOptions(delimiter=delimiter, newlines_in_values=True),
                                convert_options=options)
    return not _all_true(pc.invert(pc.match_substring_regex(texts.column(0), r"[.eE]")))
