"""Python's cyclic garbage collection, run in the GUI thread only.

Qt objects must be destroyed in the thread they live in. Python's collector runs in whichever thread happens to be
allocating when its thresholds are passed: in a release's worker thread it destroyed widgets that reference cycles
had kept alive (a closed window, a replaced page), and Qt's destructor there, holding one of Qt's locks, waited for
the interpreter's lock, which the GUI thread held while it waited for that same Qt lock to destroy a menu. The app
hung for good (a test run did, in a synthetic table's release). So while a ``GuiThreadCollector`` runs, the
automatic collection is off, and a timer in the GUI thread collects the generations whose counts passed their
thresholds, as Python would have (the way calibre keeps its collections in its GUI thread).

Written here rather than taken from pyqtgraph (``pyqtgraph.util.garbage_collector.GarbageCollector``, the same
recipe): that one has no parent and no way to stop, and the tests need to give Python's collection back as they
found it. ``install`` keeps it to one per application.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer


class GuiThreadCollector(QObject):
    """Collects Python's cyclic garbage in the thread it was made in (the GUI thread), every ``interval_ms``;
    ``stop`` gives the collection back to Python."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = 500) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start(interval_ms)

    @classmethod
    def install(cls, app: QObject) -> "GuiThreadCollector":
        """The application's collector: the one it has (a test's, or an earlier ``install``), else a new one."""
        return app.findChild(cls) or cls(app)

    def collect_due(self) -> None:
        """Collect each generation whose count passed its threshold, the youngest first (Python itself collects only
        the oldest one due, which takes the younger ones with it: the same garbage, found here in smaller steps)."""
        young, middle, old = gc.get_count()
        if young > self._thresholds[0]:
            gc.collect(0)
            if middle > self._thresholds[1]:
                gc.collect(1)
                if old > self._thresholds[2]:
                    gc.collect(2)

    def stop(self) -> None:
        """No more collections here: Python's own are switched on again (if they were), after a last full one here.
        A stopped collector leaves its application (``install`` then finds none)."""
        self._timer.stop()
        self.setParent(None)
        gc.collect()
        if self._was_enabled:
            gc.enable()
