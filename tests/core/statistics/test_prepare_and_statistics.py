"""Exact values: preparation rules (truncation, missing values, clamping) and each statistic."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data.io import Table
from workbench.core.data.prepare import prepare
from workbench.core.data.schema import (
    OTHER_BIN,
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
from workbench.core.errors import SchemaError, WorkbenchError
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.statistics.counts import Count, Histogram
from workbench.core.statistics.grid import SumGrid, exact_sum
from workbench.core.statistics.moments import Mean, Sum


def table(**columns) -> Table:
    return Table(frame=pd.DataFrame(columns), source=Path("t.csv"), file_format="text")


def test_each_person_keeps_first_k_rows_in_file_order_and_rows_without_id_are_left_out():
    t = table(pid=["a", "b", "a", None, "a", "b"], x=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    s = Schema((IdentifierColumn("pid"), NumericColumn("x", lower=0, upper=10)), PrivacyUnit("pid", 2))
    data = prepare(t, s)
    assert list(data.frame["x"]) == [1.0, 2.0, 3.0, 6.0]


def test_values_are_clamped_into_the_public_bounds():
    s = Schema((NumericColumn("x", lower=0, upper=10),))
    assert list(prepare(table(x=[-5.0, 3.0, 50.0]), s).numeric("x")) == [0.0, 3.0, 10.0]


def test_missing_values_are_dropped_per_statistic_or_imputed():
    t = table(x=[1.0, None, 3.0], y=[None, 2.0, 4.0])
    s = Schema(
        (
            NumericColumn("x", lower=0, upper=10, missing=MissingPolicy(MissingAction.DROP)),
            NumericColumn("y", lower=0, upper=10, missing=MissingPolicy(MissingAction.IMPUTE, 5.0)),
        )
    )
    data = prepare(t, s)
    assert list(data.numeric("x")) == [1.0, 3.0]  # the row missing x is left out of x's statistics only
    assert list(data.numeric("y")) == [5.0, 2.0, 4.0]
    assert Count().exact(data) == ([3],)
    assert Mean("x").exact(data)[1] == [2]  # the mean's count is over the complete cases


def test_text_in_a_numeric_column_is_named_with_an_example():
    s = Schema((NumericColumn("income", lower=0, upper=10),))
    with pytest.raises(SchemaError, match=r"'income'.*1 of its values is not numbers.*'unknown'"):  # n/a: missing
        prepare(table(income=["1", "n/a", "3", "unknown"]), s)


def test_numbers_stored_as_text_are_read_as_numbers():
    s = Schema((NumericColumn("x", lower=0, upper=10, missing=MissingPolicy(MissingAction.DROP)),))
    assert list(prepare(table(x=["1.5", " 2", "", None]), s).numeric("x")) == [1.5, 2.0]


def test_a_plan_for_another_dataset_names_the_missing_columns():
    s = Schema((NumericColumn("salary", lower=0, upper=10),))
    with pytest.raises(SchemaError, match=r"'salary'.*not in t.csv.*another dataset"):
        prepare(table(x=[1.0]), s)


def test_histogram_releases_every_public_category_even_empty_and_an_other_bin():
    t = table(c=["a", "a", "zzz-rare", "b", None])
    keep = Schema((CategoricalColumn("c", categories=("a", "b", "never"), missing=MissingPolicy(MissingAction.DROP)),))
    drop = Schema((CategoricalColumn("c", categories=("a", "b", "never"), outside=OutsideCategories.DROP,
                                     missing=MissingPolicy(MissingAction.DROP)),))
    assert keep.columns[0].bins == ("a", "b", "never", OTHER_BIN)
    assert Histogram("c").exact(prepare(t, keep)) == ([2, 1, 0, 1],)
    assert Histogram("c").exact(prepare(t, drop)) == ([2, 1, 0],)


def test_numeric_histogram_counts_half_open_intervals_between_public_edges():
    """[0, 18), [18, 65), [65, 100]: an edge belongs to the interval above it, the upper bound to the last one,
    and values outside the bounds (clamped) to the first or last interval."""
    s = Schema((NumericColumn("age", lower=0, upper=100, missing=MissingPolicy(MissingAction.DROP)),
                CategoricalColumn("sex", categories=("f", "m"), outside=OutsideCategories.DROP,
                                  missing=MissingPolicy(MissingAction.DROP))))
    data = prepare(table(age=[-3.0, 0.0, 17.99, 18.0, 64.0, 65.0, 100.0, 250.0, None],
                         sex=["f", "m", "f", "f", "m", "m", "f", "m", "f"]), s)
    histogram = Histogram("age", edges=(18, 65))
    assert histogram.exact(data) == ([3, 2, 3],)
    assert [cell.label for cell in histogram.estimate([[3, 2, 3]], histogram_noise(histogram, s), s, 0.95)] == [
        "[0, 18)", "[18, 65)", "[65, 100]"]
    assert Histogram("age", by="sex", edges=(18, 65)).exact(data) == ([2, 1, 1, 1, 1, 2],)  # f: 2, 1, 1; m: 1, 1, 2
    assert "between the public edges" in histogram.method(s)
    income = Schema((NumericColumn("income", lower=0, upper=2e6),))
    wide = Histogram("income", edges=(100000.1, 100000.4, 1e6))
    assert wide.label == "histogram of income cut at 100000.1, 100000.4, 1000000"
    assert [c.label for c in wide.estimate([[0, 0, 0, 0]], histogram_noise(wide, income), income, 0.95)] == [
        "[0, 100000.1)", "[100000.1, 100000.4)", "[100000.4, 1000000)", "[1000000, 2000000]"]


def histogram_noise(histogram, schema):
    from workbench.core.privacy.mechanisms import calibrate

    (query,) = histogram.queries(schema)
    return (calibrate(MechanismKind.LAPLACE, query.sensitivity.l1, 1.0),)


@pytest.mark.parametrize("statistic, says", [
    (Histogram("age"), r"needs the edges that cut its bounds \[0, 100\] into intervals"),
    (Histogram("age", edges=(65, 18)), r"must increase and lie strictly between its bounds 0 and 100"),
    (Histogram("age", edges=(0, 50)), r"strictly between its bounds"),
    (Histogram("age", edges=(50, 100)), r"strictly between its bounds"),
    (Histogram("sex", edges=(1,)), r"edges, which are for a numeric column.*'sex' is described as categorical"),
])
def test_numeric_histogram_edges_are_checked_before_any_data(statistic, says):
    s = Schema((NumericColumn("age", lower=0, upper=100), CategoricalColumn("sex", categories=("f", "m"))))
    with pytest.raises(WorkbenchError, match=says):
        statistic.queries(s)


def test_categories_match_whole_numbers_written_as_floats():
    t = table(region=[1.0, 2.0, None, 2.0])
    s = Schema((CategoricalColumn("region", categories=("1", "2"), missing=MissingPolicy(MissingAction.IMPUTE, "1")),))
    assert Histogram("region").exact(prepare(t, s)) == ([2, 2, 0],)


def test_sum_and_mean_are_exact_on_the_integer_grid():
    values = [0.1, 0.2, 0.3, 99.99]
    s = Schema((NumericColumn("x", lower=0, upper=100),))
    data = prepare(table(x=values), s)
    grid = SumGrid(0.0, 100.0)
    (total,) = Sum("x").exact(data)
    assert total[0] * grid.unit == pytest.approx(sum(values), abs=len(values) * grid.unit)
    centred, count = Mean("x").exact(data)
    assert count == [4]
    assert (centred[0] + 4 * ((grid.lo + grid.hi) // 2)) == total[0]


def test_exact_sum_has_no_floating_point_error_where_a_float_sum_has():
    # A float sum of these is order-dependent (Casacuberta et al. 2022); the integer sum is not.
    grid = SumGrid(-1e15, 1e15)
    values = np.array([1e15, 1.0, -1e15, 1.0] * 1000)
    ints = grid.to_integers(values)
    assert exact_sum(ints) == exact_sum(ints[::-1]) == exact_sum(np.sort(ints))
    assert exact_sum(np.array([2**40] * (3 * 2**20), dtype=np.int64)) == 3 * 2**60  # no int64 overflow across chunks


def test_sums_by_cell_counted_into_an_array_are_exact_where_a_float_sum_is_not():
    """The in-memory engine's fast sums per cell equal Python's integer sums: values near ±2^62, cells with more
    rows than one chunk, empty cells left out, a cell whose sum is 0 kept."""
    from workbench.core.data.aggregates import exact_sums_by_cell

    rng = np.random.default_rng(3)
    rows, size = 3 * 2**20 + 17, 9
    codes = rng.choice([0, 2, 3, 7, 8], size=rows, p=[0.9, 0.04, 0.03, 0.02, 0.01])
    values = rng.integers(-(2**62), 2**62, size=rows, dtype=np.int64)
    values[codes == 8] = 0
    values[:5] = [2**62, -(2**62), 2**62 - 1, -1, 1]
    cells, totals = exact_sums_by_cell(codes, values, size)
    expected = {c: sum(int(v) for v in values[codes == c]) for c in np.unique(codes)}
    assert cells.tolist() == sorted(expected) and totals == [expected[c] for c in cells.tolist()]
    assert float(np.sum(values[codes == 0].astype(np.float64))) != expected[0]  # what a float sum would give


def test_grid_unit_is_a_power_of_two_fine_enough_for_the_bounds():
    for lower, upper in [(0, 1), (0, 100), (-3.5, 250_000), (1e-3, 2e-3)]:
        grid = SumGrid(lower, upper)
        mantissa, _ = np.frexp(grid.unit)
        assert mantissa == 0.5
        assert max(abs(lower), abs(upper)) / grid.unit <= 2**32
        assert grid.unit <= max(abs(lower), abs(upper)) * 2**-31


def test_count_under_substitute_with_one_row_per_person_is_the_public_size():
    s = Schema((NumericColumn("x", lower=0, upper=1),), neighbouring=Neighbouring.SUBSTITUTE, public_size=1234)
    assert Count().queries(s) == ()
    (cell,) = Count().estimate([], [], s, 0.95)
    assert cell.value == 1234 and cell.error == 0


def test_statistics_by_group_equal_pandas_groupby_on_complete_cases():
    t = table(
        x=[1.0, 2.0, None, 4.0, 50.0, 6.0, 7.0],
        g=["a", "b", "a", None, "a", "zz", "b"],
        c=["u", "v", "u", "u", "v", "v", None],
    )
    s = Schema((
        NumericColumn("x", lower=0, upper=10, missing=MissingPolicy(MissingAction.DROP)),
        CategoricalColumn("g", categories=("a", "b", "c"), missing=MissingPolicy(MissingAction.DROP)),
        CategoricalColumn("c", categories=("u", "v"), missing=MissingPolicy(MissingAction.DROP)),
    ))
    data = prepare(t, s)
    assert Count(by="g").groups(s) == ("a", "b", "c", OTHER_BIN)
    assert Count(by="g").exact(data) == ([3, 2, 0, 1],)  # 'zz' lands in (other), the missing one nowhere
    grid = SumGrid(0.0, 10.0)
    (sums,) = Sum("x", by="g").exact(data)
    assert [s_ * grid.unit for s_ in sums] == [11.0, 9.0, 0.0, 6.0]  # 50 clamped to 10; missing x left out
    centred, counts = Mean("x", by="g").exact(data)
    assert counts == [2, 2, 0, 1]
    centre = (grid.lo + grid.hi) // 2
    assert [v * grid.unit for v in centred] == [11.0 - 2 * centre * grid.unit, 9.0 - 2 * centre * grid.unit, 0.0, 1.0]
    (cells,) = Histogram("c", by="g").exact(data)
    # groups a, b, c, (other) x bins u, v, (other); rows missing c or g are left out
    assert cells == [2, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0]


def test_cross_tabulation_labels_every_group_and_bin():
    s = Schema((CategoricalColumn("g", categories=("a", "b")), CategoricalColumn("c", categories=("u",))))
    from workbench.core.privacy.mechanisms import MechanismKind, calibrate

    noise = calibrate(MechanismKind.LAPLACE, 1, 1.0)
    cells = Histogram("c", by="g").estimate([[5, 0, 1, 2, 3, 4, 0, 0, 7]], [noise], s, 0.95)
    assert [c.label for c in cells][:3] == ["a / u", "a / (other)", "b / u"]
    assert len(cells) == 6 and [c.value for c in cells] == [5, 0, 1, 2, 3, 4]


def test_grouping_by_a_numeric_column_is_refused_with_a_clear_message():
    s = Schema((NumericColumn("x", lower=0, upper=10), NumericColumn("y", lower=0, upper=1)))
    with pytest.raises(SchemaError, match=r"A sum by group of 'y' needs a categorical column"):
        Sum("x", by="y").queries(s)


def test_each_categorical_value_is_binned_by_itself_and_the_public_list():
    """Texts are trimmed (' b' and 'b' are one category); a stored number is in the public category it equals as a
    number, whether or not the column's other values are whole; a missing value stays missing unless imputed, and
    an imputed category that is not in the list goes to (other)."""
    s = Schema((
        CategoricalColumn("n", ("1", "2", "2.5"), outside=OutsideCategories.OTHER),
        CategoricalColumn("t", ("a", "b"), missing=MissingPolicy(MissingAction.IMPUTE, "unknown")),
        CategoricalColumn("f", ("1.0", "2.5")),
    ))
    data = prepare(table(n=[1.0, 2.0, None, 7.0], t=["a", " b", None, "b "], f=[1.0, 2.5, 2.5, None]), s)
    bins = data.prepared_rows()
    assert bins["n"].tolist()[:2] + bins["n"].tolist()[3:] == [0, 1, 3] and np.isnan(bins["n"][2])
    assert bins["t"].tolist() == [0, 1, 2, 1]
    assert bins["f"].tolist()[:3] == [0, 1, 1]
    assert Histogram("n").exact(data) == ([1, 1, 0, 1],)  # 7 falls in (other)
    assert Histogram("t").exact(data) == ([1, 2, 1],)  # 'unknown' is outside the list: (other)
    assert Count(by="t").exact(data) == ([1, 2, 1],)


def test_categories_of_infinite_floats_are_matched_as_numbers_not_a_crash():
    s = Schema((CategoricalColumn("x", ("1", "inf")),))
    data = prepare(table(x=[1.0, float("inf"), float("-inf")]), s)
    assert Histogram("x").exact(data) == ([1, 1, 1],)  # the public 'inf' is a number: a stored infinity is in it


def test_a_schema_keeps_its_hash_and_equality_and_is_pickled_without_the_cached_hash():
    import pickle
    from dataclasses import replace

    s = Schema((CategoricalColumn("c", ("a", "b")), NumericColumn("x", lower=0, upper=1)))
    assert hash(s) == hash(replace(s)) and s == replace(s)
    copy = pickle.loads(pickle.dumps(s))
    assert copy == s and "_hash" not in copy.__dict__ and hash(copy) == hash(s)


@pytest.mark.parametrize("lower, upper", [(0.0, 100.0), (0.0, 80.0), (1.0, 8.0), (-3.7, 12.9), (0.0, 500_000.0),
                                          (1e12, 1e12 + 1000), (-1e-9, 1e-9)])
def test_positions_among_evenly_spaced_candidates_are_numpys_search(lower, upper):
    """A quantile's rank slots find each value's place among the candidates by their spacing and check it against
    its neighbours (``prepare._left_positions``): every place is the one numpy's search finds, for whole numbers,
    values on the candidates, between them, beyond the bounds, infinities and NaN."""
    from workbench.core.data.prepare import _left_positions
    from workbench.core.privacy.mechanisms import bounds_candidates, quantile_candidates

    rng = np.random.default_rng(11)
    candidates = np.asarray(quantile_candidates(lower, upper))
    span = upper - lower
    values = np.concatenate([
        candidates, np.nextafter(candidates, np.inf), np.nextafter(candidates, -np.inf),
        np.round(rng.uniform(lower, upper, 20_000)), np.round(rng.uniform(lower, upper, 20_000), 1),
        rng.uniform(lower - span, upper + span, 20_000), [np.nan, np.inf, -np.inf, lower, upper],
    ])
    assert np.array_equal(_left_positions(candidates, values), np.searchsorted(candidates, values, side="left"))
    spread = np.asarray(bounds_candidates(-1e9, 1e9))  # log-spaced: searched as before
    assert np.array_equal(_left_positions(spread, values), np.searchsorted(spread, values, side="left"))
