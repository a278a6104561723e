"""How good a synthetic table is on a realistic survey (issue 36): eight columns (region with one huge and one tiny
category, a 20-value occupation falling off like a power law, age, education, employment, income, marital status,
sex), households of up to four persons (k = 4), strong relationships (nobody under 16 works, income follows
education, kept as a measured pair). Every one-way marginal and every marginal MST measured is compared with the
real table's (the test may look at the data; the release never does).

What is predicted, per marginal of c cells at n real rows and N synthetic rows:

- the noise: each measured cell has Gaussian noise of standard deviation σ (OpenDP's, as the release states it), so
  the measured marginal lies ½·c·σ·√(2/π)/n from the true one in expected total variation distance (TVD); the
  model fitted to all the measurements is usually closer (it averages overlapping ones);
- the draw: the rows are drawn from the model by controlled rounding (``fit._draw``): each cell's count is within a
  row or two of the model's (``test_synthetic_draw.py``; measured here 0.5 to 1.0 rows a cell on average over a run's
  marginals, 4.3 for the worst marginal of 14 runs), allowed for as two rows a cell, c/N in TVD, against the noise's
  0.8·σ ≈ 30 rows a cell. (The draw is not i.i.d. sampling, so no binomial term: that would be √(p(1−p)N) rows a
  cell, up to 50 here, and would hide a bad fit.)

The ratio of the observed TVD to the prediction is checked two ways:

- each marginal's at most ``bound(c)``: were the model's error in each cell no larger than its own measurement's
  noise N(0, σ²), ½·Σ|e| over c cells is at most ½·√c·√(Σe²) and Σe²/σ² is χ² with c degrees of freedom, so the
  ratio exceeds √(χ²_c(1 − 10⁻⁶)/c)/√(2/π) with probability at most 10⁻⁶: 4.66 for 2 cells, 3.62 for 4, 2.27 for
  20, 1.82 for 60 (a two-cell marginal's distance is one half-normal draw and can be twice its mean);
- their median at most MEDIAN_RATIO: this is what a worse synthesizer fails.

Measured offline (this table, 2026-11-26, after the columns were given to OpenDP as cuts and MST's fit ran 3,000
iterations: 8 runs): the median ratio of a run 0.51 to 0.66 (mean 0.61, sd 0.05); the largest ratio of a run 0.78 to
1.36, under every marginal's bound. (Before those two changes: 21 runs, 0.60 to 0.85, mean 0.68.) False failures:
the per-marginal check at most 10⁻⁶ for each of the 16 or so marginals, under the assumption above, which the runs
bear out (the distances average about three fifths of the prediction); the median's bound of 0.85 is 5 standard
deviations of the runs above their mean, about 10⁻⁷ by a normal approximation; 8 runs cannot show the tail that far,
so we claim below 10⁻⁴ a run in all (the noise is OpenDP's and cannot be seeded; the table is fixed).

A synthesizer adding three times the noise it states fails: predicting this run's distances with a third of the
stated σ multiplies its median ratio by about 2.7 (measured: predicting with half of it, by 1.89 in each of the 8
runs), so the check fails unless the honest median is below 0.32, 6 standard deviations under its mean. Twice the
noise is caught too unless the honest median is below 0.45 (3.3 standard deviations under it, about one run in
2,000): too often for a test that must never fail falsely, so the test simulates three times. The fit takes about a
minute of CPU (61 s of user time, this fit run alone; 136 s of wall time for the test under a load of 8 on 2 cores,
where the first fit of a process also compiles JAX's functions; the 10-column version took 580 s), well inside
pytest's 900 s.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import synthetic_tables

from workbench.core.data import load_table, prepare
from workbench.core.privacy import MechanismKind
from workbench.core.synthetic import SyntheticTable, cost_of

COLUMNS = ("region", "sex", "age", "education", "employed", "income", "occupation", "marital")
MEDIAN_RATIO = 0.85
FALSE_FAILURE = 1e-6  # of each marginal's own check


def bound(cells: int) -> float:
    """The ratio a marginal of ``cells`` cells exceeds with probability at most FALSE_FAILURE (module docstring)."""
    from scipy.stats import chi2

    return math.sqrt(chi2.isf(FALSE_FAILURE, cells) / cells) / math.sqrt(2 / math.pi)


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """One release of the survey, and a function giving each marginal's observed and predicted distances."""
    from workbench.core.synthetic.fit import release_synthetic

    path = tmp_path_factory.mktemp("utility") / "survey.csv"
    synthetic_tables.survey().to_csv(path, index=False)
    schema = synthetic_tables.schema()
    data = prepare(load_table(path), schema)
    table = SyntheticTable(COLUMNS, edges=tuple((k, v) for k, v in synthetic_tables.EDGES.items() if k in COLUMNS),
                           keep=(("education", "income"),))
    result = release_synthetic(table, schema, data, cost_of(MechanismKind.GAUSSIAN, 2.0, 1e-6))
    axes = {axis.name: axis for axis in table.axes(schema)}
    real_rows = data.frame.dropna(subset=list(table.columns))
    n, drawn = len(real_rows), len(result.frame)

    def real_codes(name: str) -> np.ndarray:
        axis, values = axes[name], real_rows[name].to_numpy()
        if axis.numeric:
            return np.searchsorted(np.asarray(axis.points[1:-1]), values, side="right")
        return values.astype(int)

    def synthetic_codes(name: str) -> np.ndarray:
        return result.frame[name].cat.codes.to_numpy()

    def shares(codes, columns) -> np.ndarray:
        sizes = [len(axes[c].labels) for c in columns]
        cell = np.zeros(len(codes(columns[0])), dtype=np.int64)
        for name, size in zip(columns, sizes):
            cell = cell * size + codes(name)
        counts = np.bincount(cell, minlength=math.prod(sizes)).astype(float)
        return counts / counts.sum()

    def ratios(stated_noise: float = 1.0) -> dict[tuple[str, ...], tuple[float, int]]:
        """Observed TVD over predicted, and the cells, each marginal; ``stated_noise`` scales the σ predicted."""
        out = {}
        for marginal in result.marginals:
            cells = math.prod(len(axes[c].labels) for c in marginal.columns)
            noise = 0.5 * math.sqrt(2 / math.pi) * cells * stated_noise * marginal.noise / n
            draw = cells / drawn  # two rows a cell
            distance = 0.5 * np.abs(shares(real_codes, marginal.columns)
                                    - shares(synthetic_codes, marginal.columns)).sum()
            out[marginal.columns] = (distance / (noise + draw), cells)
        return out

    cut = list(axes["income"].points[1:-1]).index(50_000) + 1  # the first income bin from 50,000 up
    tertiary_code = list(axes["education"].labels).index("tertiary")

    def top_income_gap(codes) -> float:
        """The share of incomes of 50,000 and more among the tertiary-educated, less that among the others."""
        top, tertiary = codes("income") >= cut, codes("education") == tertiary_code
        return float(top[tertiary].mean() - top[~tertiary].mean())

    def gap_noise() -> float:
        """The standard deviation of that gap in a table drawn from the measured (education, income) marginal, to
        first order: each share is a ratio of noisy counts, its top cells over all its group's cells, each cell with
        Gaussian noise of the marginal's σ (their covariance, which lowers it, left out), and the draw's two rows a
        cell added; the fitted model is usually closer than its measurements."""
        (measured,) = [m for m in result.marginals if set(m.columns) == {"education", "income"}]
        bins, levels = len(axes["income"].labels), len(axes["education"].labels)
        income, tertiary = real_codes("income"), real_codes("education") == tertiary_code
        variance = 0.0
        for members, groups in ((tertiary, 1), (~tertiary, levels - 1)):
            size, share = int(members.sum()), float((income[members] >= cut).mean())
            top_cells, all_cells = (bins - cut) * groups, bins * groups
            variance += (measured.noise ** 2 * (top_cells + share ** 2 * all_cells) + (2 * top_cells) ** 2) / size ** 2
        return math.sqrt(variance)

    return table, result, n, ratios, (top_income_gap, real_codes, synthetic_codes, gap_noise)


@pytest.mark.statistical
def test_marginals_lie_within_what_the_noise_predicts_and_the_strong_relationships_are_kept(released):
    table, result, n, ratios, (top_income_gap, real_codes, synthetic_codes, gap_noise) = released
    observed = ratios()
    beyond = {columns: (round(r, 2), round(bound(c), 2)) for columns, (r, c) in observed.items() if r > bound(c)}
    assert {m.columns for m in result.marginals if m.one_way} == {(c,) for c in table.columns}
    assert ("education", "income") in observed  # kept: measured first
    assert len(observed) >= len(table.columns) + len(table.columns) - 1  # MST connects every column
    assert not beyond, beyond
    assert float(np.median([r for r, _ in observed.values()])) <= MEDIAN_RATIO, observed
    # the strong relationships: nobody under 16 works; income rises with education
    young = result.frame["age"].astype(str) == "[0, 16)"
    if any({"age", "employed"} <= set(m.columns) for m in result.marginals):
        assert (result.frame.loc[young, "employed"].astype(str) == "yes").mean() < 0.1
    # income rises with education, as in the real table (there a gap of 0.153 in the share of incomes of 50,000 and
    # more): the synthetic gap is above the real one less 5 standard deviations of the measured marginal's noise
    # (0.022: the bound is 0.044), where a table that lost the relationship has a gap near 0. Measured (8 runs,
    # 2026-11-30): 0.098 to 0.160, mean 0.134, sd 0.018, so the bound is 5 of the runs' sd below their mean (a false
    # failure about 3·10^-7, by a normal approximation). The fixed threshold of 0.1 it replaces failed a run of CI
    # (0.098)
    real, synthetic, spread = top_income_gap(real_codes), top_income_gap(synthetic_codes), gap_noise()
    assert real > 0.1 and real - 5 * spread > 0.02, (real, spread)
    assert synthetic > real - 5 * spread, (synthetic, real, spread)
    assert abs(result.rows - n) < 0.05 * n


@pytest.mark.statistical
def test_a_synthesizer_adding_three_times_the_noise_it_states_would_fail(released):
    """The same distances against a prediction at a third of the stated σ: as if the release had added three times
    the noise it states (the distances are mostly noise); this run's median must exceed the bound, so the bounds are
    tight enough to notice (the module's docstring)."""
    _table, _result, _n, ratios, _gaps = released
    assert float(np.median([r for r, _ in ratios(stated_noise=1 / 3).values()])) > MEDIAN_RATIO
