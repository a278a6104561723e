"""A holder that stops a widget's layout requests from climbing to the window unless its size needs changed.

Qt answers every ``QLabel.setText`` with a layout request that climbs, layout by layout, to the window; a
QTabWidget on the way lays its page out again and repaints all of it (``QTabWidget::setUpLayout``). On step 5
four labels change on every ε-slider move, so the whole page was repainted each time, about half of a move's
painting. A widget without a layout takes the request itself: this one passes it on only when what a layout
reads from the held widget (its height at its width) has changed.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QSize
from PySide6.QtWidgets import QWidget


class LayoutBarrier(QWidget):
    """Holds ``inner`` (a word-wrapped label, say) at its own size; stands in for it in a layout."""

    def __init__(self, inner: QWidget) -> None:
        super().__init__()
        self.inner = inner
        inner.setParent(self)
        self.setSizePolicy(inner.sizePolicy())
        self.setMinimumSize(inner.minimumSize())  # what was asked of it is asked of its place in the layout
        self.setMaximumSize(inner.maximumSize())
        self._needs = self._measure()

    def _measure(self) -> tuple:
        """What a layout reads from the held widget at its width: the height it needs. Its preferred and least
        widths are left out: a wrapped label's follow its text at each move, they feed only the window's
        preferred and least size (read again whenever anything else changes), and measuring them costs a text
        layout each."""
        inner = self.inner
        height = inner.heightForWidth(self.width()) if inner.hasHeightForWidth() else inner.sizeHint().height()
        return (height, inner.isHidden())

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.LayoutRequest:  # the held widget may need another size
            needs = self._measure()
            if needs != self._needs:
                self._needs = needs
                self.updateGeometry()
        return super().event(event)

    def resizeEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        self.inner.setGeometry(self.rect())
        self._needs = self._measure()
        super().resizeEvent(event)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.inner.sizeHint()

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return self.inner.minimumSizeHint()

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return self.inner.hasHeightForWidth()

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self.inner.heightForWidth(width)
