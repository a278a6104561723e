"""Every problem that stops a release names the step and field to fix, and a click on it goes there."""

from dataclasses import replace

import pytest
from gui_helpers import load

from workbench.core.release import Budget, ReleasePlan, budget_plan
from workbench.gui.fix_places import place_of


@pytest.fixture
def plan(sample_plan_path) -> ReleasePlan:
    return ReleasePlan.load(sample_plan_path)


def refusal(plan: ReleasePlan) -> str:
    with pytest.raises(Exception) as caught:
        budget_plan(plan).validate()
    return str(caught.value)


def with_column(plan: ReleasePlan, name: str, **changes) -> ReleasePlan:
    columns = tuple(replace(c, **changes) if c.name == name else c for c in plan.schema.columns)
    return replace(plan, schema=replace(plan.schema, columns=columns))


def test_each_kind_of_problem_is_placed_at_its_step_and_field(plan):
    place = place_of(refusal(with_column(plan, "annual_income", lower=None)), plan)
    assert (place.step, place.control, place.column) == (2, "bounds", "annual_income")
    assert place.words == "Step 3 Columns, the bounds of 'annual_income'"
    assert place_of(refusal(replace(plan, statistics=())), plan).words == "Step 4 Statistics, the list of statistics"
    place = place_of(refusal(replace(plan, total=Budget(1.0, 0.5))), plan)
    assert (place.step, place.control) == (4, "delta")
    overspent = ("The statistics spend ε = 6, δ = 0 in total, more than the plan's budget of ε = 1, δ = 2e-07 (over "
                 "by ε 5, δ 0). Lower some statistics' ε or δ, or raise the total.")  # as ReleasePlan.validate says it
    place = place_of(overspent, plan)
    assert (place.step, place.control) == (4, "epsilon") and place.field == "the total ε"
    assert place_of("Open the data file (File > Open).", plan).words == "Step 1 Data, the data file"
    statistic = plan.statistics[1].statistic.label
    place = place_of(f"'{statistic}' has no 'epsilon': give one", plan)
    assert (place.step, place.statistic) == (3, 1)


def test_a_click_on_a_problem_in_step_6_goes_to_its_field(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    window.tabs.setCurrentWidget(window.release_page)
    document = window.document
    document.update(with_column(document.plan, "age", lower=500.0, upper=10.0))
    page = window.release_page
    page.refresh()
    assert not page.release_button.isEnabled()
    text = page.status.text()
    assert "Step 3 Columns, the bounds of 'age'" in text and 'href="fix:0"' in text
    window.activateWindow()
    page.status.linkActivated.emit("fix:0")
    assert window.tabs.currentWidget() is window.columns_page
    row = [s.name for s in document.plan.schema.columns].index("age")
    qtbot.waitUntil(lambda: window.columns_page.grid.cellWidget(row, 2).hasFocus(), timeout=5000)
    assert "Fix it here: Step 3 Columns" in window.statusBar().currentMessage()


def test_the_budget_problem_takes_the_user_to_the_total_epsilon(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    document = window.document
    document.update(replace(document.plan, total=Budget(1.0, 0.5)))
    window.tabs.setCurrentWidget(window.release_page)
    window.release_page.refresh()
    window.activateWindow()
    window.release_page.status.linkActivated.emit("fix:0")
    assert window.tabs.currentWidget() is window.preview_page
    qtbot.waitUntil(window.preview_page.delta.hasFocus, timeout=5000)


def test_an_overspending_release_says_where_to_fix_it_and_goes_there(qtbot, window, warnings, sample_path,
                                                                       sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    window.preview_page.budget.total_epsilon.setValue(0.5)  # a new dataset with less than the plan's ε = 1
    window.tabs.setCurrentWidget(window.release_page)
    window.release_page.ask = False
    window.release_page.confirm_and_release()
    qtbot.waitUntil(lambda: bool(warnings), timeout=60_000)
    assert "overspend" in warnings[-1][1] and "Where to fix it: Step 5 Budget and preview" in warnings[-1][1]
    assert window.tabs.currentWidget() is window.preview_page


def test_a_plan_that_needs_attention_names_each_problems_step(qtbot, window, warnings, sample_plan_path, tmp_path):
    import json

    plan = json.loads(sample_plan_path.read_text(encoding="utf-8"))
    for column in plan["schema"]["columns"]:
        if column.get("name") == "age":
            column["lower"], column["upper"] = 500, 10
    broken = tmp_path / "broken.plan.json"
    broken.write_text(json.dumps(plan), encoding="utf-8")
    assert window.open_plan(broken)
    assert warnings and "Step 3 Columns, the bounds of 'age'" in warnings[-1][1]
    assert window.tabs.currentWidget() is window.columns_page


def test_going_to_a_field_and_leaving_it_untouched_changes_nothing(qtbot, window, sample_plan_path):
    """The field shows the plan as it is when it takes the focus, and leaving it without typing writes nothing back
    (it once wrote the field's stale text into the plan: δ = 0.001 became 0)."""
    assert window.open_plan(sample_plan_path)
    document = window.document
    document.update(replace(document.plan, total=Budget(1.0, 0.001)))  # the page has not refreshed yet
    window.go_to(place_of("δ = 0.001 is at least 1 / 25000", document.plan))
    assert window.preview_page.delta.text() == "0.001"
    window.preview_page.delta.editingFinished.emit()  # the focus leaves
    window.preview_page.sampling.editingFinished.emit()
    assert document.plan.total == Budget(1.0, 0.001)


def test_the_core_gives_each_refusal_its_place_as_data(plan):
    """Issue 37, 6: every kind of refusal carries its step, field and column or statistic, not only words."""
    from workbench.core.errors import Place as CorePlace
    from workbench.core.errors import WorkbenchError

    def place(changed: ReleasePlan) -> CorePlace:
        with pytest.raises(WorkbenchError) as caught:
            budget_plan(changed).validate()
        return caught.value.place

    assert place(with_column(plan, "annual_income", lower=None)) == CorePlace("columns", "bounds", "annual_income")
    assert place(with_column(plan, "age", lower=500.0, upper=10.0)) == CorePlace("columns", "bounds", "age")
    assert place(replace(plan, statistics=())) == CorePlace("statistics", "add")
    assert place(replace(plan, total=Budget(1.0, 0.5))) == CorePlace("budget", "delta")
    assert place(replace(plan, total=Budget(-1.0, 0.0))) == CorePlace("budget", "epsilon")
    label = plan.statistics[0].statistic.label
    bad = replace(plan.statistics[0], budget=Budget(-1.0, 0.0), weight=None, target_error=None)
    assert place(replace(plan, statistics=(bad, *plan.statistics[1:]))) == CorePlace("statistics", "statistic",
                                                                                     statistic=label)
    region = next(c for c in plan.used_schema().columns if getattr(c, "categories", None))
    assert place(with_column(plan, region.name, categories=())) == CorePlace("columns", "categories", region.name)


def test_a_reworded_message_still_goes_to_the_field_its_place_names(plan):
    """The app follows the error's place, not its words: a message that names another column and δ (as a reworded
    one might) still goes to the bounds of 'age'."""
    from workbench.core.errors import Place as CorePlace
    from workbench.core.errors import SchemaError
    from workbench.gui.fix_places import Problem

    error = SchemaError("The bounds do not fit 'annual_income' nor δ; see the id column.",
                        place=CorePlace("columns", "bounds", "age"))
    for problem in (error, Problem.of(error)):
        place = place_of(problem, plan)
        assert (place.step, place.control, place.column) == (2, "bounds", "age")
    statistic = plan.statistics[1].statistic.label
    error = SchemaError("Something about 'age' and ε.", place=CorePlace("statistics", "statistic", statistic=statistic))
    assert (place_of(error, plan).step, place_of(error, plan).statistic) == (3, 1)
    assert place_of(SchemaError("About the id column.", place=CorePlace("budget", "sampling")), plan).control == "sampling"
    error = SchemaError("'age' cannot be released within ±1.", place=CorePlace("budget", "target", statistic=statistic))
    assert (place_of(error, plan).step, place_of(error, plan).control, place_of(error, plan).statistic) == (4, "target", 1)


def test_an_errors_place_survives_the_trip_from_a_worker_process():
    """Releases run off the GUI thread, some engines in other processes: a pickled error keeps its place (and a
    subclass its own data, such as the sheets a workbook offers)."""
    import pickle

    from workbench.core.data.io import SheetNeeded
    from workbench.core.errors import Place as CorePlace
    from workbench.core.errors import SchemaError

    error = pickle.loads(pickle.dumps(SchemaError("Bounds.", place=CorePlace("columns", "bounds", "age"))))
    assert str(error) == "Bounds." and error.place == CorePlace("columns", "bounds", "age")
    sheets = pickle.loads(pickle.dumps(SheetNeeded("Which sheet?", ("a", "b"))))
    assert sheets.sheets == ("a", "b") and sheets.place is None


@pytest.mark.parametrize("total, control", [((0.5, 1e-6), "epsilon"), ((5.0, 0.0), "delta")])
def test_a_release_the_ledger_refuses_for_its_budget_goes_to_the_total_overspent(
        qtbot, window, warnings, sample_path, sample_plan_path, private_ledger, total, control):
    """Issue 38: the ledger's refusal of a dataset that has too little left carries its place: the plan's total ε
    when ε is overspent (its words name δ too, and once sent the user to δ), its total δ when only δ is."""
    from workbench.core.errors import BudgetError
    from workbench.core.errors import Place as CorePlace
    from workbench.core.privacy.events import Guarantee
    from workbench.core.release import Terms
    from workbench.core.release.ledger import Ledger

    plan = ReleasePlan.load(sample_plan_path)  # ε = 1, δ = 2e-07 (Gaussian noise where possible)
    ledger = Ledger(private_ledger)
    ledger.register(plan.dataset.name, Guarantee(*total, "total budget"), Terms.of(plan.schema))
    with pytest.raises(BudgetError) as refused:
        ledger.check_affordable(plan.dataset.name, budget_plan(plan).events())
    assert refused.value.place == CorePlace("budget", control)

    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    window.tabs.setCurrentWidget(window.release_page)
    window.release_page.ask = False
    window.release_page.confirm_and_release()
    qtbot.waitUntil(lambda: bool(warnings), timeout=60_000)
    words = {"epsilon": "the total ε", "delta": "the total δ"}[control]
    assert "overspend" in warnings[-1][1] and f"Where to fix it: Step 5 Budget and preview, {words}." in warnings[-1][1]
    assert window.tabs.currentWidget() is window.preview_page
    field = window.preview_page.epsilon if control == "epsilon" else window.preview_page.delta
    window.activateWindow()
    qtbot.waitUntil(field.hasFocus, timeout=5000)
    assert window.statusBar().currentMessage() == f"Fix it here: Step 5 Budget and preview, {words}."


def test_the_ledgers_other_refusals_go_to_the_dataset_name_and_the_ledger(qtbot, window, sample_plan_path):
    from workbench.core.errors import Place as CorePlace
    from workbench.core.release.ledger import LedgerError
    from workbench.core.release.ledger_keys import LedgerKeyError

    assert window.open_plan(sample_plan_path)
    plan = window.document.plan
    place = place_of(LedgerError("Already in the ledger.", place=CorePlace("release", "dataset name")), plan)
    assert (place.step, place.control, place.words) == (5, "dataset name", "Step 6 Release, the dataset name")
    window.activateWindow()
    window.go_to(place)
    qtbot.waitUntil(window.release_page.name.hasFocus, timeout=5000)
    assert place_of(LedgerKeyError("No key here."), plan).control == "ledger"
