"""The command line's in-memory release of a text file under a row-level unit prepares the plan's columns block by
block as the file is read (``prepare_stream``; issue 39): the ledger recognises the file as ever, the public
categories are checked against every row alike, and a value that is not a number is refused where it was, after the
ledger's own refusals."""

import json

import numpy as np
import pandas as pd
import pytest

from workbench.cli import main
from workbench.core.data.prepare_stream import BlockPreparer


def _plan(tmp_path, sample_plan_path, name: str, row_level: bool = True, respelled: bool = False):
    plan = json.loads(sample_plan_path.read_text())
    plan["dataset"]["name"] = name
    if row_level:
        plan["schema"]["privacy_unit"] = {"id_column": None, "max_rows_per_person": 1}
    if respelled:  # the data say "Capital"
        region = next(c for c in plan["schema"]["columns"] if c["name"] == "region")
        region["categories"] = [c if c != "Capital" else "capital" for c in region["categories"]]
    path = tmp_path / f"{name}{'' if row_level else '-person'}{'-respelled' if respelled else ''}.plan.json"
    path.write_text(json.dumps(plan))
    return path


@pytest.fixture
def streamed(monkeypatch):
    """The files each release prepared as they were read."""
    finished, real_finish = [], BlockPreparer.finish

    def finish(self):
        finished.append(self.file_name)
        real_finish(self)

    monkeypatch.setattr(BlockPreparer, "finish", finish)
    return finished


def test_a_row_level_release_prepared_as_read_is_recognised_out_of_core(sample_path, sample_plan_path, tmp_path,
                                                                        capsys, private_ledger, streamed):
    assert main(["release", str(sample_path), "--plan", str(_plan(tmp_path, sample_plan_path, "A")), "--engine",
                 "memory", "--out", str(tmp_path / "a"), "--dataset-budget", "3", "1e-6"]) == 0
    assert streamed == [sample_path.name]
    frame = pd.read_csv(sample_path, dtype=str, keep_default_na=False)
    moved = tmp_path / "shuffled.csv"
    frame.iloc[np.random.default_rng(3).permutation(len(frame))].to_csv(moved, index=False)
    capsys.readouterr()
    assert main(["release", str(moved), "--plan", str(_plan(tmp_path, sample_plan_path, "B")), "--engine",
                 "out-of-core", "--out", str(tmp_path / "b"), "--dataset-budget", "3", "1e-6"]) == 2
    assert "already in the ledger as dataset 'A'" in " ".join(capsys.readouterr().err.split())


def test_a_person_level_release_reads_the_whole_text(sample_path, sample_plan_path, tmp_path, private_ledger,
                                                     streamed):
    assert main(["release", str(sample_path), "--plan", str(_plan(tmp_path, sample_plan_path, "A", row_level=False)),
                 "--engine", "memory", "--out", str(tmp_path / "a"), "--dataset-budget", "3", "1e-6"]) == 0
    assert streamed == []


def test_a_value_not_a_number_is_refused_after_the_ledgers_refusals(sample_path, sample_plan_path, tmp_path, capsys,
                                                                    private_ledger, streamed):
    frame = pd.read_csv(sample_path, dtype=str, keep_default_na=False)
    frame.loc[[7000, 15000], "annual_income"] = ["about 30k", "n.a."]
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    plan = _plan(tmp_path, sample_plan_path, "A")
    # a dataset new to the ledger and no budget given: the ledger refuses first, as it did
    assert main(["release", str(bad), "--plan", str(plan), "--engine", "memory", "--out", str(tmp_path / "a")]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "no dataset 'A' yet" in said and "not numbers" not in said
    assert main(["release", str(bad), "--plan", str(plan), "--engine", "memory", "--out", str(tmp_path / "a"),
                 "--dataset-budget", "3", "1e-6"]) == 2
    said = " ".join(capsys.readouterr().err.split())
    assert "Column 'annual_income' in bad.csv is described as numeric, but 2 of its values are not numbers " \
           "(for example 'about 30k')" in said
    assert streamed == ["bad.csv", "bad.csv"]
    assert not (tmp_path / "a" / "results.json").exists()


def test_the_public_categories_are_checked_against_every_row_alike(sample_path, sample_plan_path, tmp_path, capsys,
                                                                    private_ledger, streamed):
    """The same warning as the whole text's check gives (the person-level plan's), and nothing spent."""
    said = []
    for row_level in (True, False):
        plan = _plan(tmp_path, sample_plan_path, "A", row_level=row_level, respelled=True)
        assert main(["release", str(sample_path), "--plan", str(plan), "--engine", "memory", "--out",
                     str(tmp_path / "a"), "--dataset-budget", "3", "1e-6"]) == 2
        said.append(" ".join(capsys.readouterr().err.split()))
    assert streamed == [sample_path.name]
    assert said[0] == said[1] and "'capital' match no row as written" in said[0]
