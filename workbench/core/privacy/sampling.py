"""Amplification by sampling: the guarantee for a person of the population when the data
are a Poisson sample of it (Balle, Barthe & Gaboardi 2018), and the conditions it needs."""

from __future__ import annotations

import math

from workbench.core.privacy.events import Guarantee

SAMPLING_CONDITIONS = (
    "The file must be a sample in which every person of the population was included independently with "
    "the stated probability (Poisson sampling), drawn before and apart from this analysis, and who was "
    "sampled must stay secret: if someone can learn that a person is in the file, the guarantee for that "
    "person is the one without amplification."
)


def amplified_by_sampling(guarantee: Guarantee, rate: float) -> Guarantee:
    """The guarantee for a person of the population when the data are a Poisson sample with
    inclusion probability ``rate``: ε' = ln(1 + rate·(e^ε − 1)), δ' = rate·δ (Balle, Barthe &
    Gaboardi 2018, Thm 8, add/remove neighbours). It applies to everything released from the
    same sample together, so it is applied to a total, never to each release separately."""
    if not 0 < rate <= 1:
        raise ValueError(f"a sampling rate lies in (0, 1], not {rate!r}")
    epsilon = math.log1p(rate * math.expm1(guarantee.epsilon))
    return Guarantee(epsilon, rate * guarantee.delta, f"{guarantee.method}, amplified by sampling at rate {rate:g}")
