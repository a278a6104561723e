"""The Spark engine's faster spellings give what the plain ones give: the trim that skips values starting and
ending with printable ASCII, the number pattern tried only where the first character can start a number, lookup
tables handed over as Arrow, and the file's pass with whole-stage code generation on (a session whose JVM compiles
huge methods) or off (any other session)."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from engine_tables import schema, survey_files

from workbench.core.data import spark_engine
from workbench.core.data.reading import WHITESPACE
from workbench.core.data.schema import IdentifierColumn, Schema
from workbench.core.data.sql_reading import Dialect
from workbench.core.data.spark_engine import HUGE_METHODS, SparkData, SparkDialect, compiles_huge_methods, spark_source

VALUES = ["", " ", "a", " a", "a ", "\u3000a\u3000", "\u00a0x", "x\u00a0", "\u2028", "!", "~", "!x~", "é", " é ",
          "éa", "aé", "\u0085a", "a\u0085", "\t\n", "x\u202fy", "€", " € ", "😀", "😀 ", "\u001fA", "A\u001f", "\u007f",
          "\u0080a", "a\u0080", "mid dle", "\u205f\u205f", "#N/A", None]


def test_no_white_space_character_is_printable_ascii():
    low, high = spark_engine._ASCII_PRINTABLE
    assert not [c for c in WHITESPACE if low <= ord(c) <= high]


def _both(spark, values, quick: str, plain: str) -> list:
    """Each value of ``values`` with its ``quick`` and ``plain`` expressions of ``v``, as Spark computes them."""
    spark.createDataFrame([(v,) for v in values], "v string").createOrReplaceTempView("dp_fast_values")
    rows = spark.sql(f"SELECT v, {quick}, {plain} FROM dp_fast_values").collect()
    assert len(rows) == len(values)
    return rows


def test_the_quick_trim_is_the_plain_trim(spark):
    d = SparkDialect()
    for value, quick, plain in _both(spark, VALUES, d.trim("v"), f"trim(BOTH {d.text(WHITESPACE)} FROM v)"):
        assert quick == plain == (None if value is None else value.strip(WHITESPACE)), repr(value)


NUMBERS = ["1", "-1", "+.5", ".5", "5.", "1e3", "1E-3", "inf", "-Inf", "+INFINITY", "infinity", "nan", "i", "I", ",1",
           "/1", "1,5", "e3", "é1", "١", "0x1F", "--1", "1.2.3", "male", "", " 1", "Infinityx", None]


def test_the_quick_number_test_is_the_pattern(spark):
    d = SparkDialect()
    rows = _both(spark, NUMBERS, d.is_number("v"), Dialect.is_number(d, "v"))
    for value, quick, plain in rows:
        assert quick is plain, repr(value)
    assert {r[0] for r in rows if r[1]} == {"1", "-1", "+.5", ".5", "5.", "1e3", "1E-3", "inf", "-Inf", "+INFINITY",
                                            "infinity"}


def test_lookup_tables_keep_their_types_and_join_alike(spark, tmp_path):
    files = survey_files(tmp_path, 50)
    with SparkData(spark_source(files["parquet"]), schema(), spark=spark) as engine:
        name = engine._lookup({"text": ["a", "b"], "code": [0, 1]})
        numbers = engine._lookup({"number": [1.5, float("nan"), -0.0], "code": [3, 4, 5]})
        assert spark.table(name).dtypes == [("text", "string"), ("code", "bigint")]
        assert spark.table(numbers).dtypes == [("number", "double"), ("code", "bigint")]
        found = spark.sql(f"SELECT v, code FROM VALUES (1.5D), (CAST('NaN' AS DOUBLE)), (0.0D), (2.0D) AS t(v) "
                          f"LEFT JOIN {numbers} ON v = number ORDER BY code").collect()
        assert sorted((r[1] for r in found), key=lambda c: (c is None, c)) == [3, 4, 5, None]


def test_huge_methods_are_told_from_the_session(spark):
    assert compiles_huge_methods(spark)  # started by start_session

    class Conf:
        def __init__(self, values):
            self.values = values

        def get(self, key, default=None):
            return self.values.get(key, default)

    def jvm_flag(value):  # the driver JVM's HotSpot bean, saying DontCompileHugeMethods = value
        option = SimpleNamespace(getValue=lambda: value)
        bean = SimpleNamespace(getVMOption=lambda name: option if name == "DontCompileHugeMethods" else None)
        lang = SimpleNamespace(Class=SimpleNamespace(forName=lambda name: name),
                               management=SimpleNamespace(ManagementFactory=SimpleNamespace(
                                   getPlatformMXBean=lambda cls: bean if cls.endswith("HotSpotDiagnosticMXBean") else None)))
        return SimpleNamespace(_jvm=SimpleNamespace(java=SimpleNamespace(lang=lang)))

    class Session:
        def __init__(self, values, flag=None):
            self.conf = Conf(values)
            if flag is not None:
                self.sparkContext = jvm_flag(flag)

    local = {"spark.master": "local[2]", "spark.driver.extraJavaOptions": HUGE_METHODS}
    assert compiles_huge_methods(Session(local, flag="false"))
    # asked for in the options, but the JVM was started before without it (or a later option turned it back on)
    assert not compiles_huge_methods(Session(local, flag="true"))
    assert not compiles_huge_methods(Session(local))  # no JVM to ask: cannot be told
    assert not compiles_huge_methods(Session({"spark.master": "yarn", "spark.driver.extraJavaOptions": HUGE_METHODS}))
    executors = {"spark.master": "yarn", "spark.executor.extraJavaOptions": f"-Xss4m {HUGE_METHODS}"}
    assert compiles_huge_methods(Session(executors))

    class Connect:
        @property
        def conf(self):
            raise RuntimeError("no static configuration here")

    assert not compiles_huge_methods(Connect())


def _one_row_a_person() -> Schema:
    described = schema()
    return Schema(tuple(c for c in described.columns if not isinstance(c, IdentifierColumn)))


@pytest.mark.parametrize("kind", ["csv", "parquet"])
@pytest.mark.parametrize("described", [schema, _one_row_a_person])
def test_the_file_pass_gives_the_same_rows_and_digest_with_whole_stage_code_generation_or_without(
        spark, tmp_path, monkeypatch, kind, described):
    files = survey_files(tmp_path, 400)
    found = []
    for huge in (True, False):
        monkeypatch.setattr(spark_engine, "compiles_huge_methods", lambda _, huge=huge: huge)
        with SparkData(spark_source(files[kind]), described(), spark=spark) as engine:
            assert engine._huge_methods is huge
            found.append((engine.content_digest(), engine.prepared_rows().sort_values(list(engine._prepared_columns))
                          .reset_index(drop=True)))
    assert found[0][0] == found[1][0]
    assert found[0][1].equals(found[1][1])


DOUBLES = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994, 0.5000000000000001,
           2.4999999999999996, 2.5000000000000004, 1e-300, -1e-300, 0.3, -0.3, 123456.5, 123457.5, 2.0 ** 52 - 0.5,
           2.0 ** 52 + 1, 2.0 ** 53 + 2, -(2.0 ** 52) + 0.5, 4503599627370495.5, 1e15 + 0.5, 1e18, -1e18, 9.2e18,
           1e300, -1e300, 7.0, -7.0, 1234567.4999999998, 0.1 * 3 / 0.1]


def test_round_even_is_sparks_bround_of_a_double(spark):
    d = SparkDialect()
    draw = random.Random(39)  # and values of every size, halves among them, as a grid's value / unit gives them
    values = [*DOUBLES, *(v / 3 for v in DOUBLES), *(v * 1e6 + 0.5 for v in range(-40, 40)),
              *(draw.uniform(-1, 1) * 10.0 ** draw.randint(-3, 20) for _ in range(2000)),
              *(draw.randint(-10 ** 6, 10 ** 6) / 2 for _ in range(500)),
              *(draw.uniform(0, 5000) / 0.0001220703125 for _ in range(500))]
    spark.createDataFrame([(v,) for v in values], "v double").createOrReplaceTempView("dp_round_values")
    quick, plain = d.round_even("v"), "bround(v, 0)"
    rows = spark.sql(f"SELECT v, {quick}, {plain}, {quick} = {plain}, {quick} = v, {plain} = v "
                     "FROM dp_round_values").collect()
    assert len(rows) == len(values)
    for value, fast, slow, same, fast_whole, slow_whole in rows:
        assert fast == slow and same and fast_whole == slow_whole, repr(value)
    for cast, within in (("BIGINT", 9e18), ("DECIMAL(38, 0)", 1e37)):  # as the aggregates and the category check
        alike = spark.sql(f"SELECT v, CAST({quick} AS {cast}) = CAST({plain} AS {cast}) FROM dp_round_values "
                          f"WHERE abs(v) < {within}").collect()
        assert alike and all(row[1] for row in alike), cast
    nan, infinity, null = (d.round_even(f"CAST({d.text(v)} AS DOUBLE)") for v in ("NaN", "Infinity", "NULL"))
    special = spark.sql(f"SELECT isnan({nan}), {infinity}, {null.replace(d.text('NULL'), 'NULL')}").first()
    assert special[0] and special[1] == float("inf") and special[2] is None
