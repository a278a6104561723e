"""The words for an error the app did not expect: its kind, never its text.

An exception that is not a ``WorkbenchError`` was not written for the user, and its text may quote the values it
was handed: a release's noisy values before they were charged (a team ledger's client once put the whole entry
in one), or rows of the data. So the app names the kind of error and where it happened, and leaves the text out."""

from __future__ import annotations

import sys
import traceback


def unexpected_error(exc: BaseException) -> str:
    """A sentence naming ``exc``'s kind; its frames (file, line, code; no message) go to standard error for a
    bug report."""
    frames = "".join(traceback.format_tb(exc.__traceback__))
    print(f"Unexpected {type(exc).__name__} (its message left out: it may hold values from the data):\n{frames}",
          file=sys.stderr)
    return (f"Unexpected error ({type(exc).__name__}). Its details are not shown: they may hold values from the data "
            "that were never charged. Please report it, with the steps that led to it")
