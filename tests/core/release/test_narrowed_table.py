"""A table narrowed to a plan's columns (``load_table(columns=...)``) is recognised by the digest of all of its
columns: its frame is never hashed, which would make known data look new, with a fresh budget."""

import numpy as np
import pandas as pd
import pytest

from workbench.core.data import load_table
from workbench.core.data.fingerprint import content_digest
from workbench.core.privacy import Guarantee
from workbench.core.release.category_discovery import discover_categories
from workbench.core.release.ledger import Ledger, LedgerError
from workbench.core.release.plan import ReleasePlan


def _plan(name: str) -> ReleasePlan:
    return ReleasePlan.from_json({
        "format": "dp-workbench-plan", "version": 1, "dataset": {"name": name},
        "schema": {"columns": [{"name": "person", "kind": "identifier"},
                               {"name": "job", "kind": "categorical", "categories": ["x"]}],
                   "unit": {"id_column": "person", "max_rows": 1}},
        "statistics": [{"type": "count", "mechanism": "laplace", "epsilon": 0.5}], "total_budget": {"epsilon": 0.5}})


@pytest.fixture
def jobs(tmp_path):
    rng = np.random.default_rng(5)
    path = tmp_path / "jobs.csv"
    pd.DataFrame({"person": range(2000), "job": rng.choice(["clerk", "nurse"], 2000),
                  "town": rng.choice(["Köln", "Porto"], 2000)}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_the_frame_of_a_narrowed_table_is_never_hashed(jobs, suffix):
    path = jobs
    if suffix == ".parquet":
        path = jobs.with_suffix(suffix)
        pd.read_csv(jobs).to_parquet(path)
    narrowed = load_table(path, columns=["job"])
    assert narrowed.narrowed and narrowed.columns == ("job",)
    with pytest.raises(ValueError, match="narrowed"):
        content_digest(narrowed.frame)
    assert not load_table(path).narrowed


def test_categories_found_in_a_narrowed_table_are_charged_to_the_whole_table(jobs, private_ledger):
    ledger = Ledger(private_ledger)
    narrowed = load_table(jobs, columns=["person", "job"])
    discover_categories(narrowed, _plan("A"), "job", 1.0, 1e-7, ledger, Guarantee(3.0, 1e-6, "total budget"))
    with pytest.raises(LedgerError, match="already in the ledger as dataset 'A'"):
        discover_categories(load_table(jobs), _plan("B"), "job", 1.0, 1e-7, ledger, Guarantee(3.0, 1e-6, "total"))
