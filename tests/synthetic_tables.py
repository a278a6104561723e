"""A survey shaped like the public-use files statisticians publish, for the synthetic-data tests (issue 36):
ten columns, skewed categories (a region with one huge and one tiny category, a 20-value occupation whose shares
fall off like a power law), a strong pairwise relationship (nobody under 16 is employed; income follows
education), households of up to four persons, generated with a fixed seed."""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.core.data import CategoricalColumn, IdentifierColumn, NumericColumn, PrivacyUnit, Schema
from workbench.core.data.schema import MissingPolicy, OutsideCategories

REGIONS = ("Capital", "North", "South", "East", "West", "Islands")
OCCUPATIONS = tuple(f"occupation {i:02d}" for i in range(1, 21))
EDUCATION = ("none", "primary", "secondary", "tertiary")
MARITAL = ("single", "married", "divorced", "widowed")
TENURE = ("owner", "renter", "other")
AGE_EDGES = (16, 30, 45, 65)
INCOME_EDGES = (10_000, 25_000, 50_000, 100_000)
HOURS_EDGES = (1, 20, 35, 45)


def survey(households: int = 6000, seed: int = 36) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    size = rng.choice([1, 2, 3, 4], size=households, p=[0.3, 0.35, 0.2, 0.15])
    household = np.repeat(np.arange(1, households + 1), size)
    rows = len(household)
    region = np.repeat(rng.choice(REGIONS, size=households, p=[0.45, 0.2, 0.15, 0.1, 0.08, 0.02]), size)
    tenure = np.repeat(rng.choice(TENURE, size=households, p=[0.6, 0.35, 0.05]), size)
    age = rng.integers(0, 95, rows)
    education = np.where(age < 12, "none", rng.choice(EDUCATION, size=rows, p=[0.05, 0.25, 0.45, 0.25]))
    employed = np.where(age < 16, "no", np.where(age >= 67, rng.choice(["yes", "no"], rows, p=[0.1, 0.9]),
                                                  rng.choice(["yes", "no"], rows, p=[0.75, 0.25])))
    level = np.array([EDUCATION.index(e) for e in education])
    income = np.where(employed == "yes", rng.lognormal(9.3 + 0.45 * level, 0.5, rows), rng.lognormal(8.0, 0.8, rows))
    hours = np.where(employed == "yes", rng.normal(38, 8, rows).clip(1, 80), 0.0)
    shares = 1.0 / np.arange(1, len(OCCUPATIONS) + 1) ** 1.3
    occupation = rng.choice(OCCUPATIONS, size=rows, p=shares / shares.sum())
    marital = np.where(age < 18, "single", rng.choice(MARITAL, size=rows, p=[0.35, 0.45, 0.12, 0.08]))
    sex = rng.choice(["female", "male"], size=rows)
    return pd.DataFrame({"household": household, "region": region, "sex": sex, "age": age, "education": education,
                         "employed": employed, "income": np.round(income), "hours": np.round(hours),
                         "occupation": occupation, "marital": marital, "tenure": tenure})


def schema(k: int = 4) -> Schema:
    drop = OutsideCategories.DROP
    return Schema((
        IdentifierColumn("household"),
        CategoricalColumn("region", REGIONS, outside=drop),
        CategoricalColumn("sex", ("female", "male"), outside=drop),
        NumericColumn("age", lower=0, upper=100),
        CategoricalColumn("education", EDUCATION, outside=drop),
        CategoricalColumn("employed", ("yes", "no"), outside=drop),
        NumericColumn("income", lower=0, upper=300_000),
        NumericColumn("hours", lower=0, upper=80),
        CategoricalColumn("occupation", OCCUPATIONS, outside=drop),
        CategoricalColumn("marital", MARITAL, outside=drop),
        CategoricalColumn("tenure", TENURE, outside=drop, missing=MissingPolicy()),
    ), unit=PrivacyUnit("household", k))


EDGES = {"age": AGE_EDGES, "income": INCOME_EDGES, "hours": HOURS_EDGES}
COLUMNS = ("region", "sex", "age", "education", "employed", "income", "hours", "occupation", "marital", "tenure")
