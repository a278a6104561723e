"""Step 5's work per ε-slider move (issue 39, 6): the rows out of the table's view are brought up to date when the
slider rests, or as soon as they are seen."""

from __future__ import annotations

import pytest


def _texts(page) -> list[list[tuple[str, str]]]:
    table = page.table
    return [[(table.item(r, c).text(), table.item(r, c).toolTip()) for c in (0, 3, 4, 5, 8)]
            for r in range(table.rowCount())]


@pytest.fixture
def short_table(qtbot, window, sample_plan_path):
    """Step 5 of the sample plan, its table showing its first rows only."""
    assert window.open_plan(sample_plan_path)
    page = window.preview_page
    window.tabs.setCurrentWidget(page)
    page.table.setFixedHeight(page.table.horizontalHeader().height() + 70)
    qtbot.waitUntil(lambda: page.table.rowAt(page.table.viewport().height() - 1) not in (-1, page.table.rowCount() - 1))
    page.table.selectRow(0)
    page.recompute()
    return page


def _moved(page, position: int) -> tuple[list, list]:
    """The table's texts and errors after a slider move, and as a full recompute of the same plan has them."""
    page.slider.setValue(position)
    moved = (_texts(page), list(page.errors))
    page._fill_rows()
    return moved, (_texts(page), list(page.errors))


def test_a_slider_move_leaves_the_rows_out_of_view_until_the_slider_rests(qtbot, short_table):
    page = short_table
    before = _texts(page)
    page.slider.setValue(page.slider.value() + 40)
    shown = page._rows_in_view(page.table.rowCount(), page.table.currentRow())
    assert page._unfilled and not page._unfilled & shown and page._unfilled | shown == set(range(page.table.rowCount()))
    texts = _texts(page)
    assert all(texts[row] == before[row] for row in page._unfilled)  # the move left them alone
    assert all(texts[row] != before[row] for row in shown)
    assert all(page.errors[row] is None for row in page._unfilled)
    qtbot.waitUntil(lambda: not page._unfilled)  # the slider rests: they follow
    filled = (_texts(page), list(page.errors))
    page.recompute()
    assert filled == (_texts(page), list(page.errors))


def test_rows_scrolled_into_view_are_filled_at_once(qtbot, short_table):
    page = short_table
    page.slider.setValue(page.slider.value() - 60)
    assert page._unfilled
    page.table.verticalScrollBar().setValue(page.table.verticalScrollBar().maximum())
    assert not page._unfilled
    scrolled = (_texts(page), list(page.errors))
    page.recompute()
    assert scrolled == (_texts(page), list(page.errors))


def test_the_selected_row_is_always_filled_and_a_row_selected_out_of_view_is_filled_first(qtbot, short_table):
    page = short_table
    last = page.table.rowCount() - 1
    page.table.selectRow(last)  # scrolled into view
    page.table.verticalScrollBar().setValue(0)
    page.slider.setValue(page.slider.value() + 30)
    assert last not in page._unfilled and page.errors[last] is not None
    unfilled = min(page._unfilled)
    page.table.verticalScrollBar().blockSignals(True)  # selected without scrolling it into view
    page.table.selectRow(unfilled)
    page.table.verticalScrollBar().blockSignals(False)
    assert not page._unfilled and page.errors[unfilled] is not None


def test_a_change_waiting_for_its_recompute_is_shown_on_every_row(qtbot, short_table):
    page = short_table
    page.schedule()  # another change of the plan, not yet shown
    page.slider.setValue(page.slider.value() + 20)
    assert not page._unfilled


def test_a_hidden_table_is_filled_whole(qtbot, window, sample_plan_path):
    assert window.open_plan(sample_plan_path)
    page = window.preview_page  # not the current step: not shown
    page.recompute()
    page.slider.setValue(page.slider.value() + 50)
    assert not page._unfilled and None not in page.errors


def test_a_slider_move_does_not_repaint_the_size_field(qtbot, short_table, monkeypatch):
    """It holds the same value: setting it again repainted it (and its text) at every move. Counted as calls
    of its setValue, which repaints even for its own value (counting paint events was flaky: under load the
    window gets paints of its own)."""
    page = short_table
    qtbot.wait(50)
    calls: list[int] = []
    set_value = page.size.setValue
    monkeypatch.setattr(page.size, "setValue", lambda new: (calls.append(new), set_value(new))[-1])
    value = page.size.value()
    for step in range(1, 6):
        page.slider.setValue(page.slider.value() + step)
        qtbot.wait(10)
    assert calls == [] and page.size.value() == value
