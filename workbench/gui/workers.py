"""Run slow core calls (loading a file, a release) off the GUI thread.

A ``Task`` runs one function in a QThreadPool worker and reports back through signals,
which Qt delivers on the GUI thread. A function that calls ``report`` (loading a text file
does, for every block read) shows progress and is stopped by ``cancel`` at its next report.
Otherwise cancelling cannot interrupt pandas or the ledger; it marks the task, which runs on to
its end and is then ``stopped`` rather than ``finished`` or ``failed``, its result dropped unseen.

A charge is never dropped, whatever Cancel did. A release calls ``commit`` before it draws any noise (before it
begins, once its file is read): from then on a cancel is refused (``cancel`` and ``commit`` are one atomic step
each, under a lock, so a cancel racing it is either accepted before it, and nothing is computed, or refused), and
the release runs to its charge: how long it takes may depend on its noisy values (a synthetic table's fit), so a
stop then must not be free (DESIGN rule 5). A release that fails after its noise was drawn (``FailedAfterNoise``)
is charged, and is always ``failed``, never ``stopped``. So the page says "nothing was spent" only on ``stopped``.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal
from PySide6.QtWidgets import QProgressBar

from workbench.core.errors import Cancelled, FailedAfterNoise


class Task(QObject):
    finished = Signal(object)
    failed = Signal(object)  # the exception
    progress = Signal(float)  # the fraction done, from ``report``
    said = Signal(str)  # what a long step is doing, from ``say``
    passing = Signal(str)  # the words of the pass over a file that the next fractions measure (``reporter``)
    stopped = Signal(object)  # a cancelled task's end, nothing charged: the exception it stopped with, or None

    def __init__(self, function: Callable[[], Any]) -> None:
        super().__init__()
        self._function = function
        self.cancelled = False
        self.done = False
        self.committed = False  # past the point where it may stop (a release being charged)
        self._reported = -1.0
        self._passing_words: str | None = None  # the words ``reporter`` told last
        self._lock = threading.Lock()  # cancel and commit, each checked and set in one step

    def start(self) -> None:
        task = self

        # the runner (a class: in a reference cycle) holds the task, so the task is freed by a collection, which
        # runs in the GUI thread (``collector``); a function run here must hold no widget either, or its last
        # reference could drop in this thread, where Qt cannot destroy it
        class _Runner(QRunnable):
            def run(self) -> None:
                try:
                    result = task._function()
                except BaseException as exc:  # shown to the user as a dialog, never a crash
                    task.done = True
                    if task.cancelled and not charged(exc):
                        task.stopped.emit(exc)
                    else:
                        task.failed.emit(exc)
                    return
                task.done = True
                if task.cancelled:  # never after ``commit``: a cancel is then refused
                    task.stopped.emit(None)
                else:
                    task.finished.emit(result)

        QThreadPool.globalInstance().start(_Runner())

    def report(self, fraction: float) -> None:
        """Called by the function, on the worker thread: passes progress on, and stops a cancelled task."""
        if self.cancelled:
            raise Cancelled("Stopped at your request; nothing changed.")
        # at most 200 repaints a pass; a fraction after a pass's end (1.0) begins another pass over the file (a release
        # reads it to look it up in the ledger, then out of core, then again to recognise it); within a pass, a
        # fraction below the last is never shown (the bar does not go back)
        if fraction - self._reported >= 0.005 or fraction >= 1.0 or (self._reported >= 1.0 and fraction < 1.0):
            self._reported = fraction
            self.progress.emit(fraction)

    def reporter(self, words: str) -> Callable[[float], None]:
        """``report`` for one kind of pass over a file, its fractions shown with ``words`` ("of the file read out of
        core"): the words reach the window before the first of its fractions (signals from one thread arrive in
        order), so a bar that fills twice says which reading it measures."""

        def report(fraction: float) -> None:
            if self._passing_words != words:  # a pass of another kind begins
                self._passing_words = words
                self.passing.emit(words)
            self.report(fraction)

        return report

    def say(self, words: str) -> None:
        """Called by the function, on the worker thread: what it is doing now (a synthetic table's fit)."""
        self.said.emit(words)

    def cancel(self) -> bool:
        """Stop at the next report, unless the task has committed; says whether it will stop."""
        with self._lock:
            if self.committed:
                return False
            self.cancelled = True
            return True

    def commit(self) -> None:
        """Called by the function, on the worker thread, once it must run to the end (a charge is being made):
        a cancel after this is refused, so a charged result is never dropped."""
        with self._lock:
            if self.cancelled:
                raise Cancelled("Stopped at your request; nothing was released and no budget was spent.")
            self.committed = True


def charged(exc: BaseException) -> bool:
    """Whether a task's failure was charged to the ledger (a release that failed after its noise was drawn): it is
    reported as a failure, never dropped as cancelled."""
    return isinstance(exc, FailedAfterNoise)


def show_fraction(bar: QProgressBar, fraction: float, words: str) -> None:
    """A task's reported fraction on ``bar`` ("42% read"): busy until the first report, then measured."""
    if bar.maximum() == 0:
        bar.setRange(0, 1000)
    bar.setValue(round(1000 * fraction))
    bar.setFormat(f"{100 * fraction:.0f}% {words}")
