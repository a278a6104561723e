"""Print what the build produced: the bundle's size on disk and packed, and how long its app takes to
show the main window from a cold process start (median of several starts, offscreen when there is no
display). The numbers in docs/packaging.md come from here.

    python packaging/measure.py dist/dp-workbench [dist/dp-workbench-linux-x86_64.tar.xz]
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository, for benchmarks.startup
from benchmarks.startup import seconds_to_window  # noqa: E402

STARTS = 5


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def start_seconds(app: Path) -> float:
    """Seconds from launching the program to its main window having been shown (as the benchmarks measure
    the app run from source)."""
    try:
        return seconds_to_window([str(app), "--quit-when-shown"])
    except RuntimeError as exc:
        raise SystemExit(str(exc)) from None


def main() -> None:
    bundle = Path(sys.argv[1])
    archive = Path(sys.argv[2]) if len(sys.argv) > 2 else None
    gui = bundle / ("dp-workbench-gui.exe" if sys.platform == "win32" else "dp-workbench-gui")
    starts = [start_seconds(gui) for _ in range(STARTS)]
    result = {
        "bundle_mb": round(size_mb(bundle), 1),
        "archive_mb": round(archive.stat().st_size / 1e6, 1) if archive and archive.exists() else None,
        "start_seconds_median": round(statistics.median(starts), 2),
        "start_seconds_first": round(starts[0], 2),
        "version": subprocess.run([str(bundle / "dp-workbench"), "--version"], capture_output=True, text=True,
                                  timeout=60).stdout.strip(),
    }
    print(f"Bundle {bundle}: {result['bundle_mb']:.0f} MB on disk"
          + (f", {result['archive_mb']:.0f} MB packed ({archive.name})" if result["archive_mb"] else "")
          + "; target under 250 MB")
    print(f"Start to main window shown: median {result['start_seconds_median']:.2f} s over {STARTS} starts "
          f"(first {result['start_seconds_first']:.2f} s); target under 2 s")
    print(result["version"])
    (bundle.parent / "measurements.json").write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
