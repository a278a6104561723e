"""Numbers read back from what people type (released numbers are written by
``workbench.core.report.released_number``, as in the report and on the command line)."""

import math


def parse_number(text: str) -> float | None:
    """A number typed by the user; None if empty; ValueError if not a finite number."""
    text = text.strip()
    if not text:
        return None
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value
