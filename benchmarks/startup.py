"""Cold start: from launching the app to its main window painted, against a bare Qt window.

Both are fresh interpreters started the same way (offscreen without a display); each prints
the wall-clock time in the event loop's turn after its window's first paint. Ours is
``dp-workbench-gui --quit-when-shown`` run from source, which also prints when its six steps are
built (they import pandas, OpenDP and pyqtgraph after the first paint); the baseline is an empty
PySide6 QMainWindow, which no Qt application can show faster. Median of several starts.
Targets: shown within 1.0 s and at most 3x the bare window; the steps ready, reported (the bundle
is measured the same way by packaging/measure.py).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from benchmarks.results import Result

BARE_WINDOW = """
import sys, time
from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.resize(1200, 800)
window.show()
def shown():
    print(f"shown at {time.time():.3f}", flush=True)
    app.quit()
class FirstPaint(QObject):
    def eventFilter(self, watched, event):
        if event.type() == QEvent.Type.Paint:
            watched.removeEventFilter(self)
            QTimer.singleShot(0, shown)
        return False
painted = FirstPaint()
window.installEventFilter(painted)
app.exec()
"""


def printed_times(command: list[str]) -> dict[str, float]:
    """Seconds from launching ``command`` to each moment it prints: "shown at", and ours also "ready at"."""
    env = dict(os.environ)
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    began = time.time()
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    times = {line.split()[0]: float(line.split()[-1]) - began for line in done.stdout.splitlines()
             if line.startswith(("shown at ", "ready at "))}
    if done.returncode != 0 or "shown" not in times:
        raise RuntimeError(f"{command} did not show a window: {done.stderr[-2000:]}")
    return times


def seconds_to_window(command: list[str]) -> float:
    return printed_times(command)["shown"]


def run(starts: int) -> list[Result]:
    ours_command = [sys.executable, "-c", "import sys; from workbench.gui.app import main; sys.exit(main())",
                    "--quit-when-shown"]
    bare_command = [sys.executable, "-c", BARE_WINDOW]
    printed_times(ours_command)  # once untimed: Python's bytecode cache and the page cache are warm for both
    seconds_to_window(bare_command)
    ours = [printed_times(ours_command) for _ in range(starts)]
    bare = statistics.median(seconds_to_window(bare_command) for _ in range(starts))
    shown = statistics.median(times["shown"] for times in ours)
    ready = statistics.median(times["ready"] for times in ours)
    note = f"median of {starts} fresh processes, from source"
    return [
        Result("cold start to main window shown", shown, bare, "s", "an empty PySide6 window", max_ratio=3.0,
               max_value=1.0, note=note + "; the six steps are built after the first paint"),
        Result("cold start to every step ready", ready, bare, "s", "an empty PySide6 window",
               note=note + "; pandas, OpenDP and pyqtgraph imported"),
    ]
