"""The content fingerprint: the same table from any file, format or order is recognised (issue 19, 4)."""

import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pyreadstat
import pytest
from realistic_tables import REGIONS, labour_force

from workbench.cli import main
from workbench.core.data.fingerprint import content_digest
from workbench.core.data.io import load_table
from workbench.core.release.ledger import Ledger


def survey() -> pd.DataFrame:
    """Realistic rows with missing values in a number column and in a text column."""
    frame = labour_force(800)
    frame.loc[frame.index[::37], "ethnicity"] = None
    frame["hours"] = np.where(np.arange(len(frame)) % 3 == 0, 37.5, 40.0)  # a non-integer number
    return frame


def copies(frame: pd.DataFrame, folder) -> dict[str, object]:
    """The table as CSV, Excel, Parquet, SPSS and Stata, as a CSV with rows and columns shuffled, as Parquet
    with rows shuffled, saved with their index, unnamed (``labelled``) or a column (``indexed``: ``person``), and
    as Parquet with ``person`` (1 to 800, in order) its index, which pandas keeps as a RangeIndex in the file's
    metadata alone (``numbered``)."""
    paths = {kind: folder / f"survey.{kind}" for kind in ("csv", "xlsx", "parquet", "sav", "dta")}
    frame.to_csv(paths["csv"], index=False)
    frame.to_excel(paths["xlsx"], index=False)
    frame.to_parquet(paths["parquet"])
    pyreadstat.write_sav(frame, str(paths["sav"]))
    pyreadstat.write_dta(frame, str(paths["dta"]))
    shuffled = frame.sample(frac=1.0, random_state=5)[list(reversed(frame.columns))]
    paths["shuffled"] = folder / "shuffled.csv"
    shuffled.to_csv(paths["shuffled"], index=False)
    # pandas keeps the index by default: the shuffled rows' labels (an unnamed index) are no column on any engine,
    # a named index is an ordinary one on every engine (issue 34)
    paths["labelled"] = folder / "labelled.parquet"
    frame.sample(frac=1.0, random_state=6).to_parquet(paths["labelled"])
    paths["indexed"] = folder / "indexed.parquet"
    frame.sample(frac=1.0, random_state=7).set_index("person").to_parquet(paths["indexed"])
    # pandas 3 makes ids 1, 2, ... n a RangeIndex: stored as no column, an ordinary one on every engine (issue 34)
    paths["numbered"] = folder / "numbered.parquet"
    frame.sort_values("person").set_index(pd.RangeIndex(1, len(frame) + 1, name="person")).drop(
        columns="person").to_parquet(paths["numbered"])
    assert "person" not in pq.read_schema(paths["numbered"]).names
    return paths


def test_the_same_table_in_every_format_and_any_order_has_one_digest(tmp_path):
    frame = survey()
    digests = {kind: content_digest(load_table(path).frame) for kind, path in copies(frame, tmp_path).items()}
    assert len(set(digests.values())) == 1, digests
    assert load_table(tmp_path / "survey.sav").frame["sex"].dtype != load_table(tmp_path / "survey.csv").frame["sex"].dtype


@pytest.mark.parametrize("change", ["one value", "one row fewer", "a column renamed", "a missing value filled"])
def test_any_change_to_the_content_changes_the_digest(change):
    frame = survey()
    changed = frame.copy()
    if change == "one value":
        changed.loc[changed.index[10], "wage"] = changed["wage"].iloc[10] + 10
    elif change == "one row fewer":
        changed = changed.iloc[1:]
    elif change == "a column renamed":
        changed = changed.rename(columns={"wage": "wages"})
    else:
        changed["wage"] = changed["wage"].fillna(0.0)
    assert frame["wage"].isna().any()
    assert content_digest(changed) != content_digest(frame)


def test_a_duplicated_row_is_not_the_same_table():
    frame = survey()
    assert content_digest(pd.concat([frame, frame.iloc[:1]])) != content_digest(frame)


def count_plan(name: str) -> dict:
    return {
        "format": "dp-workbench-plan", "version": 1, "dataset": {"name": name, "size_estimate": 800},
        "schema": {"columns": [{"name": "region", "kind": "categorical", "categories": list(REGIONS)}],
                   "privacy_unit": {"id_column": None, "max_rows_per_person": 1}, "neighbouring": "add_remove"},
        "statistics": [{"type": "histogram", "column": "region", "mechanism": "laplace", "epsilon": 0.5}],
        "total_budget": {"epsilon": 0.5, "delta": 0.0},
    }


def test_the_same_data_from_another_format_cannot_start_a_fresh_budget(tmp_path, capsys, private_ledger):
    """Released from the CSV as one dataset; the .sav copy (shuffled rows, another name) is refused before
    anything is charged, and the ledger stores the content fingerprint only as a keyed hash, never exported."""
    frame = survey()
    paths = copies(frame, tmp_path)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(count_plan("Labour force")))
    assert main(["release", str(paths["csv"]), "--plan", str(plan), "--out", str(tmp_path / "first"),
                 "--dataset-budget", "3", "1e-6"]) == 0
    capsys.readouterr()

    shuffled = frame.sample(frac=1.0, random_state=9)
    pyreadstat.write_sav(shuffled, str(tmp_path / "copy.sav"))
    (tmp_path / "again.json").write_text(json.dumps(count_plan("Labour force again")))
    entries_before = len(Ledger(private_ledger).entries())
    assert main(["release", str(tmp_path / "copy.sav"), "--plan", str(tmp_path / "again.json"),
                 "--out", str(tmp_path / "second"), "--dataset-budget", "3", "1e-6"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "already in the ledger as dataset 'Labour force'" in err and "another format" in err
    assert not (tmp_path / "second").exists()
    assert len(Ledger(private_ledger).entries()) == entries_before

    ledger = Ledger(private_ledger)
    stored = ledger.entries()[0].data["content_fingerprint"]
    assert stored == ledger.content_fingerprint(load_table(paths["dta"]).frame)
    assert stored != content_digest(frame).hex()  # keyed: not the plain digest
    out = tmp_path / "ledger.json"
    assert main(["ledger", "export", "--format", "json", "--out", str(out)]) == 0
    assert stored not in out.read_text() and "fingerprint" not in out.read_text()


def test_every_engine_computes_the_in_memory_digest(tmp_path, spark):
    """Out of core and on Spark the engine computes the digest where the data are: the same as in memory, for the
    CSV and the Parquet copy alike (issue 34: without it, the same table read out of core got a fresh budget)."""
    from workbench.core.data.out_of_core import OutOfCoreData, file_source
    from workbench.core.data.schema import CategoricalColumn, Schema
    from workbench.core.data.spark_engine import SparkData, spark_source

    frame = survey()
    paths = copies(frame, tmp_path)
    expected = content_digest(frame)
    schema = Schema((CategoricalColumn("region", REGIONS),))
    for kind in ("labelled", "indexed", "numbered"):  # in memory as out of core: pandas' row labels no column, an
        assert content_digest(load_table(paths[kind]).frame) == expected, kind  # index named (stored or range) one
    for kind in ("csv", "parquet", "shuffled", "labelled", "indexed", "numbered"):
        with OutOfCoreData(file_source(paths[kind]), schema) as data:
            assert data.content_digest() == expected, kind
    for kind in ("csv", "parquet", "labelled", "indexed", "numbered"):
        with SparkData(spark_source(paths[kind]), schema, spark=spark) as data:
            assert data.content_digest() == expected, kind


@pytest.mark.parametrize("copy", ["shuffled", "labelled", "indexed", "numbered"])
def test_the_same_data_out_of_core_cannot_start_a_fresh_budget(tmp_path, capsys, private_ledger, copy):
    """The shuffled CSV, and the shuffled Parquet copies pandas saved with their index (issue 34: with the row labels
    read as a column, out of core, that copy started a fresh budget), are refused out of core, and so is the copy
    in order whose ids pandas keeps as a named RangeIndex (no column in the file: it was no column on any engine,
    so that copy and the shuffled one, its ids a column, started fresh budgets of each other)."""
    frame = survey()
    paths = copies(frame, tmp_path)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(count_plan("Labour force")))
    assert main(["release", str(paths["sav"]), "--plan", str(plan), "--out", str(tmp_path / "first"),
                 "--dataset-budget", "3", "1e-6"]) == 0
    capsys.readouterr()
    (tmp_path / "again.json").write_text(json.dumps(count_plan("Labour force again")))
    assert main(["release", str(paths[copy]), "--plan", str(tmp_path / "again.json"), "--engine", "out-of-core",
                 "--out", str(tmp_path / "second"), "--dataset-budget", "3", "1e-6"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "already in the ledger as dataset 'Labour force'" in err
    assert len(Ledger(private_ledger).entries()) == 2  # the registration and the first release only


def test_tokens_made_per_distinct_value_give_the_digest_of_every_row_read_by_itself(monkeypatch):
    """A text column of few distinct values has its tokens made once per distinct value (``_few_distinct``):
    the digest is the one of every row read by the SQL itself, with spaces, missing words, numbers written in
    several ways, truth words and nulls among the values; a column of mostly distinct values is read row by row."""
    from workbench.core.data import fingerprint

    rng = np.random.default_rng(7)
    spellings = ["North", " North ", "north", "", "NA", "n/a", "1", "1.0", "01", " 1e3", "-0", "0.1", "inf", "-Infinity",
                 "True", "false", "1.5e-7", "123456789012345678", "x y", "\u00a0South\u3000"]
    rows = 5_000
    frame = pd.DataFrame({
        "few": pd.array(rng.choice(spellings, rows), dtype="str"),
        "with_nulls": pd.array(np.where(rng.random(rows) < 0.2, None, rng.choice(spellings, rows)), dtype="str"),
        "objects": pd.Series(rng.choice(spellings, rows), dtype=object),
        "distinct": pd.array([f"{v:.6f}" for v in rng.random(rows)], dtype="str"),
        "number": rng.integers(0, 5, rows),
    })
    few = [name for name in frame.columns[:4] if fingerprint._few_distinct(frame[name]) is not None]
    assert few == ["few", "with_nulls", "objects"]
    made = content_digest(frame)
    monkeypatch.setattr(fingerprint, "_few_distinct", lambda series: None)  # every text column read row by row
    assert content_digest(frame) == made
