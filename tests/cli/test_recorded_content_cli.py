"""The command line's out-of-core release of a file it released before (its bytes unchanged, read the same way)
does not hash its rows again: the ledger records its content fingerprint (``Ledger.recorded_content_fingerprint``).
A ledger that does not exist yet is not made before the release."""

from __future__ import annotations

import json

from workbench.cli import main
from workbench.core.data.out_of_core import OutOfCoreData
from workbench.core.release.ledger import Ledger


def _opened(monkeypatch) -> list[bool]:
    """Whether each out-of-core engine the command opens hashes the file's rows."""
    hashing: list[bool] = []
    real_init = OutOfCoreData.__init__

    def init(self, *args, **kwargs):
        hashing.append(kwargs.get("hashes_content", True))
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(OutOfCoreData, "__init__", init)
    return hashing


def _release(data, plan, tmp_path, out: str, ledger) -> int:
    return main(["release", str(data), "--plan", str(plan), "--engine", "out-of-core", "--out", str(tmp_path / out),
                 "--ledger", str(ledger), "--dataset-budget", "5", "1e-6"])


def test_a_file_released_again_is_not_hashed_again(sample_path, sample_plan_path, tmp_path, monkeypatch, capsys):
    hashing = _opened(monkeypatch)
    ledger = tmp_path / "ledger.sqlite"
    assert _release(sample_path, sample_plan_path, tmp_path, "a", ledger) == 0
    assert _release(sample_path, sample_plan_path, tmp_path, "b", ledger) == 0
    assert hashing == [True, False]
    first, second = [e.data for e in Ledger(ledger).entries() if e.kind == "release"]
    assert first["fingerprint"] == second["fingerprint"]
    assert first["content_fingerprint"] == second["content_fingerprint"]
    a, b = (json.loads((tmp_path / out / "results.json").read_text())["statistics"] for out in "ab")
    assert [s["label"] for s in a] == [s["label"] for s in b]


def test_a_copy_under_another_name_is_hashed_and_refused(sample_path, sample_plan_path, tmp_path, monkeypatch,
                                                          capsys):
    hashing = _opened(monkeypatch)
    ledger = tmp_path / "ledger.sqlite"
    assert _release(sample_path, sample_plan_path, tmp_path, "a", ledger) == 0
    copy = tmp_path / "copy.csv"
    copy.write_bytes(sample_path.read_bytes() + b"\n")  # other bytes, the same rows
    plan = json.loads(sample_plan_path.read_text())
    plan["dataset"]["name"] = "Another name"
    other = tmp_path / "other.plan.json"
    other.write_text(json.dumps(plan))
    capsys.readouterr()
    assert _release(copy, other, tmp_path, "b", ledger) == 2
    assert hashing == [True, True]
    assert "already in the ledger as dataset" in " ".join(capsys.readouterr().err.split())


def test_no_ledger_is_made_before_the_release(sample_path, sample_plan_path, tmp_path, monkeypatch, capsys):
    """A release refused before it is charged (here: a public category spelled otherwise than the file's, which the
    curator's check of the categories refuses) leaves no ledger where there was none."""
    hashing = _opened(monkeypatch)
    plan = json.loads(sample_plan_path.read_text())
    for column in plan["schema"]["columns"]:
        if column["kind"] == "categorical":
            column["categories"][0] = column["categories"][0].upper()  # "FEMALE": the file says "female"
    narrow = tmp_path / "narrow.plan.json"
    narrow.write_text(json.dumps(plan))
    ledger = tmp_path / "ledger.sqlite"
    assert _release(sample_path, narrow, tmp_path, "a", ledger) == 2
    assert hashing == [True] and not ledger.exists()


def test_a_spark_source_is_looked_up_only_once_its_reading_is_declared(sample_path, tmp_path):
    """Spark decides an undeclared encoding or delimiter as it opens the file (from its name's suffix too): the
    command line cannot say before how it will read it, so it hashes the rows."""
    import argparse

    from workbench.cli.progress import CommandProgress
    from workbench.cli.releases import _ledger_before_reading
    from workbench.core.data.spark_engine import spark_source

    ledger = tmp_path / "ledger.sqlite"
    Ledger(ledger)
    args = argparse.Namespace(ledger=ledger)
    shown = CommandProgress()
    try:
        assert _ledger_before_reading(args, spark_source(sample_path), shown) == (None, True)
        opened, hashes = _ledger_before_reading(args, spark_source(sample_path, delimiter=",", encoding="utf-8"), shown)
        assert opened is not None and hashes  # looked up: nothing recorded yet
    finally:
        shown.finish()


def test_a_file_released_in_memory_again_is_not_hashed_again(sample_path, sample_plan_path, tmp_path, monkeypatch,
                                                             capsys):
    """In memory as out of core: the second release of the file looks it up in the ledger before reading it, reads
    it without hashing every column, and records the same content fingerprint, as the out-of-core one did."""
    from workbench.core.data import digest_stream

    streams: list[int] = []
    real_init = digest_stream.DigestStream.__init__

    def init(self, *args, **kwargs):
        streams.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(digest_stream.DigestStream, "__init__", init)
    ledger = tmp_path / "ledger.sqlite"
    for engine, out in (("memory", "a"), ("memory", "b"), ("out-of-core", "c"), ("memory", "d")):
        assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--engine", engine, "--out",
                     str(tmp_path / out), "--ledger", str(ledger), "--dataset-budget", "5", "1e-6"]) == 0
    assert streams == [1]  # the first release alone hashed the rows
    recorded = [(e.data["fingerprint"], e.data["content_fingerprint"], e.data["read_as"])
                for e in Ledger(ledger).entries() if e.kind == "release"]
    assert len(recorded) == 4 and len(set(map(str, recorded))) == 1


def test_bad_input_says_the_same_with_a_ledger_to_look_it_up_in(sample_path, sample_plan_path, tmp_path, capsys):
    """The in-memory release looks a CSV up in an existing ledger before reading it: a missing file, a folder and a
    binary file are still refused with the words they get without a ledger, and the ledger is left as it was."""
    ledger = tmp_path / "ledger.sqlite"
    assert _release(sample_path, sample_plan_path, tmp_path, "a", ledger) == 0
    entries = len(Ledger(ledger).entries())
    folder = tmp_path / "folder.csv"
    folder.mkdir()
    binary = tmp_path / "binary.csv"
    binary.write_bytes(bytes(range(256)) * 64)
    for data in (tmp_path / "missing.csv", folder, binary):
        said = []
        for where in (ledger, tmp_path / "none" / "ledger.sqlite"):
            capsys.readouterr()
            assert main(["release", str(data), "--plan", str(sample_plan_path), "--engine", "memory", "--out",
                         str(tmp_path / "b"), "--ledger", str(where), "--dataset-budget", "5", "1e-6"]) == 2
            said.append(" ".join(capsys.readouterr().err.split()))
        assert said[0] == said[1] and data.name in said[0]
    assert len(Ledger(ledger).entries()) == entries and not (tmp_path / "none").exists()
