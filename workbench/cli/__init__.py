"""``dp-workbench``, the command line: one module per command group, over the same core as the app.
May import every ``workbench.core`` layer, never ``gui``; prints user errors and exits with status 2."""

from workbench.cli.main import main, run

__all__ = ["main", "run"]
