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


def print_table(rows: list[tuple[str, ...]], right: frozenset[int] = frozenset(), width: int = 100) -> None:
    """Print rows as aligned columns under a ruled header; columns in ``right`` align right.

    A table wider than ``width`` wraps its widest columns onto continuation lines (a long header, a
    long label), never within a word, so that it reads in a terminal of that many columns."""
    texts = [[str(c) for c in row] for row in rows]
    widths = fitted_widths(texts, right, width)
    for n, row in enumerate(texts):
        pieces = [_wrapped(c, w) for c, w in zip(row, widths)]
        for line in range(max(len(p) for p in pieces)):
            cells = [(p[line] if line < len(p) else "") for p in pieces]
            cells = [c.rjust(w) if i in right and n else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
            print("  ".join(cells).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths).rstrip())


def fitted_widths(rows: list[list[str]], right: frozenset[int], width: int) -> list[int]:
    """Each column's width: its longest cell, the widest text columns narrowed until the table fits."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    floor = [max((len(word) for row in rows for word in row[i].split()), default=0) for i in range(len(widths))]
    while sum(widths) + 2 * (len(widths) - 1) > width:
        narrowable = [i for i in range(len(widths)) if widths[i] > max(floor[i], 8)]
        if not narrowable:
            break
        widest = max(narrowable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def _wrapped(text: str, width: int) -> list[str]:
    if len(text) <= width:
        return [text]
    return textwrap.wrap(text, width=max(width, 1), break_on_hyphens=False) or [""]
