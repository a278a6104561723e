"""The tightest valid (ε, δ) for a list of privacy events, and how it reads against a budget.

Modelled after ``dp_accounting``: each noisy query becomes a small immutable event
(``events``), and ``compose`` turns a sequence of events into one (ε, δ) guarantee, naming
its method. Three accountants, each valid where it applies, and the tightest is used:

- basic composition (``accounting``): the ε and the δ of all events add up (exact for pure ε-DP);
- zero-concentrated DP (``accounting``; Bun & Steinke 2016): a Gaussian event with sensitivity Δ and
  standard deviation σ is ρ-zCDP with ρ = Δ² / (2σ²), also for the multi-dimensional
  discrete Gaussian (Canonne, Kamath & Steinke 2020); an ε-DP event is (ε²/2)-zCDP;
  the ρ add up and are converted to (ε, δ) by OpenDP, the same conversion that
  calibrated each Gaussian event. It is tried whenever a δ > 0 is allowed and every event is
  Gaussian or pure, so many small pure statistics also gain from it when PLD is skipped;
- privacy loss distributions (``privacy_loss``, dp-accounting's method over numpy arrays,
  checked against dp-accounting in the tests): numerically the tightest, and the one that lets
  many Laplace statistics share a budget with δ > 0; its grid is chosen from the events.

The tightest valid result is used. A dataset's releases are composed as the ledger meets them,
each chosen after seeing the ones before, its ε too (``compose_releases``): a privacy filter. Basic
composition (Rogers, Roth, Ullman & Vadhan 2016) and zCDP (Feldman & Zrnic 2021; Whitehouse, Ramdas,
Rogers & Wu 2023) each stay valid then (OpenDP's fully adaptive compositor has no PLD either); the PLD's
bound is proved for a sequence fixed in advance, so it applies within one release (its statistics are
all chosen before any is seen) and to a dataset's first release, never across releases. Taking the
smaller of basic composition and zCDP at each step is valid at the dataset's δ while every event is pure;
with Gaussian or other approximate events on the basic side, the two filters' δ may add up (docs/ledger.md).

Parallel composition needs no accountant of its own: a statistic by group is one query over all its
groups, whose sensitivity counts how many groups one person can touch (``sensitivity.grouped``), so ε is
spent once, not per group.
"""

from __future__ import annotations

from typing import Iterable

from workbench.core.privacy.accounting import BASIC, basic_composition, zcdp_applies, zcdp_composition
from workbench.core.privacy.events import Guarantee, MechanismEvent
from workbench.core.privacy.privacy_loss import pld_composition

PREFER_BASIC_WITHIN = 1e-3  # relative ε a tighter accountant must save to be worth its larger δ
BUDGET_TOLERANCE = 1e-9  # relative; absorbs float rounding when ε of parts add up to a total


def overspend(spent: Guarantee, epsilon: float, delta: float) -> tuple[float, float] | None:
    """By how much ``spent`` exceeds the budget (ε, δ), or None if it fits (up to float rounding). A spend or a
    budget that is not a number never fits: a NaN compares false with everything, so the test is that it fits."""
    over_epsilon, over_delta = spent.epsilon - epsilon, spent.delta - delta
    fits = over_epsilon <= BUDGET_TOLERANCE * epsilon and over_delta <= BUDGET_TOLERANCE * max(delta, 1e-300)
    if not fits:
        return (over_epsilon if not over_epsilon <= 0 else 0.0), (over_delta if not over_delta <= 0 else 0.0)
    return None


def spent_in_words(spent: Guarantee, budget: Guarantee) -> str:
    """What a dataset has spent of its budget, in words that cannot be read as 'all of δ is gone'.

    Under basic composition the δ of the releases add up, so a spent δ is a share of the budget's
    δ. The other accountants state the ε of all releases together at the budget's own δ: there the
    δ is the fixed small chance that the guarantee fails, not an amount used up."""
    if spent.method == BASIC or budget.delta == 0:
        return (f"spent ε = {spent.epsilon:.4g}, δ = {spent.delta:.3g} of its total ε = {budget.epsilon:g}, "
                f"δ = {budget.delta:g}")
    return (f"spent ε = {spent.epsilon:.4g} of its total ε = {budget.epsilon:g}; δ = {budget.delta:g} is the fixed "
            "small chance that the guarantee fails, stated with every ε here, not an amount used up")


def compose_releases(releases: Iterable[Iterable[MechanismEvent]], delta: float | None = None,
                     tight: bool = True) -> Guarantee:
    """The guarantee of a dataset's releases (each its events, oldest first): ``compose`` of all their events, with
    the PLD's bound only while there is one release (the module's docstring says why)."""
    chosen = [events for events in (list(r) for r in releases) if events]
    return compose([e for events in chosen for e in events], delta, tight, adaptive=len(chosen) > 1)


def compose(events: Iterable[MechanismEvent], delta: float | None = None, tight: bool = True,
            adaptive: bool = False) -> Guarantee:
    """The smallest ε that a valid accountant proves for ``events`` at the given δ.

    ``delta`` defaults to the sum of the events' δ. Basic composition is valid when that
    sum is at most ``delta``; zCDP and PLD accounting are valid for any ``delta`` > 0.
    ``tight=False`` skips PLD accounting (tenths of a second for a thousand distinct
    events) where a quick, still valid, answer is wanted, e.g. while a slider moves.
    ``adaptive``: the events' parameters were chosen one after another, each after seeing the results before
    (several releases): PLD accounting is skipped, its bound not being proved then.
    """
    events = list(events)
    basic = basic_composition(events)
    target = basic.delta if delta is None else delta
    candidates = [basic] if basic.delta <= target else []
    if target > 0 and events and zcdp_applies(events):
        candidates.append(zcdp_composition(events, target, quick=not tight))
    if tight and not adaptive and target > 0 and len(events) > 1:
        candidates.append(pld_composition(events, target))
    if not candidates:
        return basic  # no accountant reaches the target δ; the caller sees δ above it
    best = min(candidates, key=lambda g: g.epsilon)
    if candidates[0] is basic and basic.epsilon <= best.epsilon * (1 + PREFER_BASIC_WITHIN):
        return basic  # as good, with a smaller δ and a one-line proof
    return best
