"""Text tables read through Arrow come out exactly as pandas' C parser types them, or pandas reads them."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from workbench.core.data import arrow_text
from workbench.core.data.io import load_table
from workbench.core.errors import Cancelled

# Columns as statisticians' files write them: each a list of cell texts, written unquoted where possible.
COLUMNS = {
    "ids": [str(i) for i in range(1, 41)],
    "codes_0_1": ["0", "1"] * 20,
    "ages_with_missing": ["34", "", "71", "NA", "16"] * 8,
    "incomes_ties": ["25000.50", "25000.50", "1.2e6", "0", "-3.25"] * 8,
    "whole_written_with_point": ["3.0", "4.0", "5.0", "6.0"] * 10,
    "plus_signs": ["+3", "4", "-5", "+0"] * 10,
    "beyond_64_bits": ["18446744073709551615", "1"] * 20,
    "below_64_bits": ["-9223372036854775809", "1"] * 20,
    "infinities": ["inf", "-Infinity", "2.5", "INF"] * 10,
    "truth_values": ["True", "false", "", "TRUE"] * 10,
    "truth_and_one": ["true", "1"] * 20,
    "iso_dates": ["2024-01-31", "2023-12-01", ""] * 13 + ["2020-02-29"],
    "date_times": ["2024-01-31 12:00:00", "2024-02-01T08:30:00"] * 20,
    "times": ["12:30:00", "08:00:15"] * 20,
    "missing_spellings": ["NULL", "None", "n/a", "#N/A", "<NA>", "nan", "text"] * 5 + ["x"] * 5,
    "quoted_numbers": ['"12"', '"13"', "14"] * 13 + ["15"],
    "padded_numbers": [" 5", "6 ", " 7 ", "8"] * 10,
    "leading_zeros": ["007", "012", "100"] * 13 + ["1"],
    "codebook": ["1 = yes", "2 = no", "9 = refused", "-1 = not asked"] * 10,
    "categories_text": ["Île-de-France", "Zürich", "São Paulo", "Łódź", "北京"] * 8,
    "numbers_then_text": ["1", "2"] * 19 + ["3", "unknown"],
    "all_missing": [""] * 40,
    "decimal_commas": ["1,5", "2,25"] * 20,
    "blank_cells": ["1", " ", "3", "4"] * 10,
}


def write(path: Path, columns: dict[str, list[str]], delimiter: str = ",", bom: bool = False) -> Path:
    names = list(columns)
    rows = list(zip(*columns.values()))
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as handle:
        handle.write(delimiter.join(names) + "\n")
        for row in rows:
            handle.write(delimiter.join(_cell(value, delimiter) for value in row) + "\r\n")
    return path


def _cell(value: str, delimiter: str) -> str:
    if value.startswith('"') or delimiter not in value:
        return value
    return '"' + value + '"'


def read_with_pandas(path: Path, delimiter: str = ",") -> pd.DataFrame:
    frame = pd.read_csv(path, sep=delimiter, engine="c", low_memory=False, encoding="utf-8-sig")
    header = next(csv.reader(path.open(encoding="utf-8-sig"), delimiter=delimiter))
    frame.columns = [name.strip() for name in header]
    return frame


@pytest.fixture(autouse=True)
def arrow_for_every_size(monkeypatch):
    """Small files are read by pandas in the app; here, every file goes to Arrow first."""
    from workbench.core.data import io

    monkeypatch.setattr(io, "ARROW_FROM_BYTES", 0)


def test_pandas_missing_spellings_are_still_pandas_own():
    from pandas._libs.parsers import STR_NA_VALUES

    assert set(arrow_text.PANDAS_MISSING) == set(STR_NA_VALUES)


@pytest.mark.parametrize("name", sorted(COLUMNS))
def test_every_kind_of_column_is_typed_as_pandas_types_it(tmp_path, name):
    path = write(tmp_path / "one.csv", {"row": [str(i) for i in range(40)], name: COLUMNS[name]})
    ours = load_table(path).frame
    pd.testing.assert_frame_equal(ours, read_with_pandas(path), check_exact=True)


@pytest.mark.parametrize("delimiter,bom", [(",", False), (";", True), ("\t", False), ("|", True)])
def test_a_whole_survey_table_is_typed_as_pandas_types_it(tmp_path, delimiter, bom):
    path = write(tmp_path / "all.csv", COLUMNS, delimiter, bom)
    ours = load_table(path, progress=lambda fraction: None).frame
    pd.testing.assert_frame_equal(ours, read_with_pandas(path, delimiter), check_exact=True)


def _plain_table(rows: int = 20_000) -> dict[str, list[str]]:
    rng = np.random.default_rng(7)
    income = np.exp(rng.normal(10, 0.8, rows)).round(2).astype(str)
    income[rng.random(rows) < 0.05] = ""
    return {
        "person_id": [str(i) for i in range(rows)],
        "age": rng.integers(16, 91, rows).astype(str).tolist(),
        "region": rng.choice(["North", "South East", "Capital"], rows).tolist(),
        "employed": rng.choice(["yes", "no"], rows).tolist(),
        "income": income.tolist(),
        "hours": rng.normal(36, 9, rows).round(1).astype(str).tolist(),
        "interview_date": rng.choice(["2024-03-01", "2024-03-02"], rows).tolist(),
    }


@pytest.mark.parametrize("quoted", [False, True])
def test_plain_files_are_read_by_arrow_not_pandas(tmp_path, quoted):
    columns = _plain_table()
    if quoted:
        columns["comment"] = ['"fine,\nthanks"', "ok"] * (len(columns["age"]) // 2)  # a value with a line break
    path = write(tmp_path / "plain.csv", columns)
    frame = arrow_text.read_like_pandas(lambda: path.open("rb"), ",", quoted=quoted)
    assert frame is not None  # Arrow's reader was not given up on
    pd.testing.assert_frame_equal(frame.set_axis(list(columns), axis=1), read_with_pandas(path), check_exact=True)
    assert frame["interview_date"].dtype == read_with_pandas(path)["interview_date"].dtype  # dates stay text


@pytest.mark.parametrize("name", ["plus_signs", "beyond_64_bits", "infinities", "numbers_then_text", "blank_cells",
                                  "padded_numbers"])
def test_columns_arrow_may_type_otherwise_are_left_to_pandas(tmp_path, name):
    path = write(tmp_path / "odd.csv", {"row": [str(i) for i in range(40)], name: COLUMNS[name]})
    if name in ("numbers_then_text", "padded_numbers"):  # typed alike by both: Arrow keeps it
        assert arrow_text.read_like_pandas(lambda: path.open("rb"), ",", quoted=False) is not None
    else:
        assert arrow_text.read_like_pandas(lambda: path.open("rb"), ",", quoted=False) is None


def test_reading_reports_progress_and_stops_when_cancelled(tmp_path):
    path = write(tmp_path / "plain.csv", _plain_table(200_000))
    seen: list[float] = []
    load_table(path, progress=seen.append)
    assert seen[-1] == 1.0 and len(seen) > 3

    def cancel_halfway(fraction: float) -> None:
        if fraction > 0.5:
            raise Cancelled("stopped")

    with pytest.raises(Cancelled):
        load_table(path, progress=cancel_halfway)


def test_a_row_with_too_many_fields_is_named_by_pandas_message(tmp_path):
    path = tmp_path / "broken.csv"
    path.write_text("a,b\n1,2\n3,4,5\n")
    with pytest.raises(Exception, match="do not all have the same number of fields"):
        load_table(path)
