"""Write a Release as files: results.csv and results.json (the released values and public
context), report.html and report.pdf (the report built from them). Nothing else goes in."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Sequence

from workbench.core.errors import WorkbenchError
from workbench.core.release import Release
from workbench.core.report.shown import shown_cells

CSV_COLUMNS = ("statistic", "cell", "value", "error", "error_unit", "reliable", "cv", "flag", "confidence", "epsilon", "delta", "mechanism", "noise_scale", "sensitivity", "interval_lower", "interval_upper")


def result_rows(result: Release, show_other: bool = False, how: str = "") -> list[dict[str, object]]:
    """One row per released cell, in plan order; without ``show_other``, a statistic by group's '(other)' groups
    are one row that says how many are not shown (``shown.shown_cells``; results.json holds them)."""
    rows = []
    for statistic in result.statistics:
        scale = "; ".join(f"{n.label}: {n.scale:.6g}" for n in statistic.noise) or "none"
        sens = "; ".join(f"{n.label}: {n.sensitivity:.6g}" for n in statistic.noise) or "0"
        shown = shown_cells(statistic, show_other, how)
        for cell in shown.cells:
            rows.append(
                {
                    "statistic": statistic.label,
                    "cell": cell.label,
                    "value": "" if cell.value is None else cell.value,
                    "error": "" if cell.error is None else cell.error,
                    "error_unit": cell.error_unit or "value",
                    "reliable": "yes" if cell.reliable else "no",
                    "cv": "" if cell.cv is None else f"{cell.cv:.4g}",
                    "flag": cell.flag,
                    "confidence": result.confidence,
                    "epsilon": statistic.epsilon,
                    "delta": statistic.delta,
                    "mechanism": statistic.mechanism,
                    "noise_scale": scale,
                    "sensitivity": sens,
                    "interval_lower": "" if cell.lower is None else cell.lower,
                    "interval_upper": "" if cell.upper is None else cell.upper,
                }
            )
        if shown.folded_groups:
            rows.append({**{column: "" for column in CSV_COLUMNS}, "statistic": statistic.label,
                         "cell": f"{shown.short} not shown (in results.json)", "confidence": result.confidence,
                         "epsilon": statistic.epsilon, "delta": statistic.delta, "mechanism": statistic.mechanism})
    return rows


def write_results(result: Release, out_dir: str | Path, csv_file: bool = True, json_file: bool = True,
                  show_other: bool = False, how: str = "") -> tuple[Path | None, Path | None]:
    """Write results.csv and results.json (or one of them) into ``out_dir`` (created if needed). results.json holds
    every released cell; results.csv folds the '(other)' groups unless ``show_other`` (``how`` says how to show
    them, in the caller's terms)."""
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        csv_path, json_path = out / "results.csv", out / "results.json"
        if csv_file:
            table = io.StringIO(newline="")
            writer = csv.DictWriter(table, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(result_rows(result, show_other, how))
            _write_atomically(csv_path, table.getvalue())
        if json_file:
            _write_atomically(json_path, json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        entry = (result.ledger or {}).get("entry")
        kept = f" The release is recorded in the ledger as entry {entry}: export it from there." if entry else ""
        raise WorkbenchError(
            f"The results cannot be written to {out}: {exc.strerror or exc}. Choose a folder you can write to.{kept}"
        ) from None
    return (csv_path if csv_file else None), (json_path if json_file else None)


REPORT_FORMATS = ("html", "pdf", "csv", "json")
PAPER_SIZES = ("a4", "letter")  # the names of pdf.PAPERS, without importing ReportLab to list them


def write_report(
    result: Release, out_dir: str | Path, formats: Sequence[str] = REPORT_FORMATS, paper: str = "a4",
    title: str | None = None, show_other: bool = False, how: str = "",
) -> list[Path]:
    """Write the chosen formats into ``out_dir``: report.html, report.pdf, results.csv, results.json. The report
    and results.csv show a statistic by group's '(other)' groups only with ``show_other`` (else one line says how
    many are not shown, and ``how`` how to show them); results.json holds them always."""
    unknown = [f for f in formats if f not in REPORT_FORMATS]
    if unknown or not formats:
        raise WorkbenchError(f"Unknown report format {', '.join(unknown) or '(none)'}: choose from {', '.join(REPORT_FORMATS)}.")
    if paper.lower() not in PAPER_SIZES:
        raise WorkbenchError(f"Unknown paper size '{paper}': choose a4 or letter.")
    written: list[Path] = []
    if "csv" in formats or "json" in formats:
        paths = write_results(result, out_dir, csv_file="csv" in formats, json_file="json" in formats,
                              show_other=show_other, how=how)
        written.extend(p for p in paths if p is not None)
    if "html" in formats or "pdf" in formats:
        # imported here: matplotlib, Jinja2 and ReportLab take about a second, which every command
        # and the app's start would otherwise pay for a report they may never write
        from workbench.core.report.html import render_html
        from workbench.core.report.model import build_report
        from workbench.core.report.pdf import render_pdf

        report = build_report(result, title, show_other, how)
        out = Path(out_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
            if "html" in formats:
                _write_atomically(out / "report.html", render_html(report))
                written.append(out / "report.html")
            if "pdf" in formats:
                _write_atomically(out / "report.pdf", render_pdf(report, paper))
                written.append(out / "report.pdf")
        except OSError as exc:
            raise WorkbenchError(
                f"The report cannot be written to {out}: {exc.strerror or exc}. Choose a folder you can write to."
            ) from None
    return written


def _write_atomically(path: Path, text: str | bytes) -> None:
    """Write beside ``path`` and rename over it: a reader sees the old file or the whole new one."""
    temporary = path.with_name(f".{path.name}.tmp")
    binary = isinstance(text, bytes)
    with temporary.open("wb" if binary else "w", **({} if binary else {"encoding": "utf-8", "newline": ""})) as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
