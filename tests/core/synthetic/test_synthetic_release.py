"""Releasing a synthetic table (issue 36): charged to the ledger before anything is returned, as one event that the
ledger composes and refuses when it would overspend; the ledger keeps the plan and the quality figures, never rows;
a stop before the noise spends nothing and one after it is charged; every engine feeds OpenDP the same prepared
rows; the files are written with the input's labels."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pyreadstat
import pytest

from workbench.core.data import load_table, prepare
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.errors import Cancelled, FailedAfterNoise, WorkbenchError
from workbench.core.privacy import Guarantee
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import ReleasePlan
from workbench.core.release.run import release
from workbench.core.report.synthetic_files import check_formats, write_synthetic
from workbench.core.synthetic import SyntheticTable
from workbench.core.synthetic.fit import _joint_counts, _rows_frame


ROWS = 3000
PLAN = {
    "format": "dp-workbench-plan", "version": 2,
    "dataset": {"name": "Small survey", "size_estimate": ROWS},
    "schema": {"columns": [
        {"name": "person", "kind": "identifier"},
        {"name": "region", "kind": "categorical", "categories": ["North", "South", "East"], "outside": "drop",
         "label": "Region of residence"},
        {"name": "employed", "kind": "categorical", "categories": ["yes", "no"], "outside": "other"},
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 100, "missing": {"action": "drop"}},
    ], "privacy_unit": {"id_column": "person", "max_rows_per_person": 2}, "neighbouring": "add_remove"},
    "statistics": [
        {"type": "count", "mechanism": "laplace", "epsilon": 0.2},
        {"type": "synthetic", "columns": ["region", "employed", "age"], "edges": {"age": [18, 65]},
         "rows": None, "keep": [], "numeric_values": "uniform", "algorithm": "mst", "mechanism": "gaussian",
         "epsilon": 1.0, "delta": 1e-7},
    ],
    "total_budget": {"epsilon": 1.2, "delta": 1e-7},
}


def _survey(path: Path, rows: int = ROWS) -> Path:
    rng = np.random.default_rng(36)
    people = np.arange(rows // 2).repeat(2)  # two rows a person
    age = rng.integers(0, 100, rows).astype(float)
    age[rng.random(rows) < 0.02] = np.nan
    frame = pd.DataFrame({"person": people, "region": rng.choice(["North", "South", "East", "west"], rows,
                                                                  p=[0.6, 0.25, 0.1, 0.05]),
                          "employed": np.where(age < 18, "no", rng.choice(["yes", "no", "maybe"], rows)), "age": age})
    frame.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    folder = tmp_path_factory.mktemp("synthetic")
    data = _survey(folder / "survey.csv")
    ledger = Ledger(folder / "ledger.sqlite")
    plan = ReleasePlan.from_json(PLAN)
    heard: list[str] = []
    result = release(load_table(data), plan, ledger, Guarantee(3.0, 1e-6, "total"), progress=heard.append)
    return result, ledger, plan, data, heard


def test_the_release_is_charged_as_one_event_and_the_ledger_keeps_quality_never_rows(released):
    result, ledger, plan, _, heard = released
    record = ledger.dataset("Small survey")
    assert record.releases == 1 and record.spent.epsilon <= 1.2 + 1e-9
    assert result.ledger is not None and result.ledger["entry"] >= 1  # charged before it was returned
    (entry,) = [e for e in ledger.entries("Small survey") if e.kind == "release"]
    stored = json.dumps(entry.data)
    synthetic = entry.data["release"]["statistics"][1]
    assert synthetic["type"] == "synthetic" and len(synthetic["noise"]) == 1
    assert {m["columns"][0] for m in synthetic["synthetic"]["marginals"] if m["one_way"]} == {"region", "employed", "age"}
    table = result.synthetic_table(synthetic["label"])
    assert table is not None and table.rows == synthetic["synthetic"]["rows"]
    assert abs(table.rows - 2793) < 250  # complete rows: 95% in a listed region, 98% with an age; a noisy count
    # no row of the synthetic table is stored: its ages (whole numbers drawn in the intervals) appear nowhere
    assert "frame" not in stored and len(stored) < 40_000
    assert entry.data["plan"]["statistics"][1]["type"] == "synthetic"
    assert any("fitting the model" in words for words in heard)


def test_the_rows_hold_only_public_cells_and_values_in_their_intervals(released):
    result, *_ = released
    frame = result.synthetic[0][1].frame
    assert set(frame["region"].astype(str)) <= {"North", "South", "East"}
    assert set(frame["employed"].astype(str)) <= {"yes", "no", "(other)"}
    assert frame["age"].between(0, 100).all() and (frame["age"] == frame["age"].round()).all()
    share = frame["region"].astype(str).value_counts(normalize=True)
    assert abs(share["North"] - 0.6 / 0.95) < 0.05  # the skewed marginal is kept


def test_a_release_that_would_overspend_is_refused_before_reading_and_nothing_changes(released, tmp_path):
    _, ledger, plan, data, _ = released
    before = ledger.dataset("Small survey")
    greedy = ReleasePlan.from_json({**PLAN, "statistics": [{**PLAN["statistics"][1], "epsilon": 5.0}],
                                    "total_budget": {"epsilon": 5.0, "delta": 1e-7}})

    def never_read() -> tuple:
        raise AssertionError("the data were read")

    import workbench.core.release.run as run

    original, run._released_statistics = run._released_statistics, lambda *args, **kwargs: never_read()
    try:
        with pytest.raises(WorkbenchError, match="budget|exceed|over"):
            release(load_table(data), greedy, ledger)
    finally:
        run._released_statistics = original
    assert ledger.dataset("Small survey") == before


@pytest.mark.parametrize("stop", [KeyboardInterrupt, Cancelled])
def test_a_stop_before_the_noise_spends_nothing_and_one_after_it_is_charged(stop, tmp_path, monkeypatch):
    """DESIGN's rule 5, no free re-rolls: how long a fit runs (AIM's rounds), and the words it says, may depend on
    the noisy marginals. A stop seen to spend nothing after them (Cancel in the app, Ctrl+C on the command line) was
    a free look at them, and the release could be drawn again. A stop while the rows are counted, before any noise,
    spends nothing; one once the marginals are measured (the fit, the rows drawn) is charged."""
    import workbench.core.synthetic.fit as fit

    monkeypatch.setattr(fit, "MST_FIT_ITERATIONS", 30)  # the stops, not the fit, are tested
    plan = ReleasePlan.from_json({**PLAN, "statistics": [PLAN["statistics"][1]],
                                  "total_budget": {"epsilon": 1.0, "delta": 1e-7}})
    data = _survey(tmp_path / "survey.csv")

    def stopped_at(stage: str) -> Ledger:
        """The ledger after a release stopped as its progress says ``stage``."""
        ledger = Ledger(tmp_path / f"ledger-{stage}.sqlite")

        def words(said: str) -> None:
            if said.startswith(stage):
                raise stop("Stopped at your request.") if stop is Cancelled else stop()

        with pytest.raises((stop, FailedAfterNoise)) as raised:
            release(load_table(data), plan, ledger, Guarantee(3.0, 1e-6, "total"), progress=words)
        if isinstance(raised.value, FailedAfterNoise):
            assert re.search(r"(interrupted \(Ctrl\+C\)|cancelled)\..*charged all the same \(ledger entry 2\)",
                             str(raised.value))
        return ledger

    for stage in ("counting", "building", "measuring"):  # before the marginals are measured: free
        assert not stopped_at(stage).has_dataset("Small survey"), stage
    record = stopped_at("drawing").dataset("Small survey")  # after: charged, with no values
    assert record.releases == 1 and record.spent.epsilon > 0


def test_a_stop_inside_the_fit_is_charged(tmp_path, monkeypatch):
    """Ctrl+C lands while OpenDP measures and fits (its own code, no words said): charged."""
    import workbench.core.synthetic.fit as fit

    made = fit.measurement

    def interrupted(*args, **kwargs):
        measure, scale, rest = made(*args, **kwargs)

        def fitting(rows):
            measure(rows)
            raise KeyboardInterrupt

        return fitting, scale, rest

    monkeypatch.setattr(fit, "measurement", interrupted)
    plan = ReleasePlan.from_json({**PLAN, "statistics": [PLAN["statistics"][1]],
                                  "total_budget": {"epsilon": 1.0, "delta": 1e-7}})
    ledger = Ledger(tmp_path / "ledger.sqlite")
    with pytest.raises(FailedAfterNoise, match=r"interrupted \(Ctrl\+C\).*charged all the same \(ledger entry"):
        release(load_table(_survey(tmp_path / "survey.csv")), plan, ledger, Guarantee(3.0, 1e-6, "total"))
    assert ledger.dataset("Small survey").releases == 1


def test_nothing_heard_before_the_charge_depends_on_the_data(tmp_path, monkeypatch):
    """The progress words are heard before the charge: the number of rows to draw, a noisy count unless the plan
    gives it, was one of them ("drawing 2,791 rows"). The release is charged now however it ends once its noise is
    drawn, but what it says while it runs stays public all the same: tables of other sizes are heard alike."""
    import workbench.core.synthetic.fit as fit

    monkeypatch.setattr(fit, "MST_FIT_ITERATIONS", 30)  # the words, not the fit, are tested
    plan = ReleasePlan.from_json({**PLAN, "statistics": [PLAN["statistics"][1]],
                                  "total_budget": {"epsilon": 1.0, "delta": 1e-7}})
    heard = []
    for rows in (ROWS, ROWS // 3):
        words: list[str] = []
        ledger = Ledger(tmp_path / f"ledger-{rows}.sqlite")
        release(load_table(_survey(tmp_path / f"survey-{rows}.csv", rows)), plan, ledger,
                Guarantee(3.0, 1e-6, "total"), progress=words.append)
        heard.append(words)
    assert heard[0] == heard[1] and any("drawing" in words for words in heard[0])


@pytest.mark.parametrize("where", ["measuring", "drawing"])
def test_a_failure_after_the_noise_is_drawn_is_charged_all_the_same(where, tmp_path, monkeypatch):
    """A synthetic table that fails once its marginals may have been measured (OpenDP stopping for a reason other
    than MST's public budget arithmetic, or the model failing to draw rows) is charged: the failure may depend on
    the noisy values, and a free second try would draw the noise again."""
    import workbench.core.synthetic.fit as fit

    if where == "drawing":
        def broken(*args, **kwargs):
            raise RuntimeError("the model could not be sampled")

        monkeypatch.setattr(fit, "_drawn", broken)
    else:
        made = fit.measurement

        def measured_then_stopped(*args, **kwargs):
            measure, scale, rest = made(*args, **kwargs)

            def stopped(rows):
                measure(rows)
                raise RuntimeError("a numerical problem in the fit")

            return stopped, scale, rest

        monkeypatch.setattr(fit, "measurement", measured_then_stopped)
    data = _survey(tmp_path / "survey.csv")
    ledger = Ledger(tmp_path / "ledger.sqlite")
    plan = ReleasePlan.from_json(PLAN)
    with pytest.raises(FailedAfterNoise, match="charged all the same"):
        release(load_table(data), plan, ledger, Guarantee(3.0, 1e-6, "total"))
    record = ledger.dataset("Small survey")
    assert record.releases == 1 and record.spent.epsilon > 0  # charged, with no values


def test_every_engine_gives_opendp_the_same_prepared_rows(released):
    """In memory and out of core (DuckDB on the file), the same counts of every combination of cells: each
    value read by itself, each person's first k rows, rows missing a column left out."""
    _, _, plan, data, _ = released
    table = plan.statistics[1].statistic
    axes = table.axes(plan.schema)
    memory = _joint_counts(prepare(load_table(data), plan.used_schema()), axes)
    with OutOfCoreData(file_source(data), plan.used_schema()) as engine:
        disk = _joint_counts(engine, axes)
    assert memory.cells.tolist() == disk.cells.tolist() and list(memory.totals) == list(disk.totals)
    rows = _rows_frame(memory, axes).collect()
    assert len(rows) == sum(memory.totals) and rows.columns == ["region", "employed", "age"]


def test_a_cell_counted_zero_times_gives_opendp_no_row():
    """Polars explodes an empty repetition into a row of nulls, which OpenDP would count as a record."""
    from types import SimpleNamespace

    from workbench.core.data.aggregates import Answer

    axes = (SimpleNamespace(name="a", labels=("x", "y")), SimpleNamespace(name="b", labels=("u", "v", "w")))
    rows = _rows_frame(Answer(np.array([0, 2, 4]), [3, 0, 1], 6), axes).collect()
    assert rows.null_count().row(0) == (0, 0) and rows.rows() == [(0, 0)] * 3 + [(1, 1)]


def test_the_files_carry_the_inputs_labels(released, tmp_path):
    result, *_ = released
    written = write_synthetic(result, tmp_path, ["sav", "dta", "parquet", "xlsx"],
                              {"region": {1: "North", 2: "South", 3: "East"}})
    assert [p.name for p in written] == ["synthetic.csv", "synthetic.sav", "synthetic.dta", "synthetic.parquet",
                                         "synthetic.xlsx"]
    rows = result.synthetic[0][1].rows
    assert len(pd.read_csv(tmp_path / "synthetic.csv")) == rows
    for suffix in ("sav", "dta"):
        frame, meta = (pyreadstat.read_sav if suffix == "sav" else pyreadstat.read_dta)(str(tmp_path / f"synthetic.{suffix}"))
        assert len(frame) == rows
        assert meta.variable_value_labels["region"] == {1: "North", 2: "South", 3: "East"}  # the input's codes
        assert meta.column_names_to_labels["region"] == "Region of residence"
        assert set(meta.variable_value_labels["employed"].values()) == {"yes", "no", "(other)"}
    assert len(pd.read_parquet(tmp_path / "synthetic.parquet")) == rows
    with pytest.raises(WorkbenchError, match="Excel sheet holds at most"):
        check_formats(["xlsx"], 2_000_000)


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open files through /proc")
def test_writing_leaves_no_file_open(released, tmp_path):
    """On Windows a file still open cannot be renamed ("sharing violation"): the temporary file each format is
    written to must be closed before it takes the final name. Linux renames regardless, so count what is open."""
    result, *_ = released
    before = set(os.listdir("/proc/self/fd"))
    write_synthetic(result, tmp_path, ["sav", "dta", "parquet", "xlsx"])
    left_open = {os.readlink(f"/proc/self/fd/{fd}") for fd in set(os.listdir("/proc/self/fd")) - before
                 if Path(f"/proc/self/fd/{fd}").exists()}
    assert not {name for name in left_open if name.startswith(str(tmp_path))}, left_open


def test_aim_runs_too(tmp_path):
    data = _survey(tmp_path / "survey.csv")
    plan = ReleasePlan.from_json({**PLAN, "statistics": [{**PLAN["statistics"][1], "algorithm": "aim",
                                                          "columns": ["region", "employed"], "edges": {},
                                                          "rows": 500}],
                                  "total_budget": {"epsilon": 1.0, "delta": 1e-7}})
    result = release(load_table(data), plan, Ledger(tmp_path / "ledger.sqlite"), Guarantee(3.0, 1e-6, "total"))
    assert result.synthetic[0][1].rows == 500 and "AIM" in result.statistics[0].method
    assert isinstance(plan.statistics[0].statistic, SyntheticTable)


def test_new_codes_do_not_tell_how_many_labels_the_input_has_beyond_the_public_list(released, tmp_path):
    """A helper's audit: new codes followed the input's highest code, so an '(other)' coded 9 told that the input
    labels values beyond the public list (labels Stata's encode made from the rows list values seen in the data)."""
    result, *_ = released
    write_synthetic(result, tmp_path, ["sav", "dta"], {"employed": {1: "yes", 2: "no", 8: "maybe", 9: "unsure"},
                                                       "region": {2: "North", 5: "South", 1: "East", 7: "Aland"}})
    for suffix in ("sav", "dta"):
        _, meta = (pyreadstat.read_sav if suffix == "sav" else pyreadstat.read_dta)(str(tmp_path / f"synthetic.{suffix}"))
        assert meta.variable_value_labels["employed"] == {1: "yes", 2: "no", 3: "(other)"}
        assert meta.variable_value_labels["region"] == {2: "North", 5: "South", 1: "East"}
