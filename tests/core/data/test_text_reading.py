"""A text file's header, its columns as Arrow's text, and a column read piece by piece: the shortcuts taken for speed
read every name and value as the slower way did."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from workbench.core.data import reading, text_files
from workbench.core.data.io import load_table
from workbench.core.data.text_files import TextFormat, column_names, read_table
from workbench.core.errors import DataFileError, SchemaError


def _opener(path):
    return lambda: path.open("rb")


def _names_both_ways(path, text_format, monkeypatch):
    """The header's names read from a small block first (as loaded), and from the large block alone (as before)."""
    first = column_names(_opener(path), text_format, path.name)
    with monkeypatch.context() as patched:
        patched.setattr(text_files, "HEADER_BYTES", text_files.BLOCK_BYTES)
        alone = column_names(_opener(path), text_format, path.name)
    return first, alone


@pytest.mark.parametrize("width", [3, 4000])
def test_a_header_is_read_alike_whether_or_not_it_fits_the_first_small_block(tmp_path, monkeypatch, width):
    """4,000 names of 20 characters are wider than ``HEADER_BYTES``: read again from a large block, as before."""
    names = [f'"name {i:05d}, with a comma and ""quotes"""' if i % 7 == 0 else f"column_{i:012d}"
             for i in range(width)]
    path = tmp_path / "wide.csv"
    path.write_text("\n\n" + ",".join(names) + "\n" + ",".join(str(i) for i in range(width)) + "\n", encoding="utf-8")
    header = len(",".join(names).encode())
    assert (header > text_files.HEADER_BYTES) == (width > 3)
    first, alone = _names_both_ways(path, TextFormat(",", "utf-8"), monkeypatch)
    assert first == alone
    assert first[0] == 'name 00000, with a comma and "quotes"' and first[1] == "column_000000000001"
    table = load_table(path)
    assert list(table.frame.columns) == [name.strip() for name in first]
    assert table.frame.iloc[0, -1] == str(width - 1)


def test_a_utf16_header_is_read_alike_from_the_small_block(tmp_path, monkeypatch):
    path = tmp_path / "t.csv"
    pd.DataFrame({"Straße": ["a"], "año": ["b"]}).to_csv(path, index=False, encoding="utf-16")
    first, alone = _names_both_ways(path, TextFormat(",", "utf-16"), monkeypatch)
    assert first == alone == ["Straße", "año"]


@pytest.mark.parametrize("content", [b'a,"b\n1,2\n', b"a,b", b"\n\n\n"])
def test_a_header_arrow_cannot_read_is_refused_as_before(tmp_path, monkeypatch, content):
    """A header that fails in the small block fails again in the large one, whose failure is the message."""
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    messages = []
    for block in (text_files.HEADER_BYTES, text_files.BLOCK_BYTES):
        with monkeypatch.context() as patched:
            patched.setattr(text_files, "HEADER_BYTES", block)
            try:
                messages.append(column_names(_opener(path), TextFormat(",", "utf-8"), path.name))
            except DataFileError as refused:
                messages.append(str(refused))
    assert messages[0] == messages[1]


def test_the_table_is_read_as_pandas_keeps_text_and_the_frame_takes_it_as_it_is(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n 1 ,x\n,NA\n", encoding="utf-8")
    table = read_table(_opener(path), TextFormat(",", "utf-8"), path.name)
    assert [field.type for field in table.schema] == [pa.large_string(), pa.large_string()]
    frame = load_table(path).frame
    assert frame["a"].tolist() == [" 1 ", ""] and frame["b"].tolist() == ["x", "NA"]


def _chunked(values, sizes, dtype):
    """A text column of several Arrow chunks (as a CSV read block by block gives), as pandas holds it."""
    chunks, start = [], 0
    for size in sizes:
        chunks.append(pa.array(values[start:start + size], pa.large_string()))
        start += size
    return pd.Series(pd.arrays.ArrowStringArray(pa.chunked_array(chunks))).astype(dtype)


@pytest.mark.parametrize("dtype", ["str", "string[pyarrow]", "string[python]", object])
def test_the_distinct_values_of_a_column_of_many_chunks_are_pandas_own(dtype):
    """Each chunk brings values of its own (and missing ones): the codes and values are factorize's."""
    values = ["b", None, "a", "b", "c", None, "d", "a", "e", "e", "f", "b"]
    series = _chunked(values, [3, 0, 4, 5], dtype)
    codes, uniques = reading._distinct(series)
    expected_codes, expected = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    assert codes.tolist() == expected_codes.tolist()
    assert reading._listed(uniques) == list(expected)
    empty_codes, empty = reading._distinct(pd.Series([], dtype=dtype))
    assert len(empty_codes) == 0 and reading._listed(empty) == []


def test_a_numeric_text_column_read_piece_by_piece_reads_as_by_distinct_value(monkeypatch):
    """Pieces of 7 rows: the spellings fall on both sides of their edges, truth words and missing values included;
    read alike bit for bit, and a column refused names the same first value and count."""
    monkeypatch.setattr(reading, "_PIECE_ROWS", 7)
    spellings = ["1e400", "-inf", " 0.1 ", "+.5", "5.", "-0", "NA", "", "True", "false", "\u00a0 7 \u2003", "00012",
                 "1.7976931348623159e308", "4.9e-324", "n/a", "TRUE"] * 3
    series = _chunked(spellings, [5, 20, 0, len(spellings) - 25], "str")
    by_row = reading._text_numbers(series).checked("x", "f.csv")
    by_distinct = reading.read_numbers(series, "x", "f.csv")  # few distinct values: read by distinct value
    assert by_row.tobytes() == by_distinct.tobytes()
    bad = spellings[:9] + ["1_000"] + spellings[9:20] + ["12 eggs", "1_000"] + spellings[20:]
    messages = []
    for read in (reading.read_numbers, _by_row):
        with pytest.raises(SchemaError) as refused:
            read(_chunked(bad, [4, len(bad) - 4], "str"), "x", "f.csv")
        messages.append(str(refused.value))
    assert messages[0] == messages[1] and "3 of its values are not numbers (for example '1_000')" in messages[0]


def test_a_text_column_trimmed_piece_by_piece_keeps_every_row_in_order(monkeypatch):
    monkeypatch.setattr(reading, "_PIECE_ROWS", 3)
    values = [" a", "NA", "b ", "", None, "c", "\u3000d\u3000", "null", "e"]
    texts = reading.value_texts(_chunked(values, [2, 7], "str"))
    assert texts.tolist() == ["a", None, "b", None, None, "c", "d", None, "e"]
    assert np.all(texts.index == np.arange(len(values)))


def _by_row(series, column, file_name):
    """``reading._text_numbers`` (Arrow's kernels, row by row), refusing as ``read_numbers`` does."""
    return reading._text_numbers(series).checked(column, file_name)


@pytest.mark.parametrize("part", [1, 3, 1 << 24])
def test_a_string_array_is_searched_for_line_breaks_in_its_own_values_only(monkeypatch, part):
    """The search reads a slice's values only (its buffers hold its neighbours' too), in parts of any size."""
    import pyarrow as pa

    monkeypatch.setattr(text_files, "_SEARCHED_BYTES", part)
    for kind in (pa.string(), pa.large_string()):
        values = pa.array(["a\nb", "c", None, "dd", "e\r", "f"], kind)
        assert text_files._holds_break(values)
        assert not text_files._holds_break(values.slice(1, 3))
        assert text_files._holds_break(values.slice(2, 3))
        assert not text_files._holds_break(values.slice(5, 1)) and not text_files._holds_break(values.slice(6, 0))
