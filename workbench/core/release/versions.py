"""The versions that make up this DP Workbench: its own, and those of what the guarantee rests on.

A report or a support question needs them: OpenDP's samplers make the noise, so ``--version``
and every report name OpenDP's version. The privacy-loss accountant is this program's own
(``privacy_loss``: dp-accounting's method over numpy arrays); dp-accounting is not inside,
so they name the dp-accounting release the tests check that accountant against.
"""

from __future__ import annotations

import argparse
import platform
from importlib import metadata

from workbench import __version__
from workbench.core.privacy import privacy_loss

ACCOUNTANT = "accountant checked against dp-accounting"


def libraries() -> dict[str, str]:
    """OpenDP's version, and the dp-accounting release the accountant is checked against."""
    try:
        opendp = metadata.version("opendp")
    except metadata.PackageNotFoundError:  # a bundle built without the package metadata
        opendp = "unknown"
    return {"OpenDP": opendp, ACCOUNTANT: privacy_loss.CHECKED_AGAINST}


def versions() -> dict[str, str]:
    """DP Workbench, OpenDP, the accountant's reference and Python, by name."""
    return {"DP Workbench": __version__, **libraries(), "Python": platform.python_version()}


def version_text() -> str:
    """One line, as ``--version`` prints it."""
    parts = versions()
    return software_in_words(parts.pop("DP Workbench"), parts)


def software_in_words(version: str, libraries: dict[str, str]) -> str:
    """'DP Workbench 0.1.0 (OpenDP 0.16.0, accountant checked against dp-accounting 0.6.0)':
    as --version and the report name it."""
    named = ", ".join(f"{name} {number}" for name, number in libraries.items())
    return f"DP Workbench {version}" + (f" ({named})" if named else "")


class PrintVersion(argparse.Action):
    """``--version``: prints ``version_text()`` on one line (argparse's own action folds it at 80 columns)."""

    def __init__(self, option_strings: list[str], dest: str = argparse.SUPPRESS, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print the versions of DP Workbench and what it rests on, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_text())
        parser.exit()
