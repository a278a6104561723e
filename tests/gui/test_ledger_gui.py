"""What the ledger refuses, the app refuses too, in the same words and before anything is spent."""

from dataclasses import replace

from gui_helpers import load

from workbench.core.release import Budget
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
    monkeypatch.setattr(page, "_refuse", lambda title, error: refusals.append(str(error)))
    window.preview_page.budget.total_delta.setText("0.001")  # the sample's estimate is 25,000 persons
    page.ask = False
    page.confirm_and_release()
    assert refusals and "at least 1 / 25000" in refusals[0]
    assert page.task is None and not (private_ledger.exists() and Ledger(private_ledger).entries())


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
