"""A release killed at any moment (SIGKILL) leaves a valid ledger and never an uncharged result.

A child process releases a small plan in a loop, writing each result after its charge;
the parent kills it with SIGKILL at 50 random moments (20 on a team ledger, whose server
rolls back what a killed client left open). After every kill the ledger's chain (and a
SQLite file) is intact, and every result file on disk names a ledger entry that holds
exactly its values.
"""

import json
import multiprocessing
import os
import random
import signal
import sqlite3
import time
from pathlib import Path

import pandas as pd

from workbench.core.data.io import load_table
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.privacy.events import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.release.run import release
from workbench.core.report.export import write_results
from workbench.core.statistics.counts import Count
from workbench.core.statistics.moments import Mean

KILLS = {"sqlite": 50, "postgresql": 20}


def _plan() -> ReleasePlan:
    return ReleasePlan(
        dataset=DatasetDescription("crash test"),
        schema=Schema((NumericColumn("x", lower=0, upper=10),)),
        statistics=(
            PlannedStatistic(Count(), MechanismKind.LAPLACE, Budget(0.001)),
            PlannedStatistic(Mean("x"), MechanismKind.GAUSSIAN, Budget(0.001, 1e-12)),
        ),
        total=Budget(0.002, 1e-12),
    )


def _release_forever(data: str, ledger_path: str, out: str, ready) -> None:
    table, plan, ledger = load_table(data), _plan(), Ledger(ledger_path)  # a team ledger connects here, after the fork
    n = 0
    while True:
        result = release(table, plan, ledger, dataset_budget=Guarantee(100.0, 1e-6, "total budget"))
        n += 1
        write_results(result, Path(out) / f"{os.getpid()}-{n}")
        ready.set()  # one release done: the kill below lands at a random moment of later ones


def test_sigkill_at_random_moments_loses_no_charge_and_shows_nothing_uncharged(tmp_path, ledger_location):
    data = tmp_path / "data.csv"
    pd.DataFrame({"x": [float(i % 11) for i in range(3000)]}).to_csv(data, index=False)
    ledger_path, out = ledger_location, tmp_path / "out"
    out.mkdir()
    sqlite_file = not ledger_path.startswith("postgresql://")
    Ledger(ledger_path)
    _plan().guarantee()  # calibrate once here; forked children inherit the cached noise scales
    context = multiprocessing.get_context("fork")
    timing = random.Random(4)  # fixed seed: the kill moments are reproducible

    kills = KILLS["sqlite" if sqlite_file else "postgresql"]
    for _ in range(kills):
        ready = context.Event()
        child = context.Process(target=_release_forever, args=(str(data), str(ledger_path), str(out), ready))
        child.start()
        assert ready.wait(timeout=60)
        time.sleep(timing.uniform(0.0, 0.2))
        os.kill(child.pid, signal.SIGKILL)
        child.join()

        ledger = Ledger(ledger_path)
        assert ledger.verify() == []
        if sqlite_file:
            with sqlite3.connect(ledger_path) as db:
                assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    entries = {e.seq: e for e in Ledger(ledger_path).entries() if e.kind == "release"}
    shown = list(out.glob("*/results.json"))
    assert len(shown) >= kills  # every child released before it was killed
    for path in shown:
        result = json.loads(path.read_text())
        entry = entries[result["ledger"]["entry"]]
        assert entry.hash == result["ledger"]["hash"]
        assert entry.data["release"]["statistics"] == result["statistics"]
    record = Ledger(ledger_path).dataset("crash test")
    assert record.releases == len(entries) >= len(shown)
