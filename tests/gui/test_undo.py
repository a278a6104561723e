"""Undo and redo (Ctrl+Z, Ctrl+Shift+Z) of the edits of steps 2 to 5, through the plan document's QUndoStack."""

from gui_helpers import load
from PySide6.QtGui import QKeySequence

from workbench.core.data.schema import NumericColumn


def press(qtbot, window, key_sequence: str) -> None:
    """The keys as a user types them, to the window (its menu's shortcuts answer)."""
    window.activateWindow()
    sequence = QKeySequence(key_sequence)
    combination = sequence[0]
    qtbot.keyClick(window, combination.key(), combination.keyboardModifiers())


def test_the_shortcuts_are_ctrl_z_and_ctrl_shift_z(window):
    assert window.undo_action.shortcut() == QKeySequence("Ctrl+Z")
    assert QKeySequence("Ctrl+Shift+Z") in window.redo_action.shortcuts()
    assert not window.undo_action.isEnabled() and not window.redo_action.isEnabled()


def test_an_edit_in_every_step_is_undone_and_redone(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    document = window.document
    opened = document.plan
    assert document.history.count() == 0  # opening a plan is not an edit to undo

    window.unit_page.substitute.setChecked(True)  # step 2
    row = [s.name for s in document.plan.schema.columns].index("age")  # step 3
    upper = window.columns_page.grid.cellWidget(row, 3)
    upper.setText("100")
    upper.editingFinished.emit()
    assert document.plan.schema.column("age").upper == 100.0
    before_statistics = len(document.plan.statistics)
    window.statistics_page.type.setCurrentText("mean")  # step 4
    window.statistics_page.column.setCurrentText("annual_income")
    window.statistics_page.add.click()
    assert len(document.plan.statistics) == before_statistics + 1
    window.preview_page.epsilon.setValue(2.5)  # step 5
    edited = document.plan
    assert edited.total.epsilon == 2.5 and window.undo_action.text() == "&Undo the budget"

    press(qtbot, window, "Ctrl+Z")
    assert document.plan.total.epsilon == opened.total.epsilon
    qtbot.waitUntil(lambda: window.preview_page.epsilon.value() == opened.total.epsilon, timeout=5000)  # it follows
    assert window.redo_action.isEnabled() and window.redo_action.text() == "&Redo the budget"
    while window.undo_action.isEnabled():
        press(qtbot, window, "Ctrl+Z")
    assert document.plan == opened
    assert window.columns_page.grid.cellWidget(row, 3).text() == f"{opened.schema.column('age').upper:g}"
    assert window.unit_page.add_remove.isChecked() and len(document.plan.statistics) == before_statistics

    while window.redo_action.isEnabled():
        press(qtbot, window, "Ctrl+Shift+Z")
    assert document.plan == edited
    qtbot.waitUntil(lambda: window.preview_page.epsilon.value() == 2.5, timeout=5000)
    assert window.unit_page.substitute.isChecked() and len(document.plan.statistics) == before_statistics + 1
    assert document.plan.schema.column("age") == NumericColumn("age", lower=opened.schema.column("age").lower,
                                                                upper=100.0)


def test_a_statistic_added_is_removed_by_undo(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    before = window.document.plan.statistics
    page = window.statistics_page
    page.type.setCurrentText("mean")
    page.column.setCurrentText("annual_income")
    page.by.setCurrentText("region")
    page.add.click()
    assert len(window.document.plan.statistics) == len(before) + 1
    assert window.undo_action.text() == "&Undo the statistics"
    window.undo_action.trigger()
    assert window.document.plan.statistics == before


def test_undo_does_not_reach_into_another_plan_or_table(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    window.preview_page.epsilon.setValue(3.0)
    assert window.undo_action.isEnabled()
    assert window.open_plan(sample_plan_path)
    assert not window.undo_action.isEnabled() and window.document.history.count() == 0
    window.preview_page.epsilon.setValue(4.0)
    load(qtbot, window, sample_path)  # the table again: its descriptions start afresh
    assert not window.undo_action.isEnabled()
