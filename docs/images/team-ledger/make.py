"""Screenshots of the app on a team ledger at 1366x768 (issue 38): the setting with its connection test, the budget
panel's server line, a refusal that names another analyst's release, and the panel when the server is away.

Run from the repository root, as root or not, with PostgreSQL installed (./dev test installs it):
    xvfb-run -s "-screen 0 1366x768x24" env QT_QPA_PLATFORM=xcb .venv/bin/python docs/images/team-ledger/make.py docs/images/team-ledger
A throw-away server (tests/postgres_server.py) holds the ledger: its administrator registers the sample survey
with ε = 1.5 and alice releases from it (ε = 1); the app is bob's. Nothing of the user's settings, keys or
ledger is used or changed. The data, the plan and bob's local ledger setting are in a neutral user folder,
/home/analyst (made for the run and removed after it, where it can be; else a temporary folder), so that no path of
the machine that made them shows in a status bar or a dialog.
"""
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests"))
NEUTRAL = Path("/home/analyst")
try:
    NEUTRAL.mkdir(parents=True)
    scratch, made = NEUTRAL, True
except OSError:  # there already, or not ours to make
    scratch, made = Path(tempfile.mkdtemp(prefix="dp-workbench-shots-")), False
    print(f"{NEUTRAL} cannot be made; paths in {scratch} may show in the pictures", file=sys.stderr)
os.environ["DP_WORKBENCH_KEYS"] = str(scratch / ".config" / "dp-workbench" / "keys")
os.environ["DP_WORKBENCH_LEDGER"] = str(scratch / ".local" / "share" / "dp-workbench" / "ledger.sqlite")
from postgres_server import PostgresServer, binaries  # noqa: E402

from workbench.core.data.io import load_table  # noqa: E402
from workbench.core.privacy import Guarantee  # noqa: E402
from workbench.core.release import ReleasePlan, Terms, release  # noqa: E402
from workbench.core.release.ledger import Ledger  # noqa: E402
from workbench.core.release.ledger_postgres import init_server  # noqa: E402

(scratch / "survey").mkdir()
SAMPLE = Path(shutil.copy(ROOT / "resources" / "sample" / "household_survey.csv", scratch / "survey"))
SAMPLE_PLAN = Path(shutil.copy(ROOT / "resources" / "sample" / "household_survey.plan.json", scratch / "survey"))
out = Path(sys.argv[1]).resolve()
out.mkdir(parents=True, exist_ok=True)

server = PostgresServer(binaries()).start()
os.environ["PGPASSFILE"] = str(server.pgpass)
try:
    database = "census_ledger"
    server.sql("postgres", f"CREATE DATABASE {database} OWNER ledger_admin")
    plan = ReleasePlan.load(SAMPLE_PLAN)
    admin = init_server(server.url(database))
    admin.register(plan.dataset.name, Guarantee(1.5, 1e-6, "total budget"), Terms.of(plan.schema),
                   size_estimate=plan.dataset.size_estimate)
    release(load_table(SAMPLE), plan, Ledger(server.url(database, "alice")))

    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtWidgets import QMessageBox
    from workbench.gui.app import application

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(scratch / "settings"))
    app = application()  # the collector in the GUI thread, as the app
    from workbench.gui.ledger_setting import LedgerSettingsDialog, choose
    from workbench.gui.main_window import MainWindow

    def settle(ms=300):
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()
        app.processEvents()

    def shoot(name: str) -> None:
        settle(400)
        app.primaryScreen().grabWindow(0).save(str(out / name))  # the whole screen: window and dialog alike
        print("saved", out / name)

    choose(server.url(database, "bob"))
    w = MainWindow()
    w.resize(1366, 768)
    w.move(0, 0)
    w.show()
    settle()
    w.open_path(SAMPLE)
    while w.loading is not None:
        settle(100)
    assert w.open_plan(SAMPLE_PLAN)

    w.tabs.setCurrentWidget(w.preview_page)
    settle(500)
    dialog = LedgerSettingsDialog(w)
    dialog.show()
    dialog.move(363, 200)
    dialog.test_connection()
    shoot("01-setting.png")
    dialog.close()

    budget = w.preview_page.budget
    for _ in range(100):
        if "Team ledger" in budget.ledger_line.text():
            break
        settle(100)
    shoot("02-budget-panel-server-line.png")

    shown = []

    def warning(parent, title, text, *args, **kwargs):  # the app's own message box, left open for the picture
        box = QMessageBox(QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok, parent)
        box.show()
        shown.append(box)

    QMessageBox.warning = warning
    w.tabs.setCurrentWidget(w.release_page)
    settle(500)
    page = w.release_page
    page.ask = False
    page.confirm_and_release()
    assert shown, "no refusal"
    shoot("03-refusal-names-alice.png")
    for box in shown:
        box.close()
    w.statusBar().clearMessage()  # the refusal's "Fix it here" is not the offline panel's

    import socket

    with socket.socket() as probe:  # a port where no server answers: the laptop away from the office network
        probe.bind(("127.0.0.1", 0))
        away = probe.getsockname()[1]
    choose(f"postgresql://bob@127.0.0.1:{away}/{database}")
    w.tabs.setCurrentWidget(w.preview_page)
    budget.invalidate()
    budget.show_plan(*budget._last)
    for _ in range(100):
        if "cannot be reached" in budget.ledger_line.text():
            break
        settle(100)
    shoot("04-budget-panel-offline.png")
    w.document.dirty = False
    w.close()
finally:
    server.stop()
    if made:
        shutil.rmtree(NEUTRAL)
