"""The bad-input corpus on the command line: exit 0 for a sound file, exit 2 with the core's message for a
refused one, never a traceback; a refused release writes no results, charges nothing and leaves the plan
file as it was. (See tests/bad_inputs.py.)"""

import re
import subprocess
import sys

import pytest
from bad_inputs import CASES, DATA, MEDDLED, SAMPLE, ledger_state, meddle_while_reading

from workbench.cli import main


def _said(capsys) -> tuple[str, str]:
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return captured.out, " ".join(captured.err.split())


@pytest.mark.parametrize("case", DATA, ids=lambda c: c.id)
def test_inspect_a_data_file(case, bad_corpus, capsys):
    code = main(["inspect", str(case.data_path)])
    out, err = _said(capsys)
    if case.refused:
        assert code == 2 and re.search(case.refused, err), err
        assert err.startswith("Error: ")
    else:
        assert code == 0 and "proposed kind" in out, err


@pytest.mark.parametrize("case", [c for c in CASES if c.plan], ids=lambda c: c.id)
def test_release_with_a_plan(case, bad_corpus, used_ledger, tmp_path, capsys):
    plan_bytes, before = case.plan_path.read_bytes(), ledger_state(used_ledger)
    out_dir = tmp_path / "out"
    code = main(["release", str(case.data_path or SAMPLE), "--plan", str(case.plan_path), "--out", str(out_dir),
                 "--dataset-budget", "3", "1e-6"])
    out, err = _said(capsys)
    assert case.plan_path.read_bytes() == plan_bytes  # the user's plan is never rewritten
    if case.refused:
        assert code == 2 and re.search(case.refused, err), err
        assert ledger_state(used_ledger) == before and not out_dir.exists()
    else:
        assert code == 0 and (out_dir / "results.json").exists(), err
        assert len(ledger_state(used_ledger)) > len(before)


def test_a_real_process_prints_one_message_and_no_traceback(bad_corpus, tmp_path):
    """What a user sees in a terminal (the in-process tests above would raise instead of printing)."""
    for name in ("binary_named.csv", "password.xlsx", "ragged.csv"):
        run = subprocess.run([sys.executable, "-m", "workbench.cli", "inspect", str(bad_corpus / name)],
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and run.stdout == "" and "Traceback" not in run.stderr
        assert run.stderr.startswith(f"Error: {name}") and run.stderr.count("Error:") == 1


@pytest.mark.parametrize("meddle", sorted(MEDDLED))
def test_a_file_that_changes_or_disappears_while_loading(meddle, bad_corpus, tmp_path, monkeypatch, capsys):
    path = tmp_path / "survey.csv"
    path.write_bytes((bad_corpus / "semicolons.csv").read_bytes())
    meddle_while_reading(monkeypatch, path, meddle)
    assert main(["inspect", str(path)]) == 2
    assert re.search(MEDDLED[meddle], _said(capsys)[1])
