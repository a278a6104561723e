import pytest
from PySide6.QtCore import QSettings


@pytest.fixture(autouse=True)
def private_settings(tmp_path):
    """Recent files and other settings go to a temporary folder, not the user's."""
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))


@pytest.fixture(autouse=True)
def no_dialog_waits_for_a_click(monkeypatch):
    """Offscreen, a modal dialog waits for a click that never comes, and the whole run hangs until CI's time is
    up. Every message box, file dialog and dialog's exec is answered "cancel" and collected instead, and a test
    that shows one it did not expect (``warnings`` collects warnings for a test that does) fails with its
    words. A test that answers a dialog itself patches it again."""
    from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox

    shown = []

    def box(kind):
        return lambda parent, title, text, *a, **k: shown.append(f"{kind} '{title}': {text}") or QMessageBox.StandardButton.Cancel

    for kind in ("warning", "critical", "information"):
        monkeypatch.setattr(QMessageBox, kind, box(kind))
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: shown.append("a file dialog") or ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: shown.append("a file dialog") or ("", ""))
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: shown.append("a folder dialog") or "")
    monkeypatch.setattr(QDialog, "exec", lambda self: shown.append(f"dialog {self.windowTitle()!r}") or 0)
    for ask in ("getItem", "getText"):  # File > Text encoding…, a sheet of a workbook, a team ledger's password
        monkeypatch.setattr(QInputDialog, ask, lambda parent, title, *a, _ask=ask, **k:
                            shown.append(f"{_ask} '{title}'") or ("", False))
    yield
    if shown:
        pytest.fail("the app waited for a click on: " + "; ".join(shown), pytrace=False)


@pytest.fixture(autouse=True)
def collected_in_the_gui_thread(qapp):
    """As in the app (``app.main``): Python's garbage is collected in the GUI thread only, so that no test's worker
    thread destroys an earlier test's widgets (a run hung so: Qt's destructor there and the GUI thread waited for
    each other's locks). At the test's end, a last collection here and Python's own back on."""
    from PySide6.QtCore import QThreadPool

    from workbench.gui.collector import GuiThreadCollector

    collector = GuiThreadCollector(qapp)
    yield
    QThreadPool.globalInstance().waitForDone(120_000)  # no worker left running (a cancelled one ends by itself)
    collector.stop()  # once nothing else runs: the garbage is collected here, and Python's collection back on


@pytest.fixture
def window(qtbot, monkeypatch):
    from workbench.gui import main_window
    from workbench.gui.main_window import MainWindow

    # a test never leaves a modal dialog open: questions are answered "Discard", warnings collected
    monkeypatch.setattr(main_window.QMessageBox, "question", lambda *a, **k: main_window.QMessageBox.StandardButton.Discard)
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.fixture
def warnings(monkeypatch):
    """Every QMessageBox.warning shown, as (title, text), instead of a modal dialog."""
    from PySide6.QtWidgets import QMessageBox

    shown = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text, *a, **k: shown.append((title, text)))
    return shown
