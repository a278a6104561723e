"""dp-workbench release writes a plan's synthetic table as synthetic.csv (and the chosen formats) next to results.json,
after the charge; dp-workbench report includes its quality section; a format that cannot hold the rows asked for is
refused before anything is spent (issue 36)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from workbench.cli import main
from workbench.core.release.ledger import Ledger


PLAN = {
    "format": "dp-workbench-plan", "version": 2,
    "dataset": {"name": "Tiny survey", "size_estimate": 2000},
    "schema": {"columns": [
        {"name": "region", "kind": "categorical", "categories": ["North", "South"], "outside": "drop"},
        {"name": "sex", "kind": "categorical", "categories": ["f", "m"], "outside": "drop"},
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 100},
    ], "privacy_unit": {"id_column": None, "max_rows_per_person": 1}, "neighbouring": "add_remove"},
    "statistics": [{"type": "synthetic", "columns": ["region", "sex", "age"], "edges": {"age": [18, 65]},
                    "rows": 500, "keep": [], "numeric_values": "interval", "algorithm": "mst",
                    "mechanism": "gaussian", "epsilon": 1.0, "delta": 1e-7}],
    "total_budget": {"epsilon": 1.0, "delta": 1e-7},
}


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(2)
    data = tmp_path / "tiny.csv"
    pd.DataFrame({"region": rng.choice(["North", "South"], 2000, p=[0.7, 0.3]), "sex": rng.choice(["f", "m"], 2000),
                  "age": rng.integers(0, 100, 2000)}).to_csv(data, index=False)
    plan = tmp_path / "tiny.plan.json"
    plan.write_text(json.dumps(PLAN))
    return data, plan


def test_release_writes_synthetic_csv_and_formats_and_the_report_has_its_quality(files, tmp_path, capsys):
    data, plan = files
    ledger = tmp_path / "ledger.sqlite"
    out = tmp_path / "out"
    assert main(["release", str(data), "--plan", str(plan), "--out", str(out), "--dataset-budget", "2", "1e-6",
                 "--ledger", str(ledger), "--synthetic-format", "parquet", "sav"]) == 0
    printed = capsys.readouterr()
    assert "Wrote the synthetic microdata" in printed.out and "fitting the model" in printed.err
    frame = pd.read_csv(out / "synthetic.csv")
    assert len(frame) == 500 and set(frame["age"]) <= {"[0, 18)", "[18, 65)", "[65, 100]"}
    assert (out / "synthetic.parquet").exists() and (out / "synthetic.sav").exists()
    results = json.loads((out / "results.json").read_text())
    assert results["statistics"][0]["synthetic"]["rows"] == 500 and "age" not in json.dumps(results["ledger"])
    assert Ledger(ledger).dataset("Tiny survey").releases == 1
    assert main(["report", str(out / "results.json"), "--out", str(tmp_path / "report"), "--format", "html"]) == 0
    html = (tmp_path / "report" / "report.html").read_text()
    assert "Quality of the synthetic table" in html and "total variation distance" in html
    assert "holds no real person" in html and html.count("<img") >= 4  # profile and the marginals' bars


def test_excel_that_cannot_hold_the_rows_is_refused_before_anything_is_spent(files, tmp_path, capsys):
    data, plan = files
    many = dict(PLAN, statistics=[{**PLAN["statistics"][0], "rows": 2_000_000}])
    plan.write_text(json.dumps(many))
    ledger = tmp_path / "ledger.sqlite"
    assert main(["release", str(data), "--plan", str(plan), "--out", str(tmp_path / "out"), "--dataset-budget", "2",
                 "1e-6", "--ledger", str(ledger), "--synthetic-format", "xlsx"]) == 2
    assert "Excel sheet holds at most" in capsys.readouterr().err
    assert not ledger.exists() or not Ledger(ledger).has_dataset("Tiny survey")


def test_the_pdf_report_has_the_quality_section_with_its_charts(files, tmp_path):
    """The PDF's quality section (``core/report/pdf.py``): its heading and lines, and the marginals' bar charts as
    images on its pages (poppler's pdftotext and pdfimages, as tests/core/report reads PDFs)."""
    import shutil
    import subprocess

    assert shutil.which("pdftotext") and shutil.which("pdfimages"), "install poppler-utils (./dev test does)"
    data, plan = files
    out = tmp_path / "out"
    assert main(["release", str(data), "--plan", str(plan), "--out", str(out), "--dataset-budget", "2", "1e-6",
                 "--ledger", str(tmp_path / "ledger.sqlite")]) == 0
    assert main(["report", str(out / "results.json"), "--out", str(tmp_path / "report"), "--format", "pdf"]) == 0
    pdf = tmp_path / "report" / "report.pdf"
    pages = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True,
                           text=True).stdout.split("\f")
    text = " ".join(" ".join(page.split()) for page in pages)
    assert "Quality of the synthetic table" in text
    assert "total variation distance" in text and "no real person" in text
    heading = next(i for i, page in enumerate(pages, 1) if "Quality of the synthetic table" in page)
    listed = subprocess.run(["pdfimages", "-list", str(pdf)], check=True, capture_output=True, text=True).stdout
    images = [int(line.split()[0]) for line in listed.splitlines()[2:] if line.split()]  # page of each image
    assert images and max(images) >= heading, listed  # the bars come after the heading, in its section
    assert sum(page >= heading for page in images) >= 3, listed  # a few of the marginals, synthetic beside measured


def test_ctrl_c_during_the_fit_is_charged_and_never_aborts(tmp_path, private_ledger_keys):
    """Ctrl+C while OpenDP fits (its noise drawn) was raised inside OpenDP's call back into Python: the process
    aborted ("free(): invalid pointer", SIGABRT) with nothing charged, a free re-roll after a wait whose length may
    depend on the noisy marginals (DESIGN rule 5). It is now told at once, the fit ends, and the release is charged
    with nothing shown."""
    import os
    import signal
    import subprocess
    import sys
    import threading
    import time

    rng = np.random.default_rng(5)  # five columns: a fit of seconds, where three took less than one
    data = tmp_path / "five.csv"
    pd.DataFrame({"region": rng.choice(["North", "South", "East"], 20_000), "sex": rng.choice(["f", "m"], 20_000),
                  "education": rng.choice(["a", "b", "c", "d"], 20_000), "employed": rng.choice(["y", "n"], 20_000),
                  "age": rng.integers(0, 100, 20_000)}).to_csv(data, index=False)
    categorical = lambda name, categories: {"name": name, "kind": "categorical", "categories": categories,  # noqa: E731
                                            "outside": "drop"}
    plan = tmp_path / "five.plan.json"
    plan.write_text(json.dumps({**PLAN, "schema": {**PLAN["schema"], "columns": [
        categorical("region", ["North", "South", "East"]), categorical("sex", ["f", "m"]),
        categorical("education", ["a", "b", "c", "d"]), categorical("employed", ["y", "n"]),
        {"name": "age", "kind": "numeric", "lower": 0, "upper": 100}]},
        "statistics": [{**PLAN["statistics"][0], "columns": ["region", "sex", "education", "employed", "age"],
                        "edges": {"age": [18, 30, 45, 65]}}]}))
    ledger = tmp_path / "ledger.sqlite"
    run = subprocess.Popen(
        [sys.executable, "-m", "workbench.cli", "release", str(data), "--plan", str(plan), "--out",
         str(tmp_path / "out"), "--dataset-budget", "2", "1e-6", "--ledger", str(ledger)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    said: list[str] = []
    reading = threading.Thread(target=lambda: said.extend(run.stderr), daemon=True)
    reading.start()
    deadline = time.monotonic() + 240
    while not any("fitting the model" in line for line in said) and run.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(1.0)  # inside the fit: 3,000 rounds of Private-PGM take seconds on any machine
    run.send_signal(signal.SIGINT)
    run.wait(timeout=300)
    reading.join(10)
    err = " ".join("".join(said).split())  # the message's lines, as filled for the terminal, joined again
    assert run.returncode == 2, err
    assert "cannot be interrupted" in err and "charged all the same (ledger entry 2)" in err
    assert "Traceback" not in err and not (tmp_path / "out" / "synthetic.csv").exists()
    assert Ledger(ledger).dataset("Tiny survey").releases == 1


def test_spss_codes_follow_the_public_list_unless_the_inputs_are_kept(tmp_path):
    """Value labels made from the rows (Stata's encode, SPSS's autorecode) list the values seen in the data: the
    input's codes, reused, told which public categories were seen (one without a code of its own got a new one) and,
    by their gaps, that values outside the list were. Codes are 1, 2, … in the public list's order unless the user
    keeps the input's codes (taking its labels as public)."""
    import pyreadstat

    rng = np.random.default_rng(3)
    data = tmp_path / "coded.sav"
    frame = pd.DataFrame({"region": rng.choice([7.0, 9.0], 2000), "sex": rng.choice([1.0, 2.0], 2000),
                          "age": rng.integers(0, 100, 2000).astype(float)})
    # as encode makes them: 7 North, 8 a value outside the public list, 9 South; no code for the public "East"
    pyreadstat.write_sav(frame, str(data), variable_value_labels={"region": {7.0: "North", 8.0: "Mars", 9.0: "South"},
                                                                   "sex": {1.0: "f", 2.0: "m"}})
    plan = tmp_path / "coded.plan.json"
    columns = [{**PLAN["schema"]["columns"][0], "categories": ["North", "East", "South"]}, *PLAN["schema"]["columns"][1:]]
    plan.write_text(json.dumps({**PLAN, "schema": {**PLAN["schema"], "columns": columns}}))
    codes = {}
    for keep in (False, True):
        out = tmp_path / f"out-{keep}"
        assert main(["release", str(data), "--plan", str(plan), "--out", str(out), "--dataset-budget", "4", "1e-6",
                     "--ledger", str(tmp_path / "ledger.sqlite"), "--synthetic-format", "sav",
                     *(["--keep-input-codes"] if keep else [])]) == 0
        _, meta = pyreadstat.read_sav(str(out / "synthetic.sav"))
        codes[keep] = meta.variable_value_labels["region"]
    assert codes[False] == {1: "North", 2: "East", 3: "South"}  # nothing of the input's labels
    assert codes[True] == {7: "North", 10: "East", 9: "South"}  # the codebook's numbers, taken as public
