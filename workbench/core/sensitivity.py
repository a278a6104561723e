"""How much one person can move an integer-valued query, from the public schema alone.

Every released number is computed as an exact integer (counts, or sums of values scaled
onto a power-of-two grid), so the bounds below hold exactly; no float rounding can
exceed them (DESIGN rule 4).

Notation: each row contributes an integer in [lo, hi]; after preparation one person has
between ``a_min`` and ``k`` rows (``a_min`` is 0 when a missing value can drop a row,
else 1). Under add/remove a person's rows appear or vanish; under substitute a person
with ``a`` rows is replaced by one with ``b`` rows, both in [a_min, k].
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from workbench.core.schema import Neighbouring


@dataclass(frozen=True)
class Sensitivity:
    """The largest change of a query between neighbouring datasets, in two norms."""

    l1: float
    l2: float


def bounded_sum(lo: int, hi: int, k: int, a_min: int, neighbouring: Neighbouring) -> Sensitivity:
    """Sum of per-row integers in [lo, hi]; a count is the case lo = hi = 1."""
    if lo > hi:
        raise ValueError("lo must not exceed hi")
    if neighbouring is Neighbouring.ADD_REMOVE:
        delta = k * max(abs(lo), abs(hi))
    else:
        # max over b of b*hi minus min over a of a*lo, with a, b in [a_min, k]; symmetric.
        most_added = k * hi if hi >= 0 else a_min * hi
        least_removed = k * lo if lo < 0 else a_min * lo
        delta = most_added - least_removed
    return Sensitivity(l1=delta, l2=delta)


def histogram(k: int, neighbouring: Neighbouring) -> Sensitivity:
    """Counts in disjoint bins, each row adding 1 to at most one bin.

    Add/remove: up to k rows, possibly in one bin: L1 = L2 = k.
    Substitute: up to k rows leave and up to k arrive: L1 = 2k, L2 = sqrt(2) k.
    """
    if neighbouring is Neighbouring.ADD_REMOVE:
        return Sensitivity(l1=k, l2=k)
    return Sensitivity(l1=2 * k, l2=math.nextafter(math.sqrt(2) * k, math.inf))  # rounded up
