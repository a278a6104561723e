"""Write a release's synthetic tables as files: synthetic.csv always, and on request SPSS (.sav) and Stata (.dta)
with the plan's variable labels and value labels, Parquet, Excel. Called only after the release is charged.

A categorical column is written, in SPSS and Stata, as whole-number codes with value labels: 1, 2, ... in the
order of the public list, or, when the user keeps the input's codes (taking its value labels as public), the
input's own codes where its value labels gave the categories (the same numbers the statistician's codebook uses);
a numeric column written as intervals likewise, its intervals as the labels. A value drawn inside an interval is
written as a number.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from workbench.core.errors import WorkbenchError
from workbench.core.release import Release
from workbench.core.synthetic import SyntheticResult

SYNTHETIC_FORMATS = ("csv", "sav", "dta", "parquet", "xlsx")
FORMAT_NAMES = {"csv": "CSV", "sav": "SPSS (.sav)", "dta": "Stata (.dta)", "parquet": "Parquet", "xlsx": "Excel (.xlsx)"}
EXCEL_ROWS = 1_048_575  # an Excel sheet's rows, less the header


def check_formats(formats: Sequence[str], rows: int | None = None) -> None:
    """Refuse, before anything is spent, a format this program cannot write or one too small for ``rows``."""
    unknown = [f for f in formats if f not in SYNTHETIC_FORMATS]
    if unknown:
        raise WorkbenchError(f"Unknown format for the synthetic table: {', '.join(unknown)}. Choose from "
                             f"{', '.join(SYNTHETIC_FORMATS)}.")
    if "xlsx" in formats and rows is not None and rows > EXCEL_ROWS:
        raise WorkbenchError(f"An Excel sheet holds at most {EXCEL_ROWS:,} rows, and {rows:,} are asked for. Choose "
                             "another format (CSV, Parquet, SPSS or Stata), or fewer rows. Nothing was spent.")


def file_name(position: int, suffix: str) -> str:
    """synthetic.csv for the plan's first synthetic table, synthetic-2.csv for a second, ..."""
    return f"synthetic{'' if position == 0 else f'-{position + 1}'}.{suffix}"


def write_synthetic(result: Release, out_dir: str | Path, formats: Sequence[str] = ("csv",),
                    label_maps: Mapping[str, Mapping[Any, str]] | None = None) -> list[Path]:
    """Write every synthetic table of ``result`` in CSV and the chosen ``formats`` into ``out_dir``; ``label_maps``:
    the input's value labels, whose codes an SPSS or Stata file keeps (``_coded``: only when the user asks)."""
    check_formats(formats)
    out = Path(out_dir)
    written: list[Path] = []
    labels_of = {s.label: dict(s.column_labels) for s in result.statistics}
    for position, (label, table) in enumerate(result.synthetic):
        for suffix in dict.fromkeys(("csv", *formats)):
            if suffix == "xlsx" and table.rows > EXCEL_ROWS:
                continue  # said by the caller (``skipped``): the CSV holds every row
            path = out / file_name(position, suffix)
            try:
                out.mkdir(parents=True, exist_ok=True)
                _write(table, path, suffix, labels_of.get(label, {}), label_maps or {})
            except (OSError, ValueError, TypeError, Exception) as exc:  # pyreadstat raises its own errors
                if isinstance(exc, WorkbenchError):
                    raise
                entry = (result.ledger or {}).get("entry")
                raise WorkbenchError(
                    f"The synthetic table cannot be written as {path}: {getattr(exc, 'strerror', None) or exc}. "
                    f"Choose a folder you can write to{' or another format' if suffix != 'csv' else ''}. The release "
                    f"is recorded in the ledger as entry {entry}; its rows exist only in this program until written."
                ) from None
            written.append(path)
    return written


def skipped(result: Release, formats: Sequence[str]) -> list[str]:
    """What ``write_synthetic`` left out, in words."""
    return [f"{file_name(i, 'xlsx')}: {table.rows:,} rows do not fit in an Excel sheet (the CSV holds them all)"
            for i, (_, table) in enumerate(result.synthetic) if "xlsx" in formats and table.rows > EXCEL_ROWS]


def _write(table: SyntheticResult, path: Path, suffix: str, variable_labels: dict[str, str],
           label_maps: Mapping[str, Mapping[Any, str]]) -> None:
    frame = table.frame
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(handle)  # on Windows an open handle makes the rename below a "sharing violation"
    temporary = Path(name)
    try:
        if suffix == "csv":
            frame.to_csv(temporary, index=False, encoding="utf-8", lineterminator="\n")
        elif suffix == "parquet":
            frame.to_parquet(temporary, index=False)
        elif suffix == "xlsx":
            with pd.ExcelWriter(temporary, engine="xlsxwriter") as writer:
                frame.to_excel(writer, index=False, sheet_name="synthetic")
        else:
            import pyreadstat

            coded, value_labels = _coded(frame, label_maps)
            labels = {name: variable_labels[name] for name in frame.columns if name in variable_labels}
            if suffix == "sav":
                pyreadstat.write_sav(coded, str(temporary), column_labels=labels or None,
                                     variable_value_labels=value_labels or None)
            else:
                pyreadstat.write_dta(coded, str(temporary), column_labels=labels or None,
                                     variable_value_labels=value_labels or None)
        with temporary.open("rb+") as written:
            os.fsync(written.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def _coded(frame: pd.DataFrame, label_maps: Mapping[str, Mapping[Any, str]]) -> tuple[pd.DataFrame, dict]:
    """Categorical columns as whole-number codes with value labels: 1, 2, … in the order of the public categories;
    with ``label_maps`` (the input's value labels, given only when the user keeps the input's codes and so takes its
    labels as public), the input's codes where its value labels name the category, new codes for the rest, above
    the public categories' own codes: not above every code of the input's value labels, which would tell how many
    labels it has beyond the public list. Labels made from the rows (Stata's encode, SPSS's autorecode) list the
    values seen in the data, and which public categories have a code of their own, and the gaps between the codes,
    tell which values were seen: so the input's codes are kept only when asked (DESIGN rules 1 and 8)."""
    coded, value_labels = {}, {}
    for name in frame.columns:
        column = frame[name]
        if not isinstance(column.dtype, pd.CategoricalDtype):
            coded[name] = column
            continue
        public = set(column.cat.categories)
        known = {label: code for code, label in (label_maps.get(name) or {}).items() if _whole(code) and label in public}
        codes: dict[str, int] = {}
        following = int(max(known.values(), default=0)) + 1
        for label in column.cat.categories:
            if label in known:
                codes[label] = int(known[label])
            else:
                codes[label], following = following, following + 1
        coded[name] = column.cat.rename_categories([codes[c] for c in column.cat.categories]).astype("int64")
        value_labels[name] = {code: label for label, code in codes.items()}
    return pd.DataFrame(coded), value_labels


def _whole(code: Any) -> bool:
    try:
        return float(code).is_integer()
    except (TypeError, ValueError):
        return False
