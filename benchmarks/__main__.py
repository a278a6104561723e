"""Run every benchmark and print one table of ratios; also write it as JSON.

    python -m benchmarks            # 5,000,000 rows, several repeats, and out of core 20,000,000 and 100,000,000 rows: hours
    python -m benchmarks --quick    # 500,000 rows, fewer repeats, out of core and Spark 2,000,000: under five minutes
    python -m benchmarks --only loading,compose --json out.json

The data are generated with a fixed seed on first use and kept in benchmarks/.data (not in
git). Targets are printed and counted, never asserted: machines are noisy, so the exit
status is 0 unless a benchmark itself fails.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks import data
from benchmarks.results import Result, table

SUITE = ("loading", "plan", "memory", "preview", "compose", "startup", "utility", "synthetic", "outofcore", "spark")
DEFAULT_JSON = Path(__file__).resolve().parent / "results" / "latest.json"


def machine() -> dict[str, object]:
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory_gb = None
    try:
        memory_gb = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        pass
    from workbench.core.release.versions import versions

    return {
        "cpu": cpu, "logical_cpus": os.cpu_count(), "memory_gb": memory_gb,
        "os": platform.platform(), "python": platform.python_version(),
        "libraries": {name: versions().get(name) for name in ("OpenDP", "dp-accounting")}
        | _versions("pandas", "numpy", "pyarrow", "PySide6_Essentials", "pyqtgraph", "diffprivlib"),
    }


def _versions(*names: str) -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name in names:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = None
    return found


def run(only: tuple[str, ...], quick: bool, rows: int, failures: list[str] | None = None) -> list[Result]:
    """Every stage in ``only``; a stage that fails is named in ``failures`` and the others still run."""
    results: list[Result] = []
    failures = [] if failures is None else failures

    def stage(name: str, function) -> None:
        if name not in only:
            return
        print(f"… {name}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        try:
            results.extend(function())
        except Exception as exc:  # one failed benchmark must not lose the others' hour of measurements
            failures.append(f"{name}: {type(exc).__name__}: {str(exc).strip()[-1500:]}")
            print(f"  {name} FAILED after {time.perf_counter() - start:.0f} s: {failures[-1]}", file=sys.stderr, flush=True)
            return
        print(f"  {name} done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)

    files = data.files(rows) if {"loading", "plan"} & set(only) else {}
    from benchmarks import (compose_1000, in_memory, loading, out_of_core, plan_run, preview_update, spark, startup,
                            synthetic, utility)

    stage("loading", lambda: loading.run(files, repeats=3))  # loads of 0.05-0.2 s: two runs were not enough
    stage("plan", lambda: plan_run.run(files["csv"], repeats=2 if quick else 3))
    stage("memory", lambda: in_memory.run(quick))
    stage("preview", preview_update.run)
    stage("compose", compose_1000.run)
    stage("startup", lambda: startup.run(starts=3 if quick else 7))
    stage("utility", lambda: utility.run(repeats=150 if quick else 400, epsilons=(1.0,) if quick else (0.5, 1.0, 2.0)))
    stage("synthetic", lambda: synthetic.run(quick))
    stage("outofcore", lambda: out_of_core.run(quick))
    stage("spark", lambda: spark.run(quick))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="500,000 rows and fewer repeats, 2,000,000 out of core (under five minutes)")
    parser.add_argument("--rows", type=int, help="rows of the generated table (default 5,000,000; quick 500,000)")
    parser.add_argument("--only", help=f"comma-separated, from: {', '.join(SUITE)}")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, help=f"where to write the results ({DEFAULT_JSON})")
    args = parser.parse_args(argv)
    only = tuple(args.only.split(",")) if args.only else SUITE
    unknown = [name for name in only if name not in SUITE]
    if unknown:
        parser.error(f"unknown benchmark {', '.join(unknown)}; choose from {', '.join(SUITE)}")
    rows = args.rows or (500_000 if args.quick else data.FULL_ROWS)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    started = time.perf_counter()
    failures: list[str] = []
    results = run(only, args.quick, rows, failures)
    seconds = time.perf_counter() - started
    about = machine()
    print(f"\nDP Workbench benchmarks, {dt.date.today().isoformat()}, {'quick' if args.quick else 'full'} run "
          f"({rows:,} rows), {seconds:.0f} s")
    print(f"{about['cpu']}, {about['logical_cpus']} logical CPUs, {about['memory_gb']} GB; {about['os']}; "
          f"Python {about['python']}\n")
    print(table(results))
    judged = [r for r in results if r.met is not None]
    print(f"\n{sum(bool(r.met) for r in judged)} of {len(judged)} targets met.")
    for r in results:
        if r.note:
            print(f"- {r.name}: {r.note}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "quick": args.quick, "rows": rows, "seconds": seconds, "machine": about,
        "results": [r.to_json() for r in results], "failures": failures,
    }, indent=2) + "\n")
    print(f"\nWritten to {args.json}")
    for failure in failures:
        print(f"FAILED {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
