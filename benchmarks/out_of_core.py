"""Releasing the 20-statistic plan out of core, against the DuckDB an expert would write for the same numbers.

Files (the benchmark table's columns, generated with its seed in chunks, kept in benchmarks/.data): a CSV
and a Parquet file of 20,000,000 and of 100,000,000 rows (``--quick``: 2,000,000 rows for the ratios, and 4,000,000
and 8,000,000 for the growth of the peak: two files whose stored rows both outgrow the quick run's cap, as the full
run's two do its own. Under 256 MB, DuckDB fills its cap between 1,000,000 and 4,000,000 rows of this table; the
quick run's earlier pair, 1,000,000 against 2,000,000, measured that filling, not a peak that grows with the file:
on 2026-11-29 ours peaked at 310, 370-467, 461 and 473 MB at 1, 2, 4 and 8 million rows of the Parquet file).

Ours is the whole release as ``dp-workbench release --engine out-of-core --memory-limit CAP`` runs it
(``OutOfCoreData`` and ``release``): every value read by the plan's description of its column, the file
prepared, every statistic's exact answers, OpenDP's noise, and the ledger's charge.

The baseline is the expert's: for each file it reads it once (``CREATE TABLE t AS SELECT <only the plan's
columns> FROM read_csv/read_parquet(file)``, DuckDB's own types, into an in-memory database with a temporary
directory, so that it can spill), then runs the plan's aggregates on ``t``, fusing those that share a GROUP BY
(one query per set of grouping columns: count(*), clamped sums on the same integer grid and count(column) side
by side), under the same memory cap as ours. Its quantiles are DuckDB's exact ``quantile_disc`` answers from a
count per distinct value and a running sum (a GROUP BY and a window, which spill; ``quantile_disc`` itself
holds every value in memory). The old baseline, one scan of the file per statistic (20 scans), is kept as a
second row, reported only.

Memory caps (DuckDB's ``memory_limit``, the same for both sides): 640 MB in the full run, 256 MB in the quick
one; what a user of a laptop or a shared server would give a release, and what both sides finish under (128 MB,
the quick run's earlier cap, ran the baseline's CREATE TABLE out of memory). The full run's cap leaves room within
the target's 1 GB for what is not DuckDB's to cap: the interpreter and its libraries (about 140 MB), the reading's
buffers and DuckDB's own untracked memory, 280-360 MB in all at 100,000,000 rows. Under a cap of 1 GB every process
whose stored rows outgrew the cap peaked at 1.2-1.5 GB, ours and the expert's alike; under 768 MB, at 1.05-1.26 GB.
Each side runs in a fresh process that reports its own peak resident memory (the interpreter included).

Targets: time at most 1.5x the expert's on a CSV and on a Parquet file at each size; our peak at most 1 GB
at each size, and not growing with the file (the larger file's peak at most 1.2x the smaller's).

The command-line row runs ``dp-workbench release --engine out-of-core --memory-limit CAP`` as a subprocess
(CAP: 1 GB in the full run, as issue 39 gives it; the quick run's cap in the quick one) on the largest CSV whose
ratios are measured (100,000,000 rows; quick: 2,000,000), and
reads its peak resident memory from the kernel (``os.wait4``, in a small launcher of its own: a child of the
benchmark's process reports that process's peak as its own): target the cap plus 300 MB (the interpreter and its
libraries).

    .venv/bin/python -m benchmarks.out_of_core [--quick]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from benchmarks import data
from benchmarks.results import Result, run_alone

FULL_ROWS = (20_000_000, 100_000_000)
QUICK_ROWS = (2_000_000,)  # the ratios
QUICK_GROWTH_ROWS = (4_000_000, 8_000_000)  # the peak's growth: both past the quick cap's filling (docstring)
CHUNK_ROWS = 2_000_000
FULL_CAP_MB, QUICK_CAP_MB = 640, 256
FULL_CLI_CAP_MB = 1024  # the command-line row's --memory-limit in the full run: issue 39's "--memory-limit 1GB"
CLI_ALLOWANCE_MB = 300  # the interpreter and its libraries, above DuckDB's cap
ROOT = Path(__file__).resolve().parents[1]


def _chunks(rows: int, chunk: int = CHUNK_ROWS):
    """The benchmark table's columns in chunks (another seed per chunk), ids counting on across them."""
    done = 0
    while done < rows:
        size = min(chunk, rows - done)
        frame = data.synthetic_frame(size, seed=data.SEED + done // chunk)
        frame["person_id"] += done
        yield pa.Table.from_pandas(frame, preserve_index=False)
        done += size


def large_parquet(rows: int) -> Path:
    path = data.data_folder() / f"large-v{data.GENERATOR_VERSION}-{rows}.parquet"
    if not path.exists():
        partial = path.with_suffix(".partial")
        writer = None
        for table in _chunks(rows):
            writer = writer or pq.ParquetWriter(partial, table.schema)
            writer.write_table(table)
        assert writer is not None
        writer.close()
        partial.replace(path)
    return path


def large_csv(rows: int) -> Path:
    """A CSV of the same ``rows`` rows as ``large_parquet(rows)``."""
    path = data.data_folder() / f"large-v{data.GENERATOR_VERSION}-{rows}.csv"
    if not path.exists():
        partial = path.with_suffix(".partial")
        with partial.open("wb") as out:
            for i, table in enumerate(_chunks(rows)):
                pa_csv.write_csv(table, out, pa_csv.WriteOptions(include_header=i == 0, quoting_style="needed"))
        partial.replace(path)
    return path


OURS = """
import json, tempfile, time
from pathlib import Path
from benchmarks.data import plan as benchmark_plan
from benchmarks.out_of_core import peak_mb
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.release.ledger import Ledger
from workbench.core.release.run import release
plan = benchmark_plan(ROWS)
start = time.perf_counter()
source = file_source(PATH)
with tempfile.TemporaryDirectory() as folder, OutOfCoreData(source, plan.used_schema(), memory_limit=CAP) as engine:
    released = release(source, plan, Ledger(Path(folder) / "ledger.sqlite"), dataset_budget=plan.guarantee(), data=engine)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(), "statistics": len(released.statistics)}))
"""

BASELINE = """
import json, shutil, tempfile, time
import duckdb
from benchmarks.out_of_core import STATEMENTS, peak_mb
spill = tempfile.mkdtemp()
db = duckdb.connect(":memory:", config={"memory_limit": CAP, "temp_directory": spill})  # spills, as ours does
db.execute("SET enable_progress_bar = false")  # its bar would end up in the JSON line
statements = STATEMENTS(PATH, ROWS)
start = time.perf_counter()
answers = [db.execute(statement).fetchall() for statement in statements]
seconds = time.perf_counter() - start
db.close()
shutil.rmtree(spill, ignore_errors=True)
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(), "statistics": len(answers)}))
"""


def peak_mb() -> float:
    """This process's peak resident memory in MB: VmHWM, which a new program starts afresh (ru_maxrss would
    carry the forking parent's peak over into the child)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _read(path: str) -> str:
    return f"read_parquet('{path}')" if path.endswith(".parquet") else f"read_csv('{path}')"


def _parts(plan) -> list[tuple[object, list[str], str, str]]:
    """Per statistic: (statistic, its cells' grouping columns, what it aggregates, or "" for count(*)
    alone, the column whose missing values it leaves out, or "")."""
    from workbench.core.data.schema import NumericColumn
    from workbench.core.statistics.counts import Count, CrossTab, Histogram
    from workbench.core.statistics.grid import grid_of
    from workbench.core.statistics.moments import Mean, Sum
    from workbench.core.statistics.quantiles import Quantiles

    parts = []
    for planned in plan.statistics:
        statistic = planned.statistic
        by = list(statistic.by)
        if isinstance(statistic, (Sum, Mean)):
            spec = plan.schema.column(statistic.column)
            assert isinstance(spec, NumericColumn)
            clamped = f"greatest(least({statistic.column}, {spec.upper}), {spec.lower})"
            parts.append((statistic, by, f"round_even({clamped} / {grid_of(spec).unit!r}, 0)::BIGINT", statistic.column))
        elif isinstance(statistic, Quantiles):
            parts.append((statistic, by, "", statistic.column))
        else:
            assert isinstance(statistic, (Count, Histogram, CrossTab))
            columns = [statistic.column] if isinstance(statistic, Histogram) else list(getattr(statistic, "columns", ()))
            parts.append((statistic, by + columns, "", ""))
    return parts


def expert_statements(path: str, rows: int) -> list[str]:
    """The expert's DuckDB for the benchmark plan: one ``CREATE TABLE t AS SELECT`` of the plan's columns from the
    file (DuckDB's own types), then the aggregates on ``t``, one query per set of grouping columns (count(*),
    each clamped sum on the grid and count(column) side by side), and each quantile statistic from spillable counts."""
    from workbench.core.statistics.quantiles import Quantiles

    plan = data.plan(rows)
    columns = [spec.name for spec in plan.used_schema().columns]
    statements = [f"CREATE TABLE t AS SELECT {', '.join(columns)} FROM {_read(path)}"]
    fused: dict[frozenset[str], tuple[list[str], list[str]]] = {}  # grouping columns -> (their order, aggregates)
    quantiles = []
    for statistic, keys, summed, column in _parts(plan):
        if isinstance(statistic, Quantiles):
            quantiles.append(_exact_quantiles("t", statistic.column, statistic.levels, keys))
            continue
        order, aggregates = fused.setdefault(frozenset(keys), (keys, []))
        wanted = [f"sum({summed})", f"count({column})"] if summed else ["count(*)"]
        aggregates.extend(a for a in wanted if a not in aggregates)
    for order, aggregates in fused.values():
        keys = ", ".join(order)
        statements.append(f"SELECT {keys + ', ' if keys else ''}{', '.join(aggregates)} FROM t"
                          + (f" GROUP BY {keys}" if keys else ""))
    return statements + quantiles


def scan_statements(path: str, rows: int) -> list[str]:
    """The plan's aggregates as one query per statistic, each scanning the file (the earlier baseline)."""
    from workbench.core.statistics.quantiles import Quantiles

    source = _read(path)
    queries = []
    for statistic, keys, summed, column in _parts(data.plan(rows)):
        if isinstance(statistic, Quantiles):
            queries.append(_exact_quantiles(source, statistic.column, statistic.levels, keys))
            continue
        what, where = (f"sum({summed}), count(*)", f" WHERE {column} IS NOT NULL") if summed else ("count(*)", "")
        joined = ", ".join(keys)
        queries.append(f"SELECT {joined + ', ' if joined else ''}{what} FROM {source}{where}"
                       + (f" GROUP BY {joined}" if joined else ""))
    return queries


def _exact_quantiles(source: str, column: str, levels: tuple[float, ...], by: list[str]) -> str:
    """DuckDB's exact lower quantiles (``quantile_disc``'s answers) from a count per distinct value and their
    running sum: ``quantile_disc`` itself holds every value in memory, which 100,000,000 rows under a 1 GB cap
    do not fit in, while a GROUP BY and a window spill to disk."""
    keys = ", ".join(by)
    partition = f"PARTITION BY {keys} " if keys else ""
    picks = ", ".join(f"min(v) FILTER (WHERE below >= greatest(ceil({level!r} * total), 1))" for level in levels)
    return (f"WITH counts AS (SELECT {keys + ', ' if keys else ''}{column} AS v, count(*) AS n FROM {source} "
            f"WHERE {column} IS NOT NULL GROUP BY {keys + ', ' if keys else ''}{column}), "
            f"running AS (SELECT *, sum(n) OVER ({partition}ORDER BY v) AS below, sum(n) OVER ({partition.strip()}) "
            f"AS total FROM counts) SELECT {keys + ', ' if keys else ''}{picks} FROM running"
            + (f" GROUP BY {keys}" if keys else ""))


def _measure(script: str, path: Path, rows: int, cap_mb: int, statements: str = "") -> dict[str, float]:
    code = (script.replace("STATEMENTS", statements).replace("PATH", repr(str(path))).replace("ROWS", str(rows))
            .replace("CAP", repr(f"{cap_mb}MB")))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"the benchmark on {path.name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def release_by_command_line(path: Path, rows: int, cap_mb: int) -> dict[str, float]:
    """``dp-workbench release --engine out-of-core --memory-limit CAP`` as a user runs it, in a subprocess:
    its seconds, its peak resident memory (the kernel's, for that process alone: ``os.wait4``) and how many
    progress reports it wrote to the terminal (lines or carriage returns on standard error with a percentage)."""
    with tempfile.TemporaryDirectory(prefix="dp-workbench-bench-") as folder:
        plan_path = Path(folder) / "plan.json"
        data.plan(rows).save(plan_path)
        budget = data.plan(rows).guarantee()
        command = [sys.executable, "-m", "workbench.cli", "release", str(path), "--plan", str(plan_path),
                   "--out", str(Path(folder) / "out"), "--engine", "out-of-core", "--memory-limit", f"{cap_mb}MB",
                   "--ledger", str(Path(folder) / "ledger.sqlite"),
                   "--dataset-budget", repr(budget.epsilon), repr(budget.delta)]
        # started and waited for by a small launcher of its own: a child started (vfork, then exec) by this
        # process, which holds the earlier stages' data, reports this process's peak as its own in ru_maxrss
        launcher = textwrap.dedent("""
            import json, os, subprocess, sys, time
            start = time.perf_counter()
            with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
                process = subprocess.Popen(sys.argv[3:], stdout=out, stderr=err)
                _, status, usage = os.wait4(process.pid, 0)
            print(json.dumps({"seconds": time.perf_counter() - start, "code": os.waitstatus_to_exitcode(status),
                              "peak_mb": usage.ru_maxrss / 1024}))
        """)
        out, err = Path(folder) / "stdout", Path(folder) / "stderr"
        done = subprocess.run([sys.executable, "-c", launcher, str(out), str(err), *command], cwd=ROOT,
                              capture_output=True, text=True, check=True)
        measured = json.loads(done.stdout.strip().splitlines()[-1])
        errors = err.read_bytes().decode("utf-8", "replace")
        if measured["code"]:
            raise RuntimeError(f"dp-workbench release failed ({measured['code']}):\n{errors[-2000:]}")
    progress = len(re.findall(r"\d+\s?%", errors))
    return {"seconds": measured["seconds"], "peak_mb": measured["peak_mb"], "progress": progress}


def run(quick: bool = False, rows: tuple[int, ...] | None = None, cap: int | None = None,
        command_line: bool = True) -> list[Result]:
    """Each file size in ``rows`` (default: the sizes above), CSV and Parquet, under the memory cap ``cap`` (MB)."""
    ratios_at = tuple(sorted(rows or (QUICK_ROWS if quick else FULL_ROWS)))
    growth = ratios_at if rows or not quick else QUICK_GROWTH_ROWS  # the two sizes whose peaks are compared
    sizes = tuple(sorted({*ratios_at, *growth}))
    cli_cap = cap or (QUICK_CAP_MB if quick else FULL_CLI_CAP_MB)
    cap = cap or (QUICK_CAP_MB if quick else FULL_CAP_MB)
    results: list[Result] = []
    peaks: dict[str, dict[int, float]] = {}
    expert = f"DuckDB as an expert writes it: file read once, aggregates fused, cap {cap} MB"
    for size in sizes:
        for kind, path in (("CSV", large_csv(size)), ("Parquet", large_parquet(size))):
            ours = _measure(OURS, path, size, cap)
            peaks.setdefault(kind, {})[size] = ours["peak_mb"]
            label = f"Out of core, {kind}, {size / 1e6:g}M rows"
            if size not in ratios_at:
                continue
            theirs = _measure(BASELINE, path, size, cap, "expert_statements")
            scans = _measure(BASELINE, path, size, cap, "scan_statements")
            note = (f"{path.stat().st_size / 2**20:,.0f} MB {kind} file, DuckDB memory cap {cap} MB on both sides; 20 statistics; "
                    "ours reads every value by the plan's rule, prepares the file, fingerprints it, adds noise and charges "
                    f"the ledger; the expert's peak {theirs['peak_mb']:,.0f} MB; one scan per statistic "
                    f"{scans['seconds']:.1f} s at {scans['peak_mb']:,.0f} MB")
            results.append(Result(f"{label}: time", ours["seconds"], theirs["seconds"], "s", expert,
                                  max_ratio=1.5, note=note))
            results.append(Result(f"{label}: time against one scan per statistic", ours["seconds"],
                                  scans["seconds"], "s", "DuckDB, one query on the file per statistic (20 scans)"))
            results.append(Result(f"{label}: peak memory", ours["peak_mb"], theirs["peak_mb"], "MB", expert,
                                  max_value=1024, note="whole process, interpreter included"))
    if len(growth) > 1:
        small, large = growth[0], growth[-1]
        for kind, peak in peaks.items():
            results.append(Result(
                f"Out of core, {kind}: peak memory at {large / 1e6:g}M rows against {small / 1e6:g}M", peak[large],
                peak[small], "MB", f"ours at {small / 1e6:g}M rows", max_ratio=1.2, max_value=1024,
                note="; ".join(f"{size:,} rows: {peak[size]:,.0f} MB" for size in sizes) + f"; cap {cap} MB"))
    if command_line:
        size = ratios_at[-1]
        cli = release_by_command_line(large_csv(size), size, cli_cap)
        results.append(Result(
            f"dp-workbench release --memory-limit {cli_cap}MB, CSV {size / 1e6:g}M rows: peak memory", cli["peak_mb"],
            cli_cap, "MB", "the cap given", max_value=cli_cap + CLI_ALLOWANCE_MB,
            note=f"{cli['seconds']:.1f} s; {cli['progress']} progress reports with a percentage on standard error; "
                 f"target: the cap plus {CLI_ALLOWANCE_MB} MB for the interpreter"))
    return results


def main(argv: list[str] | None = None) -> None:
    run_alone(lambda quick, rows: run(quick, (rows,) if rows else None), __doc__, argv)


if __name__ == "__main__":
    main()
