"""Use a built bundle as a user would, offscreen, on any platform (Linux, Windows, macOS): the same checks
wherever it was built. Exits non-zero, naming what failed, at the first thing that does not work.

- ``--version`` names OpenDP and the accountant's reference;
- ``inspect`` reads one file of each binary format (written by write_formats.py beside this script);
- the app walks through every step of the sample data and releases against a throw-away ledger;
- the command line releases the sample plan with its report, in memory and out of core.

    python packaging/try_bundle.py dist/dp-workbench WORK_FOLDER
    python packaging/try_bundle.py "dist/DP Workbench.app/Contents/MacOS" WORK_FOLDER

Run it with a Python that has pandas, pyreadstat and openpyxl (the build environment): it writes the files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUFFIX = ".exe" if sys.platform == "win32" else ""


def say(text: str) -> None:
    print(f"[try] {text}", file=sys.stderr, flush=True)


WINE_SYNTHETIC_SECONDS = 300  # JAX under Wine 8 sometimes never finishes its fit (seen in a CI run: 900 s, then killed)
ACCESS_VIOLATION = 0xC0000005  # a Windows program's exit code when it crashed on a bad memory access


def under_wine() -> bool:
    """Whether this Windows is Wine (its ntdll exports wine_get_version)."""
    if sys.platform != "win32":
        return False
    import ctypes

    try:
        ctypes.WinDLL("ntdll").wine_get_version
    except (AttributeError, OSError):
        return False
    return True


def run(*command: str | Path, env: dict[str, str]) -> str:
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True, env=env, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"FAILED: {' '.join(map(str, command))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def main() -> None:
    bundle, work = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
    cli, gui = bundle / f"dp-workbench{SUFFIX}", bundle / f"dp-workbench-gui{SUFFIX}"
    sample = next(folder for folder in (bundle / "sample", bundle.parent / "Resources" / "sample",
                                        HERE.parent / "resources" / "sample") if folder.is_dir())
    work.mkdir(parents=True, exist_ok=True)
    home = work / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "DP_WORKBENCH_LEDGER": str(work / "ledger.sqlite"),
           "HOME": str(home), "USERPROFILE": str(home)}

    say(f"{cli.name} --version")
    version = run(cli, "--version", env=env)
    (work / "version.txt").write_text(version)
    if "OpenDP" not in version or "dp-accounting" not in version:
        raise SystemExit(f"FAILED: --version does not name OpenDP and dp-accounting: {version}")

    say("inspect: one file of each binary format")
    run(sys.executable, HERE / "write_formats.py", work / "formats", env=env)
    for path in sorted((work / "formats").iterdir()):
        shown = run(cli, "inspect", path, env=env)
        if "annual_i" not in shown:
            raise SystemExit(f"FAILED: the bundle cannot read {path.name}:\n{shown}")

    say(f"{gui.name} --smoke-test")
    run(gui, "--smoke-test", work / "shots", env=env)
    for needed in (work / "shots" / "06-release.png", work / "shots" / "results" / "results.json"):
        if not needed.is_file() or needed.stat().st_size == 0:
            raise SystemExit(f"FAILED: the app's walk through the steps left no {needed.name}")

    say("release of the sample plan, with the report; then out of core")
    plan = sample / "household_survey.plan.json"
    data = sample / "household_survey.csv"
    run(cli, "release", data, "--plan", plan, "--out", work / "release", "--report", "--dataset-budget", "3", "1e-6",
        env=env)
    for name in ("results.json", "results.csv", "report.html", "report.pdf"):
        if not (work / "release" / name).is_file():
            raise SystemExit(f"FAILED: the release wrote no {name}")
    if '"libraries"' not in (work / "release" / "results.json").read_text(encoding="utf-8"):
        raise SystemExit("FAILED: results.json does not name the libraries")
    run(cli, "release", data, "--plan", plan, "--out", work / "release-out-of-core", "--engine", "out-of-core",
        "--memory-limit", "256MB", "--ledger", work / "out-of-core.sqlite", "--dataset-budget", "3", "1e-6", env=env)
    if not (work / "release-out-of-core" / "results.json").is_file():
        raise SystemExit("FAILED: the out-of-core release wrote no results.json")

    say("synthetic microdata of the sample (Polars, Private-PGM and JAX in the bundle), in memory and out of core")
    synthetic = json.loads(plan.read_text(encoding="utf-8"))
    synthetic["version"] = 2
    synthetic["dataset"]["name"] = "Household survey (synthetic microdata)"
    synthetic["statistics"] = [{"type": "synthetic", "columns": ["region", "sex", "age"], "edges": {"age": [18, 65]},
                                "rows": 1000, "keep": [], "numeric_values": "uniform", "algorithm": "mst",
                                "mechanism": "gaussian", "epsilon": 1.0, "delta": 1e-7}]
    synthetic["total_budget"] = {"epsilon": 1.0, "delta": 1e-7}
    synthetic_plan = work / "synthetic.plan.json"
    synthetic_plan.write_text(json.dumps(synthetic), encoding="utf-8")
    for engine in ("memory", "out-of-core"):
        out = work / f"synthetic-{engine}"
        command = (cli, "release", data, "--plan", synthetic_plan, "--out", out, "--engine", engine,
                   "--synthetic-format", "sav", "--ledger", work / f"synthetic-{engine}.sqlite", "--dataset-budget",
                   "3", "1e-6")
        if under_wine():
            try:
                done = subprocess.run([str(part) for part in command], capture_output=True, text=True, env=env,
                                      timeout=WINE_SYNTHETIC_SECONDS)
            except subprocess.TimeoutExpired:
                say(f"  not tried under Wine ({engine}): JAX's fit of the model did not end within "
                    f"{WINE_SYNTHETIC_SECONDS} s under Wine 8 (it takes seconds on Linux and on Windows); the hosted "
                    "workflow tries it on Windows itself")
                continue
            if done.returncode == ACCESS_VIOLATION:
                say(f"  not tried under Wine ({engine}): Wine 8's heap fails under JAX's XLA, in about a third of "
                    "runs and with a plain Windows Python too (a page fault in RtlAllocateHeap); the hosted "
                    "workflow tries it on Windows itself")
                continue
            if done.returncode != 0:
                raise SystemExit(f"FAILED: {' '.join(map(str, command))}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        else:
            run(*command, env=env)
        for name in ("synthetic.csv", "synthetic.sav", "results.json"):
            if not (out / name).is_file():
                raise SystemExit(f"FAILED: the synthetic release ({engine}) wrote no {name}")
        if len((out / "synthetic.csv").read_text(encoding="utf-8").splitlines()) != 1001:
            raise SystemExit(f"FAILED: the synthetic release ({engine}) did not write 1,000 rows")
    say(f"The bundle works: {bundle}")


if __name__ == "__main__":
    main()
