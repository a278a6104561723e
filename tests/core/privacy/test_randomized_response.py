"""Randomised response: the design's algebra, the estimator, the ε it states against OpenDP's
privacy map, and OpenDP's sampler's privacy."""

import math

import numpy as np
import pytest
from privacy_check import epsilon_from_events

from workbench.core.errors import BudgetError, PlanError
from workbench.core.privacy import opendp_api as dp
from workbench.core.privacy import randomized_response
from workbench.core.privacy.randomized_response import (
    MAX_EPSILON,
    ResponseDesign,
    design_table,
    epsilon_text,
    estimate_shares,
    probability_text,
)


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


EPSILONS = (1e-9, 1e-3, 0.01, 0.1, 0.5, 1.0, math.log(3), 2.0, 5.0, 10.0, 15.0, 19.9, MAX_EPSILON)


@pytest.mark.parametrize("k", [2, 3, 5, 10, 100])
def test_the_stated_epsilon_is_never_below_openDPs_privacy_map(k):
    """At ε = 1 with two answers the map of the designed randomiser was 1.0000000000000009."""
    categories = tuple(f"answer {i}" for i in range(k))
    for epsilon in EPSILONS:
        design = ResponseDesign(categories, epsilon)
        proved = dp.m.make_randomized_response(list(categories), design.truth_probability).map(1)
        assert proved == design.map_epsilon <= epsilon, (k, epsilon, proved)
        assert proved >= epsilon * (1 - 1e-7) - 1e-15  # lowered by a few ulps of p, not more
        assert design.other_probability == (1 - design.truth_probability) / (k - 1)  # what OpenDP draws


@pytest.mark.parametrize("epsilon", [20.5, 25.0, 40.0, 100.0, 101.0])
def test_an_epsilon_above_the_cap_is_refused_with_the_reason(epsilon):
    """``rr design --epsilon 40`` stated ε-DP with p = 1: every answer the truth, OpenDP's map ∞."""
    with pytest.raises(BudgetError, match=r"too large for randomised response.*at most 20"):
        ResponseDesign(("yes", "no"), epsilon)


def test_probabilities_that_round_to_one_are_refused_whatever_the_cap(monkeypatch):
    """The cap keeps designs meaningful; below it, floating point is checked as well."""
    monkeypatch.setattr(randomized_response, "MAX_EPSILON", 100.0)
    with pytest.raises(BudgetError, match="rounds to 1"):
        ResponseDesign(("yes", "no"), 40.0)
    near = ResponseDesign(("yes", "no"), 36.5)  # 1 - p = 2 ulps below 1: OpenDP's map 36.04
    assert near.truth_probability < 1 and near.map_epsilon <= 36.5
    assert dp.m.make_randomized_response(["yes", "no"], 1.0).map(1) == math.inf  # what p = 1 would have been


def test_the_largest_epsilon_is_still_a_randomised_design():
    design = ResponseDesign(("yes", "no", "maybe"), MAX_EPSILON)
    assert 0 < design.other_probability and design.truth_probability < 1
    assert math.isfinite(design.randomizer().map(1))
    assert probability_text(design.truth_probability) == "1 − 4.13e-09"  # not "1.0000"; 1 − p rounded up
    assert probability_text(design.other_probability, up=True) == "2.07e-09"
    assert probability_text(0.75) == probability_text(0.75, up=True) == "0.7500"


def _shown(text: str) -> float:
    return 1.0 - float(text.split("−")[1]) if "−" in text else float(text)


@pytest.mark.parametrize("k", [2, 3, 5, 10])
def test_the_probabilities_shown_are_no_less_private_than_the_design(k):
    """A field team may build its randomiser (dice, a script) from the numbers shown: p rounded down and q up, their
    ratio stays within e^ε (p = 0.9999, q = 0.0001 had shown ε = 9.21 for ε = 9)."""
    for epsilon in [0.1, 0.5, 1.0, 2.0, 5.0, 8.9, 9.0, 12.0, 20.0]:
        design = ResponseDesign(tuple(f"c{i}" for i in range(k)), epsilon)
        p = _shown(probability_text(design.truth_probability))
        q = _shown(probability_text(design.other_probability, up=True))
        assert 0 < q and p / q <= math.exp(epsilon) * (1 + 1e-12), (k, epsilon, p, q)


def test_the_epsilon_is_written_without_rounding_it_down():
    assert epsilon_text(1.0) == "1" and epsilon_text(20.0) == "20"
    assert epsilon_text(1.0986123) == "1.0986123"  # "1.09861" would state less than was asked
    assert epsilon_text(2 / 3) == "0.666667"  # rounds up: fine
    for epsilon in EPSILONS:
        assert float(epsilon_text(epsilon)) >= epsilon


@pytest.mark.statistical
@pytest.mark.parametrize("categories, epsilon", [(("yes", "no"), 0.5), (("a", "b", "c", "d", "e"), 2.0)])
def test_the_designed_randomiser_stays_within_its_epsilon_in_an_audit(categories, epsilon):
    """10,000 answers from OpenDP's randomiser for each of two different true answers; the events
    'reports c' for every category c, both directions. If the design is ε-DP, the Clopper–Pearson
    lower bound on ε exceeds ε with probability at most 1e-6 (all intervals together): that is
    this test's false-failure rate. OpenDP's sampler takes no seed."""
    design = ResponseDesign(categories, epsilon)
    estimate = epsilon_from_events(_report_events(design.randomizer(), categories, categories[0]),
                                   _report_events(design.randomizer(), categories, categories[1]))
    assert estimate.epsilon_lower_bound <= epsilon, estimate


@pytest.mark.statistical
def test_an_audit_catches_a_randomiser_that_tells_the_truth_too_often():
    """Two broken designs at a stated ε = 1 with three answers: the two-answer formula e^ε/(e^ε + 1)
    (true ε = 1 + ln 2 = 1.69) and p = 0.8 (true ε = 2.08). With 10,000 answers a side the lower
    bounds are about 1.5 and 1.9, so each is caught unless an interval misses: at most 1e-6."""
    categories = ("yes", "no", "maybe")
    binary_formula = dp.m.make_randomized_response(list(categories), math.e / (math.e + 1))
    too_truthful = dp.m.make_randomized_response(list(categories), 0.8)
    for broken in (binary_formula, too_truthful):
        caught = epsilon_from_events(_report_events(broken, categories, "yes"), _report_events(broken, categories, "no"))
        assert caught.epsilon_lower_bound > 1.0, caught


def _report_events(randomiser, categories, answer, n=10_000):
    reports = np.array([randomiser(answer) for _ in range(n)])
    return {f"reports {c}": reports == c for c in categories}


def test_a_category_holding_a_nul_is_refused_where_opendp_would_read_it_cut_short():
    """OpenDP's strings end at a NUL character: "a\\x00x" and "a\\x00y" were one answer "a" to it, so the design
    stated q for three answers where OpenDP randomised among two (a helper's audit)."""
    from workbench.core.errors import PlanError

    with pytest.raises(PlanError, match="holds a NUL character"):
        ResponseDesign(("a\x00x", "a\x00y", "b"), 1.0)
    assert ResponseDesign(("a x", "a y", "b"), 1.0).other_probability > 0
