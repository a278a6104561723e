"""Randomised response for survey designers: each respondent randomises their own answer
(the local model), so no one, not even the data holder, sees a true answer.

With k categories and ε, a respondent reports the truth with probability
p = e^ε / (e^ε + k - 1) and each other category with q = (1 - p) / (k - 1) (Warner 1965,
generalised; ε-DP for one respondent, as ln(p/q) = ε). If λ_j is the share of reports "j", the
unbiased estimate of the true share is π_j = (λ_j - q) / (p - q), with variance
λ_j (1 - λ_j) / (n (p - q)^2). Intervals are clipped to [0, 1] (post-processing).

The randomiser is OpenDP's ``make_randomized_response(categories, p)``, whose privacy map gives
ln(p (k - 1) / (1 - p)), rounded up, and ∞ for p = 1. As for the other mechanisms, p is checked
by that map: p is computed in floating point, then lowered by a few ulps until the map is at
most the ε stated, so the statement never claims less than OpenDP can prove (before, at ε = 1 the
map gave 1.0000000000000009). The design's q is the one OpenDP draws with, (1 - p)/(k - 1).

ε is capped at ``MAX_EPSILON`` = 20. Beyond it the answers are all but the truth: at ε = 20 with
two answers a respondent's answer is randomised with probability 2e-9 (in a survey of 100 million,
about 0.2 answers), so the design protects nobody and its ε only says so; and towards ε = 37,
1 - p falls to the float spacing below 1 (1.1e-16), so the ε OpenDP can prove jumps in coarse
steps (29.9998 at ε = 30) and at ε ≈ 36.7 p rounds to 1: every answer is the truth and OpenDP's
map is ∞ (``dp-workbench rr design --epsilon 40`` printed "ε-DP" with p = 1.0000). Up to 20, p
and q keep at least eight significant digits. A p that rounds to 1 or an infinite map is refused
as well, whatever the cap.

The central model for comparison: a trusted curator counts the true answers and adds
discrete Laplace noise of scale 1/ε to each count (add/remove one respondent).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Iterable, Sequence

from workbench.core.errors import BudgetError, PlanError
from workbench.core.privacy import opendp_api as dp
from workbench.core.privacy.mechanisms import check_epsilon
from workbench.core.real import is_finite_real

dp.enable_features("contrib")

MAX_EPSILON = 20.0  # see the module docstring: beyond, an answer is all but the truth


@dataclass(frozen=True)
class ResponseDesign:
    """The response probabilities for ``categories`` at ``epsilon``, checked by OpenDP's privacy map."""

    categories: tuple[str, ...]
    epsilon: float
    truth_probability: float = field(init=False, repr=False)  # p: a respondent reports their true answer
    map_epsilon: float = field(init=False, repr=False)  # OpenDP's privacy map of the randomiser: at most ``epsilon``

    def __post_init__(self) -> None:
        if is_finite_real(self.epsilon) and self.epsilon > MAX_EPSILON:  # before check_epsilon's cap of 100
            raise BudgetError(
                f"ε = {self.epsilon:g} is too large for randomised response: at ε = {MAX_EPSILON:g}, with two answers, a "
                "respondent's answer is randomised with a chance of about 2 in a billion, so it protects nobody. "
                f"Choose ε of at most {MAX_EPSILON:g}; values between 0.5 and 3 are usual."
            )
        check_epsilon(self.epsilon)
        if len(self.categories) < 2 or len(set(self.categories)) != len(self.categories):
            raise PlanError("Randomised response needs at least two different answer categories.")
        holding_nul = [c for c in self.categories if "\x00" in c]
        if holding_nul:  # OpenDP's strings end there: "a\x00x" and "a\x00y" were one answer "a", p and q not its
            shown = holding_nul[0].replace("\x00", "␀")
            raise PlanError(f"The answer category '{shown}' holds a NUL character (shown as ␀), an invisible control "
                            "character: remove it, or type the category again.")
        truth, proved = _calibrated(list(self.categories), self.epsilon)
        object.__setattr__(self, "truth_probability", truth)
        object.__setattr__(self, "map_epsilon", proved)

    @property
    def other_probability(self) -> float:
        """q: the chance of reporting one particular other answer, as OpenDP draws it."""
        return (1.0 - self.truth_probability) / (len(self.categories) - 1)

    def estimator_variance(self, share: float, respondents: int) -> float:
        """Variance of the estimated share of one category whose true share is ``share``."""
        p, q = self.truth_probability, self.other_probability
        reported = share * (p - q) + q
        return reported * (1.0 - reported) / (respondents * (p - q) ** 2)

    def halfwidth(self, share: float, respondents: int, confidence: float = 0.95) -> float:
        """Half-width of the normal-approximation interval for the estimated share."""
        return _z(confidence) * math.sqrt(self.estimator_variance(share, respondents))

    def central_halfwidth(self, share: float, respondents: int, confidence: float = 0.95) -> float:
        """The same for a trusted curator: sampling error plus Laplace noise (scale 1/ε) on the count."""
        variance = share * (1.0 - share) / respondents + 2.0 / (self.epsilon * respondents) ** 2
        return _z(confidence) * math.sqrt(variance)

    def randomizer(self) -> dp.Measurement:
        """OpenDP's randomised response with this design (what a respondent's device would run)."""
        return dp.m.make_randomized_response(list(self.categories), self.truth_probability)


def _calibrated(categories: list[str], epsilon: float) -> tuple[float, float]:
    """p for ``epsilon``, lowered until OpenDP's privacy map of the randomiser is at most ``epsilon``;
    and that map's value. Refused if p rounds to 1 or the map is infinite."""
    k = len(categories)
    truth = 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))  # e^ε / (e^ε + k - 1), without overflow

    def proof(truth: float) -> float:
        return dp.m.make_randomized_response(categories, truth).map(1)

    for _ in range(64):
        if truth >= 1.0:
            break
        if (proved := proof(truth)) <= epsilon:
            return truth, proved
        truth = math.nextafter(truth, 0.0)  # each ulp lowers the map by about ulp / (p (1 - p))
    if truth < 1.0:  # not within 64 ulps (never seen): the largest p in [1/k, p] that the map accepts
        low, high = 1.0 / k, truth
        for _ in range(200):
            middle = (low + high) / 2
            if middle in (low, high):
                break
            low, high = (middle, high) if proof(middle) <= epsilon else (low, middle)
        if proof(low) <= epsilon:
            return low, proof(low)
    raise BudgetError(
        f"ε = {epsilon:g} cannot be given by randomised response with {k} answers in floating point: the chance "
        "of reporting the true answer rounds to 1, so every answer would be the truth and no ε holds "
        f"(OpenDP's privacy map is infinite). Choose ε of at most {MAX_EPSILON:g}."
    )


@dataclass(frozen=True)
class ShareEstimate:
    category: str
    reported: int
    share: float  # unbiased; may fall outside [0, 1]
    low: float  # interval clipped to [0, 1]
    high: float


def estimate_shares(
    design: ResponseDesign, responses: Iterable[str], confidence: float = 0.95
) -> tuple[list[ShareEstimate], int]:
    """Unbiased shares and intervals from collected (randomised) responses; also the number used."""
    counts = Counter(str(r).strip() for r in responses)
    unknown = sorted(set(counts) - set(design.categories))
    if unknown:
        raise PlanError(
            f"The responses contain answers that are not categories of the design: {', '.join(map(repr, unknown[:5]))}. "
            "Correct the file or list every answer category."
        )
    n = sum(counts.values())
    if n == 0:
        raise PlanError("There are no responses to estimate from.")
    p, q = design.truth_probability, design.other_probability
    z = _z(confidence)
    estimates = []
    for category in design.categories:
        reported = counts.get(category, 0) / n
        share = (reported - q) / (p - q)
        half = z * math.sqrt(reported * (1.0 - reported) / n) / (p - q)
        estimates.append(ShareEstimate(category, counts.get(category, 0), share, max(0.0, share - half), min(1.0, share + half)))
    return estimates, n


def epsilon_text(epsilon: float) -> str:
    """ε as stated: six significant digits where they do not round it down, else every digit."""
    short = f"{epsilon:.6g}"
    return short if float(short) >= epsilon else repr(float(epsilon))


def probability_text(probability: float, up: bool = False) -> str:
    """A response probability: four decimals, or its distance from 0 or 1 (three significant digits) where four
    decimals would show 0.0000 or 1.0000 (at ε = 20, p = 1 − 4.13e-9, not 1.0000). Rounded down, or ``up``: the
    true answer's p down and each other answer's q up, so that a randomiser built from the numbers shown is no
    less private than the design (p/q at most e^ε; p = 0.9999 and q = 0.0001 had shown ε = 9.2 for ε = 9)."""
    if probability >= 0.99995:
        return f"1 − {_significant(1.0 - probability, up=not up)}"
    if probability < 0.00005:
        return _significant(probability, up)
    return f"{_rounded(probability, 1e-4, up):.4f}"


def _significant(value: float, up: bool) -> str:
    """``value`` > 0 to three significant digits, rounded up or down."""
    return f"{_rounded(value, 10.0 ** (math.floor(math.log10(value)) - 2), up):.3g}"


def _rounded(value: float, step: float, up: bool) -> float:
    """``value`` to a multiple of ``step``, up or down; one a hair from a multiple (floating point) is that multiple."""
    steps = value / step
    nearest = round(steps)
    whole = nearest if abs(steps - nearest) < 1e-6 else (math.ceil(steps) if up else math.floor(steps))
    return whole * step


def _z(confidence: float) -> float:
    if not 0 < confidence < 1:
        raise PlanError(f"The confidence must lie between 0 and 1, not {confidence!r}.")
    return NormalDist().inv_cdf((1.0 + confidence) / 2.0)


def design_table(design: ResponseDesign, respondents: int, shares: Sequence[float] = (0.05, 0.2, 0.5)) -> list[dict]:
    """For each assumed true share: the ± of randomised response, of the central model, and their ratio."""
    if respondents < 1:
        raise PlanError("The number of respondents must be at least 1.")
    rows = []
    for share in shares:
        local, central = design.halfwidth(share, respondents), design.central_halfwidth(share, respondents)
        rows.append({"share": share, "randomised_response": local, "central": central, "ratio": local / central})
    return rows
