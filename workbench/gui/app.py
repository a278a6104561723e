"""``dp-workbench-gui``: start the desktop application, optionally on a data file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from workbench import __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="dp-workbench-gui", description="DP Workbench desktop application")
    parser.add_argument("data", nargs="?", type=Path, help="a table to open at start")
    parser.add_argument("--version", action="version", version=f"DP Workbench {__version__}")
    parser.add_argument(
        "--smoke-test", action="store_true", help="open the window, optionally save a screenshot, and quit"
    )
    parser.add_argument("--screenshot", type=Path, help="with --smoke-test: save the window as this PNG")
    args = parser.parse_args(argv)

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from workbench.core.errors import WorkbenchError
    from workbench.core.io import load_table
    from workbench.gui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("DP Workbench")
    window = MainWindow()
    window.show()
    if args.data is not None:
        if not args.smoke_test:
            window.open_path(args.data)  # a user error is shown in a dialog
        else:
            try:
                window.show_table(load_table(args.data))
            except WorkbenchError as exc:  # no one is there to close a dialog
                print(f"Error: {exc}", file=sys.stderr)
                return 2
    if args.smoke_test:
        app.processEvents()
        if args.screenshot:
            window.grab().save(str(args.screenshot))
            print(f"Saved a screenshot of the main window to {args.screenshot}")
        QTimer.singleShot(0, app.quit)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
