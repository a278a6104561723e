"""``dp-workbench-gui``: start the desktop application, optionally on a data file or plan."""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dp-workbench-gui", description="DP Workbench desktop application")
    parser.add_argument("data", nargs="?", type=Path, help="a table (or a .json plan) to open at start")
    parser.add_argument("--plan", type=Path, help="a plan to open at start")
    parser.add_argument("--version", action="store_true",
                        help="print the versions of DP Workbench and what it rests on, and exit")
    parser.add_argument(
        "--smoke-test", nargs="?", const="", metavar="DIR",
        help="walk through every step on the bundled sample data and plan (DATA and --plan, if given, must be copies "
        "of them), release against a throw-away ledger, save a screenshot of each step into DIR (if given), and quit",
    )
    parser.add_argument("--screenshot", type=Path, help="with --smoke-test: also save the first step as this PNG")
    parser.add_argument(
        "--quit-when-shown", action="store_true",
        help="print the times (seconds since the epoch) when the main window is first painted and when its steps "
        "are built, and quit: how long the app takes to start, measured by benchmarks/ and packaging/measure.py",
    )
    args = parser.parse_args(argv)
    for stream in (sys.stdout, sys.stderr):  # UTF-8 that never fails, as the command line's (cli/output.write_utf8)
        with contextlib.suppress(AttributeError, ValueError, OSError):  # None in a windowed program: print() is mute
            stream.reconfigure(encoding="utf-8", errors="replace")
    if args.version:  # imported only when asked: the versions module imports the core, which takes a second
        from workbench.core.release.versions import version_text

        print(version_text())
        return 0

    from workbench.gui.main_window import AfterFirstPaint, MainWindow

    app = application()
    window = MainWindow()
    window.show()
    AfterFirstPaint(window, _sweep_leftovers)  # after the first paint: the engine's module loads the data libraries
    if args.smoke_test is not None:
        return _smoke_test(window, args)
    if args.quit_when_shown:
        return _time_start(app, window)
    if args.plan is not None or args.data is not None:
        AfterFirstPaint(window, lambda: _open_at_start(window, args))  # the window first, then the files
    _quit_on_termination(app)
    return app.exec()


def application() -> "QApplication":
    """The application as the app makes it, or the one made already: its names, and Python's garbage collected in
    this, the GUI thread (``collector``), never in a release's worker, where destroying a widget could hang the app.
    Scripts that drive the real window (docs/images, benchmarks) make theirs here too."""
    from PySide6.QtWidgets import QApplication

    from workbench.gui.collector import GuiThreadCollector

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("DP Workbench")
    app.setOrganizationName("DP Workbench")
    GuiThreadCollector.install(app)
    return app


def _quit_on_termination(app) -> None:
    """SIGTERM and SIGHUP (a logout, ``kill``) quit the app as its Quit does, so that nothing private is left on
    disk (an out-of-core release's files are removed as the program ends). Python hears a signal only while it
    runs, so a timer lets it run now and then."""
    import signal

    from PySide6.QtCore import QTimer

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) in (signal.SIG_DFL, None):
            signal.signal(number, lambda *_: app.quit())
    timer = QTimer(app)
    timer.timeout.connect(lambda: None)
    timer.start(500)


def _sweep_leftovers() -> None:
    """Remove the prepared private data that an out-of-core release killed outright (SIGKILL, a power cut) left in
    the temporary folder; a running process's folder (another release, another window) is kept."""
    from workbench.core.data.out_of_core import sweep_leftovers

    sweep_leftovers()


def _open_at_start(window, args) -> None:
    if args.plan is not None:
        window.open_plan(args.plan)
    if args.data is not None:
        window.open_any(args.data)  # a user error is shown in a dialog


def _time_start(app, window) -> int:
    """Print when the window is first painted ("shown at", seconds since the epoch) and when its steps are
    built ("ready at"), then quit: how long the app takes to start, for benchmarks/ and packaging/measure.py."""
    import time

    from PySide6.QtCore import QTimer

    from workbench.gui.main_window import AfterFirstPaint

    def ready() -> None:
        window.build_steps()  # built already, in the turn before this one
        print(f"ready at {time.time():.3f}", flush=True)
        app.quit()

    def shown() -> None:
        print(f"shown at {time.time():.3f}", flush=True)
        QTimer.singleShot(0, ready)

    AfterFirstPaint(window, shown)  # installed after the window's own: runs first
    return app.exec()


def _smoke_test(window, args) -> int:
    import tempfile

    from workbench.core.errors import WorkbenchError
    from workbench.gui import smoke

    out = Path(args.smoke_test) if args.smoke_test else Path(tempfile.mkdtemp(prefix="dp-workbench-shots-"))
    try:
        shots = smoke.run(window, out, args.data, args.plan)
    except (WorkbenchError, RuntimeError, OSError) as exc:  # no one is there to close a dialog
        print(f"Error: {exc}", file=sys.stderr)
        return 2
    if args.screenshot:
        import shutil

        shutil.copyfile(shots[0], args.screenshot)
        print(f"Saved a screenshot of the main window to {args.screenshot}")
    print(f"Walked through {len(shots)} steps; screenshots in {out}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
