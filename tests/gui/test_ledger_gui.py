"""What the ledger refuses, the app refuses too, in the same words and before anything is spent."""

from dataclasses import replace

from gui_helpers import load

from workbench.core.release import Budget, suggested_dataset_delta
from workbench.core.release.ledger import Ledger
from workbench.gui.fix_places import place_of

WHY = "probability that the guarantee fails outright"


def test_a_large_delta_without_a_number_of_persons_stops_the_release_at_the_delta_field(
        qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    document = window.document
    plan = document.plan
    document.update(replace(plan, dataset=replace(plan.dataset, size_estimate=None), total=Budget(1.0, 0.01)))
    problems = document.problems()
    assert any(WHY in p for p in problems), problems
    place = place_of(next(p for p in problems if WHY in p), document.plan)
    assert (place.step, place.control) == (4, "delta")
    window.tabs.setCurrentWidget(window.release_page)
    window.release_page.refresh()
    assert not window.release_page.release_button.isEnabled()


def test_a_new_datasets_total_delta_is_held_to_the_same_rule(qtbot, window, sample_path, sample_plan_path,
                                                             private_ledger, monkeypatch):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    page = window.release_page
    refusals = []
    monkeypatch.setattr(page, "_refuse", lambda title, error: refusals.append(error))
    window.preview_page.recompute()  # step 5 shows this plan's dataset, as it does once the plan is open
    field = window.preview_page.budget.total_delta
    field.clear()
    qtbot.keyClicks(field, "0.001")  # typed: the sample's estimate is 25,000 persons
    page.ask = False
    page.confirm_and_release()
    assert refusals and "at least 1 / 25000" in str(refusals[0])
    assert page.task is None and not (private_ledger.exists() and Ledger(private_ledger).entries())
    # the place to fix it is the new dataset's total δ, not the plan's total ε, and a click there focuses it
    place = place_of(refusals[0], window.document.plan)
    assert (place.step, place.control) == (4, "dataset delta")
    assert place.words == "Step 5 Budget and preview, the new dataset's total δ"
    window.show()
    window.activateWindow()
    window.go_to(place)
    assert window.tabs.currentWidget() is window.preview_page
    qtbot.waitUntil(field.hasFocus, timeout=5000)


def test_a_new_datasets_total_delta_is_proposed_for_a_register_of_millions(
        qtbot, window, sample_path, sample_plan_path, private_ledger):
    """A fixed 1e-6 was at least one over the number of persons of any dataset of a million or more, so the first
    release of a register extract was refused until the user found the new dataset's total δ. Until the user types
    one, it follows the plan: far below 1 / persons, at least the plan's δ."""
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    document = window.document
    plan = document.plan
    persons = 16_000_000
    document.update(replace(plan, dataset=replace(plan.dataset, size_estimate=persons),
                            total=Budget(plan.total.epsilon, 1e-10)))
    page = window.release_page
    page.ask = False
    page.confirm_and_release()
    qtbot.waitUntil(lambda: page.result is not None, timeout=60_000)
    total = Ledger(private_ledger).dataset(plan.dataset.name).budget
    assert 1e-10 <= total.delta <= 1 / (100 * persons)
    assert window.preview_page.budget.total_delta.text() == f"{total.delta:g}"


def test_a_typed_total_delta_is_the_users_and_is_not_proposed_again(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    budget = window.preview_page.budget
    plan = window.document.plan
    assert budget.dataset_budget(plan).delta == suggested_dataset_delta(plan.total.delta, plan.size())
    window.preview_page.recompute()
    budget.total_delta.clear()
    qtbot.keyClicks(budget.total_delta, "2e-7")
    bigger = replace(plan, dataset=replace(plan.dataset, size_estimate=10 * plan.size()))
    window.document.update(bigger)
    assert budget.dataset_budget(bigger).delta == 2e-7  # the same dataset: the user's δ
    register = replace(bigger, dataset=replace(bigger.dataset, name="Register 2026", size_estimate=16_000_000))
    assert budget.dataset_budget(register).delta == suggested_dataset_delta(register.total.delta, 16_000_000)


def test_the_total_delta_proposed_is_never_rounded_below_the_plans(qtbot, window, sample_path, sample_plan_path):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    plan = window.document.plan
    odd = replace(plan, total=Budget(plan.total.epsilon, 2.3456749e-6))  # '2.34567e-06' with six digits
    assert window.preview_page.budget.dataset_budget(odd).delta == 2.3456749e-6


def test_a_plan_under_other_terms_is_refused_before_the_confirmation(qtbot, window, sample_path, sample_plan_path,
                                                                     private_ledger, monkeypatch):
    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    page = window.release_page
    page.ask = False
    page.confirm_and_release()
    qtbot.waitUntil(lambda: page.result is not None, timeout=60_000)
    plan = window.document.plan
    unit = replace(plan.schema.unit, max_rows_per_person=plan.schema.unit.max_rows_per_person + 1)
    window.document.update(replace(plan, schema=replace(plan.schema, unit=unit)))
    refusals = []
    monkeypatch.setattr(page, "_refuse", lambda title, error: refusals.append(str(error)))
    page.result = None
    page.confirm_and_release()
    assert refusals and "cannot share one budget" in refusals[0]
    assert page.result is None and Ledger(private_ledger).dataset(plan.dataset.name).releases == 1


def test_a_ledger_whose_key_is_not_here_is_refused_before_the_confirmation(
        qtbot, window, sample_path, sample_plan_path, private_ledger, monkeypatch, tmp_path):
    from workbench.core.release.ledger_keys import KEYS_VARIABLE

    load(qtbot, window, sample_path)
    assert window.open_plan(sample_plan_path)
    page = window.release_page
    page.ask = False
    page.confirm_and_release()
    qtbot.waitUntil(lambda: page.result is not None, timeout=60_000)
    monkeypatch.setenv(KEYS_VARIABLE, str(tmp_path / "another machine's keys"))
    refusals = []
    monkeypatch.setattr(page, "_refuse", lambda title, error: refusals.append(str(error)))
    page.result = None
    page.confirm_and_release()
    assert refusals and "dp-workbench ledger key import" in refusals[0]
    assert page.result is None and Ledger(private_ledger).dataset(window.document.plan.dataset.name).releases == 1


def test_a_total_delta_typed_before_any_proposal_is_kept_for_the_first_dataset(qtbot, sample_plan_path):
    from workbench.core.release import ReleasePlan
    from workbench.gui.budget_panel import BudgetPanel

    panel = BudgetPanel()
    qtbot.addWidget(panel)
    panel.total_delta.clear()
    qtbot.keyClicks(panel.total_delta, "2e-7")
    plan = ReleasePlan.load(sample_plan_path)
    assert panel.dataset_budget(plan).delta == 2e-7
    other = replace(plan, dataset=replace(plan.dataset, name="Another survey"))
    assert panel.dataset_budget(other).delta == suggested_dataset_delta(other.total.delta, other.size())
