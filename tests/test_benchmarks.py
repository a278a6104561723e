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
    """Both baselines (the expert's DuckDB and one scan per statistic) count what our release counts, and every
    row of the benchmark is measured."""
    import duckdb

    from benchmarks import out_of_core
    from workbench.core.data.out_of_core import OutOfCoreData, file_source
    from workbench.core.statistics.counts import Count

    monkeypatch.setenv("BENCH_DATA", str(tmp_path))
    path = out_of_core.large_parquet(20_000)
    plan = data.plan(20_000)
    with OutOfCoreData(file_source(path), plan.used_schema()) as engine:
        (ours,) = Count(by="region").exact(engine)
    scans = out_of_core.scan_statements(str(path), 20_000)
    assert len(scans) == 20
    by_region = next(q for q, p in zip(scans, plan.statistics) if p.statistic == Count(by="region"))
    theirs = dict(duckdb.sql(by_region).fetchall())
    assert [theirs.get(region, 0) for region in data.REGIONS] == ours[: len(data.REGIONS)]
    db = duckdb.connect()
    expert = [db.execute(statement).fetchall() for statement in out_of_core.expert_statements(str(path), 20_000)]
    fused = next(rows for rows in expert if rows and len(rows) >= len(data.REGIONS) and rows[0][0] in data.REGIONS
                 and len(rows[0]) == 6)  # region, count(*), and two sums with their counts
    assert [dict((row[0], row[1]) for row in fused).get(region, 0) for region in data.REGIONS] == ours[: len(data.REGIONS)]
    results = out_of_core.run(rows=(10_000, 20_000), cap=64)  # small files: the plumbing, not the sizes
    assert [r.name for r in results] == [
        f"Out of core, {kind}, {size}M rows: {what}" for size in ("0.01", "0.02") for kind in ("CSV", "Parquet")
        for what in ("time", "time against one scan per statistic", "peak memory")
    ] + ["Out of core, CSV: peak memory at 0.02M rows against 0.01M", "Out of core, Parquet: peak memory at 0.02M rows against 0.01M",
         "dp-workbench release --memory-limit 64MB, CSV 0.02M rows: peak memory"]
    assert all(r.ours > 0 and r.baseline > 0 for r in results)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_the_expert_out_of_core_baseline_reads_the_file_once_and_only_the_plans_columns(suffix):
    """Issue 39: the expert reads each file once, into a table of the plan's columns with DuckDB's own types, then
    answers every aggregate from that table, one query per set of grouping columns."""
    from benchmarks import out_of_core

    path = f"/data/survey.{suffix}"
    statements = out_of_core.expert_statements(path, 20_000)
    reader = f"read_{suffix}('{path}')"
    assert sum(statement.count(reader) for statement in statements) == 1
    assert sum(statement.count(path) for statement in statements) == 1
    create = statements[0]
    assert create.startswith("CREATE TABLE t AS SELECT ") and create.endswith(f" FROM {reader}")
    plan = data.plan(20_000)
    selected = create.removeprefix("CREATE TABLE t AS SELECT ").removesuffix(f" FROM {reader}").split(", ")
    assert selected == [spec.name for spec in plan.used_schema().columns]
    assert "person_id" not in selected and "weight" not in selected  # columns no statistic reads stay in the file
    assert "::" not in create and "CAST" not in create.upper() and "types" not in create  # DuckDB's own types
    later = statements[1:]
    assert all(" FROM t" in statement and "read_" not in statement for statement in later)
    groupings = [statement.split(" GROUP BY ")[1] if " GROUP BY " in statement else "" for statement in later
                 if not statement.startswith("WITH")]
    assert len(groupings) == len(set(groupings))  # fused: one query per set of grouping columns
    assert len(later) < len(plan.statistics)
    assert sum(statement.startswith("WITH counts") for statement in later) == 3  # the three quantile statistics


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


def test_the_expert_spark_baseline_fuses_the_aggregates_on_one_cached_read():
    """Issue 39: the PySpark baseline answers every aggregate from one cached view of the plan's columns, one query
    per set of grouping columns, and Spark's exact percentile for each quantile statistic."""
    from benchmarks import spark

    queries = spark.expert_queries(20_000)
    assert all(" FROM t" in query and "parquet" not in query for query in queries)
    plain = [query for query in queries if "percentile" not in query]
    groupings = [query.split(" GROUP BY ")[1] if " GROUP BY " in query else "" for query in plain]
    assert len(groupings) == len(set(groupings)) == 8
    assert sum("percentile(" in query for query in queries) == 3


def test_the_in_memory_benchmark_runs_both_sides(tmp_path, monkeypatch):
    """Ours (load and release) and pandas' read of the plan's columns with numpy's aggregates, each in its process."""
    from benchmarks import in_memory

    monkeypatch.setenv("BENCH_DATA", str(tmp_path))
    results = in_memory.run(rows=20_000)
    assert [r.name for r in results] == ["In memory, CSV 0.02M rows: time", "In memory, CSV 0.02M rows: peak memory"]
    assert all(r.ours > 0 and r.baseline > 0 for r in results)


def test_the_preview_benchmark_asks_a_statistic_by_a_51_category_column():
    from benchmarks import preview_update

    plan = preview_update.preview_plan(states=True)
    plan.validate()
    assert len(plan.statistics) == 20
    statistic = plan.statistics[preview_update.BY_STATE].statistic
    assert statistic.by == ("state",) and len(plan.schema.column("state").categories) == 51


def test_the_utility_peers_get_our_quantile_candidates(monkeypatch):
    """Issue 39: OpenDP's median is given the same 10,001 candidates as ours, not 101."""
    from benchmarks import utility
    from workbench.core.privacy.mechanisms import QUANTILE_CANDIDATES, quantile_candidates

    given = []
    real = utility.dp.m.make_private_quantile

    def spy(domain, metric, measure, candidates, *args, **kwargs):
        given.append(list(candidates))
        return real(domain, metric, measure, candidates, *args, **kwargs)

    monkeypatch.setattr(utility.dp.m, "make_private_quantile", spy)
    utility.opendp_releases(1.0, utility.synthetic_table().head(200))
    assert given and all(len(c) == QUANTILE_CANDIDATES for c in given)
    assert given[0] == list(quantile_candidates(utility.LOWER, utility.UPPER))


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


def test_the_synthetic_tie_allowance_is_three_standard_errors_of_the_paired_differences():
    """The same noise on both sides is a tie within three standard errors; a synthesizer twice as far off on every
    marginal is not."""
    from benchmarks import synthetic

    rng = np.random.default_rng(7)
    theirs = rng.uniform(1e-4, 4e-4, 8)
    ours = theirs + rng.normal(0, 5e-5, 8)
    differences = ours - theirs
    expected = 3 * differences.std(ddof=1) / np.sqrt(8) / theirs.mean()
    assert synthetic.tie_allowance(ours, theirs) == pytest.approx(expected)
    assert synthetic.tie_allowance(theirs, theirs) == 0.0
    worse = 2 * theirs
    assert worse.mean() / theirs.mean() > 1 + synthetic.tie_allowance(worse, theirs)
    assert synthetic.tie_allowance(theirs[:1], theirs[:1]) == 0.0  # one marginal: no spread to read
