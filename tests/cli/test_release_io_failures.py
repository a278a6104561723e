"""Real failures of the disk around a release, from the command line: a disk that fills up at any moment,
a read-only ledger folder, a results folder that cannot be written. Every time the outcome is one of
two: charged and shown, or refused with a message and nothing charged, shown or written; the ledger's
chain stays intact. (SIGKILL at random moments: tests/core/release/test_ledger_crash.py.)"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from bad_inputs import SAMPLE, SAMPLE_PLAN, ledger_state

# Runs the command line with a cap on the size of any file it writes: past it a write fails with EFBIG,
# as on a full disk (SIGXFSZ, which would kill the process instead, is ignored).
CAPPED = """
import os, resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
cap = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (cap, resource.RLIM_INFINITY))
from workbench.cli import main
sys.exit(main(sys.argv[2:]))
"""
RELEASE = ["release", str(SAMPLE), "--plan", str(SAMPLE_PLAN), "--dataset-budget", "10", "1e-6"]


def _cli(args, ledger: Path, cap: int | None = None, **kwargs) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "workbench.cli", *args] if cap is None else \
        [sys.executable, "-c", CAPPED, str(cap), *args]
    env = {**os.environ, "DP_WORKBENCH_LEDGER": str(ledger)}
    return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env, **kwargs)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_FSIZE as a full disk: Linux")
def test_a_disk_that_fills_up_at_any_point_charges_and_shows_or_refuses_cleanly(used_ledger, tmp_path):
    start = used_ledger.stat().st_size
    outcomes = set()
    for room in (0, 2_000, 8_000, 16_000, 24_000, 32_000, 48_000, 64_000, 96_000, 160_000, 10_000_000):
        before = ledger_state(used_ledger)
        out = tmp_path / f"out-{room}"
        run = _cli([*RELEASE, "--out", str(out)], used_ledger, cap=start + room)
        assert "Traceback" not in run.stderr, run.stderr
        after = ledger_state(used_ledger)  # verifies the chain
        if run.returncode == 0:  # charged, then shown and written
            assert len(after) == len(before) + 1 and "Charged to the ledger" in run.stdout
            assert (out / "results.json").exists()
            outcomes.add("released")
        elif len(after) == len(before):  # refused before the charge: nothing shown or written
            assert run.returncode == 2 and "Nothing was released" in " ".join(run.stderr.split()), run.stderr
            assert "Charged" not in run.stdout and not (out / "results.json").exists()
            outcomes.add("refused")
        else:  # charged, shown, but the results could not be written: the message says where they are
            assert run.returncode == 2 and "Charged to the ledger" in run.stdout
            assert "recorded in the ledger as entry" in " ".join(run.stderr.split()), run.stderr
            outcomes.add("charged, not written")
        start = used_ledger.stat().st_size
    assert {"released", "refused"} <= outcomes  # the sweep reached both sides of the failure


def _read_only(folder: Path):
    """Make ``folder`` read-only for this process; a context manager. Root ignores permissions, so as
    root the folder is bind-mounted read-only on itself, if this machine allows mounting."""
    class ReadOnly:
        def __enter__(self):
            if os.geteuid() != 0:
                folder.chmod(0o555)
                return self
            done = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
            if done.returncode != 0:
                pytest.skip(f"as root, a read-only folder needs a read-only mount, refused here: {done.stderr!r}")
            subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
            return self

        def __exit__(self, *exc):
            if os.geteuid() != 0:
                folder.chmod(0o755)
            else:
                subprocess.run(["umount", str(folder)], check=True)

    return ReadOnly()


def test_a_read_only_ledger_folder_refuses_the_release_and_shows_nothing(used_ledger, tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="ledger-"))
    ledger = folder / "ledger.sqlite"
    shutil.copyfile(used_ledger, ledger)
    before = ledger_state(ledger)
    try:
        with _read_only(folder):
            assert not os.access(folder, os.W_OK) or os.geteuid() == 0
            run = _cli([*RELEASE, "--out", str(tmp_path / "out")], ledger)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        message = " ".join(run.stderr.split())
        assert str(ledger) in message and "Nothing was released" in message, message
        assert "Charged" not in run.stdout and not (tmp_path / "out").exists()
        assert ledger_state(ledger) == before
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def test_results_that_cannot_be_written_after_the_charge_are_shown_and_found_in_the_ledger(used_ledger, tmp_path):
    blocked = tmp_path / "results"
    blocked.write_text("a file where the results folder should be")
    before = ledger_state(used_ledger)
    run = _cli([*RELEASE, "--out", str(blocked)], used_ledger)
    message = " ".join(run.stderr.split())
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(ledger_state(used_ledger)) == len(before) + 1  # the charge stands: the values were computed
    entry = len(before) + 1
    assert "Charged to the ledger" in run.stdout and f"recorded in the ledger as entry {entry}" in message
