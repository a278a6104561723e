"""How the command line ends: with its exit status, never aborted by a native thread as the interpreter finalises.

Arrow reads a Python file object on its I/O threads, and a read-ahead may still be finishing when a refused file
has been reported (``inspect ragged.csv``, on a busy machine). A thread that asks for the GIL while the
interpreter finalises is ended with ``pthread_exit``; through Arrow's C++ frames that is ``std::terminate``: the
process printed its one message and then died with SIGABRT ("terminate called without an active exception";
apache/arrow#34314, #39862). So the program does what finalisation does first (wait for Python's threads, run the
exit handlers, flush the output) and then ends the process, which stops every thread at once."""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import signal
import sys
import threading
from typing import Any, Callable, Iterator, NoReturn

from workbench.core.errors import unexpected_error

INTERRUPTED = 130  # the shell's status for a program ended by Ctrl+C (128 + SIGINT)


def run_and_exit(main: Callable[[], int | None]) -> NoReturn:
    """Run a program's ``main`` and end the process with its status, as ``sys.exit(main())`` would; an error
    ``main`` did not expect is named by its kind, never its text (``unexpected_error``), with status 1."""
    try:
        status = main()
    except SystemExit as exc:  # argparse's --help and usage errors, a signal's end (out_of_core.remove_on_signals)
        status = _status(exc)
    except KeyboardInterrupt:
        status = INTERRUPTED
    except Exception as exc:  # noqa: BLE001 - its text may quote noisy values before the charge
        print(f"Error: {unexpected_error(exc)}.", file=sys.stderr)
        status = 1
    exit_process(status)


def exit_process(status: int | None) -> NoReturn:
    """End the process with ``status`` (None is 0) after Python's own exit work, without finalising the
    interpreter. Only for the program's entry point: a test calling ``main()`` must not end.

    Each step runs whatever happens in the one before: a Ctrl+C or a SIGTERM while Python's threads are waited for
    (a table still being hashed after an abandon) ends that wait, as it would Python's own, and the exit handlers
    still remove the engines' folders and end Spark's JVM; the status is then the interruption's."""
    code = 0 if status is None else status
    for step in (getattr(threading, "_shutdown", None),  # Python's own first step: its non-daemon threads end
                 atexit._run_exitfuncs,  # the engines' folders removed, Spark's JVM ended
                 logging.shutdown):
        if step is None:
            continue
        try:
            step()
        except SystemExit as exc:
            code = _status(exc)
        except KeyboardInterrupt:
            code = INTERRUPTED
        except BaseException:  # noqa: BLE001 - the next steps and the exit come all the same
            code = code or 1
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(BaseException):  # closed (a broken pipe) or None (a windowed program)
            stream.flush()
    os._exit(code)


# the signals that stop the program: Ctrl+C, and SIGTERM and SIGHUP (``out_of_core.remove_on_signals``)
STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


@contextlib.contextmanager
def stops_deferred(words: str | None = None) -> Iterator[None]:
    """A stop (``STOPPING_SIGNALS``) waits until the work inside has ended, and then stops the program as it would
    have (``_stop``); should the work fail, its error goes on instead (the program ends with it). For OpenDP's fit,
    which calls back into Python and aborted the process when a stop was raised there ("free(): invalid pointer"),
    and the writing of a charged release's results; ``words`` are said at once when a stop arrives."""
    with _heard_later(words) as heard:
        yield
    if heard:
        _stop(*heard[0])


@contextlib.contextmanager
def stops_held() -> Iterator[None]:
    """A stop waits until the work inside (a ledger's charge, made whole or not at all) has ended, and is then kept
    to be made by ``make_held_stop`` once the release it paid for is shown and written: a stop while a charge was
    made had left it charged and never shown."""
    with _heard_later(None) as heard:
        try:
            yield
        finally:
            _HELD.extend(heard[:1])


def make_held_stop() -> None:
    """Stop the program as a stop held by ``stops_held`` would have, if one was."""
    if _HELD:
        held = _HELD[0]
        _HELD.clear()
        _stop(*held)


_HELD: list[tuple[int, Any]] = []  # a stop heard by ``stops_held``, with the handler it would have met


@contextlib.contextmanager
def _heard_later(words: str | None) -> Iterator[list[tuple[int, Any]]]:
    """Each stop heard inside, with the handler it would have met, instead of that handler. Only the main thread
    hears signals; elsewhere (the app's workers) nothing changes, nor for a signal ignored (SIG_IGN, as under
    ``nohup``) or whose handler is not Python's."""
    heard: list[tuple[int, Any]] = []
    if threading.current_thread() is not threading.main_thread():
        yield heard
        return
    previous = {number: signal.getsignal(number) for number in STOPPING_SIGNALS}
    previous = {number: handler for number, handler in previous.items()
                if handler is not None and handler is not signal.SIG_IGN}

    def hear(signum: int, _frame: object) -> None:
        heard.append((signum, previous.get(signum)))  # first: nothing below may lose it
        if len(heard) == 1 and words:
            with contextlib.suppress(Exception):  # a closed standard error must not raise inside OpenDP's call
                os.write(2, f"\n{words}\n".encode("utf-8", "replace"))

    for number in previous:
        signal.signal(number, hear)
    try:
        yield heard
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stop(signum: int, handler: Any) -> None:
    """What the stop ``signum`` would have done under ``handler``: Python's handler runs (Ctrl+C's raises
    KeyboardInterrupt; ``out_of_core.remove_on_signals``' raises SystemExit); under the system's default, the
    program ends as that signal ends it, but by an exception, so that what is owed (a charge) is still done."""
    if callable(handler):
        handler(signum, None)  # it may also do nothing more than note it (the app's quits its event loop)
        return
    raise KeyboardInterrupt if signum == signal.SIGINT else SystemExit(128 + signum)


def _status(exc: SystemExit) -> int:
    if exc.code is None or isinstance(exc.code, int):
        return exc.code or 0
    print(exc.code, file=sys.stderr)
    return 1
