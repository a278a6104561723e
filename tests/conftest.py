import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))

SAMPLE = ROOT / "resources" / "sample" / "household_survey.csv"
SAMPLE_PLAN = ROOT / "resources" / "sample" / "household_survey.plan.json"


@pytest.fixture
def sample_path() -> Path:
    return SAMPLE


@pytest.fixture
def sample_plan_path() -> Path:
    return SAMPLE_PLAN


@pytest.fixture(autouse=True)
def private_ledger(tmp_path, monkeypatch) -> Path:
    """Every test gets its own ledger; none touches the user's."""
    path = tmp_path / "ledger.sqlite"
    monkeypatch.setenv("DP_WORKBENCH_LEDGER", str(path))
    return path
