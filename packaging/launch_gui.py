"""Entry point of the bundled desktop application (PyInstaller runs this file as __main__)."""

import sys

from workbench.gui.app import main

if __name__ == "__main__":
    sys.exit(main())
