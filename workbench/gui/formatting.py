"""How numbers are shown to people, and read back from what they type."""

import math


def readable(value: float) -> str:
    """Large numbers in full with thousands separators; small ones to four significant digits."""
    return f"{value:,.0f}" if abs(value) >= 10_000 else f"{value:,.4g}"


def parse_number(text: str) -> float | None:
    """A number typed by the user; None if empty; ValueError if not a finite number."""
    text = text.strip()
    if not text:
        return None
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(text)
    return value
