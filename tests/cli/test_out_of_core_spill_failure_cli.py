"""A release whose out-of-core engine cannot write its spill files ends with exit code 2 and a message naming the
temporary folder (not DuckDB's traceback, nor a file that cannot be read)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from workbench.core.data import out_of_core


def test_a_spill_that_cannot_be_written_is_refused_from_the_command_line(sample_path, sample_plan_path, tmp_path,
                                                                         capsys, monkeypatch):
    from workbench.cli import main

    real = tempfile.mkdtemp

    def unusable(*args, **named):  # a plain file where the engine's spill folder would be
        folder = real(*args, **named)
        (Path(folder) / "spill").write_text("not a folder", encoding="utf-8")
        return folder

    monkeypatch.setattr(out_of_core.tempfile, "mkdtemp", unusable)
    frame = pd.read_csv(sample_path, dtype=str, keep_default_na=False)
    big = tmp_path / "survey.csv"
    pd.concat([frame] * (200_000 // len(frame) + 1)).to_csv(big, index=False)
    code = main(["release", str(big), "--plan", str(sample_plan_path), "--out", str(tmp_path / "out"),
                 "--engine", "out-of-core", "--memory-limit", "16MB", "--ledger", str(tmp_path / "ledger.sqlite"),
                 "--dataset-budget", "10", "1e-6"])
    error = " ".join(capsys.readouterr().err.split())  # the message is wrapped at 100 characters
    assert code == 2, error
    assert "temporary folder" in error and "Free disk space" in error and "Traceback" not in error
    assert "delimiter" not in error
