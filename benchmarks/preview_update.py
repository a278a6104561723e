"""How long one preview update takes while the ε slider moves, against a 60 Hz frame (16.7 ms).

Drives the real Budget & preview page offscreen on the benchmark's 20-statistic plan, with
every statistic sharing the total by weight (so every move recalibrates every statistic),
and moves the slider 200 times across its range. Each move is timed from the slider's new
value until the event loop is idle again (twice through it, so that a repaint posted by the
first pass is timed too): the recalculation, the table, the plot data and the repaint.
Target: the 95th percentile at most one frame (16 ms).

It runs twice: on the 20-statistic plan with a Gaussian sum selected (its curve redrawn on every
move), and on the same plan with its mean of income by region asked by a 51-category column instead
(``state``: the 50 US states and DC, as public categories), that statistic selected, so that its 52
groups (51 and "other") are recomputed, listed and drawn on every move.

    .venv/bin/python -m benchmarks.preview_update [--states]     (offscreen without a display)
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

MOVES = 200
FRAME_MS = 1000 / 60
STATES = 51
BY_STATE = 8  # the statistic asked by state in the second run: the mean of income by region in the first


def preview_plan(states: bool):
    """The benchmark's 20-statistic plan; with ``states``, its mean income by region asked by a 51-category column."""
    from benchmarks.data import FULL_ROWS
    from benchmarks.data import plan as benchmark_plan
    from workbench.core.release.plan import ReleasePlan

    plan = benchmark_plan(FULL_ROWS)
    if not states:
        return plan
    described = plan.to_json()
    described["schema"]["columns"].append({
        "name": "state", "kind": "categorical", "categories": [f"State {i + 1:02d}" for i in range(STATES)],
        "outside": "other", "missing": {"action": "drop"}})
    assert described["statistics"][BY_STATE]["by"] == "region"
    described["statistics"][BY_STATE]["by"] = "state"
    return ReleasePlan.from_json(described)


def measure(moves: int = MOVES, states: bool = False) -> dict[str, float]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("DP_WORKBENCH_LEDGER", str(Path(tempfile.mkdtemp()) / "ledger.sqlite"))
    from workbench.gui.app import application
    from workbench.gui.main_window import MainWindow

    app = application()  # the collector in the GUI thread, as the app
    window = MainWindow()
    window.resize(1400, 900)
    window.show()
    plan = preview_plan(states)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "benchmark.plan.json"
        plan.save(path)
        window.open_plan(path)
    plan = window.document.plan
    window.document.update(replace(plan, statistics=tuple(replace(p, weight=1.0) for p in plan.statistics)))
    page = window.preview_page
    window.tabs.setCurrentWidget(page)
    app.processEvents()
    page.table.selectRow(BY_STATE if states else 3)  # a Gaussian sum's curve, or the 52 groups, redrawn on every move
    app.processEvents()
    positions = [round(i * page.slider.maximum() / (moves - 1)) for i in range(moves)]
    positions = positions[::2] + positions[1::2][::-1]  # up and down again: every move changes ε
    full, compute = [], []
    for position in positions:
        start = time.perf_counter()
        page.slider.setValue(position)
        app.processEvents()  # the recompute and the repaint it asks for
        app.processEvents()  # and whatever that repaint posted again: every paint this move causes is timed
        full.append(time.perf_counter() - start)
        start = time.perf_counter()
        page.recompute()  # the numbers, table and plot data alone, of the ε just computed (its caches warm)
        compute.append(time.perf_counter() - start)
        app.processEvents()
        app.processEvents()
    window.document.dirty = False
    window.close()
    p95 = lambda times: sorted(times)[int(0.95 * len(times)) - 1] * 1e3  # noqa: E731
    return {
        "moves": len(full), "statistics": len(plan.statistics), "platform": app.platformName(), "states": states,
        "full_median_ms": statistics.median(full) * 1e3, "full_p95_ms": p95(full),
        "compute_median_ms": statistics.median(compute) * 1e3, "compute_p95_ms": p95(compute),
    }


def run() -> list:
    """In fresh processes (a Qt application of their own), as the benchmark suite calls it: the 20-statistic plan,
    then the same with a statistic by a 51-category column."""
    import subprocess

    from benchmarks.results import Result

    results = []
    for states in (False, True):
        done = subprocess.run([sys.executable, "-m", "benchmarks.preview_update", "--json"] + (["--states"] if states else []),
                              capture_output=True, text=True,
                              env={**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")})
        if done.returncode != 0:
            raise RuntimeError(f"preview benchmark failed: {done.stderr[-2000:]}")
        m = json.loads(done.stdout.strip().splitlines()[-1])
        what = f", a statistic by a {STATES}-category column" if states else ""
        results.append(Result(
            f"ε slider: preview update{what}, 95th percentile", m["full_p95_ms"], FRAME_MS, "ms", "one 60 Hz frame",
            max_value=16.0,
            note=(f"{m['moves']} moves, {m['statistics']} statistics{what}, {m['platform']}; median {m['full_median_ms']:.1f} ms; "
                  f"the same ε again without painting p95 {m['compute_p95_ms']:.1f} ms"),
        ))
    return results


def main() -> None:
    m = measure(states="--states" in sys.argv)
    if "--json" in sys.argv:
        print(json.dumps(m))
        return
    print(f"{m['moves']} slider moves, {m['statistics']} statistics (Laplace, Gaussian, quantiles), "
          f"platform {m['platform']}")
    print(f"  whole update incl. painting: median {m['full_median_ms']:.1f} ms, 95th percentile "
          f"{m['full_p95_ms']:.1f} ms (one 60 Hz frame: {FRAME_MS:.1f} ms)")
    print(f"  numbers, table and plot data alone, the same ε again (caches warm): median "
          f"{m['compute_median_ms']:.1f} ms, 95th percentile {m['compute_p95_ms']:.1f} ms")


if __name__ == "__main__":
    main()
