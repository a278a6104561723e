"""Error of the noise, from public inputs only: half-widths of intervals that hold the noise.

Discrete Laplace with scale b has P(Z = z) proportional to a^|z|, a = exp(-1/b), so
P(|Z| > t) = 2 a^(t+1) / (1 + a) exactly. For the discrete Gaussian with parameter sigma,
P(Z > t) is at most the continuous Gaussian tail beyond t (its normaliser is at least
that of the continuous density), so the continuous quantile, rounded up, is a valid and
nearly tight bound.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist
from typing import Callable, Sequence

import numpy as np


def _check_confidence(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must lie strictly between 0 and 1, not {confidence!r}")


def discrete_laplace_tail(scale: float, t: int) -> float:
    """P(|Z| > t) for the discrete Laplace distribution with this scale (t >= 0)."""
    log_a = -1.0 / scale
    return 2.0 * math.exp((t + 1) * log_a) / (1.0 + math.exp(log_a))


def discrete_laplace_halfwidth(scale: float, confidence: float) -> int:
    """Smallest integer t >= 0 with P(|Z| > t) <= 1 - confidence."""
    _check_confidence(confidence)
    log_a = -1.0 / scale
    needed = (math.log(2.0) - math.log1p(math.exp(log_a)) - math.log(1.0 - confidence)) / -log_a
    t = max(0, math.ceil(needed) - 1)
    if scale > 1e6:  # past float resolution of the tail: stay on the conservative side by one unit
        return t + 1
    while t > 0 and discrete_laplace_tail(scale, t - 1) <= 1.0 - confidence:
        t -= 1
    while discrete_laplace_tail(scale, t) > 1.0 - confidence:
        t += 1
    return t


def discrete_gaussian_halfwidth(sigma: float, confidence: float) -> int:
    """An integer t with P(|Z| > t) <= 1 - confidence for the discrete Gaussian (conservative)."""
    _check_confidence(confidence)
    return math.ceil(sigma * NormalDist().inv_cdf((1.0 + confidence) / 2.0))


def split_confidence(confidence: float, parts: int) -> float:
    """Per-part confidence so that all parts hold together with ``confidence`` (union bound)."""
    _check_confidence(confidence)
    return 1.0 - (1.0 - confidence) / parts


def noise_probability(kind: str, scale: float, steps: Sequence[float] | np.ndarray) -> np.ndarray:
    """P(noise = z) at the integers ``steps`` (for plots): discrete Laplace exactly; discrete
    Gaussian by its continuous density, which differs from it by less than 1e-8 relative for
    the σ ≥ 1 we use. For the exponential mechanism ("exponential"), the chance that a candidate
    z ranks from the level's position is accepted when visited, exp(-|z| / scale): how many
    candidates lie at each rank depends on the data, so no data-free distribution exists."""
    z = np.asarray(steps, dtype=np.float64)
    if scale <= 0:
        return (z == 0).astype(np.float64)
    if kind == "exponential":
        return np.exp(-np.abs(z) / scale)
    if kind == "laplace":
        a = math.exp(-1.0 / scale)
        return (1 - a) / (1 + a) * np.exp(-np.abs(z) / scale)
    norm = 1.0 / (math.sqrt(2 * math.pi) * scale)
    return norm * np.exp(-(z * z) / (2 * scale * scale))


def _upper_tail(kind: str, scale: float, x: np.ndarray) -> np.ndarray:
    """P(Z > x) for real x (an upper bound for the discrete Gaussian, exact for discrete Laplace)."""
    k = np.floor(x) + 1.0  # P(Z > x) = P(Z >= floor(x) + 1)
    if kind == "laplace":
        log_q = -1.0 / scale
        one_plus_q = 1.0 + math.exp(log_q)
        positive = np.exp(np.maximum(k, 0.0) * log_q) / one_plus_q
        non_positive = 1.0 - np.exp((1.0 - np.minimum(k, 1.0)) * log_q) / one_plus_q
        return np.where(k >= 1, positive, non_positive)
    # the discrete Gaussian's P(Z > t) for integer t is at most the continuous tail beyond t
    t = k - 1.0
    return 0.5 * _erfc(t / (scale * math.sqrt(2.0)))  # erfc(-y) = 2 - erfc(y): one formula for both signs


def _erfc(x: np.ndarray, negatives: slice | None = None) -> np.ndarray:
    """erfc by the Chebyshev fit of Numerical Recipes (fractional error below 1.2e-7), vectorised;
    raised by that error so that tails are never understated. Worked in place (a preview evaluates it
    some eight times per mean and slider move), each element by the same operations in the same order.
    ``negatives``: where the x below 0 are, if the caller knows (else found by a mask)."""
    x = np.asarray(x, dtype=np.float64)
    z = np.abs(x)
    t = np.multiply(z, 0.5)
    t += 1.0
    np.divide(1.0, t, out=t)
    poly = np.multiply(t, 0.17087277)  # Horner's scheme from the innermost coefficient outwards
    for coefficient in (-0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
                        1.00002368):
        poly += coefficient
        poly *= t
    square = np.negative(z)
    square *= z
    square -= 1.26551223
    poly += square  # -z * z - 1.26551223 + t * (...)
    upper = np.exp(poly, out=poly)
    upper *= t
    upper *= 1.0 + 1.2e-7
    negative: slice | np.ndarray = negatives if negatives is not None else ~(x >= 0)
    if negatives is not None or negative.any():
        upper[negative] = 2.0 - upper[negative] * (1.0 - 2.4e-7) / (1.0 + 1.2e-7)
    return upper


def _folded_probabilities(kind: str, scale: float, tail: float) -> tuple[np.ndarray, np.ndarray]:
    """|Z| = 0, 1, 2, ... for integer noise Z, and P(|Z| = m), cut where less than ``tail`` mass is left out.

    Worked out on the non-negative half only (Z is symmetric, its values at -m and m the same to the bit): half
    the work of the whole support, which at a small ε has some hundred thousand values. Worked in place: at a
    small ε each temporary array was megabytes, asked of the system afresh at every slider move; each element
    gets the same operations in the same order (the same values to the bit, tested)."""
    magnitude: np.ndarray
    if kind == "laplace":
        half = discrete_laplace_halfwidth(scale, 1.0 - tail)
        magnitude = _counting(half + 1)
        q = math.exp(-1.0 / scale)
        p = np.negative(magnitude)  # -|m|: m >= 0
        p /= scale
        np.exp(p, out=p)
        p *= (1 - q) / (1 + q)
    else:
        half = math.ceil(scale * NormalDist().inv_cdf(1.0 - tail / 2.0)) + 1
        magnitude = _counting(half + 1)
        p = np.multiply(magnitude, magnitude)
        np.negative(p, out=p)
        p /= 2.0 * scale * scale
        np.exp(p, out=p)  # the weights
        total = np.concatenate([p[:0:-1], p]).sum()  # over the whole support, in its order
        p /= total
        p *= 1.0 - tail  # the cut-off mass is counted as exceeding t below
    at_zero = p[0] + 0.0
    p += p  # P(Z = -m) + P(Z = m), in place
    p[0] = at_zero
    return magnitude, p


_COUNTED = np.arange(0, 1 << 14, dtype=float)  # 0.0, 1.0, 2.0, ...: kept, and grown, by ``_counting``
_COUNTED.setflags(write=False)
_MOST_COUNTED = 1 << 20  # the longest kept: 8 MB


def _counting(stop: int) -> np.ndarray:
    """``np.arange(0, stop, dtype=float)`` (whole numbers, exact), read only: a view of one array kept for every
    call up to ``_MOST_COUNTED``. At a small ε each new array of a megabyte cost page faults at every slider move."""
    global _COUNTED
    if stop <= 0:  # (a slice to a negative stop would count from the end)
        return _COUNTED[:0]
    if stop > _MOST_COUNTED:
        return np.arange(0, stop, dtype=float)
    counted = _COUNTED
    if len(counted) < stop:
        counted = np.arange(0, min(max(stop, 2 * len(counted)), _MOST_COUNTED), dtype=float)
        counted.setflags(write=False)
        _COUNTED = counted
    return counted[:stop]


MAX_SUPPORT = 20_000_000  # noise values enumerated for a combined half-width; beyond, the union bound
_MAX_POINTS = 2_000  # values of |Zb| the bisection evaluates; wider noise is lumped (pessimistically)


_LATTICE_POINTS = 500  # magnitudes of a noise too wide to enumerate: steps of about 2.5% of its scale


@lru_cache(maxsize=256)
def _lumped_magnitudes(kind: str, scale: float, half: int) -> tuple[np.ndarray, np.ndarray]:
    """|Z| on a lattice of at most ``_LATTICE_POINTS`` magnitudes up to ``half``, each block's mass from the tail
    (T(m) = P(|Z| > m), exact for discrete Laplace, an upper bound for the discrete Gaussian) and put at the
    block's largest magnitude: a distribution that dominates |Z| stochastically, so a miss computed with it
    is never understated. The mass beyond ``half`` is left out (the caller counts it as a miss)."""
    points = np.unique(np.ceil(np.linspace(0.0, float(half), _LATTICE_POINTS + 1)))
    tail = np.minimum(1.0, 2.0 * _upper_tail(kind, scale, points))
    mass = np.concatenate([[1.0 - tail[0]], tail[:-1] - tail[1:]])
    return points, np.maximum(mass, 0.0)


@lru_cache(maxsize=1024, typed=True)
def combined_halfwidth(kind: str, scale_a: float, a: float, scale_b: float, b: float, confidence: float) -> float:
    """Smallest t with P(|a Za + b Zb| > t) <= 1 - confidence, Za, Zb independent integer noises.

    Exact up to bisection for discrete Laplace; for the discrete Gaussian it uses the
    continuous tail, an upper bound. Zb is enumerated (its cut-off mass counts as a miss),
    Za through its tail; where Zb is too wide to enumerate, its magnitude is taken on a lattice
    that dominates it (``_lumped_magnitudes``). Never more than the union bound.

    Cached on all its arguments: the ε slider asks for the same noises again (two means of one column, a
    total visited before), and each answer costs some eight evaluations of the miss (``_halved``).
    """
    _check_confidence(confidence)
    beta = 1.0 - confidence
    width = discrete_laplace_halfwidth if kind == "laplace" else discrete_gaussian_halfwidth
    if a == 0 or scale_a == 0 or b == 0 or scale_b == 0:  # one noise (or none) is left: its own half-width
        first = 0.0 if a == 0 or scale_a == 0 else a * width(scale_a, confidence)
        return first if b == 0 or scale_b == 0 else b * width(scale_b, confidence) if not first else first
    each = split_confidence(confidence, 2)
    union = a * width(scale_a, each) + b * width(scale_b, each)
    cut = beta * 1e-4
    magnitude, mass = _folded_magnitudes(kind, scale_b, cut)
    miss = _miss(kind, scale_a, a, b * magnitude, mass, cut)
    at_union = miss(union)
    if at_union > beta:  # never claim less than the union bound guarantees
        return union
    return _halved(miss, beta, union, at_union)


HALVINGS = 30  # of [0, union bound]: the half-width to 1e-9 of the union bound
_SECANT_STEPS = 8  # evaluations at most to close in on the crossing before the halvings


def _halved(miss: Callable[[float], float], beta: float, union: float, at_union: float) -> float:
    """The upper end of [0, ``union``] after ``HALVINGS`` halvings, each keeping the half whose upper end has
    ``miss`` at most ``beta``: the same number as evaluating miss at every middle, in a quarter to a third of the
    evaluations (the ε slider asks for five means' half-widths at every move).

    Miss never grows with t, as computed too: each term is a tail at floor((t ± shift) / a), which rounding and floor
    keep in the order of t; a tail a whole integer further out is smaller by far more than its rounding; and the sum
    of non-negative terms keeps that order (tested against the plain halvings, to the bit). So a middle at or above a
    point where miss is at most beta keeps its lower half without evaluating it, a middle at or below a point where
    miss exceeds beta its upper half; only middles between two such points are evaluated. Secant steps on log miss
    (near linear in t) find two such points close around the crossing first, in a few evaluations."""
    fail, passed = 0.0, union  # miss exceeds beta at fail (at 0, where no middle lies, it need not), not at passed
    close = union * 2.0 ** -(HALVINGS + 3)  # a quarter of the last halving's width
    last, before = (union, math.log(at_union / beta)), None  # the last two points evaluated, with log(miss / beta)
    past, nearest, slow, previous = close, math.inf, 0, at_union
    for _ in range(_SECANT_STEPS):
        if passed - fail <= 4 * close or slow == 2:  # close enough, or miss too steppy for secant steps to help
            break
        point = (fail + passed) / 2  # first the halvings' own first middle
        if before is not None and last[1] != before[1]:
            estimate = last[0] - last[1] * (last[0] - before[0]) / (last[1] - before[1])
            if fail < estimate < passed:  # a little past it, towards the farther end: a good estimate then brackets
                # the crossing closely, and the next closes the other side, rather than creeping up from one side
                if estimate - fail > passed - estimate:
                    point = max(estimate - past, fail + close)
                else:
                    point = min(estimate + past, passed - close)
        missed = miss(point)
        width = passed - fail
        value = math.log(missed / beta)  # only to place the next point: missed decides
        # the last two points of different values (miss is flat between some points: a secant needs a slope)
        before, last = (last if value != last[1] else before), (point, value)
        if missed > beta:
            fail = point
        else:
            passed = point
        same_side = (missed > beta) == (previous > beta)
        previous = missed
        past = 4 * past if same_side else close  # landed short of the crossing again: further past the next estimate
        slow = 0 if passed - fail <= width / 2 or abs(last[1]) < nearest / 4 else slow + 1
        nearest = min(nearest, abs(last[1]))
    low, high = 0.0, union
    for _ in range(HALVINGS):
        middle = (low + high) / 2
        if middle >= passed:
            keeps_lower = True
        elif middle <= fail:
            keeps_lower = False
        else:
            keeps_lower = miss(middle) <= beta
            if keeps_lower:
                passed = middle
            else:
                fail = middle
        low, high = (low, middle) if keeps_lower else (middle, high)
    return high


@lru_cache(maxsize=64)
def _folded_magnitudes(kind: str, scale: float, cut: float) -> tuple[np.ndarray, np.ndarray]:
    """|Z| and its probabilities for ``combined_halfwidth``'s enumerated noise, its mass beyond the ``cut`` left
    out. Cached: the means sharing a count's ε share this count noise (read only, since it is shared)."""
    width = discrete_laplace_halfwidth if kind == "laplace" else discrete_gaussian_halfwidth
    if 2 * width(scale, 1.0 - cut) > MAX_SUPPORT:  # too wide to enumerate (a weighted count's fine grid)
        magnitude, mass = _lumped_magnitudes(kind, scale, width(scale, 1.0 - cut))
    else:
        # Za is symmetric and unimodal, so P(|a Za + c| > t) grows with |c| (Anderson): fold Zb onto
        # |z|, and where it is wide, lump blocks of values at their largest |z| (an upper bound).
        magnitude, mass = _folded_probabilities(kind, scale, cut)
        if len(magnitude) > _MAX_POINTS:
            block = math.ceil(len(magnitude) / _MAX_POINTS)
            edges = np.arange(0, len(magnitude), block)
            mass = np.add.reduceat(mass, edges)
            magnitude = magnitude[np.minimum(edges + block - 1, len(magnitude) - 1)]
    for array in (magnitude, mass):
        array.setflags(write=False)
    return magnitude, mass


def _miss(kind: str, scale: float, a: float, shift: np.ndarray, mass: np.ndarray, cut: float) -> Callable[[float], float]:
    """t -> P(|a Za + b Zb| > t) as ``combined_halfwidth`` bounds it: the sum over |b Zb| = ``shift`` of its
    ``mass`` times P(Za > (t - shift) / a) + P(Za > (t + shift) / a), plus the ``cut``.

    Both tails are taken in one pass over one array (t - shift, then t + shift), in place, and each element
    gets only the branch of the tail that applies to it: the search calls it some eight times per half-width,
    and numpy's per-call cost had dominated it. Element by element the operations, and the sum, are those
    of ``_upper_tail``: the results are the same to the bit."""
    n = len(shift)
    both = np.concatenate([-shift, shift])  # t + (-s) is t - s exactly

    def total(tails: np.ndarray) -> float:
        pairs = tails[:n] + tails[n:]
        pairs *= mass
        return float(np.sum(pairs)) + cut

    # shifts that rise from 0 and a > 0 (a mean's): along the first half (t - shift) k = floor(...) + 1 falls, along
    # the second (t + shift, t >= 0) it is at least 1, so the k below 1 are the first half's last ones, found by a
    # binary search rather than a mask over both halves (the same elements, in the same order)
    # (and scale > 0: the Gaussian's x is divided by it, and a negative one would reverse the order)
    rising = a > 0 and scale > 0 and n > 0 and shift[0] >= 0 and bool(np.all(shift[1:] >= shift[:-1]))

    if kind == "laplace":
        log_q = -1.0 / scale
        one_plus_q = 1.0 + math.exp(log_q)

        def laplace_miss(t: float) -> float:
            k = np.add(t, both)
            k /= a
            np.floor(k, out=k)
            k += 1.0  # P(Z > x) = P(Z >= floor(x) + 1)
            below: slice | np.ndarray | None
            if rising and t >= 0:
                first = n - int(np.searchsorted(k[n - 1::-1], 1.0, side="left"))
                below = slice(first, n) if first < n else None
            else:
                mask = ~(k >= 1)
                below = mask if mask.any() else None
            lower = None
            if below is not None:  # k <= 0: 1 - q^(1 - k) / (1 + q)
                lower = np.subtract(1.0, k[below])
                lower *= log_q
                np.exp(lower, out=lower)
                lower /= one_plus_q
                np.subtract(1.0, lower, out=lower)
                k[below] = 0.0  # no overflow in the line below; replaced after it
            k *= log_q  # k >= 1: q^k / (1 + q)
            np.exp(k, out=k)
            k /= one_plus_q
            if lower is not None:
                k[below] = lower
            return total(k)

        return laplace_miss

    denominator = scale * math.sqrt(2.0)

    def gaussian_miss(t: float) -> float:
        x = np.add(t, both)
        x /= a
        np.floor(x, out=x)
        x += 1.0
        x -= 1.0  # as _upper_tail: t = (floor(x) + 1) - 1
        x /= denominator
        negatives = None
        if rising and t >= 0:  # x below 0 where k below 1: the first half's last ones
            negatives = slice(n - int(np.searchsorted(x[n - 1::-1], 0.0, side="left")), n)
        tails = _erfc(x, negatives)
        tails *= 0.5
        return total(tails)

    return gaussian_miss


SIMULATIONS = 4000  # draws behind a simulated error bound; fixed seed, so a bound is reproducible
_SIMULATION_SEED = 20261123


def simulated_noise(kind: str, scale: float, draws: int, rng: np.random.Generator) -> np.ndarray:
    """Draws of integer noise for simulating an error bound (never for a release: OpenDP does those).

    Discrete Laplace as the difference of two geometric variables (exact); the discrete
    Gaussian as a rounded normal (close for the σ >= 1 we use).
    """
    if scale <= 0:
        return np.zeros(draws)
    if kind == "laplace":
        p = -math.expm1(-1.0 / scale)
        return (rng.geometric(p, draws) - rng.geometric(p, draws)).astype(float)
    return np.rint(rng.normal(0.0, scale, draws))


def simulation_rng() -> np.random.Generator:
    return np.random.default_rng(_SIMULATION_SEED)


def simulated_halfwidth(errors: np.ndarray, confidence: float) -> float:
    """The ``confidence`` point of |error| over simulated releases (rounded up by one draw)."""
    _check_confidence(confidence)
    ordered = np.sort(np.abs(errors))
    index = min(len(ordered) - 1, math.ceil(confidence * len(ordered)))
    return float(ordered[index])


def rank_check_halfwidth(scale: float, alpha: float, left: int, right: int, miss: float) -> float:
    """h with P((1 - α) S_left - α S_right < -h) <= ``miss``, where S_left and S_right are sums of
    ``left`` and ``right`` independent discrete Laplace draws of this scale: the noise of a rank
    check, (1 - α) x (noisy rows left of a point) - α x (noisy rows right of it). By symmetry the
    same h bounds P(noise > h).

    Always available, in microseconds: the Chernoff bound from the noise's moment generating function
    (``_chernoff_rank_check_halfwidth``). For few counts it is tightened by the exact h: up to a scale of
    ``_EXACT_CHECK_SCALE`` the sums are enumerated (at most ``EXACT_CHECK_DRAWS`` counts). Beyond that
    scale (at most ``LATTICE_CHECK_DRAWS`` counts): a discrete Laplace draw is floor(E1) - floor(E2) for
    exponentials E1, E2 whose difference is a continuous Laplace draw, so each differs from a continuous
    one by less than 1, and h is the scale times the continuous sum's quantile plus (1 - α) left + α right;
    that quantile depends on α, ``left``, ``right`` and ``miss`` only (``_unit_laplace_sum_quantile``).

    The caps bound the work and memory by public quantities (issue 41, 5): the enumeration of many counts
    took seconds and hundreds of megabytes, after the noise was drawn and only for the data whose check
    needed it, before anything was charged."""
    if not 0 < miss < 0.5:
        raise ValueError(f"a rank check's miss probability lies strictly between 0 and 0.5, not {miss!r}")
    bound = _chernoff_rank_check_halfwidth(scale, alpha, left, right, miss)
    if scale <= _EXACT_CHECK_SCALE and left + right <= EXACT_CHECK_DRAWS:
        return min(bound, _exact_rank_check_halfwidth(scale, alpha, left, right, miss))
    if scale > _EXACT_CHECK_SCALE and left + right <= LATTICE_CHECK_DRAWS:
        q = _unit_laplace_sum_quantile(alpha, left, right, miss)
        return min(bound, scale * q + (1.0 - alpha) * left + alpha * right)
    return bound


_EXACT_CHECK_SCALE = 10.0  # up to here the sums are enumerated (fast); beyond, a row per count adds < 10% to h
EXACT_CHECK_DRAWS = 64  # counts enumerated at most: arrays of at most 64 x 802 values (under a megabyte)
LATTICE_CHECK_DRAWS = 16  # counts convolved on the lattice at most: arrays of 320,000 values (a few megabytes)


@lru_cache(maxsize=4096)
def _chernoff_rank_check_halfwidth(scale: float, alpha: float, left: int, right: int, miss: float) -> float:
    """A true h for ``rank_check_halfwidth``, by Chernoff's bound: for 0 < t < 1 / (b·max(1 - α, α)),
    P(X > h) <= E[e^(tX)] e^(-th) with X = (1 - α) S_left - α S_right and the discrete Laplace moment generating
    function E[e^(sZ)] = (1 - a)² / ((1 - a e^s)(1 - a e^(-s))), a = e^(-1/b). So every such t gives a valid
    h(t) = (left·log M((1 - α)t) + right·log M(αt) - log miss) / t, and the least over a grid of t is stated
    (raised by a relative 1e-9 for the floating-point arithmetic). Tight to within a few percent of the exact h
    for many counts; O(1) work whatever the counts."""
    weights = [(c, n) for c, n in ((1.0 - alpha, left), (alpha, right)) if n > 0 and c > 0]
    if not weights:
        return 0.0
    rate = 1.0 / scale  # -log a
    reach = rate / max(c for c, _ in weights)  # t must stay below this

    def needed(t: np.ndarray) -> np.ndarray:
        total = np.zeros_like(t)
        for c, n in weights:
            s = c * t
            # log M(s) = 2 log(1 - a) - log(1 - a e^s) - log(1 - a e^-s), each term through expm1 for accuracy
            total += n * (2.0 * math.log(-math.expm1(-rate)) - np.log(-np.expm1(s - rate)) - np.log(-np.expm1(-s - rate)))
        return (total - math.log(miss)) / t

    points = reach * np.linspace(1e-6, 1.0 - 1e-9, 2001)
    best = math.inf
    for _ in range(4):  # the least h(t) on the grid, then on a finer grid around it: every point is a valid h
        values = needed(points)
        i = int(np.argmin(values))
        best = min(best, float(values[i]))
        points = np.linspace(points[max(i - 1, 0)], points[min(i + 1, len(points) - 1)], 201)
    return best * (1.0 + 1e-9)


@lru_cache(maxsize=1024)
def _exact_rank_check_halfwidth(scale: float, alpha: float, left: int, right: int, miss: float) -> float:
    """The same h, exactly: S_left and S_right are enumerated on the integers (their mass beyond the
    reach is below 1e-15), and P((1 - α) S_left - α S_right < -h) summed over S_right's values."""
    left_values, left_mass = _laplace_sum(scale, left)
    right_values, right_mass = _laplace_sum(scale, right)
    left_below = np.concatenate([[0.0], np.cumsum(left_mass)])  # left_below[i] = P(S_left < left_values[i])

    def tail(h: float) -> float:  # P((1 - α) S_left < α S_right - h)
        limit = (alpha * right_values - h) / (1.0 - alpha)
        index = np.clip(np.ceil(limit).astype(np.int64) - left_values[0], 0, left_values.size)
        return float(np.dot(right_mass, left_below[index]))

    low, high = 0.0, 40.0 * scale * (left + right)
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if tail(middle) <= miss else (middle, high)
    return high


@lru_cache(maxsize=64)
def _laplace_sum(scale: float, draws: int) -> tuple[np.ndarray, np.ndarray]:
    """The values and probabilities of a sum of ``draws`` discrete Laplace draws (mass beyond 40 scales
    per draw, below 1e-17, left out), by one FFT power."""
    reach = int(math.ceil(40.0 * scale)) + 1
    one = np.exp(-np.abs(np.arange(-reach, reach + 1)) / scale)
    one /= one.sum()
    size = draws * 2 * reach + 1
    length = 1 << (size - 1).bit_length()
    mass = np.clip(np.fft.irfft(np.fft.rfft(one, length) ** draws, length)[:size], 0.0, None)
    return np.arange(size) - draws * reach, mass


_LATTICE_STEP = 0.005  # in units of the scale; each draw is moved down onto it, so the sum only moves down
_LATTICE_REACH = 50.0  # a unit Laplace draw lies beyond ±50 with probability e^-50


@lru_cache(maxsize=1024)
def _unit_laplace_sum_quantile(alpha: float, left: int, right: int, miss: float) -> float:
    """The least q (on a lattice) with P((1 - α) ΣL - α ΣL' < -q) <= miss for ``left`` and ``right``
    unit continuous Laplace draws, computed so that it can only err upwards: each draw's mass on
    [kδ, (k+1)δ) is put at kδ (the sum can only move down, so the lower tail only grows), and the
    distributions are convolved exactly on that lattice (by FFT, whose rounding is far below ``miss``)."""
    ticks = np.arange(-_LATTICE_REACH, _LATTICE_REACH + _LATTICE_STEP / 2, _LATTICE_STEP)

    def lattice(width: float) -> np.ndarray:  # width * L, L a unit Laplace draw
        if width == 0:
            mass = np.zeros(ticks.size)
            mass[np.searchsorted(ticks, 0.0)] = 1.0
            return mass
        cdf = np.where(ticks < 0, 0.5 * np.exp(np.minimum(ticks, 0) / width), 1 - 0.5 * np.exp(-np.maximum(ticks, 0) / width))
        mass = np.diff(np.append(cdf, 1.0))  # [t_k, t_k+1); the last lattice point takes the upper tail
        mass[0] += cdf[0]  # below -50: far below any miss probability asked for
        return mass

    draws = left + right
    size = draws * (ticks.size - 1) + 1
    length = 1 << (size - 1).bit_length()
    spectrum = np.fft.rfft(lattice(1.0 - alpha), length) ** left * np.fft.rfft(lattice(alpha), length) ** right
    mass = np.clip(np.fft.irfft(spectrum, length)[:size], 0.0, None)
    values = draws * ticks[0] + _LATTICE_STEP * np.arange(size)  # the lattice of the sum
    below = np.cumsum(mass)  # P(sum <= values[i])
    i = int(np.searchsorted(below, miss, side="right"))  # below[i - 1] <= miss < below[i]
    return float(-values[i])  # P(sum < values[i]) = below[i - 1] <= miss
