"""Which engine computes a release's exact answers: pandas in memory, DuckDB on the file, or Spark.

Both give identical answers (``tests/core/data/test_out_of_core``); the choice is about memory.
pandas holds about three times a CSV's size (a Parquet file, compressed, about five times); when
that would take more than half of this machine's memory, the file is read out of core.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path

from workbench.core.data.out_of_core import OUT_OF_CORE_SUFFIXES

IN_MEMORY_EXPANSION = {".parquet": 5.0, ".pq": 5.0}  # pandas' memory per byte of file; text files: 3
MEMORY_SHARE = 0.5  # the share of the machine's memory a table may take in pandas before it is read out of core


class EngineChoice(enum.Enum):
    AUTO = "auto"
    MEMORY = "memory"
    OUT_OF_CORE = "out-of-core"
    SPARK = "spark"  # only when asked for: the table lives on a cluster


def out_of_core_is_needed(path: str | Path, memory: int | None = None) -> bool:
    """Whether ``path`` should be read out of core (AUTO): a CSV, TSV or Parquet file that pandas would hold
    in more than half of ``memory`` (this machine's, unless given). Other formats are always read in memory."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in OUT_OF_CORE_SUFFIXES or not path.is_file():
        return False
    needed = path.stat().st_size * IN_MEMORY_EXPANSION.get(suffix, 3.0)
    return needed > MEMORY_SHARE * (memory or physical_memory())


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
