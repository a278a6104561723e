"""Print what the build produced: the bundle's size on disk, the size of each packed download (the
.tar.xz, the .deb), and how long its app takes to show the main window from a cold process start (median
of several starts, offscreen when there is no display). The numbers in docs/packaging.md come from here.

    python packaging/measure.py dist/dp-workbench [dist/dp-workbench-linux-x86_64.tar.xz dist/*.deb]
    python packaging/measure.py /opt/dp-workbench dist/dp-workbench_0.1.0-1_amd64.deb --json out.json

Targets (issue 36, after issue 23's 140 MB and 1.5 s): every packed download at most 250 MB; the main window within 1.0 s of launching the
installed app.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for benchmarks.startup
from benchmarks.startup import printed_times  # noqa: E402

STARTS = 5
MAX_PACKED_MB, MAX_START_SECONDS = 250, 1.0  # with synthetic microdata (issue 36): JAX, Polars, SciPy, imported lazily


def size_mb(folder: Path) -> float:
    """Bytes on disk, each file once (on Linux the two programs are one file under two names)."""
    files = {(p.stat().st_dev, p.stat().st_ino): p.stat().st_size for p in folder.rglob("*")
             if p.is_file() and not p.is_symlink()}
    return sum(files.values()) / 1e6


def start_times(app: Path) -> dict[str, float]:
    """Seconds from launching the program to its main window shown, and to its steps ready."""
    try:
        return printed_times([str(app), "--quit-when-shown"])
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle", type=Path, help="the one-folder app (dist/dp-workbench, or /opt/dp-workbench)")
    parser.add_argument("packed", type=Path, nargs="*", help="downloads made from it (.tar.xz, .deb)")
    parser.add_argument("--json", type=Path, help="also write the numbers here (default: beside the bundle, "
                        "when that folder is dist/)")
    args = parser.parse_args()
    bundle: Path = args.bundle
    gui = bundle / ("dp-workbench-gui.exe" if sys.platform == "win32" else "dp-workbench-gui")
    start_times(gui)  # once untimed, as a user's second start: the page cache holds the libraries
    starts = [start_times(gui) for _ in range(STARTS)]
    shown = [times["shown"] for times in starts]
    result = {
        "bundle_mb": round(size_mb(bundle), 1),
        "packed_mb": {path.name: round(path.stat().st_size / 1e6, 1) for path in args.packed if path.exists()},
        "start_seconds_median": round(statistics.median(shown), 2),
        "ready_seconds_median": round(statistics.median(times["ready"] for times in starts), 2),
        "version": subprocess.run([str(bundle / "dp-workbench"), "--version"], capture_output=True, text=True,
                                  timeout=60).stdout.strip(),
    }
    print(f"Bundle {bundle}: {result['bundle_mb']:.0f} MB on disk")
    for name, mb in result["packed_mb"].items():
        print(f"  {name}: {mb:.0f} MB packed; target at most {MAX_PACKED_MB} MB: {'met' if mb <= MAX_PACKED_MB else 'MISSED'}")
    met = result["start_seconds_median"] <= MAX_START_SECONDS
    print(f"Start to main window shown: median {result['start_seconds_median']:.2f} s over {STARTS} starts; "
          f"target at most {MAX_START_SECONDS} s: {'met' if met else 'MISSED'} (every step ready: median "
          f"{result['ready_seconds_median']:.2f} s)")
    print(result["version"])
    out = args.json or (bundle.parent / "measurements.json" if bundle.parent.name == "dist" else None)
    if out is not None:
        out.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
