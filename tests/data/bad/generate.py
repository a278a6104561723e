"""Write the bad-input corpus: data files and plans a statistician's institution may hand the tool.

Run from the repository root: ``python tests/data/bad/generate.py``. It is deterministic. The
small files are committed; the large ones (``LARGE``) are not, and the tests write them with
``generate(names=LARGE)`` when missing. ``tests/bad_inputs.py`` says what each file must do.
The password-protected workbook needs ``msoffcrypto-tool`` to write; the committed copy is used
when it is not installed.
"""

from __future__ import annotations

import codecs
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SAMPLE_PLAN = ROOT / "resources" / "sample" / "household_survey.plan.json"

SMALL = pd.DataFrame({
    "person_id": [1, 2, 3, 4, 5, 6],
    "age": [34, 51, 27, 68, 45, 19],
    "town": ["Köln", "Zürich", "Åre", "Kraków", "Porto", "Gent"],
})


def _text(frame: pd.DataFrame, sep: str = ",") -> str:
    return frame.to_csv(sep=sep, index=False, lineterminator="\n")


def _plan(**changes) -> dict:
    """The sample plan with top-level or nested changes: keys like 'schema.columns.1.lower'."""
    plan = json.loads(SAMPLE_PLAN.read_text(encoding="utf-8"))
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        target = plan
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if isinstance(target, list):
            target[int(last)] = value
        else:
            target[last] = value
    return plan


def _plan_bytes(plan: dict) -> bytes:
    return (json.dumps(plan, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _small_plan(columns: list[dict], statistics: list[dict], epsilon: float = 1.0) -> bytes:
    return _plan_bytes({
        "format": "dp-workbench-plan", "version": 1,
        "dataset": {"name": "bad input", "size_estimate": 1000},
        "schema": {"columns": columns, "privacy_unit": {"id_column": None, "max_rows_per_person": 1},
                   "neighbouring": "add_remove", "public_size": None},
        "statistics": statistics,
        "total_budget": {"epsilon": epsilon, "delta": 0.0},
        "confidence": 0.95,
    })


# ------------------------------------------------------------------------------ data files

def empty() -> bytes:
    return b""


def blank_lines() -> bytes:
    return b"\n\n   \n\t\n"


def header_only() -> bytes:
    return b"person_id,age,town\n"


def header_without_line_break() -> bytes:
    return b"person_id,age,town"


def binary_named_csv() -> bytes:
    rng = np.random.default_rng(1)
    return b"\x89PNG\r\n\x1a\n" + rng.integers(0, 256, 4000, dtype=np.uint8).tobytes()


def zip_named_csv() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("data.csv", _text(SMALL))
    return buffer.getvalue()


def semicolons() -> bytes:
    return _text(SMALL, ";").encode("utf-8")


def semicolons_named_tsv() -> bytes:
    return _text(SMALL, ";").encode("utf-8")


def latin1() -> bytes:
    return _text(SMALL, ";").encode("latin-1")


def cp1252_euro() -> bytes:
    frame = SMALL.assign(price=["5 €", "7 €", "€ 9", "10 €", "3 €", "1 €"])
    return _text(frame).encode("cp1252")


def utf16_bom() -> bytes:
    return codecs.BOM_UTF16_LE + _text(SMALL, "\t").encode("utf-16-le")


def utf8_bom() -> bytes:
    return codecs.BOM_UTF8 + _text(SMALL).encode("utf-8")


def crlf_quoted_newlines() -> bytes:
    return ('person_id,age,comment\r\n1,34,"moved in\r\nin May"\r\n2,51,"said ""no"""\r\n3,27,\r\n').encode("utf-8")


def crlf_quoted() -> bytes:
    return ('person_id,age,comment\r\n1,34,"moved in, in May"\r\n2,51,"said ""no"""\r\n3,27,\r\n').encode("utf-8")


def ragged() -> bytes:
    return b"person_id,age,town\n1,34,Koeln\n2,51,Zurich,extra,fields\n3,27,Are\n"


def duplicate_names() -> bytes:
    return b"person_id,age,age\n1,34,35\n2,51,52\n"


def unnamed_columns() -> bytes:
    return b",age,\n1,34,x\n2,51,y\n"


def one_unnamed_column() -> bytes:
    """A trailing delimiter on every line: one column without a name, the others' names distinct."""
    return b"person_id,age,income,\n1,34,1000,\n2,51,2000,\n"


def all_missing_column() -> bytes:
    return b"person_id,age,income\n1,34,\n2,51,\n3,27,\n4,68,\n"


def text_in_numeric() -> bytes:
    return b"person_id,age\n1,34\n2,fifty-one\n3,27\n4,unknown\n"


def infinite_and_huge() -> bytes:
    return b"person_id,age\n1,34\n2,inf\n3,1e400\n4,-inf\n"


def wide_10000_columns() -> bytes:
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.integers(0, 100, (30, 10_000)), columns=[f"v{i:05d}" for i in range(10_000)])
    return _text(frame).encode("ascii")


def no_suffix() -> bytes:
    return _text(SMALL).encode("utf-8")


def old_excel_xls() -> bytes:
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504)


def several_sheets_xlsx() -> bytes:
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        SMALL.to_excel(writer, sheet_name="persons", index=False)
        pd.DataFrame({"note": ["made by the survey office"]}).to_excel(writer, sheet_name="readme", index=False)
    return buffer.getvalue()


def empty_sheet_xlsx() -> bytes:
    buffer = io.BytesIO()
    with pd.ExcelWriter(buffer, engine="openpyxl") as writer:
        pd.DataFrame().to_excel(writer, sheet_name="empty", index=False)
    return buffer.getvalue()


def truncated_xlsx() -> bytes:
    return several_sheets_xlsx()[:700]


def password_xlsx() -> bytes:
    try:
        from msoffcrypto.format.ooxml import OOXMLFile
    except ImportError:
        return (HERE / "password.xlsx").read_bytes()  # the committed copy
    plain, encrypted = io.BytesIO(), io.BytesIO()
    with pd.ExcelWriter(plain, engine="openpyxl") as writer:
        SMALL.to_excel(writer, index=False)
    plain.seek(0)
    office = OOXMLFile(plain)
    office.encrypt("secret", encrypted)
    return encrypted.getvalue()


def _written(write: Callable[[str], None], suffix: str) -> bytes:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"file{suffix}"
        write(str(path))
        return path.read_bytes()


def spss_odd_labels() -> bytes:
    """Labels with accents and symbols, two codes with the same label, a label for a code nobody has,
    codes without labels, a long label, and a labelled numeric column with missing values."""
    import pyreadstat

    frame = pd.DataFrame({
        "resp_id": [1.0, 2, 3, 4, 5, 6],
        "region": [1.0, 2, 2, 3, 9, np.nan],
        "satisfied": [1.0, 5, 4, np.nan, 2, 3],
    })
    labels = {
        "region": {1.0: "Île-de-France", 2.0: "Région «Sud» & co.", 3.0: "Île-de-France", 4.0: "nobody lives here"},
        "satisfied": {1.0: "not at all", 5.0: "completely " + "very " * 40 + "satisfied"},
    }
    return _written(lambda p: pyreadstat.write_sav(frame, p, variable_value_labels=labels,
                                                   column_labels=["Respondent", "Région", "Zufrieden?"]), ".sav")


def stata_odd_labels() -> bytes:
    import pyreadstat

    frame = pd.DataFrame({"pid": [1, 2, 3, 4], "sex": [1, 2, 1, 3], "score": [0.5, 1.5, np.nan, 2.0]})
    labels = {"sex": {1: "Männlich", 2: "Weiblich"}, "score": {0.5: "half"}}
    try:
        return _written(lambda p: pyreadstat.write_dta(frame, p, variable_value_labels=labels), ".dta")
    except Exception:  # pyreadstat refuses float labels in Stata: label the integer columns only
        return _written(lambda p: pyreadstat.write_dta(frame, p, variable_value_labels={"sex": labels["sex"]}), ".dta")


def truncated_parquet() -> bytes:
    buffer = io.BytesIO()
    SMALL.to_parquet(buffer)
    return buffer.getvalue()[:200]


def random_sas7bdat() -> bytes:
    return np.random.default_rng(3).integers(0, 256, 2048, dtype=np.uint8).tobytes()


def stata_named_sav() -> bytes:
    return stata_odd_labels()


# ------------------------------------------------------------------------------ plans

def plan_bounds_reversed() -> bytes:
    return _plan_bytes(_plan(**{"schema.columns.1.lower": 100, "schema.columns.1.upper": 0}))


def plan_bounds_equal() -> bytes:
    return _plan_bytes(_plan(**{"schema.columns.1.lower": 50, "schema.columns.1.upper": 50}))


def plan_bound_nan() -> bytes:
    return SAMPLE_PLAN.read_bytes().replace(b'"lower": 0, "upper": 100', b'"lower": NaN, "upper": 100')


def plan_bound_infinite() -> bytes:
    return SAMPLE_PLAN.read_bytes().replace(b'"lower": 0, "upper": 100', b'"lower": 0, "upper": Infinity')


def plan_epsilon_zero() -> bytes:
    return _plan_bytes(_plan(**{"statistics.0.epsilon": 0}))


def plan_epsilon_negative() -> bytes:
    return _plan_bytes(_plan(**{"total_budget.epsilon": -1}))


def plan_epsilon_nan() -> bytes:
    return SAMPLE_PLAN.read_bytes().replace(b'"total_budget": {"epsilon": 1.0', b'"total_budget": {"epsilon": NaN')


def plan_epsilon_absurd() -> bytes:
    return _plan_bytes(_plan(**{"statistics.0.epsilon": 1e6, "total_budget.epsilon": 1e7}))


def plan_epsilon_text() -> bytes:
    return _plan_bytes(_plan(**{"statistics.0.epsilon": "0.1"}))


def plan_delta_too_large() -> bytes:
    return _plan_bytes(_plan(**{"total_budget.delta": 0.001, "statistics.2.delta": 0.0005}))


def plan_delta_one() -> bytes:
    return _plan_bytes(_plan(**{"statistics.2.delta": 1.0}))


def plan_missing_column() -> bytes:
    return _plan_bytes(_plan(**{"statistics.3.column": "agee"}))


def plan_future_version() -> bytes:
    return _plan_bytes(_plan(version=99))


def plan_truncated() -> bytes:
    return SAMPLE_PLAN.read_bytes()[:900]


def plan_not_json() -> bytes:
    return b"\xff\xfe\x00P\x00K binary rubbish \x00\x01"


def plan_a_list() -> bytes:
    return b"[1, 2, 3]\n"


def plan_unknown_statistic() -> bytes:
    return _plan_bytes(_plan(**{"statistics.1.type": "regression"}))


def plan_unknown_kind() -> bytes:
    return _plan_bytes(_plan(**{"schema.columns.1.kind": "number"}))


def plan_overspends() -> bytes:
    return _plan_bytes(_plan(**{"total_budget.epsilon": 0.5}))


def plan_no_categories() -> bytes:
    return _plan_bytes(_plan(**{"schema.columns.3.categories": []}))


def plan_age_numeric_small() -> bytes:
    """For text_in_numeric.csv: 'age' is described as a number."""
    return _small_plan(
        [{"name": "person_id", "kind": "identifier"},
         {"name": "age", "kind": "numeric", "lower": 0, "upper": 100, "missing": {"action": "drop"}}],
        [{"type": "mean", "column": "age", "mechanism": "laplace", "epsilon": 1.0, "delta": 0.0}],
    )


def plan_income_mean_small() -> bytes:
    """For all_missing_column.csv: a mean of the column with no values at all."""
    return _small_plan(
        [{"name": "person_id", "kind": "identifier"},
         {"name": "age", "kind": "numeric", "lower": 0, "upper": 100},
         {"name": "income", "kind": "numeric", "lower": 0, "upper": 100000, "missing": {"action": "drop"}}],
        [{"type": "mean", "column": "income", "mechanism": "laplace", "epsilon": 1.0, "delta": 0.0}],
    )


FILES: dict[str, Callable[[], bytes]] = {
    "empty.csv": empty,
    "blank_lines.csv": blank_lines,
    "header_only.csv": header_only,
    "header_no_line_break.csv": header_without_line_break,
    "binary_named.csv": binary_named_csv,
    "zip_named.csv": zip_named_csv,
    "semicolons.csv": semicolons,
    "semicolons_named.tsv": semicolons_named_tsv,
    "latin1.csv": latin1,
    "cp1252_euro.csv": cp1252_euro,
    "utf16_bom.tsv": utf16_bom,
    "utf8_bom.csv": utf8_bom,
    "crlf_quoted_newlines.csv": crlf_quoted_newlines,
    "crlf_quoted.csv": crlf_quoted,
    "ragged.csv": ragged,
    "duplicate_names.csv": duplicate_names,
    "unnamed_columns.csv": unnamed_columns,
    "one_unnamed_column.csv": one_unnamed_column,
    "all_missing_column.csv": all_missing_column,
    "text_in_numeric.csv": text_in_numeric,
    "infinite_and_huge.csv": infinite_and_huge,
    "wide_10000_columns.csv": wide_10000_columns,
    "no_suffix": no_suffix,
    "old_excel.xls": old_excel_xls,
    "several_sheets.xlsx": several_sheets_xlsx,
    "empty_sheet.xlsx": empty_sheet_xlsx,
    "truncated.xlsx": truncated_xlsx,
    "password.xlsx": password_xlsx,
    "odd_labels.sav": spss_odd_labels,
    "odd_labels.dta": stata_odd_labels,
    "stata_named.sav": stata_named_sav,
    "truncated.parquet": truncated_parquet,
    "random.sas7bdat": random_sas7bdat,
    "bounds_reversed.plan.json": plan_bounds_reversed,
    "bounds_equal.plan.json": plan_bounds_equal,
    "bound_nan.plan.json": plan_bound_nan,
    "bound_infinite.plan.json": plan_bound_infinite,
    "epsilon_zero.plan.json": plan_epsilon_zero,
    "epsilon_negative.plan.json": plan_epsilon_negative,
    "epsilon_nan.plan.json": plan_epsilon_nan,
    "epsilon_absurd.plan.json": plan_epsilon_absurd,
    "epsilon_text.plan.json": plan_epsilon_text,
    "delta_too_large.plan.json": plan_delta_too_large,
    "delta_one.plan.json": plan_delta_one,
    "missing_column.plan.json": plan_missing_column,
    "future_version.plan.json": plan_future_version,
    "truncated.plan.json": plan_truncated,
    "not_json.plan.json": plan_not_json,
    "a_list.plan.json": plan_a_list,
    "unknown_statistic.plan.json": plan_unknown_statistic,
    "unknown_kind.plan.json": plan_unknown_kind,
    "overspends.plan.json": plan_overspends,
    "no_categories.plan.json": plan_no_categories,
    "age_numeric.plan.json": plan_age_numeric_small,
    "income_mean.plan.json": plan_income_mean_small,
}
LARGE = ("wide_10000_columns.csv",)  # not committed: written when the tests need them


def generate(folder: Path = HERE, names=None) -> None:
    for name in names or FILES:
        (folder / name).write_bytes(FILES[name]())


if __name__ == "__main__":
    generate(names=sys.argv[1:] or None)
    print(f"wrote {len(sys.argv[1:]) or len(FILES)} files to {HERE}")
