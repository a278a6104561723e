from workbench.gui import main_window
from workbench.gui.main_window import MainWindow


def test_main_window_shows_the_sample_table_and_proposed_kinds(qtbot, sample_path):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    assert window.open_path(sample_path)
    assert window.preview.model().rowCount() == 500
    assert window.preview.model().columnCount() == 8
    columns = window.columns.model()
    assert columns.rowCount() == 8
    assert [columns.index(0, c).data() for c in (0, 2)] == ["household_id", "identifier"]
    assert "household_survey.csv" in window.windowTitle()


def test_a_broken_file_shows_a_readable_message_and_keeps_the_table(qtbot, sample_path, tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(main_window.QMessageBox, "warning", lambda parent, title, text: shown.append(text))
    window = MainWindow()
    qtbot.addWidget(window)
    window.open_path(sample_path)
    broken = tmp_path / "broken.csv"
    broken.write_bytes(b"")
    assert not window.open_path(broken)
    assert shown == ["broken.csv: the file is empty. Check that it is the right file."]
    assert window.table is not None and window.table.source == sample_path


def test_smoke_test_entry_point_saves_a_screenshot(sample_path, tmp_path):
    from workbench.gui.app import main

    shot = tmp_path / "window.png"
    assert main([str(sample_path), "--smoke-test", "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 10_000
