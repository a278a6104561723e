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

from workbench.core.data import Neighbouring


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


def grouped_sum(lo: int, hi: int, k: int, a_min: int, neighbouring: Neighbouring) -> Sensitivity:
    """One sum per group (or bin), each row in exactly one group: the vector of all groups.

    This is parallel composition made exact: a person's rows can fall in different
    groups, and the sensitivity of the whole vector counts that. With M = max(|lo|, |hi|):
    add/remove moves the vector by at most k M in L1 (so in L2), as for one sum;
    substitute can take k rows out of one group and put k into another: L1 = 2 k M and
    L2 = max(sqrt(2) k M, the one-sum change), the latter when both are in one group.
    """
    whole = bounded_sum(lo, hi, k, a_min, neighbouring)
    if neighbouring is Neighbouring.ADD_REMOVE:
        return whole
    most = k * max(abs(lo), abs(hi))
    l2 = max(whole.l2, math.nextafter(math.sqrt(2) * most, math.inf))  # rounded up
    return Sensitivity(l1=max(whole.l1, 2 * most), l2=l2)


def histogram(k: int, neighbouring: Neighbouring) -> Sensitivity:
    """Counts in disjoint bins: a grouped count (add/remove: L1 = L2 = k; substitute: 2k, sqrt(2) k)."""
    return grouped_sum(1, 1, k, 1, neighbouring)
