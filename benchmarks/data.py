"""The benchmark table: a synthetic survey of 10 columns, generated with a fixed seed, kept out of git.

The same seed and row count always give the same bytes, so runs on different days (and
machines) measure the same file. Files are written once into ``BENCH_DATA`` (default
``benchmarks/.data``, ignored by git) and reused while they exist.

The plan (``plan``) has the 20 statistics the issue asks for: counts, sums, means,
histograms, cross-tabulations and quantiles, some by group, Laplace and Gaussian noise.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from workbench.core.release.plan import ReleasePlan

SEED = 20261123
FULL_ROWS = 5_000_000
GENERATOR_VERSION = 1  # change when the table changes, so that old files are not reused

REGIONS = ["North", "North East", "East", "South East", "South", "South West", "West", "Capital"]
EDUCATION = ["none", "primary", "lower secondary", "upper secondary", "tertiary"]
SEXES = ["female", "male"]


def data_folder() -> Path:
    folder = Path(os.environ.get("BENCH_DATA", Path(__file__).resolve().parent / ".data"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def synthetic_frame(rows: int, seed: int = SEED) -> pd.DataFrame:
    """Ten columns of a person-level survey: ids, numbers with some missing values, and categories
    (with a few values outside the public lists, as real files have)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(16, 91, rows)
    employed = rng.random(rows) < np.where(age < 67, 0.72, 0.08)
    hours = np.where(employed, np.clip(rng.normal(36, 9, rows), 1, 80), 0.0).round(1)
    income = np.exp(rng.normal(10.2, 0.7, rows)).round(2)
    income[rng.random(rows) < 0.02] = np.nan
    region = rng.choice(len(REGIONS), rows, p=[0.14, 0.09, 0.13, 0.16, 0.12, 0.1, 0.08, 0.18])
    education = rng.choice(len(EDUCATION) + 1, rows, p=[0.03, 0.15, 0.22, 0.33, 0.25, 0.02])  # last: missing
    sex = rng.choice(3, rows, p=[0.505, 0.49, 0.005])  # the third: a value outside the public list
    return pd.DataFrame({
        "person_id": np.arange(1, rows + 1, dtype=np.int64),
        "age": age,
        "sex": pd.Categorical.from_codes(sex, SEXES + ["unknown"]).astype(object),
        "region": pd.Categorical.from_codes(region, REGIONS).astype(object),
        "education": pd.Categorical.from_codes(np.where(education == len(EDUCATION), -1, education),
                                               EDUCATION).astype(object),
        "employed": np.where(employed, "yes", "no"),
        "weekly_hours": hours,
        "annual_income": income,
        "household_size": rng.integers(1, 9, rows),
        "weight": rng.uniform(0.5, 3.0, rows).round(4),
    })


WORKBOOK_ROWS = 28_000  # a survey file as offices send it as Excel: 28,000 rows of 8 columns


def workbook(rows: int = WORKBOOK_ROWS, seed: int = SEED) -> Path:
    """An .xlsx of the first 8 columns of ``rows`` rows, written (with openpyxl) if not there yet."""
    path = data_folder() / f"survey-v{GENERATOR_VERSION}-seed{seed}-{rows}.xlsx"
    if not path.exists():
        partial = path.with_suffix(".partial")
        synthetic_frame(rows, seed).iloc[:, :8].to_excel(partial, index=False, engine="openpyxl")
        partial.replace(path)
    return path


def files(rows: int = FULL_ROWS, seed: int = SEED) -> dict[str, Path]:
    """The CSV and Parquet files of ``rows`` rows, written if not there yet."""
    folder = data_folder()
    stem = f"survey-v{GENERATOR_VERSION}-seed{seed}-{rows}"
    paths = {"csv": folder / f"{stem}.csv", "parquet": folder / f"{stem}.parquet"}
    if not all(p.exists() for p in paths.values()):
        table = pa.Table.from_pandas(synthetic_frame(rows, seed), preserve_index=False)
        for kind, path in paths.items():
            partial = path.with_suffix(".partial")
            if kind == "csv":
                pa_csv.write_csv(table, partial, pa_csv.WriteOptions(quoting_style="needed"))
            else:
                pq.write_table(table, partial)
            partial.replace(path)  # a file cut off by an interrupted run is never reused
    return paths


def plan(rows: int) -> ReleasePlan:
    """Twenty statistics over the benchmark table, ε = 2 in all, with a δ for the Gaussian ones."""
    categorical = lambda name, categories, outside="other": {  # noqa: E731
        "name": name, "kind": "categorical", "categories": categories, "outside": outside, "missing": {"action": "drop"},
    }
    numeric = lambda name, lower, upper: {  # noqa: E731
        "name": name, "kind": "numeric", "lower": lower, "upper": upper, "missing": {"action": "drop"},
    }
    laplace = lambda epsilon, **what: {**what, "mechanism": "laplace", "epsilon": epsilon, "delta": 0.0}  # noqa: E731
    # δ stays far below 1 / rows: as set for 5,000,000 rows, smaller for the out-of-core tables of 10^7 and 10^8
    total_delta = 1e-7 if rows < 10_000_000 else 1.0 / (10 * rows)
    gaussian = lambda epsilon, **what: {**what, "mechanism": "gaussian", "epsilon": epsilon,  # noqa: E731
                                        "delta": total_delta / 10}
    quantiles = lambda epsilon, **what: {**what, "mechanism": "exponential", "epsilon": epsilon, "delta": 0.0}  # noqa: E731
    statistics = [
        laplace(0.1, type="count"),
        laplace(0.1, type="count", by="region"),
        laplace(0.1, type="sum", column="annual_income"),
        gaussian(0.1, type="sum", column="weekly_hours"),
        laplace(0.1, type="sum", column="household_size", by="region"),
        laplace(0.1, type="mean", column="age"),
        laplace(0.1, type="mean", column="annual_income"),
        gaussian(0.1, type="mean", column="weekly_hours", by="sex"),
        laplace(0.1, type="mean", column="annual_income", by="region"),
        laplace(0.1, type="mean", column="household_size"),
        laplace(0.1, type="histogram", column="region"),
        laplace(0.1, type="histogram", column="sex"),
        gaussian(0.1, type="histogram", column="education"),
        laplace(0.1, type="histogram", column="employed"),
        laplace(0.1, type="histogram", column="education", by="region"),
        laplace(0.1, type="crosstab", columns=["sex", "education"]),
        laplace(0.1, type="crosstab", columns=["region", "employed", "sex"]),
        quantiles(0.1, type="quantiles", column="annual_income", levels=[0.5]),
        quantiles(0.1, type="quantiles", column="age", levels=[0.25, 0.5, 0.75]),
        quantiles(0.1, type="quantiles", column="weekly_hours", levels=[0.1, 0.9], by="employed"),
    ]
    return ReleasePlan.from_json({
        "format": "dp-workbench-plan",
        "version": 1,
        "dataset": {"name": f"Benchmark survey ({rows:,} rows)", "description": "Synthetic, for benchmarks only.",
                    "size_estimate": rows},
        "schema": {
            "columns": [
                {"name": "person_id", "kind": "identifier"},
                numeric("age", 0, 100),
                categorical("sex", SEXES),
                categorical("region", REGIONS),
                categorical("education", EDUCATION),
                categorical("employed", ["yes", "no"], outside="drop"),
                numeric("weekly_hours", 0, 80),
                numeric("annual_income", 0, 500_000),
                numeric("household_size", 1, 8),
                {"name": "weight", "kind": "ignored"},
            ],
            "privacy_unit": {"id_column": None, "max_rows_per_person": 1},
            "neighbouring": "add_remove",
            "public_size": None,
        },
        "statistics": statistics,
        "total_budget": {"epsilon": 2.0, "delta": total_delta},
        "confidence": 0.95,
    })
