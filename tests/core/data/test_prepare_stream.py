"""A text file prepared block by block as it is read (``prepare_stream``, the command line's in-memory release) gives
what ``prepare`` gives of the whole loaded table, bit for bit: the same prepared columns, the same presences of the
public categories (so the same warnings), the same refusal of a value that is not a number, raised only when the
prepared data are asked for, and the same content digest."""

import numpy as np
import pandas as pd
import pytest

from workbench.core.data import load_table, prepare, reading, text_files
from workbench.core.data.prepare_stream import BlockPreparer
from workbench.core.data.reading import counted_numbers, read_numbers
from workbench.core.data.schema import (
    CategoricalColumn,
    IdentifierColumn,
    MissingAction,
    MissingPolicy,
    NumericColumn,
    OutsideCategories,
    PrivacyUnit,
    Schema,
)
from workbench.core.errors import SchemaError
from workbench.core.release.category_check import _presences

ROWS = 6000
REGIONS = tuple(f"Region {i}" for i in range(60))


def _real_like(rows: int = ROWS, seed: int = 39) -> pd.DataFrame:
    """Columns shaped like a survey's: many-category text in mixed spellings and spaces, 0/1 codes written several
    ways, skewed incomes with ties, ages, missing values in every spelling, and a column no plan reads."""
    rng = np.random.default_rng(seed)
    region = np.array(REGIONS + ("region 3", " Region 4 ", "REGION 5", "Elsewhere"), dtype=object)[
        np.minimum(rng.zipf(1.3, rows) - 1, len(REGIONS) + 3)]
    missing = np.array(["", "NA", " ", "n/a", "null", "NaN"], dtype=object)
    income = np.round(rng.lognormal(10, 1.2, rows), 2).astype(str).astype(object)
    income[rng.random(rows) < 0.2] = "25000"  # ties
    holes = rng.random(rows) < 0.15
    income[holes] = rng.choice(missing, holes.sum())
    employed = rng.choice(np.array(["0", "1", "1.0", " 1", "0 ", "True", "false", "", "NA"], dtype=object), rows)
    code = rng.choice(np.array(["0", "1", "01", "1.0", "", "2"], dtype=object), rows)
    age = rng.integers(-5, 120, rows).astype(str).astype(object)
    age[rng.random(rows) < 0.03] = ""
    return pd.DataFrame({"id": np.arange(rows).astype(str), "region": region, "income": income,
                         "employed": employed, "code": code, "age": age,
                         "note": rng.choice(np.array(["a", "b,c", 'say "hi"'], dtype=object), rows)})


def _schema(unit: PrivacyUnit | None = None, *extra) -> Schema:
    columns = (
        CategoricalColumn("region", categories=REGIONS[:40] + ("Region 59",), outside=OutsideCategories.OTHER),
        NumericColumn("income", 0, 200_000),
        NumericColumn("employed", 0, 1, missing=MissingPolicy(MissingAction.IMPUTE, 0)),
        CategoricalColumn("code", categories=("0", "1"), outside=OutsideCategories.DROP,
                          missing=MissingPolicy(MissingAction.IMPUTE, "1")),
        NumericColumn("age", 18, 99),
        *extra,
    )
    return Schema(columns, unit=unit or PrivacyUnit())


@pytest.fixture
def small_blocks(monkeypatch):
    """Arrow's reading blocks of 4 kB: a file of a few hundred kB spans many blocks."""
    monkeypatch.setattr(text_files, "BLOCK_BYTES", 1 << 12)


def _both(path, schema: Schema):
    """The whole table loaded and prepared, and the file prepared as it is read; the second's blocks counted."""
    columns = [spec.name for spec in schema.columns]
    whole = load_table(path, columns=columns)
    preparing = BlockPreparer(schema, path.name)
    blocks = []
    real_add = preparing.add
    preparing.add = lambda block, names: (blocks.append(block.num_rows), real_add(block, names))[1]
    streamed = load_table(path, columns=columns, prepare=preparing)
    assert preparing.streamed and len(streamed.frame) == 0 and len(blocks) > 10
    return whole, streamed, preparing


@pytest.mark.parametrize("few_values", [None, 8])
def test_a_file_prepared_as_it_is_read_is_prepared_as_the_whole_table(tmp_path, small_blocks, monkeypatch,
                                                                      few_values):
    """``few_values``: a block of more distinct values than this is read by Arrow's kernels (``_text_numbers``), its
    first rows too (``_mostly_distinct``); so the blocks are read both ways, and the whole column the other way."""
    by_kernels, real = [], reading._text_numbers
    monkeypatch.setattr(reading, "_text_numbers", lambda series: (by_kernels.append(len(series)), real(series))[1])
    if few_values is not None:
        monkeypatch.setattr(reading, "_FEW_VALUES", few_values)
        monkeypatch.setattr(reading, "_SAMPLE_ROWS", 2 * few_values)
    path = tmp_path / "survey.csv"
    _real_like().to_csv(path, index=False)
    schema = _schema()
    whole, streamed, preparing = _both(path, schema)
    try:
        expected, got = prepare(whole, schema), preparing.prepared()
        assert got.rows == expected.rows == ROWS
        assert set(got._columns) == set(expected._columns) == {"region", "income", "employed", "code", "age"}
        for name, values in expected._columns.items():
            assert got._columns[name].dtype == values.dtype, name
            assert got._columns[name].tobytes() == values.tobytes(), name  # NaN, clamps and imputes included
        # the ledger recognises the file by the same digest, however it was read
        assert streamed.pending_digest.result() == whole.pending_digest.result()
        # the presences of the public categories, so the category check's warnings, are the whole file's
        specs = [s for s in schema.columns if isinstance(s, CategoricalColumn)]
        assert preparing.presences == _presences(whole, specs, None)
        assert preparing.presences["region"].outside >= {"region 3", "REGION 5", "Elsewhere"}
        # the whole column of incomes is read by Arrow's kernels; its blocks by distinct value, or by the kernels too
        assert by_kernels == [ROWS] if few_values is None else (ROWS in by_kernels and len(by_kernels) > 10)
    finally:
        whole.abandon_digest()
        streamed.abandon_digest()


def test_a_value_not_a_number_is_refused_when_the_prepared_data_are_asked_for(tmp_path, small_blocks):
    """The same count and the same first value in file order as the whole column's refusal, and only then: the
    release asks for the prepared data after the ledger's refusals. The first refused column of the schema's order
    is named, as ``prepare`` names it."""
    frame = _real_like()
    frame.loc[4000, "age"] = " twelve "
    frame.loc[[4100, 5900], "age"] = "1_000"
    frame.loc[[10, 5000], "income"] = "12 eggs"  # in a column earlier in the schema, later in the file
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    schema = _schema()
    whole, streamed, preparing = _both(path, schema)  # nothing refused while reading
    try:
        with pytest.raises(SchemaError) as as_whole:
            prepare(whole, schema)
        with pytest.raises(SchemaError) as as_read:
            preparing.prepared()
        assert str(as_read.value) == str(as_whole.value)
        assert "'income'" in str(as_read.value) and "2 of its values are not numbers (for example '12 eggs')" in \
            str(as_read.value)
        # the next column's count and example, as its whole column's
        age = load_table(path).frame["age"]
        with pytest.raises(SchemaError) as whole_age:
            read_numbers(age, "age", path.name)
        assert "3 of its values are not numbers (for example 'twelve')" in str(whole_age.value)
        assert (preparing._bad["age"].bad, preparing._bad["age"].example) == (3, "twelve")
    finally:
        whole.abandon_digest()
        streamed.abandon_digest()


def test_counted_numbers_of_blocks_add_up_to_the_whole_columns():
    """The values, the count of values that are not numbers, and the first of them, whatever the blocks and whichever
    way a block is read (by distinct value, or by Arrow's kernels when most of its first values are distinct)."""
    rng = np.random.default_rng(5)
    clean = np.round(rng.lognormal(10, 1, 9000), 1).astype(str).astype(object)
    clean[rng.integers(0, 9000, 500)] = rng.choice(np.array(["", " NA", "True", "1e3", "-0", "inf"], dtype=object), 500)
    values = clean.copy()
    values[rng.integers(0, 9000, 40)] = "x"
    values[1777], values[2900] = "1,5", "0x10"
    for data in (clean, values):
        column = pd.Series(data, dtype="str")
        whole = counted_numbers(column, "v", "f.csv")
        for size in (7, 100, 1000, 4500, 8999):
            blocks = [column.iloc[i:i + size].reset_index(drop=True) for i in range(0, len(column), size)]
            parts = [counted_numbers(block, "v", "f.csv") for block in blocks]
            assert sum(p.bad for p in parts) == whole.bad
            if whole.bad:
                assert next(p.example for p in parts if p.bad) == whole.example
            else:
                assert np.concatenate([p.values for p in parts]).tobytes() == whole.values.tobytes()
            if size == 4500:  # a block this long, of mostly distinct values, goes to Arrow's kernels at once
                assert reading._mostly_distinct(blocks[0])


def test_a_person_level_plan_is_prepared_from_the_whole_text():
    """Rows without an id and each person's rows past the first k are left out by what other rows hold: the text
    path (``prepare`` of the loaded table), not block by block."""
    assert BlockPreparer.streams(_schema())
    assert not BlockPreparer.streams(_schema(PrivacyUnit("id", 2), IdentifierColumn("id")))


def test_a_file_without_every_column_or_not_text_is_loaded_as_without_it(tmp_path):
    """A plan's column the file does not hold: the whole file is loaded, and ``prepare`` names the file's columns as
    before; another format: loaded whole as before."""
    frame = _real_like(200)
    path = tmp_path / "short.csv"
    frame.drop(columns=["age"]).to_csv(path, index=False)
    schema = _schema()
    preparing = BlockPreparer(schema, path.name)
    table = load_table(path, columns=[s.name for s in schema.columns], prepare=preparing)
    try:
        assert not preparing.streamed and len(table.frame) == 200 and "note" in table.columns
        with pytest.raises(SchemaError, match="'age'"):
            prepare(table, schema)
    finally:
        table.abandon_digest()
    parquet = tmp_path / "survey.parquet"
    frame.to_parquet(parquet, index=False)
    preparing = BlockPreparer(schema, parquet.name)
    table = load_table(parquet, columns=[s.name for s in schema.columns], prepare=preparing)
    try:
        assert not preparing.streamed and len(table.frame) == 200
    finally:
        table.abandon_digest()


def test_a_file_of_column_names_and_no_rows_is_refused_as_before(tmp_path):
    path = tmp_path / "empty.csv"
    path.write_text("id,region,income,employed,code,age,note\n")
    schema = _schema()
    refusals = []
    for preparing in (None, BlockPreparer(schema, path.name)):
        with pytest.raises(Exception) as refused:
            load_table(path, columns=[s.name for s in schema.columns], prepare=preparing)
        refusals.append((type(refused.value), str(refused.value)))
    assert refusals[0] == refusals[1] and "no rows" in refusals[0][1]


def test_an_unsound_schema_is_refused_before_any_block_is_read():
    """As ``prepare`` refuses it (a bound missing), not with a bare TypeError from the first block (found by review)."""
    with pytest.raises(SchemaError, match="no upper bound"):
        BlockPreparer(Schema((NumericColumn("income", 0, None),), unit=PrivacyUnit()), "survey.csv")


@pytest.mark.parametrize("header", ["region,income,region,employed,code,age", "region,income,,employed,code,age",
                                    "region,income, income ,employed,code,age", "region,income,employed,code,age,age"],
                         ids=["repeated plan column", "unnamed", "repeated once trimmed", "repeated last"])
def test_a_header_with_repeated_or_missing_names_is_refused_alike_when_prepared_as_it_is_read(tmp_path, header):
    """The same refusal, word for word, whether the file is loaded whole, narrowed to the plan's columns, or prepared
    as it is read: a name the header repeats (even once trimmed) or leaves out is never read as one of them."""
    path = tmp_path / "header.csv"
    path.write_text(header + "\n" + "\n".join(["Region 1,100,200,1,0,30"] * 50) + "\n", encoding="utf-8")
    schema = _schema()
    columns = [s.name for s in schema.columns]
    refusals = []
    for options in ({}, {"columns": columns}, {"columns": columns, "prepare": BlockPreparer(schema, path.name)}):
        with pytest.raises(Exception) as refused:
            load_table(path, **options)
        refusals.append((type(refused.value).__name__, str(refused.value)))
    assert refusals[0] == refusals[1] == refusals[2], refusals
    assert "name" in refusals[0][1], refusals[0]


def test_an_interrupt_while_a_file_is_prepared_as_it_is_read_stops_its_hashing(tmp_path, small_blocks, monkeypatch):
    """Ctrl-C (or Cancel) during the reading: the interrupt reaches the caller, and the hashing of the file's
    columns is abandoned at once, its connection closed, its thread ended (the process does not wait at its exit
    for hashing no one will use)."""
    from tests.core.data.test_digest_stream import _abandoned, _ended

    abandoned = _abandoned(monkeypatch)
    path = tmp_path / "survey.csv"
    _real_like().to_csv(path, index=False)
    schema = _schema()
    preparing = BlockPreparer(schema, path.name)
    blocks, real_add = [], preparing.add

    def interrupted(block, names):
        blocks.append(block.num_rows)
        if len(blocks) == 5:
            raise KeyboardInterrupt
        real_add(block, names)

    preparing.add = interrupted
    with pytest.raises(KeyboardInterrupt):
        load_table(path, columns=[s.name for s in schema.columns], prepare=preparing)
    (stream,) = abandoned
    assert _ended(stream) and len(blocks) == 5
