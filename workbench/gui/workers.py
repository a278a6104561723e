"""Run slow core calls (loading a file, a release) off the GUI thread.

A ``Task`` runs one function in a QThreadPool worker and reports back through signals,
which Qt delivers on the GUI thread. A function that calls ``report`` (loading a text file
does, for every block read) shows progress and is stopped by ``cancel`` at its next report.
Otherwise cancelling cannot interrupt pandas or the ledger; it marks the task so that its
result is dropped (a release result is never dropped: it was charged, so it is always shown).
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtWidgets import QProgressBar

from workbench.core.errors import Cancelled


class Task(QObject):
    finished = Signal(object)
    failed = Signal(object)  # the exception
    progress = Signal(float)  # the fraction done, from ``report``
    said = Signal(str)  # what a long step is doing, from ``say``

    def __init__(self, function: Callable[[], Any]) -> None:
        super().__init__()
        self._function = function
        self.cancelled = False
        self.done = False
        self.committed = False  # past the point where it may stop (a release being charged)
        self._reported = -1.0

    def start(self) -> None:
        task = self

        class _Runner(QRunnable):
            def run(self) -> None:
                try:
                    result = task._function()
                except BaseException as exc:  # shown to the user as a dialog, never a crash
                    task.done = True
                    if not task.cancelled:
                        task.failed.emit(exc)
                    return
                task.done = True
                if not task.cancelled:
                    task.finished.emit(result)

        QThreadPool.globalInstance().start(_Runner())

    def report(self, fraction: float) -> None:
        """Called by the function, on the worker thread: passes progress on, and stops a cancelled task."""
        if self.cancelled:
            raise Cancelled("Stopped at your request; nothing changed.")
        if fraction - self._reported >= 0.005 or fraction >= 1.0:  # at most 200 repaints
            self._reported = fraction
            self.progress.emit(fraction)

    def say(self, words: str) -> None:
        """Called by the function, on the worker thread: what it is doing now (a synthetic table's fit)."""
        self.said.emit(words)

    def cancel(self) -> bool:
        """Stop at the next report, unless the task has committed; says whether it will stop."""
        if self.committed:
            return False
        self.cancelled = True
        return True

    def commit(self) -> None:
        """Called by the function, on the worker thread, once it must run to the end (a charge is being made):
        a cancel after this is refused, so a charged result is never dropped."""
        if self.cancelled:
            raise Cancelled("Stopped at your request; nothing was released and no budget was spent.")
        self.committed = True


def show_fraction(bar: QProgressBar, fraction: float, words: str) -> None:
    """A task's reported fraction on ``bar`` ("42% read"): busy until the first report, then measured."""
    if bar.maximum() == 0:
        bar.setRange(0, 1000)
    bar.setValue(round(1000 * fraction))
    bar.setFormat(f"{100 * fraction:.0f}% {words}")
