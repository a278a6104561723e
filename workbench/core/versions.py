"""The versions that make up this DP Workbench: its own, and those of the libraries the guarantee rests on.

A report or a support question needs them: the noise samplers (OpenDP) and the accountant
(dp-accounting) decide what a release means, so ``--version`` and every report name them.
"""

from __future__ import annotations

import platform
from importlib import metadata

from workbench import __version__

LIBRARIES = {"OpenDP": "opendp", "dp-accounting": "dp-accounting"}


def versions() -> dict[str, str]:
    """DP Workbench, OpenDP, dp-accounting and Python, by name."""
    found = {"DP Workbench": __version__}
    for name, distribution in LIBRARIES.items():
        try:
            found[name] = metadata.version(distribution)
        except metadata.PackageNotFoundError:  # a bundle built without the package metadata
            found[name] = "unknown"
    found["Python"] = platform.python_version()
    return found


def version_text() -> str:
    """One line, as ``--version`` prints it."""
    parts = versions()
    return software_in_words(parts.pop("DP Workbench"), parts)


def software_in_words(version: str, libraries: dict[str, str]) -> str:
    """'DP Workbench 0.1.0 (OpenDP 0.16.0, dp-accounting 0.6.0)': as --version and the report name it."""
    named = ", ".join(f"{name} {number}" for name, number in libraries.items())
    return f"DP Workbench {version}" + (f" ({named})" if named else "")
