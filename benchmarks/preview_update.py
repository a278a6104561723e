"""How long one preview update takes while the ε slider moves, against a 60 Hz frame (16.7 ms).

Drives the real Budget & preview page offscreen on the sample plan, with every statistic
sharing the total by weight (so every move recalibrates every statistic), and moves the
slider across its whole range. Printed: median and 95th percentile per update, and their
ratio to one frame.

    QT_QPA_PLATFORM=offscreen .venv/bin/python benchmarks/preview_update.py
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("DP_WORKBENCH_LEDGER", str(Path(tempfile.mkdtemp()) / "ledger.sqlite"))

from PySide6.QtWidgets import QApplication  # noqa: E402

from workbench.gui.main_window import MainWindow  # noqa: E402

FRAME = 1 / 60
PLAN = Path(__file__).resolve().parents[1] / "resources" / "sample" / "household_survey.plan.json"


def main() -> None:
    app = QApplication([])
    window = MainWindow()
    window.show()
    window.open_plan(PLAN)
    plan = window.document.plan
    window.document.update(replace(plan, statistics=tuple(replace(p, weight=1.0) for p in plan.statistics)))
    page = window.preview_page
    window.tabs.setCurrentWidget(page)
    page.recompute()
    full, compute = [], []
    for position in range(0, page.slider.maximum() + 1, 3):
        start = time.perf_counter()
        page.slider.setValue(position)
        app.processEvents()  # runs the coalescing timer: one recompute, and a repaint
        full.append(time.perf_counter() - start)
        start = time.perf_counter()
        page.recompute()  # the numbers, table and plot data alone, without painting
        compute.append(time.perf_counter() - start)
        app.processEvents()
    print(f"{len(full)} slider positions, {len(plan.statistics)} statistics (Laplace and Gaussian), "
          f"platform {app.platformName()}")
    for name, times in (("recompute (numbers, table, plot data)", compute), ("whole update incl. painting", full)):
        median, p95 = statistics.median(times), sorted(times)[int(0.95 * len(times))]
        print(f"  {name}: median {median * 1e3:.1f} ms, 95th percentile {p95 * 1e3:.1f} ms; "
              f"ratio to one 60 Hz frame {median / FRAME:.2f} (median), {p95 / FRAME:.2f} (95th)")
    window.document.dirty = False
    window.close()


if __name__ == "__main__":
    main()
