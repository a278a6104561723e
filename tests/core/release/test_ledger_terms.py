"""What a dataset's ε measures (privacy unit, k, neighbouring relation, public size) is checked in the
same write transaction that charges (issue 41 §1), as are the budget and the table's fingerprint: two releases
racing on one ledger (a SQLite file or a team ledger on PostgreSQL), one of which registers or spends the
dataset, cannot leave a release charged under terms it was not calibrated for."""

import json
import os
import re
import subprocess
import sys
import textwrap
import time
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

import pandas as pd
import pytest

from workbench.core.data.io import Table
from workbench.core.data.schema import IdentifierColumn, Neighbouring, NumericColumn, PrivacyUnit, Schema
from workbench.core.errors import BudgetError
from workbench.core.privacy.events import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.ledger import Ledger, LedgerError
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.release.run import release
from workbench.core.statistics.moments import Sum

NAME = "wages"
ROWS = 200
TOTAL = Guarantee(10.0, 0.0, "total budget")


def plan(neighbouring: Neighbouring = Neighbouring.ADD_REMOVE, k: int = 1, size: int | None = None,
         lower: float = 0.0, id_column: str = "id", name: str = NAME, epsilon: float = 1.0) -> ReleasePlan:
    schema = Schema(
        (IdentifierColumn("id"), IdentifierColumn("household"), NumericColumn("x", lower=lower, upper=100.0)),
        unit=PrivacyUnit(id_column, k), neighbouring=neighbouring, public_size=size,
    )
    return ReleasePlan(DatasetDescription(name), schema,
                       (PlannedStatistic(Sum("x"), MechanismKind.LAPLACE, Budget(epsilon)),), Budget(epsilon))


TABLE = Table(frame=pd.DataFrame({"id": range(ROWS), "household": [i // 2 for i in range(ROWS)],
                                  "x": [90.0 + i % 11 for i in range(ROWS)]}),
              source=Path("wages.csv"), file_format="csv")
OTHER_NAME = "wages again"


class Race(NamedTuple):
    """The plan that registers a dataset while the other computes, the plan that was computing, what its charge
    says when it refuses, and the dataset the rival registered."""

    registering: ReleasePlan
    computing: ReleasePlan
    refusal: str = "cannot share one budget"
    rival_dataset: str = NAME


# every property the ledger relies on, raced: each would let a release be charged at an ε that is not its own
RACES = {
    "relation": Race(plan(), plan(Neighbouring.SUBSTITUTE, size=ROWS, lower=90.0)),  # sensitivity 10 vs 100: 10x ε
    "k": Race(plan(k=5), plan(k=1)),
    "id column": Race(plan(id_column="household", k=2), plan(id_column="id", k=2)),  # a household is two persons
    "public size": Race(plan(Neighbouring.SUBSTITUTE, size=ROWS), plan(Neighbouring.SUBSTITUTE, size=ROWS + 1)),
    # the same table registered under another name: charged under both, its budget would count twice
    "fingerprint": Race(plan(name=OTHER_NAME), plan(), f"already in the ledger as dataset '{OTHER_NAME}'", OTHER_NAME),
    # the same dataset spent meanwhile: 9.5 + 1 of a total of 10
    "budget": Race(plan(epsilon=9.5), plan(), "overspend by ε 0.5"),
}


def raced(where: str, rival) -> Ledger:
    """A ledger on which ``rival`` runs to completion between a release's early checks and its charge."""
    ledger = Ledger(where)
    charge = ledger.charge

    def charge_after_rival(*args, **kwargs):
        ledger.charge = charge
        rival()
        return charge(*args, **kwargs)

    ledger.charge = charge_after_rival
    return ledger


@pytest.mark.parametrize("race", sorted(RACES))
def test_a_release_raced_by_a_registration_with_other_terms_is_refused_at_its_charge(ledger_location, race):
    registering, computing, refusal, rival_dataset = RACES[race]
    ledger = raced(ledger_location, lambda: release(TABLE, registering, Ledger(ledger_location), TOTAL))
    assert not ledger.has_dataset(NAME)  # so the computing release's early checks have nothing to compare with
    with pytest.raises((LedgerError, BudgetError), match=re.escape(refusal)):
        release(TABLE, computing, ledger, TOTAL)
    entries = Ledger(ledger_location).entries()
    assert [(e.dataset, e.kind) for e in entries] == [(rival_dataset, "register"), (rival_dataset, "release")]
    assert entries[1].data["plan"]["schema"] == registering.schema.to_json()  # the rival's only
    assert entries[1].data["cost"]["epsilon"] == pytest.approx(registering.statistics[0].budget.epsilon)
    with pytest.raises((LedgerError, BudgetError), match=re.escape(refusal)):  # run alone afterwards: refused as well
        release(TABLE, computing, Ledger(ledger_location), TOTAL)
    assert len(Ledger(ledger_location).entries()) == 2


def test_the_charge_itself_refuses_other_terms(ledger_location):
    """Not only ``release``: the ledger's own charge compares the plan it records with the registration."""
    from workbench.core.release.ledger import Terms

    ledger = Ledger(ledger_location)
    first = plan(k=5)
    release(TABLE, first, ledger, TOTAL)
    other = plan(k=1)
    with pytest.raises(LedgerError, match=r"at most 5 rows.*at most 1 row.*cannot share one budget"):
        ledger.charge(NAME, other.events(), {"statistics": []}, other.to_json(), Terms.of(other.schema))
    assert Ledger(ledger_location).dataset(NAME).releases == 1


def test_a_public_size_is_one_number_per_dataset_also_under_add_remove(ledger_location):
    ledger = Ledger(ledger_location)
    release(TABLE, plan(size=ROWS), ledger, TOTAL)
    release(TABLE, plan(), ledger)  # stating no size is allowed under add/remove
    with pytest.raises(LedgerError, match=f"public size of {ROWS} persons.*states {ROWS + 1}"):
        release(TABLE, plan(size=ROWS + 1), ledger)
    assert Ledger(ledger_location).dataset(NAME).releases == 2


def test_a_ledger_written_before_the_terms_were_recorded_is_still_checked(tmp_path):
    """Register entries of earlier versions hold only the relation and the unit in words: those are compared,
    and the public size is taken from the dataset's earlier releases."""
    import sqlite3

    from workbench.core.release.ledger import entry_hash

    ledger = Ledger(tmp_path / "ledger.sqlite")
    release(TABLE, plan(Neighbouring.SUBSTITUTE, k=2, size=ROWS), ledger, TOTAL)
    with sqlite3.connect(ledger.path) as db:  # rewrite the registration as version 0.1 wrote it (and re-chain)
        rows = db.execute("SELECT seq, dataset, kind, created, body FROM entries ORDER BY seq").fetchall()
        prev = "0" * 64
        for seq, dataset, kind, created, body in rows:
            if kind == "register":
                data = json.loads(body)
                body = json.dumps({k: v for k, v in data.items() if k in ("budget", "neighbouring", "privacy_unit")},
                                  sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            digest = entry_hash(prev, seq, dataset, kind, created, body)
            db.execute("UPDATE entries SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?", (body, prev, digest, seq))
            prev = digest
    assert ledger.verify() == []
    assert "public_size" not in ledger.entries(NAME)[0].data
    release(TABLE, plan(Neighbouring.SUBSTITUTE, k=2, size=ROWS), ledger)
    for other in (plan(Neighbouring.SUBSTITUTE, k=1, size=ROWS), plan(Neighbouring.ADD_REMOVE, k=2),
                  plan(Neighbouring.SUBSTITUTE, k=2, size=ROWS + 1)):
        with pytest.raises(LedgerError, match="cannot share one budget"):
            release(TABLE, other, ledger)
    assert ledger.dataset(NAME).releases == 2


# ---------------------------------------------------------------- real processes


WAITING_RELEASE = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from workbench.core.release.ledger import Ledger
    from workbench.cli import main

    charge = Ledger.charge
    def charge_when_told(self, *args, **kwargs):
        Path(sys.argv[1]).write_text("computed")  # the data are read and noised: only the charge is left
        while not Path(sys.argv[2]).exists():
            time.sleep(0.05)
        return charge(self, *args, **kwargs)
    Ledger.charge = charge_when_told
    sys.exit(main(sys.argv[3:]))
""")


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from workbench.cli import main; sys.exit(main(sys.argv[1:]))", *args]


def test_two_release_processes_on_one_ledger_cannot_charge_under_other_terms(tmp_path, ledger_location):
    """A substitute-neighbour release computes in one process; meanwhile `dp-workbench release` with an
    add/remove plan of the same dataset registers it in another. The first must then be refused: on a SQLite
    file and on a team ledger (PostgreSQL), where the two would be two analysts."""
    data = tmp_path / "wages.csv"
    TABLE.frame.to_csv(data, index=False)
    substitute, add_remove = tmp_path / "substitute.plan.json", tmp_path / "add_remove.plan.json"
    RACES["relation"][1].save(substitute)
    RACES["relation"][0].save(add_remove)
    ledger = ledger_location
    computed, go = tmp_path / "computed", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parents[3]),
                                                                      os.environ.get("PYTHONPATH")]))}
    common = ["--ledger", ledger, "--dataset-budget", "10"]
    first = subprocess.Popen(
        [sys.executable, "-c", WAITING_RELEASE, str(computed), str(go),
         "release", str(data), "--plan", str(substitute), "--out", str(tmp_path / "first"), *common],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not computed.exists():
            assert first.poll() is None and time.monotonic() < deadline, first.communicate()
            time.sleep(0.05)
        second = subprocess.run(_cli("release", str(data), "--plan", str(add_remove), "--out",
                                     str(tmp_path / "second"), *common), env=env, capture_output=True, text=True,
                                timeout=300)
        assert second.returncode == 0, second.stderr
        go.write_text("go")
        out, err = first.communicate(timeout=120)
    finally:
        if first.poll() is None:
            first.kill()
    assert first.returncode == 2, (out, err)
    assert "cannot share one budget" in " ".join(err.split())
    assert not (tmp_path / "first").exists()
    entries = Ledger(ledger).entries(NAME)
    assert [e.kind for e in entries] == ["register", "release"]
    assert entries[0].data["neighbouring"] == "add_remove"
    assert entries[1].data["plan"]["schema"]["neighbouring"] == "add_remove"
