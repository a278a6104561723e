"""Step 3's grid after the plan changes while it is hidden: every field is drawn in its own cell (issue 37, 5: a stray
'left out' field was drawn over the top-left cell)."""

from __future__ import annotations

from dataclasses import replace

from gui_helpers import load
from PySide6.QtWidgets import QApplication, QWidget


def stray_widgets(grid) -> list[str]:
    """The visible widgets on the grid's viewport that are not a cell's installed widget at that cell's place."""
    installed = {}
    for row in range(grid.rowCount()):
        for column in range(grid.columnCount()):
            widget = grid.cellWidget(row, column)
            if widget is not None:
                installed[id(widget)] = (row, column)
    stray = []
    for child in grid.viewport().findChildren(QWidget):
        if child.parentWidget() is not grid.viewport() or not child.isVisible():
            continue
        place = installed.get(id(child))
        if place is None:
            stray.append(f"{type(child).__name__} '{getattr(child, 'placeholderText', lambda: '')()}' "
                         f"at {child.geometry().getRect()}")
            continue
        cell = grid.visualRect(grid.model().index(*place))
        if child.geometry() != cell:
            stray.append(f"{type(child).__name__} of cell {place} at {child.geometry().getRect()}, "
                         f"its cell at {cell.getRect()}")
    return stray


def _settle(qtbot):
    for _ in range(3):
        QApplication.processEvents()
        qtbot.wait(20)


def _shown_at_once(window, page):
    """Show step 3 and let it lay out and paint, as the first frame after the tab is chosen: the widgets a refresh
    replaced are deleted only once the event loop next runs (processEvents does not delete them), so a replaced
    widget still visible there would be drawn."""
    window.tabs.setCurrentWidget(page)
    for _ in range(3):
        QApplication.processEvents()


def test_fields_stay_in_their_cells_after_the_plan_changes_while_step_3_is_hidden(qtbot, window, sample_path):
    load(qtbot, window, sample_path)
    window.resize(1366, 768)
    page = window.columns_page
    window.tabs.setCurrentWidget(page)
    _settle(qtbot)
    assert not stray_widgets(page.grid)

    # a column's description changed elsewhere (undo, a plan step) while step 3 is hidden
    window.tabs.setCurrentWidget(window.statistics_page)
    _settle(qtbot)
    plan = window.document.plan
    columns = plan.schema.columns
    window.document.update(replace(plan, schema=replace(plan.schema, columns=columns[1:])))  # fewer rows
    window.document.update(replace(plan, schema=replace(plan.schema, columns=columns)))  # as before
    _shown_at_once(window, page)
    assert not stray_widgets(page.grid)
    _settle(qtbot)
    assert not stray_widgets(page.grid)

    # another plan opened while step 3 is hidden
    window.tabs.setCurrentWidget(window.data_page)
    _settle(qtbot)
    assert window.open_plan(sample_path.with_name("household_survey.tables.plan.json"))
    _shown_at_once(window, page)
    assert not stray_widgets(page.grid)
    _settle(qtbot)
    assert not stray_widgets(page.grid)
