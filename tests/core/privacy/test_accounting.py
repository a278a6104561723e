"""Composition: closed forms, consistency with calibration, dp-accounting's RDP and PLD accountants."""

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as dp_pld

from workbench.core.privacy import privacy_loss
from workbench.core.privacy.accounting import BASIC, ZCDP, zcdp_epsilon
from workbench.core.privacy.composition import compose
from workbench.core.privacy.events import MechanismEvent
from workbench.core.privacy.mechanisms import MechanismKind, calibrate
from workbench.core.privacy.privacy_loss import PLD


def at_least_and_close(ours: float, theirs: float, rel: float) -> bool:
    """Ours is not below dp-accounting's pessimistic ε, and at most ``rel`` above it: what the bounds
    on floating-point error cost (tests/core/privacy/test_pld_pessimism.py). "Not below" up to
    dp-accounting's own rounding (1e-11 relative: it reads ε off by adding thousands of terms one
    by one); ours is checked in exact arithmetic there."""
    return theirs * (1 - 1e-11) <= ours <= theirs * (1 + rel) + 1e-15


def laplace(epsilon: float, sensitivity: int = 1, unit: float = 1.0, scalar: bool = True) -> MechanismEvent:
    noise = calibrate(MechanismKind.LAPLACE, sensitivity, epsilon)
    return MechanismEvent.from_noise("count", noise, unit, scalar)


def gaussian(epsilon: float, delta: float, sensitivity: float = 1.0, scalar: bool = False) -> MechanismEvent:
    return MechanismEvent.from_noise("sum", calibrate(MechanismKind.GAUSSIAN, sensitivity, epsilon, delta), 1.0, scalar)


def test_the_accountant_names_the_dp_accounting_release_these_tests_compare_with():
    """--version and every report say which dp-accounting the PLD accountant was checked against: this one."""
    from importlib.metadata import version

    assert privacy_loss.CHECKED_AGAINST == version("dp-accounting")


def test_k_laplace_releases_compose_to_k_epsilon():
    total = compose([laplace(0.25)] * 8)
    assert (total.epsilon, total.delta, total.method) == (2.0, 0.0, BASIC)


def test_gaussian_rho_is_sensitivity_squared_over_two_sigma_squared():
    event = gaussian(0.5, 1e-6, sensitivity=3.0)
    assert event.rho == pytest.approx(9.0 / (2 * event.scale**2))


def test_an_events_rho_is_never_below_what_opendps_own_map_states():
    """The zCDP accountant adds the events' ρ: each must be at least the ρ of the measurement built (OpenDP's
    map rounds up; Δ²/(2σ²) in plain floats was below it by up to 2 ulp in 60 of 150 calibrations)."""
    from workbench.core.privacy.mechanisms import _gaussian_measurement

    rng = np.random.default_rng(3)
    below = 0
    for _ in range(150):
        l2 = float(rng.choice([1.0, 2.0, 3.0, math.nextafter(math.sqrt(2) * 3, math.inf), 1e6 + 17]))
        noise = calibrate(MechanismKind.GAUSSIAN, l2, 10 ** rng.uniform(-3, 1.5), 10 ** rng.uniform(-12, -4))
        event = MechanismEvent.from_noise("x", noise, 1.0, False)
        below += _gaussian_measurement(noise.scale).map(l2) > event.rho
    assert below == 0


def test_one_gaussian_event_composes_back_to_its_calibrated_epsilon():
    total = compose([gaussian(0.7, 1e-6)])
    assert total.epsilon == pytest.approx(0.7, rel=1e-6) and total.delta == pytest.approx(1e-6)


def test_many_gaussian_events_by_zcdp_agree_with_rdp():
    events = [gaussian(0.5, 1e-7) for _ in range(20)]
    total = compose(events, delta=1e-5, tight=False)
    assert total.method == ZCDP and total.delta == 1e-5
    assert total.epsilon < 0.5 * 20 / 2  # less than half of the basic total

    accountant = dp_accounting.rdp.RdpAccountant()
    for event in events:
        accountant.compose(dp_accounting.GaussianDpEvent(noise_multiplier=event.scale / event.sensitivity))
    rdp_epsilon = accountant.get_epsilon(1e-5)
    assert total.epsilon == pytest.approx(rdp_epsilon, rel=0.05)


def test_the_tightest_of_basic_zcdp_and_pld_is_used():
    mixed = [laplace(0.1)] * 3 + [gaussian(0.2, 1e-7, scalar=True)] * 10
    total = compose(mixed, delta=1e-6)
    rho = 3 * 0.1**2 / 2 + sum(e.rho for e in mixed[3:])
    candidates = (0.3 + 2.0, zcdp_epsilon(rho, 1e-6), privacy_loss.composed_epsilon(mixed, 1e-6))
    assert total.epsilon == pytest.approx(min(candidates))
    assert total.method == PLD and total.epsilon < 0.9 * zcdp_epsilon(rho, 1e-6)


def test_pure_laplace_stays_pure_without_a_delta():
    assert compose([laplace(0.5)] * 3, delta=0.0).delta == 0.0


def test_laplace_statistics_under_a_delta_compose_far_below_basic_composition():
    total = compose([laplace(0.05)] * 200, delta=1e-6)
    advanced = math.sqrt(2 * 200 * math.log(1e6)) * 0.05 + 200 * 0.05 * math.expm1(0.05)  # Dwork–Rothblum–Vadhan
    assert total.method == PLD and total.epsilon < advanced < 10.0


def test_zcdp_conversion_is_at_most_the_classic_bound():
    for rho in (0.01, 0.1, 1.0):
        classic = rho + 2 * math.sqrt(rho * math.log(1 / 1e-6))
        assert zcdp_epsilon(rho, 1e-6) <= classic


FINER_GRIDS = (privacy_loss.INTERVAL, privacy_loss.INTERVAL / 32, privacy_loss.INTERVAL / 4096)


@pytest.mark.parametrize("interval", FINER_GRIDS)
@pytest.mark.parametrize("scale, sensitivity", [(10.0, 1), (3.3, 3), (50.0, 7), (0.7, 2), (3e5, 12_345), (1e6, 100_000)])
def test_closed_form_discrete_laplace_pld_equals_dp_accounting(scale, sensitivity, interval):
    """On every grid; the last two have far more x than grid points, which are summed per grid point."""
    ours = privacy_loss.discrete_laplace_pld(scale, sensitivity, interval)
    theirs = dp_pld.from_discrete_laplace_mechanism(
        1.0 / scale, sensitivity=sensitivity, value_discretization_interval=interval
    )
    for delta in (1e-3, 1e-6, 1e-9):
        expected = theirs.get_epsilon_for_delta(delta)
        assert ours.epsilon_for_delta(delta) == pytest.approx(expected, rel=1e-7)
        assert ours.epsilon_for_delta(delta) >= expected * (1 - 1e-12)  # rounding at a boundary goes up, never down


@pytest.mark.parametrize("interval", FINER_GRIDS[:2])
@pytest.mark.parametrize("sigma, sensitivity", [(3.0, 1), (30.0, 2), (700.0, 5), (1999.0, 8)])
def test_discrete_gaussian_pld_and_its_composition_equal_dp_accounting(sigma, sensitivity, interval):
    ours = privacy_loss.discrete_gaussian_pld(sigma, sensitivity, interval)
    theirs = dp_pld.from_discrete_gaussian_mechanism(
        sigma, sensitivity=sensitivity, value_discretization_interval=interval
    )
    for delta in (1e-3, 1e-6, 1e-9):
        assert at_least_and_close(ours.epsilon_for_delta(delta), theirs.get_epsilon_for_delta(delta), 1e-9)
    composed = privacy_loss.compose([(ours, 7)]).epsilon_for_delta(1e-6)
    assert at_least_and_close(composed, theirs.self_compose(7).get_epsilon_for_delta(1e-6), 1e-5)


@pytest.mark.parametrize("epsilon, delta", [(0.2, 0.0), (0.05, 1e-9), (1.0, 1e-7)])
def test_worst_case_pld_and_its_composition_equal_dp_accounting(epsilon, delta):
    ours = privacy_loss.worst_case_pld(epsilon, delta)
    theirs = dp_pld.from_privacy_parameters(
        dp_accounting.pld.common.DifferentialPrivacyParameters(epsilon, delta), privacy_loss.INTERVAL
    )
    assert ours.epsilon_for_delta(1e-6) == pytest.approx(theirs.get_epsilon_for_delta(1e-6), rel=1e-12)
    mixed = privacy_loss.compose([(ours, 30), (privacy_loss.discrete_laplace_pld(23.7, 3), 12)])
    expected = theirs.self_compose(30).compose(
        dp_pld.from_discrete_laplace_mechanism(1 / 23.7, sensitivity=3, value_discretization_interval=privacy_loss.INTERVAL)
        .self_compose(12)
    )
    for target in (1e-5, 1e-6):
        assert mixed.epsilon_for_delta(target) == pytest.approx(expected.get_epsilon_for_delta(target), rel=1e-6)


def test_reading_epsilon_off_a_distribution_equals_dp_accounting_on_random_distributions():
    """The array form of dp-accounting's scan (largest loss first) gives its answer, to rounding."""
    from dp_accounting.pld import pld_pmf

    rng = np.random.default_rng(7)
    for _ in range(400):
        size = int(rng.integers(1, 200))
        probs = rng.random(size) * (rng.random(size) < 0.7)
        if probs.sum() == 0:
            continue
        probs /= probs.sum() * (1 + rng.random() * 0.01)
        lower, infinity = int(rng.integers(-300, 300)), float(rng.choice([0.0, 2e-9, 1e-7, 1e-300]))
        for delta in (0.5, 1e-3, 1e-6, 1e-9):
            ours = privacy_loss.LossDistribution(lower, probs, infinity).epsilon_for_delta(delta)
            theirs = pld_pmf.DensePLDPmf(privacy_loss.INTERVAL, lower, probs, infinity, True).get_epsilon_for_delta(delta)
            assert at_least_and_close(ours, theirs, 1e-10)


def test_a_sum_on_a_fine_grid_composes_like_the_continuous_laplace():
    """Sensitivity 2^32 grid steps: dp-accounting cannot enumerate it; the closed form can."""
    unit = 2.0**-20
    fine = [laplace(0.1, sensitivity=2**32, unit=unit)] * 30
    assert fine[0].sensitivity / fine[0].unit == 2**32
    ours = privacy_loss.composed_epsilon(fine, 1e-6)
    continuous = dp_pld.from_laplace_mechanism(10.0, value_discretization_interval=privacy_loss.INTERVAL)
    expected = continuous.self_compose(30).get_epsilon_for_delta(1e-6)
    assert ours == pytest.approx(expected, rel=0.01)
    coarse = privacy_loss.composed_epsilon([laplace(0.1)] * 30, 1e-6)  # sensitivity 1: the worst case of ε-DP
    assert ours < coarse < 3.0


def test_scalar_discrete_gaussian_pld_equals_dp_accounting():
    events = [gaussian(0.5, 1e-7, sensitivity=2.0, scalar=True)] * 5
    sigma = events[0].scale
    expected = dp_pld.from_discrete_gaussian_mechanism(
        sigma, sensitivity=2, value_discretization_interval=privacy_loss.grid_interval(events)
    ).self_compose(5).get_epsilon_for_delta(1e-6)
    assert at_least_and_close(privacy_loss.composed_epsilon(events, 1e-6), expected, 1e-5)


def test_vector_events_are_accounted_by_their_epsilon_and_delta_only():
    """A histogram's PLD is bounded by the worst mechanism with its (ε, δ): never below the truth."""
    histogram = laplace(0.2, sensitivity=2, scalar=False)
    worst = dp_pld.from_privacy_parameters(
        dp_accounting.pld.common.DifferentialPrivacyParameters(0.2, 0.0), privacy_loss.grid_interval([histogram] * 10)
    )
    expected = worst.self_compose(10).get_epsilon_for_delta(1e-6)
    assert privacy_loss.composed_epsilon([histogram] * 10, 1e-6) == pytest.approx(expected)


def test_event_json_round_trips_and_old_records_read_cautiously():
    event = laplace(0.3, sensitivity=8, unit=0.25)
    assert MechanismEvent.from_json(event.to_json()) == event
    old = {k: v for k, v in event.to_json().items() if k not in ("unit", "scalar")}
    assert MechanismEvent.from_json(old).scalar is False


def test_amplification_by_sampling_matches_the_formula_and_is_refused_under_substitute(sample_plan_path):
    import json
    import math

    from workbench.core.errors import PlanError
    from workbench.core.privacy.events import Guarantee
    from workbench.core.privacy.sampling import amplified_by_sampling
    from workbench.core.release.plan import ReleasePlan

    amplified = amplified_by_sampling(Guarantee(1.0, 1e-6, "basic"), 0.01)
    assert amplified.epsilon == pytest.approx(math.log(1 + 0.01 * (math.e - 1)))  # 0.0170...
    assert amplified.delta == pytest.approx(1e-8) and "amplified by sampling at rate 0.01" in amplified.method
    assert amplified_by_sampling(Guarantee(2.0, 0.0, "basic"), 1.0).epsilon == pytest.approx(2.0)

    data = json.loads(sample_plan_path.read_text())
    data["dataset"]["sampling_rate"] = 0.02
    plan = ReleasePlan.from_json(data)
    plan.validate()
    assert ReleasePlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan
    data["schema"]["neighbouring"] = "substitute"
    data["schema"]["public_size"] = 5000
    with pytest.raises(PlanError, match="only for neighbours that differ by adding or removing"):
        ReleasePlan.from_json(data).validate()
    data["dataset"]["sampling_rate"] = 1.5
    with pytest.raises(PlanError, match="strictly between 0 and 1"):
        ReleasePlan.from_json(data)


def test_a_composition_too_fine_to_compute_leaves_pld_out_and_another_accountant_answers():
    """300 histograms of ε = 30 would need a grid of 18 million losses: PLD reports ∞ rather than
    allocating gigabytes, and compose keeps basic composition, which is exact for pure ε."""
    events = [laplace(30.0, scalar=False)] * 300
    assert privacy_loss.composed_epsilon(events, 1e-6) == math.inf
    total = compose(events, delta=1e-6)
    assert total.method == BASIC and total.epsilon == pytest.approx(9000.0)


def test_pld_composition_of_distinct_events_equals_event_by_event_dp_accounting():
    """Grouping equal events and raising their spectra to their counts changes nothing."""
    events = [laplace(0.1), laplace(0.1), laplace(0.05, sensitivity=3), gaussian(0.2, 1e-7, scalar=True),
              laplace(0.2, scalar=False), laplace(0.1)]
    expected = None
    interval = privacy_loss.grid_interval(events)
    assert interval < privacy_loss.INTERVAL  # six events leave room for a finer grid
    for event in events:
        mechanism, steps, scale = privacy_loss._key(event)[:3]
        if mechanism == "laplace":
            part = dp_pld.from_discrete_laplace_mechanism(
                1 / scale, sensitivity=steps, value_discretization_interval=interval)
        elif mechanism == "gaussian":
            part = dp_pld.from_discrete_gaussian_mechanism(
                scale, sensitivity=steps, value_discretization_interval=interval)
        else:
            part = dp_pld.from_privacy_parameters(
                dp_accounting.pld.common.DifferentialPrivacyParameters(event.epsilon, event.delta),
                interval)
        expected = part if expected is None else expected.compose(part)
    for delta in (1e-5, 1e-7):
        ours = privacy_loss.composed_epsilon(events, delta)
        assert at_least_and_close(ours, expected.get_epsilon_for_delta(delta), 1e-5)


def test_a_thousand_tiny_releases_compose_on_a_grid_fine_enough_for_them():
    """On the fixed 1e-3 grid each loss of 1e-4 rounded up to 1e-3 and 1,000 of them composed to
    0.555, so the ledger fell back to basic composition (0.1). On a grid chosen from the events
    PLD gives what dp-accounting gives on that grid, about 0.0098."""
    events = [laplace(1e-4)] * 1000
    interval = privacy_loss.grid_interval(events)
    assert interval <= 1e-5
    theirs = dp_pld.from_discrete_laplace_mechanism(
        1 / events[0].scale, sensitivity=1, value_discretization_interval=interval
    ).self_compose(1000)
    total = compose(events, delta=1e-6)
    assert total.method == PLD
    assert at_least_and_close(total.epsilon, theirs.get_epsilon_for_delta(1e-6), 2e-5)
    assert total.epsilon < 0.011
    histograms = [laplace(1e-4, sensitivity=2, scalar=False)] * 1000  # by their (ε, δ) alone: the same answer
    assert compose(histograms, delta=1e-6).epsilon == pytest.approx(total.epsilon, rel=1e-6)


def test_the_grid_is_never_coarser_than_before_and_stays_small_for_many_distinct_events():
    many = [laplace(0.01 * (1 + i / 1000)) for i in range(1000)]
    assert privacy_loss.grid_interval(many) == privacy_loss.INTERVAL
    assert privacy_loss.grid_interval([laplace(0.5)] * 3) < privacy_loss.INTERVAL


def test_pure_events_get_the_zcdp_candidate_too():
    """Each ε-DP event is (ε²/2)-zCDP: with PLD skipped (tight=False), 1,000 releases of ε = 1e-4
    compose to about 0.017 at δ = 1e-6, not 0.1. dp-accounting's RDP accountant, which uses the
    exact Rényi divergence of the Laplace mechanism but a looser conversion to (ε, δ), agrees."""
    events = [laplace(1e-4)] * 1000
    quick = compose(events, delta=1e-6, tight=False)
    assert quick.method == ZCDP
    assert quick.epsilon == pytest.approx(zcdp_epsilon(1000 * 1e-4**2 / 2, 1e-6))
    rdp = dp_accounting.rdp.RdpAccountant()
    rdp.compose(dp_accounting.LaplaceDpEvent(noise_multiplier=events[0].scale / events[0].sensitivity), 1000)
    assert quick.epsilon == pytest.approx(rdp.get_epsilon(1e-6), rel=0.05)  # two valid bounds, close
    assert compose(events, delta=1e-6).epsilon < quick.epsilon  # PLD is tighter still
    assert compose(events, delta=0.0, tight=False).method == BASIC  # no δ allowed: pure composition stays
    approximate = MechanismEvent("vector", "laplace", 1.0, 1.0, 0.1, 1e-9)  # (ε, δ) and not Gaussian: no zCDP
    assert compose([approximate] * 10 + events, delta=1e-6, tight=False).method == BASIC


def test_the_discrete_gaussian_tails_count_as_an_infinite_loss():
    """OpenDP samples the untruncated discrete Gaussian: the mass beyond ±11.6σ is not renormalised
    away but counted as an infinite loss, so no δ below it gives a finite ε."""
    pld = privacy_loss.discrete_gaussian_pld(3.0, 1)
    bound = math.ceil(11.6 * 3.0)
    x = np.arange(-bound, bound + 1)
    mass = np.exp(-0.5 * x**2 / 9.0)
    beyond_neighbour = float(mass[x < 1 - bound].sum() / mass.sum())  # what the old PLD counted as ∞
    assert pld.infinity > beyond_neighbour
    assert pld.epsilon_for_delta(beyond_neighbour) == math.inf
    assert pld.epsilon_for_delta(pld.infinity) < math.inf
    assert pld.infinity < 1e-28  # tiny: every other result is unchanged


def test_a_spend_or_budget_that_is_not_a_number_never_fits():
    from workbench.core.privacy.composition import overspend
    from workbench.core.privacy.events import Guarantee

    nan = float("nan")
    assert overspend(Guarantee(0.5, 0.0, BASIC), 1.0, 0.0) is None
    for spent, epsilon, delta in [((nan, 0.0), 1.0, 0.0), ((0.5, nan), 1.0, 1e-6), ((0.5, 0.0), nan, 0.0),
                                  ((0.5, 1e-7), 1.0, nan)]:
        over = overspend(Guarantee(*spent, BASIC), epsilon, delta)
        assert over is not None, (spent, epsilon, delta)
    assert overspend(Guarantee(1.5, 0.0, BASIC), 1.0, 0.0) == (0.5, 0.0)
