"""Entry point of the bundled command line (PyInstaller runs this file as __main__)."""

from workbench.cli import run

if __name__ == "__main__":
    run()
