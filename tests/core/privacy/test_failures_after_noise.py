"""Nothing that happens after the noise is drawn may fail, or take long, for some data only (issue 41, 5).

A release draws the noise of each statistic in turn and charges the ledger only when all are done: a
failure in between depends on the exact data and reveals it without a charge. OpenDP refused an exact sum of
2^63 or more (adding noise on 64-bit integers), and the quantile interval's check enumerated noise sums whose
size grew with the number of cuts, taking seconds and hundreds of megabytes for the data that needed it.
"""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from workbench.core.data.aggregates import Aggregate, Answer
from workbench.core.data.schema import Neighbouring, NumericColumn, Schema
from workbench.core.privacy.mechanisms import MechanismKind, Noise, calibrate
from workbench.core.statistics.moments import Mean, Sum

LIMIT = 2**62


@pytest.mark.parametrize("kind", [MechanismKind.LAPLACE, MechanismKind.GAUSSIAN])
def test_noise_is_added_to_any_exact_integer_without_failing(kind):
    noise = calibrate(kind, 100, 1.0, 1e-6)
    for exact in (2**63, 2**63 + 12345, 10**30, -(2**70)):
        (value,) = noise.sample([exact])  # OpenDP raised "not representable by i64" on 2^63 and beyond
        assert abs(int(value) - math.copysign(LIMIT, exact)) < 100_000
        assert noise.may_be_clamped([value])  # flagged but once in a billion
    (value,) = noise.sample([12345])
    assert abs(int(value) - 12345) < 100_000 and not noise.may_be_clamped([value])


class HugeSums:
    """An engine whose every sum is ``total`` (as 2^31 rows at the bounds' largest magnitude would give):
    no test can hold that many rows."""

    def __init__(self, schema: Schema, total: int) -> None:
        self.schema, self.total = schema, total

    @property
    def rows(self) -> int:
        return 2**31

    def aggregate(self, request: Aggregate) -> Answer:
        total = self.total if request.value is not None else 2**31
        return Answer(np.arange(request.size), [total] * request.size, request.size)


@pytest.mark.parametrize("statistic", [Sum("x"), Mean("x")])
def test_a_sum_beyond_64_bit_integers_is_released_and_marked_not_reliable(statistic):
    schema = Schema(columns=(NumericColumn("x", lower=0.0, upper=1000.0),), neighbouring=Neighbouring.ADD_REMOVE)
    queries = statistic.queries(schema)
    noises = [calibrate(MechanismKind.LAPLACE, q.sensitivity.l1, 0.5) for q in queries]
    data = HugeSums(schema, 2**63 + 2**40)
    noisy = statistic.measure(data, noises)  # raised ValueError before issue 41, 5
    (cell,) = statistic.estimate(noisy, noises, schema, 0.95)
    assert not cell.reliable and "2^62 steps" in cell.note
    ordinary = statistic.estimate(statistic.measure(HugeSums(schema, 2**40), noises), noises, schema, 0.95)
    assert ordinary[0].reliable and not ordinary[0].note


DRAWS = 100_000


@pytest.mark.statistical
def test_clamping_keeps_epsilon_on_neighbours_across_the_limit_and_wrapping_is_caught():
    """Empirical audit of ``Noise.sample`` on neighbouring exact answers on either side of the clamp
    (2^62 - 3 and 2^62 + 3, sensitivity 6): the released values' loss stays within ε. A variant that wraps the
    answer into 64-bit integers instead (as numpy's int64 arithmetic does on overflow) moves neighbours across
    2^63 to opposite ends and is caught. Clopper-Pearson at level 1e-6 over all events: a correct mechanism
    fails with probability at most 1e-6."""
    from privacy_check import empirical_epsilon

    epsilon = 1.0
    noise = calibrate(MechanismKind.LAPLACE, 6, epsilon)
    low, high = LIMIT - 3, LIMIT + 3

    def released(exact: int) -> np.ndarray:
        return (np.array(noise.sample([exact] * DRAWS), dtype=object) - LIMIT).astype(float)

    cuts = [noise.scale * j for j in np.arange(-3, 3.5, 0.5)]
    honest = empirical_epsilon(released(low), released(high), cuts)
    assert honest.epsilon_lower_bound <= epsilon, honest

    def wrapped(exact: int) -> np.ndarray:
        value = (exact + 2**63) % 2**64 - 2**63  # int64 overflow
        return (np.array(noise.sample([value] * DRAWS), dtype=object)).astype(float)

    neighbour_low, neighbour_high = 2**63 - 3, 2**63 + 3
    cuts = [0.0]
    caught = empirical_epsilon(wrapped(neighbour_low), wrapped(neighbour_high), cuts)
    assert caught.epsilon_lower_bound > epsilon, caught


# ---------------------------------------------------------------- the quantile interval's check


def _peak_megabytes(function) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("scale", [9.5, 11.0])
def test_the_rank_check_half_width_takes_little_memory_for_many_counts(scale):
    """300 + 300 counts at a scale of 11 took 6 s and 480 MB; at 9.5, 700 + 700 took a second and more."""
    from workbench.core.privacy.accuracy import rank_check_halfwidth

    for count in (300, 700):
        peak = _peak_megabytes(lambda: rank_check_halfwidth(scale, 0.5, count, count, 1e-3 + count * 1e-9))
        assert peak < 20, (count, peak)


@pytest.mark.parametrize("scale", [0.7, 3.0, 10.0])
@pytest.mark.parametrize("alpha, left, right", [(0.5, 1, 2), (0.1, 3, 6), (0.9, 30, 10), (0.5, 32, 32)])
def test_the_chernoff_half_width_is_never_below_the_exact_one(scale, alpha, left, right):
    from workbench.core.privacy.accuracy import _chernoff_rank_check_halfwidth, _exact_rank_check_halfwidth

    for miss in (0.0125, 1e-3, 1e-5):
        exact = _exact_rank_check_halfwidth(scale, alpha, left, right, miss)
        chernoff = _chernoff_rank_check_halfwidth(scale, alpha, left, right, miss)
        assert exact <= chernoff <= 1.6 * exact + 2


@pytest.mark.statistical
def test_the_chernoff_half_width_bounds_the_check_noise_of_many_counts():
    """Beyond the enumerated counts the bound is Chernoff's: discrete Laplace noise on 200 counts (drawn as the
    difference of two geometric variables, which is that distribution exactly; fixed seed) stays below -h in
    at most ``miss`` of 100,000 draws, up to a 5-sigma slack (a false failure less likely than 1e-6 for
    another seed)."""
    from workbench.core.privacy.accuracy import rank_check_halfwidth

    scale, alpha, left, right, miss = 3.3, 0.3, 80, 120, 0.01
    h = rank_check_halfwidth(scale, alpha, left, right, miss)
    draws, rng = 100_000, np.random.default_rng(415)
    p = -math.expm1(-1.0 / scale)
    sums = (rng.geometric(p, (draws, left + right)) - rng.geometric(p, (draws, left + right))).astype(float)
    combined = (1 - alpha) * sums[:, :left].sum(1) - alpha * sums[:, left:].sum(1)
    slack = 5 * math.sqrt(miss * (1 - miss) / draws)
    assert np.mean(combined < -h) <= miss + slack and np.mean(combined > h) <= miss + slack
    assert np.mean(combined < -h) >= miss / 20  # and it is not far out: Chernoff's is within about 1.4 of exact


def test_an_interval_check_over_many_levels_and_groups_takes_little_memory():
    """Twenty levels put 500-odd cuts in each group's check; with every score undecided by Chebyshev's bound,
    each cut's half-width was enumerated over all of them."""
    from workbench.core.statistics.quantile_intervals import Ranks, quantile_intervals

    candidates = tuple(float(c) for c in np.linspace(0.0, 100.0, 10_001))
    levels = tuple(np.round(np.linspace(0.04, 0.96, 20), 2))
    rows = 2_000
    slots = 2 * np.searchsorted(candidates, np.linspace(0.5, 99.5, rows)) + 0
    cells, counts = np.unique(slots, return_counts=True)
    ranks = [Ranks.of(cells, counts, len(candidates)) for _ in range(3)]
    points = [[candidates[int(level * 10_000)]] * 3 for level in levels]
    for scale in (3.0, 12.0):
        check = Noise(MechanismKind.LAPLACE, 2.0, scale, 0.6, 0.0)
        peak = _peak_megabytes(lambda: quantile_intervals(ranks, candidates, levels, points, check, 0.95))
        assert peak < 60, (scale, peak)
