"""Step 6 folds a statistic by group's '(other)' groups into one row, and shows them when its box is ticked."""

from __future__ import annotations

from tests.core.report.test_shown import release_with_other_groups


def _cells(page) -> list[tuple[str, str]]:
    return [(page.results.item(row, 1).text(), page.results.item(row, 2).text())
            for row in range(page.results.rowCount())]


def test_step_6_folds_other_groups_and_its_box_shows_them(qtbot, window, tmp_path):
    page = window.release_page
    page.result = release_with_other_groups()
    page.show_result(page.result)
    cells = _cells(page)
    assert ("North / (other)", "") not in cells and ("(other) / North", "") not in cells
    assert ("5 '(other)' groups", "not shown") in cells and ("1 '(other)' group", "not shown") in cells
    assert ("female / (other)", "") in cells and ("(other) / (other)", "") in cells  # the bins, the cross-tab's cells
    folded = next(row for row in range(page.results.rowCount()) if page.results.item(row, 1).text() == "5 '(other)' groups")
    assert "in results.json" in page.results.item(folded, 8).text() and "Show '(other)' groups" in page.results.item(folded, 8).text()
    assert page.results.rowCount() == 4 + 1 + 3 + 6 + 1 + 9

    page.show_other.setChecked(True)
    cells = _cells(page)
    assert ("North / (other)", "") in cells and not any(value == "not shown" for _, value in cells)
    written = page.export_to(tmp_path)
    assert written and "North / (other)" in (tmp_path / "report.html").read_text(encoding="utf-8")
    page.show_other.setChecked(False)
    page.export_to(tmp_path / "folded")
    assert "North / (other)" not in (tmp_path / "folded" / "report.html").read_text(encoding="utf-8")
