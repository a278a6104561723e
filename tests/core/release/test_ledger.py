"""The privacy ledger: charges, budget enforcement, tamper evidence, locking, failures.

Every test that is not about one store runs on both: a SQLite file and a team ledger on PostgreSQL
(``ledger_location``), so that the chain, the refusals and the composition cannot differ."""

import json
import multiprocessing
import sqlite3
from pathlib import Path

import pytest
from ledger_stores import tamper

from workbench.core.errors import BudgetError, Place
from workbench.core.privacy.events import Guarantee, MechanismEvent
from workbench.core.release.ledger import Ledger, LedgerError, Registration, Terms

ROW = Terms("add_remove", "one row of the table")


def event(epsilon: float, delta: float = 0.0) -> MechanismEvent:
    return MechanismEvent("count: count", "laplace" if delta == 0 else "gaussian", 1.0, 1.0 / epsilon, epsilon, delta)


def budget(epsilon: float, delta: float = 0.0) -> Guarantee:
    return Guarantee(epsilon, delta, "total budget")


@pytest.fixture
def ledger(ledger_location) -> Ledger:
    ledger = Ledger(ledger_location)
    ledger.register("survey", budget(1.0, 1e-6), ROW, fingerprint="f" * 64)
    return ledger


@pytest.fixture
def local_ledger(tmp_path) -> Ledger:
    ledger = Ledger(tmp_path / "ledger.sqlite")
    ledger.register("survey", budget(1.0, 1e-6), ROW, fingerprint="f" * 64)
    return ledger


def test_charges_add_up_and_overspending_is_refused_with_the_amount(ledger):
    ledger.charge("survey", [event(0.4)], {"statistics": []}, {}, ROW)
    ledger.charge("survey", [event(0.3), event(0.1, 5e-7)], {"statistics": []}, {}, ROW)
    record = ledger.dataset("survey")
    # basic composition gives (0.8, 5e-7); PLD accounting a hair less ε at the budget's δ = 1e-6
    assert (record.spent.epsilon, record.releases) == (pytest.approx(0.8, rel=1e-4), 2)
    assert record.spent.epsilon <= 0.8 and record.spent.delta <= 1e-6
    with pytest.raises(BudgetError, match=r"ε = 0.2.* left .*overspend by ε 0.(1|0999)"):
        ledger.charge("survey", [event(0.3)], {"statistics": []}, {}, ROW)
    assert ledger.dataset("survey").releases == 2  # the refused release left no trace


def test_a_first_release_over_a_new_datasets_total_advises_a_larger_total_not_a_raise(ledger_location):
    """A dataset not yet in the ledger has nothing to raise: the advice names where its total is set."""
    from workbench.core.release.ledger import Registration

    ledger = Ledger(ledger_location)
    new = Registration(budget(1.0), ROW)
    with pytest.raises(BudgetError, match=r"larger total budget.*--dataset-budget") as refused:
        ledger.check_affordable("survey", [event(1.5)], new_dataset=new)
    assert "ledger raise" not in str(refused.value)
    with pytest.raises(BudgetError, match=r"larger total budget"):
        ledger.charge("survey", [event(1.5)], {"statistics": []}, {}, ROW, new_dataset=new)
    assert not ledger.has_dataset("survey")  # the refused first release registered nothing
    assert new.check_affordable("survey", [event(0.5)]).epsilon == pytest.approx(0.5)
    ledger.charge("survey", [event(0.5)], {"statistics": []}, {}, ROW, new_dataset=new)
    with pytest.raises(BudgetError, match=r"ledger raise"):
        ledger.charge("survey", [event(0.6)], {"statistics": []}, {}, ROW, new_dataset=new)  # now known: raise it


def test_raising_the_budget_is_recorded_and_lowering_is_refused(ledger):
    ledger.charge("survey", [event(1.0)], {"statistics": []}, {}, ROW)
    with pytest.raises(BudgetError):
        ledger.charge("survey", [event(0.5)], {"statistics": []}, {}, ROW)
    ledger.raise_budget("survey", budget(2.0, 1e-6), reason="second wave approved by the board")
    ledger.charge("survey", [event(0.5)], {"statistics": []}, {}, ROW)
    kinds = [e.kind for e in ledger.entries("survey")]
    assert kinds == ["register", "release", "budget", "release"]
    with pytest.raises(LedgerError, match="can only be raised"):
        ledger.raise_budget("survey", budget(1.5, 1e-6))


def test_the_same_file_cannot_be_charged_under_two_names(ledger):
    with pytest.raises(LedgerError, match="already in the ledger as dataset 'survey'"):
        ledger.register("survey copy", budget(1.0), ROW, fingerprint="f" * 64)


def test_each_refusal_names_where_it_is_fixed(ledger):
    """Issue 38: the ledger's refusals carry their place as data (the app goes there), not only in words: an overspent
    ε at the plan's total ε even when the words name δ too, an overspent δ alone at its δ, other terms at who is
    protected, data or a name already in the ledger at the dataset's name."""
    def refusal(charge) -> Place:
        with pytest.raises((BudgetError, LedgerError)) as refused:
            charge()
        return refused.value.place

    ledger.charge("survey", [event(0.4, 5e-7)], {"statistics": []}, {}, ROW)
    place = refusal(lambda: ledger.charge("survey", [event(0.8, 1e-7)], {"statistics": []}, {}, ROW))
    assert place == Place("budget", "epsilon")
    place = refusal(lambda: ledger.check_affordable("survey", [event(0.8)]))
    assert place == Place("budget", "epsilon")
    ledger.register("pure", budget(1.0), ROW)  # δ = 0: a Gaussian release overspends δ alone
    place = refusal(lambda: ledger.charge("pure", [event(0.1, 1e-7)], {"statistics": []}, {}, ROW))
    assert place == Place("budget", "delta")
    new = Registration(budget(1.0), ROW)
    assert refusal(lambda: ledger.check_affordable("new", [event(2.0)], new_dataset=new)) == Place("budget", "epsilon")
    # a new dataset's δ overspent: its own total δ (step 5's 'New dataset'), which the app proposes from the plan
    dataset_delta = Place("budget", "dataset delta")
    assert refusal(lambda: ledger.check_affordable("new", [event(0.1, 1e-7)], new_dataset=new)) == dataset_delta
    assert refusal(lambda: ledger.charge("new", [event(0.1, 1e-7)], {"statistics": []}, {}, ROW,
                                         new_dataset=new)) == dataset_delta
    assert refusal(lambda: Registration(budget(1.0, 1.5), ROW)) == dataset_delta  # no δ at all

    other_relation = Terms("substitute", "one row of the table", public_size=1000)
    assert refusal(lambda: ledger.check_terms("survey", other_relation)) == Place("unit", "unit")
    assert refusal(lambda: ledger.charge("survey", [event(0.1)], {"statistics": []}, {}, other_relation)) == Place(
        "unit", "unit")
    ledger.register("census", budget(1.0), Terms("substitute", "one row of the table", public_size=1000))
    other_size = Terms("substitute", "one row of the table", public_size=999)
    assert refusal(lambda: ledger.check_terms("census", other_size)) == Place("unit", "public size")

    name = Place("release", "dataset name")
    assert refusal(lambda: ledger.register("survey copy", budget(1.0), ROW, fingerprint="f" * 64)) == name
    assert refusal(lambda: ledger.register("survey", budget(1.0), ROW)) == name
    assert refusal(lambda: ledger.dataset("no such dataset")) == name
    assert refusal(lambda: ledger.raise_budget("survey", budget(0.5, 1e-6))) == Place("budget", "epsilon")


def test_export_leaves_out_the_fingerprint(ledger):
    ledger.charge("survey", [event(0.4)], {"statistics": []}, {}, ROW, fingerprint="f" * 64)
    exported = json.dumps([e.public_json() for e in ledger.entries()])
    assert "f" * 64 not in exported and "fingerprint" not in exported


@pytest.fixture
def chain(ledger) -> Ledger:
    for epsilon in (0.1, 0.2, 0.3):
        ledger.charge("survey", [event(epsilon)], {"statistics": []}, {}, ROW)
    assert ledger.verify() == []
    return ledger


def test_verify_names_an_edited_entry(chain):
    body = chain.entries()[2].body.replace('"epsilon":0.2', '"epsilon":0.02')
    tamper(chain, "UPDATE entries SET body = ? WHERE seq = 3", body)
    assert [(p.entry, p.message) for p in chain.verify()] == [(3, "its content was changed after it was written")]


def test_verify_names_a_deleted_entry(chain):
    tamper(chain, "DELETE FROM entries WHERE seq = 2")
    problems = chain.verify()
    assert [p.entry for p in problems] == [3, 3]
    assert "entries 2 to 2 are missing" in problems[0].message


def test_verify_names_reordered_entries(chain):
    tamper(chain, "UPDATE entries SET seq = 99 WHERE seq = 3")
    tamper(chain, "UPDATE entries SET seq = 3 WHERE seq = 4")
    tamper(chain, "UPDATE entries SET seq = 4 WHERE seq = 99")
    assert {p.entry for p in chain.verify()} >= {3, 4}


def _spend(where: str, barrier, results) -> None:
    ledger = Ledger(where)  # connected before the barrier: the charges, not the connections, meet
    barrier.wait()
    try:
        ledger.charge("survey", [event(0.3)], {"statistics": []}, {}, ROW)
        results.put("charged")
    except BudgetError as refused:
        results.put("refused" if "overspend" in str(refused) else str(refused))


def test_two_processes_cannot_double_spend(ledger, ledger_location):
    """Eight processes each try to spend 0.3 of 1.0 at the same moment: exactly three succeed."""
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(8), context.Queue()
    workers = [context.Process(target=_spend, args=(ledger_location, barrier, results)) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    outcomes = sorted(results.get(timeout=5) for _ in workers)
    assert outcomes == ["charged"] * 3 + ["refused"] * 5
    assert ledger.dataset("survey").spent.epsilon == pytest.approx(0.9, rel=1e-4)
    assert ledger.verify() == []


def test_a_read_only_ledger_gives_a_clear_error_and_records_nothing(local_ledger, monkeypatch):
    ledger = local_ledger
    path = ledger.path
    real_connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda p, **kw: real_connect(f"file:{p}?mode=ro", uri=True, **kw))
    with pytest.raises(LedgerError, match=r"cannot be written .*readonly.*Nothing was released"):
        ledger.charge("survey", [event(0.1)], {"statistics": []}, {}, ROW)
    monkeypatch.undo()
    assert Ledger(path).dataset("survey").releases == 0


def test_a_full_disk_gives_a_clear_error_and_records_nothing(local_ledger, monkeypatch):
    ledger = local_ledger
    real_connect = sqlite3.connect

    def tiny_disk(p, **kw):
        db = real_connect(p, **kw)
        db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
        return db

    monkeypatch.setattr(sqlite3, "connect", tiny_disk)
    big = {"statistics": [], "padding": "x" * 200_000}
    with pytest.raises(LedgerError, match=r"cannot be written .*full.*Nothing was released"):
        ledger.charge("survey", [event(0.1)], big, {}, ROW)
    monkeypatch.undo()
    assert ledger.dataset("survey").releases == 0 and ledger.verify() == []


def test_gaussian_releases_are_composed_tighter_than_basic_composition(ledger_location):
    from workbench.core.privacy.accounting import BASIC
    from workbench.core.privacy.mechanisms import MechanismKind, calibrate

    ledger = Ledger(ledger_location)
    ledger.register("panel", budget(3.0, 1e-5), ROW)
    release_event = MechanismEvent.from_noise("mean", calibrate(MechanismKind.GAUSSIAN, 1.0, 0.5, 1e-7))
    for _ in range(10):  # basic composition would stop at 6 releases (ε = 3)
        ledger.charge("panel", [release_event], {"statistics": []}, {}, ROW)
    spent = ledger.dataset("panel").spent
    assert spent.method != BASIC and spent.epsilon < 3.0 and spent.delta == 1e-5
    assert ledger.dataset("panel").remaining_in_words.endswith("at the total δ = 1e-05")  # δ is not subtracted
    stored = ledger.entries("panel")[-1].data["events"][0]
    assert MechanismEvent.from_json(stored) == release_event


def test_releases_chosen_one_after_another_are_composed_only_by_accountants_valid_for_that(ledger_location):
    """The ledger is a privacy filter: each release, its ε too, is chosen after seeing those before. Basic
    composition and zCDP stay valid then (Rogers et al. 2016; Feldman & Zrnic 2021); the PLD's bound is proved for
    a sequence fixed in advance. It had been used across releases: 20 Laplace statistics of ε = 0.1 and then 20 more
    fitted a total of ε = 3 at δ = 1e-6 (PLD: 2.78), where zCDP spends 3.13 and basic composition 4. Within one
    release, whose statistics are chosen together, the PLD still applies."""
    from workbench.core.privacy import compose
    from workbench.core.privacy.accounting import ZCDP

    ledger = Ledger(ledger_location)
    ledger.register("panel", budget(3.0, 1e-6), ROW)
    first, second = [event(0.1)] * 20, [event(0.1)] * 20
    assert compose(first, delta=1e-6).epsilon < 1.8  # the PLD, for one release
    assert compose([*first, *second], delta=1e-6).epsilon < 2.8  # what the ledger had allowed
    ledger.charge("panel", first, {"statistics": []}, {}, ROW)
    record = ledger.dataset("panel")
    assert record.spent.epsilon < 1.8  # a first release alone: the PLD
    # what is left is what a next release is composed against: the same 20 statistics without the PLD
    assert record.remaining_epsilon == pytest.approx(3.0 - compose(first, 1e-6, adaptive=True).epsilon)
    assert record.remaining_epsilon < 3.0 - 1.9
    with pytest.raises(BudgetError, match=r"overspend by ε 0\.13"):
        ledger.charge("panel", second, {"statistics": []}, {}, ROW)
    ledger.charge("panel", [event(0.1)] * 10, {"statistics": []}, {}, ROW)
    spent = ledger.dataset("panel").spent
    assert spent.method == ZCDP and spent.epsilon == pytest.approx(2.673, abs=1e-3)
    assert ledger.dataset("panel").releases == 2


def test_a_refusal_says_who_spent_what_and_when(ledger):
    ledger.charge("survey", [event(0.5)], {"statistics": []}, {}, ROW)
    ledger.charge("survey", [event(0.4)], {"statistics": []}, {}, ROW)
    entries = ledger.entries("survey")
    assert all(e.by == entries[0].by and e.by for e in entries)  # the local login, or the server's role
    with pytest.raises(BudgetError) as refused:
        ledger.charge("survey", [event(0.3)], {"statistics": []}, {}, ROW)
    day = entries[-1].created[:10]
    assert (f"Spent before: ε = 0.4 by {entries[0].by} on {day} (entry 3); ε = 0.5 by {entries[0].by} on {day} "
            "(entry 2).") in str(refused.value)
    assert all("by" not in e.public_json() for e in entries)  # staff names are not in the public export


def test_a_failure_after_the_noise_is_charged_and_shows_nothing(ledger, monkeypatch):
    """A statistic's estimate or post-processing runs on the noisy answers: a failure there may depend on them (a
    noisy count of 0, a fit that does not converge), and uncharged it was a free look at them (DESIGN rule 5).
    Whatever stops it past the noise is charged, the values dropped unseen; the message names the statistic."""
    import pandas as pd

    from workbench.core.data.io import Table
    from workbench.core.data.schema import NumericColumn, Schema
    from workbench.core.errors import FailedAfterNoise
    from workbench.core.privacy.mechanisms import MechanismKind
    from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
    from workbench.core.release.run import release
    from workbench.core.statistics.counts import Count

    table = Table(frame=pd.DataFrame({"x": [1.0, 2.0, 3.0]}), source=Path("t.csv"), file_format="csv")
    plan = ReleasePlan(DatasetDescription("broken"), Schema((NumericColumn("x", lower=0.0, upper=10.0),)),
                       (PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(1.0)),), Budget(1.0))

    def broken(self, noisy, *args, **kwargs):
        raise ZeroDivisionError("a noisy value quoted here: 1234.5")

    monkeypatch.setattr(Count, "estimate", broken)
    with pytest.raises(FailedAfterNoise) as failed:
        release(table, plan, ledger, Guarantee(5.0, 0.0, "total budget"))
    assert "count of rows stopped on an unexpected ZeroDivisionError" in str(failed.value)
    assert "1234.5" not in str(failed.value) and "charged all the same" in str(failed.value)
    assert ledger.dataset("broken").releases == 1 and ledger.dataset("broken").spent.epsilon == pytest.approx(1.0)


def test_a_quantiles_failure_past_its_selection_is_charged(ledger, monkeypatch):
    """A quantile's interval is computed from its noisy selection: a failure there is charged too (after_noise in
    ``Quantiles.measure``), with the place of the error it wraps kept."""
    import numpy as np
    import pandas as pd

    from workbench.core.data.io import Table
    from workbench.core.data.schema import NumericColumn, Schema
    from workbench.core.errors import FailedAfterNoise, Place, WorkbenchError
    from workbench.core.privacy.mechanisms import MechanismKind
    from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
    from workbench.core.release.run import release
    from workbench.core.statistics import quantiles
    from workbench.core.statistics.quantiles import Quantiles

    def broken(*args, **kwargs):
        raise WorkbenchError("no interval.", place=Place("budget", "confidence"))

    monkeypatch.setattr(quantiles, "quantile_intervals", broken)
    table = Table(frame=pd.DataFrame({"x": np.linspace(0, 10, 200)}), source=Path("t.csv"), file_format="csv")
    plan = ReleasePlan(DatasetDescription("median"), Schema((NumericColumn("x", lower=0.0, upper=10.0),)),
                       (PlannedStatistic(Quantiles("x", levels=(0.5,), interval=True), MechanismKind.EXPONENTIAL,
                                         Budget(1.0)),), Budget(1.0))
    with pytest.raises(FailedAfterNoise, match="stopped: no interval.*charged all the same") as failed:
        release(table, plan, ledger, Guarantee(5.0, 0.0, "total budget"))
    assert failed.value.place == Place("budget", "confidence")
    assert ledger.dataset("median").releases == 1


def _written_by_hand(ledger: Ledger, dataset: str, kind: str, data: dict) -> None:
    """An entry the app would not write, appended with a whole chain (as an analyst's own SQL could on a team
    ledger: the trigger checks the chain, not the entry's numbers)."""
    ledger._transact(lambda tx: ledger._append(tx, dataset, kind, data))


def test_an_entry_giving_budget_back_is_refused_not_counted(ledger):
    """A helper's audit: a 'release' of ε = -100, its chain whole, gave the dataset its budget back; the app then
    charged ε = 50 of a total of 1 and `verify` found nothing."""
    ledger.charge("survey", [event(0.5)], {"statistics": []}, {}, ROW)
    refund = {"events": [event(0.5).to_json() | {"epsilon": -100.0}], "cost": {}, "release": {}, "plan": {}}
    _written_by_hand(ledger, "survey", "release", refund)
    assert [(p.entry, "negative or not a finite number" in p.message) for p in ledger.verify()] == [(3, True)]
    with pytest.raises(LedgerError, match="entry 3 records an ε, δ, scale or sensitivity that is negative"):
        ledger.charge("survey", [event(0.4)], {"statistics": []}, {}, ROW)
    with pytest.raises(LedgerError, match="no budget of 'survey' can rest on it"):
        ledger.dataset("survey")
    assert sum(e.kind == "release" for e in ledger.entries()) == 2  # nothing charged


def test_a_dataset_whose_first_entry_is_no_registration_is_refused(ledger):
    """A 'release' written as a dataset's first entry carried a budget of its own (ε = 1000)."""
    squat = {"events": [event(0.1).to_json()], "cost": {}, "release": {}, "plan": {},
             "budget": {"epsilon": 1000.0, "delta": 0.0}, "neighbouring": "add_remove",
             "privacy_unit": "one row of the table"}
    _written_by_hand(ledger, "squatted", "release", squat)
    assert [p.message for p in ledger.verify()] == ["is the first entry of 'squatted' but not its registration"]
    with pytest.raises(LedgerError, match="is the first entry of 'squatted' but not its registration"):
        ledger.charge("squatted", [event(0.1)], {"statistics": []}, {}, ROW)
    assert ledger.dataset("survey").budget.epsilon == 1.0  # the other datasets are read as before
