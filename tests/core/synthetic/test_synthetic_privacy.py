"""An empirical privacy audit of a synthetic table's release on neighbouring tables (issue 36).

What it samples: the measurement that OpenDP's contingency table starts with (every column's noisy one-way
marginal, ``_make_oneway_marginals``, at its share of the budget), built from the same public inputs as the
release (``fit.measurement_inputs``: the domain of cell numbers, a person's distance from k and the neighbouring
relation, the measure, ρ from the plan's (ε, δ)) and fed the same rows (``prepare`` with each person's first k
rows, the engine's joint counts, ``_rows_frame``). A whole release takes seconds (OpenDP searches the scale of each
MST step while it runs), too slow to sample thousands of times; its later steps are OpenDP's own composition, whose
map the release checks against the budget. This stage is where the wiring that is ours meets OpenDP: a person's
rows (k of them, or more in the file) and the budget. The audit catches a release that forgets that a person has k
rows.

One person with 12 rows in the file (k = 10 are kept) is added to a table; the noisy count of the cell they fall in
is sampled 3,000 times on each table, and Clopper–Pearson bounds give a lower confidence bound on ε from threshold
events (``privacy_check``). Each bound fails with probability at most 1e-6 over all events and directions together:
that is the test's false-failure rate.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from privacy_check import empirical_epsilon

from workbench.core.data import CategoricalColumn, IdentifierColumn, PrivacyUnit, Schema, prepare
from workbench.core.data.io import Table
from workbench.core.data.schema import OutsideCategories
from workbench.core.privacy import MechanismKind
from workbench.core.synthetic import SyntheticTable, cost_of
from workbench.core.synthetic import budget as synthetic_budget
from workbench.core.synthetic.fit import _joint_counts, _rows_frame, measurement_inputs


K, EPSILON, DELTA, SAMPLES = 10, 2.0, 1e-6, 3000
SCHEMA = Schema((IdentifierColumn("person"),
                 CategoricalColumn("a", ("x", "y"), outside=OutsideCategories.DROP),
                 CategoricalColumn("b", ("u", "v", "w"), outside=OutsideCategories.DROP)),
                unit=PrivacyUnit("person", K))


def _table(extra_person: bool, path) -> Table:
    rng = np.random.default_rng(5)
    rows = pd.DataFrame({"person": np.arange(300).repeat(2), "a": rng.choice(["x", "y"], 600),
                         "b": rng.choice(["u", "v", "w"], 600)})
    if extra_person:  # 12 rows in the file, all in the cell (x, u); 10 are kept
        rows = pd.concat([rows, pd.DataFrame({"person": [999] * 12, "a": ["x"] * 12, "b": ["u"] * 12})])
    return Table(rows.astype(str).reset_index(drop=True), path, "csv")


def _samples(extra_person: bool, tmp_path) -> np.ndarray:
    import polars as pl
    from opendp.domains import _lazyframe_from_domain
    from opendp.extras.mbi._table import _make_oneway_marginals, _with_null

    table = SyntheticTable(("a", "b"))
    axes = table.axes(SCHEMA)
    cost = cost_of(MechanismKind.GAUSSIAN, EPSILON, DELTA)
    inputs = measurement_inputs(axes, SCHEMA, cost)
    keys = {name: _with_null(pl.Series(name, cells, dtype=pl.UInt32)) for name, cells in inputs.keys.items()}
    plan = _lazyframe_from_domain(inputs.domain)
    for name, cuts in inputs.cuts.items():  # as make_contingency_table cuts a column: c bins, labelled
        labels = [f"({low}, {high}]" for low, high in zip(["-inf", *cuts], [*cuts, "inf"])]
        keys[name] = pl.Series(name, labels)
        plan = plan.with_columns(pl.col(name).cut(pl.Series(name, cuts, dtype=pl.UInt32), labels=labels))
    oneway, _scale, _ = _make_oneway_marginals(
        inputs.domain, inputs.metric, inputs.measure, d_in=inputs.d_in, d_out=inputs.budget / 2, keys=keys,
        plan=plan, unknown_only=False, has_prior_total=False)
    rows = _rows_frame(_joint_counts(prepare(_table(extra_person, tmp_path / "t.csv"), SCHEMA), axes), axes)
    out = []
    for _ in range(SAMPLES):
        _keys, measured = oneway(rows)
        out.append(float(next(m for m in measured if m.clique == ("a",)).noisy_measurement[0]))  # the count of x
    return np.array(out)


def _audit(tmp_path):
    without, with_person = _samples(False, tmp_path), _samples(True, tmp_path)
    centre = float(np.median(without))
    spread = float(np.std(without))
    thresholds = [centre + spread * q for q in np.linspace(-3, 3, 13)]
    return empirical_epsilon(without, with_person, thresholds, delta=DELTA)


@pytest.mark.statistical
def test_the_release_stays_within_its_epsilon_and_one_that_forgets_k_rows_is_caught(tmp_path, monkeypatch):
    honest = _audit(tmp_path)
    assert honest.epsilon_lower_bound <= EPSILON, honest
    # calibrated as if a person had one row: the noise is k times too small for the 10 rows the person adds
    monkeypatch.setattr(synthetic_budget, "rows_per_person", lambda schema: 1)
    monkeypatch.setattr("workbench.core.synthetic.fit.rows_per_person", lambda schema: 1)
    broken = _audit(tmp_path)
    assert broken.epsilon_lower_bound > EPSILON, broken
