"""The bad-input corpus in the core: each file loads as it should or raises a WorkbenchError naming the
problem, and nothing is charged to the ledger for a refused input. (See tests/bad_inputs.py.)"""

import re

import pytest
from bad_inputs import CASES, DATA, MEDDLED, SAMPLE, SAMPLE_PLAN, Case, ledger_state, meddle_while_reading

from workbench.core.data.io import GUESS, load_table
from workbench.core.errors import WorkbenchError
from workbench.core.privacy.events import Guarantee
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import ReleasePlan
from workbench.core.release.run import release

BUDGET = Guarantee(3.0, 1e-6, "total budget")


def _message(case: Case, error: BaseException) -> str:
    assert isinstance(error, WorkbenchError), f"{case.id}: {type(error).__name__} is not a WorkbenchError: {error}"
    return " ".join(str(error).split())


@pytest.mark.parametrize("case", [c for c in DATA], ids=lambda c: c.id)
def test_a_data_file_loads_or_is_refused_with_a_message(case, bad_corpus):
    try:
        table = load_table(case.data_path, encoding=GUESS)  # opened to look at, as step 1 does
    except Exception as error:  # noqa: BLE001 - the test names any other type
        assert case.refused, f"{case.id}: refused although sound: {error}"
        assert re.search(case.refused, _message(case, error)), _message(case, error)
        return
    assert case.refused is None, f"{case.id}: loaded although it should be refused"
    case.check(table)


@pytest.mark.parametrize("case", [c for c in CASES if c.plan], ids=lambda c: c.id)
def test_a_plan_is_released_or_refused_and_a_refusal_charges_nothing(case, bad_corpus, used_ledger):
    before = ledger_state(used_ledger)
    try:
        plan = ReleasePlan.load(case.plan_path)
        table = load_table(case.data_path or SAMPLE)
        result = release(table, plan, Ledger(used_ledger), BUDGET)
    except Exception as error:  # noqa: BLE001
        assert case.refused, f"{case.id}: refused although sound: {error}"
        assert re.search(case.refused, _message(case, error)), _message(case, error)
        assert ledger_state(used_ledger) == before
        return
    assert case.refused is None, f"{case.id}: released although it should be refused"
    assert ledger_state(used_ledger)[: len(before)] == before and len(ledger_state(used_ledger)) > len(before)
    for cell in (cell for statistic in result.statistics for cell in statistic.cells):
        assert (cell.value is not None and cell.error > 0) or cell.note  # a value with its error, or why not


@pytest.mark.parametrize("meddle", sorted(MEDDLED))
def test_a_file_that_changes_or_disappears_while_loading_is_not_loaded(meddle, bad_corpus, tmp_path, monkeypatch):
    path = tmp_path / "survey.csv"
    path.write_bytes((bad_corpus / "semicolons.csv").read_bytes())
    meddle_while_reading(monkeypatch, path, meddle)
    with pytest.raises(WorkbenchError, match=MEDDLED[meddle]):
        load_table(path)


def test_a_file_changed_after_loading_is_not_released_and_nothing_is_charged(tmp_path, used_ledger):
    path = tmp_path / "survey.csv"
    path.write_bytes(SAMPLE.read_bytes())
    table = load_table(path)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("H99999,40,female,North,tertiary,yes,40,50000\n")
    before = ledger_state(used_ledger)
    with pytest.raises(WorkbenchError, match=r"survey.csv has changed on disk since it was loaded\. Open it again"):
        release(table, ReleasePlan.load(SAMPLE_PLAN), Ledger(used_ledger), BUDGET)
    assert ledger_state(used_ledger) == before
