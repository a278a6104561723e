"""Tables shaped like the public survey files statisticians bring (issue 19), generated with a fixed seed.

- ``labour_force``: a labour-force extract: region spelled in lower case ("northeast") where the codebook
  says "Northeast", a 51-value text column of states, sex and employment as 0/1 codes, a many-category
  ethnicity column, weekly wages that are skewed, rounded (ties) and sometimes missing, one huge and one
  tiny region.
- ``write_labelled``: the same table as SPSS (.sav) or Stata (.dta) with value labels and variable labels.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

REGIONS = ("northeast", "midwest", "south", "west", "islands")  # as the data spell them; "islands" is tiny
CODEBOOK_REGIONS = ("Northeast", "Midwest", "South", "West", "Islands")  # as the codebook spells them
STATES = tuple(f"State {i:02d}" for i in range(1, 52))
ETHNICITIES = tuple(f"group {chr(65 + i // 26)}{chr(65 + i % 26)}" for i in range(40))
WAGE_BOUNDS = (0.0, 5000.0)
VARIABLE_LABELS = {"wage": "Weekly wage (USD)", "region": "Census region", "sex": "Sex of respondent",
                   "employed": "Employed last week", "state": "State of residence", "ethnicity": "Ethnic group"}


def labour_force(rows: int = 3000, seed: int = 19) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    region = rng.choice(REGIONS[:4], size=rows, p=[0.55, 0.2, 0.15, 0.10]).astype(object)
    region[rng.choice(rows, size=3, replace=False)] = "islands"  # a group of 3
    wage = np.round(rng.lognormal(6.3, 0.8, rows) / 10) * 10  # skewed, in tens: many ties
    wage[rng.random(rows) < 0.03] = WAGE_BOUNDS[1]  # top-coded at the bound
    wage[rng.random(rows) < 0.06] = np.nan  # missing
    return pd.DataFrame({
        "person": np.arange(1, rows + 1),
        "region": region,
        "state": rng.choice(STATES, size=rows),
        "sex": rng.integers(0, 2, rows),  # 0/1 codes
        "employed": (rng.random(rows) < 0.7).astype(int),
        "ethnicity": rng.choice(ETHNICITIES, size=rows),
        "wage": wage,
    })


def write_labelled(frame: pd.DataFrame, path: Path) -> Path:
    """The table as SPSS or Stata (by the suffix) with value labels on coded columns and variable labels."""
    import pyreadstat

    coded = frame.copy()
    coded["region"] = coded["region"].map({name: i + 1 for i, name in enumerate(REGIONS)})
    labels = {"region": {i + 1: name for i, name in enumerate(CODEBOOK_REGIONS)},
              "sex": {0: "male", 1: "female"}, "employed": {0: "no", 1: "yes"}}
    column_labels = [VARIABLE_LABELS.get(c, "") for c in coded.columns]
    if path.suffix == ".sav":
        pyreadstat.write_sav(coded, str(path), column_labels=column_labels, variable_value_labels=labels)
    else:
        pyreadstat.write_dta(coded, str(path), column_labels=column_labels, variable_value_labels=labels)
    return path
