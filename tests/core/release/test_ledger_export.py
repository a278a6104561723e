"""`ledger export` publishes what the releases used, not the whole plan they came from (issue 41 §5)."""

import json
from pathlib import Path

import pandas as pd

from workbench.cli import main
from workbench.core.data.io import Table
from workbench.core.data.schema import CategoricalColumn, NumericColumn, Schema
from workbench.core.privacy.events import Guarantee
from workbench.core.privacy.mechanisms import MechanismKind
from workbench.core.release.ledger import Ledger
from workbench.core.release.plan import Budget, DatasetDescription, PlannedStatistic, ReleasePlan
from workbench.core.release.run import release
from workbench.core.statistics.counts import Histogram
from workbench.core.statistics.moments import Mean

TABLE = Table(frame=pd.DataFrame({"age": [30.0, 40.0, 50.0] * 20, "region": ["north", "south", "east"] * 20,
                                  "diagnosis": ["none", "none", "HIV"] * 20, "income": [1.0, 2.0, 3.0] * 20}),
              source=Path("survey.csv"), file_format="csv")
UNUSED = ("diagnosis", "HIV", "hepatitis C", "income", "1234567")


def plan(*statistics: PlannedStatistic) -> ReleasePlan:
    schema = Schema((
        NumericColumn("age", lower=0.0, upper=100.0),
        CategoricalColumn("region", categories=("north", "south", "east")),
        CategoricalColumn("diagnosis", categories=("none", "HIV", "hepatitis C")),  # planned, never released
        NumericColumn("income", lower=0.0, upper=1234567.0),
    ))
    return ReleasePlan(DatasetDescription("survey", size_estimate=60), schema, statistics, Budget(2.0))


def test_the_export_leaves_out_the_columns_no_released_statistic_read(tmp_path, private_ledger, capsys):
    ledger = Ledger(private_ledger)
    release(TABLE, plan(PlannedStatistic(Mean("age"), MechanismKind.LAPLACE, Budget(1.0))), ledger,
            Guarantee(10.0, 0.0, "total budget"))
    release(TABLE, plan(PlannedStatistic(Histogram("region"), MechanismKind.LAPLACE, Budget(1.0))), ledger)
    assert "HIV" in ledger.entries()[1].body  # the curator's own ledger keeps the plan as it was run

    exported = [e.public_json() for e in ledger.entries()]
    assert [[c["name"] for c in e["plan"]["schema"]["columns"]] for e in exported[1:]] == [["age"], ["region"]]
    assert exported[2]["plan"]["schema"]["columns"][0]["categories"] == ["north", "south", "east"]
    text = json.dumps(exported)
    assert not [word for word in UNUSED if word in text]

    out = tmp_path / "ledger.json"
    assert main(["ledger", "export", "--out", str(out)]) == 0
    assert not [word for word in UNUSED if word in out.read_text()]


def test_an_entry_whose_plan_cannot_be_read_again_exports_no_columns(private_ledger):
    """A plan recorded by another version, which this one cannot read, is exported without its columns
    rather than whole."""
    ledger = Ledger(private_ledger)
    release(TABLE, plan(PlannedStatistic(Mean("age"), MechanismKind.LAPLACE, Budget(1.0))), ledger,
            Guarantee(10.0, 0.0, "total budget"))
    entry = ledger.entries()[1]
    data = entry.data
    data["plan"]["statistics"][0]["type"] = "a statistic of a later version"
    odd = type(entry)(entry.seq, entry.dataset, entry.kind, entry.created, json.dumps(data), entry.prev_hash,
                      entry.hash)
    exported = odd.public_json()
    assert exported["plan"]["schema"]["columns"] == [] and "HIV" not in json.dumps(exported)


def test_the_export_leaves_out_the_encoding_a_template_guessed_from_the_rows(tmp_path, private_ledger, capsys):
    """plan-template declares the encoding it guessed from the file's bytes: one person's row in cp1252 made the
    plan say cp1252 where a file of ASCII said nothing. It says how the file was read, not what was released."""
    rows = "age,region\n" + "30,north\n" * 300
    plain, neighbour = tmp_path / "plain.csv", tmp_path / "neighbour.csv"
    plain.write_text(rows, encoding="ascii")
    neighbour.write_bytes((rows + "40,Montréal\n").encode("cp1252"))
    encodings = []
    for data in (plain, neighbour):
        planned = tmp_path / f"{data.stem}.plan.json"
        assert main(["plan-template", str(data), "--out", str(planned)]) == 0
        encodings.append(json.loads(planned.read_text())["dataset"].get("encoding"))
    assert encodings == [None, "cp1252"]  # what the export must not repeat

    ledger = Ledger(private_ledger)
    declared = ReleasePlan(DatasetDescription("survey", size_estimate=60, encoding="cp1252"),
                           plan().schema, (PlannedStatistic(Mean("age"), MechanismKind.LAPLACE, Budget(1.0)),),
                           Budget(2.0))
    release(TABLE, declared, ledger, Guarantee(10.0, 0.0, "total budget"))
    assert "cp1252" in ledger.entries()[1].body  # the curator's own ledger keeps it
    assert "cp1252" not in json.dumps([e.public_json() for e in ledger.entries()])
    out = tmp_path / "ledger.json"
    assert main(["ledger", "export", "--out", str(out)]) == 0
    assert "cp1252" not in out.read_text()
