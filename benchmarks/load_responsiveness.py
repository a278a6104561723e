"""Does the window stay responsive while a 5-million-row CSV loads? Event-loop gaps during the load.

Builds a 5,000,000-row CSV from the sample (once, in a temporary folder), opens it in the
real main window offscreen, and ticks a 10 ms timer throughout: the longest gap between
ticks is how long the window was frozen. Baseline in the same run: plain
``pandas.read_csv`` of the same file, which our load (detection, checks, proposals)
is compared to.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/load_responsiveness.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pandas as pd  # noqa: E402
from PySide6.QtCore import QSettings, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

SAMPLE = Path(__file__).resolve().parents[1] / "resources" / "sample" / "household_survey.csv"
ROWS = 5_000_000


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="dp-workbench-bench-"))
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(folder))
    big = folder / "big.csv"
    sample = pd.read_csv(SAMPLE)
    pd.concat([sample] * (ROWS // len(sample)), ignore_index=True).to_csv(big, index=False)

    start = time.perf_counter()
    pd.read_csv(big)
    baseline = time.perf_counter() - start

    from workbench.gui.main_window import MainWindow

    app = QApplication([])
    window = MainWindow()
    window.show()
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.timeout.connect(tick)
    timer.start(10)
    start = time.perf_counter()
    window.open_path(big)
    while window.loading is not None:
        app.processEvents()
        time.sleep(0.001)
    loaded = time.perf_counter() - start
    for _ in range(50):  # the first paint of the new table
        app.processEvents()
        time.sleep(0.01)
    gaps.sort()
    print(f"{len(window.document.table.frame):,} rows, {big.stat().st_size / 1e6:.0f} MB")
    print(f"  load in the app: {loaded:.1f} s; pandas.read_csv alone: {baseline:.1f} s; ratio {loaded / baseline:.2f}")
    print(f"  event-loop gaps (10 ms timer): median {gaps[len(gaps) // 2] * 1e3:.0f} ms, "
          f"longest {gaps[-1] * 1e3:.0f} ms (the longest the window was frozen)")
    window.document.dirty = False
    window.close()
    big.unlink()


if __name__ == "__main__":
    main()
