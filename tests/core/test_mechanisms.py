"""Calibration agrees with OpenDP's own search, and the error half-widths are exact."""

import math

import opendp.prelude as dp
import pytest

from workbench.core.accuracy import discrete_laplace_halfwidth, discrete_laplace_tail
from workbench.core.errors import BudgetError
from workbench.core.mechanisms import MechanismKind, _approx_dp, calibrate


@pytest.mark.parametrize("sensitivity,epsilon,delta", [(1.0, 0.1, 1e-6), (3.0, 1.0, 1e-7), (2 ** 0.5, 5.0, 1e-3), (8.0, 0.01, 1e-10)])
def test_gaussian_calibration_is_accepted_by_opendp_and_as_small_as_its_search(sensitivity, epsilon, delta):
    noise = calibrate(MechanismKind.GAUSSIAN, sensitivity, epsilon, delta)
    assert _approx_dp(noise.scale, delta).check(sensitivity, (epsilon, delta))
    reference = dp.binary_search_param(
        lambda s: _approx_dp(s, delta), d_in=sensitivity, d_out=(epsilon, delta),
        bounds=(sensitivity / math.sqrt(8 * epsilon), sensitivity * (10 + 1e3 / epsilon)),
    )
    assert noise.scale == pytest.approx(reference, rel=1e-6)


def test_laplace_scale_is_sensitivity_over_epsilon():
    assert calibrate(MechanismKind.LAPLACE, 8, 0.5).scale == pytest.approx(16.0)


@pytest.mark.parametrize("scale", [0.3, 1.0, 7.5, 80.0, 1e4])
def test_discrete_laplace_halfwidth_is_the_smallest_that_holds(scale):
    t = discrete_laplace_halfwidth(scale, 0.95)
    assert discrete_laplace_tail(scale, t) <= 0.05
    assert t == 0 or discrete_laplace_tail(scale, t - 1) > 0.05


@pytest.mark.parametrize("epsilon", [0, -0.5, math.nan, math.inf, 1000])
def test_invalid_epsilon_is_refused(epsilon):
    with pytest.raises(BudgetError):
        calibrate(MechanismKind.LAPLACE, 1, epsilon)


@pytest.mark.parametrize("delta", [0, 1, 1.5, math.nan])
def test_gaussian_needs_delta_strictly_between_0_and_1(delta):
    with pytest.raises(BudgetError, match="δ .*between 0 and 1"):
        calibrate(MechanismKind.GAUSSIAN, 1.0, 1.0, delta)
