"""A release is charged however it stops once its noise is drawn (DESIGN rule 5: no free re-rolls): how long the work
after the noise takes, and what its progress says, may depend on the noisy values, and a stop seen to cost nothing
would be a free look at them. A stop before the noise spends nothing; one after the charge says which ledger entry
holds the values it did not show."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from workbench.core.data.io import Table
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.errors import FailedAfterNoise, PlanError
from workbench.core.privacy import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release import run
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.statistics.counts import Count

TABLE = Table(frame=pd.DataFrame({"x": [1.0, 2.0, 3.0]}), source=Path("t.csv"), file_format="csv")
PLAN = ReleasePlan(DatasetDescription("stopped"), Schema((NumericColumn("x", lower=0.0, upper=10.0),)),
                   (PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(0.5)),
                    PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(0.5))), Budget(1.0))


@pytest.fixture
def ledger(tmp_path, private_ledger_keys) -> Ledger:
    return Ledger(tmp_path / "ledger.sqlite")


def _releases(ledger: Ledger) -> int:
    return ledger.dataset("stopped").releases if ledger.has_dataset("stopped") else 0


def _stopping(monkeypatch, where: str, stop: BaseException) -> None:
    """``stop`` raised at ``where``: the first statistic's exact answer (before any noise), the second's (after
    the first's noise: a query DuckDB's Ctrl+C stops), the release's assembling before the charge, or the ledger read
    just after the charge."""
    if where in ("first", "second"):
        original, seen = Count.measure, []

        def measure(self, *args, **kwargs):
            seen.append(self)
            if len(seen) == (1 if where == "first" else 2):
                raise stop
            return original(self, *args, **kwargs)

        monkeypatch.setattr(Count, "measure", measure)
    elif where == "assembling":
        def unsaid(*args, **kwargs):
            raise stop

        monkeypatch.setattr(run, "_unsaid", unsaid)
    else:
        original_dataset = Ledger.dataset

        def dataset(self, name, up_to=None):
            if up_to is not None:
                raise stop
            return original_dataset(self, name, up_to)

        monkeypatch.setattr(Ledger, "dataset", dataset)


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), SystemExit(143), PlanError("a refusal"),
                                  RuntimeError("a noisy value quoted: 1234.5")], ids=repr)
def test_a_stop_before_the_noise_is_free_and_after_it_is_charged(stop, monkeypatch, ledger):
    _stopping(monkeypatch, "first", stop)
    with pytest.raises(type(stop)):
        run.release(TABLE, PLAN, ledger, Guarantee(5.0, 0.0, "total budget"))
    assert _releases(ledger) == 0
    monkeypatch.undo()
    for where in ("second", "assembling"):
        _stopping(monkeypatch, where, stop)
        with pytest.raises(FailedAfterNoise) as failed:
            run.release(TABLE, PLAN, ledger, Guarantee(5.0, 0.0, "total budget"))
        monkeypatch.undo()
        assert "charged all the same" in str(failed.value) and "1234.5" not in str(failed.value), where
    assert _releases(ledger) == 2 and ledger.dataset("stopped").spent.epsilon == pytest.approx(2.0)


@pytest.mark.parametrize("stop", [KeyboardInterrupt(), SystemExit(143)], ids=repr)
def test_a_stop_just_after_the_charge_says_which_entry_holds_the_values(stop, monkeypatch, ledger):
    _stopping(monkeypatch, "charged", stop)
    with pytest.raises(FailedAfterNoise, match=r"records it as entry 2 of 'stopped', with its values.*ledger export"):
        run.release(TABLE, PLAN, ledger, Guarantee(5.0, 0.0, "total budget"))
    monkeypatch.undo()
    assert _releases(ledger) == 1  # charged once, with its values
    assert ledger.entries("stopped")[-1].data["release"]["statistics"]


def test_ctrl_c_during_a_duckdb_query_is_a_stop_like_any_other(tmp_path):
    """DuckDB's Python client turns Ctrl+C during a query into RuntimeError('Query interrupted') (or its
    InterruptException): told as an interrupt, it is free before the noise and charged after it, where it had been
    an "unexpected error" either way."""
    from workbench.core.data.out_of_core import OutOfCoreData, file_source

    data = tmp_path / "t.csv"
    data.write_text("x\n1\n2\n")

    def interrupted(kind):
        def call():
            raise kind("Query interrupted")
        return call

    with OutOfCoreData(file_source(data), PLAN.schema) as engine:
        for kind in (RuntimeError, engine._duckdb.InterruptException):
            with pytest.raises(KeyboardInterrupt):
                engine._guarded(interrupted(kind))
        with pytest.raises(RuntimeError, match="something else"):
            engine._guarded(lambda: (_ for _ in ()).throw(RuntimeError("something else")))


def _sigint_during_the_charge(monkeypatch, then: Exception | None = None) -> None:
    """Ctrl+C lands while the ledger's charge is being made; the charge then ends as it does, or raises ``then``."""
    import os
    import signal

    original = Ledger.charge

    def charge(self, *args, **kwargs):
        entry = original(self, *args, **kwargs)
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10_000):  # the handler runs here
            pass
        if then is not None:
            raise then
        return entry

    monkeypatch.setattr(Ledger, "charge", charge)


def test_ctrl_c_during_the_charge_waits_until_the_release_is_shown(monkeypatch, ledger, stop_signals):
    from workbench.core.process_exit import make_held_stop

    _sigint_during_the_charge(monkeypatch)
    released = run.release(TABLE, PLAN, ledger, Guarantee(5.0, 0.0, "total budget"))
    assert released.ledger["entry"] == 2 and len(released.statistics) == 2  # charged and shown
    with pytest.raises(KeyboardInterrupt):  # then the program stops, as asked
        make_held_stop()


def test_ctrl_c_never_turns_the_ledgers_own_answer_into_a_second_charge(monkeypatch, ledger, stop_signals):
    """A team ledger that lost its connection during the COMMIT cannot tell whether the entry was recorded; Ctrl+C
    at that moment had replaced its answer, and the release was charged again as a failure (two entries)."""
    from workbench.core.process_exit import make_held_stop
    from workbench.core.release.ledger import LedgerError

    _sigint_during_the_charge(monkeypatch, LedgerError("it cannot be told whether the entry was recorded"))
    with pytest.raises(LedgerError, match="cannot be told"):
        run.release(TABLE, PLAN, ledger, Guarantee(5.0, 0.0, "total budget"))
    monkeypatch.undo()
    assert [e.kind for e in ledger.entries("stopped")] == ["register", "release"]  # one charge, never two
    with pytest.raises(KeyboardInterrupt):
        make_held_stop()
