"""Generate the synthetic household survey shipped as the sample dataset.

Run: ``python resources/sample/generate_household_survey.py`` (writes household_survey.csv
beside this script). The seed is fixed, so the file is reproduced byte for byte; a test
checks that. Every value is synthetic: no real person is in it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

SEED = 20261122
TARGET_PERSONS = 20_000
REGIONS = ("North", "North East", "East", "South East", "South", "South West", "West", "Capital")
REGION_WEIGHTS = (0.10, 0.08, 0.12, 0.15, 0.11, 0.09, 0.13, 0.22)
EDUCATION = ("none", "primary", "lower secondary", "upper secondary", "tertiary")
HOUSEHOLD_SIZES = np.arange(1, 9)
HOUSEHOLD_SIZE_WEIGHTS = np.array([0.28, 0.33, 0.16, 0.14, 0.06, 0.02, 0.007, 0.003])
OUT = Path(__file__).with_name("household_survey.csv")
COLUMNS = ("household_id", "age", "sex", "region", "education", "employed", "weekly_hours", "annual_income", "weight")
# Persons the survey's households stand for, by region: the smaller regions are over-sampled
# (smaller weights), the capital under-sampled. Each household's weight is its region's times a
# non-response and calibration adjustment, drawn from a generator of its own so that adding
# the column left every other value as it was.
REGION_BASE_WEIGHTS = dict(zip(REGIONS, (420, 380, 450, 520, 440, 400, 470, 610)))
WEIGHT_ADJUSTMENT = (0.8, 1.35)


def _education(rng: np.random.Generator, age: int) -> str:
    if age < 6:
        return "none"
    if age < 12:
        return "primary"
    if age < 16:
        return "lower secondary"
    weights = np.array([0.03, 0.10, 0.22, 0.38, 0.27]) if age < 65 else np.array([0.08, 0.25, 0.30, 0.25, 0.12])
    return EDUCATION[rng.choice(5, p=weights)]


def _person(rng: np.random.Generator, age: int, region: str) -> dict[str, object]:
    education = _education(rng, age)
    working_age = 16 <= age <= 66
    p_employed = {"none": 0.35, "primary": 0.5, "lower secondary": 0.62, "upper secondary": 0.74, "tertiary": 0.86}
    employed = working_age and rng.random() < p_employed[education] * (0.8 if age < 20 else 1.0)
    hours = int(np.clip(round(rng.normal(37, 9)), 4, 70)) if employed else 0
    if employed:
        base = {"none": 9.6, "primary": 9.9, "lower secondary": 10.1, "upper secondary": 10.35, "tertiary": 10.75}
        capital = 0.15 if region == "Capital" else 0.0
        income = float(np.exp(rng.normal(base[education] + capital, 0.55)) * hours / 37)
        if rng.random() < 0.002:  # a few very large incomes
            income *= rng.uniform(8, 40)
    elif age >= 18 and rng.random() < 0.75:  # pensions and benefits; the rest have none
        income = float(np.exp(rng.normal(9.3, 0.4)))
    else:
        income = 0.0
    missing_income = age >= 16 and rng.random() < 0.015  # item non-response
    return {
        "age": age,
        "sex": "female" if rng.random() < 0.51 else "male",
        "region": region,
        "education": "" if rng.random() < 0.008 else education,
        "employed": "yes" if employed else "no",
        "weekly_hours": hours,
        "annual_income": "" if missing_income else round(income, -1),
    }


def generate(rng: np.random.Generator) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    household = 0
    while len(rows) < TARGET_PERSONS:
        household += 1
        size = int(rng.choice(HOUSEHOLD_SIZES, p=HOUSEHOLD_SIZE_WEIGHTS / HOUSEHOLD_SIZE_WEIGHTS.sum()))
        region = REGIONS[rng.choice(len(REGIONS), p=REGION_WEIGHTS)]
        head_age = int(np.clip(rng.normal(48, 16), 18, 96))
        for member in range(size):
            if member == 0:
                age = head_age
            elif member == 1 and rng.random() < 0.8:
                age = int(np.clip(head_age + rng.normal(0, 4), 18, 98))
            elif head_age < 60:
                age = int(rng.integers(0, min(25, head_age - 16)))
            else:
                age = int(rng.integers(18, 98))
            rows.append({"household_id": f"H{household:05d}", **_person(rng, age, region)})
    _add_weights(rows, np.random.default_rng(SEED + 1))
    return rows


def _add_weights(rows: list[dict[str, object]], rng: np.random.Generator) -> None:
    """One survey weight per household, shared by its members, as a design weight is."""
    weights: dict[object, float] = {}
    for row in rows:
        household = row["household_id"]
        if household not in weights:
            weights[household] = round(REGION_BASE_WEIGHTS[row["region"]] * rng.uniform(*WEIGHT_ADJUSTMENT), 1)
        row["weight"] = weights[household]


def write(path: Path) -> int:
    """Write the sample to ``path``; returns the number of rows."""
    rows = generate(np.random.default_rng(SEED))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def main() -> None:
    print(f"wrote {write(OUT)} rows to {OUT}")


if __name__ == "__main__":
    main()
