"""Each value is read by itself (DESIGN rule 3): one person added, removed or substituted leaves every other
person's prepared values as they were, in every engine (in memory, out of core, Spark), on text files in four
encodings and on Parquet; and the three engines prepare the same values from the same file. The same check
catches the reading this project had before, which typed each column by all of its values.

The tables (``reading_tables``) hold what broke that reading: numeric-looking codes with leading zeros, whole
and fractional values mixed, ±0, white space of every kind, missing-value words, Excel serial dates beside ISO
dates, truth values in several spellings, and ids that would merge or split persons."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reading_tables import TEXT_FORMATS, children, children_schema, neighbour_pairs, old_reading, schema, tag_of, write

from workbench.core.data import load_table, prepare
from workbench.core.data.out_of_core import OutOfCoreData, file_source
from workbench.core.data.schema import CategoricalColumn, NumericColumn, Schema
from workbench.core.data.spark_engine import SparkData, spark_source

Prepared = dict[int, tuple]  # tag -> the row's prepared values


def _rows(frame: pd.DataFrame) -> Prepared:
    out = {}
    for values in frame.itertuples(index=False):
        cells = tuple(None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v) + 0.0
                      for v in values)  # + 0.0: -0.0 and 0.0 are one value to every statistic
        tag = int(cells[0])
        assert tag not in out, f"tag {tag} prepared twice"
        out[tag] = cells[1:]
    return out


def declared(path: Path) -> dict[str, str]:
    """A text file's encoding as its plan declares it (a release never guesses one from the rows)."""
    kind = next((k for k, (suffix, _, _) in TEXT_FORMATS.items() if path.name.endswith(k + suffix)), None)
    return {} if kind is None else {"encoding": TEXT_FORMATS[kind][2]}


def memory(path: Path, plan_schema: Schema, _spark=None) -> Prepared:
    return _rows(prepare(load_table(path, **declared(path)), plan_schema).prepared_rows())


def out_of_core(path: Path, plan_schema: Schema, _spark=None) -> Prepared:
    with OutOfCoreData(file_source(path, **declared(path)), plan_schema) as data:
        return _rows(data.prepared_rows())


def on_spark(path: Path, plan_schema: Schema, spark=None) -> Prepared:
    kind = next((k for k, (suffix, _, _) in TEXT_FORMATS.items() if path.name.endswith(k + suffix)), None)
    options = {} if kind is None else {"delimiter": TEXT_FORMATS[kind][1], **declared(path)}
    with SparkData(spark_source(path, **options), plan_schema, spark=spark) as data:
        return _rows(data.prepared_rows())


def differences(before: Prepared, after: Prepared, changed: set[int]) -> list[str]:
    """Every row of a person other than the one changed whose prepared values (or whose being kept) differ."""
    found = []
    for tag in sorted((set(before) | set(after)) - changed):
        if before.get(tag) != after.get(tag):
            found.append(f"row {tag}: {before.get(tag)} -> {after.get(tag)}")
    return found


def _files(folder: Path, seed: int, kind: str, operation: str):
    pair = next(p for p in neighbour_pairs(seed) if p.operation == operation)
    table = write(folder, f"table-{seed}-{operation}-{kind}", kind, pair.table())
    neighbour = write(folder, f"neighbour-{seed}-{operation}-{kind}", kind, pair.neighbour())
    return pair, table, neighbour


KINDS = [*TEXT_FORMATS, "parquet"]
OPERATIONS = ["removed", "added", "substituted"]


@pytest.mark.parametrize("engine", [memory, out_of_core], ids=["memory", "out-of-core"])
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(4))
def test_one_person_changes_nobody_elses_prepared_values(tmp_path, engine, kind, seed):
    for operation in OPERATIONS:
        pair, table, neighbour = _files(tmp_path, seed, kind, operation)
        before, after = engine(table, schema()), engine(neighbour, schema())
        assert not differences(before, after, pair.changed_tags()), (operation, differences(before, after, pair.changed_tags())[:5])


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("seed", range(4))
def test_in_memory_and_out_of_core_prepare_the_same_values(tmp_path, kind, seed):
    _, table, neighbour = _files(tmp_path, seed, kind, "added")
    for path in (table, neighbour):
        assert memory(path, schema()) == out_of_core(path, schema())


@pytest.mark.parametrize("kind", ["csv-utf8", "tsv-cp1252", "parquet"])
def test_spark_prepares_the_same_values_and_one_person_changes_only_their_own(tmp_path, spark, kind):
    for operation in OPERATIONS:
        pair, table, neighbour = _files(tmp_path, 0, kind, operation)
        before, after = on_spark(table, schema(), spark), on_spark(neighbour, schema(), spark)
        assert not differences(before, after, pair.changed_tags()), operation
        assert before == memory(table, schema()) and after == memory(neighbour, schema()), operation


@pytest.mark.parametrize("suffix", [".xlsx", ".sav", ".dta"])
def test_files_with_declared_types_are_read_value_by_value_too(tmp_path, suffix):
    """Excel stores each cell as a number or a text, SPSS and Stata each column as numbers or texts (with value
    labels): in memory only (the other engines read CSV and Parquet)."""
    import pyreadstat

    def save(rows: list[dict[str, str]], path: Path) -> Path:
        frame = pd.DataFrame(rows)
        if suffix == ".xlsx":  # what looks like a number is stored as one, cell by cell, as Excel does (the ids
            for column in frame.columns.drop("person"):  # stay text: Excel would make 00001 and 1 one person)
                frame[column] = [_excel_cell(v) for v in frame[column]]
            frame.to_excel(path, index=False)
            return path
        frame["tag"] = [float(tag_of(r)) for r in rows]
        frame["amount"] = pd.to_numeric(frame["amount"].str.strip(), errors="coerce").clip(-1e300, 1e300)
        frame["code"] = pd.to_numeric(frame["code"].str.strip(), errors="coerce")
        writer = pyreadstat.write_sav if suffix == ".sav" else pyreadstat.write_dta
        frame["flag"] = frame["flag"].str.strip()
        for column in ("person", "code_dropped", "word", "serial", "flag", "truth"):
            frame[column] = frame[column].map(lambda v: v.encode("ascii", "replace").decode().strip() or "x")
        frame = frame.drop(columns=["truth"])
        labels = {"code": {1: "one", 2: "two"}}  # a label that is no category: the code decides, as a number
        writer(frame, str(path), variable_value_labels=labels if suffix == ".sav" else None)  # Stata: whole codes only
        return path

    from reading_tables import rows_of

    plan_schema = schema()
    if suffix != ".xlsx":
        plan_schema = Schema(tuple(s for s in plan_schema.columns if s.name != "truth"), unit=plan_schema.unit)
    for operation in OPERATIONS:
        pair = next(p for p in neighbour_pairs(7) if p.operation == operation)
        table = save(rows_of(pair.table()), tmp_path / f"t-{operation}{suffix}")
        neighbour = save(rows_of(pair.neighbour()), tmp_path / f"n-{operation}{suffix}")
        before, after = memory(table, plan_schema), memory(neighbour, plan_schema)
        assert not differences(before, after, pair.changed_tags()), operation


def _excel_cell(text: str):
    """A text that is a finite number is stored as a number, as Excel stores what is typed into a cell."""
    try:
        number = float(text.strip())
    except ValueError:
        return text
    return number if math.isfinite(number) else text


# ---------------------------------------------------------------- the same check catches the old reading


def test_the_check_catches_the_old_reading(tmp_path):
    """The issue's example: 400 rows holding 1, 2 or 3, and a neighbour with one more row holding 1.5."""
    plan_schema = children_schema()
    table, neighbour = children(tmp_path)
    tags = {400}  # the added row
    assert len(differences(_rows(old_reading(table, plan_schema)), _rows(old_reading(neighbour, plan_schema)),
                           tags)) > 100
    for engine in (memory, out_of_core):
        assert not differences(engine(table, plan_schema), engine(neighbour, plan_schema), tags)


def test_the_check_catches_the_old_reading_on_the_generated_tables(tmp_path):
    caught = 0
    for seed in range(4):
        for operation in OPERATIONS:
            pair, table, neighbour = _files(tmp_path, seed, "csv-utf8", operation)
            caught += bool(differences(_rows(old_reading(table, schema())), _rows(old_reading(neighbour, schema())),
                                       pair.changed_tags()))
    # of 12 pairs, the additions and substitutions of an odd person into plain tables (seeds 0 and 2) at least;
    # the new reading changes nobody else's values in any of them (above)
    assert caught >= 4, caught


def test_a_text_column_reads_the_same_whichever_way_its_count_of_distinct_values_sends_it():
    """A numeric text column is read by distinct value when few are distinct, else by Arrow's kernels row by row:
    how many values are distinct depends on every row, so the two ways must read every spelling alike, or one
    person's value would change how the others' are read."""
    import numpy as np
    import pandas as pd
    import pytest

    from workbench.core.data import reading
    from workbench.core.errors import SchemaError

    spellings = ["1e400", "-1e400", "inf", "-Infinity", "INF", "+inf", "infinity", "INFINITY", "1e-400", "4.9e-324",
                 "2.4703282292062328e-324", "0.1", "+.5", "5.", "00012", "-0", "-0.0", "\u00a0 7 \u2003", "\x1c8\x1f",
                 "1E5", "9007199254740993", "123456789012345678901234567890", ".5e-3", "NA", "n/a", "", "  ", "True",
                 "false", "TRUE", "1.7976931348623157e308", "1.7976931348623159e308", "0.30000000000000004"]
    column = pd.Series(spellings, dtype="string[pyarrow]")
    by_distinct = reading.read_numbers(column, "x", "f.csv")
    by_row = reading._text_numbers(column).checked("x", "f.csv")
    assert by_distinct.tobytes() == by_row.tobytes()  # NaN, -0.0 and infinities included, bit for bit
    many = pd.Series([f"{i}.25" for i in range(5000)] + spellings, dtype="string[pyarrow]")
    assert reading.read_numbers(many, "x", "f.csv")[-len(spellings):].tobytes() == by_row.tobytes()
    for bad in (["1_000", "12", " 0x1F", "12"], ["12", "١٢", "12"]):  # refused alike, naming the first in file order
        messages = []
        for read in (reading.read_numbers, _by_row):
            with pytest.raises(SchemaError) as refused:
                read(pd.Series(bad, dtype="string[pyarrow]"), "x", "f.csv")
            messages.append(str(refused.value))
        assert messages[0] == messages[1]
    assert np.isnan(by_row[spellings.index("NA")])
    # a long column whose first rows are mostly distinct goes to Arrow's kernels at once (``_mostly_distinct``),
    # the spellings after those rows: read as one by one
    rng = np.random.default_rng(39)
    mixed = [repr(float(x)) for x in rng.normal(size=reading._SAMPLE_ROWS + 4000)] + spellings * 40
    for dtype in ("string[pyarrow]", "string[python]", "str"):
        long_column = pd.Series(mixed, dtype=dtype)
        assert reading._mostly_distinct(long_column), dtype
        assert reading.read_numbers(long_column, "x", "f.csv")[-len(spellings):].tobytes() == by_row.tobytes()
        codes, uniques = reading._distinct(long_column)  # the way by distinct value, on the same column
        cells = [reading.read_cell(v) for v in reading._listed(uniques)]
        by_value = np.append(np.array([np.nan if c.kind == "missing" else
                                       (reading._TRUTH[c.text] if c.number is None else c.number) for c in cells],
                                      dtype=np.float64), np.nan)[codes]
        assert reading.read_numbers(long_column, "x", "f.csv").tobytes() == by_value.tobytes()


def _by_row(series, column, file_name):
    """``reading._text_numbers`` (Arrow's kernels, row by row), refusing as ``read_numbers`` does."""
    from workbench.core.data import reading

    return reading._text_numbers(series).checked(column, file_name)
