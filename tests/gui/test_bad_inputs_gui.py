"""The bad-input corpus in the app: a sound file is shown, a refused one gets a dialog with the core's
message and the table shown before stays; a refused plan leaves the plan being edited as it was; a
refused release charges nothing. (See tests/bad_inputs.py.)"""

import re

import pytest
from bad_inputs import CASES, DATA, MEDDLED, SAMPLE, ledger_state, meddle_while_reading
from gui_helpers import load


def _text(dialog: tuple[str, str]) -> str:
    return " ".join(dialog[1].split())


@pytest.mark.parametrize("case", DATA, ids=lambda c: c.id)
def test_open_a_data_file(case, bad_corpus, qtbot, window, warnings, monkeypatch):
    from workbench.gui import main_window

    asked = []
    monkeypatch.setattr(main_window.QInputDialog, "getItem",
                        lambda parent, title, label, items, *a: asked.append(items) or ("", False))
    load(qtbot, window, SAMPLE)
    load(qtbot, window, case.data_path)
    if case.data == "several_sheets.xlsx":  # the app asks instead of refusing; cancelled, nothing changes
        assert asked == [["persons", "readme"]] and warnings == []
        assert window.document.table.source == SAMPLE
    elif case.refused:
        assert len(warnings) == 1 and warnings[0][0] == "The file cannot be opened"
        assert re.search(case.refused, _text(warnings[0])), warnings
        assert window.document.table.source == SAMPLE and window.data_page.preview.model().rowCount() == 500
    else:
        assert warnings == [] and window.document.table.source == case.data_path
        case.check(window.document.table)
        window.tabs.setCurrentWidget(window.columns_page)  # every step can show it
        window.tabs.setCurrentWidget(window.preview_page)


@pytest.mark.parametrize("case", [c for c in CASES if c.plan], ids=lambda c: c.id)
def test_open_a_plan_and_release(case, bad_corpus, qtbot, window, warnings, used_ledger):
    before = ledger_state(used_ledger)
    load(qtbot, window, case.data_path or SAMPLE)
    editing = window.document.plan
    opened = window.open_plan(case.plan_path)
    if not opened:  # the file is no plan: a dialog, and the plan being edited is kept
        assert case.refused and warnings[-1][0] == "The plan cannot be opened"
        assert re.search(case.refused, _text(warnings[-1])), warnings
        assert "Your current plan is unchanged" in warnings[-1][1] and window.document.plan == editing
        return
    page = window.release_page
    window.tabs.setCurrentWidget(page)
    if warnings:  # a plan that opens but cannot be released: a dialog, and the release step says why
        assert case.refused and warnings[-1][0] == "The plan needs attention"
        assert re.search(case.refused, _text(warnings[-1])), warnings
        assert not page.release_button.isEnabled() and re.search(case.refused, " ".join(page.status.text().split()))
    else:  # only the data can tell: the release itself
        page.ask = False
        page.confirm_and_release()
        qtbot.waitUntil(lambda: page.task is None, timeout=60_000)
        if case.refused:
            assert warnings and re.search(case.refused, _text(warnings[-1])), warnings
            assert page.result is None
        else:
            assert page.result is not None and len(ledger_state(used_ledger)) > len(before)
            return
    assert ledger_state(used_ledger) == before


@pytest.mark.parametrize("meddle", sorted(MEDDLED))
def test_a_file_that_changes_or_disappears_while_loading(meddle, bad_corpus, qtbot, window, warnings, tmp_path,
                                                          monkeypatch):
    load(qtbot, window, SAMPLE)
    path = tmp_path / "survey.csv"
    path.write_bytes((bad_corpus / "semicolons.csv").read_bytes())
    meddle_while_reading(monkeypatch, path, meddle)
    load(qtbot, window, path)
    assert len(warnings) == 1 and re.search(MEDDLED[meddle], _text(warnings[0])), warnings
    assert window.document.table.source == SAMPLE


def test_a_file_changed_after_loading_is_not_released(qtbot, window, warnings, sample_plan_path, tmp_path,
                                                      used_ledger):
    path = tmp_path / "household_survey.csv"
    path.write_bytes(SAMPLE.read_bytes())
    load(qtbot, window, path)
    assert window.open_plan(sample_plan_path) and warnings == []
    with path.open("a", encoding="utf-8") as handle:
        handle.write("H99999,40,female,North,tertiary,yes,40,50000\n")
    before, page = ledger_state(used_ledger), window.release_page
    window.tabs.setCurrentWidget(page)
    page.ask = False
    page.confirm_and_release()
    qtbot.waitUntil(lambda: page.task is None, timeout=60_000)
    assert re.search(r"has changed on disk since it was loaded", _text(warnings[-1])) and page.result is None
    assert ledger_state(used_ledger) == before
