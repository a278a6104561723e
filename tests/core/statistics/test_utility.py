"""Utility: the stated 95% error bound holds for every statistic and mechanism.

Each case releases the statistic 4,000 times from its exact answers (the real
calibration, OpenDP sampling and estimation code) and counts how often the released value
lies within the stated bound of the exact value. A correct bound covers at least 95%;
the test fails below 93.5%, which a correct bound does with probability below 1e-5
(normal approximation, 4.3 standard errors). Above 97% the bound would be needlessly
loose. Bounds on integer noise are rounded up to a whole step, so an honest one covers a
little more than 95%: the discrete Gaussian count at ε = 0.3 (σ ≈ 15, bound ⌈1.96σ⌉ = 30)
covers about 95.8%, which exceeds 97% with probability below 1e-4 (3.8 standard errors).
(The upper limit was 96.5% until a CI run drew 96.5% for that case: 2 standard errors.)
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data.io import Table
from workbench.core.data.prepare import prepare
from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    Neighbouring,
    NumericColumn,
    OutsideCategories,
    PrivacyUnit,
    Schema,
)
from workbench.core.privacy.mechanisms import MechanismKind, calibrate_quantile, quantile_rank_halfwidth
from workbench.core.release.plan import Budget, PlannedStatistic
from workbench.core.statistics.counts import Count, CrossTab, Histogram
from workbench.core.statistics.grid import SumGrid
from workbench.core.statistics.moments import Mean, StandardDeviation, Sum, Variance
from workbench.core.statistics.quantiles import Quantiles

REPEATS = 4000
pytestmark = pytest.mark.statistical

rng = np.random.default_rng(7)  # synthetic test data only; no noise is drawn with numpy
FRAME = pd.DataFrame(
    {
        "pid": np.repeat(np.arange(400), 3),
        "x": rng.uniform(-20, 120, 1200).round(2),
        "c": rng.choice(["a", "b", "c", "d"], 1200),
        "d": rng.choice(["u", "v", "w"], 1200),
        "wt": rng.lognormal(0.5, 0.6, 1200).round(2),  # survey weights, skewed; some beyond the bounds (clamped)
    }
)
TABLE = Table(frame=FRAME, source=Path("utility.csv"), file_format="text")


def schema(neighbouring: Neighbouring, k: int) -> Schema:
    return Schema(
        columns=(
            IdentifierColumn("pid"),
            NumericColumn("x", lower=0, upper=100, missing=MissingPolicy(MissingAction.IMPUTE, 50.0)),
            CategoricalColumn("c", ("a", "b", "c")),
            CategoricalColumn("d", ("u", "v"), outside=OutsideCategories.DROP),
            NumericColumn("wt", lower=0.5, upper=6.0),
        ),
        unit=PrivacyUnit("pid", k) if k > 1 else PrivacyUnit(),
        neighbouring=neighbouring,
        public_size=len(FRAME) if neighbouring is Neighbouring.SUBSTITUTE and k == 1 else 400,  # one row per person
    )


def truth(statistic, exact, s: Schema) -> np.ndarray:
    grid = SumGrid(0.0, 100.0)
    if isinstance(statistic, Mean) and statistic.weighted_by:
        sums, _, centre, step = statistic._parts(s)
        return centre + np.array(exact[0], dtype=float) * sums.unit / (np.array(exact[1], dtype=float) * step)
    if statistic.weighted_by:  # a weighted count or sum: the exact sum on its grid
        return np.array(exact[0], dtype=float) * statistic.queries(s)[0].unit
    if isinstance(statistic, Variance):  # also StandardDeviation
        _, squares, _ = statistic._grids(s)
        count = np.array(exact[2], dtype=float) if len(exact) > 2 else float(s.public_size)
        first = np.array(exact[0], dtype=float) * grid.unit
        second = np.array(exact[1], dtype=float) * squares.unit
        return statistic._finish(statistic._from_moments(first, second, count, squares.upper))
    if isinstance(statistic, Sum):
        return np.array(exact[0], dtype=float) * grid.unit
    if isinstance(statistic, Mean):
        count = np.array(exact[1], dtype=float) if len(exact) > 1 else s.public_size
        return ((grid.lo + grid.hi) // 2 + np.array(exact[0], dtype=float) / count) * grid.unit
    return np.array(exact[0], dtype=float)  # counts and histograms, one value per group or bin


CASES = [
    (Count(), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 3, 0.1),
    (Count(), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 1, 0.3),
    (Sum("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Sum("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 0.5),
    (Mean("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 3, 1.0),
    (Mean("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 0.5),  # divided by the public size
    (Mean("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 3, 0.5),
    (Histogram("c"), MechanismKind.LAPLACE, Neighbouring.SUBSTITUTE, 1, 0.2),
    (Histogram("c"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Variance("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 1, 1.0),
    (Variance("x"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 1.0),  # over the public size
    (StandardDeviation("x"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 2, 2.0),
    (StandardDeviation("x", by="c"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 1, 2.0),
    (Count(by="c"), MechanismKind.LAPLACE, Neighbouring.SUBSTITUTE, 1, 0.3),
    (Sum("x", by="c"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Mean("x", by="c"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 1, 1.0),
    (Histogram("c", by="c"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 1, 0.5),
    (Histogram("x", edges=(10, 50, 90)), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 3, 0.5),
    (Histogram("x", by="c", edges=(25, 75)), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 0.5),
    (CrossTab(("c", "d")), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 2, 0.5),
    # by two columns (issue 21, 2): groups of (c, d) partition the rows like groups of one column. (With
    # Gaussian noise under substitute, k = 2, these groups of ~150 rows are covered ~97% even at ε = 4: the
    # mean's self-consistent bound, which does not know the true offset, is loose for small groups; honest.)
    (Mean("x", by=("c", "d")), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 2, 1.0),
    (Sum("x", by=("c", "d")), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Count(by=("c", "d")), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 3, 0.3),
    # weighted by survey weights in [0.5, 6] (issue 21, 3)
    (Count(weighted_by="wt"), MechanismKind.LAPLACE, Neighbouring.SUBSTITUTE, 1, 0.3),
    (Sum("x", by="c", weighted_by="wt"), MechanismKind.GAUSSIAN, Neighbouring.ADD_REMOVE, 2, 0.5),
    (Mean("x", weighted_by="wt"), MechanismKind.LAPLACE, Neighbouring.ADD_REMOVE, 3, 1.0),
    (Mean("x", by="d", weighted_by="wt"), MechanismKind.GAUSSIAN, Neighbouring.SUBSTITUTE, 1, 2.0),
]


@pytest.mark.parametrize("statistic,mechanism,neighbouring,k,epsilon", CASES, ids=lambda v: str(v))
def test_error_bound_covers_95_percent(statistic, mechanism, neighbouring, k, epsilon):
    s = schema(neighbouring, k)
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    noises = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta)).noises(s)
    exact = statistic.exact(prepare(TABLE, s))
    expected = truth(statistic, exact, s)

    draws = [noise.sample(list(values) * REPEATS).reshape(REPEATS, -1) for noise, values in zip(noises, exact)]
    covered = []
    for r in range(REPEATS):
        cells = statistic.estimate([row[r] for row in draws], noises, s, 0.95)
        released = np.array([c.value for c in cells], dtype=float)
        bounds = np.array([c.error for c in cells], dtype=float)
        covered.extend(np.abs(released - expected) <= bounds)
    coverage = float(np.mean(covered))

    print(f"coverage {coverage:.4f}")
    # honest, and not loose beyond the rounding to whole steps; a variance's and a standard deviation's bound holds
    # for every pair of moments the released sums allow (issue 37, 1), which covers groups a little more: one run
    # of the grouped SD drew 96.9%, so theirs may reach 98% (methodology.md, "Variance and standard deviation")
    most = 0.98 if isinstance(statistic, (Variance, StandardDeviation)) else 0.97
    assert 0.935 <= coverage <= most, coverage


QUANTILE_REPEATS = 2000


def _rank_excess(
    statistic: Quantiles, data, values: np.ndarray, s: Schema, noises, repeats: int = QUANTILE_REPEATS
) -> tuple[np.ndarray, float]:
    """Per release and level: the released value's rank score minus the best candidate's; and the bound."""
    values = np.sort(values)
    candidates = np.array(statistic.candidates(s))
    below = np.searchsorted(values, candidates, side="left")
    above = len(values) - np.searchsorted(values, candidates, side="right")
    excess = []
    for _ in range(repeats):
        cells = statistic.estimate(statistic.measure(data, noises), noises, s, 0.95)
        for level, cell in zip(statistic.levels, cells):
            score = np.abs((1 - level) * below - level * above)
            chosen = int(np.argmin(np.abs(candidates - cell.value)))
            excess.append(score[chosen] - score.min())
    return np.array(excess), cells[0].error


def test_quantile_rank_bound_holds():
    """The stated bound: every released value's rank score is within ``error`` ranks of the best
    candidate's (after sorting the levels). The data have ties at both bounds (clamping) and
    dense values between. The bound is a worst case over all data, so it covers more here."""
    s = schema(Neighbouring.SUBSTITUTE, 3)
    statistic = Quantiles("x", levels=(0.25, 0.75))
    noises = PlannedStatistic(statistic, MechanismKind.EXPONENTIAL, Budget(2.0)).noises(s)
    data = prepare(TABLE, s)
    excess, bound = _rank_excess(statistic, data, data.complete(("x",))["x"].to_numpy(dtype=float), s, noises)

    print(f"bound {bound}, empirical 95% point {np.quantile(excess, 0.95)}")
    assert np.mean(excess <= bound) >= 0.95


def test_quantile_rank_bound_covers_95_percent_on_the_worst_data():
    """The data that attain the bound: a tie of 2t + 1 rows at the median's candidate, the rest at
    the two ends, so that every other candidate is t + 1/2 ranks worse than the best (t: the stated
    bound). Coverage is then within 1.5 points of 95%, as for the analytic bounds: the bound is as
    low as a bound from public inputs can be. On ordinary data it covers more (the test above).
    201 candidates (not the statistic's 10,001) keep the releases fast; the formula takes C."""
    candidates = np.linspace(0.0, 100.0, 201)
    noise = calibrate_quantile(distance=1, alpha=0.5, epsilon=0.1)  # scale 10: whole ranks matter little
    bound = quantile_rank_halfwidth(noise.scale, 0.95, len(candidates))
    values = np.concatenate([np.full(60, 0.0), np.full(2 * bound + 1, 50.0), np.full(60, 100.0)])
    below = np.searchsorted(values, candidates, side="left")
    above = len(values) - np.searchsorted(values, candidates, side="right")
    score = np.abs(0.5 * below - 0.5 * above)
    assert sorted(set(score - score.min()))[:2] == [0.0, bound + 0.5]

    chosen = np.array([noise.select_quantile(values, candidates, 0.5) for _ in range(REPEATS)])
    excess = score[np.searchsorted(candidates, chosen)] - score.min()
    coverage = float(np.mean(excess <= bound))

    print(f"bound {bound}, coverage {coverage:.4f}")
    assert 0.935 <= coverage <= 0.965, coverage


SMALL_GROUP_REPEATS = 5000


@pytest.mark.parametrize("mechanism", [MechanismKind.LAPLACE, MechanismKind.GAUSSIAN])
def test_the_mean_bound_covers_small_groups_whose_true_mean_lies_near_a_bound(mechanism):
    """Issue 19, 8: with a noisy count of 5 to 50 the released mean can land near the centre while
    the true one lies near a bound. A bound computed at the released offset (as before) covered
    91-94% here; the self-consistent bound covers at least 95% for every true offset. Each draw
    picks a group size of 5-50 and a true mean at 0.5 or 99.5 of [0, 100]; groups whose noisy
    count falls below 1 release no mean and are left out. Noise is drawn with numpy (exact
    discrete Laplace; the rounded normal for the Gaussian): this checks the bound, not OpenDP."""
    from workbench.core.privacy.accuracy import combined_halfwidth, simulated_noise
    from workbench.core.statistics.grid import grid_of

    s = Schema(columns=(NumericColumn("x", lower=0, upper=100),), unit=PrivacyUnit(),
               neighbouring=Neighbouring.ADD_REMOVE)
    statistic = Mean("x")
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    noises = PlannedStatistic(statistic, mechanism, Budget(0.5, delta)).noises(s)
    grid = grid_of(s.columns[0])
    draws = np.random.default_rng(19)  # synthetic data and simulated noise for a bound check only
    sizes = draws.integers(5, 51, SMALL_GROUP_REPEATS)
    at = np.where(draws.random(SMALL_GROUP_REPEATS) < 0.5, 0.5, 99.5)
    sum_noise = simulated_noise(noises[0].kind.value, noises[0].scale, SMALL_GROUP_REPEATS, draws)
    count_noise = simulated_noise(noises[1].kind.value, noises[1].scale, SMALL_GROUP_REPEATS, draws)
    covered, plug_in_covered = [], []
    for n, value, z_sum, z_count in zip(sizes, at, sum_noise, count_noise):
        centred = int(n) * int(grid.to_integers(np.array([value]))[0] - grid.centre)
        truth = (grid.centre + centred / n) * grid.unit
        cell = statistic.estimate([[centred + z_sum], [n + z_count]], noises, s, 0.95)[0]
        if cell.value is None:
            continue
        raw = cell.raw_value
        covered.append(abs(raw - truth) <= cell.error)
        offset = abs(raw - grid.centre * grid.unit)
        plug_in = combined_halfwidth(noises[0].kind.value, noises[0].scale, grid.unit, noises[1].scale,
                                     min(offset, 50.0), 0.95) / (n + z_count)
        plug_in_covered.append(abs(raw - truth) <= plug_in)
    coverage, plug_in_coverage = float(np.mean(covered)), float(np.mean(plug_in_covered))

    print(f"coverage {coverage:.4f} over {len(covered)} released means; the plug-in bound: {plug_in_coverage:.4f}")
    assert coverage >= 0.945, coverage  # 95% less 3 standard errors (0.003)
    assert plug_in_coverage < 0.945, plug_in_coverage  # the test catches the bound it replaces


@pytest.mark.parametrize("mechanism", [MechanismKind.LAPLACE, MechanismKind.GAUSSIAN])
def test_at_the_epsilon_a_target_buys_the_release_covers_95_to_97_5_percent_on_survey_wages(mechanism):
    """Issue 19, 3: on wages shaped like a labour-force survey (skewed, in tens, top-coded at the upper bound),
    the ε an accuracy target buys gives releases whose stated bound is within the target and covers between 95%
    and 97.5%: neither a broken promise nor ε bought twice over."""
    from realistic_tables import WAGE_BOUNDS, labour_force

    from workbench.core.privacy.accuracy import simulated_noise
    from workbench.core.release.planner import epsilon_for_error
    from workbench.core.statistics.grid import grid_of

    wages = labour_force(3000)["wage"].dropna().to_numpy(dtype=float)
    assert (wages == WAGE_BOUNDS[1]).any() and np.median(wages) < np.mean(wages)  # top-coded, skewed
    s = Schema(columns=(NumericColumn("wage", *WAGE_BOUNDS),), unit=PrivacyUnit(), neighbouring=Neighbouring.ADD_REMOVE)
    statistic, target = Mean("wage"), 40.0
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    epsilon = epsilon_for_error(statistic, mechanism, s, target, 0.95, delta, size_estimate=len(wages))
    noises = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta)).noises(s)
    grid = grid_of(s.columns[0])
    centred = int((grid.to_integers(wages) - grid.centre).sum())
    truth = (grid.centre + centred / len(wages)) * grid.unit
    draws = np.random.default_rng(23)  # simulated noise for a bound check only (fixed: the test is repeatable)
    repeats = 8000  # the coverage to ±0.0024 (one standard error)
    sums = simulated_noise(noises[0].kind.value, noises[0].scale, repeats, draws)
    counts = simulated_noise(noises[1].kind.value, noises[1].scale, repeats, draws)
    covered, stated = [], []
    for z_sum, z_count in zip(sums, counts):
        cell = statistic.estimate([[centred + z_sum], [len(wages) + z_count]], noises, s, 0.95)[0]
        covered.append(abs(cell.raw_value - truth) <= cell.error)
        stated.append(cell.error)
    coverage = float(np.mean(covered))

    print(f"ε = {epsilon:.4g}; coverage {coverage:.4f}; stated ± from {min(stated):.1f} to {max(stated):.1f}")
    assert 0.945 <= coverage <= 0.975, coverage
    assert np.quantile(stated, 0.99) <= target * 1.01  # the target holds (up to the count noise in n̂)


SMALL_GROUP_SIZES = (8, 15, 30, 60)
SPREAD_REPEATS = 1500


def _plug_in_spread_bound(statistic, noises, s: Schema, size: float, first: float, second: float) -> float:
    """The bound as it was before issue 37: the 95% point of the error simulated at the released moments (the
    test must catch it)."""
    from workbench.core.privacy.accuracy import simulated_halfwidth, simulated_noise, simulation_rng

    grid, squares, _ = statistic._grids(s)
    largest = squares.upper
    mean = min(max(first / size, -np.sqrt(largest)), np.sqrt(largest))
    moment = min(max(second / size, mean * mean), largest)
    rng = simulation_rng()
    z1 = simulated_noise(noises[0].kind.value, noises[0].scale, 4000, rng) * grid.unit
    z2 = simulated_noise(noises[1].kind.value, noises[1].scale, 4000, rng) * squares.unit
    zn = simulated_noise(noises[2].kind.value, noises[2].scale, 4000, rng)
    truth = statistic._finish(statistic._from_moments(np.array([mean * size]), np.array([moment * size]),
                                                      np.array([size]), largest))
    released = statistic._finish(statistic._from_moments(mean * size + z1, moment * size + z2, size + zn, largest))
    return simulated_halfwidth(released - truth[0], 0.95)


@pytest.mark.parametrize("mechanism,epsilon", [(MechanismKind.LAPLACE, 1.0), (MechanismKind.GAUSSIAN, 2.0)])
def test_variance_and_standard_deviation_bounds_cover_small_groups_near_a_bound(mechanism, epsilon):
    """Issue 37, 1: by group, with groups of 8, 15, 30 and 60 rows of values near the upper bound of [0, 100]
    (100 less an exponential of mean 4, clamped: ties at the bound), the bound simulated at the released moments
    covered 88-95%. The bound that reaches every variance consistent with the released sums (``variance_bounds``)
    covers at least 95% in every group. 1,500 releases per group, noise drawn with numpy at a fixed seed (this
    checks the bound, not OpenDP). A bound that covers exactly 95% would fail the pooled check (6,000 cells, below
    94.3%: 2.5 standard errors) with probability 0.6% and a group's (1,500 cells, below 93.3%: 3 standard errors)
    with probability about 0.1% each; the new bound covers 99-100% here, where the noise is several times the
    range of the data (a bound valid for every true variance must then reach most of the range)."""
    from workbench.core.privacy.accuracy import simulated_noise

    draws = np.random.default_rng(37)  # synthetic data and simulated noise for a bound check only
    x = np.concatenate([np.clip(100 - draws.exponential(4.0, n), 0, 100).round(2) for n in SMALL_GROUP_SIZES])
    names = tuple(f"g{i}" for i in range(len(SMALL_GROUP_SIZES)))
    frame = pd.DataFrame({"x": x, "g": np.repeat(names, SMALL_GROUP_SIZES)})
    s = Schema(columns=(NumericColumn("x", lower=0, upper=100), CategoricalColumn("g", names, outside=OutsideCategories.DROP)),
               unit=PrivacyUnit(), neighbouring=Neighbouring.ADD_REMOVE)
    delta = 1e-6 if mechanism is MechanismKind.GAUSSIAN else 0.0
    table = Table(frame=frame, source=Path("small.csv"), file_format="text")
    for statistic in (Variance("x", by="g"), StandardDeviation("x", by="g")):
        noises = PlannedStatistic(statistic, mechanism, Budget(epsilon, delta)).noises(s)
        exact = statistic.exact(prepare(table, s))
        grid, squares, _ = statistic._grids(s)
        truth = statistic._finish(statistic._from_moments(np.array(exact[0]) * grid.unit, np.array(exact[1]) * squares.unit,
                                                          np.array(exact[2], dtype=float), squares.upper))
        noise = [simulated_noise(n.kind.value, n.scale, SPREAD_REPEATS * len(names), draws).reshape(SPREAD_REPEATS, -1)
                 for n in noises]
        covered, plug_in = np.zeros(len(names)), np.zeros(len(names))
        for r in range(SPREAD_REPEATS):
            noisy = [[int(e + z) for e, z in zip(answers, part[r])] for answers, part in zip(exact, noise)]
            for g, cell in enumerate(statistic.estimate(noisy, noises, s, 0.95)):
                if cell.value is None:  # no value released (noisy count below 2): nothing stated, nothing missed
                    covered[g] += 1
                    plug_in[g] += 1
                    continue
                error = abs(cell.raw_value - truth[g])
                covered[g] += error <= cell.error
                size = float(noisy[2][g])
                plug_in[g] += error <= _plug_in_spread_bound(statistic, noises, s, size, noisy[0][g] * grid.unit,
                                                             noisy[1][g] * squares.unit)
        coverage, old = covered / SPREAD_REPEATS, plug_in / SPREAD_REPEATS
        print(f"{statistic.label}: coverage {np.round(coverage, 4)}; at the released moments {np.round(old, 4)}")
        assert coverage.mean() >= 0.943 and coverage.min() >= 0.933, coverage
        assert old.min() < 0.933, old  # the test catches the bound it replaces


def test_a_weighted_counts_bound_covers_95_percent_exactly_on_its_fine_grid():
    """Issue 37, 2: the weighted count covered 94.1-94.9% in 4,000-release runs. Its noise has a scale of about
    10¹⁰ steps of the weights' grid, so its bound has none of the whole-step slack that lifts other bounds above
    95%: the tail beyond it is 5.0% exactly, and 4,000 releases vary by 0.34 points (one standard error). On
    200,000 releases of OpenDP's noise the coverage is at least 94.8% (4 standard errors below 95%: a false
    failure with probability about 3e-5), and the exact tail is at most 5%."""
    from workbench.core.privacy.accuracy import discrete_laplace_tail

    statistic = Count(weighted_by="wt")
    s = schema(Neighbouring.SUBSTITUTE, 1)
    noises = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(0.3, 0.0)).noises(s)
    unit = statistic.queries(s)[0].unit
    exact = statistic.exact(prepare(TABLE, s))[0][0]
    stated = min(cell.error for cell in statistic.estimate([[exact]], noises, s, 0.95))  # the noise's bound and more
    steps = statistic.error_bound(noises, s, None, 0.95) / unit
    assert noises[0].scale > 1e9 and discrete_laplace_tail(noises[0].scale, round(steps)) <= 0.05
    released = noises[0].sample([exact] * 200_000)
    coverage = float(np.mean(np.abs(released - exact) * unit <= stated))
    print(f"coverage {coverage:.4f}")
    assert coverage >= 0.948, coverage
