"""The out-of-core engine that cannot write its spill files (its temporary folder full or unusable) refuses with
where that folder is and what to do, not with DuckDB's raw error nor as a data file that cannot be read."""

from __future__ import annotations

import tempfile
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from workbench.core.data import out_of_core
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import CategoricalColumn, IdentifierColumn, NumericColumn, PrivacyUnit, Schema
from workbench.core.errors import DataFileError

SCHEMA = Schema((IdentifierColumn("person"), NumericColumn("x", 0, 1),
                 CategoricalColumn("c", tuple(str(i) for i in range(50)))), unit=PrivacyUnit("person", 1))


def _file(path: Path, rows: int) -> Path:
    r = np.random.default_rng(0)
    pd.DataFrame({"person": np.arange(rows) // 2, "x": r.random(rows),
                  "c": r.integers(0, 50, rows).astype(str)}).to_csv(path, index=False)
    return path


def test_a_spill_folder_that_cannot_be_made_is_refused_naming_the_temporary_folder(tmp_path, monkeypatch):
    real = tempfile.mkdtemp

    def unusable(*args, **named):  # the engine's folder with a plain file where its spill folder would be
        folder = real(*args, **named)
        (Path(folder) / "spill").write_text("not a folder", encoding="utf-8")
        return folder

    monkeypatch.setattr(out_of_core.tempfile, "mkdtemp", unusable)
    path = _file(tmp_path / "big.csv", 100_000)
    with pytest.raises(DataFileError, match="could not write to its temporary folder .*Free disk space") as caught:
        OutOfCoreData(file_source(path), SCHEMA, memory_limit="16MB", threads=1)  # must spill
    assert "delimiter" not in str(caught.value) and str(Path(tempfile.gettempdir())) in str(caught.value)


@pytest.mark.parametrize("error", [
    duckdb.FatalException("FATAL Error: Failed to create checkpoint because of error: No space left on device"),
    "io about the folder",
])
def test_duckdbs_fatal_or_folder_errors_are_refused_as_spill_failures(tmp_path, error):
    path = _file(tmp_path / "small.csv", 100)
    with OutOfCoreData(file_source(path), SCHEMA) as engine:
        if error == "io about the folder":
            error = duckdb.IOException(f'IO Error: Could not write file "{engine._folder / "spill" / "x.block"}"')

        def fail():
            raise error

        with pytest.raises(DataFileError, match="could not write to its temporary folder"):
            engine._guarded(fail)

        def elsewhere():  # an I/O error about the data file stays one
            raise duckdb.IOException(f'IO Error: Could not read file "{path}"')

        with pytest.raises(DataFileError, match="cannot be read"):
            engine._guarded(elsewhere)
