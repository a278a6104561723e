"""What an (ε, δ) guarantee means for one person, as numbers a manager can read.

Three readings of the same guarantee, each a theorem about any adversary, whatever they
know beforehand (Dwork & Roth 2014, §2.3; Kairouz, Oh & Viswanath 2015; Wasserman & Zhou
2010):

- belief: someone who thought a statement about a person (that they are in the file, or
  that their answer is "yes") had probability p can, after seeing the release, believe it
  with probability at most e^ε·p / (1 − p + e^ε·p). This is exact for pure ε-DP; a δ > 0
  allows rare results beyond it, so with δ the two readings below, which include δ, are
  the ones to quote;
- testing: any test that tries to tell whether the person is in the data has
  power ≤ e^ε·(false-positive rate) + δ, and power ≤ 1 − (1 − δ − false-positive rate)/e^ε;
- guessing: the chance of guessing right between the two neighbouring worlds, with prior p,
  is at most the largest p·power + (1 − p)·(1 − false-positive rate) that those tests allow.

``privacy_profile`` gives every (ε', δ') that a set of released events satisfies, through the
same PLD accountant the ledger uses; the report plots it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

from workbench.core.privacy import privacy_loss
from workbench.core.privacy.events import MechanismEvent
from workbench.core.privacy.mechanisms import check_epsilon

PROFILE_DELTAS = tuple(10.0**-e for e in (12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)) + (0.03, 0.1)


def _check(epsilon: float, delta: float) -> None:
    check_epsilon(epsilon)
    if not 0 <= delta < 1:
        raise ValueError(f"δ must lie in [0, 1), not {delta!r}")


def posterior_bound(epsilon: float, prior: float = 0.5) -> float:
    """The most that a belief of probability ``prior`` can rise to after a pure ε-DP release."""
    check_epsilon(epsilon)
    if not 0 <= prior <= 1:
        raise ValueError(f"a prior probability lies in [0, 1], not {prior!r}")
    if prior in (0.0, 1.0):
        return prior
    odds = math.exp(min(epsilon, 700.0)) * prior / (1 - prior)
    return odds / (1 + odds)


def test_power_bound(epsilon: float, delta: float, false_positive_rate: float) -> float:
    """The highest power (chance of saying "in the data" when the person is) of any test that
    says so wrongly with probability ``false_positive_rate`` (Kairouz, Oh & Viswanath 2015, Thm 2.1)."""
    _check(epsilon, delta)
    if not 0 <= false_positive_rate <= 1:
        raise ValueError(f"a false-positive rate lies in [0, 1], not {false_positive_rate!r}")
    e = math.exp(min(epsilon, 700.0))
    return min(1.0, e * false_positive_rate + delta, 1.0 - (1.0 - delta - false_positive_rate) / e)


test_power_bound.__test__ = False  # a function of the library, not a pytest test


def guess_bound(epsilon: float, delta: float, prior: float = 0.5) -> float:
    """The best chance of guessing right which of two neighbouring worlds is true, with
    probability ``prior`` on the first. The tests allowed by (ε, δ)-DP form a convex region
    with corners (0, δ), (x, 1 - x) with x = (1 - δ)/(1 + e^ε), and (1 - δ, 1) in
    (false-positive rate, power); a linear objective is largest at a corner, or at guessing
    without looking (max(prior, 1 - prior))."""
    _check(epsilon, delta)
    if not 0 <= prior <= 1:
        raise ValueError(f"a prior probability lies in [0, 1], not {prior!r}")
    x = (1.0 - delta) / (1.0 + math.exp(min(epsilon, 700.0)))
    corners = ((0.0, delta), (x, 1.0 - x), (1.0 - delta, 1.0), (0.0, 0.0), (1.0, 1.0))
    return max(prior * power + (1 - prior) * (1 - fpr) for fpr, power in corners)


def group_guarantee(epsilon: float, delta: float, persons: int) -> tuple[float, float]:
    """The guarantee for a group of ``persons`` (a household) taken together: kε and
    k·e^((k−1)ε)·δ (Dwork & Roth 2014, Thm 2.2 and its (ε, δ) form)."""
    _check(epsilon, delta)
    if persons < 1:
        raise ValueError(f"a group has at least one person, not {persons!r}")
    k = persons
    return k * epsilon, min(1.0, k * math.exp(min((k - 1) * epsilon, 700.0)) * delta) if delta else 0.0


def privacy_profile(events: Iterable[MechanismEvent], deltas: Sequence[float] = PROFILE_DELTAS) -> list[tuple[float, float]]:
    """(δ', ε') pairs: the release is (ε', δ')-DP for each, by PLD accounting (pessimistic).
    An ε' that only basic composition can show at δ' = 0 is added first when all events are pure."""
    events = list(events)
    points = []
    if events and all(e.delta == 0 for e in events):
        points.append((0.0, math.fsum(e.epsilon for e in events)))
    for delta in deltas:
        points.append((delta, privacy_loss.composed_epsilon(events, delta)))
    return points


def percent(p: float) -> str:
    """A probability as a percentage that never rounds a bound up to a certainty (99.995%, not 100%)."""
    if 0.99 < p < 1:
        digits = max(0, min(6, -math.floor(math.log10(1 - p)) - 1))
        return f"{math.floor(p * 10 ** (digits + 2)) / 10 ** digits:.{digits}f}%"
    return f"{p:.0%}"


@dataclass(frozen=True)
class Reading:
    """The plain-language reading of one guarantee: headline sentences and the numbers behind them."""

    epsilon: float
    delta: float
    posterior_from_half: float
    posterior_from_tenth: float
    power_at_5_percent: float
    guess_from_half: float

    def sentences(self, substitute: bool = False) -> tuple[str, ...]:
        """Under ``substitute`` neighbours the two worlds differ in a person's record, not in
        whether they are there; the sentences say so."""
        e, d = self.epsilon, self.delta
        fact = "a given person's record says one thing rather than another" if substitute else (
            "a given person is in the data (or has a given answer)"
        )
        worlds = "the two versions of that person's record" if substitute else "the two worlds, with or without that person"
        testing = "which of two records a person has" if substitute else "whether a person is in the data"
        lines = [
            f"Someone who thought it a 50-50 chance that {fact} "
            f"can, after seeing these results, be at most {percent(self.posterior_from_half)} sure; from 10% they can "
            f"reach at most {percent(self.posterior_from_tenth)}" + (" (from ε alone; δ is below)." if d > 0 else "."),
            f"Any test that tries to tell {testing}, and wrongly says yes 5% of the time when the answer is "
            f"no, says yes at most {percent(self.power_at_5_percent)} of the time when it is yes (power ≤ e^ε × "
            "false-positive rate + δ).",
            f"Guessing between {worlds} succeeds at most "
            f"{percent(self.guess_from_half)} of the time (50% is a coin toss).",
        ]
        if d > 0:
            lines.append(
                f"δ = {d:.2g} is the allowance for rare results outside these bounds: keep it well below one over "
                "the number of people in the data."
            )
        if e > 5:
            lines.append(f"ε = {e:.3g} is large: these bounds say little, and the numbers may reveal individuals.")
        return tuple(lines)


def reading(epsilon: float, delta: float = 0.0) -> Reading:
    """The numbers behind the sentences, for an (ε, δ) guarantee."""
    _check(epsilon, delta)
    return Reading(
        epsilon=epsilon,
        delta=delta,
        posterior_from_half=posterior_bound(epsilon, 0.5),
        posterior_from_tenth=posterior_bound(epsilon, 0.1),
        power_at_5_percent=test_power_bound(epsilon, delta, 0.05),
        guess_from_half=guess_bound(epsilon, delta, 0.5),
    )
