"""``dp-workbench-gui``: start the desktop application, optionally on a data file or plan."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from workbench.core.release import PrintVersion


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dp-workbench-gui", description="DP Workbench desktop application")
    parser.add_argument("data", nargs="?", type=Path, help="a table (or a .json plan) to open at start")
    parser.add_argument("--plan", type=Path, help="a plan to open at start")
    parser.add_argument("--version", action=PrintVersion)
    parser.add_argument(
        "--smoke-test", nargs="?", const="", metavar="DIR",
        help="walk through every step on the sample data (or DATA and --plan), release against a throw-away "
        "ledger, save a screenshot of each step into DIR (if given), and quit",
    )
    parser.add_argument("--screenshot", type=Path, help="with --smoke-test: also save the first step as this PNG")
    parser.add_argument(
        "--quit-when-shown", action="store_true",
        help="print the time (seconds since the epoch) when the main window has been shown, and quit: how long "
        "the app takes to start, measured by packaging/measure.py",
    )
    args = parser.parse_args(argv)

    from PySide6.QtWidgets import QApplication

    from workbench.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("DP Workbench")
    app.setOrganizationName("DP Workbench")
    window = MainWindow()
    window.show()
    if args.smoke_test is not None:
        return _smoke_test(window, args)
    if args.quit_when_shown:
        import time

        from PySide6.QtCore import QTimer

        def shown() -> None:  # runs once the first events, the window's paint among them, are handled
            print(f"shown at {time.time():.3f}", flush=True)
            app.quit()

        QTimer.singleShot(0, shown)
        return app.exec()
    if args.plan is not None:
        window.open_plan(args.plan)
    if args.data is not None:
        window.open_any(args.data)  # a user error is shown in a dialog
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
