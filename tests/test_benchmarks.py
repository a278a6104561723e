"""The benchmarks compare like with like, and ``python -m benchmarks`` runs and writes its table.

No time is asserted here (machines are noisy): the benchmarks print their ratios, these tests
check that the baseline computes the same numbers as ours and that the suite's plumbing works.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks import data, plan_run  # noqa: E402
from benchmarks.results import Result, table  # noqa: E402
from workbench.core.data.io import load_table  # noqa: E402
from workbench.core.data.prepare import part_codes, prepare  # noqa: E402
from workbench.core.data.aggregates import Categories  # noqa: E402
from workbench.core.statistics.quantiles import Quantiles  # noqa: E402


@pytest.fixture(scope="module")
def small_files(tmp_path_factory):
    import os

    folder = tmp_path_factory.mktemp("bench-data")
    old = os.environ.get("BENCH_DATA")
    os.environ["BENCH_DATA"] = str(folder)
    try:
        yield data.files(3_000)
    finally:
        if old is None:
            os.environ.pop("BENCH_DATA")
        else:
            os.environ["BENCH_DATA"] = old


def test_generated_table_is_the_same_for_the_same_seed_and_has_what_the_plan_needs(small_files):
    first = data.synthetic_frame(3_000)
    assert first.equals(data.synthetic_frame(3_000))
    assert not first.equals(data.synthetic_frame(3_000, seed=1))
    assert first.shape == (3_000, 10)
    assert first["annual_income"].isna().any() and first["education"].isna().any()  # missing values, as in life
    assert (first["sex"] == "unknown").any()  # a value outside the public list
    loaded = load_table(small_files["csv"]).frame
    assert loaded.shape == (3_000, 10)
    assert load_table(small_files["parquet"]).frame.shape == (3_000, 10)
    plan = data.plan(3_000)
    plan.validate()
    assert len(plan.statistics) == 20
    kinds = {p.statistic.type_name for p in plan.statistics}
    assert {"count", "sum", "mean", "histogram", "crosstab", "quantiles"} <= kinds


def test_hand_written_baseline_computes_our_exact_answers(small_files):
    """What the plan benchmark compares: the same aggregates, or the ratio means nothing."""
    table_ = load_table(small_files["csv"])
    plan = data.plan(len(table_.frame))
    prepared = prepare(table_, plan.schema)
    theirs = plan_run.baseline_exact(pd.read_csv(small_files["csv"]), plan)
    for planned, answers in zip(plan.statistics, theirs):
        statistic = planned.statistic
        if isinstance(statistic, Quantiles):
            values = prepared.complete(statistic.column_names)[statistic.column].to_numpy(dtype=np.float64)
            rows = prepared.complete(statistic.column_names)
            codes = np.zeros(len(rows), dtype=np.int64)
            for spec in statistic.grouping_specs(plan.schema):
                own = part_codes(Categories(spec), rows)
                codes = np.where((codes >= 0) & (own >= 0), codes * len(spec.bins) + own, -1)
            ours_groups = [np.sort(values[codes == g]) for g in range(len(statistic.groups(plan.schema)))]
            assert len(answers) == len(ours_groups), statistic.label
            assert all(np.array_equal(np.sort(a), b) for a, b in zip(answers, ours_groups)), statistic.label
            continue
        ours = [list(map(int, answers_)) for answers_ in statistic.exact(prepared)]
        assert ours == [list(map(int, a)) for a in answers], statistic.label


def test_result_targets_and_table():
    fast = Result("x: time", 1.2, 1.0, "s", "base", max_ratio=1.3)
    slow = Result("y: time", 2.0, 1.0, "s", "base", max_ratio=1.3)
    within = Result("z: ε", 1.004, 1.0, "ε", "base", min_ratio=0.99, max_ratio=1.01)
    absolute = Result("w: ms", 20.0, 16.7, "ms", "frame", max_value=16.0)
    reported = Result("v", 1.0, 2.0, "MB", "base")
    assert (fast.met, slow.met, within.met, absolute.met, reported.met) == (True, False, True, False, None)
    text = table([fast, slow, within, absolute, reported])
    assert "| x: time" in text and "NO" in text and "0.99x–1.01x" in text and "≤ 16 ms" in text
    assert json.loads(json.dumps(fast.to_json()))["ratio"] == pytest.approx(1.2)


def test_suite_runs_from_the_command_line_and_writes_json(tmp_path):
    out = tmp_path / "results.json"
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--only", "loading,plan", "--rows", "2000", "--json", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={**__import__("os").environ, "BENCH_DATA": str(tmp_path / "data")},
    )
    assert done.returncode == 0, done.stderr
    assert "targets met" in done.stdout and "| CSV load: time" in done.stdout
    written = json.loads(out.read_text())
    names = [r["name"] for r in written["results"]]
    assert names == ["CSV load: time", "CSV load: time against Arrow alone", "CSV load: peak memory",
                     "Parquet load: time", "Parquet load: peak memory", "Excel load: time", "20-statistic plan: release"]
    assert written["rows"] == 2000 and written["machine"]["logical_cpus"] >= 1
    assert all(r["ours"] > 0 and r["baseline"] > 0 for r in written["results"])


def test_the_out_of_core_benchmark_compares_like_with_like(tmp_path, monkeypatch):
    """Its baseline (plain DuckDB SQL on the file) counts what our release counts, and both sides run."""
    import duckdb

    from benchmarks import out_of_core
    from workbench.core.data.out_of_core import OutOfCoreData, file_source
    from workbench.core.statistics.counts import Count

    monkeypatch.setenv("BENCH_DATA", str(tmp_path))
    path = out_of_core.large_parquet(20_000)
    plan = data.plan(20_000)
    queries = out_of_core.baseline_queries(str(path), 20_000)
    assert len(queries) == 20
    by_region = next(q for q, p in zip(queries, plan.statistics) if p.statistic == Count(by="region"))
    theirs = dict(duckdb.sql(by_region).fetchall())
    with OutOfCoreData(file_source(path), plan.used_schema()) as engine:
        (ours,) = Count(by="region").exact(engine)
    assert [theirs.get(region, 0) for region in data.REGIONS] == ours[: len(data.REGIONS)]
    results = out_of_core.run(rows=20_000, cap=64, csv_mb=2)  # small files: the plumbing, not the sizes
    assert [r.name for r in results] == ["Out of core, Parquet: time", "Out of core, Parquet: peak memory",
                                         "Out of core, CSV: time", "Out of core, CSV: peak memory"]
    assert all(r.ours > 0 and r.baseline > 0 for r in results)


def test_the_out_of_core_baseline_quantiles_are_duckdbs_own(tmp_path, monkeypatch):
    """The baseline's quantiles, from spillable counts, are exactly what quantile_disc answers, alone and by group."""
    import duckdb

    from benchmarks import out_of_core

    monkeypatch.setenv("BENCH_DATA", str(tmp_path))
    path = out_of_core.large_parquet(20_000)
    source = f"read_parquet('{path}')"
    levels = (0.1, 0.5, 0.9, 0.99)
    ours = duckdb.sql(out_of_core._exact_quantiles(source, "annual_income", levels, [])).fetchall()
    theirs = duckdb.sql(f"SELECT quantile_disc(annual_income, {list(levels)}) FROM {source} "
                        "WHERE annual_income IS NOT NULL").fetchall()
    assert list(ours[0]) == theirs[0][0]
    grouped = dict((row[0], list(row[1:])) for row in duckdb.sql(
        out_of_core._exact_quantiles(source, "age", levels, ["region"])).fetchall())
    expected = dict(duckdb.sql(f"SELECT region, quantile_disc(age, {list(levels)}) FROM {source} WHERE age IS NOT NULL "
                               "GROUP BY region").fetchall())
    assert grouped == expected


def test_the_synthetic_stage_measures_each_table_against_the_real_one_by_its_own_cells():
    """Ours writes [a, b), DP Wizard's call (a, b]: each is binned by its own cells, so a table equal to the real one
    is 0 away whichever it is, and one with a column shuffled keeps its one-way marginals but not its pairs."""
    from benchmarks import synthetic

    real = synthetic.survey(5_000)
    for left_open in (False, True):
        cells = {name: synthetic._cells(real, name, left_open) for name in synthetic.COLUMNS}
        assert synthetic.distances(real, cells, left_open) == (0.0, 0.0)
    shuffled = {name: synthetic._cells(real, name, False) for name in synthetic.COLUMNS}
    shuffled["income"] = np.random.default_rng(1).permutation(shuffled["income"])
    one_way, two_way = synthetic.distances(real, shuffled, False)
    assert one_way == 0.0 and two_way > 0.01  # income followed education and employment
    assert synthetic._cells(pd.DataFrame({"age": [16.0]}), "age", False)[0] == 1  # [16, 30)
    assert synthetic._cells(pd.DataFrame({"age": [16.0]}), "age", True)[0] == 0  # (0, 16]
