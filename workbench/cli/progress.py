"""How far a long command is, on standard error: the stage in words and its percentage, so that a release of a
large file is never minutes of silence. On a terminal the line is rewritten in place; in a log (not a terminal)
a line is written at every tenth. Nothing is shown for a stage that ends within its first seconds, so quick
commands print exactly what they printed before. Standard output (the results) is never touched."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

Clock = Callable[[], float]


class CommandProgress:
    """The progress of one command's stages. ``stage(words)`` gives the callback that hears a stage's fraction
    (0 to 1); ``waiting(words)`` says a stage without a fraction has begun; ``announce(words)`` says so at once;
    ``finish()`` ends the line."""

    def __init__(self, stream: TextIO | None = None, delay: float = 2.0, clock: Clock = time.monotonic) -> None:
        self._stream = stream or sys.stderr
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
        """Start a stage whose fraction is not known ("Computing the statistics")."""
        self._begin(words)
        self._show(None)

    def announce(self, words: str) -> None:
        """Start a stage that is long from its start (a synthetic table's fit): said at once, even in a command
        that has been quick so far, so that its seconds are never silent."""
        self._begin(words)
        self._write(f"{words}…")

    def finish(self) -> None:
        """End the progress line, so that what is printed next starts on a line of its own."""
        if self._line_open and self._terminal:
            self._stream.write("\n")
            self._stream.flush()
        self._line_open = False

    # ------------------------------------------------------------

    def _begin(self, words: str) -> None:
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
        if self._terminal:
            self._stream.write(f"\r{text}\033[K")
        else:
            self._stream.write(text + "\n")
        self._stream.flush()
        self._line_open = True
