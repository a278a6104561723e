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
    main = parts.pop("DP Workbench")
    return f"DP Workbench {main} (" + ", ".join(f"{name} {version}" for name, version in parts.items()) + ")"
