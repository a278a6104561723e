"""Does the window stay responsive while a 5-million-row CSV loads? Event-loop gaps during the load.

Builds a 5,000,000-row CSV from the sample (once, in a temporary folder), opens it in the
real main window offscreen, and ticks a 10 ms timer throughout: the longest gap between
ticks is how long the window was frozen. Then it opens the file again and presses Cancel a third
of the way through, and times how long the reading takes to stop. Baseline in the same run: plain
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
from workbench.gui.app import application  # noqa: E402

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

    app = application()  # the collector in the GUI thread, as the app
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
    shown = len(window.document.table.frame)

    # open it again and press Cancel a third of the way through: how long until the reading has stopped
    window.open_path(big)
    task, reports = window.loading, []
    task.progress.connect(reports.append)
    while not reports or reports[-1] < 0.33:
        app.processEvents()
        time.sleep(0.001)
    start = time.perf_counter()
    window.cancel_loading()
    while not task.done:
        app.processEvents()
        time.sleep(0.001)
    stopped = time.perf_counter() - start
    print(f"{shown:,} rows, {big.stat().st_size / 1e6:.0f} MB")
    print(f"  load in the app: {loaded:.1f} s; pandas.read_csv alone: {baseline:.1f} s; ratio {loaded / baseline:.2f}")
    print(f"  event-loop gaps (10 ms timer): median {gaps[len(gaps) // 2] * 1e3:.0f} ms, "
          f"longest {gaps[-1] * 1e3:.0f} ms (the longest the window was frozen)")
    print(f"  progress reports: {len(reports)} before Cancel at {100 * reports[-1]:.0f}%; the reading stopped "
          f"{stopped * 1e3:.0f} ms after Cancel")
    window.document.dirty = False
    window.close()
    big.unlink()


if __name__ == "__main__":
    main()
