"""How the command line prints: sentences wrapped at 100 columns, and aligned tables; and in what encoding."""

from __future__ import annotations

import sys
import textwrap


def write_utf8() -> None:
    """Make stdout and stderr write UTF-8, and never fail on a character.

    A release prints ε, δ and ± after the ledger was charged. On Windows a Python writes a redirected or piped
    stream (``dp-workbench release … > out.txt``) in the ANSI code page, cp1252 in English, which has no ε: the
    print raised UnicodeEncodeError after the charge. UTF-8 encodes every character; ``replace`` stands in for
    what even UTF-8 cannot write (a lone surrogate from an undecodable file name), unless the stream already
    escapes such characters its own way. A console (Windows' own console I/O) and a stream that cannot be
    reconfigured (None in a windowed program, or a test's capture) are left as they are. The bundled programs
    also start in Python's UTF-8 mode (the spec's ``X utf8`` option); this covers the pip-installed commands.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        errors = stream.errors if stream.errors in ("surrogateescape", "backslashreplace", "replace") else "replace"
        try:
            reconfigure(encoding="utf-8", errors=errors)
        except (ValueError, OSError, AttributeError):  # closed, or a stream of another kind: as it is
            pass


def say(text: str) -> None:
    """A sentence for the console, wrapped at 100 columns."""
    print(textwrap.fill(text, width=100, subsequent_indent="  ", break_on_hyphens=False))


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
