"""How the command line prints: sentences wrapped at 100 columns, and aligned tables."""

from __future__ import annotations

import textwrap


def say(text: str) -> None:
    """A sentence for the console, wrapped at 100 columns."""
    print(textwrap.fill(text, width=100, subsequent_indent="  "))


def shortened(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters with an ellipsis (the whole label is in results.json and the report)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def print_table(rows: list[tuple[str, ...]], right: frozenset[int] = frozenset()) -> None:
    """Print rows as aligned columns under a ruled header; columns in ``right`` align right."""
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        cells = [str(c).rjust(w) if i in right and n else str(c).ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths).rstrip())
