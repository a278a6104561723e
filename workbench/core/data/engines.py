"""Which engine computes a release's exact answers: pandas in memory, DuckDB on the file, or Spark.

Both give identical answers (``tests/core/data/test_out_of_core``); the choice is about memory.
pandas holds about three times a CSV's size while reading it (a Parquet file, compressed, about
five times); a release then prepares a typed copy of each column its plan uses, about 40 bytes a
value at its peak (a 3 GB CSV of 30 million rows and four used columns peaked at 4.5 times the
file, not the three reading alone suggests). When the estimate would take more than half of this
machine's memory, the file is read out of core; ``EngineDecision.in_words`` says which and why.
"""

from __future__ import annotations

import enum
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from workbench.core.data.io import local_path
from workbench.core.data.out_of_core import OUT_OF_CORE_SUFFIXES

IN_MEMORY_EXPANSION = {".parquet": 5.0, ".pq": 5.0}  # pandas' memory per byte of file; text files: 3
MEMORY_SHARE = 0.5  # the share of the machine's memory a table may take in pandas before it is read out of core
BYTES_PER_PREPARED_VALUE = 40  # a used column's typed copy and its conversion's temporaries, per row, at the peak
HEAD_BYTES = 1 << 16  # the start of a text file, read to estimate its rows from the length of its lines


class EngineChoice(enum.Enum):
    AUTO = "auto"
    MEMORY = "memory"
    OUT_OF_CORE = "out-of-core"
    SPARK = "spark"  # only when asked for: the table lives on a cluster


@dataclass(frozen=True)
class EngineDecision:
    """AUTO's choice for one file and plan, with the estimate it rests on (for the user to read)."""

    out_of_core: bool
    peak: int  # the estimated peak memory of reading and preparing the file in pandas, in bytes
    memory: int  # this machine's memory
    columns: int | None  # the plan's used columns the estimate counts, None when no plan was given
    readable_out_of_core: bool = True  # CSV, TSV and Parquet; other formats are always read in memory

    def estimate_words(self) -> str:
        used = "" if self.columns is None else f" and the {self.columns} column{'s' * (self.columns != 1)} used"
        return (f"pandas would take about {gigabytes(self.peak)} at its peak for this file{used}, "
                f"{'more' if self.out_of_core else 'less'} than half of this machine's {gigabytes(self.memory)}")

    def in_words(self) -> str:
        """Which engine and why; never the file's name (the output of a release may be shared, DESIGN rule 8)."""
        estimate = self.estimate_words()
        if self.out_of_core:
            return f"Reading the data file out of core (DuckDB on the file): {estimate}."
        if not self.readable_out_of_core:
            return f"Reading the data file in memory (pandas; only CSV, TSV and Parquet can be read out of core): {estimate}."
        return f"Reading the data file in memory (pandas): {estimate}."


def choose_engine(path: str | Path, used_columns: int | None = None, memory: int | None = None) -> EngineDecision:
    """AUTO's choice for ``path``: out of core when reading it, and preparing ``used_columns`` columns of it,
    would take more than half of ``memory`` (this machine's, unless given). Without a plan, only the reading
    is counted. Other formats than CSV, TSV and Parquet are always read in memory."""
    path = local_path(path)
    suffix = path.suffix.lower()
    memory = memory or physical_memory()
    size = path.stat().st_size if path.is_file() else 0
    peak = int(size * IN_MEMORY_EXPANSION.get(suffix, 3.0))
    if used_columns:
        peak += estimated_rows(path, size) * used_columns * BYTES_PER_PREPARED_VALUE
    readable = suffix in OUT_OF_CORE_SUFFIXES and path.is_file()
    return EngineDecision(readable and peak > MEMORY_SHARE * memory, peak, memory, used_columns, readable)


def estimated_rows(path: Path, size: int) -> int:
    """Rows of a text file from the length of its first lines (a Parquet file: its metadata's count)."""
    if path.suffix.lower() in IN_MEMORY_EXPANSION:
        try:
            import pyarrow.parquet as pq

            return int(pq.ParquetFile(path).metadata.num_rows)
        except Exception:  # an unreadable file is reported by the reader that opens it
            return 0
    try:
        with path.open("rb") as file:
            head = file.read(HEAD_BYTES)
    except OSError:
        return 0
    lines = head.count(b"\n")
    return int(size * lines / len(head)) if lines and head else 0


def gigabytes(size: int) -> str:
    if size >= 1 << 30:
        return f"{size / (1 << 30):.1f} GB"
    return f"{size / (1 << 20):.0f} MB" if size >= 1 << 20 else "less than 1 MB"


def out_of_core_is_needed(path: str | Path, memory: int | None = None) -> bool:
    """Whether ``path`` should be read out of core (AUTO) to be loaded whole, as step 1 and ``inspect`` load it."""
    return choose_engine(path, None, memory).out_of_core


def physical_memory() -> int:
    """This machine's memory in bytes (8 GB where the system does not say)."""
    try:
        if sys.platform == "win32":
            import ctypes

            class Status(ctypes.Structure):
                _fields_ = [("length", ctypes.c_ulong), ("load", ctypes.c_ulong), ("total", ctypes.c_ulonglong),
                            ("available", ctypes.c_ulonglong), ("page_total", ctypes.c_ulonglong),
                            ("page_available", ctypes.c_ulonglong), ("virtual_total", ctypes.c_ulonglong),
                            ("virtual_available", ctypes.c_ulonglong), ("extended", ctypes.c_ulonglong)]

            status = Status()
            status.length = ctypes.sizeof(Status)
            ctypes.windll.kernel32.GlobalMemoryStatusEx(ctypes.byref(status))  # type: ignore[attr-defined]
            return int(status.total)
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, OSError, ValueError):
        return 8 << 30
