"""The desktop bundle, built from a clean checkout by PyInstaller and used as a user would (offscreen):
packaging/smoke_test.sh. Several minutes: marked ``packaging`` (deselect with -m "not packaging")."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.packaging
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the smoke test builds the Linux bundle")
@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_the_bundle_builds_from_a_clean_checkout_and_releases(tmp_path):
    run = subprocess.run([str(ROOT / "packaging" / "smoke_test.sh"), str(tmp_path)], capture_output=True,
                         text=True, timeout=1800)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert "The bundle works" in run.stderr
    assert "OpenDP" in (tmp_path / "version.txt").read_text()
    assert (tmp_path / "release" / "report.pdf").stat().st_size > 10_000
