"""Run slow core calls (loading a file, a release) off the GUI thread.

A ``Task`` runs one function in a QThreadPool worker and reports back through signals,
which Qt delivers on the GUI thread. Cancelling cannot interrupt pandas or the ledger; it
marks the task so that its result is dropped (a release result is never dropped: it was
charged, so it is always shown).
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal


class Task(QObject):
    finished = Signal(object)
    failed = Signal(object)  # the exception

    def __init__(self, function: Callable[[], Any]) -> None:
        super().__init__()
        self._function = function
        self.cancelled = False
        self.done = False

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

    def cancel(self) -> None:
        self.cancelled = True
