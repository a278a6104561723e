"""Noise mechanisms: calibrated and sampled by OpenDP, on integers only.

Every query is integer-valued (see ``sensitivity``), and OpenDP samples the discrete
Laplace and discrete Gaussian distributions exactly on integers, so no floating-point
artefact can weaken the guarantee (Mironov 2012; Canonne, Kamath & Steinke 2020).
The privacy of each calibrated mechanism is checked by OpenDP's own privacy map, not
by a formula written here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from workbench.core.errors import BudgetError, noise_drawn
from workbench.core.privacy import opendp_api as dp
from workbench.core.privacy.accuracy import discrete_gaussian_halfwidth, discrete_laplace_halfwidth
from workbench.core.real import is_finite_real

dp.enable_features("contrib")


class MechanismKind(str, Enum):
    LAPLACE = "laplace"  # pure epsilon-DP
    GAUSSIAN = "gaussian"  # (epsilon, delta)-DP, via zero-concentrated DP
    EXPONENTIAL = "exponential"  # pure epsilon-DP selection among candidates (quantiles): permute-and-flip

    @property
    def title(self) -> str:
        return {
            "laplace": "Laplace (discrete)",
            "gaussian": "Gaussian (discrete)",
            "exponential": "exponential (quantile selection)",
        }[self.value]


@dataclass(frozen=True)
class Noise:
    """A calibrated mechanism for one integer query: what it costs and how wide it is."""

    kind: MechanismKind
    sensitivity: float  # L1 for Laplace, L2 for Gaussian, in the query's integer units
    scale: float  # Laplace scale b, or Gaussian standard deviation sigma, in integer units
    epsilon: float
    delta: float

    def sample(self, exact: Sequence[int] | np.ndarray) -> np.ndarray:
        """Add noise to exact integer answers. Only OpenDP draws the noise (DESIGN rule 4).

        Each answer is first clamped into ±``INTEGER_LIMIT``: OpenDP adds the noise on 64-bit integers and
        refuses a larger input, so a sum of more than 2^30 rows at the bounds' largest magnitude made the
        release fail, after other statistics' noise was drawn and before anything was charged, depending
        on the data (issue 41, 5). Clamping moves no two answers further apart (it is 1-Lipschitz in each
        coordinate), so the sensitivity, and OpenDP's privacy map at this scale, hold for the clamped
        answers: sampling cannot fail on any data. An answer the clamp changed is flagged from the noisy
        value (``may_be_clamped``). Drawing the noise on 0 and adding the exact answer in Python would not
        do: OpenDP saturates its result at the 64-bit limits, so the noise drawn on 0 is cut off there and
        the answer plus it would not be ε-DP in that far tail."""
        if self.kind is MechanismKind.EXPONENTIAL:
            raise TypeError("the exponential mechanism selects a candidate (select_quantile); it adds no noise")
        values = [min(max(int(v), -INTEGER_LIMIT), INTEGER_LIMIT) for v in np.atleast_1d(np.asarray(exact, dtype=object))]
        if self.scale == 0:
            return np.asarray(values, dtype=object)
        noise_drawn()  # before OpenDP's call: a stop during it is charged (``errors.drawing_noise``)
        return np.asarray(_sampler(self.kind, self.scale)(values), dtype=object)

    def may_be_clamped(self, noisy: Sequence[int]) -> bool:
        """Whether a noisy answer lies so near ±``INTEGER_LIMIT`` that its exact answer may have been clamped
        there by ``sample``: within the half-width the noise exceeds only once in a billion draws
        (``CLAMP_FLAG_CONFIDENCE``), not the report's 95%, which would leave one clamped answer in 40 unflagged.
        Post-processing of the noisy answers."""
        if self.kind is MechanismKind.EXPONENTIAL:
            return False
        reach = INTEGER_LIMIT - self.halfwidth(CLAMP_FLAG_CONFIDENCE)
        return any(abs(int(v)) >= reach for v in noisy)

    def halfwidth(self, confidence: float) -> int:
        """Smallest integer t with P(|noise| > t) <= 1 - confidence."""
        if self.scale == 0:
            return 0
        if self.kind is MechanismKind.LAPLACE:
            return discrete_laplace_halfwidth(self.scale, confidence)
        if self.kind is MechanismKind.EXPONENTIAL:
            return quantile_rank_halfwidth(self.scale, confidence)
        return discrete_gaussian_halfwidth(self.scale, confidence)

    @property
    def variance(self) -> float:
        """The variance of one noise value: discrete Laplace 2a / (1 - a)², a = e^(-1/b); the discrete
        Gaussian's is at most σ² (its parameter). Weights a least-squares fit; bounds a tail by Chebyshev."""
        if self.scale == 0:
            return 0.0
        if self.kind is MechanismKind.LAPLACE:
            a = math.exp(-1.0 / self.scale)
            return 2.0 * a / (1.0 - a) ** 2
        if self.kind is MechanismKind.EXPONENTIAL:
            raise TypeError("the exponential mechanism selects a candidate; it adds no noise with a variance")
        return self.scale**2

    def select_quantile(self, values: np.ndarray, candidates: Sequence[float], alpha: float) -> float:
        """One of ``candidates``, likelier the closer its rank is to ``alpha`` of the values (``select_by_ranks``
        on the values' ranks)."""
        ordered = np.sort(np.asarray(values, dtype=np.float64))
        points = np.asarray(candidates, dtype=np.float64)
        below = np.searchsorted(ordered, points, side="left")
        at_or_below = np.searchsorted(ordered, points, side="right")
        return float(candidates[self.select_by_ranks(below, at_or_below, len(ordered), alpha)])

    def select_by_ranks(self, below: np.ndarray, at_or_below: np.ndarray, total: int, alpha: float) -> int:
        """The index of the candidate chosen for the ``alpha`` quantile, from each candidate's rows below it
        and at or below it among ``total``: OpenDP's quantile score of each candidate (``quantile_scores``),
        then OpenDP's noisy max on the scores, as ``make_private_quantile`` does (permute-and-flip, pure DP).
        Counts, not values, so that an engine which never hands rows to Python can answer them."""
        if self.kind is not MechanismKind.EXPONENTIAL:
            raise TypeError(f"a {self.kind.value} mechanism cannot select a quantile")
        scores = quantile_scores(below, at_or_below, total, alpha)
        noise_drawn()  # before OpenDP's call: a stop during it is charged (``errors.drawing_noise``)
        # handed over as a numpy array of u64 (OpenDP reads its buffer): a list of 10,001 Python integers took
        # OpenDP's converter longer to check one by one than the selection itself; the same scores either way
        return int(_score_selection(alpha, self.scale)(np.ascontiguousarray(scores, dtype=np.uint64)))


MAX_SENSITIVITY = float(2**62)  # integer noise is drawn on 64-bit integers by OpenDP
INTEGER_LIMIT = 2**62  # exact answers are clamped into ±this before OpenDP adds noise (Noise.sample)
CLAMP_FLAG_CONFIDENCE = 1 - 1e-9  # a clamped answer goes unflagged at most once in a billion (Noise.may_be_clamped)


def calibrate(
    kind: MechanismKind, sensitivity: float, epsilon: float, delta: float = 0.0, verified: bool = True
) -> Noise:
    """The least noise that makes a query of this sensitivity (epsilon, delta)-DP.

    ``verified=False`` skips OpenDP's check of the scale (which can raise it by a few
    parts in a billion): for previews that must keep up with a slider, never for a release.
    """
    check_epsilon(epsilon)
    if kind is MechanismKind.EXPONENTIAL:
        raise ValueError("the exponential mechanism is calibrated per quantile level: use calibrate_quantile")
    if sensitivity == 0:
        return Noise(kind, 0.0, 0.0, 0.0, 0.0)
    if sensitivity >= MAX_SENSITIVITY:
        raise BudgetError(
            f"One person can change this statistic by {sensitivity:.3g} steps of its grid, more than noise can be "
            "calibrated for (the rows a person may have times the width of the bounds). Protect fewer rows per "
            "person, or narrow the bounds."
        )
    if kind is MechanismKind.LAPLACE:
        scale = _laplace_scale(int(sensitivity), epsilon) if verified else sensitivity / epsilon
        return Noise(kind, sensitivity, scale, epsilon, 0.0)
    check_delta(delta)
    if verified:
        scale = _gaussian_scale(float(sensitivity), epsilon, delta)
    else:
        scale = sensitivity / math.sqrt(2.0 * _cached_largest_rho(epsilon, delta))
    return Noise(kind, sensitivity, scale, epsilon, delta)


QUANTILE_CANDIDATES = 10_001  # a grid of 10,000 steps between the bounds: a step is 0.01% of the range


@lru_cache(maxsize=256)
def quantile_candidates(lower: float, upper: float) -> tuple[float, ...]:
    """The public candidates of a quantile: ``QUANTILE_CANDIDATES`` evenly spaced points of the bounds."""
    return tuple(float(c) for c in np.linspace(lower, upper, QUANTILE_CANDIDATES))


@lru_cache(maxsize=64)
def bounds_candidates(lower: float, upper: float, per_decade: int = 20) -> tuple[float, ...]:
    """Public candidates for a bounds search over [lower, upper]: 0 and ±10^(j / per_decade) from
    1e-3 to the limits (a relative step of 12%), so that any order of magnitude is found. Few
    candidates matter: every empty stretch of them competes with the right answer."""
    magnitudes = 10.0 ** (np.arange(-3 * per_decade, 16 * per_decade + 1) / per_decade)
    points = np.concatenate([-magnitudes[::-1], [0.0], magnitudes])
    return tuple(float(p) for p in points[(points >= lower) & (points <= upper)])


def quantile_rank_halfwidth(scale: float, confidence: float, candidates: int = QUANTILE_CANDIDATES) -> int:
    """Ranks t such that the selected candidate's score is within t of the best candidate's
    with probability at least ``confidence``, whatever the data.

    The score is a candidate's distance in ranks from the level's position. OpenDP selects by
    permute-and-flip (McKenna & Sheldon 2020): candidates are visited in random order and one
    that is d ranks worse than the best is accepted with probability q = exp(-d / scale) when
    visited; the best is always accepted. A miss (a candidate more than t ranks worse) is likeliest
    when every other candidate lies just over t ranks worse: making a far candidate nearer, or a
    near one (within t) farther, can only raise the chance that the first accepted is a miss. The
    best then wins when all visited before it were refused, with probability
    (1 - (1 - q)^C) / (C q) for C candidates, and t is the least whole number of ranks whose q
    keeps the miss probability within 1 - confidence. Data with a tie at the best candidate and
    nothing near it attain this, so the bound cannot be lowered without knowing the data."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, not {confidence!r}")
    if 1.0 - 1.0 / candidates <= 1.0 - confidence:
        return 0  # even a uniform choice among the candidates hits the best often enough
    return math.ceil(scale * -_log_acceptance_at_miss(confidence, candidates))


@lru_cache(maxsize=256)
def _log_acceptance_at_miss(confidence: float, candidates: int) -> float:
    """The log q at which permute-and-flip's miss probability is 1 - confidence: it depends on
    the confidence and the number of candidates only, so a preview that moves the scale reuses it."""

    def miss(log_q: float) -> float:
        q = math.exp(log_q)
        return 1.0 + math.expm1(candidates * math.log1p(-q)) / (candidates * q)

    low, high = -800.0, 0.0  # miss(low) ~ C q / 2 is far below 1 - confidence; miss(0) = 1 - 1/C above it
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if miss(middle) <= 1.0 - confidence else (low, middle)
    return low


def person_distance(k: int, substitute: bool) -> int:
    """How many rows differ between neighbours (OpenDP's symmetric distance): a person's k rows
    appear or vanish, or under substitute k rows go and k others come."""
    return 2 * k if substitute else k


def calibrate_quantile(distance: int, alpha: float, epsilon: float, verified: bool = True) -> Noise:
    """The least scale that makes the ``alpha``-quantile of a person's ``distance`` rows ε-DP.

    OpenDP's map is ε = distance · 2·max(α, 1 - α) / scale; the scale from this formula is
    checked by that map and raised in tiny steps until OpenDP agrees (``verified``).
    ``sensitivity`` is stated in ranks: how far one person can move a candidate's score.
    """
    check_epsilon(epsilon)
    if not 0 < alpha < 1:
        raise ValueError(f"a quantile level must lie strictly between 0 and 1, not {alpha!r}")
    reach = distance * max(alpha, 1.0 - alpha)
    scale = 2.0 * reach / epsilon
    if verified:
        scale = _verified_quantile_scale(distance, alpha, epsilon)
    return Noise(MechanismKind.EXPONENTIAL, reach, scale, epsilon, 0.0)


@lru_cache(maxsize=4096)
def _verified_quantile_scale(distance: int, alpha: float, epsilon: float) -> float:
    """The formula's scale, raised until OpenDP's map accepts it, in a bounded number of steps.

    OpenDP turns α into a fraction before it computes the privacy loss, so for a level such as
    1/3 or 0.123456789 its loss exceeds the formula's by a few parts in 10^5: far more than an
    ulp, and a search in ulps would take ~10^11 steps. The loss is inversely proportional to the
    scale, so one multiplication by loss/ε lands on (or a rounding error below) the answer; each
    further step widens the margin geometrically, so the search ends within a few dozen checks.
    """
    scale = 2.0 * distance * max(alpha, 1.0 - alpha) / epsilon
    moved = _score_transformation(alpha).map(distance)  # how far the scores can move: what the selection's map reads
    return _least_accepted_scale(lambda s: _score_selection(alpha, s).map(moved), scale, epsilon)


def _least_accepted_scale(loss: Callable[[float], float], scale: float, epsilon: float) -> float:
    """``scale`` raised until OpenDP's privacy ``loss`` at it is at most ε, in at most ``_MAX_SCALE_STEPS``
    checks: the loss falls as 1/scale, so scaling by loss/ε nearly lands on the answer, and the margin
    added on top doubles at each further check."""
    for step in range(_MAX_SCALE_STEPS):
        spent = loss(scale)
        if spent <= epsilon:
            return scale
        scale = max(scale * (spent / epsilon), math.nextafter(scale, math.inf)) * (1.0 + 1e-15 * 2.0 ** step)
    raise BudgetError(  # unreachable in practice: the margin has grown past 1,000x by now
        f"OpenDP did not accept any noise scale for ε = {epsilon:g}. Choose another ε (or a simpler quantile level)."
    )


_MAX_SCALE_STEPS = 60  # the margin above the formula reaches 1e-15 * 2^60 > 1,000x: every search ends here


def quantile_scores(below: np.ndarray, at_or_below: np.ndarray, total: int, alpha: float) -> np.ndarray:
    """OpenDP's score of each candidate c (``make_quantile_score_candidates``; smaller is better):
    |(d - n) * min(#(x < c), m) - n * min(#(x > c), m)|, with α = n / d as OpenDP turns it into a fraction and
    m = (2^64 - 1) // d the size limit OpenDP counts up to, so that no score overflows (on unsigned 64-bit
    integers, as OpenDP's). Tested equal to OpenDP's own transformation on the values."""
    numerator, denominator = quantile_fraction(alpha)
    limit = np.uint64((2**64 - 1) // denominator)
    below = np.minimum(np.asarray(below, dtype=np.uint64), limit)
    above = np.minimum(np.uint64(total) - np.asarray(at_or_below, dtype=np.uint64), limit)
    left, right = np.uint64(denominator - numerator) * below, np.uint64(numerator) * above
    return np.where(left >= right, left - right, right - left)


QUANTILE_LEVEL_DENOMINATOR = 10_000  # OpenDP's quantile score computes with levels in ten-thousandths


@lru_cache(maxsize=256)
def quantile_fraction(alpha: float) -> tuple[int, int]:
    """α as OpenDP's quantile score turns it into a fraction n / d, read off the scores of one value between
    two candidates: (d - n) * 0 - n * 1 and (d - n) * 1 - n * 0. For a level OpenDP can use as it is
    (``quantile_level_fraction``), that level's own fraction."""
    return _opendp_fraction(opendp_level(alpha))


def _opendp_fraction(alpha: float) -> tuple[int, int]:
    numerator, rest = _raw_score_transformation(alpha)([0.5])
    return int(numerator), int(numerator) + int(rest)


@lru_cache(maxsize=256)
def quantile_level_fraction(alpha: float) -> tuple[int, int] | None:
    """The fraction n / d, equal to α, with which OpenDP's quantile score can compute: α's own, if its
    denominator (a power of two) is below ``QUANTILE_LEVEL_DENOMINATOR``; else k / 10,000 if α is the float
    nearest to that (a level with at most four decimals). None for any other level: OpenDP (without a known
    size) would replace it by ⌊α · 10,000⌋ / 10,000, so 0.123456789 would select the 0.1234 quantile and
    1e-6 the smallest value (issue 41, 6)."""
    exact = Fraction(alpha)
    if exact.denominator < QUANTILE_LEVEL_DENOMINATOR:
        return exact.numerator, exact.denominator
    k = round(alpha * QUANTILE_LEVEL_DENOMINATOR)
    if 0 < k < QUANTILE_LEVEL_DENOMINATOR and k / QUANTILE_LEVEL_DENOMINATOR == alpha:
        return k, QUANTILE_LEVEL_DENOMINATOR
    return None


@lru_cache(maxsize=256)
def opendp_level(alpha: float) -> float:
    """The float handed to OpenDP for the level α, so that the fraction it computes with is α's own
    (``quantile_level_fraction``). OpenDP truncates α · 10,000, and for 573 of the 9,999 levels with four
    decimals (0.0003 among them) the rounded product lies just below the whole number, so OpenDP would
    compute with 0.0002: α is raised by a few ulps until OpenDP's fraction is the intended one. A level
    without such a fraction is returned as it is (statistics refuse it; see ``quantiles.level_problem``)."""
    fraction = quantile_level_fraction(alpha)
    if fraction is None or fraction[1] != QUANTILE_LEVEL_DENOMINATOR:
        return alpha
    candidate = alpha
    for _ in range(64):
        if _opendp_fraction(candidate) == fraction:
            return candidate
        candidate = math.nextafter(candidate, math.inf)
    raise AssertionError(f"no float near {alpha!r} makes OpenDP compute with {fraction[0]}/{fraction[1]}")


@lru_cache(maxsize=256)
def _score_transformation(alpha: float) -> Any:
    return _raw_score_transformation(opendp_level(alpha))


@lru_cache(maxsize=256)
def _raw_score_transformation(alpha: float) -> Any:
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    return dp.t.make_quantile_score_candidates(domain, dp.symmetric_distance(), [0.0, 1.0], alpha)


@lru_cache(maxsize=256)
def _score_selection(alpha: float, scale: float) -> Any:
    """OpenDP's noisy max (smallest score) on integer scores, at ``scale`` in rows: the scores count d per
    row, so the noise is ``scale * d`` on them. Its privacy map equals ``make_private_quantile``'s (tested)."""
    _, denominator = quantile_fraction(alpha)
    scores = dp.vector_domain(dp.atom_domain(T="u64"))
    return dp.m.make_noisy_max(scores, dp.linf_distance(T="u64"), dp.max_divergence(), scale * denominator, negate=True)


@lru_cache(maxsize=64)
def _quantile_measurement(candidates: tuple[float, ...], alpha: float, scale: float) -> Any:
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    return dp.m.make_private_quantile(domain, dp.symmetric_distance(), dp.max_divergence(), list(candidates),
                                      opendp_level(alpha), scale)


MIN_EPSILON = 1e-9  # below it a noise scale may not even be a finite number


def check_epsilon(epsilon: float) -> None:
    if not is_finite_real(epsilon):
        raise BudgetError(f"ε must be a positive number, not {epsilon!r}.")
    if epsilon <= 0:
        raise BudgetError(f"ε must be greater than 0 (it is {epsilon:g}); a smaller ε means more privacy.")
    if epsilon < MIN_EPSILON:
        raise BudgetError(
            f"ε = {epsilon:g} is so small that the noise would swamp any result (ε below {MIN_EPSILON:g} is not "
            "accepted). Give this statistic a larger share of the budget, or leave it out."
        )
    if epsilon > 100:
        raise BudgetError(
            f"ε = {epsilon:g} gives no meaningful privacy (a 50% prior could rise to certainty). "
            "Choose ε of at most 100; values between 0.1 and 5 are usual."
        )


def check_delta(delta: float) -> None:
    if not is_finite_real(delta):
        raise BudgetError(f"δ must be a number between 0 and 1, not {delta!r}.")
    if not 0 < delta < 1:
        raise BudgetError(
            f"The Gaussian mechanism needs δ strictly between 0 and 1 (it is {delta:g}). "
            "Choose a δ well below 1 / (number of persons), e.g. 1e-6, or use the Laplace mechanism."
        )


def _laplace_measurement(scale: float) -> Any:
    return dp.m.make_laplace(dp.vector_domain(dp.atom_domain(T="i64")), dp.l1_distance(T="i64"), scale=scale)


def _gaussian_measurement(scale: float) -> Any:
    return dp.m.make_gaussian(dp.vector_domain(dp.atom_domain(T="i64")), dp.l2_distance(T=float), scale=scale)


@lru_cache(maxsize=4096)
def _laplace_scale(sensitivity: int, epsilon: float) -> float:
    """sensitivity / ε, raised until OpenDP's map agrees (float rounding)."""
    return _least_accepted_scale(lambda s: _laplace_measurement(s).map(sensitivity), sensitivity / epsilon, epsilon)


def _approx_dp(scale: float, delta: float) -> Any:
    return dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(_gaussian_measurement(scale)), delta=delta)


@lru_cache(maxsize=4096)
def _gaussian_scale(sensitivity: float, epsilon: float, delta: float) -> float:
    """The least sigma that OpenDP's privacy map accepts for (epsilon, delta).

    A candidate comes from the zCDP conversion of Canonne, Kamath & Steinke (2020) computed
    here (fast); OpenDP then checks it, and it is raised in tiny steps until OpenDP agrees.
    If it does not agree quickly, OpenDP's own binary search decides (slow but authoritative).
    """
    sigma = sensitivity / math.sqrt(2.0 * _largest_rho(epsilon, delta))
    for _ in range(40):
        if _approx_dp(sigma, delta).check(sensitivity, (epsilon, delta)):
            return sigma
        sigma *= 1.0 + 1e-9 * 4.0 ** _
    # At sigma_low, rho = 4 epsilon > epsilon: too little noise, and small enough not to overflow
    # OpenDP's conversion. At sigma_high, rho is negligible: enough noise for any delta.
    sigma_low = sensitivity / math.sqrt(8.0 * epsilon)
    sigma_high = sensitivity * (10.0 + 1e3 / epsilon)
    return dp.binary_search_param(
        lambda s: _approx_dp(s, delta), d_in=sensitivity, d_out=(epsilon, delta), bounds=(sigma_low, sigma_high)
    )


def zcdp_to_epsilon(rho: float, delta: float) -> float:
    """epsilon of rho-zCDP at delta: inf over alpha > 1 of
    rho*alpha + (log(1/delta) + (alpha-1) log(1 - 1/alpha) - log(alpha)) / (alpha - 1)  (CKS20, Prop. 12)."""

    log_inv_delta = -math.log(delta)  # not log(1 / delta): 1 / 5e-324 overflows
    start = _even_points(1.0 + 1e-9, max(2.0, 10.0 * (1.0 + math.sqrt(log_inv_delta / rho))), 129)
    least = _least_value(lambda alpha: rho * alpha + _cks20_term(alpha, log_inv_delta), start, rounds=9)
    return max(0.0, least)


def _largest_rho(epsilon: float, delta: float) -> float:
    """The largest rho whose CKS20 conversion gives at most epsilon at delta.

    epsilon(rho) <= epsilon iff some alpha has rho*alpha + g(alpha) <= epsilon, so the answer
    is max over alpha of (epsilon - g(alpha)) / alpha: one maximisation, searched on a log
    grid and refined by ternary search (the candidate is then checked by OpenDP). The first
    round's g on the log grid depends on delta alone (``_cks20_on_grid``): an ε slider reuses it.
    """
    log_inv_delta = -math.log(delta)  # not log(1 / delta): 1 / 5e-324 overflows
    first = -(epsilon - _cks20_on_grid(log_inv_delta)) / _RHO_GRID
    least = _least_value(lambda alpha: -(epsilon - _cks20_term(alpha, log_inv_delta)) / alpha, _RHO_GRID, rounds=5,
                         first=first)
    return max(0.0, -least)


_RHO_GRID = 1.0 + 10.0 ** (np.arange(-320, 321) / 40.0)  # alpha - 1 from 1e-8 to 1e8: ``_largest_rho``'s first round
_RHO_GRID.setflags(write=False)


@lru_cache(maxsize=64)
def _cks20_on_grid(log_inv_delta: float) -> np.ndarray:
    """``_cks20_term`` on ``_RHO_GRID``, the same values as computed there (read only, since it is shared)."""
    terms = _cks20_term(_RHO_GRID, log_inv_delta)
    terms.setflags(write=False)
    return terms


def _cks20_term(alpha: np.ndarray, log_inv_delta: float) -> np.ndarray:
    """(log(1/δ) + (α-1) log(1 - 1/α) - log α) / (α - 1): the part of CKS20's conversion that is not ρα."""
    return (log_inv_delta + (alpha - 1) * np.log1p(-1 / alpha) - np.log(alpha)) / (alpha - 1)


def _least_value(f: Callable[[np.ndarray], np.ndarray], points: np.ndarray, rounds: int,
                 first: np.ndarray | None = None) -> float:
    """The least value of a unimodal ``f`` over ``points``' range, found over arrays (a preview
    recalibrates on every slider move): each round evaluates f on the bracket around the best point
    so far, split into as many steps as ``points`` has. ``first``: f on ``points``, if known already."""
    least = math.inf
    for round_ in range(rounds):
        values = first if round_ == 0 and first is not None else f(points)
        best = int(np.argmin(values))
        least = min(least, float(values[best]))
        points = _even_points(float(points[max(best - 1, 0)]), float(points[min(best + 1, len(points) - 1)]), len(points))
    return least


def _even_points(start: float, stop: float, num: int) -> np.ndarray:
    """``np.linspace(start, stop, num)`` for floats and ``num`` >= 2 (numpy 1.26 to 2.4's ``function_base.linspace``,
    endpoint=True), by its operations in its order (the same points to the bit, tested), without its handling of
    arrays and types: a tenth of its time, and the searches
    above call it some twenty times per ε-slider move."""
    delta = stop - start
    points = np.arange(0, num, dtype=float)
    step = delta / (num - 1)
    if step == 0:  # numpy's way for denormal steps
        points /= num - 1
        points *= delta
    else:
        points *= step
    points += start
    points[-1] = stop
    return points


_cached_largest_rho = lru_cache(maxsize=4096)(_largest_rho)


@lru_cache(maxsize=256)
def _sampler(kind: MechanismKind, scale: float) -> Any:
    return _laplace_measurement(scale) if kind is MechanismKind.LAPLACE else _gaussian_measurement(scale)
