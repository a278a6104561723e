"""The plain-language reading of a guarantee: the formulas, their edge cases and bad input."""

import math

import pytest

from workbench.core.privacy.events import MechanismEvent
from workbench.core.privacy.risk import (
    group_guarantee,
    guess_bound,
    posterior_bound,
    privacy_profile,
    reading,
    test_power_bound,
)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_a_fifty_percent_prior_rises_to_at_most_e_eps_over_one_plus_e_eps(epsilon):
    assert posterior_bound(epsilon, 0.5) == pytest.approx(math.exp(epsilon) / (1 + math.exp(epsilon)))
    assert guess_bound(epsilon, 0.0, 0.5) == pytest.approx(posterior_bound(epsilon, 0.5))


def test_the_posterior_bound_is_bayes_rule_with_the_likelihood_ratio_at_e_eps():
    prior, epsilon = 0.1, 1.0
    odds = math.e * prior / (1 - prior)
    assert posterior_bound(epsilon, prior) == pytest.approx(odds / (1 + odds))
    assert posterior_bound(epsilon, 0.0) == 0.0 and posterior_bound(epsilon, 1.0) == 1.0
    assert posterior_bound(100.0, 0.5) == pytest.approx(1.0)  # the largest ε allowed, without overflow


def test_test_power_is_bounded_by_both_sides_of_the_region():
    assert test_power_bound(1.0, 0.0, 0.05) == pytest.approx(math.e * 0.05)
    assert test_power_bound(1.0, 1e-3, 0.05) == pytest.approx(math.e * 0.05 + 1e-3)
    assert test_power_bound(1.0, 0.0, 0.9) == pytest.approx(1 - 0.1 / math.e)  # the other side binds
    assert test_power_bound(0.0001, 0.0, 0.3) == pytest.approx(0.3, rel=1e-3)  # no privacy loss: no better than chance


def test_guessing_with_delta_and_an_uneven_prior():
    epsilon, delta = 1.0, 0.01
    x = (1 - delta) / (1 + math.e)
    assert guess_bound(epsilon, delta, 0.5) == pytest.approx(1 - x)
    assert guess_bound(epsilon, 0.0, 0.95) == pytest.approx(0.95)  # guessing the likelier world already wins


def test_group_privacy_multiplies_epsilon_and_grows_delta():
    assert group_guarantee(0.5, 0.0, 4) == (2.0, 0.0)
    epsilon, delta = group_guarantee(0.5, 1e-6, 3)
    assert epsilon == 1.5 and delta == pytest.approx(3 * math.exp(1.0) * 1e-6)


def test_the_privacy_profile_falls_as_delta_grows_and_starts_at_the_pure_epsilon():
    events = [MechanismEvent("count", "laplace", 1.0, 2.0, 0.5, 0.0, 1.0, True)] * 2
    points = privacy_profile(events)
    assert points[0] == (0.0, 1.0)
    epsilons = [e for _, e in points[1:]]
    assert all(a >= b - 1e-9 for a, b in zip(epsilons, epsilons[1:])) and epsilons[-1] < 1.0


@pytest.mark.parametrize(
    "call", [lambda: posterior_bound(0.0), lambda: posterior_bound(1.0, 1.5), lambda: test_power_bound(1.0, 1.0, 0.05),
             lambda: guess_bound(-1.0, 0.0), lambda: group_guarantee(1.0, 0.0, 0)],
)
def test_bad_input_is_refused(call):
    with pytest.raises(Exception) as info:
        call()
    assert str(info.value)


def test_the_sentences_state_the_numbers_and_adapt_to_the_relation():
    lines = reading(1.0, 1e-6).sentences()
    assert "at most 73% sure" in lines[0] and "from 10% they can reach at most 23%" in lines[0]
    assert "14%" in lines[1] and any("δ = 1e-06" in line for line in lines)
    assert "record" in reading(1.0).sentences(substitute=True)[0]
    assert any("large" in line for line in reading(8.0).sentences())
