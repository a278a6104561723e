import pytest
from PySide6.QtCore import QSettings


@pytest.fixture(autouse=True)
def private_settings(tmp_path):
    """Recent files and other settings go to a temporary folder, not the user's."""
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "settings"))


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
