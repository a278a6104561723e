"""Write the first 300 rows of the sample dataset in every binary format DP Workbench reads, into the
folder given, so that the smoke test can check the bundle carries each reader (python-calamine,
pyarrow, pyreadstat). Runs in the build environment, not in the bundle; writing the workbook needs
openpyxl, which the smoke test installs there (the app only reads workbooks)."""

import sys
from pathlib import Path

import pandas as pd
import pyreadstat

ROOT = Path(__file__).resolve().parents[1]
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
frame = pd.read_csv(ROOT / "resources" / "sample" / "household_survey.csv").head(300)
frame.to_excel(out / "survey.xlsx", index=False)
frame.to_parquet(out / "survey.parquet")
pyreadstat.write_sav(frame, str(out / "survey.sav"))
pyreadstat.write_dta(frame, str(out / "survey.dta"))
pyreadstat.write_xport(frame.rename(columns=lambda c: c[:8]), str(out / "survey.xpt"))
print(" ".join(sorted(p.name for p in out.iterdir())))
