"""Prepared data computed by DuckDB on the file itself, for tables larger than memory.

The in-memory engine (``prepare.PreparedData``) holds every row in pandas. This one never does:
DuckDB reads the CSV or Parquet file, applies the schema as ``prepare`` does (rows without an id
left out, each person's first k rows in file order, missing values imputed or left out, numbers
clamped, categories as text), keeps the prepared columns in a temporary database on disk, and
answers each ``aggregates.Aggregate`` with one GROUP BY. Only the integer answers come back to
Python; OpenDP adds the noise to them as for the in-memory engine.

The answers are identical to the in-memory engine's, not close: the file is read as text and
typed as pandas types it (a column of numbers is numbers, "007" and "7" are one id, "1.0" is the
category "1"), the per-row arithmetic is the same IEEE operations in the same order with ties
rounded to even, and sums are exact (HUGEINT). Tests compare both engines on every statistic.

DuckDB runs with its extensions' download switched off (no network, ever) and spills to a
temporary folder beside nothing but its own files, which are removed when the data is closed.
"""

from __future__ import annotations

import math
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

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
from workbench.core.data.io import TEXT_SUFFIXES, FileState, detect_delimiter, detect_encoding
from workbench.core.data.schema import CategoricalColumn, MissingAction, NumericColumn, Schema
from workbench.core.errors import DataFileError, SchemaError

# What pandas' CSV reader takes for a missing value (pandas.io.parsers' STR_NA_VALUES): the same here.
PANDAS_MISSING = ("", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                  "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null")
OUT_OF_CORE_SUFFIXES = (*TEXT_SUFFIXES, ".parquet", ".pq")
_ENCODINGS = {"utf-8": "utf-8", "utf-8-sig": "utf-8", "ascii": "utf-8", "utf-16": "utf-16", "latin-1": "latin-1",
              "iso-8859-1": "latin-1", "latin1": "latin-1"}
_CSV_BUFFER = 1 << 23  # bytes DuckDB reads a CSV in (its default, 32 MB per thread, does not fit a small memory limit)
_WHITESPACE = " \t\n\r\x0b\x0c"  # what Python's str.strip() removes from category texts (ASCII ones)


@dataclass(frozen=True)
class FileSource:
    """A data file as the out-of-core engine reads it: never loaded into memory."""

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


def file_source(path: str | Path, *, delimiter: str | None = None, encoding: str | None = None) -> FileSource:
    """Describe a CSV/TSV or Parquet file for the out-of-core engine, detecting a text file's encoding and
    delimiter from its first megabyte as ``load_table`` does."""
    path = Path(path)
    if not path.is_file():
        raise DataFileError(f"{path}: no such file. Check the path and try again.")
    suffix = path.suffix.lower()
    if suffix not in OUT_OF_CORE_SUFFIXES:
        raise DataFileError(
            f"{path.name}: the out-of-core engine reads CSV, TSV and Parquet files, not '{suffix}'. Open the file "
            "with the in-memory engine (--engine memory), or export it as Parquet or CSV."
        )
    state = FileState.of(path)
    if suffix in (".parquet", ".pq"):
        return FileSource(path, "parquet", state=state)
    with path.open("rb") as handle:
        sample = handle.read(1 << 20)
    if not sample.strip():
        raise DataFileError(f"{path.name}: the file is empty. Check that it is the right file.")
    encoding = encoding or detect_encoding(sample)
    if encoding.lower() not in _ENCODINGS:
        raise DataFileError(
            f"{path.name} is written in the {encoding} encoding, which the out-of-core engine does not read (it reads "
            "UTF-8, UTF-16 and Latin-1). Save the file as UTF-8 (in Excel: CSV UTF-8), or open it with the in-memory "
            "engine (--engine memory) if it fits in memory."
        )
    text = sample.decode(encoding, errors="ignore")
    found = delimiter or detect_delimiter(text, TEXT_SUFFIXES[suffix] or ",")
    return FileSource(path, "text", encoding, found, state)


class OutOfCoreData:
    """Prepared data in a temporary DuckDB database: answers ``Aggregate`` requests exactly. Private.

    ``memory_limit`` (e.g. "2GB") caps DuckDB's memory; what does not fit is spilled to disk.
    ``progress`` hears the fraction of the file prepared; raising from it (``Cancelled``) stops the work.
    """

    def __init__(self, source: FileSource, schema: Schema, *, memory_limit: str | None = None,
                 threads: int | None = None, progress: Callable[[float], None] | None = None) -> None:
        import duckdb

        schema.validate()
        self.schema = schema
        self.source = source
        self._folder = Path(tempfile.mkdtemp(prefix="dp-workbench-engine-"))
        config: dict[str, Any] = {
            "autoinstall_known_extensions": False,  # never download anything: offline, for sensitive data
            "autoload_known_extensions": False,
            "preserve_insertion_order": True,  # the file's row order: each person keeps their first k rows
            "temp_directory": str(self._folder / "spill"),
        }
        if memory_limit:
            config["memory_limit"] = memory_limit
        if threads:
            config["threads"] = threads
        try:
            self._db = duckdb.connect(str(self._folder / "prepared.duckdb"), config=config)
        except duckdb.Error as exc:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise DataFileError(f"The out-of-core engine could not start ({exc}).") from None
        self._duckdb = duckdb
        self._tables = 0
        self._db.execute("SET enable_progress_bar = false").fetchall()  # DuckDB would print it; ``progress`` reads it
        try:
            self._prepare(progress)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------ the engine interface

    @property
    def rows(self) -> int:
        """Rows after the privacy unit is applied. Private: a count must be released with noise."""
        return int(self._one("SELECT count(*) FROM prepared")[0])

    def aggregate(self, request: Aggregate) -> Answer:
        complete = " AND ".join(f"prepared.{_quote(c)} IS NOT NULL" for c in request.rows) or "TRUE"
        joins, codes = [], []
        for part in request.parts:
            join, code = self._part_sql(part)
            joins.append(join)
            codes.append((code, part.size))
        cell = "0"
        for code, size in codes:
            cell = f"({cell}) * {size} + ({code})"
        present = " AND ".join(f"({code}) >= 0" for code, _ in codes) or "TRUE"
        total = "count(*)" if request.value is None else f"sum({_sql(request.value)})"
        query = (f"SELECT {cell} AS cell, {total} AS total FROM prepared {' '.join(joins)} "
                 f"WHERE {complete} AND {present} GROUP BY cell ORDER BY cell")
        rows = self._all(query)
        cells = np.array([int(r[0]) for r in rows], dtype=np.int64)
        return Answer(cells, [int(r[1]) for r in rows], request.size)

    def category_texts(self, column: str) -> set[str]:
        """The texts of a categorical column in the file, as ``io``'s ``category_texts`` gives them for a loaded
        table (every row, before imputing): for the curator's check of the public lists. Private."""
        name = _quote(column)
        return {r[0] for r in self._all(f"SELECT DISTINCT {name} FROM {self._texts_from} WHERE {name} IS NOT NULL")}

    def close(self) -> None:
        try:
            self._db.close()
        except Exception:  # noqa: BLE001 - closing twice, or after a failed start
            pass
        shutil.rmtree(self._folder, ignore_errors=True)

    def __enter__(self) -> "OutOfCoreData":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ------------------------------------------------------------ preparing

    def _prepare(self, progress: Callable[[float], None] | None) -> None:
        names = self._file_columns()
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
        kinds = self._kinds(names, needed, [s.name for s in used if isinstance(s, NumericColumn)])
        numeric = {s.name for s in used if isinstance(s, NumericColumn)}
        roles = {n: "numeric" if n in numeric else "id" if n == id_column else "category" for n in needed}
        typed = {n: _typed(_quote(names[n]), kinds[n], roles[n]) for n in needed}
        rows = f"SELECT {', '.join(f'{typed[n]} AS {_quote(n)}' for n in needed)} FROM {self._read()}"
        self._texts_from = f"({rows})"  # the file's rows as typed: what ``category_texts`` reads
        if id_column is not None:
            # the typed rows are stored first, in file order (their rowid); then each person keeps their first k
            # (a grouped list of each person's k smallest rowids: DuckDB spills it to disk, where a window over
            # all rows must fit in memory)
            self._run(f"CREATE TABLE typed AS {rows}", progress)
            progress, self._texts_from = None, "typed"
            self._run(f"CREATE TABLE kept AS SELECT unnest(min(rowid, {int(self.schema.k)})) AS kept FROM typed "
                      f"WHERE {_quote(id_column)} IS NOT NULL GROUP BY {_quote(id_column)}", None)
            rows = "SELECT typed.* FROM typed SEMI JOIN kept ON typed.rowid = kept.kept"
        columns, joins = [], []
        for spec in used:
            name = _quote(spec.name)
            value = f"source.{name}"
            if spec.missing.action is MissingAction.IMPUTE:
                filler = _number(float(spec.missing.value)) if isinstance(spec, NumericColumn) else _text(str(spec.missing.value))
                value = f"coalesce({value}, {filler})"
            if isinstance(spec, NumericColumn):
                value = _clamped(value, _number(float(spec.lower)), _number(float(spec.upper)))
            else:  # stored as its bin: the index in the public list, '(other)' after it, -1 left out
                table = self._table({"text": [str(c) for c in spec.categories], "code": list(range(len(spec.categories)))})
                other = len(spec.categories) if len(spec.bins) > len(spec.categories) else -1
                joins.append(f"LEFT JOIN {table} ON {value} = {table}.text")
                value = f"CASE WHEN {value} IS NULL THEN NULL ELSE coalesce({table}.code, {other}) END"
            columns.append(f"{value} AS {name}")
        # one pass over the file into a compact table of numbers and bin codes, which every aggregate then reads
        self._run(f"CREATE TABLE prepared AS SELECT {', '.join(columns) or '1 AS _one'} FROM ({rows}) AS source "
                  f"{' '.join(joins)}", progress)
        if id_column is not None:
            self._run("DROP TABLE kept", None)

    def _read(self) -> str:
        path = _text(str(self.source.path))
        if self.source.file_format == "parquet":
            return f"read_parquet({path})"
        encoding = _ENCODINGS[(self.source.encoding or "utf-8").lower()]
        missing = ", ".join(_text(m) for m in PANDAS_MISSING)
        return (f"read_csv({path}, delim={_text(self.source.delimiter or ',')}, header=true, all_varchar=true, "
                f"quote='\"', escape='\"', encoding={_text(encoding)}, nullstr=[{missing}], buffer_size={_CSV_BUFFER})")

    def _file_columns(self) -> dict[str, str]:
        """The file's columns: the name as the schema writes it (stripped) -> as the file does."""
        try:
            described = self._all(f"DESCRIBE SELECT * FROM {self._read()}")
        except self._duckdb.Error as exc:
            raise DataFileError(f"{self.source.name}: the file cannot be read ({_first_line(exc)}).") from None
        names: dict[str, str] = {}
        for name, *_ in described:
            stripped = str(name).strip()
            if stripped in names:
                raise DataFileError(
                    f"{self.source.name}: several columns are called '{stripped}'. Give every column a distinct name "
                    "in the file and open it again."
                )
            names[stripped] = str(name)
        return names

    def _kinds(self, names: dict[str, str], needed: list[str], numeric: list[str]) -> dict[str, str]:
        """How pandas would type each needed column: 'number', 'integer', 'whole' (floats all whole), 'bool',
        'text'. A text file's columns are typed by their content, a Parquet file's by their stored type."""
        if self.source.file_format == "parquet":
            types = {str(r[0]).strip(): str(r[1]).upper() for r in self._all(f"DESCRIBE SELECT * FROM {self._read()}")}
            kinds = {}
            for n in needed:
                kind = types[n]
                if kind == "BOOLEAN":
                    kinds[n] = "bool-typed"
                elif any(t in kind for t in ("INT", "DECIMAL", "DOUBLE", "FLOAT", "REAL")):
                    kinds[n] = "number-typed"
                else:
                    kinds[n] = "text-typed"
            floats = [n for n in needed if kinds[n] == "number-typed" and n not in numeric]
            if floats:
                checks = ", ".join(f"bool_and({_quote(names[n])} = floor({_quote(names[n])}) AND isfinite({_quote(names[n])}::DOUBLE)) "
                                   f"FILTER (WHERE {_quote(names[n])} IS NOT NULL)" for n in floats)
                for n, whole in zip(floats, self._one(f"SELECT {checks} FROM {self._read()}")):
                    kinds[n] = "whole-typed" if whole in (True, None) else "number-typed"
            self._check_numbers(names, numeric, kinds)
            return kinds
        checks = []
        for n in needed:
            v = f"trim({_quote(names[n])}, {_text(_WHITESPACE)})"
            number = f"(TRY_CAST({v} AS DOUBLE) IS NOT NULL AND NOT contains({v}, '_'))"
            present = f"FILTER (WHERE {_quote(names[n])} IS NOT NULL)"
            checks += [
                f"bool_and(regexp_full_match({v}, '[+-]?[0-9]+')) {present}",
                f"bool_and({number}) {present}",
                f"bool_and(NOT {number} OR (isfinite(TRY_CAST({v} AS DOUBLE)) "
                f"AND TRY_CAST({v} AS DOUBLE) = floor(TRY_CAST({v} AS DOUBLE)))) {present}",
                f"bool_and(lower({v}) IN ('true', 'false')) {present}",
            ]
        found = self._one(f"SELECT {', '.join(checks)} FROM {self._read()}")
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
        for n in numeric:
            if kinds[n] not in ("text", "text-typed"):
                continue
            v = f"trim({_quote(names[n])}::VARCHAR, {_text(_WHITESPACE)})"
            bad = f"{v} <> '' AND (TRY_CAST({v} AS DOUBLE) IS NULL OR contains({v}, '_'))"
            count, example = self._one(f"SELECT count(*) FILTER (WHERE {bad}), any_value({v}) FILTER (WHERE {bad}) "
                                       f"FROM {self._read()}")
            if count:
                raise SchemaError(
                    f"Column '{n}' in {self.source.name} is described as numeric, but {count} of its values are not "
                    f"numbers (for example '{example}'). Describe it as categorical or ignored, or correct those "
                    "values in the file (leave a cell empty for a missing value)."
                )
            kinds[n] = "number"

    # ------------------------------------------------------------ cells

    def _part_sql(self, part: CellPart) -> tuple[str, str]:
        """A join the part needs (or '') and the SQL of each row's code within it (-1: left out)."""
        if isinstance(part, Categories):  # prepared as the bin of the schema's description of the column
            if part.spec != self.schema.column(part.column):
                raise ValueError(f"'{part.column}' is binned as the schema describes it, not otherwise")
            return "", f"prepared.{_quote(part.column)}"
        column = f"prepared.{_quote(part.column)}"
        if isinstance(part, Bins):
            return "", " + ".join(f"({column} >= {_number(e)})::BIGINT" for e in part.edges) or "0"
        assert isinstance(part, RankSlots)
        table = self._table({"value": [float(c) for c in part.candidates], "position": list(range(len(part.candidates)))})
        alias = f"_ranks_{self._tables}"
        # j, the largest candidate at or below the value, and c_j: equal is slot 2j + 1, above it 2j + 2, none 0
        guess = _position_guess(part.candidates)
        if guess is None:  # candidates not evenly spaced (a bounds search's): DuckDB finds j by an as-of join
            join = f"ASOF LEFT JOIN {table} AS {alias} ON {column} >= {alias}.value"
            position, value = f"{alias}.position", f"{alias}.value"
        else:  # evenly spaced: j is the guess or the one before it (``_position_guess``), looked up by index
            lower, step = guess
            nearest = f"floor(({column} - {_number(lower)}) / {_number(step)} + 0.5::DOUBLE)"
            at = f"CAST(least(greatest({nearest}, 0), {len(part.candidates) - 1}) AS BIGINT)"
            join = (f"LEFT JOIN {table} AS {alias} ON {alias}.position = {at} "
                    f"LEFT JOIN {table} AS {alias}_before ON {alias}_before.position = {at} - 1")
            below = f"{alias}.value <= {column}"
            position = f"CASE WHEN {below} THEN {alias}.position ELSE {alias}_before.position END"
            value = f"CASE WHEN {below} THEN {alias}.value ELSE {alias}_before.value END"
        return join, (f"CASE WHEN {position} IS NULL THEN 0 WHEN {column} = {value} "
                      f"THEN 2 * {position} + 1 ELSE 2 * {position} + 2 END")

    def _table(self, columns: dict[str, list]) -> str:
        import pandas as pd

        self._tables += 1
        name = f"_lookup_{self._tables}"
        self._db.register(f"{name}_frame", pd.DataFrame(columns))
        self._db.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM {name}_frame").fetchall()
        self._db.unregister(f"{name}_frame")
        return name

    # ------------------------------------------------------------ running SQL

    def _run(self, query: str, progress: Callable[[float], None] | None) -> None:
        if progress is None:
            self._guarded(lambda: self._db.execute(query).fetchall())
            return
        import threading

        failure: list[BaseException] = []

        def work() -> None:
            try:
                self._guarded(lambda: self._db.execute(query).fetchall())
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                failure.append(exc)

        worker = threading.Thread(target=work, name="out-of-core-prepare", daemon=True)
        worker.start()
        try:
            while worker.is_alive():
                worker.join(0.2)
                fraction = self._db.query_progress()
                progress(max(0.0, min(1.0, fraction / 100.0)) if fraction >= 0 else 0.0)
        except BaseException:
            self._db.interrupt()  # Cancel: DuckDB stops at its next vector
            worker.join()
            raise
        if failure:
            raise failure[0]
        progress(1.0)

    def _guarded(self, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except self._duckdb.OutOfMemoryException as exc:
            raise DataFileError(
                f"{self.source.name}: the out-of-core engine ran out of memory and disk for spilling ({_first_line(exc)}). "
                "Free disk space in the temporary folder, or give it a larger memory limit."
            ) from None
        except self._duckdb.ConversionException as exc:
            raise DataFileError(f"{self.source.name}: a value cannot be read ({_first_line(exc)}).") from None
        except (self._duckdb.InvalidInputException, self._duckdb.IOException) as exc:
            raise DataFileError(
                f"{self.source.name}: the file cannot be read ({_first_line(exc)}). Check that it is complete and "
                "that its delimiter and encoding are right."
            ) from None

    def _all(self, query: str) -> list[tuple]:
        return self._guarded(lambda: self._db.execute(query).fetchall())

    def _one(self, query: str) -> tuple:
        return self._guarded(lambda: self._db.execute(query).fetchall())[0]


def _typed(column: str, kind: str, role: str) -> str:
    """A column's values as ``prepare`` sees them. ``role`` "numeric": doubles (True is 1). "category": the
    text pandas would give it (an integer without leading zeros, a whole float without '.0', True/False),
    stripped. "id": the value pandas groups persons by (numbers as numbers, text as it is)."""
    text = kind in ("text", "text-typed")
    v = f"trim({column}::VARCHAR, {_text(_WHITESPACE)})"
    if role == "numeric":
        if kind in ("bool", "bool-typed"):
            truth = f"lower({v})" if kind == "bool" else f"lower({column}::VARCHAR)"
            return f"CASE {truth} WHEN 'true' THEN 1.0::DOUBLE WHEN 'false' THEN 0.0::DOUBLE END"
        return f"TRY_CAST({v} AS DOUBLE)" if kind != "number-typed" and kind != "whole-typed" else f"CAST({column} AS DOUBLE)"
    if kind == "integer":
        return f"CAST(CAST({v} AS HUGEINT) AS VARCHAR)"
    if kind == "whole":
        return f"CAST(CAST(CAST({v} AS DOUBLE) AS HUGEINT) AS VARCHAR)"
    if kind == "number":
        return f"CAST(CAST({v} AS DOUBLE) AS VARCHAR)"
    if kind == "bool":
        return f"CASE lower({v}) WHEN 'true' THEN 'True' WHEN 'false' THEN 'False' END"
    if kind == "whole-typed":
        return f"CAST(CAST({column} AS HUGEINT) AS VARCHAR)"
    if kind == "number-typed":
        return f"CAST(CAST({column} AS DOUBLE) AS VARCHAR)"
    if kind == "bool-typed":
        return f"CASE WHEN {column} THEN 'True' WHEN NOT {column} THEN 'False' END"
    assert text
    return f"CAST({column} AS VARCHAR)" if role == "id" else v


def _sql(expression: Expression) -> str:
    """``expression`` in DuckDB SQL: the same IEEE operations as ``prepare.evaluate`` does them."""
    if isinstance(expression, Column):
        return f"prepared.{_quote(expression.name)}"
    if isinstance(expression, Constant):
        value = expression.value
        return str(int(value)) if isinstance(value, (int, np.integer)) else _number(float(value))
    if isinstance(expression, Arithmetic):
        return f"({_sql(expression.left)} {expression.operator} {_sql(expression.right)})"
    if isinstance(expression, Rint):  # round half to even, as numpy's rint
        return f"CAST(round_even({_sql(expression.argument)}, 0) AS BIGINT)"
    if isinstance(expression, Clip):
        return _clamped(_sql(expression.argument), str(expression.lower), str(expression.upper))
    raise TypeError(f"not an expression: {expression!r}")


def _position_guess(candidates: Sequence[float]) -> tuple[float, float] | None:
    """For evenly spaced candidates (a quantile's), the first and the step such that the nearest guess,
    floor((c_j - first) / step + 0.5), is exactly j for every candidate: then for any value x, the largest
    candidate at or below it is x's guess or the one before it (the guess is monotone in x, so between c_j
    and c_(j+1) it is j or j + 1). None where that does not hold (then an as-of join finds it)."""
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
    """``value`` clamped into [lower, upper]; missing stays missing (DuckDB's least and greatest skip NULL)."""
    return f"CASE WHEN {value} < {lower} THEN {lower} WHEN {value} > {upper} THEN {upper} ELSE {value} END"


def _number(value: float) -> str:
    """A double literal, exactly (a bare 0.1 would be a DECIMAL in DuckDB)."""
    if math.isinf(value):
        return "'inf'::DOUBLE" if value > 0 else "'-inf'::DOUBLE"
    return f"'{float(value)!r}'::DOUBLE"


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return re.sub(r"\s+", " ", text[0]) if text else type(exc).__name__

