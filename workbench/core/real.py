"""What a plan, a schema or a budget accepts as a number: a finite real, never a bool.

JSON's ``true`` reads as Python's ``True``, which is also the integer 1: without this check it
would pass as a bound, an ε or a quantile level. Every layer that reads numbers asks here."""

from __future__ import annotations

import math
from typing import Any


def is_finite_real(value: Any) -> bool:
    """Whether ``value`` is an int or a float (not a bool) and neither infinite nor NaN."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_whole_number(value: Any) -> bool:
    """Whether ``value`` is an int (not a bool): a count of rows or persons as a plan writes it."""
    return isinstance(value, int) and not isinstance(value, bool)
