"""Cold start: from launching the app to its main window shown, against a bare Qt window.

Both are fresh interpreters started the same way (offscreen without a display); each prints
the wall-clock time once its first events, the window's paint among them, are handled. Ours
is ``dp-workbench-gui --quit-when-shown`` run from source; the baseline is an empty PySide6
QMainWindow, which no Qt application can start faster than. Median of several starts.
Target: at most 2 s (the bundle is measured the same way by packaging/measure.py).
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
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication(sys.argv[:1])
window = QMainWindow()
window.resize(1200, 800)
window.show()
def shown():
    print(f"shown at {time.time():.3f}", flush=True)
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def seconds_to_window(command: list[str]) -> float:
    env = dict(os.environ)
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env["QT_QPA_PLATFORM"] = "offscreen"
    began = time.time()
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    shown = next((line for line in done.stdout.splitlines() if line.startswith("shown at ")), None)
    if done.returncode != 0 or shown is None:
        raise RuntimeError(f"{command} did not show a window: {done.stderr[-2000:]}")
    return float(shown.split()[-1]) - began


def run(starts: int) -> list[Result]:
    ours_command = [sys.executable, "-c", "import sys; from workbench.gui.app import main; sys.exit(main())",
                    "--quit-when-shown"]
    bare_command = [sys.executable, "-c", BARE_WINDOW]
    seconds_to_window(ours_command)  # once untimed: Python's bytecode cache and the page cache are warm for both
    seconds_to_window(bare_command)
    ours = statistics.median(seconds_to_window(ours_command) for _ in range(starts))
    bare = statistics.median(seconds_to_window(bare_command) for _ in range(starts))
    return [Result("cold start to main window", ours, bare, "s", "an empty PySide6 window", max_value=2.0,
                   note=f"median of {starts} fresh processes, from source")]
