"""One rule writes a released number everywhere: its error sets the digits."""

import json

import pytest

from workbench.cli import main
from workbench.core.release import Release
from workbench.core.report import released_error, released_number
from workbench.core.report.model import build_report


@pytest.mark.parametrize(("value", "error", "text"), [
    (12345.678, 240.0, "12,346"),  # an error in the hundreds: whole numbers
    (37.5144, 1.2296, "37.5"),  # an error of about 1: one decimal
    (0.34712, 0.0123, "0.347"),  # an error of about 0.01: three decimals
    (22127.47, 1504.99, "22,127"),
    (-3.25, 0.5, "-3.25"),
    (20000.0, None, "20,000"),  # no error: a whole number stays whole
    (842.02563, None, "842.03"),  # no error: two decimals
    (17.0, 0.0, "17"),  # a public value (no noise)
    (5.5, float("inf"), "5.50"),
    (1648.0, 6.0, "1,648"),  # a count with discrete noise: no decimals either side
    (1648.0, 6.5, "1,648.0"),  # an error that is not whole (a rounded or derived one): the rule as usual
])
def test_a_released_number_shows_the_digits_its_error_allows(value, error, text):
    assert released_number(value, error) == text


def test_an_error_shows_two_significant_digits_and_its_unit():
    assert released_error(240.0) == "240"
    assert released_error(1.2296) == "1.2"
    assert released_error(0.0123) == "0.012"
    assert released_error(1504.99) == "1,505"
    assert released_error(6.0) == "6"
    assert released_error(12.0, "ranks") == "12 ranks"


def test_the_command_line_prints_what_the_report_states(sample_path, sample_plan_path, tmp_path, capsys):
    out = tmp_path / "results"
    assert main(["release", str(sample_path), "--plan", str(sample_plan_path), "--out", str(out),
                 "--dataset-budget", "10", "1e-6"]) == 0
    printed = capsys.readouterr().out.splitlines()
    release = Release.from_json(json.loads((out / "results.json").read_text(encoding="utf-8")))
    report_rows = [row for section in build_report(release).statistics for row in section.rows]
    header = next(i for i, line in enumerate(printed) if line.startswith("statistic"))
    table_rows = printed[header + 2: header + 2 + len(report_rows)]
    assert len(table_rows) == len(report_rows) == sum(len(s.cells) for s in release.statistics)
    for line, row in zip(table_rows, report_rows):
        if row.value == "suppressed":  # the report withholds it; the curator's console shows it with its flag
            assert line.rstrip().endswith("∞ suppress") or " suppress" in line, (line, row)
            continue
        assert f" {row.value} " in f" {line} ", (line, row)
        assert row.error.removeprefix("± ") in line, (line, row)
