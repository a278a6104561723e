"""A label in a LayoutBarrier changes its text without laying the window out again, unless it needs another height
(what kept step 5 from updating within a frame: every ε-slider move repainted the whole page)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from workbench.gui.layout_barrier import LayoutBarrier


class _Requests(QObject):
    """Counts the layout requests ``watched`` receives."""

    def __init__(self, watched: QWidget) -> None:
        super().__init__()
        self.count = 0
        watched.installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.LayoutRequest:
            self.count += 1
        return False


def _tabbed_label(qtbot):
    tabs = QTabWidget()
    page = QWidget()
    label = QLabel("ε = 0.500: " + "a sentence of some length " * 3)
    label.setWordWrap(True)
    barrier = LayoutBarrier(label)
    layout = QVBoxLayout(page)
    layout.addWidget(barrier)
    layout.addStretch(1)
    tabs.addTab(page, "step")
    qtbot.addWidget(tabs)
    tabs.resize(500, 300)
    tabs.show()
    qtbot.waitExposed(tabs)
    qtbot.wait(50)
    return tabs, label, barrier


def test_a_new_text_of_the_same_height_asks_the_tabs_for_no_layout(qtbot):
    tabs, label, barrier = _tabbed_label(qtbot)
    requests = _Requests(tabs)
    height = barrier.height()
    for epsilon in ("0.512", "0.524", "1.05", "9.99"):
        label.setText(f"ε = {epsilon}: " + "a sentence of some length " * 3)
        qtbot.wait(20)
    assert requests.count == 0
    assert barrier.height() == height
    assert label.geometry() == barrier.rect()


def test_a_text_that_needs_more_lines_is_laid_out_again(qtbot):
    tabs, label, barrier = _tabbed_label(qtbot)
    height = barrier.height()
    label.setText("ε = 0.5: " + "a sentence of some length " * 40)
    qtbot.waitUntil(lambda: barrier.height() > height)
    assert barrier.height() == label.heightForWidth(barrier.width())
    assert label.geometry() == barrier.rect()
    label.setText("short")
    qtbot.waitUntil(lambda: barrier.height() < height)
