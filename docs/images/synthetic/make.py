"""Screenshots of steps 4-6 with a synthetic table at 1366x768, on a realistic labelled survey (issue 36).

Run from the repository root under an X server of that size, e.g.
    Xvfb :99 -screen 0 1366x768x24 &  DISPLAY=:99 QT_QPA_PLATFORM=xcb .venv/bin/python docs/images/synthetic/make.py docs/images/synthetic
The table is synthetic (tests/realistic_tables.py); the release goes to a throw-away ledger. Step 4 is taken with the
"Synthetic microdata" dialog open, so the whole screen is grabbed.
"""
import os
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tests"))
os.environ["DP_WORKBENCH_LEDGER"] = str(Path(tempfile.mkdtemp()) / "ledger.sqlite")
from realistic_tables import ETHNICITIES, STATES, labour_force, write_labelled

from workbench.core.data.io import load_table
from workbench.core.data.schema import IdentifierColumn
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.plan import Budget, PlannedStatistic
from workbench.core.release.template import plan_template
from workbench.core.statistics.counts import Count

out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
data = write_labelled(labour_force(3000), Path(tempfile.mkdtemp()) / "labour_force.sav")
table = load_table(data)
plan = plan_template(table, name="Labour force survey 2026 (synthetic)")
cols = []
for c in plan.schema.columns:
    if c.name == "person": c = IdentifierColumn("person")
    elif c.name == "wage": c = replace(c, lower=0.0, upper=5000.0)
    elif c.name == "state": c = replace(c, categories=STATES)
    elif c.name == "ethnicity": c = replace(c, categories=ETHNICITIES)
    cols.append(c)
plan = replace(plan, schema=replace(plan.schema, columns=tuple(cols)),
               statistics=(PlannedStatistic(Count(by="region"), MechanismKind.GAUSSIAN, Budget(0.5, 1e-8), weight=1.0),),
               total=Budget(3.0, 1e-7), dataset=replace(plan.dataset, size_estimate=3000))
plan_path = data.with_suffix(".plan.json"); plan.save(plan_path)

from PySide6.QtCore import QEventLoop, Qt, QTimer
from workbench.gui.app import application

app = application()  # the collector in the GUI thread, as the app
from workbench.gui.main_window import MainWindow


def settle(ms=300):
    loop = QEventLoop(); QTimer.singleShot(ms, loop.quit); loop.exec(); app.processEvents()


w = MainWindow(); w.resize(1366, 768); w.show(); settle()
w.show_table(table); settle()
assert w.open_plan(plan_path)
w.tabs.setCurrentIndex(3); settle(600)
page = w.statistics_page
dialog = page.edit_synthetic()
for row, spec in enumerate(dialog.columns):
    if spec.name in ("region", "sex", "employed", "wage", "state"):
        dialog.list.item(row, 0).setCheckState(Qt.CheckState.Checked)
    if spec.name == "wage":
        dialog.list.item(row, 2).setText("250, 500, 1000, 2000")
dialog.keep.setText("employed × wage")
dialog.numeric_values.setCurrentIndex(1)
settle(600)
app.primaryScreen().grabWindow(0).save(str(out / "04-statistics-synthetic-dialog.png"))
dialog.accept(); settle(600)
planned = w.document.plan.statistics
w.document.update(replace(w.document.plan, statistics=(planned[0], replace(planned[1], weight=4.0))))
settle(600)
w.grab().save(str(out / "04-statistics.png"))
w.tabs.setCurrentIndex(4); settle(800)
w.preview_page.table.selectRow(1); settle(800)
w.grab().save(str(out / "05-budget-and-preview.png"))
w.tabs.setCurrentIndex(5); settle(600)
release = w.release_page; release.ask = False; release.confirm_and_release()
for _ in range(6000):
    if release.result is not None or release.task is None: break
    settle(100)
settle(800)
if release.quality.choice.count() > 1:
    release.quality.choice.setCurrentIndex(0); settle(500)
w.grab().save(str(out / "06-release.png"))
print("released:", release.result is not None, release.status.text()[:200])
w.document.dirty = False
