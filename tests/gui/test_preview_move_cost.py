"""What an ε-slider move of step 5 costs (issue 39, 6), and that what it keeps or skips never shows an old number:
the preview after any change of its inputs shows what the core computes afresh, with every cache emptied."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication


@pytest.fixture
def page(qtbot, window, sample_plan_path):
    """Step 5 of the sample plan, every statistic sharing the total by weight, the plan's first mean selected."""
    assert window.open_plan(sample_plan_path)
    plan = window.document.plan
    window.document.update(replace(plan, statistics=tuple(replace(p, weight=1.0) for p in plan.statistics)))
    page = window.preview_page
    window.tabs.setCurrentWidget(page)
    page.table.selectRow(3)
    page.recompute()
    qtbot.wait(20)
    return page


def _afresh(page) -> list[float]:
    """Every statistic's planned error as the core computes it with no cache kept from before."""
    from workbench.core.privacy import accuracy, mechanisms
    from workbench.core.release import expected_error
    from workbench.core.release import plan as plans

    for cached in (plans._noises, accuracy.combined_halfwidth, accuracy._folded_magnitudes,
                   accuracy._lumped_magnitudes, mechanisms._cached_largest_rho, mechanisms._cks20_on_grid):
        cached.cache_clear()
    document = page.document
    plan = document.plan
    document._budgeted = None
    budgeted = document.budgeted()
    size = plan.schema.public_size or plan.dataset.size_estimate
    return [expected_error(p, plan.schema, size, plan.confidence, verified=False) for p in budgeted.statistics]


def _shown(page) -> list[float]:
    page._fill_rows()
    return list(page.errors)


def _with_column(plan, name: str, **changes):
    columns = tuple(replace(c, **changes) if c.name == name else c for c in plan.schema.columns)
    return replace(plan, schema=replace(plan.schema, columns=columns))


CHANGES = {
    "δ": lambda plan: replace(plan, total=replace(plan.total, delta=plan.total.delta / 7)),
    "confidence": lambda plan: replace(plan, confidence=0.9),
    "bounds": lambda plan: _with_column(plan, "age", upper=130.0),
    "a weight": lambda plan: replace(plan, statistics=(replace(plan.statistics[0], weight=5.0),
                                                       *plan.statistics[1:])),
    "a locked ε": lambda plan: replace(plan, statistics=(*plan.statistics[:3],
                                                         replace(plan.statistics[3], weight=None,
                                                                 budget=replace(plan.statistics[3].budget, epsilon=0.01)),
                                                         *plan.statistics[4:])),
    "the size estimate": lambda plan: replace(plan, dataset=replace(plan.dataset, size_estimate=4000)),
}


@pytest.mark.parametrize("change", CHANGES)
def test_after_a_change_of_its_inputs_the_preview_shows_the_numbers_computed_afresh(qtbot, page, change):
    for position in (120, 480, 300):  # moves that fill the caches at other ε first
        page.slider.setValue(position)
        QApplication.processEvents()
    before = _shown(page)
    assert before == _afresh(page)
    page.document.update(CHANGES[change](page.document.plan))
    page.recompute()
    after = _shown(page)
    assert after == _afresh(page) and after != before
    page.slider.setValue(200)  # and a move at the changed inputs
    assert _shown(page) == _afresh(page)


def test_a_slider_move_paints_the_plots_title_once(qtbot, page):
    """The title is set before the plot's data, so it is measured before the repaint that change makes at once;
    set after it, it was measured after that repaint and the window repainted a second time for it."""

    class Paints(QObject):
        count = 0

        def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
            self.count += event.type() == QEvent.Type.Paint
            return False

    page.slider.setValue(150)
    qtbot.wait(400)  # the rows out of view and the tightest accounting are shown when the slider rests
    paints = Paints()
    page.plot_title.installEventFilter(paints)
    for move in range(1, 6):
        page.slider.setValue(200 + 7 * move)
        QApplication.processEvents()
        QApplication.processEvents()
        assert paints.count == move


def _painted(curve, view) -> QImage:
    image = QImage(view.viewport().size(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0xFFFFFFFF)
    painter = QPainter(image)
    painter.setTransform(curve.deviceTransform(view.viewportTransform()))
    curve.paint(painter, None, view.viewport())
    painter.end()
    return image


def test_the_curve_filled_as_one_path_paints_pyqtgraphs_pixels(qtbot, page):
    """pyqtgraph fills a curve in strips of 50 points; the page's curve fills one path, to the same pixels."""
    curve = page.curve.curve
    for row, position in ((3, 100), (3, 550), (6, 300), (0, 20), (2, 400)):
        page.table.selectRow(row)
        page.slider.setValue(position)
        QApplication.processEvents()
        assert curve.xData is not None and len(curve.xData) == 401
        single = _painted(curve, page.plot)
        curve._fillPathList = None
        del curve._shouldUseFillPathList  # pyqtgraph's own strips
        try:
            strips = _painted(curve, page.plot)
        finally:
            curve._shouldUseFillPathList = lambda: False
        assert single == strips
        assert np.count_nonzero(single.constBits()) > 0


@pytest.mark.parametrize("confidence, share", [(0.95, "95%"), (0.9, "90%"), (0.999, "99.9%")])
def test_the_plots_title_states_the_plans_confidence(qtbot, page, confidence, share):
    """The red lines are drawn at the noise's half-width at the plan's confidence, and the title says which."""
    page.document.update(replace(page.document.plan, confidence=confidence))
    page.recompute()
    for row in range(page.table.rowCount()):
        page.table.selectRow(row)
        QApplication.processEvents()
        title = page.plot_title.text()
        assert (f"{share} of draws" in title or f"{share} of the time" in title), title
        assert share == "95%" or "95%" not in title, title
