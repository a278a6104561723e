"""``python -m workbench.cli``: the same program as ``dp-workbench``."""

from workbench.cli.main import run

run()
