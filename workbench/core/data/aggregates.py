"""What a statistic asks of the data, as a value: integer sums and counts per cell.

Every exact answer a release needs is a sum, over the rows complete in some columns, of an
integer computed from each row, split into cells by the row's categories, bins or rank slot.
Written as a value rather than as numpy code, the same request is computed by any engine: in
memory by numpy (``PreparedData``), out of core by DuckDB (``out_of_core``). Both evaluate the
same arithmetic in the same order on IEEE doubles and round ties to even, so their answers are
identical, not merely close; the tests compare them.

Expressions read like the numpy they replace: ``rint(Column("x") / unit) - centre``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol, Sequence, Union

import numpy as np

from workbench.core.data.schema import CategoricalColumn, OutsideCategories, Schema

Number = Union[int, float]


class Expression:
    """A per-row number: a column's prepared value, a constant, or arithmetic on them."""

    def __add__(self, other: Expression | Number) -> Expression:
        return Arithmetic("+", self, _wrap(other))

    def __sub__(self, other: Expression | Number) -> Expression:
        return Arithmetic("-", self, _wrap(other))

    def __mul__(self, other: Expression | Number) -> Expression:
        return Arithmetic("*", self, _wrap(other))

    def __truediv__(self, other: Expression | Number) -> Expression:
        return Arithmetic("/", self, _wrap(other))


@dataclass(frozen=True, eq=False)
class Column(Expression):
    """A prepared (clamped, imputed) numeric column, as a double."""

    name: str


@dataclass(frozen=True, eq=False)
class Constant(Expression):
    """An integer stays an integer (a grid offset); a float is a double (a grid step)."""

    value: Number


@dataclass(frozen=True, eq=False)
class Arithmetic(Expression):
    operator: str  # + - * /
    left: Expression
    right: Expression


@dataclass(frozen=True, eq=False)
class Rint(Expression):
    """The nearest integer, ties to even (numpy's ``rint``), as a 64-bit integer."""

    argument: Expression


@dataclass(frozen=True, eq=False)
class Clip(Expression):
    """An integer kept within [lower, upper]."""

    argument: Expression
    lower: int
    upper: int


def rint(expression: Expression) -> Expression:
    return Rint(expression)


def clip(expression: Expression, lower: int, upper: int) -> Expression:
    return Clip(expression, int(lower), int(upper))


def _wrap(value: Expression | Number) -> Expression:
    return value if isinstance(value, Expression) else Constant(value)


# ---------------------------------------------------------------- cells


@dataclass(frozen=True, eq=False)
class Categories:
    """A row's bin among a categorical column's public bins (left out: a value outside them, dropped)."""

    spec: CategoricalColumn

    @property
    def column(self) -> str:
        return self.spec.name

    @property
    def size(self) -> int:
        return len(self.spec.bins)


@dataclass(frozen=True, eq=False)
class Bins:
    """A row's bin between public edges of a clamped numeric column: [lower, e1) is 0, ..., [ek, upper] is k."""

    column: str
    edges: tuple[float, ...]

    @property
    def size(self) -> int:
        return len(self.edges) + 1


@dataclass(frozen=True, eq=False)
class RankSlots:
    """Where a row's value lies among sorted public candidates c_0 < ... < c_{m-1}: slot 2j + 1 is "equal to
    c_j", slot 2j is "strictly between c_{j-1} and c_j" (2m: above them all). The counts per slot give
    every candidate's rows below and at or below, which quantile selection and its check read."""

    column: str
    candidates: tuple[float, ...]

    @property
    def size(self) -> int:
        return 2 * len(self.candidates) + 1


CellPart = Union[Categories, Bins, RankSlots]


@dataclass(frozen=True, eq=False)
class Aggregate:
    """Per cell, the rows' count (``value`` None) or the exact sum of an integer ``value``, over the rows
    present in every one of ``rows``. Cells combine ``parts``, the last varying fastest; without parts,
    one cell."""

    rows: tuple[str, ...]
    parts: tuple[CellPart, ...] = ()
    value: Expression | None = None

    @property
    def size(self) -> int:
        return math.prod(part.size for part in self.parts)


@dataclass(frozen=True, eq=False)
class Answer:
    """An aggregate's exact answer, sparse: the cells that hold rows, ascending, and their totals (Python
    integers: a sum over many rows can pass 2^63). Private: only noise may touch it."""

    cells: np.ndarray
    totals: Sequence[int]
    size: int

    def dense(self) -> list[int]:
        out = [0] * self.size
        for cell, total in zip(self.cells.tolist(), self.totals):
            out[cell] = int(total)
        return out


class Engine(Protocol):
    """Prepared data, wherever it lives, that answers aggregates exactly (``PreparedData`` in memory,
    ``out_of_core.OutOfCoreData`` on the file). Private: only noise may touch what it returns."""

    schema: Schema

    @property
    def rows(self) -> int: ...

    def aggregate(self, request: Aggregate) -> Answer: ...


def category_lookup(spec: CategoricalColumn, texts: Sequence[str]) -> np.ndarray:
    """The bin of each category text in ``spec.bins`` (-1: outside the list and dropped)."""
    positions = {category: i for i, category in enumerate(spec.categories)}
    other = len(spec.categories) if spec.outside is OutsideCategories.OTHER else -1
    return np.array([positions.get(text, other) for text in texts], dtype=np.int64)


_CHUNK = 1 << 20  # rows per exact int64 partial sum: 2^20 * 2^32 < 2^63


def exact_sum(values: np.ndarray) -> int:
    """The exact integer sum of int64 values (partial sums stay far below 2^63)."""
    return sum(int(values[i : i + _CHUNK].sum(dtype=np.int64)) for i in range(0, len(values), _CHUNK))


_LOW_BITS = 31  # a value splits into v >> 31 and its low 31 bits; each part's float sums over a chunk are exact


def exact_sums_by_cell(codes: np.ndarray, values: np.ndarray, size: int) -> tuple[np.ndarray, list[int]]:
    """The cells that hold rows (sorted) and the exact integer sum of ``values`` in each, for cells numbered below
    ``size``: by counting into an array of all cells, twenty times faster than sorting the rows by cell. Each int64
    value is split into its high part (below 2^32 in magnitude) and its low 31 bits; their sums over 2^20 rows stay
    below 2^53, where doubles are exact, and their totals below 2^63 for fewer than 2^30 rows."""
    if len(codes) >= 1 << 30:
        raise ValueError("more rows than exact_sums_by_cell adds up exactly")
    high, low, rows = (np.zeros(size, dtype=np.int64) for _ in range(3))
    mask = (1 << _LOW_BITS) - 1
    for start in range(0, len(codes), _CHUNK):
        cells, chunk = codes[start:start + _CHUNK], values[start:start + _CHUNK]
        low += np.bincount(cells, weights=(chunk & mask).astype(np.float64), minlength=size).astype(np.int64)
        high += np.bincount(cells, weights=(chunk >> _LOW_BITS).astype(np.float64), minlength=size).astype(np.int64)
        rows += np.bincount(cells, minlength=size)
    held = np.flatnonzero(rows)
    return held, [(h << _LOW_BITS) + lo for h, lo in zip(high[held].tolist(), low[held].tolist())]
