"""Prepared data computed by a SQL engine on the file itself: what DuckDB (out of core, on this machine,
``out_of_core``) and Spark (a cluster, ``spark_engine``) share.

The engine reads the file once into ``file_rows`` (the columns the plan reads, each row's place in the
file and its hash for the content fingerprint), applies the schema as ``prepare`` does (each value read
by itself as ``reading`` says, in SQL by ``sql_reading``; rows without an id left out, each person's
first k rows in file order, missing values imputed or left out, numbers clamped, categories as their
public bins), stores the prepared columns once, and answers each ``aggregates.Aggregate`` with one
GROUP BY, shared by a release's requests whose cells are the same (``SqlData.expect``). Only the integer
answers come back to Python; OpenDP adds the noise to them.

The answers are identical to the in-memory engine's, not close: every value is read by the same rule, the
per-row arithmetic is the same IEEE operations in the same order with ties rounded to even, and sums are
exact (integers summed into integers that cannot overflow: DuckDB's 128-bit sums, Spark's sums of 22-bit pieces put
together as 38-digit decimals). Tests compare the engines on every statistic and on every prepared value.

Each engine says how it reads and stores the file and runs SQL; everything else is here, once.
"""

from __future__ import annotations

from collections import Counter
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
from workbench.core.data.fingerprint import ROW_HASH, digest, digest_query, hashed_rows, reading_key
from workbench.core.data.io import FileState, check_names
from workbench.core.data.reading import LEFT_OUT, CategoryMatcher, CategoryPresence
from workbench.core.data.schema import CategoricalColumn, MissingAction, NumericColumn, Schema
from workbench.core.data.sql_reading import (
    CLEAN,
    DATE,
    NUMBERS,
    TEXT,
    TIMESTAMP,
    TRUTH,
    Dialect,
    StoredColumn,
    category_bin,
    display_text,
)
from workbench.core.data.text_files import no_rows
from workbench.core.errors import DataFileError, SchemaError

Progress = Callable[[float], None]
_OUTSIDE_TEXTS = 10_000  # texts outside a public list the curator's check looks at (it needs only their spellings)


@dataclass(frozen=True)
class FileSource:
    """A data file as a SQL engine reads it: never loaded into memory. ``path`` may be any location the engine
    reads (Spark: hdfs://, s3a://); ``state`` is known for a local file only."""

    path: Path
    file_format: str  # "text" or "parquet"
    encoding: str | None = None
    delimiter: str | None = None
    state: FileState | None = None
    location: str | None = None  # Spark's location as given (``spark_source``), which ``path`` may not spell

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def source(self) -> Path:
        """The file (as ``Table.source``): what the ledger's file fingerprint and the change check read."""
        return self.path

    @property
    def read_as(self) -> dict[str, str | int | None]:
        """How the file's bytes are read into a table and its content digested (``fingerprint.reading_key``). Never
        exported (``Entry.public_json``)."""
        return reading_key(self.file_format, self.encoding, self.delimiter)

    @property
    def decided(self) -> bool:
        """Whether ``read_as`` is how the engine will read the file (a Spark source leaves the undeclared encoding
        and delimiter to be decided when Spark opens the file: ``spark_source``)."""
        return self.file_format != "text" or (self.encoding is not None and self.delimiter is not None)


def refuse_names_alike_but_case(names: Sequence[str], file_name: str) -> None:
    """Refuse columns whose names differ only in upper and lower case: DuckDB and Spark find a column by its name
    whatever its case, so that the prepared rows' column 'A' was 'a' (out of core, a statistic of 'A' was computed
    from 'a' without a word) and Spark stopped with its own words. Names are public: nothing of the data is read."""
    by_case = Counter(name.lower() for name in names)
    alike = sorted(name for name in names if by_case[name.lower()] > 1)
    if alike:
        raise DataFileError(
            f"{file_name}: the columns {', '.join(repr(name) for name in alike[:6])} differ only in upper and lower "
            "case, and the out-of-core and Spark engines find a column by its name whatever its case. Give them names "
            "that differ otherwise in the file, or release it with the in-memory engine."
        )


class SqlData:
    """Prepared data in a SQL engine: answers ``Aggregate`` requests exactly. Private. Subclasses start the
    engine, then call ``_prepare``; they say how SQL runs (``_all``), how the file is read (``_columns``,
    ``_source``), how tables are stored and looked up, and how rows keep file order."""

    dialect = Dialect()
    source: FileSource
    schema: Schema
    _exact_rows: int | None = None  # the rows below which the engine's sums are exact (None: any number of rows)
    # whether the first pass hashes every row for the content digest; not where the ledger already records the
    # content fingerprint of this very file (``Ledger.recorded_content_fingerprint``): hashing is most of that pass
    hashes_content: bool = True
    # whether the rows read are the bytes of the file on this machine that the ledger hashes (``Ledger.fingerprint``):
    # not so where a cluster's executors each open a local path on their own disk (``SparkData``). Where not, the
    # rows are hashed, and the release records no reading of the file for a later one to take
    reads_the_bytes_hashed: bool = True

    # ------------------------------------------------------------ what subclasses provide

    def _all(self, query: str) -> list[tuple]:
        raise NotImplementedError

    def _columns(self) -> list[tuple[str, StoredColumn]]:
        """Every column of the file: its name as the file writes it, and how the file declares it (for a text
        file, every column is text), as SQL on ``_source()``."""
        raise NotImplementedError

    def _source(self) -> str:
        """The file's rows as a relation."""
        raise NotImplementedError

    def _store(self, name: str, query: str, progress: Progress | None) -> None:
        """Keep ``query``'s rows as ``name`` for the queries that follow."""
        raise NotImplementedError

    def _store_digested(self, name: str, query: str, digest: str, progress: Progress | None) -> tuple:
        """``_store``, then the one row of ``digest``, a query of the stored rows: an engine may compute both in one
        pass (on Spark, a pass over the stored rows is a job of its own)."""
        self._store(name, query, progress)
        return tuple(self._all(digest)[0])

    def _lookup(self, columns: dict[str, list]) -> str:
        """A small public table (categories, candidates) by name."""
        raise NotImplementedError

    def _file_order(self) -> str | None:
        """A column of ``_source()`` that increases with the rows' order in the file (None: the engine keeps the
        order itself); ``file_rows`` then carry it as ``dp_file_order``."""
        return None

    def _view(self, name: str, query: str) -> None:
        """Name ``query`` as ``name``, computed each time it is read (it reads a stored table)."""
        raise NotImplementedError

    def _first_rows(self, table: str, person: str, k: int) -> str:
        """A query of the stored ``table``'s rows keeping each person's first ``k`` rows in file order (by ``person``,
        their key; none where it is NULL)."""
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
        if self.__dict__.get("_rows") is None:  # asked once: the prepared rows do not change
            self._rows = int(self._all("SELECT count(*) FROM prepared")[0][0])
        return self._rows

    def aggregate(self, request: Aggregate) -> Answer:
        key = self._request_key(request)
        fused = self.__dict__.get("_fused", {}).get(key[1])
        if fused is not None and key in fused:
            answers = self.__dict__.setdefault("_answers", {})
            if key not in answers:  # the first of its cells' requests to be asked: all of them answered at once
                answers.update(self._answered_together(list(fused.values())))
            return answers[key]
        return self._answered_together([request])[key]

    def expect(self, requests: Sequence[Aggregate]) -> None:
        """The requests a release will make (known from public inputs before any is asked): those whose cells are
        the same are answered by one GROUP BY when the first of them is asked, their totals side by side, each over
        its own rows; ``aggregate`` then returns each one's answer when its statistic asks for it. Only how the exact
        answers are computed changes (a pass over the rows on Spark is a job of its own): which are asked, when and
        in what order, their noise and their charge are the statistics' as before, and each answer is the one its
        own query gives."""
        fused: dict[tuple, dict[tuple, Aggregate]] = {}
        for request in requests:
            key = self._request_key(request)
            fused.setdefault(key[1], {}).setdefault(key, request)
        self._fused = {cells: members for cells, members in fused.items() if len(members) > 1}
        self._answers = {}

    def _request_key(self, request: Aggregate) -> tuple:
        """What a request's answer depends on: its rows (a set), its cells and its total, by value."""
        total = "count(*)" if request.value is None else self._sql(request.value)
        return tuple(sorted(set(request.rows))), tuple(_part_key(part) for part in request.parts), total

    def _answered_together(self, requests: Sequence[Aggregate]) -> dict[tuple, Answer]:
        """The answers of requests with the same cells, by one GROUP BY: one count of each set of rows (a cell is in
        an answer if it holds rows of that set, as in a query of its own) and each sum over its own rows."""
        q = self.dialect.quote
        joins, codes = [], []
        for part in requests[0].parts:
            join, code = self._part_sql(part)
            joins.append(join)
            codes.append((code, part.size))
        cell = "0"
        for code, size in codes:
            cell = f"({cell}) * {size} + ({code})"
        present = " AND ".join(f"({code}) >= 0" for code, _ in codes) or "TRUE"
        keys = [self._request_key(request) for request in requests]
        filters = list(dict.fromkeys(rows for rows, _, _ in keys))
        complete = {rows: " AND ".join(f"prepared.{q(c)} IS NOT NULL" for c in rows) or "TRUE" for rows in filters}
        if len(requests) == 1:  # one request: its own query, as it always was
            totals = ["count(*)" if keys[0][2] == "count(*)" else self._exact_sum(keys[0][2])]
            where = complete[filters[0]]
        else:
            totals = [f"count(CASE WHEN {complete[rows]} THEN 1 END)" for rows in filters]
            totals += [self._exact_sum(f"(CASE WHEN {complete[rows]} THEN {total} END)")
                       for rows, _, total in keys if total != "count(*)"]
            where = " OR ".join(f"({complete[rows]})" for rows in filters)
        selected = ", ".join(f"{total} AS total{i}" for i, total in enumerate(totals))
        rows = self._all(f"SELECT {cell} AS cell, {selected} FROM prepared {' '.join(joins)} "
                         f"WHERE ({where}) AND {present} GROUP BY 1")
        cells = np.array([int(r[0]) for r in rows], dtype=np.int64)
        order = np.argsort(cells, kind="stable")  # sorted here: in SQL it would be one more shuffle on a cluster
        cells, rows = cells[order], [rows[i] for i in order.tolist()]
        if len(requests) == 1:
            return {keys[0]: Answer(cells, [int(r[1]) for r in rows], requests[0].size)}
        answers, sums = {}, 1 + len(filters)
        for key, request in zip(keys, requests):
            counted = 1 + filters.index(key[0])  # the column of its rows' count
            held = [i for i, r in enumerate(rows) if r[counted]]  # the cells holding its rows
            column = counted if key[2] == "count(*)" else sums
            sums += key[2] != "count(*)"
            answers[key] = Answer(cells[held], [int(rows[i][column]) for i in held], request.size)
        return answers

    def content_digest(self) -> bytes:
        """The digest of the file's content (``fingerprint``), the in-memory engine's for the same table."""
        if not self.hashes_content:
            raise ValueError("this engine was opened without hashing the file's rows (its content fingerprint is "
                             "the ledger's): it has no content digest")
        count, first, second = self._file_digest  # added up once, with the count of the file's rows
        return digest([name.strip() for name, _ in self._file_columns], count, first, second)

    def category_presence(self, spec: CategoricalColumn) -> CategoryPresence:
        """Which public categories the file's values fall in, and the texts of those outside, from every row
        (``reading.category_presence``). Private: for the curator's check of the public lists."""
        stored = self._presence.get(spec.name)
        if stored is not None and stored[0] == spec:  # stored as bins in the one pass, with the texts outside
            _, found, outside, joins = *stored, ""
        else:
            joins, found, outside = self._bin_sql(spec, "file_rows")
        bins = {r[0] for r in self._all(f"SELECT DISTINCT {found} FROM file_rows {joins}")}
        texts = self._all(f"SELECT DISTINCT {outside} FROM file_rows {joins} WHERE {outside} IS NOT NULL "
                          f"LIMIT {_OUTSIDE_TEXTS}")
        return CategoryPresence(frozenset(b for b in bins if b is not None and 0 <= b < len(spec.categories)),
                                frozenset(r[0] for r in texts if r[0] is not None),
                                any(b is not None for b in bins))

    def prepared_rows(self) -> "object":
        """Every kept row's prepared values (for the tests that compare engines). Private."""
        import pandas as pd

        names = [c for c in self._prepared_columns]
        rows = self._all(f"SELECT {', '.join(self.dialect.quote(n) for n in names)} FROM prepared")
        return pd.DataFrame(rows, columns=names, dtype=object).astype("float64") if rows else \
            pd.DataFrame(columns=names, dtype="float64")

    # ------------------------------------------------------------ preparing

    def _prepare(self, progress: Progress | None) -> None:
        q, d = self.dialect.quote, self.dialect
        self._file_columns = self._columns()  # asked once: reading a file's schema is a query of its own
        check_names([name for name, _ in self._file_columns], self.source.name)
        stored = {name.strip(): column for name, column in self._file_columns}
        used = [spec for spec in self.schema.columns if isinstance(spec, (NumericColumn, CategoricalColumn))]
        id_column = self.schema.unit.id_column
        needed = [spec.name for spec in used] + ([id_column] if id_column and id_column not in {s.name for s in used} else [])
        refuse_names_alike_but_case(needed, self.source.name)
        absent = [n for n in needed if n not in stored]
        if absent:
            raise SchemaError(
                f"The plan describes {', '.join(repr(n) for n in absent)}, which {'is' if len(absent) == 1 else 'are'} "
                f"not in {self.source.name}. Is the plan meant for another dataset? Open the right file, or edit the "
                "plan's column names."
            )
        numeric = [s.name for s in used if isinstance(s, NumericColumn)]
        for name in numeric:
            if stored[name].kind not in (TEXT, TRUTH, *NUMBERS):
                raise SchemaError(
                    f"Column '{name}' in {self.source.name} is described as numeric, but the file stores "
                    f"{'dates' if stored[name].kind in (DATE, TIMESTAMP) else 'values that are not numbers'} in it. "
                    "Describe it as categorical or ignored."
                )
        # 1. the file, read once: each value the plan needs, read by the rule (numbers as numbers, text trimmed and
        # NULL where missing, the person's key), the text of a numeric column's value that is not a number, each
        # row's place in the file and its hash for the content fingerprint
        order = self._file_order()
        extra = [f"{order} AS dp_file_order"] if order is not None else []
        keep, self._stored = [], {}
        for i, name in enumerate(needed):
            if name in numeric:
                keep.append((f"dp_n{i}", name, "number"))
                if stored[name].kind == TEXT:  # a stored number, or a truth, is never "not a number"
                    keep.append((f"dp_bad{i}", name, "bad"))
            elif name == id_column:  # described as an identifier: no statistic reads it
                keep.append((f"dp_p{i}", name, "person"))
            else:
                keep.append((f"dp_c{i}", name, "text"))
                kind = CLEAN if stored[name].kind == TEXT else stored[name].kind
                self._stored[name] = StoredColumn(f"dp_c{i}", kind, stored[name].zoned)
        everything = [(name.strip(), column) for name, column in self._file_columns]
        read = hashed_rows(d, everything, self._source(), keep, extra, hashed=self.hashes_content)
        hashes = list(ROW_HASH) if self.hashes_content else []
        self._presence: dict[str, tuple[CategoricalColumn, str, str]] = {}
        if id_column is None:
            # one row is one person: the rows are stored prepared in the same pass (categories as their bins, with
            # the texts outside the public lists for the curator's check), and ``prepared`` is a view of them
            # (not the rows' place in the file: it only picks each person's first rows)
            kept = [a for a in _aliases(keep, extra) if not a.startswith("dp_c") and a != "dp_file_order"] + hashes
            prepared, joins = {}, []
            for spec in used:
                if isinstance(spec, CategoricalColumn):
                    join, found, outside = self._bin_sql(spec, "source")
                    i = needed.index(spec.name)
                    joins.append(join)
                    kept += [f"{self._small_bin(spec, found)} AS dp_b{i}", f"{outside} AS dp_o{i}"]
                    self._presence[spec.name] = (spec, f"dp_b{i}", f"dp_o{i}")
                    prepared[spec.name] = self._filled_bin(spec, f"dp_b{i}")
                else:
                    prepared[spec.name] = self._prepared_value(spec, f"dp_n{needed.index(spec.name)}")
            read = f"SELECT {', '.join(kept)} FROM ({read}) AS source {' '.join(joins)}"
        # the rows counted and their hashes added up in one pass (``content_digest``)
        if self.hashes_content:
            self._file_digest = self._store_digested("file_rows", read, digest_query(d, "file_rows"), progress)
        else:
            counted = self._store_digested("file_rows", read, "SELECT count(*) FROM file_rows", progress)
            self._file_digest = (counted[0], None, None)
        if not self._file_digest[0]:
            raise no_rows(self.source.name)
        if self._exact_rows is not None and self._file_digest[0] >= self._exact_rows:
            raise DataFileError(
                f"{self.source.name}: the file has {self._file_digest[0]:,} rows, more than this engine sums exactly "
                f"({self._exact_rows:,}). Split the file, or release it with the out-of-core engine."
            )
        self._check_numbers([(name, f"dp_bad{needed.index(name)}") for name in numeric if stored[name].kind == TEXT])
        self._prepared_columns = [spec.name for spec in used]
        if id_column is None:
            columns = [f"{prepared[spec.name]} AS {q(spec.name)}" for spec in used]
            self._view("prepared", f"SELECT {', '.join(columns) or '1 AS _one'} FROM file_rows")
            self._rows = int(self._file_digest[0])  # one row is one person: every row of the file is kept
            return
        # each person's first k rows in file order, then their categories' bins (a join of a large table may
        # reorder rows, so the bins are looked up once the file's order has been used)
        rows = f"({self._first_rows('file_rows', f'dp_p{needed.index(id_column)}', int(self.schema.k))})"
        columns, joins = [], []
        for spec in used:
            if isinstance(spec, CategoricalColumn):
                join, found, _ = self._bin_sql(spec, "source")
                joins.append(join)
                value = self._small_bin(spec, self._filled_bin(spec, found))
            else:
                value = self._prepared_value(spec, f"source.dp_n{needed.index(spec.name)}")
            columns.append(f"{value} AS {q(spec.name)}")
        # one compact table of numbers and bin codes, which every aggregate then reads
        self._store("prepared", f"SELECT {', '.join(columns) or '1 AS _one'} FROM {rows} AS source {' '.join(joins)}",
                    None)

    def _prepared_value(self, spec: NumericColumn, number: str) -> str:
        """A numeric column's prepared value: missing values imputed (or left NULL), then clamped to the bounds."""
        d = self.dialect
        if spec.missing.action is MissingAction.IMPUTE:
            number = f"coalesce({number}, {d.number(float(spec.missing.value))})"
        return _clamped(number, d.number(float(spec.lower)), d.number(float(spec.upper)))

    def _bin_sql(self, spec: CategoricalColumn, table: str) -> tuple[str, str, str]:
        """The join, the SQL of a value's bin in the public list (NULL where missing: ``category_bin``) and of its
        text where it falls outside the list (else NULL), for the column as ``table`` holds it."""
        column = self._stored[spec.name]
        matcher = CategoryMatcher(spec)
        stored = StoredColumn(f"{table}.{column.sql}", column.kind, column.zoned)
        alias = f"dp_category{list(self._stored).index(spec.name)}"  # the column's own name for its lookups
        join, found = category_bin(self.dialect, stored, matcher, *self._category_tables(matcher), None, alias)
        outside = (f"(CASE WHEN {found} = {LEFT_OUT} OR {found} >= {len(spec.categories)} "
                   f"THEN {display_text(self.dialect, stored)} END)")
        return join, found, outside

    def _filled_bin(self, spec: CategoricalColumn, found: str) -> str:
        """A categorical column's prepared value: its bin, a missing value's being the public filler's if imputed."""
        if spec.missing.action is not MissingAction.IMPUTE:
            return found
        return f"coalesce({found}, {CategoryMatcher(spec).text_bin(str(spec.missing.value))})"

    def _small_bin(self, spec: CategoricalColumn, code: str) -> str:
        """A bin code (-2, a missing value imputed with a word the list reads as missing, up to the number of
        public categories, its "other"; or NULL) in the smallest integer type that holds
        every code of the public list: stored once per row, it is most of a row's bytes as a 64-bit integer.
        Cells compute on it as BIGINT (``_part_sql``)."""
        return self.dialect.small_integer(code, len(spec.categories))

    def _category_tables(self, matcher: CategoryMatcher) -> tuple[str, str]:
        """The lookup tables of a public list: (text, code) and (number, code); made once per list."""
        cache = self.__dict__.setdefault("_category_cache", {})
        key = (matcher.spec.categories, matcher.spec.outside)
        if key not in cache:
            exact = self._lookup({"text": list(matcher.exact), "code": list(matcher.exact.values())})
            numbers = self._lookup({"number": [float(n) for n in matcher.by_number] or [float("nan")],
                                    "code": list(matcher.by_number.values()) or [matcher.other]})
            cache[key] = (exact, numbers)
        return cache[key]

    def _check_numbers(self, texts: list[tuple[str, str]]) -> None:
        """A text column described as numeric whose values are not all numbers is refused, as ``prepare`` does:
        ``texts`` names each such column and the column of ``file_rows`` holding its values that are not numbers."""
        if not texts:
            return
        parts = [f"count({bad}), min({bad})" for _, bad in texts]
        found = self._all(f"SELECT {', '.join(parts)} FROM file_rows")[0]
        for i, (n, _) in enumerate(texts):
            count, example = found[2 * i], found[2 * i + 1]
            if count:
                raise SchemaError(
                    f"Column '{n}' in {self.source.name} is described as numeric, but {count:,} of its values "
                    f"{'is' if count == 1 else 'are'} not numbers (for example '{example}'). A number is written with "
                    "digits, a decimal point and an optional sign or exponent (-3, 0.5, 1e3). Describe the column as "
                    "categorical or ignored, or correct those values in the file (leave a cell empty for a missing "
                    "value)."
                )

    # ------------------------------------------------------------ cells

    def _part_sql(self, part: CellPart) -> tuple[str, str]:
        """A join the part needs (or '') and the SQL of each row's code within it (-1: left out)."""
        q, d = self.dialect.quote, self.dialect
        if isinstance(part, Categories):  # prepared as the bin of the schema's description of the column
            if part.spec != self.schema.column(part.column):
                raise ValueError(f"'{part.column}' is binned as the schema describes it, not otherwise")
            return "", f"CAST(prepared.{q(part.column)} AS BIGINT)"  # stored small (``_small_bin``)
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


def _part_key(part: CellPart) -> tuple:
    """A cell part by value (parts compare by identity): two requests with equal keys have the same cells."""
    if isinstance(part, Categories):
        return ("categories", part.spec)
    if isinstance(part, Bins):
        return ("bins", part.column, part.edges)
    assert isinstance(part, RankSlots), part  # a new kind of part needs its own key here
    return ("ranks", part.column, part.candidates)


def _aliases(keep: Sequence[tuple[str, str, str]], extra: Sequence[str]) -> list[str]:
    """The columns ``hashed_rows`` names for ``keep`` and ``extra``."""
    return [alias for alias, _, _ in keep] + [expression.rsplit(" AS ", 1)[-1].strip() for expression in extra]


def _clamped(value: str, lower: str, upper: str) -> str:
    """``value`` clamped into [lower, upper]; missing stays missing (least and greatest skip NULL)."""
    return f"CASE WHEN {value} < {lower} THEN {lower} WHEN {value} > {upper} THEN {upper} ELSE {value} END"
