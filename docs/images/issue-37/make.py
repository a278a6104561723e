"""Screenshots of steps 3, 5 and 6 at 1366x768 on the sample data (issue 37, 5).

Step 3 with the sample plan (its 'weight' column, which no statistic uses, shows "not needed yet"); steps 5 and 6
with the tables plan (the statistics table without a horizontal scroll; a release to a throw-away ledger).
Run from the repository root under an X server of that size, e.g.
    Xvfb :99 -screen 0 1366x768x24 &  DISPLAY=:99 QT_QPA_PLATFORM=xcb .venv/bin/python docs/images/issue-37/make.py docs/images/issue-37
"""
import os
import sys
import tempfile
from pathlib import Path

os.environ["DP_WORKBENCH_LEDGER"] = str(Path(tempfile.mkdtemp()) / "ledger.sqlite")
os.environ["DP_WORKBENCH_KEYS"] = tempfile.mkdtemp()
from PySide6.QtCore import QEventLoop, QTimer
from workbench.gui.app import application

app = application()  # the collector in the GUI thread, as the app
from workbench.core.data import load_table
from workbench.gui.main_window import MainWindow

SAMPLE = Path("resources/sample")
out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)


def settle(ms=300):
    loop = QEventLoop(); QTimer.singleShot(ms, loop.quit); loop.exec(); app.processEvents()


w = MainWindow(); w.resize(1366, 768); w.show(); settle()
w.show_table(load_table(SAMPLE / "household_survey.csv")); settle()
assert w.open_plan(SAMPLE / "household_survey.plan.json"); settle()
w.tabs.setCurrentIndex(2); settle(600)
w.grab().save(str(out / "03-columns.png"))
assert w.open_plan(SAMPLE / "household_survey.tables.plan.json"); settle()
w.preview_page.budget.total_epsilon.setValue(9.0)
w.tabs.setCurrentIndex(4); settle(600)
w.preview_page.table.selectRow(5); settle(800)
w.grab().save(str(out / "05-budget-and-preview.png"))
w.tabs.setCurrentIndex(5); settle(600)
page = w.release_page; page.ask = False; page.confirm_and_release()
for _ in range(900):
    if page.result is not None or page.task is None:
        break
    settle(100)
settle(800)
w.grab().save(str(out / "06-release.png"))
print("released" if page.result is not None else "not released")
w.document.dirty = False
