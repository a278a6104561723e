"""The out-of-core engine's folder holds the prepared private data: it is removed however a release ends (closed,
failed, interrupted, SIGTERM), and one left by a process that was killed outright is swept at the next start
(issue 41, 5)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data.out_of_core import FOLDER_PREFIX, OutOfCoreData, file_source, sweep_leftovers
from workbench.core.data.schema import NumericColumn, Schema
from workbench.core.errors import SchemaError

ROOT = Path(__file__).resolve().parents[3]


def _engine_folders(folder: Path) -> list[Path]:
    return sorted(folder.glob(f"{FOLDER_PREFIX}*"))


def test_closing_or_failing_removes_the_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    path = tmp_path / "x.csv"
    pd.DataFrame({"x": [1, 2, 3]}).to_csv(path, index=False)
    with OutOfCoreData(file_source(path), Schema((NumericColumn("x", 0, 5),))) as data:
        assert len(_engine_folders(tmp_path / "tmp")) == 1 and data.rows == 3
    assert _engine_folders(tmp_path / "tmp") == []
    path.write_text("x\n1\nabout 2\n")
    with pytest.raises(SchemaError):
        OutOfCoreData(file_source(path), Schema((NumericColumn("x", 0, 5),)))
    assert _engine_folders(tmp_path / "tmp") == []


def _signals_as_by_default() -> None:
    """The release's SIGHUP as a terminal's process has it: a test run under ``nohup`` ignores SIGHUP, the child
    inherits that, and the command rightly keeps an ignored SIGHUP ignored (it then finished its release)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _release_process(tmp_path: Path, rows: int = 3_000_000) -> tuple[subprocess.Popen, Path]:
    data = tmp_path / "big.csv"
    rng = np.random.default_rng(1)
    pd.DataFrame({"x": rng.integers(0, 100, rows), "y": rng.random(rows)}).to_csv(data, index=False)
    plan = tmp_path / "plan.json"
    plan.write_text('{"format": "dp-workbench-plan", "version": 1, "dataset": {"name": "big", "size_estimate": 3000000},'
                    '"schema": {"columns": [{"name": "x", "kind": "numeric", "lower": 0, "upper": 100}, {"name": "y", '
                    '"kind": "numeric", "lower": 0, "upper": 1}], "privacy_unit": {"id_column": null, '
                    '"max_rows_per_person": 1}, "neighbouring": "add_remove"}, "statistics": [{"type": "sum", "column": '
                    '"x", "mechanism": "laplace", "epsilon": 0.5}], "total_budget": {"epsilon": 0.5, "delta": 0}}')
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary), "DP_WORKBENCH_LEDGER": str(tmp_path / "ledger.sqlite")}
    process = subprocess.Popen([sys.executable, "-m", "workbench.cli", "release", str(data), "--plan", str(plan),
                                "--engine", "out-of-core", "--out", str(tmp_path / "out"), "--dataset-budget", "1"],
                               env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=_signals_as_by_default if sys.platform != "win32" else None)
    for _ in range(12_000):  # until the engine has made its folder: a loaded machine may take a minute to get there
        if _engine_folders(temporary) or process.poll() is not None:
            break
        time.sleep(0.05)
    return process, temporary


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGTERM", "SIGHUP"])  # `kill`; a logout, a closed terminal
def test_a_signal_during_a_release_out_of_core_leaves_nothing_behind(tmp_path, name):
    process, temporary = _release_process(tmp_path)
    assert _engine_folders(temporary), process.communicate()
    process.send_signal(getattr(signal, name))
    process.communicate(timeout=120)
    assert process.returncode != 0
    assert _engine_folders(temporary) == []
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_a_folder_left_by_a_killed_process_is_swept_at_the_next_start(tmp_path):
    process, temporary = _release_process(tmp_path)
    assert _engine_folders(temporary), process.communicate()
    process.kill()  # SIGKILL: no handler runs
    process.communicate(timeout=60)
    left = _engine_folders(temporary)
    assert left  # with whatever DuckDB had spilled into it
    ours = temporary / f"{FOLDER_PREFIX}{os.getpid()}-alive"  # a live process's folder is never touched
    ours.mkdir()
    assert sweep_leftovers(temporary) == left
    assert _engine_folders(temporary) == [ours]


def _dead_pid() -> int:
    """The number of a process that has ended (and been reaped)."""
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    return ended.pid


def _left_by(temporary: Path, pid: int, tag: str) -> Path:
    folder = temporary / f"{FOLDER_PREFIX}{pid}-{tag}"
    (folder / "spill").mkdir(parents=True)
    (folder / "prepared.duckdb").write_bytes(b"private rows")
    (folder / "prepared.duckdb.wal").write_bytes(b"more private rows")
    return folder


@pytest.mark.skipif(sys.platform == "win32", reason="fcntl's lock; the PID check alone on Windows")
def test_the_command_line_sweeps_a_killed_process_s_folder_at_its_start_and_keeps_every_live_one(tmp_path):
    """Not only the next out-of-core release: any `dp-workbench` command (here `inspect`, which starts no engine)
    removes what a process killed outright left, and never what a running process (another release, the app, a
    process of another PID namespace that holds its folder's lock) is using."""
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    dead = _left_by(temporary, _dead_pid(), "xyz")
    mine = _left_by(temporary, os.getpid(), "running")  # the test's own process: alive
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    theirs = _left_by(temporary, sleeper.pid, "running")  # another live process
    import fcntl

    held = _left_by(temporary, _dead_pid(), "held")  # its PID means nothing here, but its owner holds the lock
    lock = (held / "in-use.lock").open("wb")
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    data = tmp_path / "small.csv"
    data.write_text("x,y\n1,a\n2,b\n")
    try:
        done = subprocess.run([sys.executable, "-m", "workbench.cli", "inspect", str(data)], cwd=ROOT,
                              env={**os.environ, "TMPDIR": str(temporary)}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert _engine_folders(temporary) == sorted([mine, theirs, held])
        assert not dead.exists()
        assert (theirs / "prepared.duckdb").read_bytes() == b"private rows"
    finally:
        sleeper.kill()
        sleeper.wait()
        lock.close()
    # their processes gone (the lock with its holder), their folders go at the next sweep
    assert sorted(sweep_leftovers(temporary)) == sorted([held, theirs])


def test_an_engine_holds_its_folder_for_as_long_as_it_is_open(tmp_path, monkeypatch):
    """The folder's lock is what keeps it when its PID cannot be told apart from a dead one."""
    import tempfile

    from workbench.core.data import out_of_core

    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    path = tmp_path / "x.csv"
    pd.DataFrame({"x": [1, 2, 3]}).to_csv(path, index=False)
    with OutOfCoreData(file_source(path), Schema((NumericColumn("x", 0, 5),))):
        (folder,) = _engine_folders(tmp_path / "tmp")
        dead = _dead_pid()
        monkeypatch.setattr(out_of_core, "_owner", lambda folder: dead)  # as if made in another PID namespace
        if sys.platform != "win32":
            assert out_of_core.sweep_leftovers(tmp_path / "tmp") == [] and folder.exists()
    assert _engine_folders(tmp_path / "tmp") == []
