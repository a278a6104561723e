"""Releasing the 20-statistic plan through the Spark engine, against the PySpark an expert would write for the
same numbers, both in Spark's local mode on this machine (a cluster's numbers would be the cluster's).

Ours is ``release`` with ``SparkData``: every value read by the plan's description of its column, the file
prepared and cached, every statistic's exact answers, OpenDP's noise, the ledger's charge. The baseline is the
expert's PySpark: the Parquet file read once (``spark.read.parquet(file).select(<only the plan's columns>)``,
Spark's own types), cached and counted (so the cache is filled inside its clock), then the plan's aggregates on
the cached view, fusing those that share a GROUP BY (count(*), clamped integer sums on the same grid and
count(column) side by side), with Spark's exact ``percentile`` for quantiles. One session serves both; its start
and a warm-up job are not timed, and the baseline's cache is dropped before ours runs. Each side runs twice,
alternately (the expert, ours, the expert, ours), and its faster run counts: until 2026-11-29 each ran once, the
expert first, so that the expert's run paid for the JVM's first compilation of the reading's code and ours ran warm
(1.60x in the quick run of that day, 2.0x with both warm). Target: time at most 1.5x the expert's, at 2,000,000 rows
in the quick run and 20,000,000 in the full one.

    .venv/bin/python -m benchmarks.spark [--quick] [--rows 2000000]
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from benchmarks import data
from benchmarks.out_of_core import large_parquet
from benchmarks.results import Result, run_alone

FULL_ROWS = 20_000_000
QUICK_ROWS = 2_000_000
DRIVER_MEMORY = "6g"
RUNS = 2  # each side's runs, alternating; the faster counts


def expert_queries(rows: int, view: str = "t") -> list[str]:
    """The plan's aggregates in Spark SQL on the cached ``view`` of the plan's columns, one query per set of
    grouping columns, and one per quantile statistic (``percentile``, exact)."""
    from workbench.core.data.schema import NumericColumn
    from workbench.core.statistics.counts import CrossTab, Histogram
    from workbench.core.statistics.grid import grid_of
    from workbench.core.statistics.moments import Mean, Sum
    from workbench.core.statistics.quantiles import Quantiles

    plan = data.plan(rows)
    fused: dict[frozenset[str], tuple[list[str], list[str]]] = {}
    quantiles = []
    for planned in plan.statistics:
        statistic = planned.statistic
        by = list(statistic.by)
        if isinstance(statistic, Quantiles):
            levels = ", ".join(f"{level!r}D" for level in statistic.levels)
            keys = ", ".join(by)
            quantiles.append(f"SELECT {keys + ', ' if keys else ''}percentile({statistic.column}, array({levels})) "
                             f"FROM {view} WHERE {statistic.column} IS NOT NULL" + (f" GROUP BY {keys}" if keys else ""))
            continue
        if isinstance(statistic, (Sum, Mean)):
            spec = plan.schema.column(statistic.column)
            assert isinstance(spec, NumericColumn)
            clamped = f"greatest(least({statistic.column}, {spec.upper}D), {spec.lower}D)"
            # rint: ties to even on the double itself, as ours rounds (bround(x, 0) goes through a decimal per value)
            wanted = [f"sum(CAST(rint({clamped} / {grid_of(spec).unit!r}D) AS BIGINT))", f"count({statistic.column})"]
        else:
            by += [statistic.column] if isinstance(statistic, Histogram) else (
                list(statistic.columns) if isinstance(statistic, CrossTab) else [])
            wanted = ["count(*)"]
        order, aggregates = fused.setdefault(frozenset(by), (by, []))
        aggregates.extend(a for a in wanted if a not in aggregates)
    queries = []
    for order, aggregates in fused.values():
        keys = ", ".join(order)
        queries.append(f"SELECT {keys + ', ' if keys else ''}{', '.join(aggregates)} FROM {view}"
                       + (f" GROUP BY {keys}" if keys else ""))
    return queries + quantiles


def expert(spark, path: Path, rows: int) -> list:
    """The expert's PySpark: read the plan's columns once, cache them, answer every aggregate from the cache."""
    columns = [spec.name for spec in data.plan(rows).used_schema().columns]
    table = spark.read.parquet(str(path)).select(*columns).cache()
    try:
        table.count()  # fills the cache
        table.createOrReplaceTempView("t")
        return [spark.sql(query).collect() for query in expert_queries(rows)]
    finally:
        table.unpersist(blocking=True)


def run(quick: bool = False, rows: int | None = None) -> list[Result]:
    from workbench.core.data.spark_engine import SparkData, spark_source, start_session
    from workbench.core.release.ledger import Ledger
    from workbench.core.release.run import release

    rows = rows or (QUICK_ROWS if quick else FULL_ROWS)
    path = large_parquet(rows)
    plan = data.plan(rows)
    # Spark's exact percentile keeps a count per distinct value on the driver: 20,000,000 incomes overflow the
    # default 1 GB heap of local mode (java.lang.OutOfMemoryError), so both sides get 6 GB
    os.environ.setdefault("PYSPARK_SUBMIT_ARGS", f"--driver-memory {DRIVER_MEMORY} pyspark-shell")
    spark = start_session("local[*]")
    try:
        spark.range(1000).groupBy().count().collect()  # a warm-up job, untimed: the first job starts Spark's machinery
        spark.read.parquet(str(path)).count()
        theirs_runs, ours_runs = [], []
        for _ in range(RUNS):  # alternately, so that neither side alone runs on a cold JVM
            start = time.perf_counter()
            expert(spark, path, rows)
            theirs_runs.append(time.perf_counter() - start)
            start = time.perf_counter()
            source = spark_source(path)
            with tempfile.TemporaryDirectory() as folder, SparkData(source, plan.used_schema(), spark=spark) as engine:
                release(source, plan, Ledger(Path(folder) / "ledger.sqlite"), dataset_budget=plan.guarantee(),
                        data=engine)
            ours_runs.append(time.perf_counter() - start)
        theirs, ours = min(theirs_runs), min(ours_runs)
    finally:
        spark.stop()
    return [Result(f"Spark engine, Parquet {rows / 1e6:g}M rows: time", ours, theirs, "s",
                   "PySpark as an expert writes it: read once, cached, aggregates fused", max_ratio=1.5,
                   note=f"{rows:,}-row Parquet file, Spark local mode, driver memory {DRIVER_MEMORY}; faster of {RUNS} "
                        f"alternating runs each (ours {', '.join(f'{t:.1f}' for t in ours_runs)} s; the expert's "
                        f"{', '.join(f'{t:.1f}' for t in theirs_runs)} s); ours includes reading every value by the "
                        "rule, preparing and caching the file, its content fingerprint, noise and the ledger")]


def main(argv: list[str] | None = None) -> None:
    run_alone(run, __doc__, argv)


if __name__ == "__main__":
    main()
