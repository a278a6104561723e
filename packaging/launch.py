"""Entry point of the bundled programs on Linux, where one executable serves both: run as dp-workbench-gui (a
second name of the same file) it is the desktop app, as dp-workbench the command line. One program instead of
two keeps one copy of the Python modules (15 MB) in the downloads."""

import sys
from pathlib import Path

if __name__ == "__main__":
    if Path(sys.argv[0]).name.startswith("dp-workbench-gui"):
        from workbench.gui.app import main

        sys.exit(main())
    else:
        from workbench.cli import run

        run()
