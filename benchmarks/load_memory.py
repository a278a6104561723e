"""Peak memory and time of loading a 5-million-row CSV, against ``pandas.read_csv`` on the same file.

Each side runs in a fresh process and reports its own peak resident memory (``ru_maxrss``), so
neither inherits the other's heap. Ours is what the app does off the GUI thread: ``load_table``
with a progress callback (the reading goes through a watched file object), the proposed kinds,
and the missing-value counts of step 1. Both the whole peak and the growth over the process's
memory before reading (interpreter and imports) are compared; the target is at most 2x.

    .venv/bin/python -m benchmarks.load_memory [--rows 5000000]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import pandas as pd

from benchmarks import loading

SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample" / "household_survey.csv"


def big_csv(rows: int, folder: Path) -> Path:
    path = folder / f"survey-{rows}.csv"
    if not path.exists():
        sample = pd.read_csv(SAMPLE)
        repeats = -(-rows // len(sample))
        pd.concat([sample] * repeats, ignore_index=True).head(rows).to_csv(path, index=False)
    return path


def compare(path: Path) -> dict[str, float]:
    baseline, ours = loading.measure("pandas_csv", path), loading.measure("ours_step1", path)
    return {
        "file_mb": path.stat().st_size / 1e6,
        "rows": ours["rows"],
        "pandas_peak_mb": baseline["peak_mb"],
        "ours_peak_mb": ours["peak_mb"],
        "peak_ratio": ours["peak_mb"] / baseline["peak_mb"],
        "growth_ratio": (ours["peak_mb"] - ours["before_mb"]) / (baseline["peak_mb"] - baseline["before_mb"]),
        "pandas_seconds": baseline["seconds"],
        "ours_seconds": ours["seconds"],
        "time_ratio": ours["seconds"] / baseline["seconds"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=5_000_000)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dp-workbench-bench-") as folder:
        result = compare(big_csv(args.rows, Path(folder)))
    print(f"{result['rows']:,} rows, {result['file_mb']:.0f} MB CSV")
    print(f"  peak memory: ours {result['ours_peak_mb']:.0f} MB, pandas.read_csv {result['pandas_peak_mb']:.0f} MB: "
          f"ratio {result['peak_ratio']:.2f} (growth over the process before reading: {result['growth_ratio']:.2f}); "
          "target at most 2")
    print(f"  time: ours {result['ours_seconds']:.1f} s (load, proposals, missing counts), pandas.read_csv "
          f"{result['pandas_seconds']:.1f} s: ratio {result['time_ratio']:.2f}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
