"""Screenshots of steps 3-6 at 1366x768 on a realistic labelled survey with grouped statistics (issue 19).

Run from the repository root under an X server of that size, e.g.
    Xvfb :99 -screen 0 1366x768x24 &  DISPLAY=:99 QT_QPA_PLATFORM=xcb .venv/bin/python docs/images/realistic/make.py docs/images/realistic
The table is synthetic (tests/realistic_tables.py); the release goes to a throw-away ledger.
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
from workbench.core.statistics.counts import Count, CrossTab
from workbench.core.statistics.moments import Mean
from workbench.core.statistics.proportions import Proportion

out = Path(sys.argv[1]); out.mkdir(parents=True, exist_ok=True)
data = write_labelled(labour_force(3000), Path(tempfile.mkdtemp()) / "labour_force.sav")
table = load_table(data)
plan = plan_template(table, name="Labour force survey 2026 (synthetic)")
cols = []
for c in plan.schema.columns:
    if c.name == "person": c = IdentifierColumn("person")
    elif c.name == "wage": c = replace(c, lower=0.0, upper=5000.0)
    elif c.name == "state": c = replace(c, categories=STATES)
    elif c.name == "ethnicity": c = replace(c, categories=ETHNICITIES)  # the synthetic survey's public list
    cols.append(c)
schema = replace(plan.schema, columns=tuple(cols))
stats = (
    PlannedStatistic(Count(by="region"), MechanismKind.LAPLACE, Budget(0.2), weight=1.0),
    PlannedStatistic(Mean("wage", by="region"), MechanismKind.LAPLACE, Budget(0.3), weight=1.0, smallest_group=300),
    PlannedStatistic(Mean("wage", by="state"), MechanismKind.LAPLACE, Budget(0.3), weight=1.0, smallest_group=30),
    PlannedStatistic(CrossTab(("sex", "employed"), by="region"), MechanismKind.LAPLACE, Budget(0.2), weight=1.0),
    PlannedStatistic(Mean("wage", by=("region", "sex")), MechanismKind.LAPLACE, Budget(0.3), weight=1.0),  # issue 21
    PlannedStatistic(Proportion("employed", by="region", percent=True), MechanismKind.LAPLACE, Budget(0.2), weight=1.0),
)
plan = replace(plan, schema=schema, statistics=stats, total=Budget(2.0),
               dataset=replace(plan.dataset, size_estimate=3000))
plan_path = data.with_suffix(".plan.json"); plan.save(plan_path)

from PySide6.QtCore import QEventLoop, QTimer
from workbench.gui.app import application

app = application()  # the collector in the GUI thread, as the app
from workbench.gui.main_window import MainWindow


def settle(ms=300):
    loop = QEventLoop(); QTimer.singleShot(ms, loop.quit); loop.exec(); app.processEvents()
w = MainWindow(); w.resize(1366, 768); w.show(); settle()
w.show_table(table); settle()
assert w.open_plan(plan_path)
w.preview_page.budget.total_epsilon.setValue(5.0)
settle()
for index, name in [(2, "columns"), (3, "statistics"), (4, "budget-and-preview"), (5, "release")]:
    w.tabs.setCurrentIndex(index); settle(600)
    if name == "budget-and-preview":
        w.preview_page.table.selectRow(2); settle(800)
    if name == "release":
        page = w.release_page; page.ask = False; page.confirm_and_release()
        for _ in range(600):
            if page.result is not None or page.task is None: break
            settle(100)
        settle(500)
    w.grab().save(str(out / f"{index + 1:02d}-{name}.png"))
    print(name, w.width(), w.height())
w.document.dirty = False
