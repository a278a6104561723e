"""The app on realistic tables (issue 19): what a statistician's own file shows in the steps."""

from gui_helpers import load
from PySide6.QtCore import Qt
from realistic_tables import ETHNICITIES, REGIONS, STATES, VARIABLE_LABELS, labour_force, write_labelled


def test_variable_labels_show_in_steps_1_and_3(qtbot, window, tmp_path):
    path = write_labelled(labour_force(400), tmp_path / "lf.sav")
    load(qtbot, window, path)
    model = window.data_page.columns.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[:2] == ["column", "label in the file"]
    rows = {model.index(r, 0).data(): model.index(r, 1).data() for r in range(model.rowCount())}
    assert rows["wage"] == VARIABLE_LABELS["wage"] and rows["person"] == ""

    window.tabs.setCurrentWidget(window.columns_page)
    page = window.columns_page
    page.refresh()
    names = [page.grid.cellWidget(r, 0) for r in range(page.grid.rowCount())]
    wage = next(w for w in names if "wage" in w.text())
    assert VARIABLE_LABELS["wage"] in wage.text() and wage.toolTip() == VARIABLE_LABELS["wage"]


def test_a_csv_without_labels_shows_no_label_column(qtbot, window, tmp_path):
    path = tmp_path / "lf.csv"
    labour_force(400).to_csv(path, index=False)
    load(qtbot, window, path)
    model = window.data_page.columns.model()
    headers = [model.headerData(c, Qt.Orientation.Horizontal) for c in range(model.columnCount())]
    assert headers[0] == "column" and "label in the file" not in headers


def test_no_step_widens_the_window_on_a_screen_of_1366_by_768(qtbot, window, tmp_path):
    """Issue 19, 6: selecting a mean in step 5 made the window wider than the screen. Every step is visited,
    with long column names and labels, a grouped mean and a cross-tab selected; the window keeps its width and
    never asks for more than the screen has."""
    from dataclasses import replace

    from workbench.core.data.schema import CategoricalColumn, NumericColumn
    from workbench.core.privacy.mechanisms import MechanismKind
    from workbench.core.release.plan import Budget, PlannedStatistic
    from workbench.core.statistics.counts import CrossTab
    from workbench.core.statistics.moments import Mean

    frame = labour_force(3000)
    long_name = "weekly_income_from_the_main_job_before_taxes_and_deductions_usd"
    frame = frame.rename(columns={"wage": long_name})
    path = tmp_path / "lf.csv"
    frame.to_csv(path, index=False)
    window.resize(1280, 700)
    load(qtbot, window, path)
    plan = window.document.plan
    public = {"state": STATES, "region": REGIONS, "sex": ("0", "1"), "employed": ("0", "1"), "ethnicity": ETHNICITIES}
    columns = tuple(
        replace(c, lower=0.0, upper=5000.0) if c.name == long_name
        else replace(c, categories=public[c.name]) if isinstance(c, CategoricalColumn)
        else replace(c, lower=1.0, upper=1000.0) if isinstance(c, NumericColumn)
        else c
        for c in plan.schema.columns
    )
    assert any(isinstance(c, NumericColumn) and c.name == long_name for c in columns)
    statistics = (*plan.statistics,
                  PlannedStatistic(Mean(long_name, by="state"), MechanismKind.LAPLACE, Budget(0.2)),
                  PlannedStatistic(CrossTab(("sex", "employed"), by="region"), MechanismKind.LAPLACE, Budget(0.2)))
    window.document.update(replace(plan, schema=replace(plan.schema, columns=columns), statistics=statistics))
    width = window.width()
    for index in range(window.tabs.count()):
        window.tabs.setCurrentIndex(index)
        qtbot.wait(50)
        if window.tabs.currentWidget() is window.preview_page:
            page = window.preview_page
            assert page.table.rowCount() == len(statistics)
            for row in range(page.table.rowCount()):
                page.table.selectRow(row)
                qtbot.wait(20)
                assert "oise" in page.plot_title.text() or "likely" in page.plot_title.text()  # a noise is drawn
                assert window.width() == width, (index, row, window.width())
        assert window.width() == width, (index, window.width())
        assert window.minimumSizeHint().width() <= 1366, (index, window.minimumSizeHint().width())


def test_the_categories_dialog_fits_a_small_screen(qtbot, window):
    from workbench.gui.columns_page import CategoriesDialog

    from workbench.core.data.schema import CategoricalColumn, Schema
    from workbench.core.release.category_discovery import discovery_terms

    schema = Schema((CategoricalColumn("state", ("State 01",)),))
    dialog = CategoriesDialog("state", ("State 01", "State 02"), window, find=lambda e, d: None,
                              terms=lambda e, d: discovery_terms(schema, "state", e, d))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.minimumSizeHint().width() < 700 and dialog.width() < 700


def test_categories_are_found_with_differential_privacy_after_the_terms_are_shown(qtbot, window, sample_path,
                                                                                  sample_plan_path, private_ledger):
    """Step 3's categories dialog shows what finding them spends and lists before anything is read, then releases
    them with DP, charged to the ledger, and adds them to the list (issue 41, 4)."""
    from gui_helpers import load

    from workbench.core.release.category_discovery import discover_categories, discovery_terms
    from workbench.core.release.ledger import Ledger
    from workbench.core.privacy import Guarantee
    from workbench.gui.columns_page import CategoriesDialog

    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    plan, table = window.document.plan, window.document.table
    dialog = CategoriesDialog(
        "education", ("none",), window,
        find=lambda e, d: discover_categories(table, plan, "education", e, d, Ledger(private_ledger),
                                              Guarantee(5.0, 1e-5, "total budget")),
        terms=lambda e, d: discovery_terms(plan.schema, "education", e, d))
    qtbot.addWidget(dialog)
    dialog.ask = False
    assert "listed only if its noisy count is at least" in dialog.find_terms.text()
    assert not private_ledger.exists() or not Ledger(private_ledger).entries()  # nothing read, nothing spent
    dialog.find_delta.setText("1e-3")
    assert "more than 1e-05 is refused" in dialog.find_terms.text() and not dialog.find_button.isEnabled()
    dialog.find_delta.setText("1e-7")
    dialog.find_button.click()
    qtbot.waitUntil(lambda: dialog.found is not None, timeout=60_000)
    assert dialog.categories()[0] == "none" and set(dialog.categories()) == {
        "none", "primary", "lower secondary", "upper secondary", "tertiary"}
    assert "values found" in dialog.find_terms.text()
    assert Ledger(private_ledger).dataset(plan.dataset.name).releases == 1


def test_a_registers_category_search_proposes_a_delta_far_below_one_over_its_persons(qtbot, window, sample_path,
                                                                                    sample_plan_path, monkeypatch):
    """A fixed 1e-7 is at least one over the persons of a register of ten million or more, and is refused there:
    step 3's search proposes a δ far below it, and its terms are shown, not a refusal."""
    from dataclasses import replace

    from gui_helpers import load

    from workbench.core.release.category_discovery import default_delta
    from workbench.gui.columns_page import CategoriesDialog

    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    plan = window.document.plan
    window.document.update(replace(plan, dataset=replace(plan.dataset, size_estimate=16_000_000)))
    shown = []
    monkeypatch.setattr(CategoriesDialog, "exec", lambda dialog: shown.append(dialog) or 0)  # closed at once
    page = window.columns_page
    page._edit_categories([s.name for s in plan.schema.columns].index("education"))
    dialog = shown[0]
    assert float(dialog.find_delta.text()) == default_delta(16_000_000) <= 0.01 / 16_000_000
    assert "listed only if its noisy count is at least" in dialog.find_terms.text() and dialog.find_button.isEnabled()
    dialog.find_delta.setText("1e-7")
    assert "is at least 1 / 16000000" in dialog.find_terms.text() and not dialog.find_button.isEnabled()


def test_the_categories_dialog_stays_open_until_a_search_it_started_has_ended(qtbot, window):
    """A search is charged when it ends: closed mid-search (Cancel, Esc, OK or the window's close), the dialog
    dropped the categories paid for, unseen. It now stays open, says why, and closes once they are listed."""
    import threading

    from workbench.core.data.schema import CategoricalColumn, Schema
    from workbench.core.release.category_discovery import DiscoveredCategories, discovery_terms
    from workbench.gui.columns_page import CategoriesDialog

    schema = Schema((CategoricalColumn("state", ("State 01",)),))
    released, searching = threading.Event(), threading.Event()
    found = DiscoveredCategories("state", ("State 01", "State 07"), discovery_terms(schema, "state", 1.0, 1e-7),
                                 released=None)  # the dialog lists them; the charge is the search's own

    def find(epsilon: float, delta: float) -> DiscoveredCategories:
        searching.set()
        released.wait(30)
        return found

    dialog = CategoriesDialog("state", ("State 01",), window, find=find,
                              terms=lambda e, d: discovery_terms(schema, "state", e, d))
    qtbot.addWidget(dialog)
    dialog.ask = False
    dialog.show()
    dialog.find_button.click()
    assert searching.wait(30)
    for close in (dialog.reject, dialog.accept, dialog.close):
        close()
        assert dialog.isVisible(), close
        assert "Still finding the categories of 'state'" in dialog.find_terms.text()
    released.set()
    qtbot.waitUntil(lambda: dialog.found is not None, timeout=30_000)
    assert dialog.categories() == ("State 01", "State 07")
    dialog.reject()
    assert not dialog.isVisible()


def test_a_category_search_stopped_past_its_noise_is_told_as_charged(qtbot, window):
    """A search that failed after its noise was drawn is charged (FailedAfterNoise): the dialog says so and marks
    itself charged, so that step 3 has the budget panel read the ledger again (a review: only a search that found
    something was announced)."""
    from workbench.core.data.schema import CategoricalColumn, Schema
    from workbench.core.errors import FailedAfterNoise
    from workbench.core.release.category_discovery import discovery_terms
    from workbench.gui.columns_page import CategoriesDialog

    schema = Schema((CategoricalColumn("state", ("State 01",)),))

    def find(epsilon: float, delta: float):
        raise FailedAfterNoise("The search stopped. Its noise had already been drawn, so its budget is charged.")

    dialog = CategoriesDialog("state", ("State 01",), window, find=find,
                              terms=lambda e, d: discovery_terms(schema, "state", e, d))
    qtbot.addWidget(dialog)
    dialog.ask = False
    dialog.show()
    assert not dialog.charged
    dialog.find_button.click()
    qtbot.waitUntil(lambda: dialog.task is None, timeout=30_000)
    assert dialog.charged and dialog.found is None and "charged" in dialog.find_terms.text()
