"""The window comes up before the heavy libraries load; its steps are built right after its first paint."""

from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = ("pandas", "numpy", "opendp", "pyqtgraph", "pyarrow", "duckdb", "workbench.core.release", "workbench.core.data")
SYNTHESIZER = ("polars", "jax", "mbi", "workbench.core.synthetic.fit")  # imported when a synthetic table is released

FIRST_PAINT = """
import gc, json, sys
from PySide6.QtCore import QTimer
from workbench.gui.app import application
from workbench.gui.collector import GuiThreadCollector
from workbench.gui.main_window import AfterFirstPaint, MainWindow

heavy = {heavy!r}
app = application()  # as the app makes it (app.main)
window = MainWindow()
window.show()
seen = {{}}

def ready():
    seen["ready"] = sorted(name for name in heavy if name in sys.modules)
    seen["tabs"] = [type(window.tabs.widget(i)).__name__ for i in range(window.tabs.count())]
    seen["title"] = window.windowTitle()
    seen["collected_in_the_gui_thread"] = len(app.findChildren(GuiThreadCollector)) == 1 and not gc.isenabled()
    print(json.dumps(seen))
    app.quit()

def shown():
    seen["shown"] = sorted(name for name in heavy if name in sys.modules)
    seen["built_when_shown"] = window.built
    QTimer.singleShot(0, ready)

AfterFirstPaint(window, shown)
app.exec()
"""


def test_the_window_is_painted_before_pandas_opendp_and_pyqtgraph_load_and_built_just_after_without_the_synthesizer():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", FIRST_PAINT.format(heavy=HEAVY + SYNTHESIZER)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["shown"] == [] and seen["built_when_shown"] is False
    assert set(seen["ready"]) >= {"pandas", "opendp", "pyqtgraph", "workbench.core.release"}
    assert not set(seen["ready"]) & set(SYNTHESIZER)  # Polars, Private-PGM and JAX would add seconds to the start
    assert seen["tabs"] == ["DataPage", "UnitPage", "ColumnsPage", "StatisticsPage", "PreviewPage", "ReleasePage"]
    assert seen["title"].startswith("Unnamed dataset — DP Workbench")  # the document's, once built
    assert seen["collected_in_the_gui_thread"]  # as the app: never in a worker thread (collector.py)


def test_quit_when_shown_prints_when_the_window_is_shown_and_when_its_steps_are_ready():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    command = [sys.executable, "-c", "import sys; from workbench.gui.app import main; sys.exit(main())",
               "--quit-when-shown"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    moments = [line.split() for line in done.stdout.splitlines() if line.endswith(tuple("0123456789"))]
    assert [words[0] for words in moments] == ["shown", "ready"]
    assert float(moments[0][-1]) <= float(moments[1][-1])


def test_a_step_asked_for_before_the_first_paint_is_built_at_once(qtbot):
    from workbench.gui.main_window import MainWindow

    window = MainWindow()  # never shown: no paint
    qtbot.addWidget(window)
    assert window.built is False
    page = window.columns_page
    assert window.built is True and window.tabs.widget(2) is page
    assert window.tabs.tabText(2) == "&3 Columns" and window.tabs.currentIndex() == 0


def test_the_app_sweeps_a_killed_release_s_folder_just_after_its_first_paint_and_keeps_a_live_one(tmp_path):
    """Prepared private data that an out-of-core release killed outright left behind is removed when the app next
    starts (after its first paint: the engine's module loads the data libraries); a running process's is kept."""
    from workbench.core.data.out_of_core import FOLDER_PREFIX

    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    dead, alive = tmp_path / f"{FOLDER_PREFIX}{ended.pid}-xyz", tmp_path / f"{FOLDER_PREFIX}{os.getpid()}-abc"
    for folder in (dead, alive):
        folder.mkdir()
        (folder / "prepared.duckdb").write_bytes(b"private rows")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TMPDIR": str(tmp_path), "TEMP": str(tmp_path),
           "TMP": str(tmp_path)}
    command = [sys.executable, "-c", "import sys; from workbench.gui.app import main; sys.exit(main())",
               "--quit-when-shown"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert not dead.exists() and (alive / "prepared.duckdb").exists()
