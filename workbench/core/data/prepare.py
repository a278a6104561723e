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

from dataclasses import dataclass

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
from workbench.core.data.reading import MISSING_BIN, CategoryMatcher, category_bins, person_keys, read_numbers
from workbench.core.data.schema import CategoricalColumn, MissingAction, NumericColumn, Schema
from workbench.core.errors import Place, SchemaError


@dataclass(frozen=True, eq=False)
class PreparedData:
    """Clamped, truncated values of the described columns: numbers (NaN where missing), and for a categorical
    column its bin in the public list (-1: outside the list and dropped; NaN where missing). Private: never
    export or print."""

    frame: pd.DataFrame
    schema: Schema

    def numeric(self, column: str) -> np.ndarray:
        """Clamped values of the rows where ``column`` is present."""
        values = self.frame[column].to_numpy(dtype=np.float64)
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
        return len(self.frame)

    def aggregate(self, request: Aggregate) -> Answer:
        """The exact answer to ``request``, computed by numpy on the prepared rows."""
        rows = self.complete(request.rows)
        codes = np.zeros(len(rows), dtype=np.int64)
        for part in request.parts:
            own = part_codes(part, rows)
            codes = np.where((codes >= 0) & (own >= 0), codes * part.size + own, -1)
        keep = codes >= 0
        if request.value is None:
            if request.size <= _DENSE_CELLS:
                counts = np.bincount(codes[keep], minlength=request.size)
                cells = np.flatnonzero(counts)
                return Answer(cells, counts[cells].tolist(), request.size)
            cells, counts = np.unique(codes[keep], return_counts=True)
            return Answer(cells, counts.tolist(), request.size)
        values = np.asarray(evaluate(request.value, rows), dtype=np.int64)
        codes, values = codes[keep], values[keep]
        if request.size <= _DENSE_CELLS and len(codes) < 1 << 30:
            cells, totals = exact_sums_by_cell(codes, values, request.size)
            return Answer(cells, totals, request.size)
        order = np.argsort(codes, kind="stable")
        codes, values = codes[order], values[order]
        starts = np.flatnonzero(np.diff(codes, prepend=-1))
        ends = np.append(starts[1:], len(codes))
        return Answer(codes[starts], [exact_sum(values[a:b]) for a, b in zip(starts, ends)], request.size)


_DENSE_CELLS = 1 << 22  # up to this many cells, count by an array of them all; beyond, by sorting the rows' cells


def evaluate(expression: Expression, rows: pd.DataFrame) -> np.ndarray:
    """``expression`` on every row of ``rows``, by numpy: the arithmetic every engine repeats exactly."""
    if isinstance(expression, Column):
        return rows[expression.name].to_numpy(dtype=np.float64)
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


def part_codes(part: CellPart, rows: pd.DataFrame) -> np.ndarray:
    """Each row's index within one part of a cell (-1: left out)."""
    if isinstance(part, Categories):  # prepared as the bin of the schema's description of the column
        return np.nan_to_num(rows[part.column].to_numpy(dtype=np.float64), nan=-1).astype(np.int64)
    values = rows[part.column].to_numpy(dtype=np.float64)
    if isinstance(part, Bins):
        return np.searchsorted(np.asarray(part.edges, dtype=np.float64), values, side="right").astype(np.int64)
    assert isinstance(part, RankSlots)
    candidates = np.asarray(part.candidates, dtype=np.float64)
    below = np.searchsorted(candidates, values, side="left")
    equal = candidates[np.minimum(below, len(candidates) - 1)] == values
    return (2 * below + (equal & (below < len(candidates)))).astype(np.int64)


def prepare(table: Table, schema: Schema) -> PreparedData:
    """Validate the schema against the table and apply it (steps 1 to 5 above)."""
    schema.validate()
    check_columns_exist(table, schema)
    frame = kept_rows(table, schema)

    columns: dict[str, np.ndarray] = {}
    for spec in schema.columns:
        if isinstance(spec, NumericColumn):
            values = read_numbers(frame[spec.name], spec.name, table.source.name)
            if spec.missing.action is MissingAction.IMPUTE:
                values = np.where(np.isnan(values), float(spec.missing.value), values)
            with np.errstate(invalid="ignore"):
                columns[spec.name] = np.where(values < spec.lower, float(spec.lower),
                                              np.where(values > spec.upper, float(spec.upper), values))
        elif isinstance(spec, CategoricalColumn):
            bins = category_bins(frame[spec.name], spec, table.label_maps.get(spec.name)).astype(np.float64)
            if spec.missing.action is MissingAction.IMPUTE:
                bins[bins == MISSING_BIN] = CategoryMatcher(spec).text_bin(str(spec.missing.value))
            bins[bins == MISSING_BIN] = np.nan
            columns[spec.name] = bins
    prepared = pd.DataFrame(columns, index=range(len(frame)))
    return PreparedData(frame=prepared, schema=schema)


def kept_rows(table: Table, schema: Schema) -> pd.DataFrame:
    """The rows a statistic may read (steps 2 and 3 above): those with an id, each person's first k in file order."""
    frame = table.frame
    id_column = schema.unit.id_column
    if id_column is None:
        return frame
    keys = person_keys(frame[id_column])
    known = keys.notna().to_numpy()
    frame, keys = frame.loc[known], keys[known]
    rank_within_person = keys.groupby(keys, sort=False).cumcount().to_numpy()
    return frame.loc[rank_within_person < schema.k]


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
