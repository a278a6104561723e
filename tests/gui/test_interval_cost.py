"""Ticking "with 95% interval" for a quantile says beside the box, with numbers, what the interval costs the values
(issue 37, 3): the two errors in ranks and the interval's width, as step 5 then shows them for the statistic."""

from __future__ import annotations

import re

from workbench.core.release.planner import group_size


def test_a_ticked_interval_says_what_it_costs_the_value_with_the_two_errors(qtbot, window, sample_plan_path):
    assert window.open_plan(sample_plan_path)
    page = window.statistics_page
    page.type.setCurrentText("quantiles")
    page.column.setCurrentText("annual_income")
    page.levels.setText("0.5")
    assert not page.interval_cost.isVisibleTo(page)
    page.interval.setChecked(True)
    assert page.interval_cost.isVisibleTo(page)
    words = page.interval_cost.text()
    found = re.fullmatch(r"The interval check takes 60% of this statistic's ε: the median's error becomes ± ([\d,]+) "
                         r"ranks \(± ([\d,]+) without the interval\); interval about ± ([\d,.]+) \([\d,]+ rows spread "
                         r"evenly\)\.", words)
    assert found, words
    with_interval, without = (int(found[i].replace(",", "")) for i in (1, 2))
    assert with_interval > 2 * without  # the values keep 40% of ε

    # the same numbers as step 5's cell once the statistic is added (the core's preview, no data read)
    page.add.click()
    plan = window.document.budgeted()
    planned = plan.statistics[-1]
    rows = group_size(planned, plan.schema, plan.schema.public_size or plan.dataset.size_estimate)
    preview = planned.statistic.interval_preview(planned.noises(plan.schema, verified=False), plan.schema, rows,
                                                 plan.confidence)
    assert (preview.ranks, preview.ranks_without_interval) == (with_interval, without)
    window.preview_page.recompute()
    cell = window.preview_page.table.item(len(plan.statistics) - 1, 4)
    assert f"± {found[3]}" in cell.text() and f"± {found[1]} ranks" in cell.text()

    page.levels.setText("0.25, 0.75")
    assert "the values' errors become ± " in page.interval_cost.text()
    page.interval.setChecked(False)
    assert not page.interval_cost.isVisibleTo(page)
    page.interval.setChecked(True)
    page.type.setCurrentText("mean")
    assert not page.interval_cost.isVisibleTo(page)
