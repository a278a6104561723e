"""The app on realistic tables (issue 19): what a statistician's own file shows in the steps."""

from PySide6.QtCore import Qt

from gui_helpers import load
from realistic_tables import VARIABLE_LABELS, labour_force, write_labelled


def test_variable_labels_show_in_steps_1_and_3(qtbot, window, tmp_path):
    path = write_labelled(labour_force(400), tmp_path / "lf.sav")
    load(qtbot, window, path)
    model = window.data_page.columns.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[:2] == ["column", "label in the file"]
    rows = {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}
    assert rows["wage"] == VARIABLE_LABELS["wage"] and rows["person"] == ""

    window.tabs.setCurrentWidget(window.columns_page)
    page = window.columns_page
    page.refresh()
    names = [page.grid.cellWidget(r, 0) for r in range(page.grid.rowCount())]
    wage = next(w for w in names if "wage" in w.text())
    assert VARIABLE_LABELS["wage"] in wage.text() and wage.toolTip() == VARIABLE_LABELS["wage"]


def test_a_csv_without_labels_shows_no_label_column(qtbot, window, tmp_path):
    path = tmp_path / "lf.csv"
    labour_force(400).to_csv(path, index=False)
    load(qtbot, window, path)
    model = window.data_page.columns.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[0] == "column" and "label in the file" not in headers
