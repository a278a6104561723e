import importlib.util
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "resources" / "sample" / "household_survey.csv"


def test_sample_dataset_is_reproduced_byte_for_byte_by_its_script(tmp_path):
    spec = importlib.util.spec_from_file_location("generate", ROOT / "resources/sample/generate_household_survey.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.write(tmp_path / "again.csv")
    assert (tmp_path / "again.csv").read_bytes() == SAMPLE.read_bytes()


def test_sample_dataset_looks_like_a_household_survey():
    frame = pd.read_csv(SAMPLE)
    assert len(frame) == 20000
    sizes = frame.groupby("household_id").size()
    assert sizes.min() == 1 and sizes.max() <= 8
    assert frame["region"].nunique() == 8
    income = frame["annual_income"]
    assert (income == 0).mean() > 0.05 and income.mean() > income.median()  # zeros, right skew
    assert income.max() > 20 * income.median()  # a few very large values
    assert frame["weekly_hours"][frame["employed"] == "no"].eq(0).all()
