"""Read a data file into a Table, and propose a kind for each column.

pandas, pyarrow, openpyxl and pyreadstat do the reading; this module only picks the
reader, detects a text file's encoding and delimiter, and turns every failure into a
``DataFileError`` that names the file, the problem and what to do about it.
"""

from __future__ import annotations

import codecs
import csv
import re
from collections import Counter
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Mapping

import pandas as pd

from workbench.core.errors import DataFileError

TEXT_SUFFIXES = {".csv": ",", ".tsv": "\t", ".tab": "\t", ".txt": None}
OTHER_SUFFIXES = {
    ".xlsx": "excel",
    ".xlsm": "excel",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".sav": "spss",
    ".zsav": "spss",
    ".dta": "stata",
    ".sas7bdat": "sas",
    ".xpt": "sas-xport",
}
SUPPORTED = ", ".join(sorted({*TEXT_SUFFIXES, *OTHER_SUFFIXES}))
_SNIFF_BYTES = 1 << 20
_CANDIDATE_DELIMITERS = ",;\t|"


class ColumnKind(str, Enum):
    """What a column is to the privacy analysis; the user confirms the proposal."""

    NUMERIC = "numeric"
    CATEGORICAL = "categorical"
    IDENTIFIER = "identifier"
    IGNORED = "ignored"


@dataclass(frozen=True, eq=False)
class Table:
    """A loaded table and what the file said about it (never a DP value: stays local)."""

    frame: pd.DataFrame
    source: Path
    file_format: str
    value_labels: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    encoding: str | None = None
    delimiter: str | None = None

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.frame.columns)


@dataclass(frozen=True)
class ColumnProposal:
    """The proposed kind of one column, with the reason shown to the user."""

    name: str
    storage: str
    kind: ColumnKind
    reason: str
    offered_categories: tuple[str, ...] = ()


def load_table(
    path: str | Path,
    *,
    delimiter: str | None = None,
    encoding: str | None = None,
    sheet: str | int | None = None,
) -> Table:
    """Read ``path`` by its suffix; for text files detect encoding and delimiter unless given."""
    path = Path(path)
    if not path.exists():
        raise DataFileError(f"{path}: no such file. Check the path and try again.")
    if path.is_dir():
        raise DataFileError(f"{path} is a folder, not a data file. Choose a file inside it.")
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        table = _load_text(path, delimiter or TEXT_SUFFIXES[suffix], encoding, explicit=delimiter)
    elif suffix in OTHER_SUFFIXES:
        table = _load_binary(path, OTHER_SUFFIXES[suffix], sheet)
    else:
        raise DataFileError(
            f"{path.name}: files ending in '{suffix or '(no suffix)'}' are not supported. "
            f"Save the table as one of: {SUPPORTED}."
        )
    _check_shape(table)
    return table


def _check_shape(table: Table) -> None:
    name = table.source.name
    if table.frame.shape[1] == 0:
        raise DataFileError(f"{name}: the file holds no columns. Check that it is the right file.")
    if table.frame.shape[0] == 0:
        raise DataFileError(
            f"{name}: the file has column names but no rows of data. Check that it is the right file."
        )
    counts = Counter(str(c) for c in table.frame.columns)
    duplicates = sorted(n for n, count in counts.items() if count > 1)
    if duplicates:
        raise DataFileError(
            f"{name}: several columns are called {', '.join(repr(d) for d in duplicates)}. "
            "Give every column a distinct name in the file and open it again."
        )


# ---------------------------------------------------------------- text files


def detect_encoding(sample: bytes) -> str:
    """The encoding of a text sample: a BOM if present, else UTF-8 if it decodes, else a guess."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
        return "utf-8"
    except UnicodeDecodeError:
        pass
    runs = re.findall(rb"[\x80-\xff]+", sample)
    if sum(len(run) == 1 for run in runs) >= 0.8 * len(runs):
        # Accented letters stand alone among ASCII: a Western single-byte code page. (Multi-byte
        # encodings such as Shift-JIS or GBK come in runs of two or more non-ASCII bytes.)
        for western in ("cp1252", "latin-1"):
            try:
                sample.decode(western)
                return western
            except UnicodeDecodeError:
                continue
    from charset_normalizer import from_bytes

    best = from_bytes(sample).best()
    if best is not None and best.encoding not in {"utf_8", "utf_16", "utf_32"}:
        return best.encoding
    return "cp1252"


def detect_delimiter(text: str, fallback: str) -> str:
    """The delimiter of the first lines of ``text`` (comma, semicolon, tab or bar)."""
    lines = [line for line in text.splitlines()[:50] if line.strip()]
    if not lines:
        return fallback
    try:
        return csv.Sniffer().sniff("\n".join(lines), delimiters=_CANDIDATE_DELIMITERS).delimiter
    except csv.Error:
        counts = {d: lines[0].count(d) for d in _CANDIDATE_DELIMITERS}
        best = max(counts, key=counts.get)
        return best if counts[best] > 0 else fallback


def _load_text(path: Path, delimiter: str | None, encoding: str | None, explicit: str | None) -> Table:
    with path.open("rb") as handle:
        sample = handle.read(_SNIFF_BYTES)
    if not sample.strip():
        raise DataFileError(f"{path.name}: the file is empty. Check that it is the right file.")
    encoding = encoding or detect_encoding(sample)
    if b"\x00" in sample and not encoding.startswith("utf-16"):
        raise DataFileError(
            f"{path.name}: this is not a text table (it contains binary data). "
            "If it is a spreadsheet or a statistics file, give it its proper suffix "
            "(.xlsx, .sav, .dta, ...) or export it as CSV."
        )
    try:
        text_sample = sample.decode(encoding, errors="ignore")
    except LookupError as exc:
        raise DataFileError(f"{path.name}: unknown text encoding '{encoding}'. Use e.g. utf-8 or latin-1.") from exc
    if explicit is None:
        delimiter = detect_delimiter(text_sample, delimiter or ",")
    try:
        frame = pd.read_csv(path, sep=delimiter, encoding=encoding, engine="c", low_memory=False)
    except UnicodeDecodeError as exc:
        raise DataFileError(
            f"{path.name}: the text is not valid {encoding} (byte {exc.start} cannot be read). "
            "Give the right encoding (for example latin-1 or cp1252) and open it again."
        ) from exc
    except pd.errors.EmptyDataError as exc:
        raise DataFileError(f"{path.name}: the file is empty. Check that it is the right file.") from exc
    except pd.errors.ParserError as exc:
        raise DataFileError(
            f"{path.name}: the rows do not all have the same number of fields ({_first_line(exc)}). "
            f"The delimiter used was {_describe_delimiter(delimiter)}; if that is wrong, give the right one, "
            "otherwise repair the row in the file."
        ) from exc
    except (OSError, ValueError) as exc:
        raise DataFileError(f"{path.name}: the file cannot be read ({_first_line(exc)}).") from exc
    header = next(csv.reader([text_sample.lstrip("\ufeff").splitlines()[0]], delimiter=delimiter), [])
    if len(header) == frame.shape[1]:
        frame.columns = [name.strip() for name in header]  # undo pandas' renaming of duplicated names
    return Table(frame=frame, source=path, file_format="text", encoding=encoding, delimiter=delimiter)


def _describe_delimiter(delimiter: str | None) -> str:
    return {",": "a comma", ";": "a semicolon", "\t": "a tab", "|": "a vertical bar"}.get(
        delimiter or ",", repr(delimiter)
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


# ---------------------------------------------------------------- other formats


def _load_binary(path: Path, kind: str, sheet: str | int | None) -> Table:
    try:
        if kind == "excel":
            return _load_excel(path, sheet)
        if kind == "parquet":
            return Table(frame=pd.read_parquet(path), source=path, file_format="parquet")
        return _load_statistics_file(path, kind)
    except DataFileError:
        raise
    except Exception as exc:  # every reader has its own exception types; name the file and the reader's words
        raise DataFileError(
            f"{path.name}: the file cannot be read as {kind.upper()} ({_first_line(exc)}). "
            "Check that it is not damaged, password-protected or still being written, "
            "or export it as CSV."
        ) from exc


def _load_excel(path: Path, sheet: str | int | None) -> Table:
    with pd.ExcelFile(path, engine="openpyxl") as book:
        names = book.sheet_names
        if sheet is None:
            if len(names) > 1:
                raise DataFileError(
                    f"{path.name}: the workbook has {len(names)} sheets ({', '.join(names)}). "
                    "Say which sheet holds the table."
                )
            sheet = names[0]
        if isinstance(sheet, str) and sheet not in names:
            raise DataFileError(f"{path.name}: there is no sheet '{sheet}'; the sheets are {', '.join(names)}.")
        frame = pd.read_excel(book, sheet_name=sheet)
    return Table(frame=frame, source=path, file_format="excel")


def _load_statistics_file(path: Path, kind: str) -> Table:
    import pyreadstat

    readers = {
        "spss": pyreadstat.read_sav,
        "stata": pyreadstat.read_dta,
        "sas": pyreadstat.read_sas7bdat,
        "sas-xport": pyreadstat.read_xport,
    }
    frame, meta = readers[kind](str(path))
    labels: dict[str, tuple[str, ...]] = {}
    label_sets = getattr(meta, "variable_value_labels", None) or {}
    for column, mapping in label_sets.items():
        if not mapping:
            continue
        labels[column] = tuple(str(v) for v in mapping.values())
        frame[column] = frame[column].map(lambda v, m=mapping: m.get(v, v) if pd.notna(v) else v)
    return Table(frame=frame, source=path, file_format=kind, value_labels=labels)


# ---------------------------------------------------------------- proposals

_ID_NAME = re.compile(r"(^|[_\W])(id|key|identifier|uuid)($|[_\W])|^id[A-Z0-9_]|Id$|ID$", re.IGNORECASE)
_MAX_PROPOSED_CATEGORIES = 50


def propose_kinds(table: Table) -> tuple[ColumnProposal, ...]:
    """A proposed kind for every column, from its storage type and name; the user confirms.

    Nothing here is released: proposals stay on the curator's screen.
    """
    return tuple(_propose(table, str(name)) for name in table.frame.columns)


def _propose(table: Table, name: str) -> ColumnProposal:
    series = table.frame[name]
    storage = str(series.dtype)
    if name in table.value_labels:
        return ColumnProposal(
            name, storage, ColumnKind.CATEGORICAL, "the file gives value labels", table.value_labels[name]
        )
    if series.isna().all():
        return ColumnProposal(name, storage, ColumnKind.IGNORED, "every value is missing")
    if _ID_NAME.search(name):
        return ColumnProposal(name, storage, ColumnKind.IDENTIFIER, "the name looks like an identifier")
    if pd.api.types.is_bool_dtype(series):
        return ColumnProposal(name, storage, ColumnKind.CATEGORICAL, "yes/no values")
    if pd.api.types.is_numeric_dtype(series):
        return ColumnProposal(name, storage, ColumnKind.NUMERIC, "the values are numbers")
    distinct = series.nunique(dropna=True)
    if distinct <= _MAX_PROPOSED_CATEGORIES:
        return ColumnProposal(name, storage, ColumnKind.CATEGORICAL, "text with few distinct values")
    if distinct >= 0.9 * series.notna().sum():
        return ColumnProposal(name, storage, ColumnKind.IDENTIFIER, "text that is nearly unique per row")
    return ColumnProposal(name, storage, ColumnKind.IGNORED, "free text with many distinct values")
