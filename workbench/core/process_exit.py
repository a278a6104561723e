"""How the programs end: with their exit status, never aborted by a native thread as the interpreter finalises.

Arrow reads a Python file object on its I/O threads, and a read-ahead may still be finishing when a refused file
has been reported (``inspect ragged.csv``, on a busy machine). A thread that asks for the GIL while the
interpreter finalises is ended with ``pthread_exit``; through Arrow's C++ frames that is ``std::terminate``: the
process printed its one message and then died with SIGABRT ("terminate called without an active exception";
apache/arrow#34314, #39862). So the programs do what finalisation does first (wait for Python's threads, run the
exit handlers, flush the output) and then end the process, which stops every thread at once."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import sys
import threading
from typing import Callable, NoReturn


def run_and_exit(main: Callable[[], int | None]) -> NoReturn:
    """Run a program's ``main`` and end the process with its status, as ``sys.exit(main())`` would."""
    try:
        status = main()
    except SystemExit as exc:  # argparse's --help and usage errors
        status = exc.code if isinstance(exc.code, int) or exc.code is None else _said(exc.code)
    exit_process(status)


def _said(message: object) -> int:
    print(message, file=sys.stderr)
    return 1


def exit_process(status: int | None) -> NoReturn:
    """End the process with ``status`` (None is 0) after Python's own exit work, without finalising the
    interpreter. Only for the programs' entry points: a test calling ``main()`` must not end."""
    code = 0 if status is None else status
    try:
        shutdown = getattr(threading, "_shutdown", None)  # Python's own first step: its non-daemon threads end
        if shutdown is not None:
            shutdown()
        atexit._run_exitfuncs()  # the temporary folders' removal, Spark's and DuckDB's own
        logging.shutdown()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # closed (a broken pipe) or None (a windowed program)
                stream.flush()
        os._exit(code)
