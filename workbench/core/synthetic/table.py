"""What a synthetic table is, as a plan writes it: its columns, how each is cut into public cells, how many
rows to write, which relationships must be measured, and the algorithm. Public inputs only.

Every column of a synthetic table is a list of public cells, the same cells a histogram of it releases:
a categorical column's public categories (and '(other)' when values outside the list are kept), a numeric
column's intervals between public edges typed by the user ([lo, e1), [e1, e2), ..., [ek, hi], values
clamped to the bounds first). Nothing about the data decides which cells exist (DESIGN rules 2 and 8).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from workbench.core.data import CategoricalColumn, NumericColumn, Schema
from workbench.core.data.aggregates import Bins, Categories, CellPart
from workbench.core.errors import PlanError, SchemaError
from workbench.core.privacy import MechanismKind
from workbench.core.real import is_finite_real, is_whole_number
from workbench.core.statistics.base import validated_once

ALGORITHMS = {"mst": "MST", "aim": "AIM"}  # OpenDP's opendp.extras.mbi algorithms
NUMERIC_VALUES = ("interval", "uniform")  # a numeric cell written as its interval's label, or a value drawn in it
MAX_ROWS = 10_000_000  # the most rows a synthetic file may hold (memory, and every format's limits below it)
MAX_COLUMNS = 32
MAX_CELLS = 1 << 62  # the combinations of all columns' cells, numbered in one 64-bit integer by every engine
MAX_KEPT = 3  # a relationship to keep is between two or three columns


@dataclass(frozen=True)
class Axis:
    """One column of a synthetic table: its public cells (labels), and how a row falls in one (``part``)."""

    name: str
    labels: tuple[str, ...]
    part: CellPart
    points: tuple[float, ...] = ()  # a numeric column's bounds and edges: cell i is [points[i], points[i + 1])

    @property
    def numeric(self) -> bool:
        return bool(self.points)

    def whole_numbers(self) -> bool:
        """Whether every bound and edge is a whole number: a value drawn in an interval is then a whole number."""
        return all(float(p).is_integer() for p in self.points)


@dataclass(frozen=True)
class SyntheticTable:
    """Public-use microdata: rows drawn from a model fitted to differentially private marginals (OpenDP's
    contingency table, MST or AIM with Private-PGM). A plan entry of its own (``type: synthetic``) that shares
    the plan's budget like any statistic. Some names below (``by``, ``weighted_by``, ``label``) are those of a
    statistic, so that lists of a plan's entries show it beside them."""

    columns: tuple[str, ...]
    edges: tuple[tuple[str, tuple[float, ...]], ...] = ()  # (numeric column, its public edges)
    rows: int | None = None  # None: as many rows as the release counts (a noisy count)
    keep: tuple[tuple[str, ...], ...] = ()  # pairs or triples of columns whose relationship is measured
    numeric_values: str = "interval"
    algorithm: str = "mst"

    type_name: ClassVar[str] = "synthetic"
    by: ClassVar[tuple[str, ...]] = ()
    weighted_by: ClassVar[str | None] = None
    column: ClassVar[str | None] = None
    mechanisms: ClassVar[tuple[MechanismKind, ...]] = (MechanismKind.GAUSSIAN, MechanismKind.LAPLACE)
    error_unit: ClassVar[str] = ""
    computed_from_noisy_sums: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(self.columns))
        object.__setattr__(self, "edges", tuple((str(c), tuple(float(e) for e in es)) for c, es in self.edges))
        object.__setattr__(self, "keep", tuple(tuple(group) for group in self.keep))

    # ------------------------------------------------------------------ as a plan entry

    @property
    def label(self) -> str:
        shown = ", ".join(self.columns[:6]) + (f" and {len(self.columns) - 6} more" if len(self.columns) > 6 else "")
        return f"synthetic microdata ({shown})"

    @property
    def column_names(self) -> tuple[str, ...]:
        return self.columns

    def group_count(self, schema: Schema) -> int:
        return 1

    def edges_of(self, column: str) -> tuple[float, ...]:
        return dict(self.edges).get(column, ())

    def method(self, schema: Schema) -> str:
        name = ALGORITHMS.get(self.algorithm, self.algorithm)
        kept = (f" The relationships of {', '.join('–'.join(g) for g in self.keep)} are measured first (OpenDP's "
                "Fixed workload)." if self.keep else "")
        return (f"Rows drawn from a model fitted (Private-PGM) to differentially private marginals that OpenDP's "
                f"contingency table measured with {name}: every column's one-way marginal, and the pairs of columns "
                f"{name} chose.{kept} Each column is cut into its public cells; relationships not measured are not "
                "preserved.")

    # ------------------------------------------------------------------ checks

    def axes(self, schema: Schema) -> tuple[Axis, ...]:
        """Each column's public cells, checked (raises a ``PlanError`` or ``SchemaError`` naming what to fix)."""
        self.check_shape()
        axes = []
        for name in self.columns:
            spec = schema.column(name)
            if isinstance(spec, CategoricalColumn):
                validated_once(spec)
                if self.edges_of(name):
                    raise PlanError(f"{self.label}: '{name}' is categorical, so it needs no edges; remove them.")
                if len(spec.bins) < 2:
                    raise PlanError(
                        f"{self.label}: '{name}' has one category ('{spec.categories[0]}') and keeps no '(other)', so "
                        "every synthetic row would hold the same value. Leave the column out, or list its other "
                        "public categories."
                    )
                axes.append(Axis(name, spec.bins, Categories(spec)))
            elif isinstance(spec, NumericColumn):
                validated_once(spec)
                edges = self.edges_of(name)
                if not edges:
                    raise PlanError(
                        f"{self.label}: the numeric column '{name}' needs public edges that cut its bounds "
                        f"[{spec.lower:g}, {spec.upper:g}] into intervals, e.g. \"edges\": {{\"{name}\": "
                        f"{_example_edges(spec)}}}: a synthetic table holds a column's cells, as a histogram does. "
                        "Type edges you know without looking at the data."
                    )
                assert spec.lower is not None and spec.upper is not None
                points = (float(spec.lower), *edges, float(spec.upper))
                if any(not low < high for low, high in zip(points, points[1:])):
                    raise PlanError(
                        f"{self.label}: the edges of '{name}' ({', '.join(_exactly(e) for e in edges)}) must increase "
                        f"and lie strictly between its bounds {spec.lower:g} and {spec.upper:g}."
                    )
                labels = tuple(f"[{_exactly(low)}, {_exactly(high)}{']' if i == len(points) - 2 else ')'}"
                               for i, (low, high) in enumerate(zip(points, points[1:])))
                axes.append(Axis(name, labels, Bins(name, edges), points))
            else:
                raise SchemaError(
                    f"{self.label}: '{name}' is described as {spec.kind}; a synthetic table holds categorical columns "
                    "and numeric columns cut at public edges. Describe it, or leave it out."
                )
        cells = math.prod(len(axis.labels) for axis in axes)
        if cells > MAX_CELLS:
            raise PlanError(
                f"{self.label}: its columns have {cells:.3g} combinations of cells, more than this tool numbers "
                f"({MAX_CELLS:.3g}). Leave out a column, or merge categories."
            )
        return tuple(axes)

    def check_shape(self) -> None:
        """What can be checked without the schema: columns named once, edges and kept groups on them, rows."""
        where = self.label
        if len(self.columns) < 2:
            raise PlanError(f"A synthetic table needs at least two columns; it has {len(self.columns)}. Add columns.")
        if len(self.columns) > MAX_COLUMNS:
            raise PlanError(f"{where}: at most {MAX_COLUMNS} columns; it has {len(self.columns)}.")
        if len(set(self.columns)) != len(self.columns):
            raise PlanError(f"{where}: a column is named twice; name each column once.")
        for name, edges in self.edges:
            if name not in self.columns:
                raise PlanError(f"{where}: edges are given for '{name}', which is not one of its columns.")
            if not edges or any(not math.isfinite(e) for e in edges):
                raise PlanError(f"{where}: the edges of '{name}' must be a list of numbers, such as [18, 30, 65].")
        for group in self.keep:
            if not 2 <= len(group) <= MAX_KEPT or len(set(group)) != len(group):
                raise PlanError(
                    f"{where}: each relationship to keep is a pair or a triple of different columns, such as "
                    f"[\"educ\", \"weekinc\"]; {list(group)} is not."
                )
            absent = [c for c in group if c not in self.columns]
            if absent:
                raise PlanError(f"{where}: the relationship to keep {list(group)} names "
                                f"{', '.join(map(repr, absent))}, which is not one of its columns.")
        if self.rows is not None and not 1 <= self.rows <= MAX_ROWS:
            raise PlanError(
                f"{where}: {self.rows:,} rows asked; a synthetic table holds from 1 to {MAX_ROWS:,} rows. Ask for "
                "fewer (leave it empty for as many as the release counts, up to that limit)."
            )
        if self.numeric_values not in NUMERIC_VALUES:
            raise PlanError(f"{where}: 'numeric_values' is \"interval\" (the interval's label) or \"uniform\" (a "
                            f"value drawn inside it), not {self.numeric_values!r}.")
        if self.algorithm not in ALGORITHMS:
            raise PlanError(f"{where}: 'algorithm' is \"mst\" (the default, faster) or \"aim\", not {self.algorithm!r}.")

    # ------------------------------------------------------------------ JSON

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type_name,
            "columns": list(self.columns),
            "edges": {name: [_number(e) for e in edges] for name, edges in self.edges},
            "rows": self.rows,
            "keep": [list(group) for group in self.keep],
            "numeric_values": self.numeric_values,
            "algorithm": self.algorithm,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> "SyntheticTable":
        columns = data.get("columns")
        if not isinstance(columns, list) or not all(isinstance(c, str) and c for c in columns):
            raise PlanError(f"{where}: a synthetic table needs 'columns', a list of column names, such as "
                            "[\"state\", \"educ\", \"weekinc\"].")
        edges = data.get("edges") or {}
        if not isinstance(edges, dict) or any(
                not isinstance(v, list) or not all(is_finite_real(e) for e in v) for v in edges.values()):
            raise PlanError(f"{where}: 'edges' gives each numeric column its public edges, such as "
                            "{\"weekinc\": [250, 500, 1000, 2000]}.")
        rows = data.get("rows")
        if rows is not None and (not is_whole_number(rows) or isinstance(rows, bool)):
            raise PlanError(f"{where}: 'rows' is the number of rows to write (a whole number), or null for as many as "
                            f"the release counts; not {rows!r}.")
        keep = data.get("keep") or []
        if not isinstance(keep, list) or not all(
                isinstance(g, list) and all(isinstance(c, str) for c in g) for g in keep):
            raise PlanError(f"{where}: 'keep' lists pairs or triples of columns whose relationship is kept, such as "
                            "[[\"educ\", \"weekinc\"]].")
        numeric_values = data.get("numeric_values", "interval")
        algorithm = data.get("algorithm", "mst")
        if not isinstance(numeric_values, str) or not isinstance(algorithm, str):
            raise PlanError(f"{where}: 'numeric_values' and 'algorithm' are words, such as \"interval\" and \"mst\".")
        table = cls(columns=tuple(columns), edges=tuple((k, tuple(v)) for k, v in edges.items()),
                    rows=None if rows is None else int(rows), keep=tuple(tuple(g) for g in keep),
                    numeric_values=numeric_values, algorithm=algorithm)
        try:
            table.check_shape()
        except PlanError as exc:
            raise PlanError(f"{where}: {exc}") from None
        return table


def _exactly(value: float) -> str:
    return np.format_float_positional(value, trim="-")


def _number(value: float) -> int | float:
    return int(value) if float(value).is_integer() and abs(value) < 2**53 else float(value)


def _example_edges(spec: NumericColumn) -> str:
    if spec.lower is None or spec.upper is None:
        return "[...]"
    step = (spec.upper - spec.lower) / 4
    return "[" + ", ".join(_exactly(float(f"{spec.lower + i * step:.3g}")) for i in (1, 2, 3)) + "]"


SYNTHETIC_WARNINGS = (
    "Relationships between columns that were not measured are not preserved: the model keeps the one-way marginals "
    "and the marginals listed here with their distance; any other relationship in the file comes from the model's "
    "assumptions, not from the data. Analyse the synthetic file only for what was measured.",
    "The file holds no real person: every row is drawn from a model fitted to noisy marginals. A row that resembles "
    "a real person does so by chance, and the file's rows cannot be traced back to anyone.",
)
DRAWN_WORDS = ("Rows drawn from the fitted model (post-processing: it costs no ε); a numeric column written as its "
               "interval, or as a value drawn uniformly inside it.")
