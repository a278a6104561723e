"""How far a long command is, on standard error: the stage in words and its percentage, so that a release of a
large file is never minutes of silence. On a terminal the line is rewritten in place; in a log (not a terminal)
a line is written at every tenth. Nothing is shown for a stage that ends within its first seconds, so quick
commands print exactly what they printed before. Standard output (the results) is never touched."""

from __future__ import annotations

import sys
import threading
import time
from typing import Callable, TextIO

Clock = Callable[[], float]
Schedule = Callable[[float, Callable[[], None]], Callable[[], None]]  # (after seconds, call) -> cancel


def _timer(seconds: float, call: Callable[[], None]) -> Callable[[], None]:
    timer = threading.Timer(seconds, call)
    timer.daemon = True
    timer.start()
    return timer.cancel


class CommandProgress:
    """The progress of one command's stages. ``stage(words)`` gives the callback that hears a stage's fraction
    (0 to 1); ``waiting(words)`` says a stage without a fraction has begun; ``announce(words)`` says so at once;
    ``interlude(words, then)`` gives the callback of a stage that may come within another; ``finish()`` ends the
    line."""

    def __init__(self, stream: TextIO | None = None, delay: float = 2.0, clock: Clock = time.monotonic,
                 schedule: Schedule = _timer) -> None:
        self._stream = stream or sys.stderr
        self._schedule = schedule
        self._cancel: Callable[[], None] | None = None
        self._lock = threading.RLock()  # a late stage is written from a timer's thread
        self._delay = delay
        self._clock = clock
        self._terminal = bool(getattr(self._stream, "isatty", lambda: False)())
        self._started = clock()
        self._words = ""
        self._shown_tenth = -1
        self._line_open = False

    def stage(self, words: str) -> Callable[[float], None]:
        """Start the stage ``words`` ("Reading data.csv") and return the callback for its fraction done."""
        self._begin(words)

        def heard(fraction: float) -> None:
            self._show(max(0.0, min(1.0, float(fraction))))

        return heard

    def waiting(self, words: str) -> None:
        """Start a stage whose fraction is not known ("Computing the statistics"): said once the command has taken
        longer than the delay, also if that happens while the stage runs."""
        self._begin(words)
        left = self._delay - (self._clock() - self._started)
        if left > 0:
            self._cancel = self._schedule(left, lambda: self._late(words))
        else:
            self._show(None)

    def _late(self, words: str) -> None:
        with self._lock:
            if self._words == words and not self._line_open:
                try:
                    self._write(f"{words}…")
                except (OSError, ValueError):  # the stream is gone (the command ended): nothing to say
                    pass

    def announce(self, words: str) -> None:
        """Start a stage that is long from its start (a synthetic table's fit): said at once, even in a command
        that has been quick so far, so that its seconds are never silent."""
        self._begin(words)
        self._write(f"{words}…")

    def interlude(self, words: str, then: str | None = None) -> Callable[[float], None]:
        """The callback of a stage ``words`` that may come within another (the data file read again to recognise
        it, in the middle of the release), or give the stage begun as ``waiting(words)`` its fraction: it begins at
        its first fraction unless it is the current stage, and once it is done ``then``, if given, is said again
        (as ``waiting``). It may come several times, or never."""

        def heard(fraction: float) -> None:
            fraction = max(0.0, min(1.0, float(fraction)))
            with self._lock:
                if self._words != words:
                    self._begin(words)
                self._show(fraction)
                if fraction >= 1.0 and then is not None:
                    self.waiting(then)

        return heard

    def finish(self) -> None:
        """End the progress line, so that what is printed next starts on a line of its own."""
        self._stop_waiting()
        with self._lock:
            if self._line_open and self._terminal:
                self._stream.write("\n")
                self._stream.flush()
            self._line_open = False
            self._words = ""  # a timer that fires now finds its stage over

    # ------------------------------------------------------------

    def _stop_waiting(self) -> None:
        if self._cancel is not None:
            self._cancel()
            self._cancel = None

    def _begin(self, words: str) -> None:
        self._stop_waiting()
        if self._words and self._line_open and self._terminal:
            self._stream.write("\n")
        self._line_open = False
        self._words = words
        self._shown_tenth = -1

    def _show(self, fraction: float | None) -> None:
        if self._clock() - self._started < self._delay:
            return  # a quick command says nothing more than it did
        if fraction is None:
            if not self._line_open:
                self._write(f"{self._words}…")
            return
        if self._terminal:
            self._write(f"{self._words}: {fraction:4.0%}")
            return
        tenth = int(fraction * 10)
        if tenth > self._shown_tenth:
            self._shown_tenth = tenth
            self._write(f"{self._words}: {tenth * 10}%")

    def _write(self, text: str) -> None:
        with self._lock:
            if self._terminal:
                self._stream.write(f"\r{text}\033[K")
            else:
                self._stream.write(text + "\n")
            self._stream.flush()
            self._line_open = True
