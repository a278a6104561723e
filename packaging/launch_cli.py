"""Entry point of the bundled command line (PyInstaller runs this file as __main__)."""

import sys

from workbench.cli import main

if __name__ == "__main__":
    sys.exit(main())
