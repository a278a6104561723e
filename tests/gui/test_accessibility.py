"""Accessibility: every control has a name a screen reader says, takes keyboard focus, and the whole workflow
can be done from the keyboard."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible, QKeySequence
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLineEdit,
    QMenuBar,
    QSlider,
    QTabBar,
    QTextEdit,
    QWidget,
)

CONTROLS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QSlider, QAbstractItemView, QTextEdit)
# parts of a control that Qt builds inside it (a spin box's line edit, a combo box's list, a line edit's clear
# button, a view's header and corner button): named through the control they belong to. Widgets placed in
# a table's cells (step 3's kinds and bounds) are controls of their own and are checked.
INSIDE = (QAbstractSpinBox, QComboBox, QLineEdit, QMenuBar, QTabBar)


def controls(window) -> list[QWidget]:
    found = []
    for widget in window.findChildren(QWidget):
        if not isinstance(widget, CONTROLS) or isinstance(widget, QHeaderView) or widget.inherits("QTableCornerButton"):
            continue
        parent, inside = widget.parentWidget(), False
        while parent is not None and parent is not window:
            if isinstance(parent, INSIDE) or parent.inherits("QComboBoxPrivateContainer"):
                inside = True
                break
            parent = parent.parentWidget()
        if not inside:
            found.append(widget)
    return found


def accessible_name(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name).strip() if interface is not None else ""


def test_every_control_in_every_step_has_an_accessible_name(qtbot, window, sample_path, sample_plan_path):
    from gui_helpers import load

    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        qtbot.wait(20)
    found = controls(window)
    assert len(found) > 60  # the cells of step 3's grid, the statistics, the budget: all of them
    nameless = [f"{type(w).__name__} in {type(w.parentWidget()).__name__} ({w.toolTip()[:40]!r})"
                for w in found if not accessible_name(w)]
    assert nameless == []


def test_every_control_takes_focus_from_the_keyboard(qtbot, window, sample_path, sample_plan_path):
    from gui_helpers import load

    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    no_tab = [f"{type(w).__name__}: {accessible_name(w)}" for w in controls(window)
              if w.isEnabled() and not (w.focusPolicy() & Qt.FocusPolicy.TabFocus)]
    assert no_tab == []


def test_the_whole_workflow_from_the_keyboard(qtbot, window, monkeypatch, tmp_path):
    """Welcome screen to release with keys only: Alt+S opens the sample and its plan, Ctrl+N goes to a step,
    Alt+R releases, and the result is there."""
    monkeypatch.setenv("DP_WORKBENCH_LEDGER", str(tmp_path / "ledger.sqlite"))
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_S, Qt.KeyboardModifier.AltModifier)  # "Open the sample dataset and its plan"
    qtbot.waitUntil(lambda: window.loading is None and window.shown is not None, timeout=60_000)
    for step in range(2, 7):
        sequence = QKeySequence(f"Ctrl+{step}")[0]
        qtbot.keyClick(window, sequence.key(), sequence.keyboardModifiers())
        assert window.tabs.currentIndex() == step - 1
    qtbot.keyClick(window, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # nothing edited yet: no harm
    page = window.release_page
    page.ask = False  # the confirmation dialog is a QMessageBox: Enter would answer it
    qtbot.keyClick(window, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)  # "&Release…"
    qtbot.waitUntil(lambda: page.result is not None, timeout=120_000)
    assert page.results.rowCount() > 0
