"""Regenerate the example reports: the sample plan's in docs/example-report/, the tables plan's
(every kind of table an office publishes) in docs/example-report/tables/, each with two pages as
pictures. Each run is a new release, so its noisy values differ from the last.

Run: ``.venv/bin/python docs/example-report/make.py`` (needs pdftoppm, from poppler-utils).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from workbench.cli import main as dp_workbench

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parents[1] / "resources" / "sample"
REPORTS = {  # plan, folder, pages shown as pictures, the dataset's total budget
    "household_survey.plan.json": (HERE, (1, 7), "3"),
    "household_survey.tables.plan.json": (HERE / "tables", (1, 7), "5"),
}


def make(plan: str, folder: Path, pages: tuple[int, ...], total: str) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        out = Path(scratch) / "release"
        code = dp_workbench(["release", str(SAMPLE / "household_survey.csv"), "--plan", str(SAMPLE / plan),
                             "--out", str(out), "--report", "--ledger", str(Path(scratch) / "ledger.json"),
                             "--dataset-budget", total, "1e-6"])
        if code != 0:
            sys.exit(f"the release of {plan} failed")
        folder.mkdir(exist_ok=True)
        for name in ("report.html", "report.pdf", "results.csv", "results.json"):
            shutil.copy(out / name, folder / name)
        shutil.copy(SAMPLE / plan, folder / "plan.json")
        for page in pages:
            subprocess.run(["pdftoppm", "-r", "80", "-png", "-singlefile", "-f", str(page), "-l", str(page),
                            str(folder / "report.pdf"), str(folder / f"page-{page}")], check=True)


if __name__ == "__main__":
    for plan, (folder, pages, total) in REPORTS.items():
        make(plan, folder, pages, total)
