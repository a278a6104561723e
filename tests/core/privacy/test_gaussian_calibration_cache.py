"""The Gaussian calibration's search (issue 39, 6): its first round on the log grid depends on δ alone and is kept
for each δ; the ρ it finds, and so every preview's noise, must be the search's own, to the bit, for every ε and δ."""

from __future__ import annotations

import math

import numpy as np

from workbench.core.privacy import mechanisms
from workbench.core.privacy.mechanisms import MechanismKind, calibrate


def _searched_rho(epsilon: float, delta: float) -> float:
    """The search as it was written before the first round was kept: every round evaluated."""
    log_inv_delta = -math.log(delta)
    start = 1.0 + 10.0 ** (np.arange(-320, 321) / 40.0)
    least = mechanisms._least_value(lambda alpha: -(epsilon - mechanisms._cks20_term(alpha, log_inv_delta)) / alpha,
                                    start, rounds=5)
    return max(0.0, -least)


def test_the_largest_rho_is_the_searchs_own_for_every_epsilon_and_delta():
    rng = np.random.default_rng(396)
    for _ in range(2000):
        epsilon, delta = 10 ** rng.uniform(-5, 2), 10 ** rng.uniform(-300, -0.01)
        assert mechanisms._largest_rho(epsilon, delta) == _searched_rho(epsilon, delta)


def test_a_new_delta_gets_its_own_first_round():
    """The same ε at another δ: the kept first round of the first δ is not used for the second."""
    mechanisms._cached_largest_rho.cache_clear()
    first = calibrate(MechanismKind.GAUSSIAN, 3.0, 0.5, 1e-6, verified=False)
    second = calibrate(MechanismKind.GAUSSIAN, 3.0, 0.5, 1e-9, verified=False)
    assert first.scale == 3.0 / math.sqrt(2.0 * _searched_rho(0.5, 1e-6))
    assert second.scale == 3.0 / math.sqrt(2.0 * _searched_rho(0.5, 1e-9))
    assert second.scale > first.scale


def test_the_kept_first_round_cannot_be_changed_by_a_caller():
    terms = mechanisms._cks20_on_grid(-math.log(1e-7))
    assert not terms.flags.writeable and not mechanisms._RHO_GRID.flags.writeable


def test_the_searches_even_points_are_numpys_linspace_to_the_bit():
    rng = np.random.default_rng(6)
    for _ in range(5000):
        start = rng.uniform(-1, 1) * 10 ** rng.uniform(-300, 300)
        stop = start + rng.choice([1, -1]) * 10 ** rng.uniform(-320, 300) if rng.uniform() < 0.7 else start
        if not math.isfinite(stop):
            continue
        count = int(rng.choice([2, 3, 129, 641]))
        assert mechanisms._even_points(start, stop, count).tobytes() == np.linspace(start, stop, count).tobytes()


def test_the_zcdp_conversion_is_the_search_over_numpys_points():
    """``zcdp_to_epsilon`` as written with ``np.linspace``: the same ε to the bit."""

    def with_linspace(rho: float, delta: float) -> float:
        log_inv_delta = -math.log(delta)
        points = np.linspace(1.0 + 1e-9, max(2.0, 10.0 * (1.0 + math.sqrt(log_inv_delta / rho))), 129)
        least = math.inf
        for _ in range(9):
            values = rho * points + mechanisms._cks20_term(points, log_inv_delta)
            best = int(np.argmin(values))
            least = min(least, float(values[best]))
            points = np.linspace(points[max(best - 1, 0)], points[min(best + 1, len(points) - 1)], len(points))
        return max(0.0, least)

    rng = np.random.default_rng(7)
    for _ in range(500):
        rho, delta = 10 ** rng.uniform(-8, 3), 10 ** rng.uniform(-30, -1)
        assert mechanisms.zcdp_to_epsilon(rho, delta) == with_linspace(rho, delta)


def test_counting_to_nothing_or_below_is_empty():
    """A stop at or below 0 counts nothing, as ``np.arange`` does (a slice to it would count from the end)."""
    from workbench.core.privacy import accuracy

    for stop in (0, -1, -5):
        assert len(accuracy._counting(stop)) == len(np.arange(0, stop, dtype=float)) == 0
    assert accuracy._counting(5).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
