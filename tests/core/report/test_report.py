"""The report and exports: every format is written, looks right, and leaks nothing.

A dataset with planted distinctive values (a unique extreme value, a unique minimum, a rare
category that is not in the public list, an unusual exact row count, a recognisable file name)
is released under add/remove neighbours through the command line, with the report in every
format, and none of the planted values, nor the data file's hash, appears in any file.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from html import unescape
from importlib import resources
from pathlib import Path

import jsonschema
import numpy as np
import pandas as pd
import pytest
from PIL import Image

from workbench.cli import main
from workbench.core.report.export import PAPER_SIZES
from workbench.core.report.pdf import PAPERS

ROWS = 1237  # an unusual exact size: under add/remove it is private
EXTREME, MINIMUM = 987654.321, -31337.5
RARE = "Xylophone-Street-7"
CITIES = ["Northtown", "Southbay", "Eastfield", "Westmoor"]
PLAN = {
    "format": "dp-workbench-plan",
    "version": 1,
    "dataset": {"name": "Planted survey", "description": "A test dataset with planted values.", "size_estimate": 1000},
    "schema": {
        "columns": [
            {"name": "income", "kind": "numeric", "lower": 0, "upper": 100000, "missing": {"action": "drop"}},
            {"name": "city", "kind": "categorical", "categories": CITIES, "outside": "other", "missing": {"action": "drop"}},
            {"name": "sex", "kind": "categorical", "categories": ["f", "m"], "outside": "drop", "missing": {"action": "drop"}},
        ],
        "privacy_unit": {"id_column": None, "max_rows_per_person": 1},
        "neighbouring": "add_remove",
        "public_size": None,
    },
    "statistics": [
        {"type": "count", "mechanism": "laplace", "epsilon": 0.2, "delta": 0.0},
        {"type": "histogram", "column": "city", "mechanism": "laplace", "epsilon": 0.2, "delta": 0.0,
         "post_processing": {"clamp": True}},
        {"type": "crosstab", "columns": ["city", "sex"], "mechanism": "gaussian", "epsilon": 0.2, "delta": 1e-7},
        {"type": "mean", "column": "income", "mechanism": "laplace", "epsilon": 0.2, "delta": 0.0},
        {"type": "sum", "column": "income", "by": "sex", "mechanism": "laplace", "epsilon": 0.1, "delta": 0.0},
        {"type": "variance", "column": "income", "mechanism": "laplace", "epsilon": 0.1, "delta": 0.0},
        {"type": "quantiles", "column": "income", "levels": [0.1, 0.5, 0.9], "mechanism": "exponential", "epsilon": 0.3},
    ],
    "total_budget": {"epsilon": 1.3, "delta": 1e-7},
    "confidence": 0.95,
}


def planted_data(folder: Path) -> Path:
    rng = np.random.default_rng(11)  # synthetic test data only
    frame = pd.DataFrame({
        "income": np.round(rng.gamma(2.0, 15000.0, ROWS), 2),
        "city": rng.choice(CITIES, ROWS),
        "sex": rng.choice(["f", "m"], ROWS),
    })
    frame.loc[3, "income"] = EXTREME
    frame.loc[7, "income"] = MINIMUM
    frame.loc[11, "city"] = RARE
    path = folder / "planted_secret_file.csv"
    frame.to_csv(path, index=False)
    return path


def number_forms(value: float) -> list[str]:
    """Ways a number can be printed: plain, with thousands separators, rounded, in exponent form."""
    forms = {f"{value:g}", f"{value:,.0f}", f"{value:.0f}", f"{value:.2e}", f"{value:.1f}"}
    if float(value).is_integer():
        forms |= {str(int(value)), f"{int(value):,}"}
    else:
        forms |= {repr(value), f"{value:,.2f}", f"{value:,.3f}"}
    return sorted(forms)


def leaks(text: str, secrets: dict[str, list[str]]) -> list[str]:
    """Which secrets occur in ``text``: numbers as whole numbers (not inside a longer number), words anywhere."""
    found = []
    for name, forms in secrets.items():
        for form in forms:
            if form[0].isdigit() or form[0] == "-":
                pattern = r"(?<![\d.,])" + re.escape(form.lstrip("-")) + r"(?![\d]|[.,]\d)"
            else:
                pattern = re.escape(form)
            if re.search(pattern, text, flags=re.IGNORECASE):
                found.append(f"{name} as {form!r}")
    return found


def pdf_text(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def poppler():
    missing = [tool for tool in ("pdftotext", "pdftoppm", "pdffonts", "pdfinfo") if shutil.which(tool) is None]
    assert not missing, f"install poppler-utils (./dev test does): {missing} not found"


@pytest.fixture
def exported(tmp_path, capsys, poppler):
    data = planted_data(tmp_path)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(PLAN))
    out, letter = tmp_path / "out", tmp_path / "letter"
    assert main(["release", str(data), "--plan", str(plan), "--out", str(out), "--report", "--dataset-budget", "5", "1e-6"]) == 0
    assert main(["report", str(out / "results.json"), "--out", str(letter), "--paper", "letter", "--format", "pdf", "html"]) == 0
    printed = capsys.readouterr().out
    return data, out, letter, printed


def test_every_format_is_written_and_the_planted_values_appear_in_none(exported):
    data, out, letter, printed = exported
    result = json.loads((out / "results.json").read_text())
    released = {c["value"] for s in result["statistics"] for c in s["cells"]} | {
        c["error"] for s in result["statistics"] for c in s["cells"]
    }
    raw = data.read_bytes()
    secrets = {
        "unique extreme value": number_forms(EXTREME),
        "unique minimum": number_forms(MINIMUM),
        # a released number may be shown as the exact count: a noisy count landing on it, or an error bound (the
        # mean's is about 1,250 here) shown rounded to it
        "exact row count": [] if any(v is not None and abs(v - ROWS) < 1 for v in released) else number_forms(ROWS),
        "rare category": [RARE, "Xylophone"],
        "file name": ["planted_secret_file"],
        "file hash": [hashlib.sha256(raw).hexdigest(), hashlib.md5(raw).hexdigest(), hashlib.sha1(raw).hexdigest()],
    }
    files = {
        "report.html": (out / "report.html").read_text(encoding="utf-8"),
        "report.pdf (text)": pdf_text(out / "report.pdf"),
        "report.pdf (bytes)": (out / "report.pdf").read_bytes().decode("latin-1"),
        "letter report.pdf (text)": pdf_text(letter / "report.pdf"),
        "letter report.html": (letter / "report.html").read_text(encoding="utf-8"),
        "results.csv": (out / "results.csv").read_text(encoding="utf-8"),
        "results.json": (out / "results.json").read_text(encoding="utf-8"),
        "printed": printed,
    }
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "report.pdf", "results.csv", "results.json"]
    for name, text in files.items():
        assert leaks(text, secrets) == [], name
    # the check can fail: the public categories and a released value are found the same way
    assert leaks(files["report.html"], {"public": ["Northtown"]}) and leaks(files["report.pdf (text)"], {"public": ["Eastfield"]})
    assert leaks(f"max {EXTREME:,.2f}; n = {ROWS:,}", {"a": number_forms(EXTREME), "b": number_forms(ROWS)}) != []


def test_the_pdf_pages_render_with_content_page_numbers_and_embedded_fonts(exported, tmp_path):
    _, out, letter, _ = exported
    for folder, size in ((out, (595, 842)), (letter, (612, 792))):
        pdf = folder / "report.pdf"
        info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout
        pages = int(re.search(r"Pages:\s+(\d+)", info).group(1))
        width, height = (round(float(v)) for v in re.search(r"Page size:\s+([\d.]+) x ([\d.]+)", info).groups())
        assert (width, height) == size and pages >= 2

        fonts = subprocess.run(["pdffonts", str(pdf)], check=True, capture_output=True, text=True).stdout.splitlines()[2:]
        assert fonts and all(line.split()[-5] == "yes" for line in fonts), fonts  # the "emb" column

        text = pdf_text(pdf)
        for n in range(1, pages + 1):
            assert f"Page {n} of {pages}" in text

        images = tmp_path / f"pages-{folder.name}"
        images.mkdir()
        subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(images / "page")], check=True)
        rendered = sorted(images.glob("page*.png"))
        assert len(rendered) == pages
        for page in rendered:
            grey = np.asarray(Image.open(page).convert("L"), dtype=float)
            inked = np.mean(grey < 200)
            assert inked > 0.01, f"{page.name} is blank ({inked:.3%} of it inked)"


def test_the_html_report_is_self_contained_and_states_what_the_issue_asks(exported):
    _, out, _, _ = exported
    html = (out / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:|//|file:)""", html)
    images = re.findall(r'<img[^>]*src="([^"]+)"', html)
    assert len(images) >= 8 and all(src.startswith("data:image/png;base64,") for src in images)
    result = json.loads((out / "results.json").read_text())
    for statistic in result["statistics"]:
        assert statistic["label"] in html
    for words in [
        "Privacy guarantee", "neighbours when adding or removing", "What this guarantee means", "at most 79% sure",
        "e^ε × false-positive rate + δ", "group of k", "Method", "What the guarantee does not cover",
        "References", "No earlier release", "Post-processing", "ranks",
    ]:
        assert words in html, words


def test_the_paper_sizes_offered_are_the_ones_the_pdf_lays_out():
    assert set(PAPER_SIZES) == set(PAPERS)


def test_results_json_follows_its_published_schema(exported):
    _, out, _, _ = exported
    schema = json.loads(resources.files("workbench").joinpath("resources/results.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads((out / "results.json").read_text()), schema)


def test_a_second_release_states_what_earlier_ones_spent(exported, tmp_path, capsys):
    data, out, _, _ = exported
    second = tmp_path / "second"
    assert main(["release", str(data), "--plan", str(tmp_path / "plan.json"), "--out", str(second), "--report"]) == 0
    html = unescape((second / "report.html").read_text(encoding="utf-8"))
    spent = re.search(r"Earlier releases of 'Planted survey' \(1\) had spent ε = ([0-9.]+), δ = 1e-06", html)
    assert spent and 1.2 < float(spent.group(1)) <= 1.3  # at the dataset's δ, at most the plan's ε of 1.3


def test_report_refuses_what_is_not_a_results_file(tmp_path, capsys):
    bad = tmp_path / "plan.json"
    bad.write_text(json.dumps(PLAN))
    assert main(["report", str(bad), "--out", str(tmp_path / "r")]) == 2
    assert "not a DP Workbench results file" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_the_file_name_reaches_no_plan_report_result_or_ledger_export(tmp_path, capsys):
    """plan-template names the dataset neutrally (the user names it), and no ledger export holds the file's name,
    even for an entry whose plan still carries it (issue 19, 8)."""
    data = planted_data(tmp_path)
    plan_path = tmp_path / "template.plan.json"
    assert main(["plan-template", str(data), "--out", str(plan_path)]) == 0
    printed = capsys.readouterr().out
    assert "Unnamed dataset" in printed and "after looking at the data" in printed
    assert "planted_secret_file" not in plan_path.read_text()
    with_file = dict(PLAN, dataset={**PLAN["dataset"], "file_name": "planted_secret_file.csv"})
    (tmp_path / "named.plan.json").write_text(json.dumps(with_file))
    ledger = tmp_path / "ledger.sqlite"
    assert main(["release", str(data), "--plan", str(tmp_path / "named.plan.json"), "--out", str(tmp_path / "out"),
                 "--dataset-budget", "5", "1e-6", "--ledger", str(ledger)]) == 0
    from workbench.core.release.ledger import Ledger

    assert all("planted_secret_file" not in entry.body for entry in Ledger(ledger).entries())
    for kind in ("json", "csv"):
        out = tmp_path / f"ledger.{kind}"
        assert main(["ledger", "export", "--format", kind, "--out", str(out), "--ledger", str(ledger)]) == 0
        assert "planted_secret_file" not in out.read_text()
    assert "planted_secret_file" not in capsys.readouterr().out


def test_a_ledger_entry_written_with_a_file_name_is_exported_without_it():
    from workbench.core.release.ledger import Entry

    body = json.dumps({"plan": {"dataset": {"name": "d", "file_name": "Patients_StMary.csv"}}, "fingerprint": "f"})
    exported = Entry(1, "d", "release", "now", body, "0", "h").public_json()
    assert "Patients_StMary" not in json.dumps(exported) and "fingerprint" not in exported


def test_a_cells_reliability_reads_on_one_line_in_the_pdf_and_the_html(exported):
    """"reliable (CV 4.3%)" wrapped after "(CV" in the PDF's narrow column (issue 37, 5)."""
    _, out, _, _ = exported
    text = pdf_text(out / "report.pdf")
    flagged = [line for line in text.splitlines() if re.search(r"\(CV($|[\s\u00a0]+[\d<])", line)]
    assert flagged and not [line for line in flagged if not re.search(r"\(CV[\s\u00a0]+[\d.,<>]+%\)", line)]
    html = (out / "report.html").read_text()
    assert 'class="small reliability"' in html and "td.reliability { white-space: nowrap; }" in html
