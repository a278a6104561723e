"""Synthetic microdata in the app (issue 36): step 4's dialog (columns, edges checked as typed), step 5's preview
before anything is spent, step 6's release with its quality (distances, bars, warnings) and the files exported."""

from __future__ import annotations

import pandas as pd
from gui_helpers import load
from PySide6.QtCore import Qt

from workbench.core.release import PlannedSynthetic
from workbench.core.release.ledger import Ledger


def _choose(dialog, columns: dict[str, str]) -> None:
    for row, spec in enumerate(dialog.columns):
        if spec.name in columns:
            dialog.list.item(row, 0).setCheckState(Qt.CheckState.Checked)
            if columns[spec.name]:
                dialog.list.item(row, 2).setText(columns[spec.name])


def test_a_synthetic_table_is_chosen_previewed_released_and_exported(qtbot, window, sample_path, sample_plan_path,
                                                                      private_ledger, tmp_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    page = window.statistics_page
    page.ask = False
    dialog = page.edit_synthetic()
    qtbot.addWidget(dialog)
    _choose(dialog, {"region": "", "sex": "", "age": ""})
    assert "'age' needs public edges" in dialog.problem.text()  # checked as typed, before anything is added
    assert not dialog.buttons.button(dialog.buttons.StandardButton.Ok).isEnabled()
    _choose(dialog, {"age": "18, 30, 65", "employed": ""})
    dialog.keep.setText("age × employed")
    dialog.numeric_values.setCurrentIndex(1)
    assert dialog.problem.text() == ""
    dialog.accept()
    planned = window.document.plan.statistics[-1]
    assert isinstance(planned, PlannedSynthetic) and planned.statistic.keep == (("age", "employed"),)
    assert planned.statistic.numeric_values == "uniform"
    row = len(window.document.plan.statistics) - 1
    assert page.list.item(row, 3).text() == "rows drawn from the model"

    preview = window.preview_page
    preview.recompute()
    assert "rows per one-way cell" in preview.table.item(row, 4).text()
    assert "expected total variation distance" in preview.table.item(row, 5).text()
    preview.table.selectRow(row)
    assert "one-way cell" in preview.plot_title.text()
    assert not private_ledger.exists() or not Ledger(private_ledger).entries()  # nothing spent to preview

    release = window.release_page
    window.tabs.setCurrentWidget(release)
    assert release.synthetic_format.isVisibleTo(release)
    release.ask = False
    release.confirm_and_release()
    qtbot.waitUntil(lambda: release.result is not None, timeout=300_000)
    assert release.quality.isVisibleTo(release) and "no real person" in release.quality.words.text()
    assert release.quality.choice.count() >= 4 + 3  # four one-way marginals, three measured pairs at least
    assert Ledger(private_ledger).dataset(release.result.dataset_name).releases == 1
    release.synthetic_format.setCurrentIndex(release.synthetic_format.findData("dta"))
    release.start_export(tmp_path / "out")
    qtbot.waitUntil(lambda: release.export_task is None, timeout=120_000)
    names = sorted(p.name for p in release.written)
    assert "synthetic.csv" in names and "synthetic.dta" in names and "report.pdf" in names
    frame = pd.read_csv(tmp_path / "out" / "synthetic.csv")
    assert sorted(frame.columns) == ["age", "employed", "region", "sex"] and frame["age"].between(0, 100).all()


def test_step_5_states_a_synthetic_tables_own_epsilon_delta_and_rho(qtbot, window, sample_path, sample_plan_path):
    """As every statistic's plot title states its ε and δ, a synthetic table's states its own (and ρ, what OpenDP
    spends), before anything is spent."""
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    page = window.statistics_page
    page.ask = False
    dialog = page.edit_synthetic()
    qtbot.addWidget(dialog)
    _choose(dialog, {"region": "", "sex": ""})
    dialog.accept()
    row = len(window.document.plan.statistics) - 1
    preview = window.preview_page
    preview.recompute()
    preview.table.selectRow(row)
    cost = window.document.budgeted().statistics[row].cost(verified=False)
    assert cost.delta > 0 and cost.rho is not None
    title = preview.plot_title.text()
    assert f"ε = {cost.epsilon:.3g}, δ = {cost.delta:.2g}, ρ = {cost.rho:.3g} zCDP" in title, title


def test_the_inputs_codes_are_kept_only_when_asked(qtbot, window, tmp_path):
    """An SPSS input's value labels reach a synthetic SPSS or Stata file only when the user ticks "Keep the input's
    codes" (labels made from the rows tell which values the data hold); the box shows only for such an input."""
    import json

    import numpy as np
    import pyreadstat

    rng = np.random.default_rng(4)
    data = tmp_path / "coded.sav"
    pyreadstat.write_sav(pd.DataFrame({"region": rng.choice([7.0, 9.0], 300), "age": rng.integers(0, 99, 300) * 1.0}),
                         str(data), variable_value_labels={"region": {7.0: "North", 9.0: "South"}})
    plan = tmp_path / "coded.plan.json"
    plan.write_text(json.dumps({
        "format": "dp-workbench-plan", "version": 2, "dataset": {"name": "Coded", "size_estimate": 300},
        "schema": {"columns": [
            {"name": "region", "kind": "categorical", "categories": ["North", "South"], "outside": "drop"},
            {"name": "age", "kind": "numeric", "lower": 0, "upper": 100}],
            "privacy_unit": {"id_column": None, "max_rows_per_person": 1}, "neighbouring": "add_remove"},
        "statistics": [{"type": "synthetic", "columns": ["region", "age"], "edges": {"age": [18, 65]}, "rows": 100,
                        "keep": [], "numeric_values": "interval", "algorithm": "mst", "mechanism": "gaussian",
                        "epsilon": 1.0, "delta": 1e-7}],
        "total_budget": {"epsilon": 1.0, "delta": 1e-7}}))
    load(qtbot, window, data)
    assert window.open_plan(plan)
    page = window.release_page
    window.tabs.setCurrentWidget(page)
    page.refresh()
    assert not page.keep_codes.isHidden() and not page.keep_codes.isChecked()
    assert page.label_maps() == {}
    page.keep_codes.setChecked(True)
    assert page.label_maps()["region"] == {7.0: "North", 9.0: "South"}
