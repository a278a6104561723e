"""A number in a plan is a finite real and never a bool (JSON's true is Python's 1)."""

import math

import numpy as np
import pytest

from workbench.core.real import is_finite_real, is_whole_number


@pytest.mark.parametrize("value", [0, 1, -3, 0.5, 1e15, np.float64(2.5)])
def test_finite_reals_are_numbers(value):
    assert is_finite_real(value)


@pytest.mark.parametrize("value", [True, False, math.inf, -math.inf, math.nan, "1", None, [1], 1j])
def test_bools_infinities_text_and_none_are_not(value):
    assert not is_finite_real(value)


def test_a_whole_number_is_an_int_not_a_bool_or_a_float():
    assert is_whole_number(3) and is_whole_number(0)
    assert not any(is_whole_number(v) for v in (True, 3.0, "3", None))


def test_an_infinite_smallest_group_is_refused_with_a_message_not_a_crash():
    from workbench.core.errors import PlanError
    from workbench.core.release.plan import PlannedStatistic

    data = {"type": "mean", "column": "age", "by": "region", "epsilon": 0.1, "smallest_group": math.inf}
    with pytest.raises(PlanError, match="'smallest_group' must be a whole number of rows"):
        PlannedStatistic.from_json(data, 0)
