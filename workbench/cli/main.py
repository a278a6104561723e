"""``dp-workbench``: the headless way to inspect a table, start a plan, and release it.

A thin layer over ``workbench.core``: the same functions the app calls. Each command group is
a module of this package that adds its commands to the parser. User errors are printed as one
paragraph and exit with status 2; no traceback reaches the user.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import Sequence

from workbench.cli import ledger, plans, randomized_response, releases
from workbench.cli.output import write_utf8
from workbench.core.errors import WorkbenchError
from workbench.core.release import PrintVersion

EXIT_USER_ERROR = 2


def main(argv: Sequence[str] | None = None) -> int:
    write_utf8()  # before anything is printed: no output may fail after a charge (ε in cp1252 did, on Windows)
    parser = _parser()
    args = parser.parse_args(argv)
    from workbench.core.data.out_of_core import remove_on_signals, sweep_leftovers

    remove_on_signals()  # SIGTERM ends a release as Ctrl+C does: the engine's private files are removed
    sweep_leftovers()  # and those a killed process left behind (never a running process's)
    try:
        return args.run(args)
    except WorkbenchError as exc:
        lines = f"Error: {exc}".splitlines()  # a list of problems keeps its lines
        print("\n".join(textwrap.fill(line, width=100, subsequent_indent="  " if line.startswith("- ") else "")
                        for line in lines), file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("Stopped.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the output was piped into a program that stopped reading (| head)
        sys.stderr.close()
        return 0


def run() -> None:
    """The program ``dp-workbench`` (``main`` is what tests call: it returns its status)."""
    from workbench.core.process_exit import run_and_exit

    run_and_exit(main)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dp-workbench",
        description="Prepare differentially private releases of a table, offline.",
    )
    parser.add_argument("--version", action=PrintVersion)
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    for group in (plans, releases, ledger, randomized_response):
        group.add_commands(commands)
    return parser
