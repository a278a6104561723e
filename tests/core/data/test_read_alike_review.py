"""Files the in-memory and out-of-core engines once read differently, or refused with a traceback, after issue 34
(its review): each now read alike, or refused alike with a message that says what to do. (What the Spark engine must
do to agree is said where it does not yet.)"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from workbench.core.data import load_table, prepare
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import CategoricalColumn, NumericColumn, OutsideCategories, Schema
from workbench.core.errors import DataFileError, WorkbenchError

ENGINES = ["memory", "out-of-core"]


def prepared(engine: str, path: Path, schema: Schema, **options) -> list[tuple]:
    """The prepared rows, sorted (DuckDB may hand row groups back in either order; each row keeps its values)."""
    if engine == "memory":
        frame = prepare(load_table(path, **options), schema).prepared_rows()
    else:
        with OutOfCoreData(file_source(path, **options), schema) as data:
            frame = data.prepared_rows()
    return sorted(tuple(None if isinstance(v, float) and math.isnan(v) else v + 0.0 for v in row)
                  for row in frame.itertuples(index=False))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stored_column_named_like_the_engines_own_is_not_read_for_a_named_range_index(tmp_path, engine):
    """Out of core the RangeIndex's values had a fixed name, dp_range_index: a file storing a column so named had
    that column read as pid (100, 200, 300), where in memory pid is 1, 2, 3."""
    path = tmp_path / "collide.parquet"
    pd.DataFrame({"x": [1.0, 2, 3], "dp_range_index": [100, 200, 300], "DP_RANGE_INDEX_": [7, 8, 9]},
                 index=pd.RangeIndex(1, 4, name="pid")).to_parquet(path)
    schema = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 1000), NumericColumn("dp_range_index", 0, 1000)))
    assert prepared(engine, path, schema) == [(1.0, 1.0, 100.0), (2.0, 2.0, 200.0), (3.0, 3.0, 300.0)]


def test_a_file_row_number_column_of_any_case_is_refused_with_a_named_range_index_out_of_core(tmp_path):
    path = tmp_path / "numbered.parquet"
    pd.DataFrame({"x": [1.0, 2], "File_Row_Number": [5, 6]}, index=pd.RangeIndex(1, 3, name="pid")).to_parquet(path)
    schema = Schema((NumericColumn("x", 0, 10), NumericColumn("pid", 0, 10)))
    assert prepared("memory", path, schema) == [(1.0, 1.0), (2.0, 2.0)]
    with pytest.raises(DataFileError, match="column 'File_Row_Number' and a named pandas RangeIndex"):
        prepared("out-of-core", path, schema)
