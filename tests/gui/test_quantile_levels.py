"""The app refuses a quantile level OpenDP cannot compute with, with the plan's own message (issue 41, 6)."""


def test_a_level_finer_than_ten_thousandths_is_marked_and_cannot_be_added(qtbot, window, sample_plan_path):
    assert window.open_plan(sample_plan_path)
    page = window.statistics_page
    page.type.setCurrentText("quantiles")
    page.column.setCurrentText("age")
    page.levels.setText("0.5, 0.123456789")
    assert not page.add.isEnabled()
    assert "0.123456789" in page.levels.toolTip() and "such as 0.1234 or 0.1235" in page.levels.toolTip()
    page.levels.setText("0.000001")
    assert not page.add.isEnabled() and "its smallest value" in page.levels.toolTip()
    page.levels.setText("0.0003, 0.5")  # four decimals: used exactly
    assert page.add.isEnabled()
    page.add.click()
    assert window.document.plan.statistics[-1].statistic.levels == (0.0003, 0.5)
