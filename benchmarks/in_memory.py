"""The in-memory engine on a whole CSV, as ``dp-workbench release --engine memory`` runs it, against pandas
reading the plan's columns and numpy computing the same exact aggregates.

Ours, in a fresh process: the command line itself, ``dp-workbench release FILE --plan <the 20-statistic plan> --engine
memory --out <folder> --ledger <a new ledger> --dataset-budget ε δ`` (``workbench.cli.main``, its printed output
dropped): the file read block by block, the plan's columns prepared as each block is read (every value read by the
plan's description of its column; a block's text let go once hashed), every column hashed for the content
fingerprint as it is read, the check of the public categories against the file, then the release (exact answers,
OpenDP's noise, estimates, the ledger's charge with the file's fingerprints) and results.csv and results.json
written. The baseline, in
another fresh process: ``pandas.read_csv(file, usecols=<the plan's columns>)`` (the C engine, pandas' own types),
then the same exact aggregates with numpy (``plan_run.baseline_exact``: complete cases, clamped values summed on
the same integer grid, category codes, counts per cell; quantiles by ``numpy.quantile``), no noise. Each process
reports its peak resident memory (VmHWM, the interpreter included); the baseline also its peak right after the read.

Targets: time at most 1.5x the read plus the aggregates; peak memory at most 1.2x pandas' own read of the
plan's columns. The file: the out-of-core benchmark's CSV of 2,000,000 rows (132 MB) in the quick run,
20,000,000 rows in the full one.

    .venv/bin/python -m benchmarks.in_memory [--quick] [--rows N]
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from benchmarks.out_of_core import large_csv
from benchmarks.results import Result, run_alone

FULL_ROWS = 20_000_000
QUICK_ROWS = 2_000_000
ROOT = Path(__file__).resolve().parents[1]

OURS = """
import contextlib, io, json, tempfile, time
from pathlib import Path
from benchmarks.data import plan as benchmark_plan
from benchmarks.out_of_core import peak_mb
from workbench.cli.main import main
plan = benchmark_plan(ROWS)
with tempfile.TemporaryDirectory() as folder:
    plan_file = Path(folder) / "plan.json"
    plan_file.write_text(json.dumps(plan.to_json()), encoding="utf-8")
    budget = plan.guarantee()
    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        status = main(["release", PATH, "--plan", str(plan_file), "--engine", "memory",
                       "--out", str(Path(folder) / "out"), "--ledger", str(Path(folder) / "ledger.sqlite"),
                       "--dataset-budget", repr(budget.epsilon), repr(budget.delta)])
    seconds = time.perf_counter() - start
    statistics = len(json.loads((Path(folder) / "out" / "results.json").read_text(encoding="utf-8"))["statistics"])
assert status == 0, status
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(), "statistics": statistics}))
"""

BASELINE = """
import json, time
import numpy as np
import pandas as pd
from benchmarks.data import plan as benchmark_plan
from benchmarks.out_of_core import peak_mb
from benchmarks.plan_run import baseline_exact
from workbench.core.statistics.quantiles import Quantiles
plan = benchmark_plan(ROWS)
columns = [spec.name for spec in plan.used_schema().columns]
start = time.perf_counter()
frame = pd.read_csv(PATH, usecols=columns, engine="c")
read_seconds, read_peak = time.perf_counter() - start, peak_mb()
answers = baseline_exact(frame, plan)
for i, (planned, exact) in enumerate(zip(plan.statistics, answers)):
    if isinstance(planned.statistic, Quantiles):  # each group's exact quantiles, where ours selects noisily
        answers[i] = [np.quantile(values, planned.statistic.levels, method="inverted_cdf") if len(values) else None
                      for values in exact]
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "peak_mb": peak_mb(), "read_seconds": read_seconds, "read_peak_mb": read_peak,
                  "statistics": len(answers)}))
"""


def _measure(script: str, path: Path, rows: int) -> dict[str, float]:
    code = script.replace("PATH", repr(str(path))).replace("ROWS", str(rows))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"the in-memory benchmark on {path.name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(quick: bool = False, rows: int | None = None) -> list[Result]:
    rows = rows or (QUICK_ROWS if quick else FULL_ROWS)
    path = large_csv(rows)
    path.read_bytes()  # into the page cache, for both sides alike
    ours, theirs = _measure(OURS, path, rows), _measure(BASELINE, path, rows)
    size = f"{path.stat().st_size / 2**20:,.0f} MB"
    label = f"In memory, CSV {rows / 1e6:g}M rows"
    return [
        Result(f"{label}: time", ours["seconds"], theirs["seconds"], "s",
               "pandas.read_csv of the plan's columns + numpy aggregates", max_ratio=1.5,
               note=f"{size}, 20 statistics; ours is the command line (reads, checks categories, releases, writes "
                    f"results); pandas' read alone "
                    f"{theirs['read_seconds']:.1f} s"),
        Result(f"{label}: peak memory", ours["peak_mb"], theirs["read_peak_mb"], "MB",
               "pandas.read_csv of the plan's columns", max_ratio=1.2,
               note=f"whole processes, interpreter included; the baseline's peak with its aggregates {theirs['peak_mb']:,.0f} MB"),
    ]


def main(argv: list[str] | None = None) -> None:
    run_alone(run, __doc__, argv)


if __name__ == "__main__":
    main()
