"""Randomised response for survey designers: each respondent randomises their own answer
(the local model), so no one, not even the data holder, sees a true answer.

With k categories and ε, a respondent reports the truth with probability
p = e^ε / (e^ε + k - 1) and each other category with q = 1 / (e^ε + k - 1) (Warner 1965,
generalised; ε-DP for one respondent). If λ_j is the share of reports "j", the unbiased
estimate of the true share is π_j = (λ_j - q) / (p - q), with variance
λ_j (1 - λ_j) / (n (p - q)^2). Intervals are clipped to [0, 1] (post-processing).

The central model for comparison: a trusted curator counts the true answers and adds
discrete Laplace noise of scale 1/ε to each count (add/remove one respondent).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from statistics import NormalDist
from typing import Iterable, Sequence

from workbench.core.errors import PlanError
from workbench.core.privacy import opendp_api as dp
from workbench.core.privacy.mechanisms import check_epsilon

dp.enable_features("contrib")


@dataclass(frozen=True)
class ResponseDesign:
    """The response probabilities for ``categories`` at ``epsilon``."""

    categories: tuple[str, ...]
    epsilon: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        if len(self.categories) < 2 or len(set(self.categories)) != len(self.categories):
            raise PlanError("Randomised response needs at least two different answer categories.")

    @property
    def truth_probability(self) -> float:
        """p: the chance a respondent reports their true answer."""
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + len(self.categories) - 1)

    @property
    def other_probability(self) -> float:
        """q: the chance of reporting one particular other answer."""
        return 1.0 / (math.exp(self.epsilon) + len(self.categories) - 1)

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
