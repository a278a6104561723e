"""The command line's in-memory release keeps only the plan's columns and hashes every column as the file is read
(``load_table(columns=...)``): the ledger still recognises the table by all of it, and a release that stops stops
the hashing (issue 39)."""

import json

import numpy as np
import pandas as pd

from workbench.cli import main
from workbench.core.data.digest_stream import DigestStream


def _plan(tmp_path, sample_plan_path, name: str):
    plan = json.loads(sample_plan_path.read_text())
    plan["dataset"]["name"] = name
    path = tmp_path / f"{name}.plan.json"
    path.write_text(json.dumps(plan))
    return path


def test_a_table_released_in_memory_is_recognised_shuffled_out_of_core(sample_path, sample_plan_path, tmp_path,
                                                                        capsys, private_ledger):
    assert main(["release", str(sample_path), "--plan", str(_plan(tmp_path, sample_plan_path, "A")), "--engine",
                 "memory", "--out", str(tmp_path / "a"), "--dataset-budget", "3", "1e-6"]) == 0
    frame = pd.read_csv(sample_path, dtype=str, keep_default_na=False)
    rng = np.random.default_rng(3)
    shuffled = frame.iloc[rng.permutation(len(frame)), rng.permutation(frame.shape[1])]
    moved = tmp_path / "shuffled.csv"
    shuffled.to_csv(moved, index=False)
    capsys.readouterr()
    assert main(["release", str(moved), "--plan", str(_plan(tmp_path, sample_plan_path, "B")), "--engine",
                 "out-of-core", "--out", str(tmp_path / "b"), "--dataset-budget", "3", "1e-6"]) == 2
    assert "already in the ledger as dataset 'A'" in " ".join(capsys.readouterr().err.split())


def test_a_release_the_ledger_refuses_stops_the_hashing(sample_path, sample_plan_path, tmp_path, capsys,
                                                        private_ledger, monkeypatch):
    from workbench.core.data import digest_stream

    abandoned, real_abandon, held = [], DigestStream.abandon, []

    def abandon(self):
        abandoned.append(self)
        real_abandon(self)

    def endless_sums(db, part, names):  # the hashing is not done when the ledger refuses
        held.append(db)
        return db.execute("SELECT sum(hash(range)) FROM range(10000000000000)").fetchall()

    monkeypatch.setattr(DigestStream, "abandon", abandon)
    monkeypatch.setattr(digest_stream, "text_sums", endless_sums)
    # the plan spends more than the dataset's whole budget: refused once the data are recognised
    try:
        assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--engine", "memory", "--out",
                     str(tmp_path / "a"), "--dataset-budget", "0.001", "1e-9"]) == 2
        assert "budget" in capsys.readouterr().err
        (stream,) = abandoned
        for thread in list(stream._pool._threads):
            thread.join(timeout=60)
            assert not thread.is_alive()
        assert stream.abandoned and stream._db is None
    finally:
        for db in held:  # not abandoned: stop it, so that the tests can end
            try:
                db.interrupt()
            except Exception:  # noqa: BLE001 - closed: stopped
                pass
