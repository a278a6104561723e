"""A digest of a table's content, the same whatever file format, row order or column order it came in.

The ledger recognises a data file by a keyed hash of its bytes; the same table saved as .sav
instead of .csv, or sorted differently, has other bytes and would start with a fresh budget.
This digest is of what was loaded: every column's name and values, canonicalised so that
the readers' differences (an integer read as 1 or 1.0, a missing value as NaN, None or an
empty string, SPSS's padded strings, a date as a string or a timestamp) do not matter, and
combined so that neither the order of rows nor that of columns does. It never leaves memory:
the ledger stores only its HMAC under the ledger's own key (``Ledger.content_fingerprint``).
"""

from __future__ import annotations

import hashlib
import numbers

import numpy as np
import pandas as pd

_MISSING = np.uint64(0x9E3779B97F4A7C15)  # the hash of a missing value, whatever its type
_MIX = np.uint64(0x100000001B3)
_MANTISSA_BITS = 33  # about 10 significant digits: absorbs text round-trips, keeps real differences


def content_digest(frame: pd.DataFrame) -> bytes:
    """SHA-256 over the sorted per-row hashes of ``frame`` (each row's cells keyed by column name)."""
    names = sorted(str(column).strip() for column in frame.columns)
    by_name = {str(column).strip(): frame[column] for column in frame.columns}
    rows = np.zeros(len(frame), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for name in names:
            key = _string_hashes(np.array([name], dtype=object))[0]
            rows = rows * _MIX ^ (_cell_hashes(by_name[name]) ^ key)
    digest = hashlib.sha256(f"{len(frame)} rows; columns {names!r}".encode())
    digest.update(np.sort(rows).tobytes())
    return digest.digest()


def _cell_hashes(column: pd.Series) -> np.ndarray:
    if pd.api.types.is_bool_dtype(column):
        return _number_hashes(column.astype("float64").to_numpy())
    if pd.api.types.is_numeric_dtype(column):
        return _number_hashes(column.astype("float64").to_numpy(na_value=np.nan))
    if pd.api.types.is_datetime64_any_dtype(column):
        return _string_hashes(_date_texts(column))
    if pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty"):  # text only: each distinct text once
        codes, distinct = pd.factorize(column, use_na_sentinel=True)
        hashes = np.append(_string_hashes(np.array([str(t).strip() for t in distinct], dtype=object)), _MISSING)
        return hashes[codes]  # the sentinel -1 picks the missing hash
    values = column.astype(object).to_numpy()
    hashes = np.empty(len(values), dtype=np.uint64)
    is_number = np.fromiter((isinstance(v, numbers.Real) and not _missing(v) for v in values), bool, len(values))
    if is_number.any():
        hashes[is_number] = _number_hashes(values[is_number].astype(np.float64))
    if (~is_number).any():
        texts = np.array([None if _missing(v) else str(v).strip() for v in values[~is_number]], dtype=object)
        hashes[~is_number] = _string_hashes(texts)
    return hashes


def _number_hashes(values: np.ndarray) -> np.ndarray:
    """Hashes of numbers rounded to 33 mantissa bits (on the bits themselves: adding half of the dropped
    part and masking rounds, a carry moving into the exponent as it should)."""
    values = np.asarray(values, dtype=np.float64)
    missing = np.isnan(values)
    bits = (np.where(missing, 0.0, values) + 0.0).view(np.uint64)  # + 0.0: -0.0 becomes 0.0
    dropped = 52 - _MANTISSA_BITS
    with np.errstate(over="ignore"):
        rounded = (bits + np.uint64(1 << (dropped - 1))) & ~np.uint64((1 << dropped) - 1)
        hashes = _mix(rounded)
    hashes[missing] = _MISSING
    return hashes


def _mix(values: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: every input bit moves about half of the output bits."""
    with np.errstate(over="ignore"):
        z = values * np.uint64(0xBF58476D1CE4E5B9)
        z ^= z >> np.uint64(27)
        z *= np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _string_hashes(texts: np.ndarray) -> np.ndarray:
    """Hashes of texts; None and the empty text are missing."""
    missing = pd.isna(texts) | (texts == "")
    hashes = pd.util.hash_array(np.where(missing, "", texts).astype(object), categorize=False)
    hashes[missing] = _MISSING
    return hashes


def _date_texts(column: pd.Series) -> np.ndarray:
    """ISO dates where every time is midnight (as a CSV writes a date), else full timestamps."""
    stamps = pd.to_datetime(column)
    midnight = bool((stamps.dropna() == stamps.dropna().dt.normalize()).all())
    texts = stamps.dt.strftime("%Y-%m-%d" if midnight else "%Y-%m-%d %H:%M:%S.%f")
    return np.array([None if pd.isna(t) else t for t in texts], dtype=object)


def _missing(value: object) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and value != value
