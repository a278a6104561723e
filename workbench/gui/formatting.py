"""How numbers are shown to people."""


def readable(value: float) -> str:
    """Large numbers in full with thousands separators; small ones to four significant digits."""
    return f"{value:,.0f}" if abs(value) >= 10_000 else f"{value:,.4g}"
