"""A team ledger under load and under faults (issue 38).

- Twelve `dp-workbench release` processes of three analysts charge one dataset at the same moment, with a
  budget that fits five: five are charged, seven are refused and told why, the sum never exceeds the
  budget, and `ledger verify` passes.
- The server restarted, or the connection dropped, between the check and the charge (inside the charge's
  transaction, and before it), another analyst's commit in between, and the connection lost during COMMIT:
  nothing is half-charged, and a value is shown only if its charge committed (DESIGN rule 5).
"""

import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pandas as pd
import psycopg
import pytest

from workbench.core.data.io import Table
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.errors import BudgetError
from workbench.core.privacy.events import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.ledger import Ledger, LedgerUnreachable, Terms
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.release.run import release
from workbench.core.statistics.counts import Count

NAME = "census"
PROCESSES, FITTING = 12, 5
TABLE = Table(frame=pd.DataFrame({"x": [float(i % 10) for i in range(300)]}), source=Path("census.csv"),
              file_format="csv")


def plan(epsilon: float = 1.0) -> ReleasePlan:
    return ReleasePlan(DatasetDescription(NAME), Schema((NumericColumn("x", lower=0.0, upper=10.0),)),
                       (PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(epsilon)),), Budget(epsilon))


@pytest.fixture
def census(postgres_server) -> str:
    """A team ledger whose administrator registered the census with ε = 5 (pure ε: five releases of ε = 1)."""
    database = postgres_server.new_database()
    from workbench.core.release.ledger_postgres import init_server

    admin = init_server(postgres_server.url(database))
    admin.register(NAME, Guarantee(float(FITTING), 0.0, "total budget"), Terms.of(plan().schema))
    return database


# ---------------------------------------------------------------- many analysts at once

WAITING_RELEASE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from workbench.core.release.ledger import Ledger
    from workbench.cli import main

    charge = Ledger.charge
    def charge_when_told(self, *args, **kwargs):
        Path(sys.argv[1]).write_text("computed")  # the data are read and noised: only the charge is left
        while not Path(sys.argv[2]).exists():
            time.sleep(0.01)
        return charge(self, *args, **kwargs)
    Ledger.charge = charge_when_told
    sys.exit(main(sys.argv[3:]))
""")


def test_twelve_releases_at_once_never_overspend_and_every_refusal_says_why(census, postgres_server, tmp_path):
    data, plan_file = tmp_path / "census.csv", tmp_path / "census.plan.json"
    TABLE.frame.to_csv(data, index=False)
    plan().save(plan_file)
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[3]),
                                                                      os.environ.get("PYTHONPATH")]))}
    analysts = ("alice", "bob", "carol")
    processes = []
    for i in range(PROCESSES):
        url = postgres_server.url(census, analysts[i % 3])
        processes.append(subprocess.Popen(
            [sys.executable, "-c", WAITING_RELEASE, str(tmp_path / f"computed-{i}"), str(go), "release", str(data),
             "--plan", str(plan_file), "--out", str(tmp_path / f"out-{i}"), "--ledger", url],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    try:
        deadline = time.monotonic() + 300
        while len(list(tmp_path.glob("computed-*"))) < PROCESSES:  # all twelve wait at their charge
            assert all(p.poll() is None for p in processes), [p.communicate() for p in processes if p.poll()]
            assert time.monotonic() < deadline
            time.sleep(0.05)
        go.write_text("go")
        outcomes = [(p.wait(timeout=300), " ".join(p.stderr.read().split())) for p in processes]
    finally:
        for p in processes:
            if p.poll() is None:
                p.kill()
    charged = [i for i, (code, _) in enumerate(outcomes) if code == 0]
    refused = [err for code, err in outcomes if code == 2]
    assert len(charged) == FITTING and len(refused) == PROCESSES - FITTING, outcomes
    for err in refused:
        assert "would overspend by ε 1" in err and "Nothing was released" in err
        assert "Spent before: ε = 1 by" in err and any(f" by {name} on " in err for name in analysts)
    ledger = Ledger(postgres_server.url(census))
    record, entries = ledger.history(NAME)
    assert record.releases == FITTING and record.spent.epsilon <= record.budget.epsilon == FITTING
    assert ledger.verify() == []
    by_hash = {e.hash: e for e in entries}
    for i in charged:  # what each charged process showed is what its entry holds
        shown = json.loads((tmp_path / f"out-{i}" / "results.json").read_text())
        assert by_hash[shown["ledger"]["hash"]].data["release"]["statistics"] == shown["statistics"]
    verify = subprocess.run([sys.executable, "-m", "workbench.cli", "ledger", "verify", "--ledger",
                             postgres_server.url(census, "alice")], env=env, capture_output=True, text=True, timeout=120)
    assert verify.returncode == 0 and "is intact" in verify.stdout


# ---------------------------------------------------------------- faults

def faulty(where: str, fault) -> Ledger:
    """A ledger on which ``fault`` happens inside the charge's transaction: after the budget, terms and
    fingerprints were checked, before the release's entry is appended."""
    ledger = Ledger(where)
    append = ledger._append

    def append_after_fault(tx, dataset, kind, data):
        if kind == "release":
            fault()
        return append(tx, dataset, kind, data)

    ledger._append = append_after_fault
    return ledger


def nothing_charged(postgres_server, census) -> None:
    ledger = Ledger(postgres_server.url(census))
    assert [e.kind for e in ledger.entries()] == ["register"] and ledger.verify() == []


@pytest.mark.parametrize("fault", ["server restarted", "connection dropped"])
def test_a_fault_inside_the_charge_charges_nothing_and_shows_nothing(census, postgres_server, fault):
    alice = postgres_server.url(census, "alice")
    act = postgres_server.restart if fault == "server restarted" else \
        lambda: postgres_server.end_connections(census, "alice")
    shown = []
    with pytest.raises(LedgerUnreachable, match="Nothing was released, and nothing was recorded"):
        shown.append(release(TABLE, plan(), faulty(alice, act)))
    assert not shown
    nothing_charged(postgres_server, census)
    assert release(TABLE, plan(), Ledger(alice)).ledger["entry"] == 2  # and the next release is charged


def test_a_server_restarted_between_the_check_and_the_charge_is_connected_to_again(census, postgres_server):
    ledger = Ledger(postgres_server.url(census, "alice"))
    charge = ledger.charge

    def restart_then_charge(*args, **kwargs):
        postgres_server.restart()
        return charge(*args, **kwargs)

    ledger.charge = restart_then_charge
    result = release(TABLE, plan(), ledger)
    entry = Ledger(postgres_server.url(census)).entries()[-1]
    assert (result.ledger["entry"], result.ledger["hash"]) == (entry.seq, entry.hash)


def test_another_analysts_commit_before_the_charge_is_counted_and_named(census, postgres_server):
    ledger = Ledger(postgres_server.url(census, "alice"))
    charge = ledger.charge

    def bob_first(*args, **kwargs):  # bob spends 4.5 while alice's data are being read
        release(TABLE, plan(4.5), Ledger(postgres_server.url(census, "bob")))
        return charge(*args, **kwargs)

    ledger.charge = bob_first
    with pytest.raises(BudgetError, match=r"overspend by ε 0.5.*Spent before: ε = 4.5 by bob on"):
        release(TABLE, plan(), ledger)
    assert [e.by for e in Ledger(postgres_server.url(census)).entries()] == ["ledger_admin", "bob"]


def test_another_analysts_charge_waits_for_the_lock_and_then_sees_this_one(census, postgres_server):
    bob_outcome = []

    def bob_charges() -> None:
        try:
            release(TABLE, plan(1.5), Ledger(postgres_server.url(census, "bob")))
            bob_outcome.append("charged")
        except BudgetError as refused:
            bob_outcome.append(str(refused))

    bob = threading.Thread(target=bob_charges)

    def bob_tries_now() -> None:  # alice has checked, and holds the ledger's lock
        bob.start()
        postgres_server.wait_until_waiting(census)

    result = release(TABLE, plan(4.0), faulty(postgres_server.url(census, "alice"), bob_tries_now))
    bob.join(timeout=120)
    assert result.ledger["entry"] == 2
    assert "overspend by ε 0.5" in bob_outcome[0] and "ε = 4 by alice" in bob_outcome[0]
    assert Ledger(postgres_server.url(census)).verify() == []


class LostCommit:
    """A connection whose COMMIT reaches the server (``reached``) or not, and whose answer never comes back."""

    def __init__(self, conn, reached: bool, server, database: str) -> None:
        object.__setattr__(self, "_conn", conn)
        object.__setattr__(self, "_fault", (reached, server, database))

    def __getattr__(self, name):
        return getattr(self._conn, name)

    def __setattr__(self, name, value) -> None:
        setattr(self._conn, name, value)

    def commit(self) -> None:
        reached, server, database = self._fault
        if reached:
            self._conn.commit()
        else:
            server.end_connections(database, "alice")
        raise psycopg.OperationalError("server closed the connection unexpectedly")


@pytest.mark.parametrize("reached", [True, False], ids=["commit reached the server", "commit lost"])
def test_a_connection_lost_during_commit_is_asked_again_before_anything_is_shown(census, postgres_server, reached):
    ledger = Ledger(postgres_server.url(census, "alice"))
    ledger.check_key()
    connect = ledger._connect
    ledger._connect = lambda: LostCommit(connect(), reached, postgres_server, census)  # only a charge commits
    if reached:  # the charge is in the ledger: its values are shown, as every charge
        result = release(TABLE, plan(), ledger)
        assert Ledger(postgres_server.url(census)).entries()[-1].hash == result.ledger["hash"]
    else:
        with pytest.raises(LedgerUnreachable, match="Nothing was recorded and nothing is shown"):
            release(TABLE, plan(), ledger)
        nothing_charged(postgres_server, census)


def test_a_server_gone_after_the_charge_is_said_to_have_charged_it(census, postgres_server):
    """A helper's audit: after the commit the release reads the ledger again to count what remains; with the server
    gone then, the user read "nothing was released, and nothing was recorded", though ε was charged (and a retry
    would spend it twice). Now the failure says it was charged, and where its values are."""
    from workbench.core.errors import FailedAfterNoise

    ledger = Ledger(postgres_server.url(census, "alice"))
    ledger.check_key()
    charge = ledger.charge

    def charged_then_gone(*args, **kwargs):
        entry = charge(*args, **kwargs)
        ledger._connect = lambda: (_ for _ in ()).throw(ledger._unreachable(psycopg.OperationalError("gone"), "read"))
        return entry

    ledger.charge = charged_then_gone
    with pytest.raises(FailedAfterNoise, match=r"The release was charged: .* records it as entry 2 of 'census'.*"
                                               r"Do not release it again"):
        release(TABLE, plan(), ledger)
    assert Ledger(postgres_server.url(census)).dataset(NAME).releases == 1


def test_a_refused_write_says_the_servers_reason_without_quoting_the_entry(census, postgres_server):
    """PostgreSQL's detail and context quote the text around a bad character of a jsonb value: for an entry the
    trigger reads, that was the release's noisy values, shown in "cannot be written (…)" while nothing was charged
    (a helper's audit). Only the server's one-line reason is said."""
    from workbench.core.release.ledger_postgres import _server_reason

    entry = '{"cells": [{"value": 1234.5}, {"label": "B\\u0000", "value": 98.25}]}'
    with psycopg.connect(postgres_server.url(census)) as conn:
        with pytest.raises(psycopg.Error) as refused:
            conn.execute("SELECT %s::jsonb", (entry,))
    assert "1234.5" in str(refused.value) or "98.25" in str(refused.value)  # what the message said before
    reason = _server_reason(refused.value)
    assert "1234.5" not in reason and "98.25" not in reason and "B" not in reason.replace("SQLSTATE", "")
    assert "SQLSTATE" in reason and reason.strip()


def test_a_database_in_another_encoding_refuses_an_entry_without_showing_it(postgres_server):
    """Entries are UTF-8 text ("ε", accented labels). A database in LATIN1 had the client encode them in LATIN1: the
    UnicodeEncodeError it raised was no LedgerError, and the app showed its repr, the whole uncharged entry with its
    noisy values (a helper's review). The client now speaks UTF-8, and the server's refusal is said in one line."""
    from workbench.core.release.ledger import LedgerError
    from workbench.core.release.ledger_postgres import init_server

    name = f"ledger_latin1_{os.getpid()}"
    postgres_server.sql("postgres", f"CREATE DATABASE {name} OWNER ledger_admin ENCODING 'LATIN1' TEMPLATE template0 "
                                    "LC_COLLATE 'C' LC_CTYPE 'C'")
    admin = init_server(postgres_server.url(name))
    admin.register(NAME, Guarantee(float(FITTING), 0.0, "total budget"), Terms.of(plan().schema))
    labelled = ReleasePlan(DatasetDescription(NAME), Schema((NumericColumn("x", lower=0.0, upper=10.0,
                                                                         label="Wert ε"),)),
                           (PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(1.0)),), Budget(1.0))
    with pytest.raises(LedgerError) as refused:
        release(TABLE, labelled, Ledger(postgres_server.url(name, "alice")))
    assert "value" not in str(refused.value) and "Nothing was recorded" in str(refused.value)
    assert [e.kind for e in Ledger(postgres_server.url(name)).entries()] == ["register"]


def test_a_value_of_the_data_holding_a_nul_is_never_listed_nor_refused_after_the_noise(census, postgres_server,
                                                                                      monkeypatch):
    """A team ledger reads each entry as jsonb, which holds no NUL character: a category search that listed a value
    of the data holding one had its entry refused by the server after the noise, uncharged, a refusal that depends
    on the noisy counts (whether that value was listed), free to try again. Such a value is now no candidate (left
    out by itself, before the noise); a released text holding one all the same (made here by a statistic's estimate)
    is charged, its values dropped unseen; the plan's own texts (public) are refused before anything is read."""
    from dataclasses import replace as replaced

    from workbench.core.data.schema import CategoricalColumn
    from workbench.core.errors import FailedAfterNoise, PlanError
    from workbench.core.release.category_discovery import discover_categories

    jobs = ["clerk"] * 300 + ["nurse\x00night"] * 300
    table = Table(frame=pd.DataFrame({"job": jobs, "x": [1.0] * 600}), source=Path("census.csv"), file_format="csv")
    schema = Schema((NumericColumn("x", lower=0.0, upper=10.0), CategoricalColumn("job", ("clerk",))))
    with_job = ReleasePlan.from_json({**plan().to_json(), "dataset": {"name": "jobs"}, "schema": schema.to_json()})
    Ledger(postgres_server.url(census)).register("jobs", Guarantee(5.0, 1e-5, "total budget"), Terms.of(schema))
    alice = Ledger(postgres_server.url(census, "alice"))
    assert discover_categories(table, with_job, "job", 1.0, 1e-7, alice).categories == ("clerk",)

    estimate = Count.estimate
    monkeypatch.setattr(Count, "estimate", lambda self, *a, **k: tuple(
        replaced(c, label=c.label + "\x00") for c in estimate(self, *a, **k)))
    with pytest.raises(FailedAfterNoise, match="holds a NUL character.*charged all the same"):
        release(TABLE, plan(), alice)
    entries = Ledger(postgres_server.url(census)).entries(NAME)
    assert [e.kind for e in entries] == ["register", "release"] and "cells" not in entries[-1].body
    assert json.loads(entries[-1].body)["cost"]["epsilon"] == pytest.approx(1.0)

    named = ReleasePlan.from_json({**plan().to_json(), "dataset": {"name": NAME, "description": "wave\x002"}})
    with pytest.raises(PlanError, match="description holds a NUL character"):
        release(TABLE, named, alice)
    assert len(Ledger(postgres_server.url(census)).entries()) == 4  # refused before anything was read or charged


@pytest.mark.parametrize("value", [float("inf"), float("nan")])
def test_a_released_number_that_is_not_finite_is_charged_not_refused_by_the_server(census, postgres_server, value,
                                                                                    monkeypatch):
    """jsonb has no NaN or infinity either: a noisy value or bound that is not finite would have the server refuse
    the entry after the noise, uncharged. Charged instead, nothing shown (made here by a statistic's estimate)."""
    from dataclasses import replace as replaced

    from workbench.core.errors import FailedAfterNoise

    estimate = Count.estimate
    monkeypatch.setattr(Count, "estimate", lambda self, *a, **k: tuple(
        replaced(c, error=value) for c in estimate(self, *a, **k)))
    with pytest.raises(FailedAfterNoise, match="not a finite number.*charged all the same"):
        release(TABLE, plan(), Ledger(postgres_server.url(census, "alice")))
    entries = Ledger(postgres_server.url(census)).entries(NAME)
    assert [e.kind for e in entries] == ["register", "release"] and "cells" not in entries[-1].body


def test_a_value_the_team_database_cannot_encode_is_charged_not_refused_after_the_noise(postgres_server):
    """A team database in Greek (ISO 8859-7: ε and δ, not ü) cannot store 'Müller': a category search that listed
    such a value of the data had its entry refused after the noise, uncharged, a refusal that depended on the noisy
    counts (a review). The store's refusal of what an entry holds (``EntryRefused``) is now charged without the
    values. (In LATIN1 no entry can be written at all, its ε being none of its characters: that refusal depends on no
    noisy value, and nothing is charged, as before.)"""
    from workbench.core.data.schema import CategoricalColumn
    from workbench.core.errors import FailedAfterNoise
    from workbench.core.release.category_discovery import discover_categories
    from workbench.core.release.ledger_postgres import init_server

    name = f"ledger_greek_{os.getpid()}"
    postgres_server.sql("postgres", f"CREATE DATABASE {name} OWNER ledger_admin ENCODING 'ISO_8859_7' "
                                    "TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'")
    schema = Schema((NumericColumn("x", lower=0.0, upper=10.0), CategoricalColumn("price", ("low",))))
    init_server(postgres_server.url(name)).register("prices", Guarantee(5.0, 1e-5, "total budget"), Terms.of(schema))
    table = Table(frame=pd.DataFrame({"price": ["low"] * 300 + ["Müller"] * 300, "x": [1.0] * 600}),
                  source=Path("prices.csv"), file_format="csv")
    prices = ReleasePlan.from_json({**plan().to_json(), "dataset": {"name": "prices"}, "schema": schema.to_json()})
    with pytest.raises(FailedAfterNoise, match="cannot be written.*charged all the same"):
        discover_categories(table, prices, "price", 1.0, 1e-7, Ledger(postgres_server.url(name, "alice")))
    entries = Ledger(postgres_server.url(name)).entries("prices")
    assert [e.kind for e in entries] == ["register", "release"] and "low" not in json.dumps(entries[-1].data["release"])
