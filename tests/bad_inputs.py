"""What each file of the bad-input corpus (tests/data/bad) must do, in the core, the command line and the app.

A case names a data file, a plan, or both (the sample dataset or plan stands in for the one not
named). It is either accepted (the content is sound: a Latin-1 file, a semicolon delimiter) and
then checked, or refused with a message matching ``refused``: the same words in the core's
WorkbenchError, on the command line's stderr and in the app's dialog.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from workbench.core.data.io import Table
from workbench.core.data.proposals import ColumnKind, propose_kinds
from workbench.core.release.ledger import Ledger

TESTS = Path(__file__).resolve().parent
CORPUS = TESTS / "data" / "bad"
SAMPLE = TESTS.parent / "resources" / "sample" / "household_survey.csv"
SAMPLE_PLAN = TESTS.parent / "resources" / "sample" / "household_survey.plan.json"
TOWNS = ["Köln", "Zürich", "Åre", "Kraków", "Porto", "Gent"]


@dataclass(frozen=True)
class Case:
    id: str
    data: str | None = None  # a file in the corpus; None: the sample dataset
    plan: str | None = None  # a plan in the corpus; None: a case about the data file alone
    refused: str | None = None  # a regular expression the message must match; None: accepted
    check: Callable[[Table], None] | None = None  # for an accepted data file

    @property
    def data_path(self) -> Path | None:
        return None if self.data is None else CORPUS / self.data

    @property
    def plan_path(self) -> Path | None:
        return None if self.plan is None else CORPUS / self.plan


def _towns(table: Table) -> None:
    assert list(table.frame.columns) == ["person_id", "age", "town"]
    assert list(table.frame["town"]) == TOWNS and list(table.frame["age"]) == ["34", "51", "27", "68", "45", "19"]


def _kinds(expected: dict[str, ColumnKind]) -> Callable[[Table], None]:
    def check(table: Table) -> None:
        kinds = {p.name: p.kind for p in propose_kinds(table)}
        assert {name: kinds[name] for name in expected} == expected

    return check


def _euro(table: Table) -> None:
    assert list(table.frame["price"])[:3] == ["5 €", "7 €", "€ 9"]


def _quoted(table: Table) -> None:
    assert list(table.frame["comment"])[:3] == ["moved in, in May", 'said "no"', ""]


def _wide(table: Table) -> None:
    assert table.frame.shape == (30, 10_000)


def _spss_labels(table: Table) -> None:
    assert table.value_labels["region"] == ("Île-de-France", "Région «Sud» & co.", "nobody lives here")
    labels = table.label_maps["region"]  # the codes stay in the frame; a categorical column reads their labels
    assert [labels[c] for c in list(table.frame["region"])[:3]] == ["Île-de-France", "Région «Sud» & co.",
                                                                     "Région «Sud» & co."]
    proposals = {p.name: p for p in propose_kinds(table)}
    assert proposals["region"].kind is ColumnKind.CATEGORICAL
    assert len(set(proposals["region"].offered_categories)) == 3  # two codes share a label: offered once
    assert "1 code without a label (9) counts as outside the categories" in proposals["region"].reason
    # a 1-to-5 scale that labels only its end points stays numbers: 2, 3 and 4 are not lost outside two categories
    assert list(table.frame["satisfied"].dropna()) == [1, 5, 4, 2, 3] and "satisfied" not in table.value_labels
    assert proposals["satisfied"].kind is ColumnKind.NUMERIC
    assert "labels only a few of them (1 = not at all, 5 = completely very very very ver…)" in proposals["satisfied"].reason


def _stata_labels(table: Table) -> None:
    assert table.value_labels["sex"] == ("Männlich", "Weiblich")
    labels = table.label_maps["sex"]
    assert [labels.get(c, c) for c in table.frame["sex"]] == ["Männlich", "Weiblich", "Männlich", 3.0]  # unlabelled


def _infinite(table: Table) -> None:
    from workbench.core.data.reading import read_numbers

    assert read_numbers(table.frame["age"], "age", "f").tolist()[1:] == [float("inf"), float("inf"), float("-inf")]


DATA = [
    Case("empty file", "empty.csv", refused=r"empty.csv: the file is empty\. Check that it is the right file"),
    Case("only blank lines", "blank_lines.csv", refused=r"blank_lines.csv: the file is empty"),
    Case("header only", "header_only.csv", refused=r"header_only.csv: the file has column names but no rows of data"),
    Case("header only, no line break after it", "header_no_line_break.csv",
         refused=r"header_no_line_break.csv: the file has column names but no rows of data"),
    Case("binary data named .csv", "binary_named.csv",
         refused=r"binary_named.csv: this is not a text table .* proper suffix"),
    Case("a zip archive named .csv", "zip_named.csv", refused=r"zip_named.csv: this is not a text table"),
    Case("semicolon delimiter", "semicolons.csv", check=_towns),
    Case("semicolons in a .tsv", "semicolons_named.tsv", check=_towns),
    Case("Latin-1 text", "latin1.csv", check=_towns),
    Case("Windows-1252 with the euro sign", "cp1252_euro.csv", check=_euro),
    Case("UTF-16 with a byte order mark", "utf16_bom.tsv", check=_towns),
    Case("UTF-8 with a byte order mark", "utf8_bom.csv", check=_towns),
    # a quoted value spanning lines is refused: one row's quotation mark left open would take in the rows after it
    Case("CRLF and quoted line breaks", "crlf_quoted_newlines.csv",
         refused=r"crlf_quoted_newlines.csv: the value of 'comment' in row 1 holds a line break: a quoted value spans "
                 r"lines.*save the table as Parquet"),
    Case("CRLF and quoted values", "crlf_quoted.csv", check=_quoted),
    Case("ragged rows", "ragged.csv",
         refused=r"ragged.csv: the rows do not all have the same number of fields .*line 3.* delimiter used was a comma"),
    Case("duplicated column names", "duplicate_names.csv",
         refused=r"duplicate_names.csv: several columns are called 'age'\. Give every column a distinct name"),
    Case("columns without a name", "unnamed_columns.csv",
         refused=r"unnamed_columns.csv: columns 1, 3 \(counting from the left\) have no name in the first line"),
    Case("one column without a name", "one_unnamed_column.csv",
         refused=r"one_unnamed_column.csv: column 4 \(counting from the left\) has no name in the first line"),
    Case("an all-missing column", "all_missing_column.csv", check=_kinds({"income": ColumnKind.IGNORED})),
    Case("text in a numeric-looking column", "text_in_numeric.csv", check=_kinds({"age": ColumnKind.CATEGORICAL})),
    Case("infinite and overflowing numbers", "infinite_and_huge.csv", check=_infinite),
    Case("10,000 columns", "wide_10000_columns.csv", check=_wide),
    Case("no suffix", "no_suffix", refused=r"no_suffix: files ending in '\(no suffix\)' are not supported\. Save the table as"),
    Case("old Excel .xls", "old_excel.xls", refused=r"old_excel.xls is an old-style Excel workbook \(\.xls\).*save it as \.xlsx"),
    Case("workbook with several sheets", "several_sheets.xlsx",
         refused=r"several_sheets.xlsx: the workbook has 2 sheets \(persons, readme\)\. Say which sheet"),
    Case("workbook with an empty sheet", "empty_sheet.xlsx", refused=r"empty_sheet.xlsx: the file holds no columns"),
    Case("truncated workbook", "truncated.xlsx",
         refused=r"truncated.xlsx: the file cannot be read as an Excel workbook .* damaged, incomplete"),
    Case("password-protected workbook", "password.xlsx",
         refused=r"password.xlsx is password-protected \(encrypted\).* remove the password"),
    Case("SPSS with odd value labels", "odd_labels.sav", check=_spss_labels),
    Case("Stata with odd value labels", "odd_labels.dta", check=_stata_labels),
    Case("a Stata file named .sav", "stata_named.sav",
         refused=r"stata_named.sav is named like an SPSS file \(\.sav\) but its contents are a Stata file.*'\.dta'"),
    Case("truncated Parquet", "truncated.parquet", refused=r"truncated.parquet: the file cannot be read as a Parquet file"),
    Case("random bytes as SAS", "random.sas7bdat", refused=r"random.sas7bdat: the file cannot be read as a SAS file"),
]

PLANS = [
    Case("bounds reversed", plan="bounds_reversed.plan.json",
         refused=r"Column 'age': the lower bound 100 is above the upper bound 0\. Swap them"),
    Case("bounds equal", plan="bounds_equal.plan.json",
         refused=r"Column 'age': the lower and upper bounds are both 50"),
    Case("a NaN bound", plan="bound_nan.plan.json", refused=r"Column 'age': the lower bound must be a finite number, not nan"),
    Case("an infinite bound", plan="bound_infinite.plan.json",
         refused=r"Column 'age': the upper bound must be a finite number, not inf"),
    Case("ε = 0", plan="epsilon_zero.plan.json", refused=r"'count of rows': ε must be greater than 0 \(it is 0\)"),
    Case("ε < 0", plan="epsilon_negative.plan.json", refused=r"ε must be greater than 0 \(it is -1\)"),
    Case("ε = NaN", plan="epsilon_nan.plan.json", refused=r"epsilon_nan.plan.json: The plan's total budget: ε must be a positive number, not nan"),
    Case("absurdly large ε", plan="epsilon_absurd.plan.json", refused=r"gives no meaningful privacy.*at most 100"),
    Case("ε written as text", plan="epsilon_text.plan.json", refused=r"epsilon_text.plan.json: Statistic 1: ε must be a positive number, not '0\.1'"),
    Case("δ at or above 1/n", plan="delta_too_large.plan.json",
         refused=r"δ = 0\.001 is at least 1 / 25000 \(one over the number of persons\)"),
    Case("δ = 1", plan="delta_one.plan.json", refused=r"needs δ strictly between 0 and 1 \(it is 1\)"),
    Case("a statistic of a missing column", plan="missing_column.plan.json",
         refused=r"There is no column 'agee' in the schema\. Check the spelling"),
    Case("a plan from a future version", plan="future_version.plan.json",
         refused=r"future_version.plan.json: This plan was written by a newer DP Workbench \(plan version 99"),
    Case("a truncated plan", plan="truncated.plan.json",
         refused=r"truncated.plan.json is not a complete plan file: .* at line \d+, column \d+"),
    Case("binary rubbish as a plan", plan="not_json.plan.json", refused=r"not_json.plan.json: the plan file cannot be read"),
    Case("JSON that is not a plan", plan="a_list.plan.json", refused=r"a_list.plan.json: This is not a DP Workbench plan"),
    Case("an unknown statistic", plan="unknown_statistic.plan.json",
         refused=r"Statistic 2: 'regression' is not a statistic; choose one of count"),
    Case("an unknown column kind", plan="unknown_kind.plan.json",
         refused=r"Column 'age': kind 'number' is not one of numeric, categorical, identifier, ignored"),
    Case("statistics that overspend the plan", plan="overspends.plan.json",
         refused=r"The statistics spend ε = 1, δ = 2e-07 in total, more than the plan's budget of ε = 0\.5"),
    Case("a categorical column without categories", plan="no_categories.plan.json",
         refused=r"Column 'region' has no categories yet"),
]

TOGETHER = [
    Case("text in a column described as numeric", "text_in_numeric.csv", "age_numeric.plan.json",
         refused=r"Column 'age' in text_in_numeric.csv is described as numeric, but 2 of its values are not numbers"),
    Case("a plan for another dataset", "semicolons.csv", "../../../resources/sample/household_survey.plan.json",
         refused=r"not in semicolons.csv"),
    Case("a mean of an all-missing column", "all_missing_column.csv", "income_mean.plan.json"),
    Case("infinite values in a bounded column", "infinite_and_huge.csv", "age_numeric.plan.json"),
]

CASES = DATA + PLANS + TOGETHER


def ledger_state(path: Path) -> list[tuple[int, str]]:
    """Every entry of the ledger (sequence number and hash), after checking its chain is intact."""
    ledger = Ledger(path)
    assert ledger.verify() == []
    return [(entry.seq, entry.hash) for entry in ledger.entries()]


def meddle_while_reading(monkeypatch, path: Path, meddle: str, target: str = "read_table",
                         appended: str = "99,99,Somewhere\n") -> None:
    """Make ``path`` change ('append' the line ``appended``) or disappear ('delete') while the loader reads it:
    another program writing the file, or a network drive dropping it, in the middle of the read. ``target``: the
    reader of ``io`` that meddles as it starts (``read_columns``: a release's reading of some columns)."""
    from workbench.core.data import io

    real, done = getattr(io, target), []

    def do_meddle() -> None:
        if done:
            return
        done.append(meddle)
        if meddle == "append":
            with path.open("a", encoding="utf-8") as handle:
                handle.write(appended)
        else:
            path.unlink()

    def meddling(*args, **kwargs):
        do_meddle()
        return real(*args, **kwargs)

    monkeypatch.setattr(io, target, meddling)


MEDDLED = {"append": r"changed while it was being read .* Nothing was loaded",
           "delete": r"disappeared while it was being read .* Nothing was loaded"}
