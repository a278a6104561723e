"""A text file streamed to the out-of-core engine is read only a few blocks ahead of the rows taken from it (Arrow's
own reading thread would read 32 blocks, 128 MB, ahead), and the rows are those of a reading without pacing."""

from __future__ import annotations

import io
import math
import sys
import time
from pathlib import Path
from typing import Callable

import pyarrow as pa
import pyarrow.csv as pa_csv
import pytest

from workbench.core.data import text_files
from workbench.core.data.text_files import BLOCK_BYTES, STREAM_AHEAD_BLOCKS, TextFormat, column_names, stream


class _Counting(io.RawIOBase):
    def __init__(self, path: Path) -> None:
        super().__init__()
        self._file = path.open("rb")
        self.bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        count = self._file.readinto(buffer) or 0
        self.bytes += count
        return count

    def close(self) -> None:
        self._file.close()
        super().close()


def _file(folder: Path, encoding: str) -> Path:
    path = folder / f"rows-{encoding}.csv"
    lines = ["id,name,note"] + [f'{i},Zoë {i % 97},"line {i}, ""next"""' if i % 11 == 0 else f"{i},Ève,{'x' * (i % 40)}"
                                for i in range(1_200_000)]
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    return path


def _stream(path: Path, encoding: str) -> tuple[pa.RecordBatchReader, list[_Counting], Callable[[], None]]:
    text_format = TextFormat(",", encoding, True)
    opened: list[_Counting] = []

    def open_file() -> _Counting:
        opened.append(_Counting(path))
        return opened[-1]

    names = column_names(lambda: path.open("rb"), text_format, path.name)
    reader, _, close = stream(open_file, text_format, path.name, [f"c{i}" for i in range(len(names))])
    return reader, opened, close


@pytest.mark.timeout(600)  # a batch waiting on a block held back would wait for ever: the test would hang, and fail
def test_a_utf8_stream_reads_a_few_blocks_ahead_of_what_is_taken(tmp_path, monkeypatch):
    monkeypatch.setattr(text_files._Paced, "_PATIENCE", math.inf)  # no reading on regardless: pacing alone
    path = _file(tmp_path, "utf-8")
    assert path.stat().st_size > 8 * BLOCK_BYTES
    reader, opened, _ = _stream(path, "utf-8")
    first = reader.read_next_batch()
    time.sleep(0.5)  # Arrow's reading thread would read the whole file meanwhile
    assert opened[-1].bytes <= (STREAM_AHEAD_BLOCKS + 1) * BLOCK_BYTES
    batches = [first, *reader]
    expected = pa_csv.read_csv(path, *TextFormat(",", "utf-8", True).options(["id", "name", "note"]))
    assert pa.Table.from_batches(batches).rename_columns(expected.column_names).equals(expected)


@pytest.mark.timeout(600)
def test_a_transcoded_stream_reads_every_row(tmp_path, monkeypatch):
    monkeypatch.setattr(text_files._Paced, "_PATIENCE", math.inf)
    for encoding in ("utf-16", "cp1252"):
        path = _file(tmp_path, encoding)
        reader, _, _ = _stream(path, encoding)
        table = reader.read_all()
        expected = pa_csv.read_csv(path, *TextFormat(",", encoding, True).options(["id", "name", "note"]))
        assert table.rename_columns(expected.column_names).equals(expected)


def _inside_pace() -> bool:
    for frame in sys._current_frames().values():
        while frame is not None:
            if frame.f_code.co_name == "_pace":
                return True
            frame = frame.f_back
    return False


def test_a_stream_left_part_way_lets_go_of_the_file_and_the_reading_thread(tmp_path):
    """Cancel or a failure leaves the stream before its end: Arrow's reading thread, held back by the pacing, and the
    file it holds open must be let go when the stream is closed, not when (if ever) the stream is collected."""
    path = _file(tmp_path, "utf-8")
    reader, opened, close = _stream(path, "utf-8")
    reader.read_next_batch()
    for _ in range(200):  # the reading thread reads its few blocks ahead and is held back
        if _inside_pace():
            break
        time.sleep(0.05)
    assert _inside_pace(), "the reading thread was never held back: nothing to let go of"
    close()
    assert opened[-1].closed
    for _ in range(200):
        if not _inside_pace():
            break
        time.sleep(0.05)
    assert not _inside_pace()
    del reader
