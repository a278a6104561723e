"""A scripted walk through every step, saving a screenshot of each: for CI, packaging and docs.

Opens the sample data and plan, visits the six steps, releases against a throw-away
ledger (never the user's), exports the results, and saves ``NN-step.png`` into a folder.
Only the bundled sample (or a copy of it): on any other table a walk would draw its noisy
values again and again without charging its budget (DESIGN rule 5).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication

from workbench.core.data import load_table
from workbench.core.errors import PlanError
from workbench.gui.ledger_setting import instead_of_chosen
from workbench.gui.main_window import MainWindow
from workbench.gui.welcome import SAMPLE_DATA, SAMPLE_PLAN

STEPS = ["data", "who-is-protected", "columns", "statistics", "budget-and-preview", "release"]


def _settle(app: QApplication, ms: int = 50) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()
    app.processEvents()


def _refuse_unless_sample(given: Path | None, sample: Path, name: str) -> None:
    """Refuse a file other than the bundled sample's (its bytes: a copy under another name is the sample)."""
    try:  # (the sizes first: a large table is never read whole for this)
        if given is None or (given.stat().st_size == sample.stat().st_size
                             and given.read_bytes() == sample.read_bytes()):
            return
    except OSError as exc:
        raise PlanError(f"{given}: {name} cannot be read ({exc.strerror or exc}).") from None
    raise PlanError(
        f"{given.name}: the smoke test walks through the app on the bundled sample only ({sample.name}), and "
        f"{name} given is not it. The walk releases against a throw-away ledger, so on a real table it would draw "
        "noisy values again and again without charging the table's budget. Open the file in the app (without "
        "--smoke-test) to release it against your ledger.")


def run(window: MainWindow, out: Path, data: Path | None = None, plan: Path | None = None) -> list[Path]:
    """Drive ``window`` through the workflow; return the screenshots written to ``out``."""
    app = QApplication.instance()
    for given, sample, name in ((data, SAMPLE_DATA, "the data file"), (plan, SAMPLE_PLAN, "the plan")):
        _refuse_unless_sample(given, sample, name)
    out.mkdir(parents=True, exist_ok=True)
    ledger_dir = tempfile.mkdtemp(prefix="dp-workbench-smoke-")
    previous = {name: os.environ.get(name) for name in ("DP_WORKBENCH_LEDGER", "DP_WORKBENCH_KEYS")}
    os.environ["DP_WORKBENCH_LEDGER"] = str(Path(ledger_dir) / "smoke-ledger.sqlite")
    os.environ["DP_WORKBENCH_KEYS"] = ledger_dir  # the throw-away ledger's key goes with it, not to the user's keys
    shots: list[Path] = []
    try:  # the throw-away ledger even where the user chose one under Tools ▸ Privacy ledger (a team's, say)
        with instead_of_chosen(Path(os.environ["DP_WORKBENCH_LEDGER"])):
            window.show_table(load_table(data or SAMPLE_DATA))
            if not window.open_plan(plan or SAMPLE_PLAN):
                raise RuntimeError("the sample plan could not be opened")
            for index, name in enumerate(STEPS):
                window.tabs.setCurrentIndex(index)
                _settle(app)
                if name == "release":
                    page = window.release_page
                    page.ask = False
                    page.confirm_and_release()
                    for _ in range(600):  # up to a minute
                        if page.result is not None or page.task is None:
                            break
                        _settle(app, 100)
                    if page.result is None:
                        raise RuntimeError(f"the release did not finish: {page.status.text()}")
                    page.export_to(out / "results")
                    _settle(app)
                shot = out / f"{index + 1:02d}-{name}.png"
                window.grab().save(str(shot))
                shots.append(shot)
    finally:
        shutil.rmtree(ledger_dir, ignore_errors=True)
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    window.document.dirty = False  # a smoke test leaves nothing to save
    return shots
