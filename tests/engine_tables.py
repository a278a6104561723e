"""Tables on which the engines (in memory, out of core, Spark) must give identical exact answers: people with
several rows apart in the file, skewed tied incomes, missing values, 0/1 codes, codes with leading zeros, texts
with spaces, a survey weight, values on half grid steps; and a statistic of every kind on them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from realistic_tables import ETHNICITIES, REGIONS, STATES

from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    Neighbouring,
    NumericColumn,
    OutsideCategories,
    PrivacyUnit,
    Schema,
)

DROP = MissingPolicy(MissingAction.DROP)
UNIT = 2.0**-31  # the grid step of a column bounded by [0, 1]: values on half steps test ties to even


def survey(rows: int = 4000, seed: int = 5) -> pd.DataFrame:
    """People with one to four rows each (file order matters for k), skewed tied incomes, missing values,
    0/1 codes, codes with leading zeros, spaces around texts, a weight, values on half grid steps."""
    rng = np.random.default_rng(seed)
    person = np.sort(rng.integers(0, rows // 2, rows))
    rng.shuffle(person[: rows // 3])  # not sorted everywhere: a person's rows are apart in the file
    income = np.round(rng.lognormal(7.5, 1.1, rows), -1)
    income[rng.random(rows) < 0.05] = np.nan
    hours = rng.integers(0, 80, rows).astype(float)
    hours[rng.random(rows) < 0.04] = np.nan
    region = rng.choice(REGIONS[:4], rows, p=[0.6, 0.2, 0.15, 0.05]).astype(object)
    region[:2] = "islands"
    region[rng.random(rows) < 0.01] = "  north east "  # outside the list, with spaces
    return pd.DataFrame({
        "person": person,
        "region": region,
        "state": rng.choice(STATES, rows),
        "sex": rng.integers(0, 2, rows),
        "code": [f"{c:02d}" for c in rng.integers(1, 4, rows)],  # "01": the category "1", as pandas reads it
        "ethnicity": rng.choice(ETHNICITIES, rows),
        "income": income,
        "hours": hours,
        "weight": np.round(rng.uniform(0.5, 40.0, rows), 3),
        "share": (rng.integers(0, 2**20, rows) + 0.5) * UNIT,  # exactly between two grid steps
    })


def schema(k: int = 2, neighbouring: Neighbouring = Neighbouring.ADD_REMOVE) -> Schema:
    return Schema((
        IdentifierColumn("person"),
        CategoricalColumn("region", REGIONS, outside=OutsideCategories.OTHER),
        CategoricalColumn("state", STATES, outside=OutsideCategories.DROP),
        CategoricalColumn("sex", ("0", "1"), outside=OutsideCategories.DROP),
        CategoricalColumn("code", ("1", "2", "3"), outside=OutsideCategories.DROP),
        CategoricalColumn("ethnicity", ETHNICITIES[:30], outside=OutsideCategories.OTHER,
                          missing=MissingPolicy(MissingAction.IMPUTE, "unknown")),
        NumericColumn("income", 0, 200_000, missing=DROP),
        NumericColumn("hours", 0, 60, missing=MissingPolicy(MissingAction.IMPUTE, 0)),
        NumericColumn("weight", 1, 30),
        NumericColumn("share", 0, 1),
    ), unit=PrivacyUnit("person", k), neighbouring=neighbouring,
        public_size=2000 if neighbouring is Neighbouring.SUBSTITUTE else None)


STATISTICS = [
    {"type": "count"},
    {"type": "count", "by": ["region", "sex"]},
    {"type": "count", "weighted_by": "weight", "by": "region"},
    {"type": "sum", "column": "income"},
    {"type": "sum", "column": "share"},
    {"type": "sum", "column": "income", "by": ["region", "state", "sex"], "weighted_by": "weight"},
    {"type": "mean", "column": "income", "by": "region"},
    {"type": "mean", "column": "hours", "weighted_by": "weight", "by": ["sex", "code"]},
    {"type": "variance", "column": "income", "by": "ethnicity"},
    {"type": "stddev", "column": "hours"},
    {"type": "histogram", "column": "region"},
    {"type": "histogram", "column": "income", "edges": [1000, 2500, 10000], "by": "sex", "weighted_by": "weight"},
    {"type": "crosstab", "columns": ["region", "code"]},
    {"type": "crosstab", "columns": ["sex", "code", "ethnicity"], "by": "region"},
    {"type": "proportion", "column": "code", "by": "sex"},
]


def survey_files(folder: Path, rows: int = 4000) -> dict[str, Path]:
    """The survey as CSV (every digit of its doubles) and as Parquet in ``folder``."""
    frame = survey(rows)
    csv, parquet = folder / "survey.csv", folder / "survey.parquet"
    frame.to_csv(csv, index=False, float_format="%.17g")
    frame.to_parquet(parquet, index=False)
    return {"csv": csv, "parquet": parquet}
