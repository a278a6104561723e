"""Empirical privacy loss of a mechanism, with Clopper-Pearson bounds.

Sample the mechanism many times on two neighbouring inputs, count how often each of a
few events happens, and bound the probability of each event from both sides. The
largest ε consistent with what was seen, for a given δ, is

    max over events E of  ln( (lower bound of P[M(x') in E] - δ) / upper bound of P[M(x) in E] )

(both directions). If the mechanism is (ε, δ)-DP, this lower bound exceeds ε only when a
Clopper-Pearson interval fails, which happens with probability at most ``alpha`` over all
events and directions together (each interval is taken at level alpha / (2 * intervals)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from scipy.stats import beta


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Two-sided (1 - alpha) interval for a binomial probability."""
    low = 0.0 if successes == 0 else float(beta.ppf(alpha / 2, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
    return low, high


@dataclass(frozen=True)
class LossEstimate:
    epsilon_lower_bound: float  # with confidence 1 - alpha, the true ε is at least this
    worst_event: str


def epsilon_from_events(
    events_x: dict[str, np.ndarray], events_neighbour: dict[str, np.ndarray], delta: float = 0.0, alpha: float = 1e-6
) -> LossEstimate:
    """Lower confidence bound on ε from events given as boolean arrays over the samples, both directions."""
    level = alpha / (2 * 2 * len(events_x))  # two intervals per event and direction, two directions
    best = LossEstimate(-math.inf, "")
    for name in events_x:
        hits = {"x": events_x[name], "x'": events_neighbour[name]}
        for a, b in (("x'", "x"), ("x", "x'")):
            a_low, _ = clopper_pearson(int(hits[a].sum()), len(hits[a]), level)
            _, b_high = clopper_pearson(int(hits[b].sum()), len(hits[b]), level)
            if a_low - delta <= 0 or b_high <= 0:
                continue
            loss = math.log((a_low - delta) / b_high)
            if loss > best.epsilon_lower_bound:
                best = LossEstimate(loss, f"{name} ({a} vs {b})")
    return best


def threshold_events(samples: np.ndarray, thresholds: Sequence[float]) -> dict[str, np.ndarray]:
    samples = np.asarray(samples, dtype=float)
    events = {f"y >= {t:g}": samples >= t for t in thresholds}
    events.update({f"y < {t:g}": samples < t for t in thresholds})
    return events


def empirical_epsilon(
    samples_x: np.ndarray,
    samples_neighbour: np.ndarray,
    thresholds: Sequence[float],
    delta: float = 0.0,
    alpha: float = 1e-6,
) -> LossEstimate:
    """Lower confidence bound on ε from events {y >= t} and {y < t} of a scalar output."""
    return epsilon_from_events(
        threshold_events(samples_x, thresholds), threshold_events(samples_neighbour, thresholds), delta, alpha
    )
