"""A text file's plan columns prepared block by block as the file is read, each block's text then let go.

``prepare`` of a whole loaded table holds every kept column's text (a release of 8 columns of a 2,000,000-row CSV:
about 200 MB of text for 72 MB of prepared values). Each of its steps but the person-level ones (rows without an
id, each person's first k rows) reads a value by itself (DESIGN rule 3), so under a row-level unit the prepared
arrays are the blocks' prepared arrays one after the other, bit for bit: a block's numbers read, imputed and
clamped, its categories binned, as ``prepare`` does each value of the whole column. So is the category check's
presence of the public categories (``reading.category_presence``, merged over the blocks).

A value that is not a number refuses nothing while the file is read: the release refuses it where ``prepare``
would, after the ledger's own refusals (``BlockPreparer.prepared``), naming the same count and the same first
value in file order. A person-level plan is prepared from the whole text as before (``streams``).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import pandas as pd
import pyarrow as pa

from workbench.core.data.prepare import PreparedData, prepared_bins, prepared_numbers
from workbench.core.data.reading import (
    CategoryPresence,
    NumbersRead,
    category_bins,
    category_presence,
    counted_numbers,
    merged,
)
from workbench.core.data.schema import CategoricalColumn, NumericColumn, Schema


class BlockPreparer:
    """Prepares the blocks of a text file given to ``add`` for ``schema`` (a row-level one: ``streams``), in file
    order; ``prepared`` gives the whole file's ``PreparedData`` (or refuses it as ``prepare`` would), ``presences``
    each categorical column's ``CategoryPresence`` over every row. Private, as the prepared data is."""

    def __init__(self, schema: Schema, file_name: str) -> None:
        schema.validate()  # an unsound schema (a bound missing) is refused as ``prepare`` refuses it, not mid-read
        self.schema, self.file_name = schema, file_name
        self._specs = [s for s in schema.columns if isinstance(s, (NumericColumn, CategoricalColumn))]
        self._columns: dict[str, _Growing] = {spec.name: _Growing() for spec in self._specs}
        self._bad: dict[str, NumbersRead] = {}  # per numeric column: its count of values not numbers, first example
        self._presences: dict[str, CategoryPresence] = {
            spec.name: CategoryPresence(frozenset(), frozenset(), False)
            for spec in self._specs if isinstance(spec, CategoricalColumn)}
        self._rows = 0
        self._done: dict[str, np.ndarray] | None = None
        self.streamed = False  # the whole file was read and prepared here (``finish``)

    @staticmethod
    def streams(schema: Schema) -> bool:
        """Whether ``schema``'s data can be prepared block by block: under a row-level unit (a person-level one
        leaves rows out by what other rows hold: the person's id, read whole)."""
        return schema.unit.id_column is None

    @property
    def rows(self) -> int:
        """The rows added so far. Private: a count must be released with noise."""
        return self._rows

    def add(self, block: pa.RecordBatch, names: Sequence[str]) -> None:
        """Prepare the next block of the file: its columns (every value the text in the file) named ``names``."""
        frame = pa.Table.from_batches([block]).rename_columns(list(names)).to_pandas()  # as ``load_table`` makes them
        self._rows += len(frame)
        for spec in self._specs:
            column = frame[spec.name]
            if isinstance(spec, NumericColumn):
                self._add_numbers(spec, column)
            else:
                bins = category_bins(column, spec)  # a text file declares no value labels
                self._presences[spec.name] = merged(self._presences[spec.name],
                                                    category_presence(column, spec, bins=bins))
                self._columns[spec.name].add(prepared_bins(bins, spec))
        # the block's working memory (Arrow's, for the kernels that read it) is given back at once: its pool
        # (mimalloc) kept tens of MB of it while the file was read, and after (0.1 ms a block)
        pa.default_memory_pool().release_unused()

    def _add_numbers(self, spec: NumericColumn, column: pd.Series) -> None:
        read = counted_numbers(column, spec.name, self.file_name)
        if read.bad:
            before = self._bad.get(spec.name)
            self._bad[spec.name] = NumbersRead(np.empty(0), (before.bad if before else 0) + read.bad,
                                               before.example if before else read.example)
            self._columns[spec.name] = _Growing()  # refused: its values will not be read
        elif spec.name not in self._bad:
            self._columns[spec.name].add(prepared_numbers(read.values, spec))

    def finish(self) -> None:
        """The file is read: each column's values are all there."""
        done = {}
        for spec in self._specs:
            column = self._columns.pop(spec.name)
            if spec.name not in self._bad:
                done[spec.name] = column.values() if column.length else \
                    (prepared_numbers(np.empty(0), spec) if isinstance(spec, NumericColumn)
                     else prepared_bins(np.empty(0, dtype=np.int64), spec))
        self._done, self.streamed = done, True

    @property
    def presences(self) -> Mapping[str, CategoryPresence]:
        """Each categorical column's presence of its public categories, over every row of the file (before any
        value is imputed). Private: for the curator's check of the public lists (``release.category_check``)."""
        return dict(self._presences)

    def prepared(self) -> PreparedData:
        """The file's prepared data, as ``prepare`` gives it of the whole table: refused as ``prepare`` refuses it
        (the first numeric column in the schema's order with a value not a number; the schema, frozen, was checked
        when this preparer was made)."""
        if self._done is None:
            raise RuntimeError("the file is not read to its end: nothing is prepared")
        for spec in self._specs:
            if spec.name in self._bad:
                self._bad[spec.name].checked(spec.name, self.file_name)
        return PreparedData(schema=self.schema, columns=self._done, length=self._rows)


class _Growing:
    """A column's prepared values, block after block, in one array grown in place (``ndarray.resize``: a large
    array is moved by the system's page tables, not copied): the blocks' arrays joined at the end held the column
    twice, and left the process's heap full of holes the size of the column."""

    _FIRST = 1 << 16  # rows

    def __init__(self) -> None:
        self._array: np.ndarray | None = None
        self.length = 0

    def add(self, values: np.ndarray) -> None:
        end = self.length + len(values)
        if self._array is None:
            self._array = np.empty(max(self._FIRST, end), dtype=values.dtype)
        elif end > len(self._array):
            self._array.resize(max(end, len(self._array) * 3 // 2), refcheck=False)
        self._array[self.length:end] = values
        self.length = end

    def values(self) -> np.ndarray:
        """The values added, in order (the array itself, cut to their length: then nothing more is added)."""
        assert self._array is not None
        array, self._array = self._array, None
        array.resize(self.length, refcheck=False)
        return array
