"""Randomised response: the design's algebra, the estimator, and OpenDP's sampler's privacy."""

import math

import numpy as np
import pytest
from privacy_check import epsilon_from_events

from workbench.core.errors import PlanError
from workbench.core.privacy.randomized_response import ResponseDesign, design_table, estimate_shares


def test_binary_design_is_warner_and_its_estimator_is_unbiased():
    design = ResponseDesign(("yes", "no"), math.log(3))  # p = 3/4
    assert design.truth_probability == pytest.approx(0.75) and design.other_probability == pytest.approx(0.25)
    # true share 0.3 -> reports 'yes' with 0.3 * 0.75 + 0.7 * 0.25 = 0.4; estimate (0.4 - 0.25) / 0.5 = 0.3
    estimates, n = estimate_shares(design, ["yes"] * 40 + ["no"] * 60)
    assert n == 100 and estimates[0].share == pytest.approx(0.3)
    assert estimates[0].low < 0.3 < estimates[0].high


def test_estimates_from_openDP_randomised_answers_cover_the_truth():
    design = ResponseDesign(("a", "b", "c"), 1.0)
    truth = ["a"] * 6000 + ["b"] * 3000 + ["c"] * 1000
    randomise = design.randomizer()
    reports = [randomise(answer) for answer in truth]
    estimates, _ = estimate_shares(design, reports, confidence=0.999)
    for estimate, share in zip(estimates, (0.6, 0.3, 0.1)):
        assert estimate.low <= share <= estimate.high, estimate


def test_stated_variance_matches_simulation():
    design = ResponseDesign(("yes", "no"), 0.5)
    rng = np.random.default_rng(1)
    p = design.truth_probability
    n, share, runs = 2000, 0.2, 4000
    truths = rng.random((runs, n)) < share
    keep = rng.random((runs, n)) < p
    reported_yes = np.where(keep, truths, ~truths).mean(axis=1)
    estimates = (reported_yes - design.other_probability) / (p - design.other_probability)
    assert estimates.mean() == pytest.approx(share, abs=0.005)
    assert estimates.var() == pytest.approx(design.estimator_variance(share, n), rel=0.08)


def test_design_table_says_how_much_larger_than_the_central_model():
    rows = design_table(ResponseDesign(("yes", "no"), 1.0), 1000)
    assert all(row["ratio"] > 1 for row in rows)  # local randomisation always costs accuracy
    assert rows[1]["randomised_response"] == pytest.approx(1.96 * math.sqrt(
        ResponseDesign(("yes", "no"), 1.0).estimator_variance(0.2, 1000)), rel=1e-3)


def test_bad_input_is_refused_with_a_reason():
    with pytest.raises(PlanError, match="two different"):
        ResponseDesign(("yes",), 1.0)
    with pytest.raises(PlanError, match="not categories of the design: 'maybe'"):
        estimate_shares(ResponseDesign(("yes", "no"), 1.0), ["yes", "maybe"])


@pytest.mark.statistical
def test_openDP_randomised_response_stays_within_epsilon_and_a_broken_one_is_caught():
    epsilon, n = 1.0, 10_000  # each report is one call into OpenDP; 10,000 resolve ε = 1 vs 2 clearly
    design = ResponseDesign(("yes", "no", "maybe"), epsilon)

    def events(measurement, answer):
        reports = np.array([measurement(answer) for _ in range(n)])
        return {f"reports {c}": reports == c for c in design.categories}

    honest = design.randomizer()
    estimate = epsilon_from_events(events(honest, "yes"), events(honest, "no"))
    assert estimate.epsilon_lower_bound <= epsilon, estimate

    import opendp.prelude as dp

    too_truthful = dp.m.make_randomized_response(list(design.categories), 0.8)  # ε = ln(0.8 / 0.1) ≈ 2.08
    caught = epsilon_from_events(events(too_truthful, "yes"), events(too_truthful, "no"))
    assert caught.epsilon_lower_bound > epsilon, caught
