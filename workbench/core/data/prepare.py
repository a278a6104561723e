"""Apply a Schema to a Table: the rows and values every statistic is computed from.

The steps, in this order, each a function of one person's own rows only (so that the
sensitivities in ``sensitivity`` hold):

1. Under a person-level unit, rows with no id are left out (they belong to nobody known).
2. Each person keeps their first k rows in file order; later rows are left out.
3. Missing values in "impute" columns are replaced by the public value; missing values in
   "drop" columns stay missing, and each statistic leaves out the rows missing in its
   own columns (complete cases per statistic).
4. Numeric values are clamped into their public bounds; categorical values become text.

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
    category_lookup,
    exact_sum,
)
from workbench.core.data.io import Table
from workbench.core.data.schema import CategoricalColumn, MissingAction, NumericColumn, Schema
from workbench.core.errors import SchemaError


@dataclass(frozen=True, eq=False)
class PreparedData:
    """Clamped, truncated values of the described columns. Private: never export or print."""

    frame: pd.DataFrame
    schema: Schema

    def numeric(self, column: str) -> np.ndarray:
        """Clamped values of the rows where ``column`` is present."""
        values = self.frame[column].to_numpy(dtype=np.float64)
        return values[~np.isnan(values)]

    def categorical(self, column: str) -> np.ndarray:
        """Category texts of the rows where ``column`` is present."""
        values = self.frame[column]
        return values[values.notna()].to_numpy(dtype=object)

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
    if isinstance(part, Categories):
        return category_codes(part.spec, rows[part.column])
    values = rows[part.column].to_numpy(dtype=np.float64)
    if isinstance(part, Bins):
        return np.searchsorted(np.asarray(part.edges, dtype=np.float64), values, side="right").astype(np.int64)
    assert isinstance(part, RankSlots)
    candidates = np.asarray(part.candidates, dtype=np.float64)
    below = np.searchsorted(candidates, values, side="left")
    equal = candidates[np.minimum(below, len(candidates) - 1)] == values
    return (2 * below + (equal & (below < len(candidates)))).astype(np.int64)


def category_codes(spec: CategoricalColumn, values: pd.Series) -> np.ndarray:
    """The index of each value's bin in ``spec.bins``; -1 for a value left out (outside the list, or missing).
    Categorical values (as ``prepare`` makes them) are coded through their few categories."""
    if not isinstance(values.dtype, pd.CategoricalDtype):
        values = values.astype("category")
    texts = [str(t) for t in values.cat.categories]
    lookup = np.append(category_lookup(spec, texts), -1)  # the last: a missing value (code -1)
    return lookup[values.cat.codes.to_numpy()]


def prepare(table: Table, schema: Schema) -> PreparedData:
    """Validate the schema against the table and apply it (steps 1 to 4 above)."""
    schema.validate()
    check_columns_exist(table, schema)
    frame = table.frame
    id_column = schema.unit.id_column
    if id_column is not None:
        ids = frame[id_column]
        frame = frame.loc[ids.notna().to_numpy()]
        rank_within_person = frame[id_column].groupby(frame[id_column], sort=False).cumcount().to_numpy()
        frame = frame.loc[rank_within_person < schema.k]

    columns: dict[str, pd.Series] = {}
    for spec in schema.columns:
        if isinstance(spec, NumericColumn):
            values = _as_numbers(frame[spec.name], spec.name, table)
            if spec.missing.action is MissingAction.IMPUTE:
                values = values.fillna(float(spec.missing.value))
            columns[spec.name] = values.clip(lower=spec.lower, upper=spec.upper)
        elif isinstance(spec, CategoricalColumn):
            values = _as_category_text(frame[spec.name])
            if spec.missing.action is MissingAction.IMPUTE:
                filler = str(spec.missing.value)
                if filler not in values.cat.categories:
                    values = values.cat.add_categories([filler])
                values = values.fillna(filler)
            columns[spec.name] = values
    prepared = pd.DataFrame(columns, index=frame.index).reset_index(drop=True)
    return PreparedData(frame=prepared, schema=schema)


def check_columns_exist(table: Table, schema: Schema) -> None:
    """Every described column must be in the file; otherwise the plan is for other data."""
    present = set(table.columns)
    absent = [spec.name for spec in schema.columns if spec.name not in present]
    if absent:
        listed = ", ".join(f"'{name}'" for name in absent)
        raise SchemaError(
            f"The plan describes {listed}, which {'is' if len(absent) == 1 else 'are'} not in {table.source.name}. "
            f"That file has the columns {_some(table.columns)}. Is the plan meant for another dataset? "
            "Open the right file, or edit the plan's column names."
        )


def _some(names: tuple[str, ...], shown: int = 20) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown:,} more" if len(names) > shown else "")


def _as_numbers(series: pd.Series, name: str, table: Table) -> pd.Series:
    if pd.api.types.is_bool_dtype(series):
        return series.astype("float64")
    if pd.api.types.is_numeric_dtype(series):
        return series.astype("float64")
    as_text = series.astype("string").str.strip()
    numbers = pd.to_numeric(as_text.replace("", pd.NA), errors="coerce")
    bad = numbers.isna() & as_text.notna() & (as_text != "")
    if bad.any():
        example = as_text[bad].iloc[0]
        raise SchemaError(
            f"Column '{name}' in {table.source.name} is described as numeric, but {int(bad.sum())} of its values "
            f"are not numbers (for example '{example}'). Describe it as categorical or ignored, or correct "
            "those values in the file (leave a cell empty for a missing value)."
        )
    return numbers.astype("float64")


def category_texts(series: pd.Series) -> set[str]:
    """The category texts that occur in ``series`` (missing values aside), as statistics compare them.
    Private: for the curator's checks before a release (``category_check``), never released."""
    return set(_as_category_text(series).cat.categories)  # made from the values present: each occurs


def _as_category_text(series: pd.Series) -> pd.Series:
    """Values as category texts, with whole numbers written without a decimal point (1.0 -> '1').

    The result is categorical: each distinct value is turned into text once, not every row
    (a column of millions of rows has a handful of distinct values), and statistics code the
    rows by their category, not by comparing texts.
    """
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    distinct = np.asarray(uniques, dtype=object)
    if pd.api.types.is_float_dtype(series) and len(distinct):
        numbers = distinct.astype(np.float64)
        if np.isfinite(numbers).all() and (numbers == np.floor(numbers)).all():
            distinct = np.array([str(int(v)) for v in numbers], dtype=object)
    texts = [str(v).strip() for v in distinct]
    categories = list(dict.fromkeys(texts))  # ' a' and 'a' become one category
    position = {text: i for i, text in enumerate(categories)}
    lookup = np.array([position[t] for t in texts] + [-1], dtype=np.int64)  # code -1 (missing) stays -1
    return pd.Series(pd.Categorical.from_codes(lookup[codes], categories=categories), index=series.index)
