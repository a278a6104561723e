"""Statistical privacy tests: empirical privacy loss on neighbouring inputs stays within ε.

Each test samples the real mechanism (OpenDP) 100,000 times on each of two neighbouring
inputs. By construction of ``empirical_epsilon`` a correct mechanism fails a test with
probability at most 1e-6 (the Clopper-Pearson level): that is the false-failure rate.
The same check is shown to catch broken mechanisms (too little noise).
"""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from privacy_check import empirical_epsilon, epsilon_from_events

from workbench.core.data.io import Table
from workbench.core.data.prepare import prepare
from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    Neighbouring,
    NumericColumn,
    OutsideCategories,
    PrivacyUnit,
    Schema,
)
from workbench.core.privacy.mechanisms import MechanismKind, Noise, calibrate
from workbench.core.release.plan import Budget, PlannedStatistic
from workbench.core.statistics.counts import Histogram
from workbench.core.statistics.moments import Mean, Sum
from workbench.core.statistics.quantiles import Quantiles

N = 100_000
pytestmark = pytest.mark.statistical


def draws(noise: Noise, exact: int, n: int = N) -> np.ndarray:
    return noise.sample([exact] * n).astype(float)


def thresholds(centre: float, scale: float) -> list[float]:
    return [centre + scale * j for j in np.arange(-3, 3.5, 0.5)]


def test_laplace_stays_within_epsilon_and_half_scale_is_caught():
    epsilon = 1.0
    noise = calibrate(MechanismKind.LAPLACE, 1, epsilon)
    broken = Noise(noise.kind, noise.sensitivity, noise.scale / 2, epsilon, 0.0)

    honest = empirical_epsilon(draws(noise, 0), draws(noise, 1), thresholds(0.5, noise.scale))
    caught = empirical_epsilon(draws(broken, 0), draws(broken, 1), thresholds(0.5, broken.scale))

    assert honest.epsilon_lower_bound <= epsilon, honest
    assert caught.epsilon_lower_bound > epsilon, caught


def test_gaussian_stays_within_epsilon_delta_and_half_scale_is_caught():
    epsilon, delta = 1.0, 1e-3
    noise = calibrate(MechanismKind.GAUSSIAN, 1.0, epsilon, delta)
    broken = Noise(noise.kind, noise.sensitivity, noise.scale / 2, epsilon, delta)

    honest = empirical_epsilon(draws(noise, 0), draws(noise, 1), thresholds(0.5, noise.scale), delta=delta)
    caught = empirical_epsilon(draws(broken, 0), draws(broken, 1), thresholds(0.5, broken.scale), delta=delta)

    assert honest.epsilon_lower_bound <= epsilon, honest
    assert caught.epsilon_lower_bound > epsilon, caught


def _table(frame: pd.DataFrame) -> Table:
    from pathlib import Path

    return Table(frame=frame, source=Path("neighbours.csv"), file_format="text")


def test_sum_over_a_person_with_k_rows_stays_within_epsilon():
    """End to end through prepare, Sum and calibration: one person with k = 2 extreme rows."""
    schema = Schema(
        columns=(IdentifierColumn("pid"), NumericColumn("x", lower=-5, upper=10)),
        unit=PrivacyUnit("pid", 2),
    )
    planned = PlannedStatistic(Sum("x"), MechanismKind.LAPLACE, Budget(1.0))
    others = pd.DataFrame({"pid": [1, 1, 2, 3], "x": [3.0, 4.0, -2.0, 7.5]})
    victim = pd.DataFrame({"pid": [9, 9, 9], "x": [50.0, 10.0, 10.0]})  # third row is truncated
    with_victim = pd.concat([others, victim], ignore_index=True)

    (noise,) = planned.noises(schema)
    (exact_without,) = Sum("x").exact(prepare(_table(others), schema))
    (exact_with,) = Sum("x").exact(prepare(_table(with_victim), schema))
    assert exact_with[0] - exact_without[0] == noise.sensitivity  # the worst case is really reached

    estimate = empirical_epsilon(
        draws(noise, exact_without[0]), draws(noise, exact_with[0]), thresholds(exact_without[0], noise.scale)
    )
    assert estimate.epsilon_lower_bound <= 1.0, estimate


def test_histogram_under_substitute_stays_within_epsilon():
    """Replacing one person's two rows moves two bins each way: L1 sensitivity 2k = 4."""
    schema = Schema(
        columns=(IdentifierColumn("pid"), CategoricalColumn("c", categories=("a", "b"), outside=OutsideCategories.DROP)),
        unit=PrivacyUnit("pid", 2),
        neighbouring=Neighbouring.SUBSTITUTE,
        public_size=3,
    )
    planned = PlannedStatistic(Histogram("c"), MechanismKind.LAPLACE, Budget(1.0))
    base = pd.DataFrame({"pid": [1, 2, 2], "c": ["a", "b", "a"]})
    x = pd.concat([base, pd.DataFrame({"pid": [3, 3], "c": ["a", "a"]})], ignore_index=True)
    y = pd.concat([base, pd.DataFrame({"pid": [3, 3], "c": ["b", "b"]})], ignore_index=True)

    (noise,) = planned.noises(schema)
    (bins_x,) = Histogram("c").exact(prepare(_table(x), schema))
    (bins_y,) = Histogram("c").exact(prepare(_table(y), schema))
    assert sum(abs(a - b) for a, b in zip(bins_x, bins_y)) == noise.sensitivity

    def corner_events(mechanism: Noise, bins: list[int]) -> dict[str, np.ndarray]:
        """{bin a high and bin b low}: both bins move against each other, the full L1 distance."""
        noisy = mechanism.sample(bins * N).astype(float).reshape(-1, 2)
        return {f"a >= {4 + j}, b <= {1 - j}": (noisy[:, 0] >= 4 + j) & (noisy[:, 1] <= 1 - j) for j in range(3)}

    assert (bins_x, bins_y) == ([4, 1], [2, 3])
    honest = epsilon_from_events(corner_events(noise, bins_x), corner_events(noise, bins_y))
    assert honest.epsilon_lower_bound <= 1.0, honest

    # Calibrating with the add/remove sensitivity (k instead of 2k) would be a privacy bug; it is seen.
    wrong = calibrate(MechanismKind.LAPLACE, 2, 1.0)
    caught = epsilon_from_events(corner_events(wrong, bins_x), corner_events(wrong, bins_y))
    assert caught.epsilon_lower_bound > 1.0, caught


def test_sum_by_group_under_substitute_stays_within_epsilon():
    """A person moved from group a to group b moves both group sums: L1 = 2 x upper, not upper."""
    schema = Schema(
        columns=(NumericColumn("x", lower=0, upper=10), CategoricalColumn("g", categories=("a", "b"))),
        neighbouring=Neighbouring.SUBSTITUTE,
        public_size=4,
    )
    statistic = Sum("x", by="g")
    planned = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(1.0))
    base = pd.DataFrame({"x": [1.0, 2.0, 3.0], "g": ["a", "b", "a"]})
    x = pd.concat([base, pd.DataFrame({"x": [10.0], "g": ["a"]})], ignore_index=True)
    y = pd.concat([base, pd.DataFrame({"x": [10.0], "g": ["b"]})], ignore_index=True)

    (noise,) = planned.noises(schema)
    (sums_x,) = statistic.exact(prepare(_table(x), schema))
    (sums_y,) = statistic.exact(prepare(_table(y), schema))
    assert sum(abs(a - b) for a, b in zip(sums_x, sums_y)) == noise.sensitivity  # 2 x 10 on the grid

    def corner_events(mechanism: Noise, sums: list[int]) -> dict[str, np.ndarray]:
        """{sum a above both inputs' a, sum b below both inputs' b}: the full L1 distance shows."""
        noisy = mechanism.sample(sums * N).astype(float).reshape(N, len(sums))  # groups a, b, (other)
        step = noise.scale / 2
        high_a, low_b = max(sums_x[0], sums_y[0]), min(sums_x[1], sums_y[1])
        return {
            f"a high, b low ({j})": (noisy[:, 0] >= high_a + j * step) & (noisy[:, 1] <= low_b - j * step)
            for j in range(3)
        }

    honest = epsilon_from_events(corner_events(noise, sums_x), corner_events(noise, sums_y))
    assert honest.epsilon_lower_bound <= 1.0, honest

    # Treating the groups as separate sums (the sensitivity of one sum) would be a privacy bug; it is seen.
    ungrouped = Sum("x").queries(schema)[0].sensitivity.l1
    wrong = calibrate(MechanismKind.LAPLACE, ungrouped, 1.0)
    caught = epsilon_from_events(corner_events(wrong, sums_x), corner_events(wrong, sums_y))
    assert caught.epsilon_lower_bound > 1.0, caught


def test_mean_by_two_columns_with_k_rows_under_substitute_stays_within_epsilon():
    """Groups by region and sex: a person's k = 2 rows moved from (north, f) to (south, m) move both groups'
    centred sums and counts. End to end through prepare, the plan's calibration and OpenDP's noise; a
    sensitivity that forgets the person's second row (k = 1) is caught. (For a centred sum, one sum's
    substitute sensitivity k (upper - lower) equals the grouped one, so that breakage would not differ.)"""
    schema = Schema(
        columns=(IdentifierColumn("pid"), NumericColumn("x", lower=0, upper=10),
                 CategoricalColumn("region", categories=("north", "south"), outside=OutsideCategories.DROP),
                 CategoricalColumn("sex", categories=("f", "m"), outside=OutsideCategories.DROP)),
        unit=PrivacyUnit("pid", 2),
        neighbouring=Neighbouring.SUBSTITUTE,
        public_size=5,
    )
    statistic = Mean("x", by=("region", "sex"))
    planned = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(1.0))
    base = pd.DataFrame({"pid": [1, 2, 2], "x": [1.0, 2.0, 3.0], "region": ["north", "south", "north"],
                         "sex": ["m", "f", "f"]})
    x = pd.concat([base, pd.DataFrame({"pid": [3, 3], "x": [10.0, 10.0], "region": "north", "sex": "f"})])
    y = pd.concat([base, pd.DataFrame({"pid": [3, 3], "x": [10.0, 10.0], "region": "south", "sex": "m"})])
    noise, _ = planned.noises(schema)  # the centred sum's; the count's is checked by the histogram tests
    (sums_x, _), (sums_y, _) = (statistic.exact(prepare(_table(t.reset_index(drop=True)), schema)) for t in (x, y))
    assert statistic.groups(schema) == ("north / f", "north / m", "south / f", "south / m")
    assert sum(abs(a - b) for a, b in zip(sums_x, sums_y)) == noise.sensitivity  # groups 0 and 3 move by 2k x 5

    def corner_events(mechanism: Noise, sums: list[int]) -> dict[str, np.ndarray]:
        noisy = mechanism.sample(sums * N).astype(float).reshape(N, len(sums))  # (north, f) ... (south, m)
        step = noise.scale / 2
        high, low = max(sums_x[0], sums_y[0]), min(sums_x[3], sums_y[3])
        return {f"(north, f) high, (south, m) low ({j})": (noisy[:, 0] >= high + j * step)
                & (noisy[:, 3] <= low - j * step) for j in range(3)}

    honest = epsilon_from_events(corner_events(noise, sums_x), corner_events(noise, sums_y))
    assert honest.epsilon_lower_bound <= planned.budget.epsilon / 2, honest  # the sum gets half of ε

    one_row = Mean("x", by=("region", "sex")).queries(replace(schema, unit=PrivacyUnit()))[0].sensitivity.l1
    assert one_row == noise.sensitivity / 2
    wrong = calibrate(MechanismKind.LAPLACE, one_row, noise.epsilon)
    caught = epsilon_from_events(corner_events(wrong, sums_x), corner_events(wrong, sums_y))
    assert caught.epsilon_lower_bound > noise.epsilon, caught


def test_proportions_under_substitute_stay_within_epsilon():
    """Shares are the histogram's noisy counts over their noisy total: post-processing, so their loss is the
    histogram's. One person moved from category 0 to 1 moves both shares; the released shares' corner
    events stay within ε, and the add/remove sensitivity (half of substitute's) is caught."""
    from workbench.core.statistics.proportions import Proportion

    schema = Schema(
        columns=(CategoricalColumn("c", categories=("0", "1", "2"), outside=OutsideCategories.DROP),),
        neighbouring=Neighbouring.SUBSTITUTE,
        public_size=1005,
    )
    statistic = Proportion("c")
    planned = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(1.0))
    base = pd.DataFrame({"c": ["2"] * 1000 + ["0", "0", "1", "1"]})
    x = pd.concat([base, pd.DataFrame({"c": ["0"]})], ignore_index=True)
    y = pd.concat([base, pd.DataFrame({"c": ["1"]})], ignore_index=True)
    (noise,) = planned.noises(schema)
    (counts_x,), (counts_y,) = (statistic.exact(prepare(_table(t), schema)) for t in (x, y))
    assert (counts_x, counts_y) == ([3, 2, 1000], [2, 3, 1000])

    def corner_events(mechanism: Noise, counts: list[int]) -> dict[str, np.ndarray]:
        noisy = mechanism.sample(counts * N).reshape(N, 3)
        shares = np.array([[c.value for c in statistic.estimate([row], [mechanism], schema, 0.95)] for row in noisy])
        return {f"share 1 >= {(3 + j) / 1005:.4f}, share 0 <= {(2 - j) / 1005:.4f}":
                (shares[:, 1] >= (3 + j) / 1005) & (shares[:, 0] <= (2 - j) / 1005) for j in range(3)}

    honest = epsilon_from_events(corner_events(noise, counts_y), corner_events(noise, counts_x))
    assert honest.epsilon_lower_bound <= 1.0, honest

    wrong = calibrate(MechanismKind.LAPLACE, 1, 1.0)  # the add/remove sensitivity under substitute
    caught = epsilon_from_events(corner_events(wrong, counts_y), corner_events(wrong, counts_x))
    assert caught.epsilon_lower_bound > 1.0, caught


def test_weighted_sum_over_a_person_with_k_heavy_rows_stays_within_epsilon():
    """Issue 21, 3: a person's two rows at the largest weight and value move the weighted sum by k·w_max·x_max.
    End to end through prepare, the plan's calibration and OpenDP; forgetting the weight (the unweighted
    sum's sensitivity, in the same units) is caught."""
    schema = Schema(
        columns=(IdentifierColumn("pid"), NumericColumn("x", lower=0, upper=10), NumericColumn("w", lower=1, upper=8)),
        unit=PrivacyUnit("pid", 2),
    )
    statistic = Sum("x", weighted_by="w")
    planned = PlannedStatistic(statistic, MechanismKind.LAPLACE, Budget(1.0))
    others = pd.DataFrame({"pid": [1, 1, 2, 3], "x": [3.0, 4.0, 2.0, 7.5], "w": [1.5, 1.5, 6.0, 2.0]})
    victim = pd.DataFrame({"pid": [9, 9], "x": [10.0, 10.0], "w": [8.0, 8.0]})
    with_victim = pd.concat([others, victim], ignore_index=True)
    (noise,) = planned.noises(schema)
    (without,), (with_,) = (statistic.exact(prepare(_table(t), schema)) for t in (others, with_victim))
    assert with_[0] - without[0] == noise.sensitivity  # 2 x 8 x 10 on the product grid: reached
    honest = empirical_epsilon(draws(noise, without[0]), draws(noise, with_[0]), thresholds(without[0], noise.scale))
    assert honest.epsilon_lower_bound <= 1.0, honest

    unit = statistic.queries(schema)[0].unit
    unweighted = Sum("x").queries(schema)[0]
    wrong = calibrate(MechanismKind.LAPLACE, round(unweighted.sensitivity.l1 * unweighted.unit / unit), 1.0)
    caught = empirical_epsilon(draws(wrong, without[0]), draws(wrong, with_[0]), thresholds(without[0], wrong.scale))
    assert caught.epsilon_lower_bound > 1.0, caught


def test_mean_by_group_parts_are_grouped_queries():
    schema = Schema(columns=(NumericColumn("x", lower=0, upper=10), CategoricalColumn("g", categories=("a", "b"))))
    queries = Mean("x", by="g").queries(schema)
    assert [q.name for q in queries] == ["centred sum", "count"] and not any(q.scalar for q in queries)


QUANTILE_DRAWS = 12_000  # each draw is one OpenDP call; the half scale shows a loss near 1.65 against ε = 1


def _quantile_draws(noise: Noise, values: list[float], candidates: list[float], level: float) -> np.ndarray:
    return np.array([noise.select_quantile(values, candidates, level) for _ in range(QUANTILE_DRAWS)])


@pytest.mark.parametrize("neighbouring", [Neighbouring.ADD_REMOVE, Neighbouring.SUBSTITUTE])
def test_quantile_stays_within_epsilon_and_half_scale_is_caught(neighbouring):
    """The calibration of ``Quantiles`` (through the plan) on the pair that makes the median's
    selection tight: a person with k = 2 rows added at the low end (add/remove), or moved from the
    low end to the high end (substitute), and two candidates on either side of the median.

    Each changed row moves both candidates' scores by the sensitivity in opposite directions, and
    the worse candidate stays worse, so permute-and-flip gives it probability exp(-gap/scale)/2 on
    both inputs: the ratio is exactly e^ε at the true scale and e^(2ε) at half of it. (A 21-point
    grid spreads the shift over many candidates and leaves the half scale near 1.25, too close to
    ε for 12,000 draws to separate reliably.)"""
    level, k = 0.5, 2
    schema = Schema(
        columns=(IdentifierColumn("pid"), NumericColumn("x", lower=0, upper=20)),
        unit=PrivacyUnit("pid", k),
        neighbouring=neighbouring,
    )
    (noise,) = PlannedStatistic(Quantiles("x", levels=(level,)), MechanismKind.EXPONENTIAL, Budget(1.0)).noises(schema)
    others = [i + 0.5 for i in range(20)]
    if neighbouring is Neighbouring.ADD_REMOVE:
        x, neighbour, candidates = others, others + [0.25] * k, [8.0, 13.0]
    else:
        x, neighbour, candidates = others + [0.25] * k, others + [19.75] * k, [8.0, 16.0]
    cut = [sum(candidates) / 2]

    def loss(mechanism: Noise):
        return empirical_epsilon(
            _quantile_draws(mechanism, x, candidates, level), _quantile_draws(mechanism, neighbour, candidates, level), cut
        )

    honest = loss(noise)
    assert honest.epsilon_lower_bound <= 1.0, honest

    caught = loss(Noise(noise.kind, noise.sensitivity, noise.scale / 2, noise.epsilon, 0.0))
    assert caught.epsilon_lower_bound > 1.0, caught
