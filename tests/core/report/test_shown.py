"""A statistic by group shows its public categories' groups; the '(other)' groups are folded into one line (in the
command line, step 6 and the report), results.json keeps them, and a statistic's own '(other)' bin stays shown."""

from __future__ import annotations

import csv
import json

from workbench.cli import main
from workbench.cli.releases import _print_release
from workbench.core.privacy import Guarantee
from workbench.core.release import Release, ReleasedStatistic
from workbench.core.report import write_report
from workbench.core.report.model import build_report
from workbench.core.report.shown import other_group, shown_cells
from workbench.core.statistics import Cell

REGIONS, SEXES = ("North", "South", "(other)"), ("female", "male", "(other)")


def _statistic(label: str, type_: str, by: tuple[str, ...], labels: list[str], column: str | None = None):
    cells = tuple(
        Cell(text, None if "(other)" in text else 20_000.0 + i, None if "(other)" in text else 900.0,
             note="the noisy count of rows is below 1" if "(other)" in text else "")
        for i, text in enumerate(labels))
    return ReleasedStatistic(label=label, type=type_, column=column, by=by, mechanism="laplace", epsilon=0.5,
                             delta=0.0, method="noise added", noise=(), cells=cells)


def release_with_other_groups() -> Release:
    mean = _statistic("mean of income by region and sex", "mean", ("region", "sex"),
                      [f"{r} / {s}" for r in REGIONS for s in SEXES], "income")
    histogram = _statistic("histogram of region", "histogram", (), list(REGIONS), "region")
    by_sex = _statistic("histogram of region by sex", "histogram", ("sex",),
                        [f"{s} / {r}" for s in SEXES for r in REGIONS], "region")
    crosstab = _statistic("cross-tabulation of area × age", "crosstab", (),
                          [f"{r} / {s}" for r in ("East", "West", "(other)") for s in ("young", "old", "(other)")])
    return Release(dataset_name="Survey", dataset_description="", privacy_unit="one person",
                   neighbouring="adding or removing one person's records", confidence=0.95,
                   statistics=(mean, histogram, by_sex, crosstab), guarantee=Guarantee(2.0, 0.0, "basic composition"),
                   created="2024-01-01", software_version="test")


def test_only_groups_whose_key_is_other_are_folded():
    mean, histogram, by_sex, crosstab = release_with_other_groups().statistics
    shown = shown_cells(mean)
    assert [c.label for c in shown.cells] == ["North / female", "North / male", "South / female", "South / male"]
    assert (shown.folded_groups, shown.folded_cells, shown.short) == (5, 5, "5 '(other)' groups")
    assert shown.words.startswith("5 groups with '(other)' in region or sex (rows outside the public categories) "
                                  "are not shown: their values are in results.json")
    assert shown_cells(mean, show_other=True).cells == mean.cells and not shown_cells(mean, True).words
    # a histogram's own '(other)' bin is a released bin, by group or not; a cross-tabulation's cells likewise
    assert shown_cells(histogram).cells == histogram.cells and not shown_cells(histogram).words
    assert [c.label for c in shown_cells(by_sex).cells] == [f"{s} / {r}" for s in SEXES[:2] for r in REGIONS]
    assert shown_cells(by_sex).folded_groups == 1 and "1 group with '(other)' in sex" in shown_cells(by_sex, how="x").words
    assert shown_cells(crosstab).cells == crosstab.cells
    assert not other_group(by_sex, by_sex.cells[2])  # "female / (other)": the bin, not the group


def test_the_command_line_folds_other_groups_into_one_row_and_one_line(capsys):
    result = release_with_other_groups()
    _print_release(result)
    printed = capsys.readouterr().out
    for folded in ("North / (other)", "South / (other)", "(other) / female", "(other) / male", "(other) / North"):
        assert folded not in printed
    for kept in ("female / (other)", "male / (other)", "East / (other)", "(other) / young", "(other) / (other)"):
        assert kept in printed  # a histogram's own bin by sex, the cross-tabulation's cells
    assert "5 '(other)' groups" in printed and "1 '(other)' group " in printed and "not shown" in printed
    assert "their values are in results.json (--show-other shows them)" in printed
    assert "] mean of income" not in printed  # the folded groups' notes go with them
    assert all(len(line) <= 100 for line in printed.splitlines())
    _print_release(result, show_other=True)
    shown = capsys.readouterr().out
    assert "North / (other)" in shown and "(other) / North" in shown
    assert "not shown" not in shown


def test_the_report_and_csv_fold_them_and_results_json_keeps_them(tmp_path, capsys):
    result = release_with_other_groups()
    report = build_report(result, how="--show-other shows them")
    mean = report.statistics[0]
    assert [r.cell for r in mean.rows] == ["North / female", "North / male", "South / female", "South / male"]
    assert mean.folded.startswith("5 groups with '(other)'") and mean.folded.endswith("(--show-other shows them).")
    assert [r.cell for r in report.statistics[1].rows] == list(REGIONS) and not report.statistics[1].folded
    assert len(build_report(result, show_other=True).statistics[0].rows) == 9

    out = tmp_path / "out"
    write_report(result, out, formats=("html", "csv", "json"))
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "North / (other)" not in html and "5 groups with &#39;(other)&#39; in region or sex" in html
    rows = list(csv.DictReader((out / "results.csv").open(encoding="utf-8")))
    mean_rows = [r["cell"] for r in rows if r["statistic"] == "mean of income by region and sex"]
    assert mean_rows[-1] == "5 '(other)' groups not shown (in results.json)" and len(mean_rows) == 5
    saved = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert len(saved["statistics"][0]["cells"]) == 9  # every released cell, raw values and all

    again = tmp_path / "again"  # the report command with --show-other shows them all
    assert main(["report", str(out / "results.json"), "--out", str(again), "--format", "html", "csv",
                 "--show-other"]) == 0
    assert "North / (other)" in (again / "report.html").read_text(encoding="utf-8")
    assert "not shown" not in (again / "results.csv").read_text(encoding="utf-8")
    assert main(["report", str(out / "results.json"), "--out", str(tmp_path / "folded"), "--format", "html"]) == 0
    assert "(--show-other shows them)" in (tmp_path / "folded" / "report.html").read_text(encoding="utf-8")
    capsys.readouterr()
