"""Prepared data computed by a SQL engine on the file itself: what DuckDB (out of core, on this machine,
``out_of_core``) and Spark (a cluster, ``spark_engine``) share.

The engine reads the file, applies the schema as ``prepare`` does (rows without an id left out, each
person's first k rows in file order, missing values imputed or left out, numbers clamped, categories
as their public bins), stores the prepared columns once, and answers each ``aggregates.Aggregate``
with one GROUP BY. Only the integer answers come back to Python; OpenDP adds the noise to them.

The answers are identical to the in-memory engine's, not close: the file is read as text and typed
as pandas types it (a column of numbers is numbers, "007" and "7" are one id, "1.0" is the category
"1"), the per-row arithmetic is the same IEEE operations in the same order with ties rounded to even,
and sums are exact (38-digit decimals). Tests compare the engines on every statistic.

Each engine says how it reads, stores and runs SQL, and the few functions whose spelling differs
(``Dialect``); everything else is here, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

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
)
from workbench.core.data.io import FileState
from workbench.core.data.schema import CategoricalColumn, MissingAction, NumericColumn, Schema
from workbench.core.errors import DataFileError, SchemaError

Progress = Callable[[float], None]

# What pandas' CSV reader takes for a missing value (pandas.io.parsers' STR_NA_VALUES): the same here.
WHITESPACE = " \t\n\r\x0b\x0c"  # what Python's str.strip() removes from category texts (ASCII ones)


@dataclass(frozen=True)
class FileSource:
    """A data file as a SQL engine reads it: never loaded into memory. ``path`` may be any location the engine
    reads (Spark: hdfs://, s3a://); ``state`` is known for a local file only."""

    path: Path
    file_format: str  # "text" or "parquet"
    encoding: str | None = None
    delimiter: str | None = None
    state: FileState | None = None

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def source(self) -> Path:
        """The file (as ``Table.source``): what the ledger's file fingerprint and the change check read."""
        return self.path


class Dialect:
    """How one engine spells what SQL engines spell differently."""

    def quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def text(self, value: str) -> str:
        return "'" + value.replace("'", "''") + "'"

    def trim(self, value: str) -> str:
        return f"trim({value}, {self.text(WHITESPACE)})"

    def full_match(self, value: str, pattern: str) -> str:
        return f"regexp_full_match({value}, {self.text(pattern)})"

    def finite(self, value: str) -> str:
        return f"isfinite({value})"

    def round_even(self, value: str) -> str:
        return f"round_even({value}, 0)"

    def number(self, value: float) -> str:
        """A double literal, exactly (a bare 0.1 would be a decimal)."""
        if np.isinf(value):
            return f"CAST({self.text('inf' if value > 0 else '-inf')} AS DOUBLE)"
        return f"CAST({self.text(repr(float(value)))} AS DOUBLE)"


class SqlData:
    """Prepared data in a SQL engine: answers ``Aggregate`` requests exactly. Private. Subclasses start the
    engine, then call ``_prepare``; they say how SQL runs (``_all``, ``_run``), how the file is read
    (``_read``, ``_file_types``), how tables are stored and looked up, and how rows keep file order."""

    dialect = Dialect()
    source: FileSource
    schema: Schema

    # ------------------------------------------------------------ what subclasses provide

    def _all(self, query: str) -> list[tuple]:
        raise NotImplementedError

    def _read(self) -> str:
        """The file as a relation of text columns (a text file) or stored types (Parquet)."""
        raise NotImplementedError

    def _file_types(self) -> list[tuple[str, str]]:
        """(name, type) of every column of the file as the engine reads it."""
        raise NotImplementedError

    def _store(self, name: str, query: str, progress: Progress | None) -> None:
        """Keep ``query``'s rows as ``name`` for the aggregates that follow."""
        raise NotImplementedError

    def _lookup(self, columns: dict[str, list]) -> str:
        """A small public table (categories, candidates) by name."""
        raise NotImplementedError

    def _file_order(self) -> str | None:
        """A column of ``_read()`` that increases with the rows' order in the file (None: the engine keeps the
        order itself); ``rows`` then carry it as ``dp_file_order``."""
        return None

    def _first_rows(self, rows: str, id_column: str, k: int, progress: Progress | None) -> str:
        """A query of ``rows`` (typed) keeping each person's first ``k`` rows in file order (none without an id);
        may store what it needs, and may point ``_texts_from`` at it."""
        raise NotImplementedError

    def _uneven_ranks(self, table: str, alias: str, column: str) -> tuple[str, str, str]:
        """For candidates not evenly spaced: the join, and the SQL of the largest candidate's position and value
        at or below ``column``."""
        raise NotImplementedError

    def _exact_sum(self, value: str) -> str:
        return f"sum(CAST({value} AS DECIMAL(38, 0)))"

    # ------------------------------------------------------------ the engine interface

    @property
    def rows(self) -> int:
        """Rows after the privacy unit is applied. Private: a count must be released with noise."""
        return int(self._all("SELECT count(*) FROM prepared")[0][0])

    def aggregate(self, request: Aggregate) -> Answer:
        q = self.dialect.quote
        complete = " AND ".join(f"prepared.{q(c)} IS NOT NULL" for c in request.rows) or "TRUE"
        joins, codes = [], []
        for part in request.parts:
            join, code = self._part_sql(part)
            joins.append(join)
            codes.append((code, part.size))
        cell = "0"
        for code, size in codes:
            cell = f"({cell}) * {size} + ({code})"
        present = " AND ".join(f"({code}) >= 0" for code, _ in codes) or "TRUE"
        total = "count(*)" if request.value is None else self._exact_sum(self._sql(request.value))
        query = (f"SELECT {cell} AS cell, {total} AS total FROM prepared {' '.join(joins)} "
                 f"WHERE {complete} AND {present} GROUP BY 1")
        rows = self._all(query)
        cells = np.array([int(r[0]) for r in rows], dtype=np.int64)
        order = np.argsort(cells, kind="stable")  # sorted here: in SQL it would be one more shuffle on a cluster
        totals = [int(rows[i][1]) for i in order.tolist()]
        return Answer(cells[order], totals, request.size)

    def category_texts(self, column: str) -> set[str]:
        """The texts of a categorical column in the file, as ``io``'s ``category_texts`` gives them for a loaded
        table (every row, before imputing): for the curator's check of the public lists. Private."""
        name = self.dialect.quote(column)
        return {r[0] for r in self._all(f"SELECT DISTINCT {name} FROM {self._texts_from} WHERE {name} IS NOT NULL")}

    # ------------------------------------------------------------ preparing

    def _prepare(self, progress: Progress | None) -> None:
        q, d = self.dialect.quote, self.dialect
        types = self._file_types()  # asked once: reading a file's schema is a query of its own
        names = self._file_columns(types)
        used = [spec for spec in self.schema.columns if isinstance(spec, (NumericColumn, CategoricalColumn))]
        id_column = self.schema.unit.id_column
        needed = [spec.name for spec in used] + ([id_column] if id_column and id_column not in {s.name for s in used} else [])
        absent = [n for n in needed if n not in names]
        if absent:
            raise SchemaError(
                f"The plan describes {', '.join(repr(n) for n in absent)}, which {'is' if len(absent) == 1 else 'are'} "
                f"not in {self.source.name}. Is the plan meant for another dataset? Open the right file, or edit the "
                "plan's column names."
            )
        numeric = {s.name for s in used if isinstance(s, NumericColumn)}
        kinds = self._kinds(names, needed, [n for n in needed if n in numeric], types)
        roles = {n: "numeric" if n in numeric else "id" if n == id_column else "category" for n in needed}
        typed = {n: self._typed(q(names[n]), kinds[n], roles[n]) for n in needed}
        selected = [f"{typed[n]} AS {q(n)}" for n in needed]
        self._texts_from = f"(SELECT {', '.join(selected)} FROM {self._read()}) AS typed_rows"  # ``category_texts``
        order = self._file_order()
        if id_column is not None and order is not None:
            selected.append(f"{order} AS dp_file_order")
        rows = f"SELECT {', '.join(selected)} FROM {self._read()}"
        if id_column is not None:
            rows = self._first_rows(rows, id_column, int(self.schema.k), progress)
            progress = None
        columns, joins = [], []
        for spec in used:
            value = f"source.{q(spec.name)}"
            if spec.missing.action is MissingAction.IMPUTE:
                filler = d.number(float(spec.missing.value)) if isinstance(spec, NumericColumn) else d.text(str(spec.missing.value))
                value = f"coalesce({value}, {filler})"
            if isinstance(spec, NumericColumn):
                value = _clamped(value, d.number(float(spec.lower)), d.number(float(spec.upper)))
            else:  # stored as its bin: the index in the public list, '(other)' after it, -1 left out
                table = self._lookup({"text": [str(c) for c in spec.categories], "code": list(range(len(spec.categories)))})
                other = len(spec.categories) if len(spec.bins) > len(spec.categories) else -1
                joins.append(f"LEFT JOIN {table} ON {value} = {table}.text")
                value = f"CASE WHEN {value} IS NULL THEN NULL ELSE coalesce({table}.code, {other}) END"
            columns.append(f"{value} AS {q(spec.name)}")
        # one pass over the file into a compact table of numbers and bin codes, which every aggregate then reads
        self._store("prepared", f"SELECT {', '.join(columns) or '1 AS _one'} FROM ({rows}) AS source {' '.join(joins)}",
                    progress)

    def _file_columns(self, types: list[tuple[str, str]]) -> dict[str, str]:
        """The file's columns: the name as the schema writes it (stripped) -> as the file does."""
        names: dict[str, str] = {}
        for name, _ in types:
            stripped = str(name).strip()
            if stripped in names:
                raise DataFileError(
                    f"{self.source.name}: several columns are called '{stripped}'. Give every column a distinct name "
                    "in the file and open it again."
                )
            names[stripped] = str(name)
        return names

    def _kinds(self, names: dict[str, str], needed: list[str], numeric: list[str],
               file_types: list[tuple[str, str]]) -> dict[str, str]:
        """How pandas would type each needed column: 'number', 'integer', 'whole' (floats all whole), 'bool',
        'text'. A text file's columns are typed by their content, a Parquet file's by their stored type."""
        q, d = self.dialect.quote, self.dialect
        if self.source.file_format == "parquet":
            types = {str(name).strip(): kind.upper() for name, kind in file_types}
            kinds = {}
            for n in needed:
                if types[n] == "BOOLEAN":
                    kinds[n] = "bool-typed"
                elif any(t in types[n] for t in ("INT", "DECIMAL", "DOUBLE", "FLOAT", "REAL")):
                    kinds[n] = "number-typed"
                else:
                    kinds[n] = "text-typed"
            floats = [n for n in needed if kinds[n] == "number-typed" and n not in numeric]
            if floats:
                checks = ", ".join(
                    f"bool_and({d.finite(f'CAST({q(names[n])} AS DOUBLE)')} AND CAST({q(names[n])} AS DOUBLE) = "
                    f"{d.round_even(f'CAST({q(names[n])} AS DOUBLE)')}) "
                    f"FILTER (WHERE {q(names[n])} IS NOT NULL)" for n in floats)
                for n, whole in zip(floats, self._all(f"SELECT {checks} FROM {self._read()}")[0]):
                    kinds[n] = "whole-typed" if whole in (True, None) else "number-typed"
            self._check_numbers(names, numeric, kinds)
            return kinds
        checks = []
        for n in needed:
            v = d.trim(q(names[n]))
            as_number = f"try_cast({v} AS DOUBLE)"
            number = f"({as_number} IS NOT NULL AND NOT contains({v}, '_'))"
            present = f"FILTER (WHERE {q(names[n])} IS NOT NULL)"
            checks += [
                f"bool_and({d.full_match(v, '[+-]?[0-9]+')}) {present}",
                f"bool_and({number}) {present}",
                f"bool_and(NOT {number} OR ({d.finite(as_number)} AND {as_number} = {d.round_even(as_number)})) {present}",
                f"bool_and(lower({v}) IN ('true', 'false')) {present}",
            ]
        found = self._all(f"SELECT {', '.join(checks)} FROM {self._read()}")[0]
        kinds = {}
        for i, n in enumerate(needed):
            integer, number, whole, boolean = found[4 * i: 4 * i + 4]
            if integer is None:  # no value at all: every row missing
                kinds[n] = "text"
            elif integer:
                kinds[n] = "integer"
            elif number:
                kinds[n] = "whole" if whole else "number"
            elif boolean:
                kinds[n] = "bool"
            else:
                kinds[n] = "text"
        self._check_numbers(names, numeric, kinds)
        return kinds

    def _check_numbers(self, names: dict[str, str], numeric: list[str], kinds: dict[str, str]) -> None:
        """A column described as numeric whose values are not all numbers is refused, as ``prepare`` does."""
        q, d = self.dialect.quote, self.dialect
        for n in numeric:
            if kinds[n] not in ("text", "text-typed"):
                continue
            v = d.trim(f"CAST({q(names[n])} AS STRING)")
            bad = f"{v} <> '' AND (try_cast({v} AS DOUBLE) IS NULL OR contains({v}, '_'))"
            count, example = self._all(f"SELECT count(*) FILTER (WHERE {bad}), any_value({v}) FILTER (WHERE {bad}) "
                                       f"FROM {self._read()}")[0]
            if count:
                raise SchemaError(
                    f"Column '{n}' in {self.source.name} is described as numeric, but {count} of its values are not "
                    f"numbers (for example '{example}'). Describe it as categorical or ignored, or correct those "
                    "values in the file (leave a cell empty for a missing value)."
                )
            kinds[n] = "number"

    def _typed(self, column: str, kind: str, role: str) -> str:
        """A column's values as ``prepare`` sees them. ``role`` "numeric": doubles (True is 1). "category": the
        text pandas would give it (an integer without leading zeros, a whole float without '.0', True/False),
        stripped. "id": the value pandas groups persons by (numbers as numbers, text as it is)."""
        d = self.dialect
        v = d.trim(f"CAST({column} AS STRING)")
        stored = kind.endswith("-typed")
        if role == "numeric":
            if kind in ("bool", "bool-typed"):
                truth = f"lower({v})"
                return f"CASE {truth} WHEN 'true' THEN CAST(1 AS DOUBLE) WHEN 'false' THEN CAST(0 AS DOUBLE) END"
            return f"CAST({column} AS DOUBLE)" if kind in ("number-typed", "whole-typed") else f"try_cast({v} AS DOUBLE)"
        source = column if stored else v
        if kind in ("integer", "whole", "whole-typed"):  # 38 digits: an id of 20 digits stays exact
            number = source if kind == "integer" else f"CAST({source} AS DOUBLE)"
            return f"CAST(CAST({number} AS DECIMAL(38, 0)) AS STRING)"
        if kind in ("number", "number-typed"):
            return f"CAST(CAST({source} AS DOUBLE) AS STRING)"
        if kind == "bool":
            return f"CASE lower({v}) WHEN 'true' THEN 'True' WHEN 'false' THEN 'False' END"
        if kind == "bool-typed":
            return f"CASE WHEN {column} THEN 'True' WHEN NOT {column} THEN 'False' END"
        return f"CAST({column} AS STRING)" if role == "id" else v

    # ------------------------------------------------------------ cells

    def _part_sql(self, part: CellPart) -> tuple[str, str]:
        """A join the part needs (or '') and the SQL of each row's code within it (-1: left out)."""
        q, d = self.dialect.quote, self.dialect
        if isinstance(part, Categories):  # prepared as the bin of the schema's description of the column
            if part.spec != self.schema.column(part.column):
                raise ValueError(f"'{part.column}' is binned as the schema describes it, not otherwise")
            return "", f"prepared.{q(part.column)}"
        column = f"prepared.{q(part.column)}"
        if isinstance(part, Bins):
            return "", " + ".join(f"CAST({column} >= {d.number(e)} AS BIGINT)" for e in part.edges) or "0"
        assert isinstance(part, RankSlots)
        table = self._lookup({"value": [float(c) for c in part.candidates], "position": list(range(len(part.candidates)))})
        alias = f"{table}_at"
        # j, the largest candidate at or below the value, and c_j: equal is slot 2j + 1, above it 2j + 2, none 0
        guess = position_guess(part.candidates)
        if guess is None:  # candidates not evenly spaced (a bounds search's): the engine's own way
            join, position, value = self._uneven_ranks(table, alias, column)
        else:  # evenly spaced: j is the guess or the one before it (``position_guess``), looked up by index
            lower, step = guess
            nearest = f"floor(({column} - {d.number(lower)}) / {d.number(step)} + {d.number(0.5)})"
            at = f"CAST(least(greatest({nearest}, 0), {len(part.candidates) - 1}) AS BIGINT)"
            join = (f"LEFT JOIN {table} AS {alias} ON {alias}.position = {at} "
                    f"LEFT JOIN {table} AS {alias}_before ON {alias}_before.position = {at} - 1")
            below = f"{alias}.value <= {column}"
            position = f"CASE WHEN {below} THEN {alias}.position ELSE {alias}_before.position END"
            value = f"CASE WHEN {below} THEN {alias}.value ELSE {alias}_before.value END"
        return join, (f"CASE WHEN {position} IS NULL THEN 0 WHEN {column} = {value} "
                      f"THEN 2 * {position} + 1 ELSE 2 * {position} + 2 END")

    def _sql(self, expression: Expression) -> str:
        """``expression`` in SQL: the same IEEE operations as ``prepare.evaluate`` does them."""
        if isinstance(expression, Column):
            return f"prepared.{self.dialect.quote(expression.name)}"
        if isinstance(expression, Constant):
            value = expression.value
            return str(int(value)) if isinstance(value, (int, np.integer)) else self.dialect.number(float(value))
        if isinstance(expression, Arithmetic):
            return f"({self._sql(expression.left)} {expression.operator} {self._sql(expression.right)})"
        if isinstance(expression, Rint):  # round half to even, as numpy's rint
            return f"CAST({self.dialect.round_even(self._sql(expression.argument))} AS BIGINT)"
        if isinstance(expression, Clip):
            return _clamped(self._sql(expression.argument), str(expression.lower), str(expression.upper))
        raise TypeError(f"not an expression: {expression!r}")

    # ------------------------------------------------------------ context

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> "SqlData":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def position_guess(candidates: Sequence[float]) -> tuple[float, float] | None:
    """For evenly spaced candidates (a quantile's), the first and the step such that the nearest guess,
    floor((c_j - first) / step + 0.5), is exactly j for every candidate: then for any value x, the largest
    candidate at or below it is x's guess or the one before it (the guess is monotone in x, so between c_j
    and c_(j+1) it is j or j + 1). None where that does not hold (then the engine finds it its own way)."""
    points = np.asarray(candidates, dtype=np.float64)
    if len(points) < 2 or not np.all(np.diff(points) > 0):
        return None
    first, step = float(points[0]), float((points[-1] - points[0]) / (len(points) - 1))
    if not step > 0:
        return None
    with np.errstate(all="ignore"):
        guesses = np.clip(np.floor((points - first) / step + 0.5), 0, len(points) - 1)
    return (first, step) if np.array_equal(guesses, np.arange(len(points))) else None


def _clamped(value: str, lower: str, upper: str) -> str:
    """``value`` clamped into [lower, upper]; missing stays missing (least and greatest skip NULL)."""
    return f"CASE WHEN {value} < {lower} THEN {lower} WHEN {value} > {upper} THEN {upper} ELSE {value} END"
