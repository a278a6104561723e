"""Composition: closed forms, consistency with calibration, and dp-accounting's RDP accountant."""

import math

import dp_accounting
import pytest

from workbench.core.accounting import BASIC, ZCDP, MechanismEvent, compose, zcdp_epsilon
from workbench.core.mechanisms import MechanismKind, calibrate


def laplace(epsilon: float) -> MechanismEvent:
    return MechanismEvent.from_noise("count", calibrate(MechanismKind.LAPLACE, 1, epsilon))


def gaussian(epsilon: float, delta: float, sensitivity: float = 1.0) -> MechanismEvent:
    return MechanismEvent.from_noise("sum", calibrate(MechanismKind.GAUSSIAN, sensitivity, epsilon, delta))


def test_k_laplace_releases_compose_to_k_epsilon():
    total = compose([laplace(0.25)] * 8)
    assert (total.epsilon, total.delta, total.method) == (2.0, 0.0, BASIC)


def test_gaussian_rho_is_sensitivity_squared_over_two_sigma_squared():
    event = gaussian(0.5, 1e-6, sensitivity=3.0)
    assert event.rho == pytest.approx(9.0 / (2 * event.scale**2))


def test_one_gaussian_event_composes_back_to_its_calibrated_epsilon():
    total = compose([gaussian(0.7, 1e-6)])
    assert total.epsilon == pytest.approx(0.7, rel=1e-6) and total.delta == pytest.approx(1e-6)


def test_many_gaussian_events_compose_tighter_than_basic_and_agree_with_rdp():
    events = [gaussian(0.5, 1e-7) for _ in range(20)]
    total = compose(events, delta=1e-5)
    assert total.method == ZCDP and total.delta == 1e-5
    assert total.epsilon < 0.5 * 20 / 2  # less than half of the basic total

    accountant = dp_accounting.rdp.RdpAccountant()
    for event in events:
        accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=event.scale / event.sensitivity))
    rdp_epsilon = accountant.get_epsilon(1e-5)
    assert total.epsilon == pytest.approx(rdp_epsilon, rel=0.05)


def test_mixed_events_use_the_tighter_valid_method():
    mixed = [laplace(0.1)] * 3 + [gaussian(0.2, 1e-7)] * 10
    basic_epsilon = 0.3 + 2.0
    total = compose(mixed, delta=1e-6)
    assert total.epsilon <= basic_epsilon
    rho = 3 * 0.1**2 / 2 + sum(e.rho for e in mixed[3:])
    assert total.epsilon == pytest.approx(min(basic_epsilon, zcdp_epsilon(rho, 1e-6)))


def test_pure_laplace_stays_pure_without_a_delta():
    assert compose([laplace(0.5)] * 3, delta=0.0).delta == 0.0


def test_zcdp_conversion_is_at_most_the_classic_bound():
    for rho in (0.01, 0.1, 1.0):
        classic = rho + 2 * math.sqrt(rho * math.log(1 / 1e-6))
        assert zcdp_epsilon(rho, 1e-6) <= classic
