"""Apply a Schema to a Table: the rows and values every statistic is computed from.

The steps, in this order, each a function of one person's own rows only (so that the
sensitivities in ``sensitivity`` hold):

1. Each value is read by itself, its column's public description and what the file declares
   (``reading``): never by what other rows hold.
2. Under a person-level unit, rows with no id are left out (they belong to nobody known).
3. Each person keeps their first k rows in file order; later rows are left out.
4. Missing values in "impute" columns are replaced by the public value; missing values in
   "drop" columns stay missing, and each statistic leaves out the rows missing in its
   own columns (complete cases per statistic).
5. Numeric values are clamped into their public bounds; categorical values become their bin
   in the public list.

The result is private data: it stays in memory and is read only by ``statistics``, through
``PreparedData.aggregate`` (the in-memory engine; ``out_of_core`` is the other, on the file itself).
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from workbench.core.data.aggregates import (
    Aggregate,
    Answer,
    Arithmetic,
    Bins,
    Categories,
    CellPart,
    Clip,
    Column,
    Constant,
    Expression,
    RankSlots,
    Rint,
    exact_sum,
    exact_sums_by_cell,
)
from workbench.core.data.io import Table
from workbench.core.data.reading import (
    LEFT_OUT,
    MISSING_BIN,
    CategoryMatcher,
    category_bins,
    person_ranks,
    read_numbers,
)
from workbench.core.data.schema import CategoricalColumn, MissingAction, NumericColumn, Schema
from workbench.core.errors import Place, SchemaError


class PreparedData:
    """Clamped, truncated values of the described columns: numbers (NaN where missing), and for a categorical
    column its bin in the public list (-1: outside the list and dropped; NaN where missing). Private: never
    export or print.

    ``prepare`` keeps the columns as numpy arrays (``frame`` shows them as a data frame, for the tests that
    compare engines), a categorical column's bins as the smallest integers that hold them (``MISSING_BIN`` where
    missing: a byte a row where doubles took eight, and again for its codes); a data frame of prepared values may
    be given instead. What several statistics of a plan read alike (a column's values and presence, its category
    codes, the rows complete in a set of columns) is computed once and kept: the prepared values never change, so
    each answer is the one computed afresh."""

    def __init__(self, frame: pd.DataFrame | None = None, schema: Schema | None = None, *,
                 columns: Mapping[str, np.ndarray] | None = None, length: int | None = None) -> None:
        if (frame is None) == (columns is None) or schema is None:
            raise TypeError("PreparedData takes a schema and either a frame or columns with their length")
        self.schema = schema
        self._frame = frame
        self._columns: dict[str, np.ndarray] = dict(columns or {})
        self._length = len(frame) if frame is not None else int(length or 0)
        self._cache: dict = {}

    @property
    def frame(self) -> pd.DataFrame:
        """The prepared values as a data frame, one column per described column, rows in file order. Private."""
        if self._frame is None:
            self._frame = pd.DataFrame({name: self._values(name) for name in self._columns}, index=range(self._length))
        return self._frame

    def _bins(self, column: str) -> np.ndarray | None:
        """A categorical column's bins as ``prepare`` keeps them (integers, ``MISSING_BIN`` where missing), if so."""
        values = self._columns.get(column)
        return values if values is not None and values.dtype.kind == "i" else None

    def _values(self, column: str) -> np.ndarray:
        """A column's prepared values as doubles, every row (a categorical column's bins: made afresh, not kept)."""
        if column not in self._columns:
            assert self._frame is not None
            self._columns[column] = self._frame[column].to_numpy(dtype=np.float64)
        bins = self._bins(column)
        if bins is not None:
            return np.where(bins == MISSING_BIN, np.nan, bins.astype(np.float64))
        return self._columns[column]

    def numeric(self, column: str) -> np.ndarray:
        """Clamped values of the rows where ``column`` is present."""
        values = self._values(column)
        return values[~np.isnan(values)]

    def prepared_rows(self) -> pd.DataFrame:
        """Every kept row's prepared values, in file order (for the tests that compare engines). Private."""
        return self.frame

    def complete(self, columns: tuple[str, ...]) -> pd.DataFrame:
        """The rows where all of ``columns`` are present (complete cases for one statistic)."""
        if not columns:
            return self.frame
        names = list(dict.fromkeys(columns))  # a histogram of a column by that column reads it once
        return self.frame.loc[self.frame[names].notna().all(axis=1).to_numpy(), names]

    @property
    def rows(self) -> int:
        """Rows after the privacy unit is applied. Private: a count must be released with noise."""
        return self._length

    def _complete_rows(self, columns: tuple[str, ...]) -> np.ndarray | None:
        """The positions of the rows where all of ``columns`` are present, ascending (None: every row)."""
        names = tuple(sorted(set(columns)))
        key = ("complete", names)
        if key not in self._cache:
            present = None
            for name in names:
                missing = self._missing(name)
                if missing is not None:
                    present = ~missing if present is None else present & ~missing
            # as 32-bit positions where they fit: half the memory of numpy's own, the same rows
            self._cache[key] = None if present is None or present.all() else \
                np.flatnonzero(present).astype(np.int32 if self._length < 2**31 else np.int64)
        return self._cache[key]

    def _missing(self, column: str) -> np.ndarray | None:
        """Where ``column`` is missing (None: nowhere)."""
        key = ("missing", column)
        if key not in self._cache:
            bins = self._bins(column)
            missing = bins == MISSING_BIN if bins is not None else np.isnan(self._values(column))
            self._cache[key] = missing if missing.any() else None
        return self._cache[key]

    def _category_codes(self, column: str) -> np.ndarray:
        """A categorical column's bins as integers (-1: outside the list and dropped, or missing; as small as the
        bins kept, widened where cells are made of them)."""
        key = ("codes", column)
        if key not in self._cache:
            bins = self._bins(column)
            self._cache[key] = np.where(bins == MISSING_BIN, bins.dtype.type(LEFT_OUT), bins) if bins is not None \
                else np.nan_to_num(self._values(column), nan=-1).astype(np.int64)
        return self._cache[key]

    def aggregate(self, request: Aggregate) -> Answer:
        """The exact answer to ``request``, computed by numpy on the prepared rows."""
        kept = self._complete_rows(request.rows) if request.rows else None
        rows = _Rows(self._values, kept, request.rows)
        length = self.rows if kept is None else len(kept)
        codes = None
        for part in request.parts:
            if isinstance(part, Categories):  # the same codes for every statistic that reads this column
                own = self._category_codes(part.column)
                own = own if kept is None else own[kept]
            else:
                own = part_codes(part, rows)
            # the first part alone: 0 * size + own where own is kept; cells as 64-bit integers whatever the codes' own
            codes = np.where(own >= 0, own, -1).astype(np.int64, copy=False) if codes is None else \
                np.where((codes >= 0) & (own >= 0), codes * part.size + own, -1)
        if codes is None and request.value is None:  # one cell, which every row is in
            counts = np.array([length], dtype=np.int64)
            cells = np.flatnonzero(counts)
            return Answer(cells, counts[cells].tolist(), request.size)
        if codes is None:
            codes = np.zeros(length, dtype=np.int64)
        keep = codes >= 0
        keep = None if keep.all() else keep  # no row left out: the rows are read as they are, not copied
        if request.value is None:
            if request.size <= _DENSE_CELLS:
                counts = np.bincount(codes if keep is None else codes[keep], minlength=request.size)
                cells = np.flatnonzero(counts)
                return Answer(cells, counts[cells].tolist(), request.size)
            cells, counts = np.unique(codes if keep is None else codes[keep], return_counts=True)
            return Answer(cells, counts.tolist(), request.size)
        values = np.asarray(evaluate(request.value, rows), dtype=np.int64)
        if keep is not None:
            codes, values = codes[keep], values[keep]
        if request.size <= _DENSE_CELLS and len(codes) < 1 << 30:
            cells, totals = exact_sums_by_cell(codes, values, request.size)
            return Answer(cells, totals, request.size)
        order = np.argsort(codes, kind="stable")
        codes, values = codes[order], values[order]
        starts = np.flatnonzero(np.diff(codes, prepend=-1))
        ends = np.append(starts[1:], len(codes))
        return Answer(codes[starts], [exact_sum(values[a:b]) for a, b in zip(starts, ends)], request.size)


class _Rows:
    """The prepared columns at the rows ``kept`` (None: all rows), each column taken once when first read: what
    ``evaluate`` and ``part_codes`` read, as they read a data frame's columns."""

    def __init__(self, values: Callable[[str], np.ndarray], kept: np.ndarray | None,
                 complete_in: Sequence[str] = ()) -> None:
        self._values, self._kept, self._taken, self._complete_in = values, kept, {}, frozenset(complete_in)

    def __getitem__(self, name: str) -> np.ndarray:
        if self._complete_in and name not in self._complete_in:
            # the rows kept are complete in these columns only: another one's missing values would become
            # INT64_MIN in an exact sum, where the request's own rows list would have named it
            raise KeyError(f"column {name!r} is read but not among the request's complete columns")
        if name not in self._taken:
            values = self._values(name)
            self._taken[name] = values if self._kept is None else values[self._kept]
        return self._taken[name]


def _doubles(rows: "pd.DataFrame | _Rows", column: str) -> np.ndarray:
    return np.asarray(rows[column], dtype=np.float64)


_DENSE_CELLS = 1 << 22  # up to this many cells, count by an array of them all; beyond, by sorting the rows' cells


def evaluate(expression: Expression, rows: "pd.DataFrame | _Rows") -> np.ndarray:
    """``expression`` on every row of ``rows``, by numpy: the arithmetic every engine repeats exactly."""
    if isinstance(expression, Column):
        return _doubles(rows, expression.name)
    if isinstance(expression, Constant):
        return np.asarray(expression.value)
    if isinstance(expression, Arithmetic):
        left, right = evaluate(expression.left, rows), evaluate(expression.right, rows)
        if expression.operator == "+":
            return left + right
        if expression.operator == "-":
            return left - right
        if expression.operator == "*":
            return left * right
        return left / right
    if isinstance(expression, Rint):
        return np.rint(evaluate(expression.argument, rows)).astype(np.int64)
    if isinstance(expression, Clip):
        return np.clip(evaluate(expression.argument, rows), expression.lower, expression.upper)
    raise TypeError(f"not an expression: {expression!r}")


def part_codes(part: CellPart, rows: "pd.DataFrame | _Rows") -> np.ndarray:
    """Each row's index within one part of a cell (-1: left out)."""
    if isinstance(part, Categories):  # prepared as the bin of the schema's description of the column
        return np.nan_to_num(_doubles(rows, part.column), nan=-1).astype(np.int64)
    values = _doubles(rows, part.column)
    if isinstance(part, Bins):
        return np.searchsorted(np.asarray(part.edges, dtype=np.float64), values, side="right").astype(np.int64)
    assert isinstance(part, RankSlots)
    candidates = np.asarray(part.candidates, dtype=np.float64)
    below = _left_positions(candidates, values).astype(np.int64, copy=False)
    equal = candidates[np.minimum(below, len(candidates) - 1)] == values
    equal &= below < len(candidates)
    below *= 2  # in place: three arrays of a row each fewer at once (a quantile of 2,000,000 rows: 48 MB)
    below += equal
    return below


def _left_positions(candidates: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(candidates, values, side="left")``, for many values among evenly spaced candidates (a
    quantile's): each value's position guessed from the spacing and kept only where its neighbours confirm it
    (c[g - 1] < v <= c[g], which holds for the left position alone); the values the guess misses are searched
    for. Four times faster than searching every value, and the same positions."""
    m = len(candidates)
    if m < 3 or len(values) < _GUESSED_FROM:
        return np.searchsorted(candidates, values, side="left")
    first, last = float(candidates[0]), float(candidates[-1])
    step = (last - first) / (m - 1)
    if not (math.isfinite(step) and step > 0) or not np.allclose(np.diff(candidates), step, rtol=1e-6, atol=0.0):
        return np.searchsorted(candidates, values, side="left")  # not evenly spaced (a bounds search's)
    with np.errstate(invalid="ignore", over="ignore"):
        guess = np.ceil((values - first) * (1.0 / step))
        np.clip(guess, 0, m, out=guess)
        guess[np.isnan(guess)] = 0
        positions = guess.astype(np.int64)
        del guess
        padded = np.concatenate(([-np.inf], candidates, [np.inf]))  # padded[g] = c[g - 1], padded[g + 1] = c[g]
        confirmed = padded[positions] < values
        positions += 1  # in place and back: no array of a row each more
        confirmed &= values <= padded[positions]
        positions -= 1
        missed = np.flatnonzero(~confirmed)
    if len(missed):
        positions[missed] = np.searchsorted(candidates, values[missed], side="left")
    return positions


_GUESSED_FROM = 1 << 12  # values: below this many, searching is as fast


def prepare(table: Table, schema: Schema) -> PreparedData:
    """Validate the schema against the table and apply it (steps 1 to 5 above)."""
    schema.validate()
    check_columns_exist(table, schema)
    frame = kept_rows(table, schema)

    columns: dict[str, np.ndarray] = {}
    for spec in schema.columns:
        if isinstance(spec, NumericColumn):
            columns[spec.name] = prepared_numbers(read_numbers(frame[spec.name], spec.name, table.source.name), spec)
        elif isinstance(spec, CategoricalColumn):
            columns[spec.name] = prepared_bins(category_bins(frame[spec.name], spec, table.label_maps.get(spec.name)),
                                               spec)
    return PreparedData(schema=schema, columns=columns, length=len(frame))


def prepared_numbers(values: np.ndarray, spec: NumericColumn) -> np.ndarray:
    """A numeric column's values read (NaN where missing) as a statistic reads them (steps 4 and 5 above): missing
    ones imputed where the column says so, all clamped into the public bounds. Value by value."""
    if spec.missing.action is MissingAction.IMPUTE:
        values = np.where(np.isnan(values), float(spec.missing.value), values)
    with np.errstate(invalid="ignore"):
        return np.where(values < spec.lower, float(spec.lower), np.where(values > spec.upper, float(spec.upper), values))


def prepared_bins(bins: np.ndarray, spec: CategoricalColumn) -> np.ndarray:
    """A categorical column's bins (``category_bins``) as a statistic reads them (steps 4 and 5 above): missing ones
    imputed where the column says so, as the smallest integers that hold them (``MISSING_BIN`` where missing)."""
    out = bins.astype(_smallest_integers(len(spec.categories) + 1))
    if spec.missing.action is MissingAction.IMPUTE:  # a bin of the list, or LEFT_OUT: held by the same integers
        out[bins == MISSING_BIN] = CategoryMatcher(spec).text_bin(str(spec.missing.value))
    return out


def _smallest_integers(largest: int) -> type:
    """The smallest signed integer type that holds the bins up to ``largest`` (and ``MISSING_BIN``)."""
    return next(t for t in (np.int8, np.int16, np.int32) if largest <= np.iinfo(t).max) if largest < 2**31 else np.int64


def kept_rows(table: Table, schema: Schema) -> pd.DataFrame:
    """The rows a statistic may read (steps 2 and 3 above): those with an id, each person's first k in file order;
    under a person-level unit, of the schema's columns only (the others are not copied)."""
    frame = table.frame
    id_column = schema.unit.id_column
    if id_column is None:
        return frame
    rank_within_person = person_ranks(frame[id_column])  # -1: no id
    keep = (rank_within_person >= 0) & (rank_within_person < schema.k)
    names = list(dict.fromkeys(spec.name for spec in schema.columns))
    return frame[names] if keep.all() else frame.loc[keep, names]


def check_columns_exist(table: Table, schema: Schema) -> None:
    """Every described column must be in the file; otherwise the plan is for other data."""
    present = set(table.columns)
    absent = [spec.name for spec in schema.columns if spec.name not in present]
    if absent:
        listed = ", ".join(f"'{name}'" for name in absent)
        raise SchemaError(
            f"The plan describes {listed}, which {'is' if len(absent) == 1 else 'are'} not in {table.source.name}. "
            f"That file has the columns {_some(table.columns)}. Is the plan meant for another dataset? "
            "Open the right file, or edit the plan's column names.",
            place=Place("columns", "kind", absent[0]),  # the plan's names to edit (or File > Open: both named)
        )


def _some(names: tuple[str, ...], shown: int = 20) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown:,} more" if len(names) > shown else "")
