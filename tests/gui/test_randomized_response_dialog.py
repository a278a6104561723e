"""Tools > Randomised response designer: the ε it states is checked by OpenDP's privacy map, and it
offers no ε above the core's cap."""

from workbench.core.privacy.randomized_response import MAX_EPSILON


def test_the_designer_states_the_checked_epsilon_and_stops_at_the_cap(qtbot, window):
    window.open_randomized_response()
    dialog = window.randomized_response
    dialog.epsilon.setValue(1.0)
    assert "ε-DP with ε = 1 (checked by OpenDP's privacy map)" in dialog.summary.text()
    assert dialog.epsilon.maximum() == MAX_EPSILON == 20
    dialog.epsilon.setValue(40.0)  # the box stops at the cap
    assert dialog.epsilon.value() == MAX_EPSILON
    text = dialog.summary.text()
    assert "p = 1 − 2.07e-09" in text and "1.0000" not in text and dialog.table.rowCount() == 3  # 1 − p rounded up


def test_the_designers_headings_are_not_cut_short(qtbot, window):
    """At Qt's default column width the headings read "ındomised respo" and "± trusted curato" (a screenshot at
    1366×768): each column is now at least as wide as its heading."""
    window.open_randomized_response()
    dialog = window.randomized_response
    dialog.show()
    qtbot.waitExposed(dialog)
    header = dialog.table.horizontalHeader()
    metrics = header.fontMetrics()
    for column in range(dialog.table.columnCount()):
        heading = dialog.table.horizontalHeaderItem(column).text()
        assert header.sectionSize(column) >= metrics.horizontalAdvance(heading), heading
